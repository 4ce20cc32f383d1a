#pragma once
// Every configuration struct in the scenario that has a validate() has it
// run, wherever it sits in the tree. The area checks of scenario_validation
// run the validate() of the structs they know and add cross-references; this
// walk makes sure that a struct nested somewhere they do not look (a retry
// policy on a service's call, a probe inside a deployment) is never let
// through to fail later, mid-run. Problems already reported by an area check
// are not reported twice (the loader drops repeated diagnostics).
// Internal to io/.
#include <vector>

#include "io/scenario.h"
#include "io/scenario_error.h"
#include "io/source_map.h"

namespace drsim {

std::vector<Diagnostic> check_every_config(const ScenarioSpec& spec, const SourceMap& where);

}  // namespace drsim

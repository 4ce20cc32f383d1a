#pragma once
// Checks that need more than one value: names unique, references resolving,
// the timeline acyclic and consistent with the action catalog. They run after
// decoding, collect every problem, and locate each through the SourceMap.
// Internal to io/.
#include <vector>

#include "io/scenario.h"
#include "io/scenario_error.h"
#include "io/source_map.h"

namespace drsim {

// Zone, region and link names unique; every region has a zone; every link
// joins two different known regions. Paths are under spec.topology.
std::vector<Diagnostic> check_topology(const TopologyConfig& topology, const SourceMap& where);

// Service and population names unique; each service's configuration valid
// (its validate()) and its replica zones known; each population's service and
// zone known and its load valid. Services are under spec.topology.services,
// populations under spec.load.
std::vector<Diagnostic> check_services_and_load(const ScenarioSpec& spec, const SourceMap& where);

// Action names unique and known; targets and parameters as the action
// catalog says; exactly one of at / startAfter; no startAfter cycle.
std::vector<Diagnostic> check_timeline(const ScenarioSpec& spec, const SourceMap& where);

// spec.network valid; flow:transfer steps only in network-fidelity mode
// (fidelity: flows), each to a known zone other than its target zone, joined
// to it by links.
std::vector<Diagnostic> check_network(const ScenarioSpec& spec, const SourceMap& where);
// spec.objectives: its own rules, the population it names, a window on the metrics grid.
std::vector<Diagnostic> check_objectives(const ScenarioSpec& spec, const SourceMap& where);

// Absolute start and end of every action, sorted by (start, index). The
// timeline must have passed check_timeline. Times past SimTime's range are
// reported rather than wrapped.
std::vector<ResolvedAction> resolve_timeline(const std::vector<ActionConfig>& timeline, const SourceMap& where,
                                             std::vector<Diagnostic>& diagnostics);

}  // namespace drsim

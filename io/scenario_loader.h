#pragma once
// YAML -> Scenario, with every check that bad input needs. yaml-cpp stays
// behind this interface.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "io/scenario.h"
#include "io/scenario_error.h"

namespace drsim {

// Largest scenario or topology file accepted: a larger one is refused before
// parsing, with a clear message, rather than exhausting memory.
inline constexpr std::size_t kMaxScenarioBytes = 4 * 1024 * 1024;

// Overrides are "path=value": the path uses dots and [index] or [name]
// selectors ("spec.timeline[fail-a].at", "spec.topology.regions[0].zones[1].name"),
// the value is YAML ("7", "5m", "[a, b]"). They are applied to the YAML tree
// before decoding, so they pass through exactly the same validation.
Scenario load_scenario_file(const std::filesystem::path& file, const std::vector<std::string>& overrides = {});
Scenario load_scenario_text(std::string_view text, const std::vector<std::string>& overrides = {},
                            std::string_view source_name = "<text>",
                            const std::filesystem::path& base_dir = std::filesystem::current_path());
// The same scenario loaded again from its source with more overrides appended.
Scenario with_overrides(const Scenario& scenario, const std::vector<std::string>& overrides);

// The resolved scenario as YAML: topology inlined, every default written out.
// Loading this text gives back an equal Scenario.
std::string to_yaml(const Scenario& scenario);
// A human-readable account of the resolved scenario (drsim describe).
std::string describe(const Scenario& scenario);

// Reference documentation and JSON Schema, generated from the field lists.
std::string scenario_format_markdown();
std::string scenario_json_schema();
// The event kind catalog (models/results/event_kind_catalog.h) as JSON, for
// tools: {"eventKinds": [{"name", "formerly", "detectsFailure", "doc"}, ...]}.
std::string event_kinds_json();

}  // namespace drsim

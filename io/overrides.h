#pragma once
// --set overrides: "path=value" applied to a YAML tree before decoding, so an
// overridden value passes through exactly the checks a value in the file does.
// Internal to io/; the syntax is documented in io/scenario_loader.h.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/scenario_error.h"

namespace drsim {

struct PathStep {
  // kAll: [*], every item of a list; kMatch: [key=value], the items whose key (dotted through mappings, e.g.
  // serviceTime.kind) holds that scalar. Both may select many items: the rest of the path is followed in each.
  enum class Kind { kKey, kIndex, kName, kAll, kMatch };
  Kind kind = Kind::kKey;
  std::string text;       // the key, the name in [name], or the key in [key=value]
  std::size_t index = 0;  // for [index]
  std::string value;      // for [key=value]
};

struct Override {
  std::string label;  // "--set spec.seed=7": the "file" of diagnostics about its value
  std::vector<PathStep> path;
  std::string value;  // YAML text
};

// Splits "path=value" at the first '=' and parses the path; throws
// ScenarioError when the syntax is wrong.
Override parse_override(std::string_view text);

// Where an applied override put its value, spelled as the decoder spells
// paths ("spec.timeline[1].at", [name] resolved to its index).
struct OverrideOrigin {
  std::string path;
  std::string label;
};

// The label of the last override whose value holds path, or fallback: later
// overrides win, as they were applied later.
const std::string& origin_of(std::span<const OverrideOrigin> origins, std::string_view path,
                             const std::string& fallback);

// Applies overrides to a document in order; a path that cannot be followed is
// reported in diagnostics and the override skipped.
std::vector<OverrideOrigin> apply_overrides(YAML::Node& root, std::span<const Override> overrides,
                                            std::vector<Diagnostic>& diagnostics);

struct ScenarioOverrides {
  std::vector<OverrideOrigin> origins;
  // Overrides under spec.topology while spec.topology is a file path,
  // rewritten into that file's terms (spec.topology.regions[0] -> spec.regions[0]).
  std::vector<Override> topology;
};

// apply_overrides for a scenario document: overrides that reach into a
// topology file are held back for that file.
ScenarioOverrides apply_scenario_overrides(YAML::Node& root, std::span<const Override> overrides,
                                           std::vector<Diagnostic>& diagnostics);

}  // namespace drsim

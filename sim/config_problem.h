#pragma once
// A problem found by a config's validate(): the field's key path relative to
// the config (camelCase as in YAML, e.g. "stages[1].target") and what is
// wrong. The scenario loader prefixes the YAML path and attaches positions.
#include <string>

namespace drsim {

struct ConfigProblem {
  std::string field;
  std::string message;
  friend bool operator==(const ConfigProblem&, const ConfigProblem&) = default;
};

}  // namespace drsim

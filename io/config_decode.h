#pragma once
// One config struct decoded on its own, from YAML text, as the scenario
// decoder decodes it in place: the struct's defaults, the same keys, flags
// and messages, the CSV file a rate trace or service time names (relative to
// the current directory), then the struct's own validate() when it has one.
// drsim.config's keyword constructors write their keywords as YAML
// (python/src/config_yaml.h) and get back the value a scenario would hold;
// yaml-cpp stays inside io/.
//
// Cross-references (a service's zones, a population's service) are not
// checked: they need the whole scenario, and are checked when the value is
// put into one (Scenario.replace).
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>

#include "sim/fields.h"

namespace drsim {

// Whether decode_config knows the type: every struct reachable from Scenario.
bool config_decodable(std::type_index type);

// Decodes `text`, a YAML mapping, into *out, a default-constructed value of
// type `type`. Throws ScenarioError with every problem, each at `path` plus
// the key path ("RetryPolicy.attempts") and without file or line: the text
// is a program's, not a file the user could open. Throws std::logic_error for
// a type config_decodable() refuses.
void decode_config_into(std::type_index type, std::string_view text, const std::string& path, void* out);

template <Described T>
T decode_config(std::string_view text, const std::string& path) {
  T out{};
  decode_config_into(typeid(T), text, path, &out);
  return out;
}

}  // namespace drsim

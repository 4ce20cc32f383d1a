#pragma once
// Python attribute names of config fields, derived from their YAML keys:
// camelCase -> snake_case ("serviceTime" -> "service_time", "p50" -> "p50",
// "maxRPSBudget" -> "max_rps_budget"), with a trailing underscore on a
// Python keyword ("from" -> "from_"), as PEP 8 suggests.
#include <string>
#include <string_view>

namespace drsim::python {

std::string python_name(std::string_view yaml_key);

// Whether `text` names the field whose YAML key is `yaml_key`: either
// spelling is accepted where Python code names a field (replace() paths and
// mapping keys).
bool names_field(std::string_view text, std::string_view yaml_key);

}  // namespace drsim::python

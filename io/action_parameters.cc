#include "io/action_parameters.h"

#include <algorithm>

namespace drsim {

std::vector<std::string_view> parameters_of(const ActionSpecInfo& info) {
  std::vector<std::string_view> out;
  for (std::string_view p : info.params) {
    if (!p.empty()) out.push_back(p);
  }
  return out;
}

bool is_action_parameter(std::string_view key) {
  const auto catalog = action_catalog();
  return std::any_of(catalog.begin(), catalog.end(), [key](const ActionSpecInfo& info) {
    const auto params = parameters_of(info);
    return std::find(params.begin(), params.end(), key) != params.end();
  });
}

}  // namespace drsim

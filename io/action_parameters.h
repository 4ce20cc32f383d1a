#pragma once
// The parameters of timeline actions: ActionConfig fields (latency, loss,
// bandwidth) that the action catalog hands out per action. Validation checks
// them against the catalog and describe() prints them; both find them here.
// Internal to io/.
#include <string_view>
#include <vector>

#include "sim/field_traits.h"
#include "models/actions/action_catalog.h"
#include "models/actions/action_config.h"

namespace drsim {

// The catalog's parameter keys for one action, without the unused slots.
std::vector<std::string_view> parameters_of(const ActionSpecInfo& info);
// Whether key is a parameter of any action in the catalog.
bool is_action_parameter(std::string_view key);

// Calls f(key, value) for each parameter that is set on the action, in field
// order. Parameters are optional fields: absent means "not given".
template <class F>
void for_each_parameter(const ActionConfig& action, F&& f) {
  for_each_field<ActionConfig>([&](const auto& field) {
    if constexpr (IsOptional<FieldValue<decltype(field)>>::value) {
      if (is_action_parameter(field.key) && (action.*field.member)) f(field.key, *(action.*field.member));
    }
  });
}

}  // namespace drsim

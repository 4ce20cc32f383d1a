// The action catalog is the one place an action is declared: every row has
// a handler, a role that the fault report can use, and parameters that are
// fields of ActionConfig.
#include "models/actions/action_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <set>
#include <string>

#include "models/actions/action_config.h"
#include "sim/fields.h"

namespace drsim {
namespace {

std::set<std::string, std::less<>> action_config_keys() {
  std::set<std::string, std::less<>> keys;
  for_each_field<ActionConfig>([&](const auto& f) { keys.emplace(f.key); });
  return keys;
}

TEST(ActionCatalog, EveryActionHasAHandler) {
  for (const ActionSpecInfo& info : action_catalog()) {
    EXPECT_NE(info.handler, nullptr) << info.name;
  }
}

TEST(ActionCatalog, EveryRepairNamesTheFaultsItEnds) {
  for (const ActionSpecInfo& info : action_catalog()) {
    const bool names_some = !info.repairs[0].empty();
    EXPECT_EQ(names_some, info.role == ActionRole::kRepair) << info.name << " is a " << to_string(info.role);
    for (std::string_view repaired : info.repairs) {
      if (repaired.empty()) continue;
      const ActionSpecInfo* fault = find_action(repaired);
      ASSERT_NE(fault, nullptr) << info.name << " repairs unknown " << repaired;
      EXPECT_EQ(fault->role, ActionRole::kFault) << info.name << " repairs " << repaired;
      EXPECT_EQ(fault->target, info.target) << info.name << " repairs " << repaired << " on another target";
    }
  }
}

TEST(ActionCatalog, ParametersAreFieldsOfTheActionConfig) {
  const auto keys = action_config_keys();
  for (const ActionSpecInfo& info : action_catalog()) {
    for (std::string_view p : info.params) {
      if (!p.empty()) EXPECT_TRUE(keys.contains(p)) << info.name << ": " << p;
    }
    for (std::string_view p : info.required_params) {
      if (p.empty()) continue;
      EXPECT_NE(std::find(std::begin(info.params), std::end(info.params), p), std::end(info.params))
          << info.name << " requires " << p << " without taking it";
    }
  }
}

TEST(ActionCatalog, EveryParameterFieldBelongsToSomeAction) {
  // The fields of ActionConfig that are not the step's own (name, action,
  // timing, target) are parameters; each must be taken by some action.
  const std::set<std::string, std::less<>> step_keys{"name",  "action",   "at",    "startAfter",
                                                     "delay", "duration", "target"};
  for (const std::string& key : action_config_keys()) {
    if (step_keys.contains(key)) continue;
    bool taken = false;
    for (const ActionSpecInfo& info : action_catalog()) {
      for (std::string_view p : info.params) taken = taken || p == key;
    }
    EXPECT_TRUE(taken) << "ActionConfig field " << key << " is no action's parameter";
  }
}

TEST(ActionCatalog, NamesAreUniqueAndFound) {
  std::set<std::string_view> names;
  for (const ActionSpecInfo& info : action_catalog()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(find_action(info.name), &info);
  }
  EXPECT_EQ(find_action("made:up"), nullptr);
}

}  // namespace
}  // namespace drsim

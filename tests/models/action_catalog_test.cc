// The action catalog is the one place an action is declared: every row has
// a handler, a role that the fault report can use, and parameters that are
// fields of ActionConfig.
#include "models/actions/action_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <chrono>
#include <set>
#include <string>

#include "models/actions/action_config.h"
#include "models/actions/timeline.h"
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

// describe_action (the events' details) shows every parameter an action's
// row takes and every target field it has: it reads them from the catalog,
// so a new parameter cannot be left out of the logs.
TEST(ActionCatalog, DescribeShowsEveryParameterAndTargetOfTheRow) {
  using namespace std::chrono_literals;
  ActionConfig a;
  a.name = "step";
  a.target = ActionTarget{"z", "r", "l", "s", "p", "d", "v"};
  a.latency = 50ms;
  a.loss = Ratio{0.01};
  a.bandwidth = Bandwidth{1e9};
  a.ratio = Ratio{0.5};
  a.replicas = 3;
  a.count = 2;
  a.percent = Ratio{0.25};
  a.factor = 4;
  a.weight = 0;
  a.policy = DeploymentPolicyConfig{.kind = "equal", .zones = {"a", "b"}};
  a.to = "b";
  a.size = ByteSize{1000000};
  a.to_regions = std::vector<std::string>{"r2", "r3"};
  a.steps = std::vector<RoutingSwitchStep>{{.after = 0s, .share = Ratio{0.1}}, {.after = 2min, .share = Ratio{1}}};
  a.reverse = true;
  for (const ActionSpecInfo& info : action_catalog()) {
    a.action = std::string(info.name);
    const std::string text = describe_action(a);
    for (std::string_view p : info.params) {
      if (!p.empty()) EXPECT_NE(text.find(std::string(p) + "="), std::string::npos) << info.name << ": " << text;
    }
  }
  a.action = "deployment:policy";
  EXPECT_EQ(describe_action(a), "service=s zone=z region=r link=l population=p database=d vendor=v "
                                "policy={kind: equal, zones: [a, b]}");
  a.action = "routing:switch";
  EXPECT_EQ(describe_action(a), "service=s zone=z region=r link=l population=p database=d vendor=v "
                                "toRegions=[r2, r3] steps=[{after: 0s, share: 10%}, {after: 2m, share: 100%}] "
                                "reverse=true");
}

}  // namespace
}  // namespace drsim

// Cross-reference checks: every problem reported together, each at its value.
#include <gtest/gtest.h>

#include "io/action_parameters.h"
#include "sim/field_traits.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

using testing::load_error;

TEST(Validation, ReportsEveryCrossReferenceProblemTogether) {
  const std::string text = R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: many-problems}
spec:
  duration: 1h
  topology:
    regions:
      - name: eu
        zones: [{name: a}, {name: a}]
      - name: eu
        zones: [{name: b}]
      - name: empty
        zones: []
    links:
      - {name: l1, between: [eu, us, ap], rtt: 1ms, bandwidth: 1Gbps}
      - {name: l1, between: [eu, eu], rtt: 1ms, bandwidth: 1Gbps}
  timeline:
    - {name: x, action: zone:fail, at: 1m, target: {zone: c}}
    - {name: x, action: region:fail, startAfter: [y, nope], target: {region: eu}}
    - {name: y, action: link:cut, startAfter: [x], target: {link: l2}}
    - {name: z, action: link:degrade, at: 1m, target: {link: l1}}
)";
  try {
    load_scenario_text(text, {}, "many.yaml");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    std::vector<std::string> lines;
    for (const Diagnostic& d : e.diagnostics()) lines.push_back(d.to_string());
    EXPECT_EQ(lines, (std::vector<std::string>{
                         "many.yaml:9:35: spec.topology.regions[0].zones[1].name: duplicate zone name \"a\" (first "
                         "defined at line 9)",
                         "many.yaml:10:15: spec.topology.regions[1].name: duplicate region name \"eu\" (first defined "
                         "at line 8)",
                         "many.yaml:13:16: spec.topology.regions[2].zones: expected at least one zone, got none",
                         "many.yaml:15:29: spec.topology.links[0].between: expected two region names, got 3",
                         "many.yaml:15:34: spec.topology.links[0].between[1]: unknown region \"us\" (regions: eu, "
                         "empty)",
                         "many.yaml:15:38: spec.topology.links[0].between[2]: unknown region \"ap\" (regions: eu, "
                         "empty)",
                         "many.yaml:16:16: spec.topology.links[1].name: duplicate link name \"l1\" (first defined at "
                         "line 15)",
                         "many.yaml:16:34: spec.topology.links[1].between[1]: expected a region other than \"eu\": a "
                         "link joins two different regions",
                         "many.yaml:19:14: spec.timeline[1].name: duplicate action name \"x\" (first defined at line "
                         "18)",
                         "many.yaml:18:59: spec.timeline[0].target.zone: unknown zone \"c\", did you mean \"a\"? "
                         "(zones: a, b)",
                         "many.yaml:19:54: spec.timeline[1].startAfter[1]: unknown action \"nope\" (actions: x, y, z)",
                         "many.yaml:20:67: spec.timeline[2].target.link: unknown link \"l2\", did you mean \"l1\"? "
                         "(links: l1)",
                         "many.yaml:21:7: spec.timeline[3]: link:degrade needs at least one of latency, loss, "
                         "bandwidth",
                     }));
  }
}

TEST(Validation, SelfReferenceIsACycle) {
  EXPECT_EQ(load_error(testing::scenario_with(R"(  timeline:
    - {name: a, action: zone:fail, startAfter: [a], target: {zone: eu-west-1a}}
)")),
            "<text>:16:49: spec.timeline[0].startAfter[0]: startAfter cycle: a -> a (each waits for the next)");
}

TEST(Validation, EachCycleIsReportedOnce) {
  EXPECT_EQ(load_error(testing::scenario_with(R"(  timeline:
    - {name: a, action: zone:fail, startAfter: [b], target: {zone: eu-west-1a}}
    - {name: b, action: zone:recover, startAfter: [a], target: {zone: eu-west-1a}}
    - {name: c, action: link:cut, startAfter: [d, a], target: {link: eu-us}}
    - {name: d, action: link:restore, startAfter: [c], target: {link: eu-us}}
)")),
            "<text>:16:49: spec.timeline[0].startAfter[0]: startAfter cycle: a -> b -> a (each waits for the next)\n"
            "<text>:18:48: spec.timeline[2].startAfter[0]: startAfter cycle: c -> d -> c (each waits for the next)");
}

TEST(Validation, EmptyNamesAreRefused) {
  EXPECT_EQ(load_error(testing::scenario_with(R"(  timeline:
    - {name: "", action: zone:fail, at: 0s, target: {zone: eu-west-1a}}
)")),
            "<text>:16:14: spec.timeline[0].name: expected a non-empty action name, got \"\"");
}

TEST(Validation, TimesPastTheLongestScenarioTimeAreReported) {
  EXPECT_EQ(load_error(testing::scenario_with(R"(  timeline:
    - {name: a, action: zone:fail, at: 19999d, duration: 2d, target: {zone: eu-west-1a}}
    - {name: b, action: zone:fail, at: 20000d, target: {zone: eu-west-1a}}
    - {name: c, action: zone:fail, startAfter: [b], delay: 1d, target: {zone: eu-west-1a}}
)")),
            "<text>:16:58: spec.timeline[0].duration: expected the action to end by 20000d, got a later time\n"
            "<text>:18:60: spec.timeline[2].delay: expected the action to start by 20000d, got a later time");
}

// Every duration is bounded where it is written, so no sum of them can leave
// the clock's range later (the issue's timeline at 100000d ended in "internal
// error: event time out of range").
TEST(Validation, DurationsPastTheLongestScenarioTimeAreRefused) {
  EXPECT_EQ(load_error(testing::scenario_with(R"(  timeline:
    - {name: a, action: zone:fail, at: 100000d, target: {zone: eu-west-1a}}
)")),
            "<text>:16:40: spec.timeline[0].at: expected a duration of at most 20000d (about 55 years), got "
            "\"100000d\"");
}

// The catalog's parameters are optional fields of ActionConfig: that is how
// validation tells a given parameter from an absent one.
TEST(Validation, EveryCatalogParameterIsAnOptionalActionField) {
  for (const ActionSpecInfo& info : action_catalog()) {
    for (std::string_view p : parameters_of(info)) {
      bool found = false;
      for_each_field<ActionConfig>([&](const auto& f) {
        if (f.key == p) found = IsOptional<FieldValue<decltype(f)>>::value;
      });
      EXPECT_TRUE(found) << info.name << " parameter " << p;
    }
    for (std::string_view p : info.required_params) {
      if (p.empty()) continue;
      const auto params = parameters_of(info);
      EXPECT_NE(std::find(params.begin(), params.end(), p), params.end()) << info.name << " requires " << p;
    }
  }
}

}  // namespace
}  // namespace drsim

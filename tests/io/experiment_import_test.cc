// drsim import experiment: an AWS FIS template and Chaos Mesh objects (tests/data/experiments) become timeline
// steps of a scenario, with the template's timing (startAfter, waits) kept and everything else noted; bad
// experiments give the exact message a user sees.
#include "io/experiment_import.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Three zones, cart with a pod in each; no timeline of its own.
constexpr const char* kBase = R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: base
spec:
  duration: 45m
  topology:
    regions:
      - name: r
        zones: [{name: zone-a}, {name: zone-b}, {name: zone-c}]
    services:
      # the cart
      - name: cart
        replicas: [{zone: zone-a, replicas: 1}, {zone: zone-b, replicas: 1}, {zone: zone-c, replicas: 1}]
        serviceTime: {kind: constant, value: 1ms}
)";

ExperimentImport import_file(const std::string& file, ExperimentImportOptions options = {}) {
  options.zone_names["us-east-1a"] = "zone-a";
  return import_experiment(load_scenario_text(kBase), {file}, options);
}

const ActionConfig& step(const ExperimentImport& x, const std::string& name) {
  for (const ActionConfig& a : x.steps) {
    if (a.name == name) return a;
  }
  ADD_FAILURE() << "no step " << name;
  static const ActionConfig none;
  return none;
}

bool noted(const ExperimentImport& x, const std::string& path, const std::string& words) {
  return std::any_of(x.notes.begin(), x.notes.end(),
                     [&](const ImportNote& n) { return n.path == path && n.message.find(words) != std::string::npos; });
}

TEST(ExperimentImport, TheAzPowerInterruptionIsOneZoneFailureThenWhatWaitsForIt) {
  ExperimentImportOptions options;
  options.start = 3min;
  const ExperimentImport x = import_file("tests/data/experiments/fis_az_power_interruption.json", options);
  // The network disruption (2 min) and the instance stop (30 min) take zone-a down at once: one step.
  const ActionConfig& zone = step(x, "Pause-network-connectivity");
  EXPECT_EQ(zone.action, "zone:fail");
  EXPECT_EQ(zone.target.zone, "zone-a");
  EXPECT_EQ(zone.at, 3min);
  EXPECT_EQ(zone.duration, 30min);
  EXPECT_EQ(
      std::count_if(x.steps.begin(), x.steps.end(), [](const ActionConfig& a) { return a.action == "zone:fail"; }), 1);
  // Delete-Cart-Pods starts after Wait (5 min) after Stop-Instances: the merged step's end, plus 5 min.
  for (const char* z : {"zone-a", "zone-b", "zone-c"}) {
    const ActionConfig& kill = step(x, std::string("Delete-Cart-Pods-") + z);
    EXPECT_EQ(kill.action, "pods:kill");
    EXPECT_EQ(kill.target.service, "cart");
    EXPECT_EQ(kill.start_after, std::vector<std::string>{"Pause-network-connectivity"});
    EXPECT_EQ(kill.delay, 5min);
    ASSERT_TRUE(kill.percent);
    EXPECT_EQ(kill.percent->value, 1.0);
  }
  EXPECT_EQ(x.steps.size(), 4u);
  EXPECT_TRUE(noted(x, "actions.Pause-Instance-Launches", "aws:ec2:api-insufficient-instance-capacity-error"));
  EXPECT_TRUE(noted(x, "targets.RDS-Cluster.resourceArns", "no database named \"orders\""));
  EXPECT_TRUE(noted(x, "stopConditions", "not evaluated"));
  EXPECT_TRUE(noted(x, "targets.EC2-Instances.resourceTags", "not modelled"));
}

TEST(ExperimentImport, ChaosMeshPartitionsAndPodKills) {
  const ExperimentImport x = import_file("tests/data/experiments/chaos_mesh.yaml");
  const ActionConfig& cut = step(x, "isolate-zone-b");
  EXPECT_EQ(cut.action, "zone:fail");
  EXPECT_EQ(cut.target.zone, "zone-b");
  EXPECT_EQ(cut.at, 1min);  // the default start
  EXPECT_EQ(cut.duration, 5min);
  const ActionConfig& kill = step(x, "kill-cart-zone-c");
  EXPECT_EQ(kill.action, "pods:kill");
  ASSERT_TRUE(kill.percent);
  EXPECT_DOUBLE_EQ(kill.percent->value, 0.5);
  EXPECT_TRUE(noted(x, "", "StressChaos"));
  EXPECT_TRUE(noted(x, "spec.mode", "per zone"));
}

TEST(ExperimentImport, TheStepsAreAppendedToTheScenarioTextWhichKeepsItsComments) {
  const ExperimentImport x = import_file("tests/data/experiments/chaos_mesh.yaml");
  const std::string out = scenario_with_steps(kBase, "base.yaml", x);
  EXPECT_EQ(out.rfind(kBase, 0), 0u);  // the text as written, comments included
  EXPECT_NE(out.find("\n  timeline:\n    - {name: isolate-zone-b, action: zone:fail, at: 1m, duration: 5m, "
                     "target: {zone: zone-b}}  # NetworkChaos isolate-zone-b (tests/data/experiments/"
                     "chaos_mesh.yaml:2)"),
            std::string::npos)
      << out;
  const Scenario s = load_scenario_text(out);
  EXPECT_EQ(s.spec.timeline.size(), x.steps.size());
  // It runs: zone-b is down from 1 to 6 minutes.
  const RunResult run = run_scenario(s, RunOptions{.until = 7min});
  EXPECT_TRUE(run.outcome.complete()) << run.outcome.message;
}

TEST(ExperimentImport, AStepAfterAnExistingTimelineListGoesAtItsIndentation) {
  const std::string base = std::string(kBase) +
                           "  timeline:\n      - {name: first, action: zone:fail, at: 30s, "
                           "duration: 10s, target: {zone: zone-c}}\n";
  const ExperimentImport x = import_file("tests/data/experiments/chaos_mesh.yaml");
  const std::string out = scenario_with_steps(base, "base.yaml", x);
  EXPECT_NE(out.find("\n      - {name: isolate-zone-b"), std::string::npos) << out;
  EXPECT_EQ(load_scenario_text(out).spec.timeline.size(), x.steps.size() + 1);
}

TEST(ExperimentImport, AFlowTimelineGivesTheResolvedScenarioWithTheSteps) {
  const std::string base = std::string(kBase) + "  timeline: []\n";
  const ExperimentImport x = import_file("tests/data/experiments/chaos_mesh.yaml");
  const std::string out = scenario_with_steps(base, "base.yaml", x);
  EXPECT_EQ(out.rfind("# timeline step isolate-zone-b: NetworkChaos isolate-zone-b", 0), 0u) << out;
  EXPECT_EQ(load_scenario_text(out).spec.timeline.size(), x.steps.size());
}

struct BadExperiment {
  const char* file;
  const char* expected;
};

const BadExperiment kBadExperiments[] = {
    {"bad_duration.json",
     "tests/data/experiments/bad/bad_duration.json:2:78: experiment template: actions.wait.parameters.duration: "
     "expected an ISO 8601 duration such as \"PT30M\" or \"PT1H30M\", got \"30m\""},
    {"bad_mode.yaml",
     "tests/data/experiments/bad/bad_mode.yaml:6:9: PodChaos k: spec.mode: expected one, all, fixed, fixed-percent "
     "or random-max-percent, got \"sometimes\""},
    {"not_an_experiment.yaml",
     "tests/data/experiments/bad/not_an_experiment.yaml:1:1: expected an AWS FIS experiment template (targets and "
     "actions) or a Chaos Mesh object (apiVersion chaos-mesh.org/v1alpha1), got a mapping"},
    {"start_after_cycle.json",
     "tests/data/experiments/bad/start_after_cycle.json:2:98: experiment template: actions.a.startAfter: expected "
     "actions that do not wait for each other in a cycle"},
    {"start_after_unknown.json",
     "tests/data/experiments/bad/start_after_unknown.json:2:99: experiment template: actions.a.startAfter[0]: "
     "expected an action of the template, got \"nope\""},
    {"unknown_zone.json",
     "tests/data/experiments/bad/unknown_zone.json:1:99: experiment template: "
     "targets.s.parameters.availabilityZoneIdentifier: expected a zone of the scenario (zone-a, zone-b, zone-c) or "
     "one mapped to it (--zone-map use1-az9=ZONE), got \"use1-az9\""},
};

TEST(ExperimentImportBad, EachGivesItsMessage) {
  for (const BadExperiment& c : kBadExperiments) {
    const std::string path = std::string("tests/data/experiments/bad/") + c.file;
    EXPECT_EQ(testing::error_of([&] { import_file(path); }), c.expected) << c.file;
  }
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/data/experiments/bad")) {
    ++files;
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(std::any_of(std::begin(kBadExperiments), std::end(kBadExperiments), [&](const BadExperiment& c) {
      return name == c.file;
    })) << name;
  }
  EXPECT_EQ(files, std::size(kBadExperiments));
}

}  // namespace
}  // namespace drsim

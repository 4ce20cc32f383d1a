// --set overrides: applied to the YAML before decoding, checked like the
// file's own values, and blamed on the override when wrong.
#include <gtest/gtest.h>

#include "tests/io/test_support.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using testing::error_of;

constexpr const char* kChain = "tests/data/scenarios/good/startafter_chain.yaml";
constexpr const char* kMinimal = "tests/data/scenarios/good/minimal.yaml";
constexpr const char* kTopologyFile = "tests/data/scenarios/good/topology_file.yaml";

std::string load_error(const char* file, std::vector<std::string> overrides) {
  return error_of([&] { load_scenario_file(file, overrides); });
}

TEST(Overrides, ChangeScalarValues) {
  const Scenario s = load_scenario_file(kMinimal, {"spec.seed=7", "spec.duration=5m", "metadata.name=renamed"});
  EXPECT_EQ(s.spec.seed, 7u);
  EXPECT_EQ(s.spec.duration, 5min);
  EXPECT_EQ(s.metadata.name, "renamed");
  EXPECT_EQ(s.overrides, (std::vector<std::string>{"spec.seed=7", "spec.duration=5m", "metadata.name=renamed"}));
}

TEST(Overrides, LaterOverridesWin) {
  EXPECT_EQ(load_scenario_file(kMinimal, {"spec.seed=7", "spec.seed=8"}).spec.seed, 8u);
}

TEST(Overrides, IndexAndNameSelectors) {
  const Scenario s = load_scenario_file(kChain, {"spec.timeline[2].at=20m", "spec.timeline[degrade].duration=1h"});
  EXPECT_EQ(s.spec.timeline[2].name, "fail-a");
  EXPECT_EQ(s.spec.timeline[2].at, 20min);
  EXPECT_EQ(s.spec.timeline[1].duration, 1h);
  // The timeline is resolved again: degrade starts 1m after fail-a's new end.
  EXPECT_EQ(s.resolved_timeline[1].index, 1u);
  EXPECT_EQ(s.resolved_timeline[1].start.time_since_epoch(), 41min);
}

TEST(Overrides, ValuesAreYaml) {
  const Scenario s = load_scenario_file(
      kChain, {"spec.timeline[recover].startAfter=[region-down]", "spec.timeline[fail-a].target={zone: eu-west-1b}"});
  EXPECT_EQ(s.spec.timeline[0].start_after, std::vector<std::string>{"region-down"});
  EXPECT_EQ(s.spec.timeline[2].target.zone, "eu-west-1b");
}

TEST(Overrides, AddMissingKeys) {
  const Scenario s = load_scenario_file(kMinimal, {"spec.guards.maxEvents=10", "metadata.description=added"});
  EXPECT_EQ(s.spec.guards.max_events, 10u);
  EXPECT_EQ(s.metadata.description, "added");
}

TEST(Overrides, InvalidValueNamesTheOverride) {
  EXPECT_EQ(load_error(kMinimal, {"spec.seed=abc"}),
            "--set spec.seed=abc:1:1: spec.seed: expected an unsigned integer, got \"abc\"");
  EXPECT_EQ(load_error(kMinimal, {"spec.duration=30"}),
            "--set spec.duration=30:1:1: spec.duration: expected a duration with a unit, e.g. \"28ms\", got \"30\"");
  EXPECT_EQ(load_error(kMinimal, {"spec.guards={maxEvents: 1, maxWallTime: x}"}),
            "--set spec.guards={maxEvents: 1, maxWallTime: x}:1:29: spec.guards.maxWallTime: expected a duration "
            "such as \"250ms\" or \"1h30m\" (units: ns, us, µs, ms, s, m, h, d), got \"x\"");
  EXPECT_EQ(load_error(kMinimal, {"spec.seed="}),
            "--set spec.seed=: spec.seed: expected an unsigned integer, got null");
  EXPECT_EQ(load_error(kMinimal, {"kind=Topology"}),
            "--set kind=Topology:1:1: kind: expected \"Scenario\", got \"Topology\"");
}

TEST(Overrides, ValueWithASecondDocumentIsRefused) {
  // As a file with two documents: nothing after "---" is dropped unseen.
  EXPECT_EQ(load_error(kMinimal, {"spec.seed=7\n---\nfoo: bar"}),
            "--set spec.seed=7\\x0a---\\x0afoo: bar:3:1: expected one YAML value, got 2 documents");
  EXPECT_EQ(load_error(kMinimal, {"metadata.name=a\n---\nb\n---\nc"}),
            "--set metadata.name=a\\x0a---\\x0ab\\x0a---\\x0ac:3:1: expected one YAML value, got 3 documents");
}

TEST(Overrides, TaggedValuesAreRefused) {
  EXPECT_EQ(load_error(kMinimal, {"spec.seed=!!str 7"}),
            "--set spec.seed=!!str 7:1:1: spec.seed: expected a value without a YAML tag (tags are not "
            "supported), got the tag !!str");
  EXPECT_EQ(load_error(kMinimal, {"metadata.name=!foo bar"}),
            "--set metadata.name=!foo bar:1:1: metadata.name: expected a value without a YAML tag (tags are not "
            "supported), got the tag !foo");
  EXPECT_EQ(load_error(kMinimal, {"spec.guards=!!map {maxEvents: 1}"}),
            "--set spec.guards=!!map {maxEvents: 1}:1:1: spec.guards: expected a value without a YAML tag (tags "
            "are not supported), got the tag !!map");
  // A quoted value is not tagged: it is a string, as in a file.
  EXPECT_EQ(load_scenario_file(kMinimal, {"metadata.name='!foo'"}).metadata.name, "!foo");
}

TEST(Overrides, NameWithControlCharactersIsRefused) {
  EXPECT_EQ(load_error(kMinimal, {"metadata.name=\"a\\rb\""}),
            "--set metadata.name=\"a\\rb\":1:1: metadata.name: expected a name without control characters, got "
            "\"a\\x0db\"");
}

TEST(Overrides, MisspelledKeyIsAnUnknownKey) {
  EXPECT_EQ(load_error(kMinimal, {"spec.seeed=7"}),
            "--set spec.seeed=7: spec.seeed: unknown key \"seeed\", did you mean \"seed\"? (valid keys: topology, "
            "duration, seed, guards, load, metricsWindow, podMetrics, timeline, objectives, kubernetes, network, traces)");
}

TEST(Overrides, CrossReferenceErrorsNameTheOverride) {
  EXPECT_EQ(load_error(kChain, {"spec.timeline[fail-a].target.zone=eu-west-1z"}),
            "--set spec.timeline[fail-a].target.zone=eu-west-1z:1:1: spec.timeline[2].target.zone: unknown zone "
            "\"eu-west-1z\", did you mean \"eu-west-1a\"? (zones: eu-west-1a, eu-west-1b, us-east-1a)");
  // A duplicate whose first definition is in the file: the message says
  // where; the file's references to the old name are now unknown.
  EXPECT_EQ(load_error(kChain, {"spec.timeline[cut].name=degrade"}),
            "--set spec.timeline[cut].name=degrade:1:1: spec.timeline[3].name: duplicate action name \"degrade\" "
            "(first defined at tests/data/scenarios/good/startafter_chain.yaml:27)\n"
            "tests/data/scenarios/good/startafter_chain.yaml:24:33: spec.timeline[0].startAfter[1]: unknown action "
            "\"cut\" (actions: recover, degrade, fail-a, restore, region-down)\n"
            "tests/data/scenarios/good/startafter_chain.yaml:48:20: spec.timeline[4].startAfter[0]: unknown action "
            "\"cut\" (actions: recover, degrade, fail-a, restore, region-down)");
}

TEST(Overrides, PathsThatCannotBeFollowed) {
  EXPECT_EQ(load_error(kChain, {"spec.timeline[9].at=1m"}),
            "--set spec.timeline[9].at=1m: spec.timeline[9]: index 9 is out of range (the list has 6 items)");
  EXPECT_EQ(load_error(kChain, {"spec.timeline[fail-b].at=1m"}),
            "--set spec.timeline[fail-b].at=1m: spec.timeline[fail-b]: unknown item \"fail-b\", did you mean "
            "\"fail-a\"? (names: recover, degrade, fail-a, cut, restore, region-down)");
  EXPECT_EQ(load_error(kMinimal, {"spec.duration.x=1"}),
            "--set spec.duration.x=1: spec.duration: expected a mapping to select \"x\" in, got \"1h\"");
  EXPECT_EQ(load_error(kChain, {"spec.timeline.at=1m"}),
            "--set spec.timeline.at=1m: spec.timeline: expected a mapping to select \"at\" in, got a list (select "
            "list items with [index] or [name])");
  EXPECT_EQ(load_error(kMinimal, {"spec[0]=1"}),
            "--set spec[0]=1: spec: expected a list to select [0] in, got a mapping");
  EXPECT_EQ(load_error(kMinimal, {"spec.extra.list[0]=1"}),
            "--set spec.extra.list[0]=1: spec.extra.list: expected a list to select [0] in, got nothing");
  // Every problem with every override is reported together.
  EXPECT_EQ(load_error(kMinimal, {"spec[0]=1", "metadata[1]=2"}),
            "--set spec[0]=1: spec: expected a list to select [0] in, got a mapping\n"
            "--set metadata[1]=2: metadata: expected a list to select [1] in, got a mapping");
}

TEST(Overrides, BadSyntax) {
  const std::string expected_path =
      "expected path=value with a path like spec.timeline[0].at, spec.timeline[name].at, "
      "spec.topology.services[*].concurrency or spec.topology.services[server=eventLoop].maxInFlight, got ";
  EXPECT_EQ(load_error(kMinimal, {"spec.seed"}), "--set spec.seed: expected path=value, got \"spec.seed\"");
  EXPECT_EQ(load_error(kMinimal, {"=5"}), "--set =5: expected path=value, got \"=5\"");
  EXPECT_EQ(load_error(kMinimal, {"spec..seed=1"}), "--set spec..seed=1: " + expected_path + "\"spec..seed=1\"");
  EXPECT_EQ(load_error(kMinimal, {"spec.timeline[=1"}),
            "--set spec.timeline[=1: " + expected_path + "\"spec.timeline[=1\"");
  EXPECT_EQ(load_error(kMinimal, {"[0]=1"}), "--set [0]=1: " + expected_path + "\"[0]=1\"");
  EXPECT_EQ(load_error(kMinimal, {"spec.timeline[]=1"}),
            "--set spec.timeline[]=1: " + expected_path + "\"spec.timeline[]=1\"");
  EXPECT_EQ(load_error(kMinimal, {"spec.timeline[0]x=1"}),
            "--set spec.timeline[0]x=1: " + expected_path + "\"spec.timeline[0]x=1\"");
  EXPECT_EQ(load_error(kMinimal, {"spec.seed=[1"}), "--set spec.seed=[1:1:1: end of sequence flow not found");
}

// A fleet-wide change in one line: [*] selects every item of a list, [key=value] those whose key holds the
// value (dotted keys reach into mappings); the rest of the path is followed in each.
constexpr const char* kShop = "scenarios/online_boutique_zone_loss.yaml";

TEST(Overrides, EveryItemOfAList) {
  const Scenario s = load_scenario_file(kShop, {"spec.topology.services[*].replicas[*].replicas=2"});
  ASSERT_EQ(s.spec.topology.config.services.size(), 11u);
  for (const ServiceConfig& service : s.spec.topology.config.services) {
    ASSERT_EQ(service.replicas.size(), 3u) << service.name;
    for (const ReplicasConfig& r : service.replicas) EXPECT_EQ(r.replicas, 2u) << service.name << " " << r.zone;
  }
}

TEST(Overrides, ItemsWhoseKeyHoldsAValue) {
  const Scenario s = load_scenario_file(
      kShop, {"spec.topology.services[server=eventLoop].maxInFlight=64", "spec.topology.services[concurrency=10].cpu="
                                                                          "{request: 100m, limit: 200m}"});
  int event_loops = 0;
  for (const ServiceConfig& service : s.spec.topology.config.services) {
    if (service.event_loop()) {
      ++event_loops;
      EXPECT_EQ(service.max_in_flight, 64u) << service.name;
    }
    // recommendation and email run thread pools of 10.
    EXPECT_EQ(service.cpu.limit.has_value(), service.concurrency == 10) << service.name;
  }
  EXPECT_EQ(event_loops, 8);
  // Dotted keys reach into mappings: the populations whose load is constant.
  const Scenario t = load_scenario_file(kShop, {"spec.load[load.kind=constant].timeout=5s"});
  EXPECT_EQ(t.spec.load[0].timeout, 5s);
}

TEST(Overrides, ASelectorThatSelectsNothingIsAnError) {
  EXPECT_EQ(load_error(kShop, {"spec.topology.services[server=eventloop].maxInFlight=64"}),
            "--set spec.topology.services[server=eventloop].maxInFlight=64: spec.topology.services[server=eventloop]: "
            "unknown value of server \"eventloop\", did you mean \"eventLoop\"? (values: eventLoop)");
  EXPECT_EQ(load_error(kShop, {"spec.topology.services[tier=web].concurrency=4"}),
            "--set spec.topology.services[tier=web].concurrency=4: spec.topology.services[tier=web]: no item has "
            "\"tier\" (so none matches [tier=web])");
  EXPECT_EQ(load_error(kChain, {"spec.topology.links=[]", "spec.topology.links[*].rtt=1ms"}),
            "--set spec.topology.links[*].rtt=1ms: spec.topology.links[*]: the list is empty: [*] selects nothing");
  // What a selected item gets is checked like any value, at its own index.
  EXPECT_NE(load_error(kShop, {"spec.topology.services[*].concurrency=0"}).find("spec.topology.services[0].concurrency"),
            std::string::npos);
}

TEST(Overrides, ValueMaySpanAnEqualsSign) {
  // Split at the first '=': the rest is the value.
  EXPECT_EQ(load_scenario_file(kMinimal, {"metadata.description=a=b"}).metadata.description, "a=b");
}

TEST(Overrides, ReachIntoATopologyFile) {
  const Scenario s = load_scenario_file(
      kTopologyFile, {"spec.topology.links[eu-us].rtt=100ms", "spec.topology.regions[1].interZoneRtt=2ms"});
  EXPECT_EQ(s.spec.topology.config.links[0].rtt, 100ms);
  EXPECT_EQ(s.spec.topology.config.regions[1].inter_zone_rtt, 2ms);
  EXPECT_EQ(s.spec.topology.source_file, "tests/data/topologies/two_regions.yaml");
}

TEST(Overrides, ErrorsInsideATopologyFileNameTheOverride) {
  // The path is the one inside the topology document the value went into.
  EXPECT_EQ(load_error(kTopologyFile, {"spec.topology.links[0].rtt=100"}),
            "--set spec.topology.links[0].rtt=100:1:1: spec.links[0].rtt: expected a duration with a unit, e.g. "
            "\"28ms\", got \"100\"");
  EXPECT_EQ(load_error(kTopologyFile, {"spec.topology.links[3].rtt=1s"}),
            "--set spec.topology.links[3].rtt=1s: spec.links[3]: index 3 is out of range (the list has 1 items)");
  EXPECT_EQ(load_error(kTopologyFile, {"spec.topology.regions[1].zones[0].name=eu-west-1a"}),
            "--set spec.topology.regions[1].zones[0].name=eu-west-1a:1:1: spec.regions[1].zones[0].name: duplicate "
            "zone name \"eu-west-1a\" (first defined at tests/data/topologies/two_regions.yaml:11)");
}

TEST(Overrides, ReplacingTheTopologyFileInlinesIt) {
  const Scenario s = load_scenario_file(
      kTopologyFile, {"spec.topology.links[0].rtt=1s",  // for the file, which the next override replaces
                      "spec.topology={regions: [{name: eu-west-1, zones: [{name: a}]}, {name: us-east-1, zones: "
                      "[{name: b}]}], links: [{name: eu-us, between: [eu-west-1, us-east-1], rtt: 5ms, bandwidth: "
                      "1Gbps}]}",
                      "spec.topology.regions[0].zones[0].name=a2"});
  EXPECT_EQ(s.spec.topology.path, "");
  EXPECT_EQ(s.spec.topology.config.links[0].rtt, 5ms);
  EXPECT_EQ(s.spec.topology.config.regions[0].zones[0].name, "a2");
  EXPECT_EQ(s.spec.topology.source_file,
            "--set spec.topology={regions: [{name: eu-west-1, zones: [{name: a}]}, {name: us-east-1, zones: [{name: "
            "b}]}], links: [{name: eu-us, between: [eu-west-1, us-east-1], rtt: 5ms, bandwidth: 1Gbps}]}");
}

TEST(Overrides, WithOverridesReloadsWithTheOldAndTheNew) {
  const Scenario base = load_scenario_file(kChain, {"spec.seed=5"});
  const Scenario s = with_overrides(base, {"spec.timeline[fail-a].at=0s"});
  EXPECT_EQ(s.spec.seed, 5u);
  EXPECT_EQ(s.spec.timeline[2].at, 0s);
  EXPECT_EQ(s.overrides, (std::vector<std::string>{"spec.seed=5", "spec.timeline[fail-a].at=0s"}));
  EXPECT_EQ(s.source_file, base.source_file);
  EXPECT_EQ(s.spec.topology.config.links.size(), 1u);
  EXPECT_EQ(error_of([&] { with_overrides(base, {"spec.seed=-1"}); }),
            "--set spec.seed=-1:1:1: spec.seed: expected an unsigned integer, got \"-1\"");
  // The base is unchanged, and a topology file still resolves from the base directory.
  EXPECT_EQ(base.spec.timeline[2].at, 10min);
  const Scenario t = with_overrides(load_scenario_file(kTopologyFile), {"spec.topology.links[0].jitter=1ms"});
  EXPECT_EQ(t.spec.topology.config.links[0].jitter, 1ms);
}

}  // namespace
}  // namespace drsim

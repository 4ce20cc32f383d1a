// Good scenarios load into the expected structs and absolute times.
#include "io/scenario_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/source_map.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// (name, start, end) of each resolved action, in resolved order.
struct Resolved {
  std::string name;
  Duration start;
  std::optional<Duration> end;
  friend bool operator==(const Resolved&, const Resolved&) = default;
  friend std::ostream& operator<<(std::ostream& os, const Resolved& r) {
    return os << r.name << "@" << format_duration(r.start) << ".." << (r.end ? format_duration(*r.end) : "-");
  }
};

std::vector<Resolved> resolved(const Scenario& s) {
  std::vector<Resolved> out;
  for (const ResolvedAction& r : s.resolved_timeline) {
    out.push_back({s.spec.timeline[r.index].name, r.start.time_since_epoch(),
                   r.end ? std::optional(r.end->time_since_epoch()) : std::nullopt});
  }
  return out;
}

TEST(LoadScenario, MinimalGetsEveryDefault) {
  const Scenario s = load_scenario_file("tests/data/scenarios/good/minimal.yaml");
  EXPECT_EQ(s.api_version, "drsim/v1alpha1");
  EXPECT_EQ(s.kind, "Scenario");
  EXPECT_EQ(s.metadata.name, "minimal");
  EXPECT_EQ(s.metadata.description, "");
  EXPECT_EQ(s.spec.duration, 1h);
  EXPECT_EQ(s.spec.seed, 1u);
  EXPECT_EQ(s.spec.guards.max_events, 0u);
  EXPECT_EQ(s.spec.guards.max_wall_time, 0s);
  EXPECT_EQ(s.spec.guards.max_events_per_instant, 10'000'000u);
  EXPECT_TRUE(s.spec.timeline.empty());
  EXPECT_TRUE(s.resolved_timeline.empty());
  ASSERT_EQ(s.spec.topology.config.regions.size(), 1u);
  EXPECT_EQ(s.spec.topology.config.regions[0].inter_zone_rtt, 1ms);
  EXPECT_EQ(s.spec.topology.path, "");
  EXPECT_EQ(s.spec.topology.source_file, "tests/data/scenarios/good/minimal.yaml");
  EXPECT_EQ(s.source_file, "tests/data/scenarios/good/minimal.yaml");
  EXPECT_EQ(s.base_dir, "tests/data/scenarios/good");
  EXPECT_TRUE(s.overrides.empty());
  std::ifstream in(s.source_file);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(s.source_text, text.str());
}

TEST(LoadScenario, InlineTopology) {
  const Scenario s = load_scenario_file("tests/data/scenarios/good/inline_topology.yaml");
  EXPECT_EQ(s.metadata.description, "One of two zones fails for ten minutes.");
  EXPECT_EQ(s.spec.seed, 42u);
  EXPECT_EQ(s.spec.duration, 30min);
  EXPECT_EQ(s.spec.guards.max_events, 5'000'000u);
  EXPECT_EQ(s.spec.guards.max_wall_time, 2min);
  const RegionConfig& r = s.spec.topology.config.regions.at(0);
  EXPECT_EQ(r.name, "eu-west-1");
  EXPECT_EQ(r.inter_zone_rtt, 1200us);
  ASSERT_EQ(r.zones.size(), 2u);
  EXPECT_EQ(r.zones[1].name, "eu-west-1b");
  const ActionConfig& a = s.spec.timeline.at(0);
  EXPECT_EQ(a.action, "zone:fail");
  EXPECT_EQ(a.target.zone, "eu-west-1a");
  EXPECT_EQ(a.at, 5min);
  EXPECT_EQ(a.duration, 10min);
  EXPECT_FALSE(a.latency.has_value());
  EXPECT_EQ(resolved(s), (std::vector<Resolved>{{"fail-a", 5min, 15min}}));
}

TEST(LoadScenario, TopologyFromAFile) {
  const Scenario s = load_scenario_file("tests/data/scenarios/good/topology_file.yaml");
  const TopologyRef& t = s.spec.topology;
  EXPECT_EQ(t.path, "../../topologies/two_regions.yaml");
  EXPECT_EQ(t.source_file, "tests/data/topologies/two_regions.yaml");
  ASSERT_EQ(t.config.regions.size(), 2u);
  EXPECT_EQ(t.config.regions[1].inter_zone_rtt, 800us);
  EXPECT_EQ(t.config.regions[1].zones[2].name, "us-east-1c");
  const LinkConfig& link = t.config.links.at(0);
  EXPECT_EQ(link.between, (std::vector<std::string>{"eu-west-1", "us-east-1"}));
  EXPECT_EQ(link.rtt, 80ms);
  EXPECT_EQ(link.jitter, 2ms);
  EXPECT_EQ(link.bandwidth, Bandwidth{1e10});
  EXPECT_EQ(link.loss, Ratio{0.0001});
  EXPECT_EQ(resolved(s), (std::vector<Resolved>{{"eu-down", 10min, 70min}, {"cut", 90min, std::nullopt}}));
}

TEST(LoadScenario, StartAfterChainsResolveToAbsoluteTimes) {
  const Scenario s = load_scenario_file("tests/data/scenarios/good/startafter_chain.yaml");
  // fail-a 10m..30m; degrade waits for it + 1m, lasts 1h30m; cut follows
  // degrade for 5m; restore follows cut's end; recover waits for both
  // region-down (no duration: finishes when it starts) and cut, + 30s.
  EXPECT_EQ(resolved(s), (std::vector<Resolved>{
                             {"fail-a", 10min, 30min},
                             {"degrade", 31min, 2h + 1min},
                             {"region-down", 1h, std::nullopt},
                             {"cut", 2h + 1min, 2h + 6min},
                             {"restore", 2h + 6min, std::nullopt},
                             {"recover", 2h + 6min + 30s, std::nullopt},
                         }));
  const ActionConfig& degrade = s.spec.timeline.at(1);
  EXPECT_EQ(degrade.latency, 50ms);
  EXPECT_EQ(degrade.loss, Ratio{0.01});
  EXPECT_EQ(degrade.bandwidth, Bandwidth{1e9});
  EXPECT_EQ(degrade.start_after, std::vector<std::string>{"fail-a"});
  EXPECT_EQ(degrade.delay, 1min);
}

TEST(LoadScenario, SimultaneousStartsKeepFileOrder) {
  const Scenario s = load_scenario_text(testing::scenario_with(R"(  timeline:
    - {name: second, action: zone:fail, at: 5m, target: {zone: eu-west-1b}}
    - {name: first, action: zone:fail, at: 5m, target: {zone: eu-west-1a}}
    - {name: early, action: link:cut, at: 1m, target: {link: eu-us}}
)"));
  EXPECT_EQ(resolved(s),
            (std::vector<Resolved>{
                {"early", 1min, std::nullopt}, {"second", 5min, std::nullopt}, {"first", 5min, std::nullopt}}));
}

TEST(LoadScenario, LongStartAfterChain) {
  // Each action waits for the previous one; cycle detection and resolution
  // walk the chain without recursion, so its length is not limited by the stack.
  std::string timeline = "  timeline:\n    - {name: a0, action: zone:fail, at: 0s, target: {zone: eu-west-1a}}\n";
  for (int i = 1; i < 2000; ++i) {
    timeline += "    - {name: a" + std::to_string(i) + ", action: zone:fail, startAfter: [a" + std::to_string(i - 1) +
                "], delay: 1s, target: {zone: eu-west-1a}}\n";
  }
  const Scenario s = load_scenario_text(testing::scenario_with(timeline));
  EXPECT_EQ(s.resolved_timeline.back().start.time_since_epoch(), 1999s);
}

TEST(LoadScenario, EveryGoodScenarioLoads) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/data/scenarios/good")) {
    EXPECT_NO_THROW(load_scenario_file(entry.path())) << entry.path();
    ++count;
  }
  EXPECT_GE(count, 4);
}

TEST(LoadScenario, TextWithABaseDirectoryFindsTheTopologyFile) {
  const Scenario s = load_scenario_text(R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: from-text}
spec:
  topology: two_regions.yaml
  duration: 1h
)",
                                        {}, "inline.yaml", "tests/data/topologies");
  EXPECT_EQ(s.source_file, "inline.yaml");
  EXPECT_EQ(s.spec.topology.source_file, "tests/data/topologies/two_regions.yaml");
  EXPECT_EQ(s.spec.topology.config.regions.size(), 2u);
}

TEST(LoadScenario, TopologyFileMustBeATopology) {
  EXPECT_EQ(testing::error_of([] {
              load_scenario_text(R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: x}
spec: {topology: minimal.yaml, duration: 1h}
)",
                                 {}, "x.yaml", "tests/data/scenarios/good");
            }),
            "tests/data/scenarios/good/minimal.yaml:3:7: kind: expected \"Topology\", got \"Scenario\"");
}

TEST(LoadScenario, ProblemsInBothFilesAreReportedTogether) {
  EXPECT_EQ(testing::error_of([] {
              load_scenario_text(R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: x}
spec:
  topology: broken_rtt.yaml
  duration: 1h
  seed: x
)",
                                 {}, "x.yaml", "tests/data/topologies");
            }),
            "tests/data/topologies/broken_rtt.yaml:16:12: spec.links[0].rtt: expected a duration with a unit, e.g. "
            "\"28ms\", got \"80\"\n"
            "x.yaml:7:9: spec.seed: expected an unsigned integer, got \"x\"");
}

TEST(LoadScenario, UnreadableFile) {
  EXPECT_EQ(testing::error_of([] { load_scenario_file("tests/data/scenarios/good/no_such_file.yaml"); }),
            "tests/data/scenarios/good/no_such_file.yaml: cannot read the file: No such file or directory");
  EXPECT_EQ(testing::error_of([] { load_scenario_file("tests/data/scenarios/good"); }),
            "tests/data/scenarios/good: cannot read the file: Is a directory");
}

TEST(LoadScenario, SourceMapLocatesValuesInEitherFile) {
  const Scenario s = load_scenario_file("tests/data/scenarios/good/topology_file.yaml");
  ASSERT_NE(s.source_map, nullptr);
  const SourceLocation zone = s.source_map->find("spec.topology.regions[1].zones[0].name");
  EXPECT_EQ(zone.file, "tests/data/topologies/two_regions.yaml");
  EXPECT_EQ(zone.line, 17);
  EXPECT_EQ(zone.column, 17);
  EXPECT_EQ(zone.path, "spec.regions[1].zones[0].name");
  const SourceLocation at = s.source_map->find("spec.timeline[1].at");
  EXPECT_EQ(at.file, "tests/data/scenarios/good/topology_file.yaml");
  EXPECT_EQ(at.line, 16);
  EXPECT_EQ(at.column, 11);
  // A default that the file does not write points at the mapping that omits it.
  const SourceLocation delay = s.source_map->find("spec.timeline[1].delay");
  EXPECT_EQ(delay.line, 14);
  EXPECT_EQ(delay.column, 7);
  EXPECT_EQ(delay.path, "spec.timeline[1].delay");
}

}  // namespace
}  // namespace drsim

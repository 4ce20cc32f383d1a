// to_yaml writes the resolved scenario so that it loads back to the same thing;
// encode_config writes one struct of it so that decode_config reads it back.
#include <gtest/gtest.h>

#include <filesystem>

#include "io/config_decode.h"
#include "io/config_encode.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

TEST(ToYaml, IsAFixedPointOfLoading) {
  for (const auto& entry : std::filesystem::directory_iterator("tests/data/scenarios/good")) {
    const Scenario s = load_scenario_file(entry.path());
    const std::string text = to_yaml(s);
    const Scenario again = load_scenario_text(text);
    EXPECT_EQ(to_yaml(again), text) << entry.path();
    ASSERT_EQ(again.resolved_timeline.size(), s.resolved_timeline.size()) << entry.path();
    for (std::size_t i = 0; i < s.resolved_timeline.size(); ++i) {
      EXPECT_EQ(again.resolved_timeline[i].index, s.resolved_timeline[i].index);
      EXPECT_EQ(again.resolved_timeline[i].start, s.resolved_timeline[i].start);
      EXPECT_EQ(again.resolved_timeline[i].end, s.resolved_timeline[i].end);
    }
  }
}

TEST(ToYaml, WritesEveryFieldInFieldOrder) {
  const Scenario s = load_scenario_file("tests/data/scenarios/good/inline_topology.yaml");
  EXPECT_EQ(to_yaml(s), R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: az-outage
  description: One of two zones fails for ten minutes.
spec:
  topology:
    regions:
      - name: eu-west-1
        zones:
          - name: eu-west-1a
          - name: eu-west-1b
        interZoneRtt: 1.2ms
    links: []
    services: []
    databases: []
    consensusGroups: []
    topics: []
  duration: 30m
  seed: 42
  guards:
    maxEvents: 5000000
    maxWallTime: 2m
    maxEventsPerInstant: 10000000
    maxMemory: 0B
    maxEventRate: 10000000
  load: []
  metricsWindow: 1s
  podMetrics: false
  timeline:
    - name: fail-a
      action: zone:fail
      at: 5m
      startAfter: []
      delay: 0s
      duration: 10m
      target:
        zone: eu-west-1a
        region: ""
        link: ""
        service: ""
        population: ""
        database: ""
        vendor: ""
  objectives:
    successRatio: 99.9%
    population: ""
    latencyWindow: 1m
    operations: []
  network:
    fidelity: closed-form
    flowModel: CM02
    zoneLinkBandwidth: 0.1Tbps
    tcpWindow: 4MiB
  traces:
    sampling: 0%
    maxSpans: 100000
)");
}

TEST(ToYaml, InlinesATopologyFile) {
  const Scenario s = load_scenario_file("tests/data/scenarios/good/topology_file.yaml");
  const Scenario again = load_scenario_text(to_yaml(s));
  EXPECT_EQ(again.spec.topology.path, "");
  EXPECT_EQ(again.spec.topology.config.regions.size(), 2u);
  EXPECT_EQ(again.spec.topology.config.links[0].loss, s.spec.topology.config.links[0].loss);
}

TEST(ToYaml, StringsThatLookLikeOtherThingsSurvive) {
  // Names YAML would read as null, a number, a boolean or syntax.
  const std::vector<std::string> names{"null", "~", "123", "true", "a: b", "#x", "[x]", "- y", "", " pad ", "é", "'q'"};
  std::string timeline = "  timeline:\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    timeline += "    - {name: \"" + (names[i].empty() ? "empty" : names[i]) +
                "\", action: zone:fail, at: " + std::to_string(i) + "s, target: {zone: eu-west-1a}}\n";
  }
  Scenario s = load_scenario_text(testing::scenario_with(timeline));
  s.metadata.description = "line one\nline two: \"quoted\"";
  const Scenario again = load_scenario_text(to_yaml(s));
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(again.spec.timeline[i].name, names[i].empty() ? "empty" : names[i]);
  }
  EXPECT_EQ(again.metadata.description, s.metadata.description);
}

TEST(EncodeConfig, IsOneLineThatDecodesBackToTheSameStruct) {
  for (const auto& entry : std::filesystem::directory_iterator("tests/data/scenarios/good")) {
    const Scenario s = load_scenario_file(entry.path());
    const std::string text = encode_config(s.spec.topology.config);
    EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    const DeploymentConfig again = decode_config<DeploymentConfig>(text, "topology");
    EXPECT_EQ(encode_config(again), text) << entry.path();
    for (const ClientPopulationConfig& population : s.spec.load) {
      EXPECT_EQ(encode_config(decode_config<ClientPopulationConfig>(encode_config(population), "load")),
                encode_config(population))
          << entry.path();
    }
  }
}

TEST(EncodeConfig, WritesFlowTextAndKeepsOddStrings) {
  Scenario s = load_scenario_text(testing::scenario_with(""));
  s.metadata.description = "line one\nline two: \"quoted\", [x] {y}";
  s.metadata.name = "a: b";
  EXPECT_EQ(encode_config(s.metadata), R"({name: "a: b", description: "line one\nline two: \"quoted\", [x] {y}"})");
  const Metadata again = decode_config<Metadata>(encode_config(s.metadata), "metadata");
  EXPECT_EQ(again.name, s.metadata.name);
  EXPECT_EQ(again.description, s.metadata.description);
  EXPECT_TRUE(config_encodable(typeid(DeploymentConfig)));
  EXPECT_FALSE(config_encodable(typeid(int)));
}

}  // namespace
}  // namespace drsim

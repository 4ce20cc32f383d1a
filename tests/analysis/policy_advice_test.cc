// The policy advice behind `drsim recommend-policy`: the zones' state built
// from a scenario (node pools after the starting pods, the failed zone, the
// service's replicas), the declared policy's outcome, and the candidates. The
// 20-replica example of docs/sources.md section 1 is
// scenarios/appfabric_az_failure.yaml: 10/10 in zone-a and zone-b,
// zone-b's nodes with room for 2 more pods, zone-c's for 20.
#include "analysis/policy_advice.h"

#include <gtest/gtest.h>

#include "io/scenario_loader.h"

namespace drsim {
namespace {

const char* const kScenario = "scenarios/appfabric_az_failure.yaml";

PolicyAdvice advise(const Scenario& scenario, const PolicyAdviceRequest& request) {
  const KubernetesConfig* kubernetes = scenario.spec.kubernetes ? &*scenario.spec.kubernetes : nullptr;
  return advise_policy({scenario.spec.topology.config, scenario.spec.topology.config.services, kubernetes}, request);
}

std::vector<std::string> labels(const PolicyAdvice& advice) {
  std::vector<std::string> out;
  for (const auto& c : advice.candidates) out.push_back(c.label);
  return out;
}

std::string advice_error(const Scenario& scenario, PolicyAdviceRequest request) {
  try {
    advise(scenario, request);
  } catch (const PolicyAdviceError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PolicyAdvice, TwentyReplicasZoneAFailsCompensationNeedsThirty) {
  const PolicyAdvice a = advise(load_scenario_file(kScenario), {.service = "api", .failed_zone = "zone-a"});
  EXPECT_EQ(a.replicas_now, 20u);
  EXPECT_EQ(a.failed_zone_replicas, 10u);
  EXPECT_EQ(a.needed, 30u);  // 20 + the 10 of zone-a
  ASSERT_EQ(a.zones.size(), 3u);
  EXPECT_FALSE(a.zones[0].can_take_pods);
  EXPECT_EQ(a.zones[1].free_capacity, std::optional<std::uint32_t>{2});  // 3 nodes x 4 pods, 10 running
  EXPECT_EQ(a.zones[2].free_capacity, std::optional<std::uint32_t>{20});
  EXPECT_EQ(a.zones[1].current, 10u);
  // The declared policy fills zone-b's room and leaves 8 pending: zone-c is outside its two zones.
  EXPECT_FALSE(a.current.failed);
  EXPECT_EQ(a.current.replicas_in("zone-b"), 12u);
  EXPECT_EQ(a.current.pending, 8u);
  EXPECT_NE(a.current.reason.find("zone-b has no free capacity; extend is false, so zone-c cannot be used"),
            std::string::npos)
      << a.current.reason;
  // A higher cap or fewer zones add no capacity; only extension does.
  ASSERT_EQ(labels(a), (std::vector<std::string>{"extend: true", "extend: true, maxZoneShare 100%"}));
  EXPECT_TRUE(a.allowed());
  const PolicyRecommendation& best = a.candidates[0];
  EXPECT_EQ(best.deviation, 1u);
  EXPECT_EQ(best.split.replicas_in("zone-a"), 10u);  // a scale-out keeps the failed zone's replicas
  EXPECT_EQ(best.split.replicas_in("zone-b"), 12u);
  EXPECT_EQ(best.split.replicas_in("zone-c"), 8u);
  EXPECT_EQ(best.headroom, (std::vector<ZoneHeadroom>{{"zone-a", 0}, {"zone-b", 0}, {"zone-c", 12}}));
  EXPECT_EQ(a.candidates[1].deviation, 3u);
}

TEST(PolicyAdvice, MigrationMovesTheFailedZonesPodsAsDeploymentPolicyDoes) {
  // What the drill's HPA asked for (15 from zone-b + 10 kept), evaluated as the fresh split deployment:policy
  // computes: zone-a gets none, zone-c takes up to the 67% cap.
  const PolicyAdvice a = advise(load_scenario_file(kScenario),
                                {.service = "api", .failed_zone = "zone-a", .replicas = 25, .migrate = true});
  EXPECT_EQ(a.needed, 25u);
  EXPECT_TRUE(a.current.failed);  // only zone-b is usable: fewer than minZones 2
  EXPECT_NE(a.current.reason.find("minZones 2"), std::string::npos) << a.current.reason;
  ASSERT_EQ(labels(a), (std::vector<std::string>{"extend: true", "extend: true, maxZoneShare 100%"}));
  const PolicyRecommendation& best = a.candidates[0];
  EXPECT_EQ(best.split.replicas_in("zone-a"), 0u);
  EXPECT_EQ(best.split.replicas_in("zone-b"), 9u);
  EXPECT_EQ(best.split.replicas_in("zone-c"), 16u);
  // zone-b's 12 (10 + 2 free) less its 9; zone-c's 20 less 16.
  EXPECT_EQ(best.headroom, (std::vector<ZoneHeadroom>{{"zone-a", 0}, {"zone-b", 3}, {"zone-c", 4}}));
}

TEST(PolicyAdvice, NoCandidateWhenTheHealthyZonesAreShortOfNodes) {
  const Scenario s = load_scenario_file(kScenario, {"spec.kubernetes.nodePools[pool-c].nodes=1"});
  const PolicyAdvice a = advise(s, {.service = "api", .failed_zone = "zone-a"});
  EXPECT_EQ(a.zones[2].free_capacity, std::optional<std::uint32_t>{4});
  EXPECT_EQ(a.current.pending, 8u);
  EXPECT_FALSE(a.allowed());
}

TEST(PolicyAdvice, NodesTheClusterAutoscalerMayAddCount) {
  const Scenario s = load_scenario_file(
      kScenario, {"spec.kubernetes.clusterAutoscaler.enabled=true", "spec.kubernetes.nodePools[pool-b].maxNodes=5"});
  const PolicyAdvice a = advise(s, {.service = "api", .failed_zone = "zone-a"});
  EXPECT_EQ(a.zones[1].free_capacity, std::optional<std::uint32_t>{10});  // 2 now + 2 nodes x 4
  // The cap of 30 at 67% is 20: zone-b alone takes them all, the declared policy suffices.
  EXPECT_EQ(a.current.pending, 0u);
  ASSERT_FALSE(a.candidates.empty());
  EXPECT_EQ(a.candidates[0].label, "current");
}

// Two services, one without a deployment; zone-c has no node pool (unlimited).
constexpr const char* kSmall = R"(
apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: small}
spec:
  duration: 1m
  topology:
    regions:
      - name: r
        zones: [{name: zone-a}, {name: zone-b}, {name: zone-c}, {name: zone-d}]
    services:
      - name: api
        replicas: [{zone: zone-a, replicas: 3}, {zone: zone-b, replicas: 3}, {zone: zone-c, replicas: 0}]
        serviceTime: {kind: constant, value: 10ms}
      - name: web
        replicas: [{zone: zone-a, replicas: 1}]
        serviceTime: {kind: constant, value: 10ms}
  kubernetes:
    nodePools:
      - {name: a, zone: zone-a, cpu: 4, nodes: 1}
      - {name: b, zone: zone-b, cpu: 4, nodes: 1}
    deployments:
      - service: api
        policy: {kind: equal, zones: [zone-a, zone-b]}
)";

TEST(PolicyAdvice, AZoneWithoutNodePoolsIsUnlimitedAndEqualIsReplacedBySpread) {
  const PolicyAdvice a = advise(load_scenario_text(kSmall), {.service = "api", .failed_zone = "zone-a"});
  EXPECT_EQ(a.needed, 9u);
  EXPECT_EQ(a.zones[1].free_capacity, std::optional<std::uint32_t>{1});  // 4 cores, 3 pods of 1 core
  EXPECT_EQ(a.zones[2].free_capacity, std::nullopt);
  EXPECT_TRUE(a.current.failed);  // equal proportion cannot grow while zone-a is down
  ASSERT_EQ(labels(a), (std::vector<std::string>{"spread over zone-b, extend: true"}));
  EXPECT_EQ(a.candidates[0].split.replicas_in("zone-c"), 2u);
  EXPECT_EQ(a.candidates[0].headroom[2].free, std::nullopt);
}

TEST(PolicyAdvice, BadInputNamesWhatWouldBeValid) {
  const Scenario s = load_scenario_text(kSmall);
  EXPECT_EQ(advice_error(s, {.service = "pay", .failed_zone = "zone-a"}),
            "no service \"pay\" in the scenario (services: api, web)");
  EXPECT_EQ(advice_error(s, {.service = "web", .failed_zone = "zone-a"}),
            "service \"web\" has no deployment in spec.kubernetes.deployments (deployed: api)");
  EXPECT_EQ(advice_error(s, {.service = "api", .failed_zone = "zone-x"}),
            "no zone \"zone-x\" in the topology (zones: zone-a, zone-b, zone-c, zone-d)");
  EXPECT_EQ(advice_error(s, {.service = "api", .failed_zone = "zone-d"}),
            "service \"api\" does not run in zone \"zone-d\" (its zones: zone-a, zone-b, zone-c)");
  EXPECT_EQ(advice_error(load_scenario_file("scenarios/readme_example.yaml"), {.service = "x", .failed_zone = "y"}),
            "no service \"x\" in the scenario (services: none)");
}

TEST(PolicyAdvice, PolicyOnOneLineInTheScenarioKeys) {
  DeploymentPolicyConfig spread = non_financial_baseline();
  spread.zones = {"zone-a", "zone-b"};
  spread.extend = true;
  EXPECT_EQ(policy_yaml_line(spread),
            "{kind: spread, zones: [zone-a, zone-b], minZones: 2, maxZoneShare: 67%, "
            "extend: true}");
  DeploymentPolicyConfig equal;
  equal.kind = "equal";
  equal.zones = {"az-3", "az-4"};
  EXPECT_EQ(policy_yaml_line(equal), "{kind: equal, zones: [az-3, az-4]}");
  DeploymentPolicyConfig topology;
  topology.kind = "topologySpread";
  topology.when_unsatisfiable = "ScheduleAnyway";
  EXPECT_EQ(policy_yaml_line(topology), "{kind: topologySpread, maxSkew: 1, whenUnsatisfiable: ScheduleAnyway}");
}

TEST(PolicyAdvice, TextAndJson) {
  const PolicyAdvice a = advise(load_scenario_file(kScenario), {.service = "api", .failed_zone = "zone-a"});
  const std::string text = format_policy_advice(a);
  EXPECT_EQ(text.rfind("api: zone zone-a fails; 30 replicas needed (capacity compensation: 20 + 10 of zone-a)\n", 0),
            0u)
      << text;
  EXPECT_NE(text.find("  zone-a  no (failed)        10          0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  places 22 of 30 (zone-a 10, zone-b 12, zone-c 0), 8 pending: "), std::string::npos) << text;
  EXPECT_NE(text.find("          1  extend: true                     10 down  12 +0   8 +12\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("policy: {kind: spread, zones: [zone-a, zone-b], minZones: 2, maxZoneShare: 67%, extend: true}"),
            std::string::npos)
      << text;
  const std::string json = format_policy_advice_json(a);
  EXPECT_EQ(json.rfind("{\n  \"service\": \"api\",\n  \"failed_zone\": \"zone-a\",\n  \"mode\": \"scale\",", 0), 0u)
      << json;
  EXPECT_NE(json.find("\"allowed\": true"), std::string::npos);
  EXPECT_NE(json.find("{\"zone\": \"zone-c\", \"replicas\": 8, \"headroom\": 12}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"placed\": 22, \"pending\": 8,"), std::string::npos) << json;
}

}  // namespace
}  // namespace drsim

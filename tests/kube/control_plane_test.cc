// The control plane on the timeline, one mechanism at a time: binding to
// nodes and kube-scheduler's reason when a pod pends, the cluster
// autoscaler and short stock, start-up and readiness probes, a policy
// change rolled out, a killed pod replaced, an HPA behavior followed.
#include "models/kube/control_plane.h"
#include "models/kube/node_lifecycle_bounds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"
#include "tests/drills/run_text.h"

namespace drsim {
namespace {

using test_support::run_text;

using namespace std::chrono_literals;
using test_support::first_time_s;
using test_support::range;
using test_support::series;

// Two zones, an api of 2 + 2 pods of 1 core (4 workers x 250m), a light
// load, and the given spec.kubernetes and timeline (YAML, indented 2).
std::string scenario(const std::string& kubernetes, const std::string& timeline = "",
                     const std::string& duration = "10m") {
  return R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: control-plane
spec:
  topology:
    regions:
      - name: r
        zones: [{name: a}, {name: b}, {name: c}]
        interZoneRtt: 1ms
    services:
      - name: api
        replicas:
          - {zone: a, replicas: 2}
          - {zone: b, replicas: 2}
        concurrency: 4
        serviceTime: {kind: constant, value: 10ms}
        cpu: {perWorker: 250m}
  duration: )" +
         duration + R"(
  metricsWindow: 1s
  load:
    - name: users
      service: api
      load: {kind: constant, rate: 50rps}
      timeout: 2s
  kubernetes:
)" + kubernetes +
         (timeline.empty() ? "" : "  timeline:\n" + timeline);
}

bool has_event(const Recorder& rec, std::string_view kind, std::string_view text) {
  for (std::size_t i = 0; i < rec.events().size(); ++i) {
    if (rec.events().kind[i] == kind && rec.events().detail[i].find(text) != std::string::npos) return true;
  }
  return false;
}

const Labels kApi{{"service", "api"}};
Labels zone(std::string_view z) { return {{"service", "api"}, {"zone", std::string(z)}}; }

// Pools of one 2-core node per zone: the 2 pods there fill it.
const std::string kFullPools = R"(    nodePools:
      - {name: pool-a, zone: a, cpu: 2, memory: 8GiB, nodes: 1}
      - {name: pool-b, zone: b, cpu: 2, memory: 8GiB, nodes: 1}
      - {name: pool-c, zone: c, cpu: 2, memory: 8GiB, nodes: 1}
)";

// The parent scheduler splits by free capacity: replicas no zone has room
// for are not created at all (unplaced, with the rule that blocked them).
TEST(ControlPlane, ThePolicyDoesNotPlaceReplicasWhereNodesHaveNoRoom) {
  const RunResult run =
      run_text(scenario(kFullPools + R"(    deployments:
      - service: api
        policy: {kind: spread, zones: [a, b], minZones: 2, maxZoneShare: 100%}
)",
                        R"(    - {name: scale, action: deployment:scale, target: {service: api}, replicas: 6, at: 1m}
)"));
  const Recorder& rec = run.simulation->recorder();
  EXPECT_EQ(range(series(rec, "deployment.unplaced", kApi), 60s, 600s).min, 2);
  EXPECT_EQ(range(series(rec, "deployment.pending", kApi), 0s, 600s).max, 0);
  EXPECT_TRUE(has_event(rec, "deployment.unplaced", "2 of 6 replicas cannot be placed"));
}

TEST(ControlPlane, TheClusterAutoscalerAddsNodesAfterProvisioning) {
  std::string pools = kFullPools;
  for (const char* z : {"a", "b", "c"}) {
    const std::string from = "zone: " + std::string(z) + ", cpu: 2, memory: 8GiB, nodes: 1}";
    pools.replace(pools.find(from), from.size(),
                  "zone: " + std::string(z) + ", cpu: 2, memory: 8GiB, nodes: 1, maxNodes: 3}");
  }
  const RunResult run =
      run_text(scenario(pools + R"(    clusterAutoscaler:
      enabled: true
      scanInterval: 10s
      provisioning: {kind: constant, value: 90s}
    deployments:
      - service: api
        policy: {kind: spread, zones: [a, b], minZones: 2, maxZoneShare: 100%}
        startup: {kind: constant, value: 10s}
        readinessProbe: {periodSeconds: 5}
)",
                        R"(    - {name: scale, action: deployment:scale, target: {service: api}, replicas: 8, at: 1m}
)"));
  const Recorder& rec = run.simulation->recorder();
  // With the autoscaler, the parent counts the room its pools may still
  // add: the 4 new pods are created and pend on the full nodes, the scan at
  // 60 s orders a node per zone, Ready at 150 s; the pods bind, start
  // (10 s) and pass the probe at 160 s.
  EXPECT_EQ(range(series(rec, "deployment.pending", kApi), 61s, 149s).min, 4);
  EXPECT_TRUE(has_event(rec, "pod.pending",
                        "api in a: 0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match "
                        "Pod's node affinity/selector."));
  EXPECT_TRUE(has_event(rec, "node.scale_up", "pool pool-a in a: 1 nodes ordered"));
  const auto nodes_a = series(rec, "cluster.nodes", {{"zone", "a"}});
  EXPECT_EQ(first_time_s(nodes_a, 0s, [](double v) { return v == 2; }), 150);
  const auto ready = series(rec, "deployment.ready", kApi);
  EXPECT_EQ(first_time_s(ready, 60s, [](double v) { return v == 8; }), 160);
  EXPECT_EQ(range(series(rec, "deployment.pending", kApi), 151s, 600s).max, 0);
}

TEST(ControlPlane, ShortStockLeavesReplicasUnplaced) {
  const RunResult run =
      run_text(scenario(R"(    nodePools:
      - {name: pool-a, zone: a, cpu: 2, memory: 8GiB, nodes: 1, maxNodes: 2}
      - {name: pool-b, zone: b, cpu: 2, memory: 8GiB, nodes: 1, maxNodes: 2}
    clusterAutoscaler: {enabled: true, provisioning: {kind: constant, value: 30s}}
    deployments:
      - service: api
        policy: {kind: spread, zones: [a, b], minZones: 2, maxZoneShare: 100%}
)",
                        R"(    - {name: scale, action: deployment:scale, target: {service: api}, replicas: 12, at: 1m}
)"));
  const Recorder& rec = run.simulation->recorder();
  // Each zone can grow to its stock of 2 nodes (4 pods): the parent places
  // 8 of the 12 replicas, the autoscaler brings the nodes, and 4 stay
  // unplaced for good.
  EXPECT_EQ(range(series(rec, "cluster.nodes", {{"zone", "a"}}), 300s, 600s).min, 2);
  EXPECT_EQ(range(series(rec, "deployment.unplaced", kApi), 300s, 600s).min, 4);
  EXPECT_EQ(range(series(rec, "deployment.pending", kApi), 300s, 600s).max, 0);
  EXPECT_EQ(range(series(rec, "deployment.ready", kApi), 300s, 600s).min, 8);
}

TEST(ControlPlane, APodIsReadyAtTheFirstProbeAfterItsAppStarts) {
  // Start-up 12 s, first probe at 5 s, then every 10 s: ready at 15 s.
  const RunResult run =
      run_text(scenario(R"(    deployments:
      - service: api
        startup: {kind: constant, value: 12s}
        readinessProbe: {initialDelaySeconds: 5, periodSeconds: 10}
)",
                        R"(    - {name: scale, action: deployment:scale, target: {service: api}, replicas: 6, at: 1m}
)"));
  const auto ready = series(run.simulation->recorder(), "deployment.ready", kApi);
  EXPECT_EQ(first_time_s(ready, 0s, [](double v) { return v > 4; }), 75);
}

TEST(ControlPlane, SuccessThresholdWaitsForMoreProbes) {
  const RunResult run =
      run_text(scenario(R"(    deployments:
      - service: api
        startup: {kind: constant, value: 12s}
        readinessProbe: {initialDelaySeconds: 5, periodSeconds: 10, successThreshold: 3}
)",
                        R"(    - {name: scale, action: deployment:scale, target: {service: api}, replicas: 6, at: 1m}
)"));
  const auto ready = series(run.simulation->recorder(), "deployment.ready", kApi);
  EXPECT_EQ(first_time_s(ready, 0s, [](double v) { return v > 4; }), 95);
}

TEST(ControlPlane, APolicyChangeRollsThePodsToTheNewZones) {
  // Migration: from a and b to b and c. The rollout keeps at least
  // replicas - maxUnavailable (4 - 1) pods ready throughout.
  const RunResult run = run_text(scenario(R"(    deployments:
      - service: api
        policy: {kind: spread, zones: [a, b], minZones: 2, maxZoneShare: 50%}
        startup: {kind: constant, value: 10s}
        readinessProbe: {periodSeconds: 5}
)",
                                          R"(    - name: migrate
      action: deployment:policy
      target: {service: api}
      policy: {kind: spread, zones: [b, c], minZones: 2, maxZoneShare: 50%}
      at: 1m
)"));
  const Recorder& rec = run.simulation->recorder();
  EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone("a")), 200s, 600s).max, 0);
  EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone("b")), 200s, 600s).min, 2);
  EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone("c")), 200s, 600s).min, 2);
  EXPECT_GE(range(series(rec, "deployment.ready", kApi), 0s, 600s).min, 3);
  // Nothing was lost on the way.
  EXPECT_EQ(rec.find_kpi("client.failed", {{"cause", "refused"}, {"population", "users"}})->value, 0);
}

TEST(ControlPlane, AKilledContainerIsRefusingUntilItsProbesFailThenRestarts) {
  // Killed at 60 s. Probes every 5 s fail from 60 s: after 3 failures
  // (failureThreshold) the pod is unready at 70 s, and until then the
  // balancer still sends it a quarter of the requests, refused. The kubelet
  // restarts the container after 10 s (the first back-off), the app is up
  // 10 s later, and the probe at 80 s passes.
  const RunResult run =
      run_text(scenario(R"(    deployments:
      - service: api
        startup: {kind: constant, value: 10s}
        readinessProbe: {periodSeconds: 5, failureThreshold: 3}
)",
                        R"(    - {name: kill, action: pods:kill, target: {service: api, zone: a}, count: 1, at: 1m}
)"));
  const Recorder& rec = run.simulation->recorder();
  const auto ready_a = series(rec, "deployment.zone_ready", zone("a"));
  EXPECT_EQ(first_time_s(ready_a, 60s, [](double v) { return v == 1; }), 70);
  EXPECT_EQ(first_time_s(ready_a, 70s, [](double v) { return v == 2; }), 80);
  const auto refused = series(rec, "client.failed", {{"cause", "refused"}, {"population", "users"}});
  double while_listed = 0, after = 0;
  for (const auto& [t, v] : refused) (t < std::int64_t{70'000'000'000} ? while_listed : after) += v;
  // Round-robin over 4 pods for 10 s, give or take the phase of the rotation
  // and what the pod held when it died.
  EXPECT_NEAR(while_listed, 50 * 10 / 4.0, 6);
  EXPECT_EQ(after, 0);
  EXPECT_TRUE(has_event(rec, "pod.crashed", "restarted after 10 s (restart 1), unready at 70 s"));
  EXPECT_EQ(rec.find_kpi("deployment.replicas_final", kApi)->value, 4);
}

TEST(ControlPlane, AnHpaBehaviorLimitsTheScaleUpRate) {
  // Load jumps at 2 min to twice what 4 pods can serve (and beyond
  // maxReplicas at a 50% target); the behavior allows 2 pods per 60 s:
  // 4 -> 6 -> 8 -> 10, a minute apart.
  std::string text = scenario(R"(    deployments:
      - service: api
        startup: {kind: constant, value: 5s}
        readinessProbe: {periodSeconds: 5}
    hpas:
      - name: api
        target: api
        minReplicas: 4
        maxReplicas: 10
        metrics:
          - type: Resource
            resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
        behavior:
          scaleUp:
            policies: [{type: Pods, value: 2, periodSeconds: 60}]
)");
  text.replace(text.find("load: {kind: constant, rate: 50rps}"), 35,
               "load: {kind: stages, stages: [{duration: 2m, target: 50rps}, {duration: 0s, target: 3000rps}, "
               "{duration: 8m, target: 3000rps}]}");
  const RunResult run = run_text(text);
  const auto replicas = series(run.simulation->recorder(), "deployment.replicas", kApi);
  const double six = first_time_s(replicas, 0s, [](double v) { return v >= 6; });
  const double eight = first_time_s(replicas, 0s, [](double v) { return v >= 8; });
  const double ten = first_time_s(replicas, 0s, [](double v) { return v >= 10; });
  ASSERT_GT(six, 120);
  EXPECT_LE(six, 120 + 45);
  EXPECT_EQ(range(replicas, 0s, Duration(static_cast<std::int64_t>(six * 1e9))).max, 4);
  EXPECT_GE(eight - six, 60);
  EXPECT_GE(ten - eight, 60);
}

TEST(ControlPlane, ARestartReplacesEveryPodWithinMaxSurgeAndMaxUnavailable) {
  // 4 replicas, maxSurge 25% (1 pod) and maxUnavailable 25% (1 pod): at
  // most 5 pods and at least 3 ready at any time; 4 new pods in the end.
  const RunResult run =
      run_text(scenario(R"(    deployments:
      - service: api
        startup: {kind: constant, value: 10s}
        readinessProbe: {periodSeconds: 5}
)",
                        R"(    - {name: restart, action: deployment:restart, target: {service: api}, at: 1m}
)"));
  const Recorder& rec = run.simulation->recorder();
  const auto ready = series(rec, "deployment.ready", kApi);
  EXPECT_GE(range(ready, 0s, 600s).min, 3);
  EXPECT_EQ(range(ready, 300s, 600s).min, 4);
  // Two waves of (one surge + one unavailable) pods, 10 s each: done by 80 s.
  EXPECT_EQ(first_time_s(ready, 61s, [](double v) { return v == 4; }), 80);
  EXPECT_TRUE(has_event(rec, "deployment.restart", "revision 1"));
  EXPECT_EQ(rec.find_kpi("client.failed", {{"cause", "refused"}, {"population", "users"}})->value, 0);
}

// ---- how callers learn of a lost zone: the node lifecycle controller and kube-proxy -----

std::optional<double> event_time(const Recorder& rec, std::string_view kind) {
  for (std::size_t i = 0; i < rec.events().size(); ++i) {
    if (rec.events().kind[i] == kind) return static_cast<double>(rec.events().t_ns[i]) / 1e9;
  }
  return std::nullopt;
}

// Zone a (2 of the api's 4 pods) fails at 60 s for 5 minutes; the api has no
// deployment, so only the node lifecycle controller and kube-proxy act on it.
std::string zone_loss(const std::string& kubernetes, const std::string& discovery = "", std::uint64_t seed = 1) {
  std::string text = scenario(kubernetes, R"(    - {name: lose-a, action: zone:fail, target: {zone: a}, at: 1m, duration: 5m}
)");
  if (!discovery.empty()) {
    const std::string anchor = "        cpu: {perWorker: 250m}\n";
    text.replace(text.find(anchor), anchor.size(), anchor + "        discovery: " + discovery + "\n");
  }
  text.replace(text.find("spec:\n"), 6, "spec:\n  seed: " + std::to_string(seed) + "\n");
  // Evenly spaced requests: what reaches the dead zone is the window's length times the rate, without Poisson noise.
  const std::string load = "      timeout: 2s\n";
  text.replace(text.find(load), load.size(), load + "      arrivals: deterministic\n");
  return text;
}

TEST(NodeLifecycle, ASilentZoneIsNotReadyAtAMonitorLookAboutTheGracePeriodAfterItsLastLease) {
  // Leases renewed every 10 s, looked at every 5 s, grace 50 s: NotReady lands
  // on a look in (60 + 50 - 10, 60 + 50 + 2 x 5] = (100, 120] s, where depends
  // on the leases' phase: over seeds it is not always the same look.
  std::set<double> seen;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const RunResult run = run_text(zone_loss("    nodeLifecycle: {monitorGracePeriod: 50s}\n", "", seed));
    const auto t = event_time(run.simulation->recorder(), "node.not_ready");
    ASSERT_TRUE(t.has_value());
    EXPECT_GT(*t, 100.0) << seed;
    EXPECT_LE(*t, 120.0) << seed;
    EXPECT_EQ(std::fmod(*t, 5.0), 0.0) << *t;
    seen.insert(*t);
  }
  EXPECT_GE(seen.size(), 2u);
  // Gardener's zone-outage tests ran with a 120 s grace: about 2 minutes to NotReady.
  const RunResult slow = run_text(zone_loss("    nodeLifecycle: {monitorGracePeriod: 120s}\n"));
  const auto t = event_time(slow.simulation->recorder(), "node.not_ready");
  ASSERT_TRUE(t.has_value());
  EXPECT_GT(*t, 60.0 + 120 - 10);
  EXPECT_LE(*t, 60.0 + 120 + 10);
}

TEST(NodeLifecycle, CallersKeepSendingToALostZoneUntilKubeProxyDropsItsPods) {
  const RunResult run = run_text(zone_loss("    nodeLifecycle: {monitorGracePeriod: 50s}\n"));
  const Recorder& rec = run.simulation->recorder();
  const auto not_ready = event_time(rec, "node.not_ready");
  const auto updated = event_time(rec, "endpoints.updated");
  ASSERT_TRUE(not_ready && updated);
  // kube-proxy has not synced for far longer than minSyncPeriod: it programs the change at once.
  EXPECT_EQ(*updated, *not_ready);
  EXPECT_TRUE(has_event(rec, "endpoints.updated", "api: kube-proxy synced, 0 pods added, 2 removed"));
  // Until then the balancer (round-robin over 4 listed pods) sends half the
  // requests into the dead zone, where they are black-holed and time out.
  const double window = *updated - 60.0;
  const double expected = 50.0 * 0.5 * window;
  const auto timeouts = series(rec, "client.failed", {{"cause", "timeout"}, {"population", "users"}});
  double lost = 0, later = 0;
  for (const auto& [t, v] : timeouts) {
    // A request sent just before the update times out 2 s later.
    (t <= static_cast<std::int64_t>((*updated + 2.0) * 1e9) ? lost : later) += v;
  }
  EXPECT_NEAR(lost, expected, 3.0) << "window " << window << " s";  // evenly spaced and round-robin: exact but for the ends
  EXPECT_EQ(later, 0);
}

TEST(NodeLifecycle, TheOracleStopsAtOnceAndIsOnlyAnOptIn) {
  const RunResult run = run_text(zone_loss("    nodeLifecycle: {monitorGracePeriod: 50s}\n", "oracle"));
  const Recorder& rec = run.simulation->recorder();
  // Only what was in flight into zone a at 60 s is lost: at 50 rps and 10 ms service, at most a request or two.
  EXPECT_LE(rec.find_kpi("client.failed", {{"cause", "timeout"}, {"population", "users"}})->value, 2);
  EXPECT_FALSE(event_time(rec, "endpoints.updated").has_value());
}

TEST(NodeLifecycle, PodsWithoutADeploymentAreListedAgainAtTheirFirstProbeAfterTheZoneReturns) {
  const RunResult run = run_text(zone_loss("    nodeLifecycle: {monitorGracePeriod: 50s}\n"));
  const Recorder& rec = run.simulation->recorder();
  std::vector<double> updates;
  for (std::size_t i = 0; i < rec.events().size(); ++i) {
    if (rec.events().kind[i] == "endpoints.updated") updates.push_back(static_cast<double>(rec.events().t_ns[i]) / 1e9);
  }
  ASSERT_EQ(updates.size(), 2u);
  // Back at 6 m; the default readiness probe runs every 10 s.
  EXPECT_DOUBLE_EQ(updates[1], 360.0 + 10.0);
  EXPECT_TRUE(has_event(rec, "endpoints.updated", "api: kube-proxy synced, 2 pods added, 0 removed"));
}

TEST(NodeLifecycle, TheBoundsDescribePrintsAreTheOnesTheSimulatedTimesKeep) {
  // The range drsim describe prints (models/kube/node_lifecycle_bounds.h) is the one the runs above stay in.
  NodeLifecycleConfig nl;
  nl.monitor_grace_period = 50s;
  EXPECT_EQ(not_ready_delay_range(nl).above, 40s);
  EXPECT_EQ(not_ready_delay_range(nl).at_most, 60s);
  nl.monitor_grace_period = 120s;
  EXPECT_EQ(not_ready_delay_range(nl).above, 110s);
  EXPECT_EQ(not_ready_delay_range(nl).at_most, 130s);
  // A grace shorter than the renew interval: never before the first look after the loss.
  nl.monitor_grace_period = 2s;
  EXPECT_EQ(not_ready_delay_range(nl).above, 0s);
  EXPECT_EQ(not_ready_delay_range(nl).at_most, 12s);
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const RunResult run = run_text(zone_loss("    nodeLifecycle: {monitorGracePeriod: 2s}\n", "", seed));
    const auto t = event_time(run.simulation->recorder(), "node.not_ready");
    ASSERT_TRUE(t.has_value());
    EXPECT_GT(*t, 60.0) << seed;
    EXPECT_LE(*t, 72.0) << seed;
  }
}

}  // namespace
}  // namespace drsim

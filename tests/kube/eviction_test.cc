// Taint-based eviction on the timeline: zone a is lost at 60 s and back at 12 min; its nodes are NotReady
// at a monitor look 40-60 s later (node.not_ready), and its pods are evicted a toleration after that. Every
// time below is derived from the settings: the NotReady time the run logged, the toleration, the start-up
// (constant) and the readiness probe's period; counts per zone come from each policy's rule
// (models/kube/eviction_placement.h, whose unit tests work them out).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
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

// Zones a, b, c; the api's pods per zone as given (`replicas`: YAML list items, indented 10), 1 core each (4
// workers x 250m), 50 rps; `extra` more services (indented 6); zone a lost from 60 s to 720 s; the run lasts
// 15 minutes. `kubernetes` is spec.kubernetes, indented 4.
std::string scenario(const std::string& replicas, const std::string& kubernetes, std::uint64_t seed = 1,
                     const std::string& extra = "") {
  return R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: eviction
spec:
  seed: )" +
         std::to_string(seed) + R"(
  topology:
    regions:
      - name: r
        zones: [{name: a}, {name: b}, {name: c}]
        interZoneRtt: 1ms
    services:
      - name: api
        replicas:
)" + replicas +
         R"(        concurrency: 4
        serviceTime: {kind: constant, value: 10ms}
        cpu: {perWorker: 250m}
)" + extra +
         R"(  duration: 15m
  metricsWindow: 1s
  load:
    - name: users
      service: api
      load: {kind: constant, rate: 50rps}
      timeout: 2s
  kubernetes:
)" + kubernetes +
         R"(  timeline:
    - {name: lose-a, action: zone:fail, target: {zone: a}, at: 1m, duration: 11m}
)";
}

const std::string k422 = R"(          - {zone: a, replicas: 4}
          - {zone: b, replicas: 2}
          - {zone: c, replicas: 2}
)";
const std::string k222 = R"(          - {zone: a, replicas: 2}
          - {zone: b, replicas: 2}
          - {zone: c, replicas: 2}
)";

// The api's deployment: start-up 10 s, probes every 5 s from the start, so a pod bound at t is Ready at t + 10.
std::string api(const std::string& policy, const std::string& more = "") {
  return R"(    deployments:
      - service: api
        policy: )" +
         policy + R"(
        startup: {kind: constant, value: 10s}
        readinessProbe: {periodSeconds: 5}
)" + more;
}

constexpr double kBack = 720;  // zone a returns

// Time (s) and detail of the n-th event of the kind whose detail contains `text`.
struct Logged {
  double t = -1;
  std::string detail;
};
Logged event(const Recorder& rec, std::string_view kind, std::string_view text = "") {
  for (std::size_t i = 0; i < rec.events().size(); ++i) {
    if (rec.events().kind[i] != kind || rec.events().detail[i].find(text) == std::string::npos) continue;
    return {static_cast<double>(rec.events().t_ns[i]) / 1e9, rec.events().detail[i]};
  }
  ADD_FAILURE() << "no event " << kind << " with " << text;
  return {};
}

std::size_t count_events(const Recorder& rec, std::string_view kind) {
  std::size_t n = 0;
  for (const std::string& k : rec.events().kind) n += k == kind ? 1 : 0;
  return n;
}

const Labels kApi{{"service", "api"}};
Labels zone(std::string_view z, std::string_view service = "api") {
  return {{"service", std::string(service)}, {"zone", std::string(z)}};
}
Duration at(double s) { return Duration(static_cast<std::int64_t>(std::llround(s * 1e9))); }

TEST(Eviction, ScheduleAnywayReplacementsLandInTheSurvivingZonesATolerationAfterNotReady) {
  std::vector<double> not_ready_times;
  for (std::uint64_t seed : {1, 3}) {
    const RunResult run =
        run_text(scenario(k422, api("{kind: topologySpread, maxSkew: 1, whenUnsatisfiable: ScheduleAnyway}"), seed));
    const Recorder& rec = run.simulation->recorder();
    const double not_ready = event(rec, "node.not_ready").t;
    not_ready_times.push_back(not_ready);
    // The default toleration (300 s) counts from NotReady.
    const Logged evicted = event(rec, "pod.evicted");
    EXPECT_EQ(evicted.t, not_ready + 300) << seed;
    EXPECT_EQ(evicted.detail,
              "api: 4 pods of zone a evicted after the unreachable toleration (300 s); replacements 2 in b, 2 in c");
    // b and c had 2 each: the 4 replacements go 2 and 2, bound at once (no node pools), Ready 10 s later.
    for (const char* z : {"b", "c"}) {
      const auto ready = series(rec, "deployment.zone_ready", zone(z));
      EXPECT_EQ(range(ready, 60s, at(evicted.t + 10)).max, 2) << z;
      EXPECT_EQ(first_time_s(ready, 60s, [](double v) { return v == 4; }), evicted.t + 10) << z << " seed " << seed;
      EXPECT_EQ(range(ready, at(evicted.t + 10), 900s).min, 4) << z;
    }
    EXPECT_EQ(range(series(rec, "deployment.pending", kApi), 0s, 900s).max, 0);
    // Nothing moves back when zone a returns at 12 min: Kubernetes does not rebalance.
    EXPECT_EQ(range(series(rec, "deployment.zone_target", zone("a")), at(evicted.t), 900s).max, 0);
    EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone("a")), at(kBack), 900s).max, 0);
    EXPECT_EQ(range(series(rec, "deployment.ready", kApi), at(evicted.t + 10), 900s).min, 8);
  }
  // The leases' phase comes from the seed: NotReady, and the eviction with it, at a look in (100, 120] s;
  // seeds 1 and 3 put it on different looks, so the eviction time above follows NotReady, not a constant.
  for (double t : not_ready_times) {
    EXPECT_GT(t, 100);
    EXPECT_LE(t, 120);
  }
  EXPECT_NE(not_ready_times[0], not_ready_times[1]);
}

TEST(Eviction, DoNotScheduleCapsTheHealthyZonesAtMaxSkewAboveTheLostZonesZero) {
  // Zone a still counts as a domain with no matching pod (its evicted pods are terminating): b and c may hold
  // at most 0 + maxSkew 3 pods, one more each. The other 2 replacements stay Pending in zone a and bind there
  // when it is back, the zone with the fewest pods.
  const RunResult run =
      run_text(scenario(k422, api("{kind: topologySpread, maxSkew: 3, whenUnsatisfiable: DoNotSchedule}")));
  const Recorder& rec = run.simulation->recorder();
  const Logged evicted = event(rec, "pod.evicted");
  EXPECT_EQ(evicted.t, event(rec, "node.not_ready").t + 300);
  EXPECT_EQ(evicted.detail,
            "api: 4 pods of zone a evicted after the unreachable toleration (300 s); replacements 1 in b, 1 in c; 2 "
            "recreated in zone a, Pending until it is back (policy topologySpread: a cannot take pods; b would have "
            "skew 4 > maxSkew 3; c would have skew 4 > maxSkew 3; global minimum 0 in a)");
  for (const char* z : {"b", "c"}) {
    EXPECT_EQ(first_time_s(series(rec, "deployment.zone_ready", zone(z)), 60s, [](double v) { return v == 3; }),
              evicted.t + 10);
    EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone(z)), 0s, 900s).max, 3);
  }
  const auto pending = series(rec, "deployment.pending", kApi);
  EXPECT_EQ(range(pending, at(evicted.t), at(kBack)).min, 2);
  EXPECT_EQ(range(pending, at(evicted.t), at(kBack)).max, 2);
  EXPECT_EQ(range(pending, at(kBack), 900s).max, 0);
  EXPECT_EQ(first_time_s(series(rec, "deployment.zone_ready", zone("a")), at(kBack), [](double v) { return v == 2; }),
            kBack + 10);
  EXPECT_EQ(rec.find_kpi("deployment.pending_peak", kApi)->value, 2);
}

TEST(Eviction, AnEqualPolicyKeepsTheReplacementsPinnedAndPendingInTheLostZone) {
  // "Exactly a and b in equal proportion": the two-level scheduling of docs/sources.md section 1 recreates
  // zone a's pods in zone a, where they pend until it is back; zone c stays empty and b keeps 2.
  const RunResult run = run_text(scenario(R"(          - {zone: a, replicas: 2}
          - {zone: b, replicas: 2}
          - {zone: c, replicas: 0}
)",
                                          api("{kind: equal, zones: [a, b]}")));
  const Recorder& rec = run.simulation->recorder();
  const Logged evicted = event(rec, "pod.evicted");
  EXPECT_EQ(evicted.t, event(rec, "node.not_ready").t + 300);
  EXPECT_EQ(evicted.detail,
            "api: 2 pods of zone a evicted after the unreachable toleration (300 s); 2 recreated in zone a, Pending "
            "until it is back (policy equal pins pods to their zones)");
  const auto pending = series(rec, "deployment.pending", kApi);
  EXPECT_EQ(range(pending, at(evicted.t), at(kBack)).min, 2);
  EXPECT_EQ(range(pending, at(kBack), 900s).max, 0);
  EXPECT_EQ(range(series(rec, "deployment.zone_target", zone("a")), 0s, 900s).min, 2);
  EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone("b")), 0s, 900s).max, 2);
  EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone("c")), 0s, 900s).max, 0);
  EXPECT_EQ(first_time_s(series(rec, "deployment.zone_ready", zone("a")), at(kBack), [](double v) { return v == 2; }),
            kBack + 10);
}

TEST(Eviction, AStatefulSetWaitsUntilTheLostZoneIsBackToReplaceItsPods) {
  // The same ScheduleAnyway policy as a Deployment's, which moves its pods at the eviction: a StatefulSet's
  // evicted pods stay Terminating (their kubelet cannot confirm), unreplaced, until zone a is back at 720 s;
  // then they are gone and recreated there, Ready after the start-up and a probe: 730 s, not the 725 s of a
  // pod that was never evicted (the next probe).
  const RunResult run =
      run_text(scenario(k422, api("{kind: topologySpread, maxSkew: 1, whenUnsatisfiable: ScheduleAnyway}",
                                  "        kind: StatefulSet\n")));
  const Recorder& rec = run.simulation->recorder();
  const Logged evicted = event(rec, "pod.evicted");
  EXPECT_EQ(evicted.t, event(rec, "node.not_ready").t + 300);
  EXPECT_EQ(evicted.detail,
            "api: 4 pods of zone a evicted after the unreachable toleration (300 s); a StatefulSet replaces a pod "
            "only once it is gone: they stay Terminating, unreplaced, until zone a is back");
  for (const char* z : {"b", "c"}) {
    EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone(z)), 0s, 900s).max, 2) << z;
  }
  EXPECT_EQ(range(series(rec, "deployment.pending", kApi), 0s, 900s).max, 0);
  EXPECT_EQ(range(series(rec, "deployment.ready", kApi), at(evicted.t), at(kBack)).max, 4);
  const Logged terminated = event(rec, "pod.terminated");
  EXPECT_EQ(terminated.t, kBack);
  EXPECT_EQ(terminated.detail,
            "api: 4 Terminating pods of zone a are gone, their kubelets back; the StatefulSet recreates them there");
  const auto ready_a = series(rec, "deployment.zone_ready", zone("a"));
  EXPECT_EQ(range(ready_a, at(kBack), at(kBack + 10)).max, 0);
  EXPECT_EQ(first_time_s(ready_a, at(kBack), [](double v) { return v == 4; }), kBack + 10);
}

TEST(Eviction, PodsOfAServiceWithoutADeploymentAreEvictedAndReplacedInItsOtherZones) {
  // No deployment describes the api: its zone-a pods are evicted after the default toleration all the same,
  // and the replacements spread evenly over b and c (one each), Ready at their first probe after the
  // default start-up: probes every 10 s from binding, app up after 20 s.
  const RunResult run = run_text(scenario(k222, "    nodeLifecycle: {monitorGracePeriod: 50s}\n"));
  const Recorder& rec = run.simulation->recorder();
  const Logged evicted = event(rec, "pod.evicted");
  EXPECT_EQ(evicted.t, event(rec, "node.not_ready").t + 300);
  EXPECT_EQ(evicted.detail,
            "api: 2 pods of zone a evicted after the unreachable toleration (300 s); no deployment describes their "
            "ReplicaSet: replacements spread evenly over its zones that are up, 1 in b, 1 in c");
  const Logged added = event(rec, "endpoints.updated", "2 pods added");
  EXPECT_EQ(added.t, evicted.t + 20);
  for (const char* z : {"b", "c"}) {
    const auto pods = series(rec, "service.pods", zone(z));
    EXPECT_EQ(range(pods, 60s, at(evicted.t + 20)).max, 2) << z;
    EXPECT_EQ(range(pods, at(evicted.t + 20), 900s).min, 3) << z;
  }
  // Zone a is back at 720 s with none of them: nothing is moved back.
  EXPECT_EQ(range(series(rec, "service.pods", zone("a")), at(evicted.t), 900s).max, 0);
  EXPECT_EQ(count_events(rec, "pod.evicted"), 1u);
}

TEST(Eviction, AWorkloadsOwnTolerationSetsItsEvictionTime) {
  // The api tolerates the unreachable taint 60 s, the batch deployment and the unmanaged worker the cluster's
  // 300 s: two evictions, each a toleration after the same NotReady.
  const std::string extra = R"(      - name: batch
        replicas: [{zone: a, replicas: 1}, {zone: b, replicas: 1}]
        concurrency: 1
        serviceTime: {kind: constant, value: 10ms}
      - name: worker
        replicas: [{zone: a, replicas: 1}, {zone: c, replicas: 1}]
        concurrency: 1
        serviceTime: {kind: constant, value: 10ms}
)";
  const std::string kube =
      api("{kind: topologySpread, maxSkew: 1, whenUnsatisfiable: ScheduleAnyway}", "        toleration: 60s\n") +
      R"(      - service: batch
        policy: {kind: topologySpread, maxSkew: 1, whenUnsatisfiable: ScheduleAnyway}
)";
  for (std::uint64_t seed : {1, 3}) {
    const RunResult run = run_text(scenario(k422, kube, seed, extra));
    const Recorder& rec = run.simulation->recorder();
    const double not_ready = event(rec, "node.not_ready").t;
    const Logged api_evicted = event(rec, "pod.evicted", "api:");
    EXPECT_EQ(api_evicted.t, not_ready + 60) << seed;
    EXPECT_NE(api_evicted.detail.find("(60 s); replacements 2 in b, 2 in c"), std::string::npos);
    EXPECT_EQ(first_time_s(series(rec, "deployment.zone_ready", zone("b")), 60s, [](double v) { return v == 4; }),
              not_ready + 60 + 10);
    EXPECT_EQ(event(rec, "pod.evicted", "batch:").t, not_ready + 300) << seed;
    EXPECT_EQ(event(rec, "pod.evicted", "worker:").t, not_ready + 300) << seed;
    EXPECT_EQ(count_events(rec, "pod.evicted"), 3u);
  }
}

TEST(Eviction, TheClusterAutoscalerAddsNodesForReplacementsThatDoNotFit) {
  // One 2-core node per zone, full with its 2 pods; b and c may grow to 2 nodes. At the eviction the parent
  // counts the room the autoscaler may add (2 pods per zone): one replacement each to b and c, Pending on the
  // full nodes. The autoscaler's next scan (every 10 s from the start; the eviction, scheduled first, runs
  // before a scan at the same instant) orders a node per zone, Ready 90 s later; the pods bind and are Ready
  // 10 s after that.
  const RunResult run = run_text(scenario(k222, R"(    nodePools:
      - {name: pool-a, zone: a, cpu: 2, memory: 8GiB, nodes: 1}
      - {name: pool-b, zone: b, cpu: 2, memory: 8GiB, nodes: 1, maxNodes: 2}
      - {name: pool-c, zone: c, cpu: 2, memory: 8GiB, nodes: 1, maxNodes: 2}
    clusterAutoscaler:
      enabled: true
      scanInterval: 10s
      provisioning: {kind: constant, value: 90s}
)" + api("{kind: topologySpread, maxSkew: 1, whenUnsatisfiable: ScheduleAnyway}")));
  const Recorder& rec = run.simulation->recorder();
  const Logged evicted = event(rec, "pod.evicted");
  EXPECT_EQ(evicted.t, event(rec, "node.not_ready").t + 300);
  EXPECT_NE(evicted.detail.find("replacements 1 in b, 1 in c"), std::string::npos);
  const double scan = std::ceil(evicted.t / 10) * 10;
  EXPECT_EQ(event(rec, "node.scale_up", "pool pool-b").t, scan);
  const auto pending = series(rec, "deployment.pending", kApi);
  EXPECT_EQ(range(pending, at(evicted.t), at(scan + 90)).min, 2);
  EXPECT_EQ(range(pending, at(scan + 90), 900s).max, 0);
  for (const char* z : {"b", "c"}) {
    EXPECT_EQ(first_time_s(series(rec, "cluster.nodes", {{"zone", z}}), 0s, [](double v) { return v == 2; }),
              scan + 90);
    EXPECT_EQ(first_time_s(series(rec, "deployment.zone_ready", zone(z)), 0s, [](double v) { return v == 3; }),
              scan + 100);
  }
}

TEST(EvictionDrill, TheHealthyZonesAreRelievedATolerationAfterNotReadyAndNothingMovesBack) {
  // scenarios/az_failure_eviction.yaml: 300 rps over the api's 8 pods of 80 rps each is 47% CPU; zone-b/c's
  // 4 pods alone run at 94% until the eviction, whose 4 replacements (2 + 2) are Ready 20 s later (start-up
  // 20 s, probes every 5 s from 5 s).
  const RunResult run = run_scenario(load_scenario_file("scenarios/az_failure_eviction.yaml"));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  const double not_ready = event(rec, "node.not_ready").t;
  const double evicted = event(rec, "pod.evicted", "api:").t;
  EXPECT_EQ(evicted, not_ready + 300);
  for (const char* z : {"zone-b", "zone-c"}) {
    const auto cpu = series(rec, "service.cpu_utilization", zone(z));
    EXPECT_GT(range(cpu, at(not_ready + 10), at(evicted - 10)).min, 0.85) << z;
    EXPECT_LT(range(cpu, at(evicted + 30), 1500s).max, 0.6) << z;
    EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone(z)), at(evicted + 30), 1500s).min, 4) << z;
  }
  // The 4 replacements join the callers' view at once when Ready (kube-proxy has not synced for long).
  EXPECT_EQ(event(rec, "endpoints.updated", "api: kube-proxy synced, 4 pods added").t, evicted + 20);
  // web (no deployment): one replacement each in zone-b and zone-c; zone-a back at 20 min gets none back.
  for (const char* z : {"zone-b", "zone-c"}) {
    EXPECT_EQ(range(series(rec, "service.pods", zone(z, "web")), at(evicted + 30), 1500s).min, 3) << z;
  }
  EXPECT_EQ(range(series(rec, "service.pods", zone("zone-a", "web")), 1200s, 1500s).max, 0);
  EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone("zone-a")), 1200s, 1500s).max, 0);
  // sessions (a StatefulSet): its zone-a pod is replaced only once zone-a is back, in zone-a.
  const auto sessions_a = series(rec, "deployment.zone_ready", zone("zone-a", "sessions"));
  EXPECT_EQ(range(sessions_a, at(not_ready), 1200s).max, 0);
  EXPECT_EQ(event(rec, "pod.terminated", "sessions:").t, 1200);
  EXPECT_EQ(first_time_s(sessions_a, 1200s, [](double v) { return v == 1; }), 1220);
}

}  // namespace
}  // namespace drsim

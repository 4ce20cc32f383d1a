// Calls through sidecars (discovery mesh) when a zone is lost: the front's
// pods call the ledger through their own Envoy, and each sidecar finds the
// dead pods out by its own means (outlier detection on its own requests,
// active health checks if configured) or not at all (a caller that gives up
// first teaches it nothing), until Kubernetes unlists them (the node
// lifecycle controller's grace period, 50 s by default, looked at every 5 s,
// Leases renewed every 10 s: NotReady in (40, 60] s after the loss). Every
// bound below comes from those settings; none is a published figure
// (self-consistency checks of the mechanism).
#include <gtest/gtest.h>

#include <string>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "io/scenario_error.h"
#include "tests/drills/recorded_series.h"
#include "tests/drills/run_text.h"

namespace drsim {
namespace {

using test_support::run_text;

using namespace std::chrono_literals;
using test_support::kpi;
using test_support::range;
using test_support::series;

constexpr auto kLoss = 60s;  // zone a is lost, for the rest of the run

// front (2 pods per zone, reached by its users through the oracle: its own detection is not under test) calls
// the ledger (2 pods per zone) once per request, through its sidecars; `mesh` is the ledger's mesh block
// (indented 8) and `call_timeout` the front's timeout on the call.
std::string scenario(const std::string& mesh, const std::string& call_timeout,
                     const std::string& ledger_replicas = "{zone: a, replicas: 2}") {
  return R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: mesh
spec:
  seed: 3
  duration: 3m
  metricsWindow: 1s
  topology:
    regions:
      - name: r
        zones: [{name: a}, {name: b}, {name: c}]
        interZoneRtt: 1ms
    services:
      - name: front
        discovery: oracle
        replicas: [{zone: a, replicas: 2}, {zone: b, replicas: 2}, {zone: c, replicas: 2}]
        concurrency: 400
        serviceTime: {kind: constant, value: 1ms}
        calls:
          - {service: ledger, timeout: )" +
         call_timeout + R"(}
      - name: ledger
        discovery: mesh
)" + mesh + R"(        replicas: [)" + ledger_replicas + R"(, {zone: b, replicas: 2}, {zone: c, replicas: 2}]
        concurrency: 16
        serviceTime: {kind: constant, value: 5ms}
  load:
    - name: users
      service: front
      load: {kind: constant, rate: 300rps}
      timeout: 120s
  kubernetes:
    deployments: []
  timeline:
    - {name: lose-a, action: zone:fail, target: {zone: a}, at: 60s, duration: 2m}
)";
}

// Requests the sidecars sent into the dead zone a's ledger pods, over the windows starting in [from, to) after
// the loss (sends into a dead zone count as its arrivals).
double sent_to_a(const RunResult& run, Duration from, Duration to) {
  const auto points = series(run.recorder(), "service.arrivals", {{"service", "ledger"}, {"zone", "a"}});
  double total = 0;
  for (const auto& [t_ns, v] : points) {
    if (t_ns >= to_ns(kLoss + from) && t_ns < to_ns(kLoss + to)) total += v;
  }
  return total;
}

TEST(Mesh, LocalityFailoverKeepsEachCallInTheCallersZone) {
  // Every live front pod has ledger pods in its own zone, all healthy: its sidecar sends them everything, and
  // nothing is ever sent into zone a after the loss; no sidecar ejects anything.
  const RunResult run = run_text(scenario("", "30s"));
  EXPECT_EQ(sent_to_a(run, 0s, 60s), 0);
  EXPECT_EQ(kpi(run.recorder(), "mesh.ejections", {{"service", "front"}, {"upstream", "ledger"}}), 0);
  // No call failed: the only failures are the few users' requests the front's own pods in a held at the loss.
  EXPECT_EQ(kpi(run.recorder(), "client.failed", {{"population", "users"}, {"cause", "dependency"}}), 0);
}

const std::string kEveryHost = R"(        mesh:
          locality: none
          outlierDetection: {maxEjectionPercent: 100}
)";

TEST(Mesh, OutlierDetectionEjectsTheDeadPodsAfterTheRouteTimeout) {
  // Without locality each sidecar spreads calls over all six pods. The requests already on their way into zone
  // a, and those sent there next on the same connections, are answered by nobody: the sidecar's 15 s route
  // timeout is the first failure it can see, so nothing is ejected sooner, and sends into a go on meanwhile.
  // Five 504s in a row eject a host; least-request keeps sends to a host holding stuck requests rare (both
  // random draws must hit it), so the fifth comes soon after: by 20 s after the loss each of the four live
  // sidecars has ejected both dead pods, long before Kubernetes unlists them (after 40 s). An ejection lasts
  // 30 s: none ends before 45 s after the loss.
  const RunResult run = run_text(scenario(kEveryHost, "30s"));
  EXPECT_GT(sent_to_a(run, 0s, 14s), 0);
  EXPECT_EQ(sent_to_a(run, 20s, 45s), 0);
  EXPECT_GE(kpi(run.recorder(), "mesh.ejections", {{"service", "front"}, {"upstream", "ledger"}}), 8);
  EXPECT_EQ(sent_to_a(run, 61s, 120s), 0);  // unlisted by then
  // Every call sent into a fails, and no other: the users' dependency failures are those sends, plus the few
  // calls a's ledger pods held at the loss (300 rps x 5 ms: about 1.5 in service).
  const double failed = kpi(run.recorder(), "client.failed", {{"population", "users"}, {"cause", "dependency"}});
  EXPECT_NEAR(failed, sent_to_a(run, 0s, 120s), 6);
  // At most a third of the 300 calls a second went to a until the ejections (least-request sends fewer).
  EXPECT_LE(sent_to_a(run, 0s, 20s), 300.0 / 3 * 20);
}

TEST(Mesh, WithoutMeshDetectionKubernetesUnlistsTheDeadPodsAfterTheGracePeriod) {
  // The same calls through kube-proxy: the dead pods stay listed until the node lifecycle controller marks their
  // node NotReady (40 to 60 s after the loss) and kube-proxy syncs.
  std::string text = scenario("", "30s");
  text.replace(text.find("discovery: mesh"), 15, "discovery: kubernetes");
  const RunResult run = run_text(text);
  EXPECT_GT(sent_to_a(run, 20s, 40s), 0);
  EXPECT_EQ(sent_to_a(run, 61s, 120s), 0);
}

TEST(Mesh, ACallerThatGivesUpFirstTeachesTheSidecarNothing) {
  // Istio's route timeout (none) and a 1 s call timeout: every request into zone a is abandoned by its caller
  // before the sidecar could see a failure (a new connection's connect timeout is 5 s), so nothing is ejected
  // and sends into a go on until Kubernetes unlists the pods.
  const RunResult run = run_text(scenario(kEveryHost + "          routeTimeout: 0s\n", "1s"));
  EXPECT_EQ(kpi(run.recorder(), "mesh.ejections", {{"service", "front"}, {"upstream", "ledger"}}), 0);
  EXPECT_GT(sent_to_a(run, 20s, 40s), 0);
  EXPECT_EQ(sent_to_a(run, 61s, 120s), 0);
}

TEST(Mesh, ActiveHealthChecksFindTheDeadPodsWithinThresholdIntervals) {
  // The same abandoned calls, with every sidecar checking every pod each 2 s (timeout 1 s, 2 failures): a dead
  // pod is unhealthy by two intervals and a timeout after the loss, 5 s, whatever each check's phase.
  const RunResult run = run_text(scenario(kEveryHost + R"(          routeTimeout: 0s
          healthCheck: {interval: 2s, timeout: 1s, unhealthyThreshold: 2, healthyThreshold: 2, noTrafficInterval: 2s}
)",
                                          "1s"));
  EXPECT_GT(sent_to_a(run, 0s, 2s), 0);
  EXPECT_EQ(sent_to_a(run, 6s, 60s), 0);
}

TEST(Mesh, UnderThePanicThresholdTheSidecarsSendToDeadPodsAgain) {
  // Zone a holds 4 of the ledger's 8 pods. Once health checks find them out, 4 of 8 are healthy: 50% is not
  // under the 50% panic threshold, so the sidecars keep to the live ones. Under a 60% threshold they panic and
  // spread calls over all eight again, until Kubernetes unlists the dead ones.
  const std::string checks = R"(          routeTimeout: 0s
          healthCheck: {interval: 2s, timeout: 1s, unhealthyThreshold: 2, healthyThreshold: 2, noTrafficInterval: 2s}
)";
  const std::string four_in_a = "{zone: a, replicas: 4}";
  const RunResult kept = run_text(scenario(kEveryHost + checks, "1s", four_in_a));
  EXPECT_EQ(sent_to_a(kept, 6s, 120s), 0);
  const RunResult panicked = run_text(scenario(kEveryHost + "          panicThreshold: 60\n" + checks, "1s", four_in_a));
  EXPECT_GT(sent_to_a(panicked, 6s, 40s), 0);
  EXPECT_EQ(sent_to_a(panicked, 61s, 120s), 0);
}

TEST(Mesh, TheScenarioFileEjectsOneLostPodPerSidecarAndLeavesTheRestToKubernetes) {
  // scenarios/az_failure_mesh.yaml: zone-a lost at 2 min. checkout's callers keep to their own zones (locality
  // failover): nothing reaches zone-a's checkout after the loss. Each of the 4 live checkout pods' sidecars ejects
  // exactly one of zone-a's 3 payments pods: a second would be 2 of 9 (22%), over maxEjectionPercent 10%; the
  // first ejection comes at least a route timeout (15 s) after the loss, so it lasts past the sweep 30 s later
  // (at least 50 s after the loss, the sweeps running every 10 s from the start) and a new one would need
  // another 15 s: past NotReady (at most 60 s after the loss), when Kubernetes unlists zone-a's pods.
  const RunResult run = run_scenario(load_scenario_file("scenarios/az_failure_mesh.yaml"));
  const Recorder& rec = run.recorder();
  const auto in_zone_a = [&](const std::string& service, Duration from, Duration to) {
    double total = 0;
    for (const auto& [t_ns, v] : series(rec, "service.arrivals", {{"service", service}, {"zone", "zone-a"}})) {
      if (t_ns >= to_ns(120s + from) && t_ns < to_ns(120s + to)) total += v;
    }
    return total;
  };
  EXPECT_EQ(in_zone_a("checkout", 1s, 240s), 0);
  EXPECT_EQ(kpi(rec, "mesh.ejections", {{"service", "checkout"}, {"upstream", "payments"}}), 4);
  EXPECT_GT(in_zone_a("payments", 20s, 40s), 0);  // the two pods no sidecar could eject
  EXPECT_EQ(in_zone_a("payments", 61s, 240s), 0);
}

TEST(Mesh, MeshNeedsKubernetesAndItsBlockNeedsMesh) {
  std::string text = scenario("", "30s");
  const std::string kubernetes = "  kubernetes:\n    deployments: []\n";
  text.replace(text.find(kubernetes), kubernetes.size(), "");
  try {
    load_scenario_text(text);
    FAIL() << "accepted discovery mesh without spec.kubernetes";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("discovery mesh needs spec.kubernetes"), std::string::npos) << e.what();
  }
  text = scenario(kEveryHost, "30s");
  text.replace(text.find("discovery: mesh"), 15, "discovery: kubernetes");
  try {
    load_scenario_text(text);
    FAIL() << "accepted a mesh block on a service without discovery mesh";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("applies to discovery mesh"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace drsim

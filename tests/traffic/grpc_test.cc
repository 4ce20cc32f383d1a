// Calls over gRPC channels (discovery grpc) when the pods they are connected
// to are lost: the front's two pods in zone b call the ledger, whose pods are
// both in zone a; zone a is lost at 60 s, and at 70 s the operator scales the
// ledger up in zone b. A channel keeps sending on its connections to the dead
// pods (every call fails at its 1 s deadline, which tells the channel
// nothing) until a connection breaks, and learns of zone b's pods only when
// it reconnects. Every time below comes from gRPC's and Linux's settings
// (self-consistency checks of the mechanism, not published figures):
//   no keepalive     the first call lost at 60 s arms the kernel's
//                    retransmission give-up, tcp_retries2: 924.6 s later;
//   keepalive        TCP_USER_TIMEOUT = keepaliveTimeout (20 s) from the
//                    first lost call, or a ping every keepaliveTime;
//   maxConnectionAge the server closes each connection that long after it
//                    opened (at the start): the channel reconnects then.
// Kubernetes unlists zone a's pods at NotReady, 40 to 60 s after the loss.
#include <gtest/gtest.h>

#include <string>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"
#include "tests/drills/run_text.h"

namespace drsim {
namespace {

using test_support::run_text;

using namespace std::chrono_literals;
using test_support::kpi;
using test_support::series;

// `grpc` is the ledger's grpc block (indented 8).
std::string scenario(const std::string& grpc) {
  return R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: grpc
spec:
  seed: 2
  duration: 20m
  metricsWindow: 1s
  topology:
    regions:
      - name: r
        zones: [{name: a}, {name: b}]
        interZoneRtt: 1ms
    services:
      - name: front
        discovery: oracle
        replicas: [{zone: b, replicas: 2}]
        concurrency: 400
        serviceTime: {kind: constant, value: 1ms}
        calls:
          - {service: ledger, timeout: 1s}
      - name: ledger
        discovery: grpc
)" + grpc + R"(        replicas: [{zone: a, replicas: 2}, {zone: b, replicas: 0}]
        concurrency: 16
        serviceTime: {kind: constant, value: 5ms}
  load:
    - name: users
      service: front
      arrivals: deterministic
      load: {kind: constant, rate: 100rps}
      timeout: 60s
  kubernetes:
    deployments: []
  timeline:
    - {name: lose-a, action: zone:fail, target: {zone: a}, at: 60s, duration: 30m}
    - {name: scale-b, action: service:scale, target: {service: ledger, zone: b}, at: 70s, replicas: 2}
)";
}

// The users' requests that succeeded in the windows starting in [from, to) (seconds of the run).
double succeeded(const RunResult& run, double from, double to) {
  double total = 0;
  for (const auto& [t_ns, v] : series(run.recorder(), "client.succeeded", {{"population", "users"}})) {
    if (t_ns >= from * 1e9 && t_ns < to * 1e9) total += v;
  }
  return total;
}

double breaks(const RunResult& run) {
  return kpi(run.recorder(), "grpc.connection_breaks", {{"service", "front"}, {"upstream", "ledger"}});
}

TEST(Grpc, WithoutKeepaliveAChannelSendsToTheDeadPodUntilTcpGivesUp) {
  // gRPC's defaults: the Service's virtual IP, pick_first, no keepalive. Each front pod's one connection goes to
  // a zone-a pod; from 60 s every call fails, zone b's new pods get nothing, and the connection breaks 924.6 s
  // after the first lost call: at 984.6 s. The channel reconnects through kube-proxy, which lists only zone b's
  // pods by then, and the calls succeed again.
  const RunResult run = run_text(scenario(""));
  EXPECT_NEAR(succeeded(run, 0, 60), 6000, 2);
  EXPECT_EQ(succeeded(run, 61, 984), 0);
  EXPECT_NEAR(succeeded(run, 986, 1200), 100 * 214, 2);
  EXPECT_EQ(breaks(run), 2);  // one per channel
}

TEST(Grpc, KeepaliveBreaksTheConnectionWithinItsTimeout) {
  // keepaliveTime 10 s: TCP_USER_TIMEOUT is 20 s, so the first lost call breaks the connection at 80 s (a ping,
  // every 10 s from the start with calls always under way, times out no sooner). The reconnection may still
  // reach a zone-a pod while they stay listed (until 120.1 s at the latest): its 20 s connect timeout and
  // gRPC's backoff (1 s x 1.6 per failure, +-20%) bound the recovery: by 120.1 + 20 + 1.2 x 1.6^2 (a third
  // attempt at most) + the round trip, about 144 s.
  const RunResult run = run_text(scenario("        grpc: {keepaliveTime: 10s}\n"));
  EXPECT_EQ(succeeded(run, 61, 79), 0);
  EXPECT_NEAR(succeeded(run, 145, 1200), 100 * (1200 - 145), 2);
  EXPECT_EQ(breaks(run), 2);  // one per channel, at 80 s; a reconnection refused or unanswered is no break
}

TEST(Grpc, HeadlessRoundRobinFindsNewPodsOnlyWhenItReResolves) {
  // A connection to each address of the headless answer (zone a's two pods); zone b's pods added at 70 s are in
  // DNS from then on, but the channel only asks again when a connection breaks: TCP's give-up, 924.6 s after
  // the first lost call on each.
  const RunResult run = run_text(scenario("        grpc: {target: headless, lbPolicy: round_robin}\n"));
  EXPECT_EQ(succeeded(run, 61, 984), 0);
  EXPECT_NEAR(succeeded(run, 986, 1200), 100 * 214, 2);
  EXPECT_EQ(breaks(run), 4);  // two connections per channel
}

TEST(Grpc, MaxConnectionAgeBoundsHowLongAChannelStaysOnADeadPod) {
  // The server closes each connection 3 minutes after it opened (at the start): the channels reconnect at 180 s,
  // when zone a's pods are no longer listed, and reach zone b's. The closing itself fails no call.
  const RunResult run = run_text(scenario("        grpc: {maxConnectionAge: 3m}\n"));
  EXPECT_EQ(succeeded(run, 61, 179), 0);
  EXPECT_NEAR(succeeded(run, 181, 1200), 100 * (1200 - 181), 2);
  EXPECT_EQ(breaks(run), 0);
}

TEST(Grpc, AResetBreaksTheConnectionAtOnce) {
  // No zone is lost: at 60 s both ledger pods are killed, and their containers restart. Each channel hears a
  // reset at its next call and its connection breaks at once (exactly one break per channel: the attempts to
  // reconnect to a crashed pod are refused, which is a failed attempt, not a break); it reconnects with gRPC's
  // backoff once a container is back, so calls succeed again within seconds of the restarts, not after TCP's
  // 924.6 s.
  std::string text = scenario("");
  const std::size_t from = text.find("    - {name: lose-a");
  text.replace(from, text.size() - from,
               "    - {name: kill, action: pods:kill, target: {service: ledger, zone: a}, count: 2, at: 60s}\n");
  // The ledger as a Deployment, so that the kubelet restarts its containers (10 s back-off, 10 s start-up).
  const std::string none = "    deployments: []\n";
  text.replace(text.find(none), none.size(), R"(    deployments:
      - service: ledger
        startup: {kind: constant, value: 10s}
        readinessProbe: {periodSeconds: 5, failureThreshold: 3}
)");
  const RunResult run = run_text(text);
  EXPECT_EQ(breaks(run), 2);
  EXPECT_NEAR(succeeded(run, 0, 60), 6000, 2);
  EXPECT_LT(succeeded(run, 60, 62), 200);
  EXPECT_NEAR(succeeded(run, 120, 1200), 100 * (1200 - 120), 2);
}

TEST(Grpc, GrpcNeedsKubernetesAndItsBlockNeedsGrpc) {
  std::string text = scenario("");
  const std::string kubernetes = "  kubernetes:\n    deployments: []\n";
  text.replace(text.find(kubernetes), kubernetes.size(), "");
  EXPECT_THROW(load_scenario_text(text), std::exception);
  text = scenario("        grpc: {target: headless}\n");
  text.replace(text.find("discovery: grpc"), 15, "discovery: kubernetes");
  try {
    load_scenario_text(text);
    FAIL() << "accepted a grpc block on a service without discovery grpc";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("applies to discovery grpc"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace drsim

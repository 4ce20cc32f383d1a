// A request the network swallows with no balancer to answer for it, from a
// caller with no timeout of its own: nothing acknowledges it, so the caller's
// kernel gives up at last (Linux defaults, models/data/tcp_config.h): after
// its SYN retries on a new connection (127 s), after tcp_retries2 on one it
// kept alive (924.6 s). The figures follow from those constants and the
// scenario's rates (self-consistency, not a published figure).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "models/data/tcp_config.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using test_support::series;

// The api lives in region far only; two populations in region near call it, 1 request a second each with
// no timeout, one opening a connection per request, one on kept-alive connections. The line between the
// regions is cut from 60 s to 360 s.
constexpr const char* kScenario = R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: unanswered
spec:
  duration: 1400s
  seed: 1
  metricsWindow: 1s
  topology:
    regions:
      - name: near
        zones: [{name: a}]
      - name: far
        zones: [{name: b}]
    links:
      - {name: near-far, between: [near, far], rtt: 20ms, bandwidth: 1Gbps}
    services:
      - name: api
        discovery: oracle
        concurrency: 10
        serviceTime: {kind: constant, value: 10ms}
        replicas: [{zone: b, replicas: 1}]
  load:
    - name: fresh
      service: api
      zone: a
      arrivals: deterministic
      load: {kind: constant, rate: 1rps}
      handshakeRoundTrips: 1
    - name: kept
      service: api
      zone: a
      arrivals: deterministic
      load: {kind: constant, rate: 1rps}
  timeline:
    - {name: cut, action: 'link:cut', target: {link: near-far}, at: 60s, duration: 300s}
)";

struct Failures {
  double count = 0, first_s = -1, last_s = -1;
};

Failures timeouts(const Recorder& rec, const char* population) {
  Failures f;
  for (const auto& [t, v] : series(rec, "client.failed", {{"cause", "timeout"}, {"population", population}})) {
    if (v <= 0) continue;
    f.count += v;
    const double s = static_cast<double>(t) / 1e9;
    if (f.first_s < 0) f.first_s = s;
    f.last_s = s;
  }
  return f;
}

TEST(UnansweredRequests, TheCallersKernelGivesUpAfterItsRetries) {
  const RunResult run = run_scenario(load_scenario_text(kScenario));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const TcpConfig linux_defaults;
  const double syn = to_seconds(syn_give_up(linux_defaults));                // 127 s
  const double retransmit = to_seconds(retransmission_give_up(linux_defaults));  // 924.6 s
  const Failures fresh = timeouts(run.recorder(), "fresh");
  const Failures kept = timeouts(run.recorder(), "kept");
  std::printf("new connections: %.0f failed from %.0f to %.0f s; kept alive: %.0f from %.0f to %.0f s\n",
              fresh.count, fresh.first_s, fresh.last_s, kept.count, kept.first_s, kept.last_s);
  // Every request sent during the 300 s cut (one a second, from 60 s to 359 s) fails its give-up after it
  // was sent, counted in the 1 s window it falls in.
  EXPECT_EQ(fresh.count, 300);
  EXPECT_EQ(fresh.first_s, std::floor(60 + syn));
  EXPECT_EQ(fresh.last_s, std::floor(359 + syn));
  EXPECT_EQ(kept.count, 300);
  EXPECT_EQ(kept.first_s, std::floor(60 + retransmit));
  EXPECT_EQ(kept.last_s, std::floor(359 + retransmit));
}

}  // namespace
}  // namespace drsim

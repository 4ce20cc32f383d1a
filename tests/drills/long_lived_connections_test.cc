// Long-lived connections ignore DNS until they close (ClientPopulation,
// `connections`): a DNS change reaches their traffic only as connections
// reach their maxLifetime, not after the TTL; a region failure resets the
// connections pinned to it, which reconnect at once through DNS.
#include <gtest/gtest.h>

#include <string>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::series;

// Users one hop from two regions; the api in both; weighted routing 1:1, DNS with a 5 s TTL at 100 resolvers
// and no client cache; 200 kept-alive connections living 2 min.
std::string scenario(const std::string& extra_population, const std::string& timeline) {
  return R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: long-lived-connections}
spec:
  topology:
    regions:
      - {name: users, zones: [{name: u1}]}
      - {name: east, zones: [{name: e1}]}
      - {name: west, zones: [{name: w1}]}
    links:
      - {name: users-east, between: [users, east], rtt: 20ms, bandwidth: 10Gbps}
      - {name: users-west, between: [users, west], rtt: 20ms, bandwidth: 10Gbps}
    services:
      - name: api
        concurrency: 50
        zoneFailure: refuse
        serviceTime: {kind: constant, value: 10ms}
        replicas: [{zone: e1, replicas: 4}, {zone: w1, replicas: 4}]
  duration: 12m
  seed: 3
  metricsWindow: 10s
  load:
    - name: users
      service: api
      zone: u1
      load: {kind: constant, rate: 100rps}
      timeout: 5s
      handshakeRoundTrips: 1
      routing:
        policy: weighted
        regions: [{region: east, weight: 1}, {region: west, weight: 1}]
        dns: {recordTtl: 5s, clientCacheTtl: 0s, clients: 100, resolvers: 100}
)" + extra_population + "  timeline:\n" + timeline;
}

constexpr double kT = 300;         // the change
constexpr double kTtl = 5;         // dns.recordTtl
constexpr double kLifetime = 120;  // connections.maxLifetime
constexpr double kWindow = 10;

double share(const std::map<std::int64_t, double>& part, const std::map<std::int64_t, double>& other, double from,
             double to) {
  double a = 0, b = 0;
  for (const auto& [t, v] : part) {
    if (t >= from * 1e9 && t < to * 1e9) a += v;
  }
  for (const auto& [t, v] : other) {
    if (t >= from * 1e9 && t < to * 1e9) b += v;
  }
  return a + b == 0 ? 0 : a / (a + b);
}

TEST(LongLivedConnections, ADnsChangeReachesThemOnlyAsTheyReachTheirLifetime) {
  const std::string drain =
      "    - {name: drain-east, action: routing:weight, target: {population: users, region: east}, weight: 0, at: "
      "300s}\n";
  const std::string pinned = "      connections: {count: 200, maxLifetime: 2m}\n";
  const RunResult with = run_scenario(load_scenario_text(scenario(pinned, drain)));
  const RunResult without = run_scenario(load_scenario_text(scenario("", drain)));
  auto east = [](const RunResult& r) { return series(r.recorder(), "service.arrivals", {{"zone", "e1"}}); };
  auto west = [](const RunResult& r) { return series(r.recorder(), "service.arrivals", {{"zone", "w1"}}); };
  // Without connections every request resolves: east is empty one TTL after the change.
  EXPECT_EQ(share(east(without), west(without), kT + kTtl + kWindow, 720), 0);
  // With them, a connection to east moves when it closes; ages are uniform over the lifetime, so east's
  // share at T + x is 1/2 x (1 - x / lifetime) (the TTL only delays the reconnections by up to 5 s).
  for (const double x : {10.0, 60.0}) {
    const double expected = 0.5 * (1 - (x + kWindow / 2) / kLifetime);
    const double measured = share(east(with), west(with), kT + x, kT + x + kWindow);
    EXPECT_NEAR(measured, expected, 0.08) << x << " s after";
    std::printf("east share %.0f s after the drain: %.3f (closed form %.3f)\n", x, measured, expected);
  }
  // The window [T + 10, T + 20) starts after the TTL (5 s): east still has most of its share.
  EXPECT_GT(share(east(with), west(with), kT + kWindow, kT + 2 * kWindow), 0.3) << "still there after the TTL";
  EXPECT_EQ(share(east(with), west(with), kT + kLifetime + kTtl + 2 * kWindow, 720), 0)
      << "gone once every connection has reached its lifetime";
  const Recorder::Kpi* opened = with.recorder().find_kpi("client.connections_opened", {{"population", "users"}});
  ASSERT_NE(opened, nullptr);
  // 200 connections renewed every 2 min over 12 min: about 200 x 6.
  EXPECT_NEAR(opened->value, 200 * 720 / kLifetime, 0.1 * 200 * 720 / kLifetime);
}

TEST(LongLivedConnections, ARegionFailureResetsThemAndTheyReconnectAtOnce) {
  const std::string fail = "    - {name: east-down, action: region:fail, target: {region: east}, at: 300s}\n";
  std::string text = scenario("      connections: {count: 200, maxLifetime: 1h}\n      retry: {attempts: 3}\n", fail);
  // Health checks take east out of the answer: (threshold - 1) to threshold x 10 s after the loss.
  const std::string dns_line = "        dns: {recordTtl: 5s, clientCacheTtl: 0s, clients: 100, resolvers: 100}\n";
  text.replace(text.find(dns_line), dns_line.size(),
               dns_line + "        healthCheck: {requestInterval: 10s, failureThreshold: 3, checkers: [u1]}\n");
  const RunResult run = run_scenario(load_scenario_text(text));
  const Recorder& rec = run.recorder();
  const auto resets = series(rec, "client.connection_resets", {{"population", "users"}});
  const auto east = series(rec, "service.arrivals", {{"zone", "e1"}});
  double resets_first = 0, resets_before = 0;
  for (const auto& [t, v] : resets) {
    if (t < kT * 1e9) resets_before += v;
    if (t >= kT * 1e9 && t < (kT + 2 * kWindow) * 1e9) resets_first += v;
  }
  EXPECT_EQ(resets_before, 0);
  // About half the 200 connections were pinned to east; each request rate per connection is 0.5/s, so
  // nearly all of them are used, fail and are reset within 20 s (not after the 1 h lifetime).
  EXPECT_GE(resets_first, 80);
  // Once the health check has taken east out (<= 30 s) and the TTL has passed, nothing goes there.
  double late = 0;
  for (const auto& [t, v] : east) {
    if (t >= (kT + 30 + kTtl + kWindow) * 1e9) late += v;
  }
  EXPECT_EQ(late, 0);
  // More resets than east's ~100 connections: until the health check has acted, half the reconnections
  // still resolve to east, fail and are reset again.
  std::printf("region failure: %.0f connection resets in the first 20 s\n", resets_first);
}

}  // namespace
}  // namespace drsim

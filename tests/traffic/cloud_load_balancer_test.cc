// A cloud load balancer in front of a service (models/service/cloud_load_balancer.h),
// on the timeline: a lost zone's targets leave after their failed health
// checks, its node after the DNS's checks and the callers' TTL, and the
// requests lost meanwhile are what those windows imply. The bands checked
// here are self-consistency checks: they come from the balancer's own
// settings (models/service/load_balancer_bounds.h), not from a published figure.
#include "models/service/cloud_load_balancer.h"
#include "models/service/load_balancer_bounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <optional>
#include <string>
#include <vector>

#include "io/run.h"
#include "io/scenario_error.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"
#include "tests/drills/run_text.h"

namespace drsim {
namespace {

using test_support::run_text;

using namespace std::chrono_literals;
using test_support::series;

// Zones a, b, c with 2 pods of the api each, behind a load balancer (the
// default) unless service_extra says otherwise, 60 evenly spaced requests a
// second with a 2 s timeout; zone a is lost at 60 s for 5 minutes.
std::string zone_loss(std::uint64_t seed, const std::string& service_extra = "") {
  return R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: lb
spec:
  seed: )" + std::to_string(seed) +
         R"(
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
          - {zone: c, replicas: 2}
        concurrency: 4
        serviceTime: {kind: constant, value: 10ms}
)" + service_extra +
         R"(  duration: 10m
  metricsWindow: 1s
  load:
    - name: users
      service: api
      load: {kind: constant, rate: 60rps}
      timeout: 2s
      arrivals: deterministic
  timeline:
    - {name: lose-a, action: zone:fail, target: {zone: a}, at: 1m, duration: 5m}
)";
}

std::vector<double> event_times(const Recorder& rec, std::string_view kind, std::string_view text = "") {
  std::vector<double> out;
  for (std::size_t i = 0; i < rec.events().size(); ++i) {
    if (rec.events().kind[i] == kind && rec.events().detail[i].find(text) != std::string::npos) {
      out.push_back(static_cast<double>(rec.events().t_ns[i]) / 1e9);
    }
  }
  return out;
}

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

// Requests lost when zone a (a third of the nodes, two of six targets) dies
// at `fault`: its node takes a third of the requests until the DNS drops it
// at `removed`, then a share that falls to nothing over the TTL as callers
// resolve again; the live nodes send to the zone's targets (2 of 6, then 1 of
// 5) until each leaves at its own time.
double expected_lost(double rate, double fault, double removed, double ttl, double first_out, double second_out) {
  double lost = 0;
  const double dt = 0.001;
  for (double t = fault; t < removed + ttl + 1 || t < second_out + 1; t += dt) {
    double node = 1.0 / 3;
    if (t >= removed) node *= std::max(0.0, 1 - (t - removed) / ttl);
    const double target = t < first_out ? 2.0 / 6 : t < second_out ? 1.0 / 5 : 0.0;
    lost += rate * dt * (node + (1 - node) * target);
  }
  return lost;
}

TEST(CloudLoadBalancer, ALostZoneLeavesAfterItsFailedChecksAndTheCallersTtl) {
  const LoadBalancerSettings alb = LoadBalancerConfig{}.resolved();
  const DelayRange targets = target_unhealthy_delay_range(alb);
  const DelayRange nodes = node_removed_delay_range(alb);
  // ALB: 2 failures 30 s apart, 5 s timeout: (35, 65] s; the node: 3 checks 10 s apart, 4 s timeout: (24, 34] s.
  EXPECT_EQ(targets.above, 35s);
  EXPECT_EQ(targets.at_most, 65s);
  EXPECT_EQ(nodes.above, 24s);
  EXPECT_EQ(nodes.at_most, 34s);
  const double ttl = seconds(alb.dns_ttl);
  // The band from the settings alone: every detection at its earliest, and at its latest.
  const double low = expected_lost(60, 60, 60 + seconds(nodes.above), ttl, 60 + seconds(targets.above),
                                   60 + seconds(targets.above));
  const double high = expected_lost(60, 60, 60 + seconds(nodes.at_most), ttl, 60 + seconds(targets.at_most),
                                    60 + seconds(targets.at_most));
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const RunResult run = run_text(zone_loss(seed));
    const Recorder& rec = run.simulation->recorder();
    const std::vector<double> out = event_times(rec, "lb.target_unhealthy");
    ASSERT_EQ(out.size(), 2u) << seed;  // zone a's two pods, nobody else's
    EXPECT_EQ(event_times(rec, "lb.target_unhealthy", "(zone a)").size(), 2u);
    for (const double t : out) {
      EXPECT_GT(t, 60 + seconds(targets.above)) << seed;
      EXPECT_LE(t, 60 + seconds(targets.at_most)) << seed;
    }
    const std::vector<double> removed = event_times(rec, "lb.node_removed", "node in zone a");
    ASSERT_EQ(removed.size(), 1u) << seed;
    EXPECT_GT(removed[0], 60 + seconds(nodes.above)) << seed;
    EXPECT_LE(removed[0], 60 + seconds(nodes.at_most)) << seed;
    // Back at 6 m: the node after 3 passed checks (within 30 s), the targets after 5 (within 150 s).
    const std::vector<double> restored = event_times(rec, "lb.node_restored");
    ASSERT_EQ(restored.size(), 1u);
    EXPECT_GT(restored[0], 360.0 + 20);
    EXPECT_LE(restored[0], 360.0 + 30);
    for (const double t : event_times(rec, "lb.target_healthy")) {
      EXPECT_GT(t, 360.0 + 120) << seed;
      EXPECT_LE(t, 360.0 + 150) << seed;
    }
    // What was lost: every request into the dead node or its targets, timed out 2 s later.
    const double lost = rec.find_kpi("client.failed", {{"cause", "timeout"}, {"population", "users"}})->value;
    // Against the simulated detection times: the node entry is a draw per request, so binomial noise.
    const double expected = expected_lost(60, 60, removed[0], ttl, out[0], out[1]);
    EXPECT_NEAR(lost, expected, 4 * std::sqrt(expected / 3) + 3) << seed;
    // Against the settings alone.
    EXPECT_GE(lost, low - 4 * std::sqrt(low / 3) - 3) << seed;
    EXPECT_LE(lost, high + 4 * std::sqrt(high / 3) + 3) << seed;
    // Nothing else fails: the other zones have room for the whole load.
    EXPECT_EQ(rec.find_kpi("client.failed", {{"cause", "refused"}, {"population", "users"}})->value, 0) << seed;
  }
  // Over seconds of detection the loss is thousands of requests, not the oracle's one or two.
  EXPECT_GT(low, 1000);
}

// The same for any loss: the lost nodes take node_share of the requests until the DNS drops them at
// `removed` (then less and less over the TTL), and the live nodes send target_share of theirs to the lost
// targets until they leave at `out`.
double expected_loss(double rate, double fault, double node_share, double removed, double ttl, double target_share,
                     double out) {
  double lost = 0;
  const double dt = 0.001;
  for (double t = fault; t < std::max(removed + ttl, out) + 1; t += dt) {
    double node = node_share;
    if (t >= removed) node *= std::max(0.0, 1 - (t - removed) / ttl);
    const double target = t < out ? target_share : 0.0;
    lost += rate * dt * (node + (1 - node) * target);
  }
  return lost;
}

double timeouts_between(const Recorder& rec, double from_s, double to_s) {
  double sum = 0;
  for (const auto& [t, v] : series(rec, "client.failed", {{"cause", "timeout"}, {"population", "checkout"}})) {
    if (t >= from_s * 1e9 && t < to_s * 1e9) sum += v;
  }
  return sum;
}

TEST(CloudLoadBalancer, TheDefaultDrillsZoneAndRegionLossesAreInsideTheirBands) {
  // scenarios/default.yaml, payments behind its balancer (the default): 300 rps (Poisson) to payments, 3 pods in each of 9 zones behind one cross-zone
  // balancer with the ALB defaults. The bands come from the settings alone: every detection at its earliest,
  // then at its latest; the loss is Poisson, so 4 standard deviations either side.
  const LoadBalancerSettings alb = LoadBalancerConfig{}.resolved();
  const DelayRange targets = target_unhealthy_delay_range(alb);
  const DelayRange nodes = node_removed_delay_range(alb);
  const double ttl = seconds(alb.dns_ttl);
  const auto band = [&](double node_share, double target_share) {
    const double low = expected_loss(300, 0, node_share, seconds(nodes.above), ttl, target_share, seconds(targets.above));
    const double high =
        expected_loss(300, 0, node_share, seconds(nodes.at_most), ttl, target_share, seconds(targets.at_most));
    return std::pair{low - 4 * std::sqrt(low), high + 4 * std::sqrt(high)};
  };
  const RunResult run = run_scenario(load_scenario_file("scenarios/default.yaml"));
  const Recorder& rec = run.simulation->recorder();
  // The balancers are regional: checkout (outside the topology) enters a node of any region, and a live
  // node sends to its own region's targets only.
  // north-a at 10 m: 1 node of 9; of the 8 live nodes the 2 in north send a third of theirs to north-a's
  // targets (3 of north's 9). Its errors end within 2 minutes (1 m windows).
  const auto [zone_low, zone_high] = band(1.0 / 9, 2.0 / 8 * 3.0 / 9);
  const double zone = timeouts_between(rec, 600, 840);
  EXPECT_GE(zone, zone_low);
  EXPECT_LE(zone, zone_high);
  // The north region at 45 m: 3 nodes of 9; no live node sends to its targets.
  const auto [region_low, region_high] = band(3.0 / 9, 0);
  const double region = timeouts_between(rec, 2700, 2940);
  EXPECT_GE(region, region_low);
  EXPECT_LE(region, region_high);
  // Nothing fails outside those windows but the link faults' few.
  EXPECT_EQ(timeouts_between(rec, 840, 2700), 0);
  EXPECT_EQ(timeouts_between(rec, 2940, 4800), 0);
  RecordProperty("zone_loss", std::to_string(zone) + " in [" + std::to_string(zone_low) + ", " +
                                  std::to_string(zone_high) + "]");
  RecordProperty("region_loss", std::to_string(region) + " in [" + std::to_string(region_low) + ", " +
                                    std::to_string(region_high) + "]");
  std::printf("zone loss %.0f in [%.0f, %.0f]; region loss %.0f in [%.0f, %.0f]\n", zone, zone_low, zone_high,
              region, region_low, region_high);
}

// A web tier in zones b and c calls the api (in a, b and c, behind a balancer of the given type) with no
// timeout of its own; the users wait up to 10 minutes. Zone a is lost at 60 s for 5 minutes.
std::string untimed_calls(const std::string& type) {
  return R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: untimed
spec:
  seed: 2
  topology:
    regions:
      - name: r
        zones: [{name: a}, {name: b}, {name: c}]
        interZoneRtt: 1ms
    services:
      - name: web
        discovery: oracle
        replicas:
          - {zone: b, replicas: 2}
          - {zone: c, replicas: 2}
        concurrency: 200
        serviceTime: {kind: constant, value: 1ms}
        calls:
          - service: api
      - name: api
        loadBalancer: {type: )" + type + R"(}
        replicas:
          - {zone: a, replicas: 2}
          - {zone: b, replicas: 2}
          - {zone: c, replicas: 2}
        concurrency: 8
        serviceTime: {kind: constant, value: 10ms}
  duration: 10m
  metricsWindow: 10s
  load:
    - name: users
      service: web
      load: {kind: constant, rate: 60rps}
      timeout: 10m
      arrivals: deterministic
  timeline:
    - {name: lose-a, action: zone:fail, target: {zone: a}, at: 1m, duration: 5m}
)";
}

double failed(const Recorder& rec, const std::string& cause) {
  return rec.find_kpi("client.failed", {{"cause", cause}, {"population", "users"}})->value;
}

TEST(CloudLoadBalancer, NoCallWaitsForeverBehindABalancer) {
  // alb: calls into the dead zone's targets are answered 504 (10 s after they are sent, or the 60 s idle
  // timeout for those its pods held); calls into its dead node give up with the web pods' connect (127 s).
  // Every one of them is a failure the users see as the web's 5xx; nothing is left in flight.
  const RunResult alb = run_text(untimed_calls("alb"));
  const Recorder& rec = alb.simulation->recorder();
  EXPECT_GT(failed(rec, "dependency"), 500);
  EXPECT_EQ(failed(rec, "timeout"), 0);
  // Only the last few milliseconds' requests are still in flight at the end.
  EXPECT_LE(test_support::kpi(rec, "client.in_flight", {{"population", "users"}}), 2);
  // The last failure is a connect into the dead node just before callers let go of it: at most
  // 60 + 34 + 60 + 127 s after the start (1 s windows would say more; 10 s windows: up to 290 s).
  double last = 0;
  for (const auto& [t, v] : series(rec, "client.failed", {{"cause", "dependency"}, {"population", "users"}})) {
    if (v > 0) last = static_cast<double>(t) / 1e9;
  }
  EXPECT_GT(last, 60 + 127);
  EXPECT_LE(last, 60 + 34 + 60 + 127);
  // nlb: no 504s; the dead targets and the dead node both leave the web pods' connects to time out.
  const RunResult nlb = run_text(untimed_calls("nlb"));
  const Recorder& rec2 = nlb.simulation->recorder();
  EXPECT_GT(failed(rec2, "dependency"), 500);
  double first = 1e9;
  for (const auto& [t, v] : series(rec2, "client.failed", {{"cause", "dependency"}, {"population", "users"}})) {
    if (v > 0) first = std::min(first, static_cast<double>(t) / 1e9);
  }
  EXPECT_GE(first, 180.0);  // 60 + 127 s, in the window that starts at 180 s
  EXPECT_LE(test_support::kpi(rec2, "client.in_flight", {{"population", "users"}}), 2);
  std::printf("alb: %.0f failed, last in the window at %.0f s; nlb: %.0f failed, first at %.0f s\n",
              failed(rec, "dependency"), last, failed(rec2, "dependency"), first);
}

TEST(CloudLoadBalancer, RefusingZonesAreRefusedInsteadOfTimingOut) {
  const RunResult run = run_text(zone_loss(1, "        zoneFailure: refuse\n"));
  const Recorder& rec = run.simulation->recorder();
  // The dead node's share is reset at once; what the live nodes send to the dead targets, the alb answers
  // 502 at once (a 5xx: cause dependency).
  EXPECT_GT(rec.find_kpi("client.failed", {{"cause", "refused"}, {"population", "users"}})->value, 1000);
  EXPECT_GT(rec.find_kpi("client.failed", {{"cause", "dependency"}, {"population", "users"}})->value, 300);
  EXPECT_EQ(rec.find_kpi("client.failed", {{"cause", "timeout"}, {"population", "users"}})->value, 0);
}

TEST(CloudLoadBalancer, AZonalBalancerSharesByNodeAndDropsAZoneWithoutHealthyTargets) {
  // nlb: no cross-zone, so each node's zone gets a third of the requests whatever its pods; zone a's node
  // leaves the answer at its failed node checks or when its targets are all unhealthy, whichever is first.
  const RunResult run = run_text(zone_loss(3, "        loadBalancer: {type: nlb}\n"));
  const Recorder& rec = run.simulation->recorder();
  const auto b = series(rec, "service.arrivals", {{"service", "api"}, {"zone", "b"}});
  const auto c = series(rec, "service.arrivals", {{"service", "api"}, {"zone", "c"}});
  const auto a = series(rec, "service.arrivals", {{"service", "api"}, {"zone", "a"}});
  double before_a = 0, before_b = 0;
  for (const auto& [t, v] : a) before_a += t < 60'000'000'000 ? v : 0;
  for (const auto& [t, v] : b) before_b += t < 60'000'000'000 ? v : 0;
  EXPECT_NEAR(before_a / 3600, 1.0 / 3, 0.03);
  EXPECT_NEAR(before_b / 3600, 1.0 / 3, 0.03);
  const std::vector<double> removed = event_times(rec, "lb.node_removed", "node in zone a");
  ASSERT_FALSE(removed.empty());
  EXPECT_LE(removed[0], 60 + 34.0);
  // A minute after the TTL the last caller has let go of zone a: nothing more arrives there until it is back.
  double late = 0;
  for (const auto& [t, v] : a) late += (t >= (removed[0] + 61) * 1e9 && t < 360e9) ? v : 0;
  EXPECT_EQ(late, 0);
  (void)c;
}

TEST(CloudLoadBalancer, ANewTargetGetsTrafficOnlyAfterItsHealthyChecks) {
  std::string text = zone_loss(1);
  text += "    - {name: grow, action: service:scale, target: {service: api, zone: b}, replicas: 3, at: 8m}\n";
  const RunResult run = run_text(text);
  const Recorder& rec = run.simulation->recorder();
  // The third pod of b registers at 480 s; 5 passed checks 30 s apart, the first within one interval.
  const std::vector<double> healthy = event_times(rec, "lb.target_healthy", "api-b-2");
  ASSERT_EQ(healthy.size(), 1u);
  EXPECT_GE(healthy[0], 480.0 + 4 * 30);
  EXPECT_LT(healthy[0], 480.0 + 5 * 30);
}

TEST(CloudLoadBalancer, SettingsAreCheckedWithWhereTheyAre) {
  try {
    (void)load_scenario_text(zone_loss(1, "        loadBalancer: {interval: 5s, timeout: 5s}\n"));
    FAIL() << "accepted a timeout as long as the interval";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("timeout (5s) must be less than the interval (5s)"), std::string::npos)
        << e.what();
  }
  try {
    (void)load_scenario_text(zone_loss(1, "        discovery: oracle\n        loadBalancer: {type: alb}\n"));
    FAIL() << "accepted a load balancer on the oracle";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("applies to discovery loadBalancer"), std::string::npos) << e.what();
  }
}

TEST(CloudLoadBalancer, TheOracleSaysSo) {
  const RunResult lb = run_text(zone_loss(1));
  EXPECT_EQ(event_times(lb.simulation->recorder(), "lb.settings", "api: cross-zone load balancer").size(), 1u);
  const RunResult oracle = run_text(zone_loss(1, "        discovery: oracle\n"));
  const Recorder& rec = oracle.simulation->recorder();
  EXPECT_EQ(event_times(rec, "discovery.path", "api: oracle").size(), 1u);
  EXPECT_LE(rec.find_kpi("client.failed", {{"cause", "timeout"}, {"population", "users"}})->value, 2);
}

}  // namespace
}  // namespace drsim

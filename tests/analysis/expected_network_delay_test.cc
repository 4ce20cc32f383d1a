// The check's mean network delay against the simulator's own sampler
// (NetworkModel::sample_one_way, averaged by Monte Carlo) and against
// closed forms where there are some.
#include "analysis/expected_network_delay.h"

#include <gtest/gtest.h>

#include <cmath>

#include "models/topology/failure_domains.h"
#include "models/topology/network_model.h"
#include "sim/rng.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Regions r1 (zones a, b; 2 ms apart) and r2 (zone c) joined by one link.
TopologyConfig two_regions(Duration rtt, Duration jitter, double loss) {
  TopologyConfig t;
  t.regions = {RegionConfig{"r1", {ZoneConfig{"a"}, ZoneConfig{"b"}}, 2ms}, RegionConfig{"r2", {ZoneConfig{"c"}}, 1ms}};
  t.links = {LinkConfig{"r1-r2", {"r1", "r2"}, rtt, jitter, Bandwidth{10e9}, Ratio{loss}}};
  return t;
}

double sampled_mean(const TopologyConfig& config, ZoneIndex from, ZoneIndex to, int samples, double* std_error) {
  const FailureDomains domains("topology", Topology(config));
  RngStream rng(99, "network-mean");
  double sum = 0, sum2 = 0;
  for (int i = 0; i < samples; ++i) {
    const double d = to_seconds(*domains.network().sample_one_way(from, to, rng));
    sum += d;
    sum2 += d * d;
  }
  const double mean = sum / samples;
  *std_error = std::sqrt((sum2 / samples - mean * mean) / samples);
  return mean;
}

TEST(ExpectedNetworkDelay, WithoutJitterOrLossItIsHalfTheRoundTrip) {
  const Topology topo(two_regions(40ms, 0ms, 0));
  const TopologyState state = topo.nominal_state();
  // a -> c: half of 1 ms (a to r1's hub) + 20 ms + half of 0.5 ms.
  EXPECT_EQ(expected_one_way_delay(topo, state, 0, 2), 20750us);
  EXPECT_EQ(expected_round_trip(topo, state, 0, 2), 41500us);
  EXPECT_EQ(expected_round_trip(topo, state, 0, 1), 2ms);
  EXPECT_EQ(expected_round_trip(topo, state, 0, 0), 0ms);
}

TEST(ExpectedNetworkDelay, UnreachableWhenAnEndIsDownOrThereIsNoRoute) {
  const Topology topo(two_regions(40ms, 0ms, 0));
  TopologyState state = topo.nominal_state();
  state.zone_up[2] = false;
  EXPECT_FALSE(expected_round_trip(topo, state, 0, 2).has_value());
  TopologyConfig islands = two_regions(40ms, 0ms, 0);
  islands.links.clear();
  const Topology apart(islands);
  EXPECT_FALSE(expected_one_way_delay(apart, apart.nominal_state(), 0, 2).has_value());
}

TEST(ExpectedNetworkDelay, JitterAndLossMatchTheSimulatorsSampler) {
  // Jitter large against the delay (its floor at half the delay matters),
  // and loss that makes TCP resend after 200 ms and more.
  for (const auto& [rtt, jitter, loss] : {std::tuple{40ms, 2ms, 0.005}, std::tuple{6ms, 3ms, 0.0},
                                          std::tuple{10ms, 4ms, 0.03}}) {
    const TopologyConfig config = two_regions(rtt, jitter, loss);
    const Topology topo(config);
    double se = 0;
    const double sampled = sampled_mean(config, 0, 2, 400000, &se);
    const double expected = to_seconds(*expected_one_way_delay(topo, topo.nominal_state(), 0, 2));
    EXPECT_NEAR(expected, sampled, 4 * se + 1e-9) << to_seconds(rtt) << " " << to_seconds(jitter) << " " << loss;
  }
}

}  // namespace
}  // namespace drsim

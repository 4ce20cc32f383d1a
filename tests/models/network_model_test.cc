#include "models/topology/network_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/simulation.h"
#include "tests/models/topology_fixture.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

struct Fixture {
  Simulation sim;
  FailureDomains* domains = nullptr;
  explicit Fixture(TopologyConfig config = testing::three_region_config()) {
    domains = &sim.add<FailureDomains>("topology", Topology(std::move(config)));
    sim.initialize();
  }
};

TEST(NetworkModel, OneWayIsHalfTheShortestRoundTrip) {
  Fixture f;
  NetworkModel net(*f.domains);
  EXPECT_EQ(net.path(0, 1).one_way, 1ms);             // same region: 2 ms RTT
  EXPECT_EQ(net.path(0, 2).one_way, 14750us);         // 29.5 ms RTT via r1-r2
  EXPECT_EQ(net.path(0, 0).one_way, 0ms);
  EXPECT_EQ(net.path(0, 2).initial_rto, 200ms);       // the floor
  EXPECT_DOUBLE_EQ(net.path(0, 2).loss, 0.0);
}

TEST(NetworkModel, FollowsFailuresAndDegradationAfterRefresh) {
  Fixture f;
  NetworkModel net(*f.domains);
  f.domains->degrade_link(0, LinkDegradation{100ms, Ratio{0.1}, std::nullopt});
  net.refresh();
  // r1-r2 now 128 ms: the route from a to c goes r1-r3-r2 (38 + 22).
  EXPECT_EQ(net.path(0, 2).one_way, 30750us);
  EXPECT_DOUBLE_EQ(net.path(0, 2).loss, 0.0);
  f.domains->cut_link(2);
  net.refresh();
  EXPECT_EQ(net.path(0, 2).one_way, 64750us);  // back over the degraded line
  EXPECT_DOUBLE_EQ(net.path(0, 2).loss, 0.1);
  f.domains->cut_link(0);
  net.refresh();
  EXPECT_FALSE(net.path(0, 2).reachable);
  RngStream rng(1, "t");
  EXPECT_FALSE(net.sample_one_way(0, 2, rng).has_value());
}

TEST(NetworkModel, LossAddsTheExpectedRetransmissionDelay) {
  Fixture f;
  f.domains->degrade_link(0, LinkDegradation{Duration::zero(), Ratio{0.05}, std::nullopt});
  NetworkModel net(*f.domains);
  const NetworkPath& p = net.path(0, 2);
  ASSERT_NEAR(p.loss, 0.05, 1e-12);  // 1 - (1 - 0.05): rounding in the last bits
  // Closed form: 0.05 x 200 ms + 0.0025 x 400 ms + ... = 11.1 ms.
  EXPECT_NEAR(to_seconds(NetworkModel::expected_loss_delay(p)), 0.05 * 0.2 / (1 - 0.1), 1e-6);  // geometric: p RTO / (1 - 2p)
  RngStream rng(7, "loss");
  constexpr int kSamples = 400'000;
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double extra = to_seconds(*net.sample_one_way(0, 2, rng) - p.one_way);
    sum += extra;
    sum_sq += extra * extra;
  }
  const double mean = sum / kSamples;
  const double sd = std::sqrt(sum_sq / kSamples - mean * mean);
  EXPECT_NEAR(mean, to_seconds(NetworkModel::expected_loss_delay(p)), 4 * sd / std::sqrt(double(kSamples)));
}

TEST(NetworkModel, JitterAddsInVarianceAlongTheRoute) {
  TopologyConfig config = testing::three_region_config();
  config.links[0].jitter = 3ms;
  config.links[1].jitter = 4ms;
  config.links[2].rtt = 200ms;  // force a to d through r2: both jittery links
  Fixture f(config);
  NetworkModel net(*f.domains);
  EXPECT_EQ(net.path(0, 3).jitter, 5ms);
  RngStream rng(3, "jitter");
  double sum = 0;
  for (int i = 0; i < 100'000; ++i) sum += to_seconds(*net.sample_one_way(0, 3, rng));
  EXPECT_NEAR(sum / 100'000, to_seconds(net.path(0, 3).one_way), 5e-3 * 4 / std::sqrt(100'000.0));
}

// sample_delay is sample_one_way without the optional: the same draws from
// the same stream, kUndelivered where sample_one_way has nullopt (an
// unreachable zone, or a sender that gave up after too many losses).
TEST(NetworkModel, SampleDelayIsSampleOneWayWithASentinel) {
  TopologyConfig config = testing::three_region_config();
  config.links[0].jitter = 3ms;
  Fixture f(config);
  f.domains->degrade_link(1, LinkDegradation{Duration::zero(), Ratio{0.8}, std::nullopt});  // r2-r3: mostly lost
  NetworkModel net(*f.domains);
  RngStream a(9, "same"), b(9, "same");
  int undelivered = 0;
  for (int i = 0; i < 20'000; ++i) {
    const ZoneIndex from = static_cast<ZoneIndex>(i % 4), to = static_cast<ZoneIndex>((i / 4) % 4);
    const std::optional<Duration> one_way = net.sample_one_way(from, to, a);
    const Duration delay = net.sample_delay(from, to, b);
    if (one_way) {
      ASSERT_EQ(delay, *one_way);
    } else {
      ASSERT_EQ(delay, NetworkModel::kUndelivered);
      ++undelivered;
    }
  }
  EXPECT_GT(undelivered, 0);  // 0.8^16 = 3% of deliveries over r2-r3: some senders gave up
  f.domains->cut_link(0);
  f.domains->cut_link(2);
  net.refresh();
  EXPECT_EQ(net.sample_delay(0, 2, b), NetworkModel::kUndelivered);  // r1 is cut off
}

}  // namespace
}  // namespace drsim

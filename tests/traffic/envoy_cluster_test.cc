// One sidecar's view of one upstream service (models/service/envoy_cluster.h),
// driven by hand: the figures are Envoy's documented rules applied to the
// settings (priority load with the overprovisioning factor, the panic
// threshold, consecutive-5xx ejection within max_ejection_percent, ejection
// time = base x times ejected, returned at a sweep of the interval timer,
// active health check thresholds).
#include "models/service/envoy_cluster.h"

#include <gtest/gtest.h>

#include <map>

#include "models/service/service.h"
#include "models/topology/failure_domains.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Region r: zones a, b, c; region s: zone d.
TopologyConfig two_regions() {
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}, ZoneConfig{"b"}, ZoneConfig{"c"}}, 1ms},
               RegionConfig{"s", {ZoneConfig{"d"}}, 1ms}};
  return t;
}

ServiceConfig upstream_config(std::vector<ReplicasConfig> replicas) {
  ServiceConfig sc;
  sc.name = "ledger";
  sc.replicas = std::move(replicas);
  sc.concurrency = 4;
  sc.service_time.kind = "constant";
  sc.service_time.value = 10ms;
  return sc;
}

struct Fixture {
  explicit Fixture(std::vector<ReplicasConfig> replicas, MeshConfig mesh = {})
      : config(std::move(mesh)),
        domains(sim.add<FailureDomains>("topology", Topology(two_regions()))),
        upstream(sim.add<Service>(upstream_config(std::move(replicas)), &domains)),
        rng(7, "sidecar") {
    // Endpoints as Kubernetes lists them: by readiness, which nothing changes here, so a dead zone's pods stay
    // listed and only the sidecar's own detection takes them out.
    upstream.use_kube_proxy(1s);
    // The sidecar sits in zone a of region r.
    envoy = std::make_unique<EnvoyCluster>(config, upstream, ZoneIndex{0}, RegionIndex{0}, sim, 0, rng);
    sim.run_until(SimTime{0s});
    envoy->start();
  }
  // Picks n hosts; counts per pod id.
  std::map<std::size_t, int> picks(int n) {
    std::map<std::size_t, int> count;
    for (int i = 0; i < n; ++i) ++count[*envoy->pick()];
    return count;
  }
  void fail(std::size_t host, std::uint32_t times) {
    for (std::uint32_t i = 0; i < times; ++i) {
      envoy->sent(host);
      envoy->ended(host, EnvoyCluster::Result::kFailure);
    }
  }

  MeshConfig config;
  Simulation sim;
  FailureDomains& domains;
  Service& upstream;
  RngStream rng;
  std::unique_ptr<EnvoyCluster> envoy;
};

int in(const std::map<std::size_t, int>& count, std::size_t first, std::size_t last) {
  int n = 0;
  for (const auto& [pod, k] : count) n += pod >= first && pod <= last ? k : 0;
  return n;
}

TEST(EnvoyCluster, AHealthyLocalZoneTakesAllTheTraffic) {
  // Pods 0-2 in a (the sidecar's zone), 3-5 in b, 6 in d.
  Fixture f({{"a", 3}, {"b", 3}, {"d", 1}});
  const auto count = f.picks(3000);
  EXPECT_EQ(in(count, 0, 2), 3000);
}

TEST(EnvoyCluster, ALocalityBelowItsOverprovisionedShareSpillsTheRest) {
  // One of a's three hosts ejected: a offers min(1, 1.4 x 2/3) = 93.3% of the traffic, b takes the rest.
  Fixture f({{"a", 3}, {"b", 3}, {"d", 1}});
  f.config.outlier_detection.max_ejection_percent = 100;
  f.fail(0, 5);
  ASSERT_TRUE(f.envoy->ejected(0));
  const auto count = f.picks(30000);
  EXPECT_EQ(count.count(0), 0u);
  const double local = in(count, 1, 2) / 30000.0;
  EXPECT_NEAR(local, 1.4 * 2 / 3, 0.01);  // binomial sd 0.0015
  EXPECT_NEAR(in(count, 3, 5) / 30000.0, 1 - 1.4 * 2 / 3, 0.01);
  EXPECT_EQ(count.count(6), 0u);  // the region's zones cover the rest: none for the other region
}

TEST(EnvoyCluster, ALocalityWithoutHealthyHostsFailsOverToTheRegionThenTheRest) {
  Fixture f({{"a", 1}, {"b", 1}, {"d", 1}});
  f.config.outlier_detection.max_ejection_percent = 100;
  f.fail(0, 5);
  EXPECT_EQ(in(f.picks(1000), 1, 1), 1000);
  f.fail(1, 5);
  EXPECT_EQ(in(f.picks(1000), 2, 2), 1000);
}

TEST(EnvoyCluster, FiveConsecutiveFailuresEjectAndASuccessResetsTheCount) {
  Fixture f({{"a", 2}});
  f.config.outlier_detection.max_ejection_percent = 100;
  f.fail(0, 4);
  f.envoy->sent(0);
  f.envoy->ended(0, EnvoyCluster::Result::kSuccess);
  f.fail(0, 4);
  EXPECT_FALSE(f.envoy->ejected(0));
  // A request its caller abandoned teaches the detector nothing: the count goes on.
  f.envoy->sent(0);
  f.envoy->ended(0, EnvoyCluster::Result::kAbandoned);
  EXPECT_FALSE(f.envoy->ejected(0));
  f.fail(0, 1);
  EXPECT_TRUE(f.envoy->ejected(0));
  EXPECT_EQ(f.envoy->ejections(), 1u);
}

TEST(EnvoyCluster, MaxEjectionPercentCapsEjectionsButOneIsAlwaysAllowed) {
  // Ten hosts, 10%: the first ejection is 10% and allowed, a second would be 20%.
  Fixture f({{"a", 10}});
  f.fail(0, 5);
  f.fail(1, 5);
  EXPECT_TRUE(f.envoy->ejected(0));
  EXPECT_FALSE(f.envoy->ejected(1));
  // Two hosts at 10%: the first ejection is 50%, allowed anyway as the only one.
  Fixture g({{"a", 2}});
  g.fail(0, 5);
  EXPECT_TRUE(g.envoy->ejected(0));
}

TEST(EnvoyCluster, AnEjectedHostReturnsAtTheFirstSweepAfterBaseTimesItsEjections) {
  Fixture f({{"a", 2}});
  // Ejected at 3 s: 30 s is over at 33 s, and the sweeps run every 10 s from the sidecar's start: back at 40 s.
  f.sim.run_until(SimTime{3s});
  f.fail(0, 5);
  f.sim.run_until(SimTime{39s});
  EXPECT_TRUE(f.envoy->ejected(0));
  f.sim.run_until(SimTime{40s});
  EXPECT_FALSE(f.envoy->ejected(0));
  // Ejected again at 41 s, its second time: 60 s, over at 101 s, back at the 110 s sweep.
  f.sim.run_until(SimTime{41s});
  f.fail(0, 5);
  f.sim.run_until(SimTime{109s});
  EXPECT_TRUE(f.envoy->ejected(0));
  f.sim.run_until(SimTime{110s});
  EXPECT_FALSE(f.envoy->ejected(0));
}

TEST(EnvoyCluster, UnderThePanicThresholdALocalitySendsToAllItsHosts) {
  MeshConfig mesh;
  mesh.locality = "none";
  mesh.outlier_detection.max_ejection_percent = 100;
  // Two of four ejected: 1.4 x 50% = 70% available, short of 100%, but 50% healthy is not under the threshold:
  // the healthy two only.
  Fixture f({{"a", 4}}, mesh);
  f.fail(0, 5);
  f.fail(1, 5);
  auto count = f.picks(2000);
  EXPECT_EQ(in(count, 2, 3), 2000);
  // Three of four: 25% healthy, under 50%: panic, all four.
  f.fail(2, 5);
  count = f.picks(4000);
  for (std::size_t p = 0; p < 4; ++p) EXPECT_NEAR(count[p], 1000, 120) << "pod " << p;
}

TEST(EnvoyCluster, LeastRequestAvoidsAHostHoldingRequests) {
  MeshConfig mesh;
  mesh.locality = "none";
  Fixture f({{"a", 4}}, mesh);
  // Host 0 holds 10 requests that never end (a black hole): of two random draws it loses unless both are it,
  // so it gets 1/16 of the picks.
  for (int i = 0; i < 10; ++i) f.envoy->sent(0);
  const auto count = f.picks(16000);
  EXPECT_NEAR(count.at(0), 1000, 120);
}

TEST(EnvoyCluster, ANewConnectionAfterAFailureAndReuseAfterASuccess) {
  Fixture f({{"a", 1}});
  EXPECT_TRUE(f.envoy->needs_connection(0));
  f.envoy->sent(0);
  f.envoy->ended(0, EnvoyCluster::Result::kSuccess);
  EXPECT_FALSE(f.envoy->needs_connection(0));
  f.envoy->sent(0);
  f.envoy->ended(0, EnvoyCluster::Result::kAbandoned);
  EXPECT_TRUE(f.envoy->needs_connection(0));
}

TEST(EnvoyCluster, ActiveHealthChecksMarkAHostUnhealthyAfterTheThreshold) {
  MeshConfig mesh;
  mesh.locality = "none";
  mesh.health_check = MeshHealthCheckConfig{.interval = 5s, .timeout = 1s, .unhealthy_threshold = 3,
                                            .healthy_threshold = 2, .no_traffic_interval = 5s};
  Fixture f({{"a", 1}, {"b", 1}}, mesh);
  // Zone b (pod 1) fails at 20 s: its checks time out, the third failure lands within 3 intervals + timeout.
  f.sim.schedule_at(SimTime{20s}, [&] { f.domains.fail_zone(1); });
  f.sim.run_until(SimTime{20s + 2 * 5s});
  EXPECT_TRUE(f.envoy->checked_healthy(1));  // at most two checks have failed
  f.sim.run_until(SimTime{20s + 3 * 5s + 1s});
  EXPECT_FALSE(f.envoy->checked_healthy(1));
  EXPECT_EQ(in(f.picks(100), 0, 0), 100);
  // Back at 60 s: two passed checks, within two intervals (answers take a round trip of about 1 ms).
  f.sim.schedule_at(SimTime{60s}, [&] { f.domains.recover_zone(1); });
  f.sim.run_until(SimTime{60s + 5s});
  EXPECT_FALSE(f.envoy->checked_healthy(1));  // at most one check has passed
  f.sim.run_until(SimTime{60s + 2 * 5s + 1s});
  EXPECT_TRUE(f.envoy->checked_healthy(1));
}

}  // namespace
}  // namespace drsim

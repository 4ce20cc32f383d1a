// The service's balancer on its own (models/service/zone_balancer.h): zone
// shares follow routable pods x cut ratio, zone affinity keeps a request at
// home while a worker there is idle, and the pod round-robin keeps its place
// when pods leave.
#include "models/service/zone_balancer.h"

#include <gtest/gtest.h>

#include <map>

#include "models/service/pod_set.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

ServiceConfig three_zones(std::string balancing = "round-robin") {
  ServiceConfig sc;
  sc.name = "api";
  sc.replicas = {{"a", 1}, {"b", 2}, {"c", 3}};
  sc.concurrency = 2;
  sc.balancing = std::move(balancing);
  return sc;
}

// Outside any topology: zones are the config's, and always up.
PodSet pods_of(const ServiceConfig& sc) {
  PodSet pods(sc, nullptr);
  for (std::size_t z = 0; z < sc.replicas.size(); ++z) {
    for (std::uint32_t i = 0; i < sc.replicas[z].replicas; ++i) pods.add(z, true, true, true, 0);
  }
  return pods;
}

std::map<std::size_t, int> zone_draws(ZoneBalancer& balancer, int n) {
  RngStream rng(5, "balancer");
  std::map<std::size_t, int> count;
  for (int i = 0; i < n; ++i) {
    if (const auto z = balancer.pick_zone(std::nullopt, std::nullopt, rng)) ++count[*z];
  }
  return count;
}

TEST(ZoneBalancer, RoundRobinSharesAreExactlyTheWeights) {
  const ServiceConfig sc = three_zones();
  const PodSet pods = pods_of(sc);
  ZoneBalancer balancer(sc, pods);
  // Smooth weighted round-robin: over one cycle of 6 picks, each zone exactly its pods.
  EXPECT_EQ(zone_draws(balancer, 600), (std::map<std::size_t, int>{{0, 100}, {1, 200}, {2, 300}}));
  // A cut halves zone c's weight: 1 : 2 : 1.5.
  balancer.set_cut_ratio(2, 0.5);
  EXPECT_EQ(zone_draws(balancer, 900), (std::map<std::size_t, int>{{0, 200}, {1, 400}, {2, 300}}));
  EXPECT_THROW(balancer.set_cut_ratio(0, 1.5), std::exception);
}

TEST(ZoneBalancer, RandomSharesFollowTheWeights) {
  const ServiceConfig sc = three_zones("random");
  const PodSet pods = pods_of(sc);
  ZoneBalancer balancer(sc, pods);
  const int n = 60000;
  const auto count = zone_draws(balancer, n);
  EXPECT_NEAR(count.at(0) / double(n), 1.0 / 6, 0.01);
  EXPECT_NEAR(count.at(1) / double(n), 2.0 / 6, 0.01);
  EXPECT_NEAR(count.at(2) / double(n), 3.0 / 6, 0.01);
}

TEST(ZoneBalancer, NoRoutablePodNoZone) {
  ServiceConfig sc = three_zones();
  sc.replicas = {{"a", 0}};
  const PodSet pods = pods_of(sc);
  ZoneBalancer balancer(sc, pods);
  RngStream rng(1, "x");
  EXPECT_FALSE(balancer.pick_zone(std::nullopt, std::nullopt, rng));
  EXPECT_FALSE(balancer.pick_pod(0, rng));
}

TEST(ZoneBalancer, ALoadBalancerFailsOpenWhenNoTargetIsHealthy) {
  // Every pod out of the callers' view (its balancer found them unhealthy), but still there.
  for (const std::string balancing : {"round-robin", "random"}) {
    const ServiceConfig sc = three_zones(balancing);
    PodSet pods(sc, nullptr);
    for (std::size_t z = 0; z < sc.replicas.size(); ++z) {
      for (std::uint32_t i = 0; i < sc.replicas[z].replicas; ++i) pods.add(z, true, true, false, 0);
    }
    ZoneBalancer balancer(sc, pods);
    RngStream rng(1, "x");
    EXPECT_FALSE(balancer.pick_zone(std::nullopt, std::nullopt, rng)) << balancing;
    EXPECT_FALSE(balancer.pick_pod(2, rng)) << balancing;
    // AWS: with every target unhealthy the balancer sends to all of them, in proportion to the pods there.
    balancer.fail_open(true);
    std::map<std::size_t, int> zones;
    for (int i = 0; i < 600; ++i) ++zones[*balancer.pick_zone(std::nullopt, std::nullopt, rng)];
    if (balancing == "round-robin") EXPECT_EQ(zones, (std::map<std::size_t, int>{{0, 100}, {1, 200}, {2, 300}}));
    EXPECT_EQ(zones.size(), 3u) << balancing;
    std::map<std::size_t, int> in_c;
    for (int i = 0; i < 300; ++i) ++in_c[*balancer.pick_pod(2, rng)];
    EXPECT_EQ(in_c.size(), 3u) << balancing;
    // One healthy target again: it takes everything.
    pods.change(0, 0, [](ServicePod& pod) { pod.listed = true; });
    for (int i = 0; i < 10; ++i) EXPECT_EQ(balancer.pick_zone(std::nullopt, std::nullopt, rng), 0u) << balancing;
  }
}

TEST(ZoneBalancer, RoundRobinOverPodsKeepsItsPlaceWhenAPodLeaves) {
  ServiceConfig sc = three_zones();
  sc.replicas = {{"a", 3}};
  PodSet pods = pods_of(sc);
  ZoneBalancer balancer(sc, pods);
  RngStream rng(1, "x");
  EXPECT_EQ(balancer.pick_pod(0, rng), 0u);
  EXPECT_EQ(balancer.pick_pod(0, rng), 1u);
  // Pod 0 goes: the next turn is still pod 2's.
  const auto position = pods.retire(0, 0);
  ASSERT_TRUE(position);
  balancer.forget(0, *position);
  EXPECT_EQ(balancer.pick_pod(0, rng), 2u);
  EXPECT_EQ(balancer.pick_pod(0, rng), 1u);
}

TEST(ZoneBalancer, LeastOutstandingPrefersTheEmptierPod) {
  ServiceConfig sc = three_zones("least-outstanding");
  sc.replicas = {{"a", 2}};
  PodSet pods = pods_of(sc);
  ZoneBalancer balancer(sc, pods);
  pods.change(0, 0, [](ServicePod& pod) { pod.busy = 1; });
  RngStream rng(1, "x");
  EXPECT_EQ(balancer.pick_pod(0, rng), 1u);
}

TEST(PodSet, ZoneCountsFollowEveryPodChange) {
  ServiceConfig sc = three_zones();
  sc.replicas = {{"a", 2}};
  PodSet pods = pods_of(sc);
  EXPECT_EQ(pods.zone(0).routable_pods, 2u);
  EXPECT_EQ(pods.zone(0).idle_routable_workers, 4u);
  pods.change(0, 0, [](ServicePod& pod) { pod.busy = 2; });
  EXPECT_EQ(pods.zone(0).idle_routable_workers, 2u);
  // Routing follows the callers' view (listed), not the pod's own state: a
  // pod whose zone died is still picked while it is listed.
  pods.change(1, 0, [](ServicePod& pod) { pod.up = false; });
  EXPECT_EQ(pods.zone(0).routable_pods, 2u);
  EXPECT_EQ(pods.zone(0).live_pods, 1u);
  pods.change(1, 0, [](ServicePod& pod) {
    pod.up = true;
    pod.ready = false;
    pod.listed = false;
  });
  EXPECT_EQ(pods.zone(0).routable_pods, 1u);
  EXPECT_EQ(pods.zone(0).live_pods, 1u);  // an unready pod is not serving
  pods.change(0, 0, [](ServicePod& pod) { pod.terminating = true; });
  EXPECT_EQ(pods.zone(0).routable_pods, 0u);
  EXPECT_EQ(pods.zone(0).live_pods, 1u);  // terminating: still finishing its work
  EXPECT_EQ(pods.taking_work(0), 1u);
  // Use integrals advance before the change: 2 busy workers for 10 ns.
  pods.change(0, 10, [](ServicePod& pod) { pod.busy = 0; });
  EXPECT_EQ(pods.pod(0).busy_ns, 20);
}

}  // namespace
}  // namespace drsim

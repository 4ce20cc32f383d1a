// The child cluster's scheduler: NodeResourcesFit with LeastAllocated scoring, the unschedulable message,
// free capacity per zone, and the cluster autoscaler's binpacking estimate with stock limits.
#include "models/kube/node_placement.h"

#include <gtest/gtest.h>

namespace drsim {
namespace {

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;

NodePool pool(std::string name, std::string zone, std::uint32_t nodes, std::uint32_t max_nodes,
              std::int64_t cpu = 4000, std::int64_t mem = 8 * kGi) {
  NodePool p;
  p.name = std::move(name);
  p.zone = std::move(zone);
  p.allocatable = {cpu, mem};
  p.nodes = nodes;
  p.max_nodes = max_nodes;
  return p;
}

TEST(NodePlacement, LeastAllocatedScoreAveragesCpuAndMemory) {
  EXPECT_EQ(least_allocated_score({2000, 4 * kGi}, {4000, 8 * kGi}), 50);
  EXPECT_EQ(least_allocated_score({1000, 8 * kGi}, {4000, 8 * kGi}), 37);  // (75 + 0) / 2
  EXPECT_EQ(least_allocated_score({0, 0}, {4000, 8 * kGi}), 100);
}

TEST(NodePlacement, PodsSpreadOverTheLeastAllocatedNodesTiesToTheFirst) {
  ChildCluster cluster({pool("a", "az-a", 2, 2)});
  const Resources pod{1000, 1 * kGi};
  std::vector<std::size_t> nodes;
  for (int i = 0; i < 4; ++i) nodes.push_back(*cluster.place(pod).node);
  EXPECT_EQ(nodes, (std::vector<std::size_t>{0, 1, 0, 1}));
}

TEST(NodePlacement, BestEffortPodsStillSpreadThroughTheNonZeroDefaults) {
  ChildCluster cluster({pool("a", "az-a", 2, 2)});
  EXPECT_EQ(cluster.place({0, 0}).node, std::optional<std::size_t>{0});
  EXPECT_EQ(cluster.place({0, 0}).node, std::optional<std::size_t>{1});
}

TEST(NodePlacement, UnschedulablePodGetsAKubernetesStyleReason) {
  ChildCluster cluster({pool("a", "az-a", 2, 2, 1000), pool("b", "az-b", 2, 2, 1000), pool("c", "az-c", 2, 2, 1000)});
  cluster.set_zone_failed("az-a", true);
  const PlacementResult r = cluster.place({2000, 1 * kGi});
  EXPECT_FALSE(r.node);
  EXPECT_EQ(r.reason, "0/6 nodes are available: 2 node(s) were in a failed zone, 4 Insufficient cpu.");
}

TEST(NodePlacement, ZoneAffinityAndEveryShortageAreReported) {
  ChildCluster cluster({pool("a", "az-a", 1, 1, 1000, 1 * kGi), pool("b", "az-b", 2, 2, 1000, 1 * kGi)});
  const PlacementResult r = cluster.place({2000, 2 * kGi}, "az-a");
  EXPECT_FALSE(r.node);
  EXPECT_EQ(r.reason,
            "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
            "2 node(s) didn't match Pod's node affinity/selector.");
  // The zone restriction keeps pods in their zone even when another has room.
  EXPECT_EQ(cluster.zone_of(*cluster.place({500, 0}, "az-b").node), "az-b");
}

TEST(NodePlacement, RemovingAPodFreesItsCapacity) {
  ChildCluster cluster({pool("a", "az-a", 1, 1, 1000)});
  const Resources pod{600, 0};
  const auto node = cluster.place(pod).node;
  ASSERT_TRUE(node);
  EXPECT_FALSE(cluster.place(pod).node);
  cluster.remove(*node, pod);
  EXPECT_TRUE(cluster.place(pod).node);
}

TEST(NodePlacement, PodCountLimitsANode) {
  NodePool p = pool("a", "az-a", 1, 1);
  p.max_pods = 2;
  ChildCluster cluster({p});
  EXPECT_TRUE(cluster.place({10, 0}).node);
  EXPECT_TRUE(cluster.place({10, 0}).node);
  EXPECT_EQ(cluster.place({10, 0}).reason, "0/1 nodes are available: 1 Too many pods.");
}

TEST(NodePlacement, FreePodsPerZoneCountsNodesAndOptionallyAutoscalerStock) {
  ChildCluster cluster({pool("b", "az-b", 2, 5), pool("c", "az-c", 1, 1)});
  const Resources pod{1000, 1 * kGi};
  EXPECT_EQ(cluster.free_pods("az-b", pod), 8u);
  ASSERT_TRUE(cluster.place(pod, "az-b").node);
  EXPECT_EQ(cluster.free_pods("az-b", pod), 7u);
  EXPECT_EQ(cluster.free_pods("az-b", pod, true), 7u + 3 * 4);
  EXPECT_EQ(cluster.free_pods("az-x", pod), 0u);
  cluster.set_zone_failed("az-b", true);
  EXPECT_EQ(cluster.free_pods("az-b", pod, true), 0u);
  EXPECT_TRUE(cluster.zone_failed("az-b"));
  cluster.set_zone_failed("az-b", false);
  EXPECT_EQ(cluster.free_pods("az-b", pod), 7u);
}

TEST(NodePlacement, AutoscalerEstimateIsFirstFitDecreasing) {
  const std::vector<NodePool> pools{pool("b", "az-b", 2, 10)};
  // Sorted 3000, 2000, 2000, 1000 on 4000m nodes: {3000, 1000} and {2000, 2000}.
  const std::vector<Resources> pending{{1000, 0}, {2000, 0}, {3000, 0}, {2000, 0}};
  const ScaleUpEstimate e = estimate_scale_up(pools, "az-b", pending);
  EXPECT_EQ(e.pools, (std::vector<PoolScaleUp>{{0, "b", 2}}));
  EXPECT_EQ(e.still_pending, 0u);
  EXPECT_TRUE(e.reason.empty());
}

TEST(NodePlacement, AutoscalerEstimateIsCappedByStock) {
  // Cloud stock is short: one more node at most.
  const std::vector<NodePool> pools{pool("b", "az-b", 2, 3), pool("other", "az-c", 0, 10)};
  const std::vector<Resources> pending{{1000, 0}, {2000, 0}, {3000, 0}, {2000, 0}, {8000, 0}};
  const ScaleUpEstimate e = estimate_scale_up(pools, "az-b", pending);
  EXPECT_EQ(e.nodes_to_add(), 1u);  // holds 3000 + 1000
  EXPECT_EQ(e.still_pending, 3u);
  EXPECT_EQ(e.reason,
            "2 pod(s) wait for nodes: zone az-b pools are at max nodes; 1 pod(s) fit on no node of zone az-b's pools");
}

TEST(NodePlacement, AutoscalerUsesTheNextPoolOfTheZoneWhenTheFirstIsOutOfStock) {
  ChildCluster cluster({pool("small", "az-b", 1, 1), pool("big", "az-b", 0, 4, 16000, 64 * kGi)});
  const std::vector<Resources> pending(3, Resources{3000, 0});
  const ScaleUpEstimate e = cluster.estimate_scale_up("az-b", pending);
  EXPECT_EQ(e.pools, (std::vector<PoolScaleUp>{{1, "big", 1}}));
  EXPECT_EQ(cluster.add_nodes(1, 10), 4u);  // capped at max nodes
  EXPECT_EQ(cluster.nodes().size(), 5u);
  cluster.set_zone_failed("az-b", true);
  EXPECT_EQ(cluster.estimate_scale_up("az-b", pending).still_pending, 3u);
}

TEST(NodePlacement, ThousandsOfPodsOnHundredsOfNodesStayDeterministic) {
  std::vector<NodePool> pools;
  for (int z = 0; z < 3; ++z) pools.push_back(pool("p" + std::to_string(z), "az-" + std::to_string(z), 100, 100));
  ChildCluster a(pools);
  ChildCluster b(pools);
  for (int i = 0; i < 3000; ++i) {
    const Resources pod{100 + 10 * (i % 7), (i % 5) * kGi / 4};
    const auto pa = a.place(pod, "az-" + std::to_string(i % 3));
    const auto pb = b.place(pod, "az-" + std::to_string(i % 3));
    ASSERT_EQ(pa.node, pb.node);
    ASSERT_TRUE(pa.node);
  }
}

}  // namespace
}  // namespace drsim

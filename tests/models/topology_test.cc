#include "models/topology/topology.h"

#include <gtest/gtest.h>

#include "tests/models/topology_fixture.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

TEST(Topology, IndexesZonesRegionsAndLinksInDeclarationOrder) {
  Topology topo(testing::three_region_config());
  ASSERT_EQ(topo.zone_count(), 4u);
  EXPECT_EQ(topo.zone_name(2), "c");
  EXPECT_EQ(topo.region_of(1), 0u);
  EXPECT_EQ(topo.region_of(3), 2u);
  EXPECT_EQ(topo.find_zone("d"), 3u);
  EXPECT_FALSE(topo.find_zone("nope").has_value());
  EXPECT_EQ(topo.find_region("r2"), 1u);
  EXPECT_EQ(topo.find_link("r1-r3"), 2u);
  EXPECT_EQ(topo.link_ends(1), std::make_pair(RegionIndex{1}, RegionIndex{2}));
  EXPECT_EQ(topo.zones_of(0), (std::vector<ZoneIndex>{0, 1}));
}

TEST(Topology, RttWithinARegionIsTheInterZoneRtt) {
  Topology topo(testing::three_region_config());
  const auto state = topo.nominal_state();
  EXPECT_EQ(topo.rtt(0, 1, state), 2ms);
  EXPECT_EQ(topo.rtt(0, 0, state), 0ms);
}

TEST(Topology, RttAcrossRegionsTakesTheShortestPath) {
  Topology topo(testing::three_region_config());
  auto state = topo.nominal_state();
  // a -> hub r1 (1 ms) -> r2 (28 ms) -> c (0.5 ms)
  EXPECT_EQ(topo.rtt(0, 2, state), 29ms + 500us);
  // a -> r3 directly: 1 + 38 + 0.5, shorter than via r2 (1 + 28 + 22 + 0.5)
  EXPECT_EQ(topo.rtt(0, 3, state), 39ms + 500us);
  // Degrading r1-r3 makes the detour through r2 the shortest.
  state.link_rtt[2] = 100ms;
  EXPECT_EQ(topo.rtt(0, 3, state), 51ms + 500us);
}

TEST(Topology, CutLinksAndDownZonesRemoveReachability) {
  Topology topo(testing::three_region_config());
  auto state = topo.nominal_state();
  EXPECT_EQ(topo.partition_count(state), 1u);
  state.link_up[0] = false;  // r1-r2
  state.link_up[2] = false;  // r1-r3
  EXPECT_EQ(topo.partition_count(state), 2u);
  EXPECT_FALSE(topo.rtt(0, 2, state).has_value());
  EXPECT_EQ(topo.rtt(2, 3, state), 23ms);
  const auto parts = topo.partitions(state);
  EXPECT_EQ(parts[0], parts[1]);
  EXPECT_NE(parts[0], parts[2]);
  EXPECT_EQ(parts[2], parts[3]);

  state.zone_up[0] = false;
  EXPECT_FALSE(topo.partitions(state)[0].has_value());
  EXPECT_FALSE(topo.rtt(0, 1, state).has_value());
  EXPECT_EQ(topo.partition_count(state), 2u);
  state.zone_up[1] = false;
  EXPECT_EQ(topo.partition_count(state), 1u);  // r1 entirely down: only r2+r3 remain
}

TEST(Topology, ABackboneOfADownRegionStillForwards) {
  Topology topo(testing::three_region_config());
  auto state = topo.nominal_state();
  state.link_up[1] = false;  // r2-r3 cut: r2 <-> r3 must go through r1
  state.zone_up[0] = false;
  state.zone_up[1] = false;
  EXPECT_EQ(topo.rtt(2, 3, state), 28ms + 38ms + 1ms);
}

}  // namespace
}  // namespace drsim

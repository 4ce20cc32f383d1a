// Where a balancer's requests go in a failure case, as models/service/
// service.cc picks zones: weights up pods (x cut ratio 1), zone affinity
// first when it applies.
#include "analysis/zone_routing.h"

#include <gtest/gtest.h>

#include "analysis/population_routing.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

TopologyConfig one_region() {
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}, ZoneConfig{"b"}, ZoneConfig{"c"}}, 1ms}};
  return t;
}

ServiceConfig api(bool affinity = false) {
  ServiceConfig s;
  s.name = "api";
  s.replicas = {{"a", 2}, {"b", 1}, {"c", 1}};
  s.service_time.mean = 20ms;
  s.zone_affinity = affinity;
  return s;
}

TEST(ZoneRouting, SharesFollowTheUpPods) {
  const Topology topo(one_region());
  TopologyState state = topo.nominal_state();
  const ServiceConfig config = api();
  DeployedService d = deploy(config, topo, state);
  EXPECT_EQ(d.up_pods, (std::vector<std::uint32_t>{2, 1, 1}));
  EXPECT_EQ(d.mean_service, 20ms);
  EXPECT_EQ(zone_split(d, 0).share, (std::vector<double>{0.5, 0.25, 0.25}));
  EXPECT_EQ(zone_split(d, 0).tried_local, (std::vector<double>{0, 0, 0}));  // no affinity
  // Only some candidates (a region's zones, for geo routing).
  EXPECT_EQ(zone_split(d, std::nullopt, {false, true, true}).share, (std::vector<double>{0, 0.5, 0.5}));
  state.zone_up[0] = false;
  d = deploy(config, topo, state);
  EXPECT_EQ(d.up_pods, (std::vector<std::uint32_t>{0, 1, 1}));
  EXPECT_EQ(zone_split(d, 0).share, (std::vector<double>{0, 0.5, 0.5}));
  state.zone_up.assign(3, false);
  d = deploy(config, topo, state);
  EXPECT_EQ(zone_split(d, 0).share, (std::vector<double>{0, 0, 0}));  // no target
}

TEST(ZoneRouting, AffinityKeepsTheLocalShareUnlessItSpills) {
  const Topology topo(one_region());
  TopologyState state = topo.nominal_state();
  const ServiceConfig config = api(true);
  DeployedService d = deploy(config, topo, state);
  d.spill = {0.0, 0.2, 0.0};
  // From b: 80% stay, the 20% that spill go by the weights (b included).
  const TrafficSplit from_b = zone_split(d, 1);
  EXPECT_NEAR(from_b.share[0], 0.2 * 0.5, 1e-15);
  EXPECT_NEAR(from_b.share[1], 0.8 + 0.2 * 0.25, 1e-15);
  EXPECT_NEAR(from_b.share[2], 0.2 * 0.25, 1e-15);
  EXPECT_EQ(from_b.tried_local, (std::vector<double>{0, 1, 0}));
  // A caller outside the topology, or in a zone without up pods, goes by the weights.
  EXPECT_EQ(zone_split(d, std::nullopt).share, (std::vector<double>{0.5, 0.25, 0.25}));
  state.zone_up[1] = false;
  d = deploy(config, topo, state);
  const TrafficSplit from_down = zone_split(d, 1);
  EXPECT_EQ(from_down.share, (std::vector<double>{2.0 / 3, 0, 1.0 / 3}));
  EXPECT_EQ(from_down.tried_local, (std::vector<double>{0, 0, 0}));
}

TEST(PopulationRouting, TheEntryBalancerSeesAllZonesFromThePopulationsZone) {
  const Topology topo(one_region());
  const TopologyState state = topo.nominal_state();
  const ServiceConfig config = api(true);
  const DeployedService d = deploy(config, topo, state);
  ClientPopulationConfig pop;
  pop.name = "users";
  pop.service = "api";
  pop.zone = "c";
  EXPECT_EQ(population_zone(pop, topo), ZoneIndex{2});
  const TrafficSplit split = population_split(pop, d, topo, state);
  EXPECT_EQ(split.share, (std::vector<double>{0, 0, 1}));  // affinity, nothing spills yet
  EXPECT_EQ(split.tried_local, (std::vector<double>{0, 0, 1}));
  pop.zone.clear();
  EXPECT_EQ(population_split(pop, d, topo, state).share, (std::vector<double>{0.5, 0.25, 0.25}));
}

}  // namespace
}  // namespace drsim

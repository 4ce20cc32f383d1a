// Geo routing of populations to regions: weighted shares, latency order,
// Route 53's all-zero rule and run-time changes.
#include "models/traffic/geo_router.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sim/errors.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// spain (the clients), ireland (45 ms away), oregon (ireland + 137 ms).
Topology three_sites() {
  TopologyConfig t;
  t.regions = {RegionConfig{"spain", {ZoneConfig{"madrid"}}, 1ms},
               RegionConfig{"ireland", {ZoneConfig{"ie-a"}, ZoneConfig{"ie-b"}}, 1ms},
               RegionConfig{"oregon", {ZoneConfig{"or-a"}}, 1ms}};
  LinkConfig sp_ie;
  sp_ie.name = "spain-ireland";
  sp_ie.between = {"spain", "ireland"};
  sp_ie.rtt = 45ms;
  LinkConfig ie_or;
  ie_or.name = "ireland-oregon";
  ie_or.between = {"ireland", "oregon"};
  ie_or.rtt = 137ms;
  t.links = {sp_ie, ie_or};
  return Topology(t);
}

std::map<RegionIndex, int> draws(GeoRouter& router, int n) {
  RngStream rng(3, "geo");
  std::map<RegionIndex, int> count;
  for (int i = 0; i < n; ++i) {
    const auto r = router.pick(rng);
    if (r) ++count[*r];
  }
  return count;
}

TEST(GeoRouter, WeightedSharesFollowWeights) {
  const Topology topo = three_sites();
  GeoRoutingConfig c;
  c.regions = {{"ireland", 3}, {"oregon", 1}};
  GeoRouter router(c, topo, std::nullopt, {1, 2});
  const auto count = draws(router, 40000);
  EXPECT_NEAR(count.at(1) / 40000.0, 0.75, 0.01);
  EXPECT_NEAR(count.at(2) / 40000.0, 0.25, 0.01);
}

TEST(GeoRouter, DefaultCandidatesAreTheServingRegionsAlike) {
  const Topology topo = three_sites();
  GeoRouter router(GeoRoutingConfig{}, topo, std::nullopt, {1, 2});
  const auto count = draws(router, 40000);
  EXPECT_NEAR(count.at(1) / 40000.0, 0.5, 0.01);
}

TEST(GeoRouter, LatencyPolicyPicksTheNearestRegionAndFallsBackInOrder) {
  const Topology topo = three_sites();
  GeoRoutingConfig c;
  c.policy = "latency";
  c.regions = {{"oregon", 1}, {"ireland", 1}};  // listed far first: the order comes from round trips
  GeoRouter router(c, topo, topo.find_zone("madrid"), {1, 2});
  EXPECT_EQ(router.regions(), (std::vector<RegionIndex>{1, 2}));
  RngStream rng(1, "geo");
  EXPECT_EQ(router.pick(rng), RegionIndex{1});
  router.set_available(1, false);  // what a health check will do
  EXPECT_EQ(router.pick(rng), RegionIndex{2});
  router.set_available(2, false);
  EXPECT_EQ(router.pick(rng), std::nullopt);
}

TEST(GeoRouter, ZeroWeightDrainsOnlyWhileAnotherHasWeight) {
  const Topology topo = three_sites();
  GeoRoutingConfig c;
  c.regions = {{"ireland", 1}, {"oregon", 0}};
  GeoRouter router(c, topo, std::nullopt, {1, 2});
  EXPECT_EQ(draws(router, 1000).count(2), 0u);
  router.set_weight(1, 0);  // all zero: equal shares, as Route 53 answers
  const auto count = draws(router, 40000);
  EXPECT_NEAR(count.at(2) / 40000.0, 0.5, 0.01);
}

TEST(GeoRouter, ValidationAndUnknownRegions) {
  GeoRoutingConfig c;
  c.policy = "nearest";
  c.regions = {{"ireland", 1}, {"ireland", 2}};
  const auto problems = c.validate();
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].field, "policy");
  EXPECT_EQ(problems[1].field, "regions[1].region");
  const Topology topo = three_sites();
  GeoRoutingConfig unknown;
  unknown.regions = {{"mars", 1}};
  EXPECT_THROW(GeoRouter(unknown, topo, std::nullopt, {}), SimulationError);
  GeoRouter router(GeoRoutingConfig{}, topo, std::nullopt, {1});
  EXPECT_THROW(router.set_weight(2, 1), SimulationError);
  EXPECT_THROW(router.set_weight(1, -1), SimulationError);
}

TEST(GeoRouter, FailoverPolicyAnswersThePrimaryWhileAvailableThenTheSecondary) {
  const Topology topo = three_sites();
  GeoRoutingConfig c;
  c.policy = "failover";
  c.regions = {{"oregon", 1}, {"ireland", 1}};  // the configured order, not the nearest first
  GeoRouter router(c, topo, std::nullopt, {});
  EXPECT_EQ(draws(router, 100).at(2), 100);
  router.set_available(2, false);
  EXPECT_EQ(draws(router, 100).at(1), 100);
}

// shares() is what drsim check takes as a population's region split: it must
// be what pick() does, for every policy and weight case, measured by drawing.
TEST(GeoRouter, SharesAreTheLongRunFrequenciesOfPick) {
  const Topology topo = three_sites();
  struct Case {
    std::string policy;
    std::vector<RegionWeightConfig> regions;
  };
  const std::vector<Case> cases = {
      {"weighted", {{"ireland", 3}, {"oregon", 1}}},
      {"weighted", {{"ireland", 1}, {"oregon", 0}}},
      {"weighted", {{"ireland", 0}, {"oregon", 0}}},  // all zero: alike
      {"latency", {{"oregon", 1}, {"ireland", 1}}},
      {"failover", {{"oregon", 1}, {"ireland", 1}}},
      {"failover", {{"oregon", 0}, {"ireland", 2}}},
  };
  for (const Case& k : cases) {
    GeoRoutingConfig c;
    c.policy = k.policy;
    c.regions = k.regions;
    GeoRouter router(c, topo, topo.find_zone("madrid"), {1, 2});
    const int n = 40000;
    const std::map<RegionIndex, int> counted = draws(router, n);
    double total_share = 0;
    for (const auto& [region, share] : router.shares()) {
      total_share += share;
      const auto it = counted.find(region);
      const double frequency = it == counted.end() ? 0.0 : static_cast<double>(it->second) / n;
      EXPECT_NEAR(frequency, share, 0.01) << k.policy << " region " << region;
    }
    EXPECT_NEAR(total_share, 1.0, 1e-12) << k.policy;
    for (const auto& [region, count] : counted) {
      const auto shares = router.shares();
      const bool listed = std::any_of(shares.begin(), shares.end(), [&](const auto& s) { return s.first == region; });
      EXPECT_TRUE(listed) << k.policy << ": pick() chose region " << region << " that shares() leaves out";
    }
  }
  // No available region: no share, as pick() answers nothing.
  GeoRouter router(GeoRoutingConfig{}, topo, std::nullopt, {1});
  router.set_available(1, false);
  EXPECT_TRUE(router.shares().empty());
}

TEST(GeoRouter, ServingRegionsAreTheZonesRegionsOnceInOrder) {
  const Topology topo = three_sites();
  const std::vector<ZoneIndex> zones = {*topo.find_zone("or-a"), *topo.find_zone("ie-a"), *topo.find_zone("ie-b")};
  EXPECT_EQ(serving_regions(zones, topo), (std::vector<RegionIndex>{2, 1}));
  EXPECT_TRUE(serving_regions({}, topo).empty());
}

}  // namespace
}  // namespace drsim

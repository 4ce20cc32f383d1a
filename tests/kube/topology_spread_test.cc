// PodTopologySpread on the zone key. The first cases are ported from upstream kube-scheduler
// (pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go, TestSingleConstraint); their names
// are kept in the comments. Upstream checks per node; a zone's nodes share the zone's verdict, so each case
// is written per zone here.
#include "models/kube/topology_spread.h"

#include <gtest/gtest.h>

namespace drsim {
namespace {

SpreadConstraint hard(std::uint32_t max_skew, std::uint32_t min_domains = 1) {
  SpreadConstraint c;
  c.max_skew = max_skew;
  c.min_domains = min_domains;
  return c;
}

using Pass = std::vector<bool>;

TEST(TopologySpreadUpstream, NoExistingPods) {
  // "no existing pods"
  const std::vector<SpreadDomain> d{{"zone1", 0}, {"zone2", 0}};
  EXPECT_EQ(spread_filter(d, hard(1)), (Pass{true, true}));
}

TEST(TopologySpreadUpstream, NoExistingPodsIncomingPodDoesNotMatchItself) {
  // "no existing pods, incoming pod doesn't match itself"
  const std::vector<SpreadDomain> d{{"zone1", 0}, {"zone2", 0}};
  SpreadConstraint c = hard(1);
  c.self_match = false;
  EXPECT_EQ(spread_filter(d, c), (Pass{true, true}));
}

TEST(TopologySpreadUpstream, ExistingPodsInADifferentNamespaceDoNotCount) {
  // "existing pods in a different namespace do not count": zone1's two pods are in other namespaces, so the
  // counts are 0/2.
  const std::vector<SpreadDomain> d{{"zone1", 0}, {"zone2", 2}};
  EXPECT_EQ(spread_filter(d, hard(1)), (Pass{true, false}));
}

TEST(TopologySpreadUpstream, PodsSpreadAcrossZonesAs3To3AllNodesFit) {
  // "pods spread across zones as 3/3, all nodes fit"
  const std::vector<SpreadDomain> d{{"zone1", 3}, {"zone2", 3}};
  EXPECT_EQ(spread_filter(d, hard(1)), (Pass{true, true}));
}

TEST(TopologySpreadUpstream, PodsSpreadAcrossZonesAs1To2DueToAbsenceOfZoneLabel) {
  // "pods spread across zones as 1/2 due to absence of label 'zone' on node-b": node-b's pod counts nowhere.
  const std::vector<SpreadDomain> d{{"zone1", 1}, {"zone2", 2}};
  EXPECT_EQ(spread_filter(d, hard(1)), (Pass{true, false}));
}

TEST(TopologySpreadUpstream, IncomingPodHasNodeAffinityPodsSpreadAs0To2To0To1) {
  // "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits": node-b (zone1, 2 pods) is
  // excluded by the pod's affinity, so zone1 counts 0 and zone2 counts 1.
  const std::vector<SpreadDomain> d{{"zone1", 0}, {"zone2", 1}};
  EXPECT_EQ(spread_filter(d, hard(1)), (Pass{true, false}));
}

TEST(TopologySpreadUpstream, ZoneAs2To1FewerDomainsThanMinDomains) {
  // "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and
  // fourth nodes fit" (minDomains 3: the global minimum counts as 0).
  const std::vector<SpreadDomain> d{{"zone1", 2}, {"zone2", 1}};
  EXPECT_EQ(spread_global_min(d, hard(2, 3)), 0u);
  EXPECT_EQ(spread_filter(d, hard(2, 3)), (Pass{false, true}));
}

TEST(TopologySpreadUpstream, ZoneAs2To1MoreDomainsThanMinDomains) {
  // "pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes
  // fit"
  const std::vector<SpreadDomain> d{{"zone1", 2}, {"zone2", 1}};
  EXPECT_EQ(spread_global_min(d, hard(2, 1)), 1u);
  EXPECT_EQ(spread_filter(d, hard(2, 1)), (Pass{true, true}));
}

TEST(TopologySpread, AFailedZoneStillCountsAndHoldsTheGlobalMinimum) {
  // A zone's nodes are down but exist (nodeTaintsPolicy Ignore): it is not eligible, yet its 10 pods are the
  // global minimum, so az-b may only reach 11.
  const std::vector<SpreadDomain> d{{"az-a", 10, true, false}, {"az-b", 10}};
  EXPECT_EQ(spread_filter(d, hard(1)), (Pass{false, true}));
  const SpreadPlacement p = spread_place(d, hard(1), 4);
  EXPECT_EQ(p.added, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(p.unplaced, 3u);
  EXPECT_NE(p.reason.find("az-b would have skew 2 > maxSkew 1"), std::string::npos) << p.reason;
  // Once the failed zone's pods are evicted (terminating pods do not count), the minimum is 0 and each
  // healthy zone holds at most maxSkew pods.
  const std::vector<SpreadDomain> evicted{{"az-a", 0, true, false}, {"az-b", 0}, {"az-c", 0}};
  EXPECT_EQ(spread_place(evicted, hard(1), 5).added, (std::vector<std::uint32_t>{0, 1, 1}));
}

TEST(TopologySpread, ZonesOutsideTheAffinityAreNotDomains) {
  const std::vector<SpreadDomain> d{{"az-a", 10, false, false}, {"az-b", 0}, {"az-c", 0}};
  const SpreadPlacement p = spread_place(d, hard(1), 6);
  EXPECT_EQ(p.added, (std::vector<std::uint32_t>{0, 3, 3}));
  EXPECT_EQ(p.unplaced, 0u);
}

TEST(TopologySpread, PlacesOneAtATimeTowardsTheEmptiestZone) {
  const std::vector<SpreadDomain> d{{"az-a", 0}, {"az-b", 0}, {"az-c", 0}};
  EXPECT_EQ(spread_place(d, hard(1), 7).added, (std::vector<std::uint32_t>{3, 2, 2}));
}

TEST(TopologySpread, FullZonesStopBeingEligible) {
  const std::vector<SpreadDomain> d{{"az-a", 0, true, true, 1}, {"az-b", 0}};
  const SpreadPlacement p = spread_place(d, hard(1), 4);
  EXPECT_EQ(p.added, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(p.unplaced, 1u);
  EXPECT_NE(p.reason.find("az-a has no free capacity"), std::string::npos) << p.reason;
}

TEST(TopologySpread, MinDomainsAboveTheZoneCountCapsEveryZoneAtMaxSkew) {
  const std::vector<SpreadDomain> d{{"az-a", 0}, {"az-b", 0}};
  const SpreadPlacement p = spread_place(d, hard(1, 3), 5);
  EXPECT_EQ(p.added, (std::vector<std::uint32_t>{1, 1}));
  EXPECT_EQ(p.unplaced, 3u);
  EXPECT_NE(p.reason.find("global minimum 0: 2 zone(s) < minDomains 3"), std::string::npos) << p.reason;
}

TEST(TopologySpread, ScheduleAnywayScoresFewerMatchingPodsHigher) {
  // 3 eligible zones: weight ln(5); raw scores round(0), round(4.83)=5, round(9.66)=10; normalised
  // 100 x (10 + 0 - s) / 10.
  SpreadConstraint soft = hard(1);
  soft.when_unsatisfiable = WhenUnsatisfiable::kScheduleAnyway;
  const std::vector<SpreadDomain> d{{"az-a", 0}, {"az-b", 3}, {"az-c", 6}};
  EXPECT_EQ(spread_scores(d, soft), (std::vector<std::int64_t>{100, 50, 0}));
  EXPECT_EQ(spread_filter(d, soft), (Pass{true, true, true}));
  // All equal: every zone scores 100 and the first one wins.
  const std::vector<SpreadDomain> even{{"az-a", 0}, {"az-b", 0}};
  EXPECT_EQ(spread_scores(even, soft), (std::vector<std::int64_t>{100, 100}));
  EXPECT_EQ(spread_pick(even, soft), std::optional<std::size_t>{0});
  // A down zone with the global minimum does not block a soft constraint.
  const std::vector<SpreadDomain> down{{"az-a", 10, true, false}, {"az-b", 10}};
  EXPECT_EQ(spread_place(down, soft, 4).added, (std::vector<std::uint32_t>{0, 4}));
}

TEST(TopologySpread, NamesRoundTrip) {
  EXPECT_EQ(when_unsatisfiable_from_string("ScheduleAnyway"), WhenUnsatisfiable::kScheduleAnyway);
  EXPECT_STREQ(to_string(WhenUnsatisfiable::kDoNotSchedule), "DoNotSchedule");
  EXPECT_FALSE(when_unsatisfiable_from_string("Maybe"));
}

}  // namespace
}  // namespace drsim

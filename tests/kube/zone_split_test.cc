// The parent scheduler's per-zone split: the worked examples of docs/sources.md section 1 (20 replicas as 10/10
// under a 67% cap; scale-out with a zone down, with and without extension; equal over AZ-3/AZ-4 with AZ-3
// down; the financial 3-zone 50% baseline), scale-in order, and validation.
#include "models/kube/zone_split.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace drsim {
namespace {

ZoneState zone(std::string name, std::uint32_t current = 0, std::optional<std::uint32_t> free = std::nullopt,
               bool up = true) {
  return ZoneState{std::move(name), up, free, current};
}

std::vector<std::uint32_t> counts(const ZoneSplit& s) {
  std::vector<std::uint32_t> out;
  for (const auto& t : s.targets) out.push_back(t.replicas);
  return out;
}

using V = std::vector<std::uint32_t>;

TEST(ZoneSplit, TwentyReplicasUnderTheSixtySevenPercentCapGoTenTen) {
  DeploymentPolicyConfig p = non_financial_baseline();
  p.zones = {"az-a", "az-b"};
  const std::vector<ZoneState> zones{zone("az-a"), zone("az-b")};
  for (const ZoneSplit& s : {fresh_split(p, zones, 20), scale_split(p, zones, 20)}) {
    EXPECT_EQ(counts(s), (V{10, 10}));
    EXPECT_EQ(s.pending, 0u);
    EXPECT_TRUE(s.reason.empty());
    EXPECT_FALSE(s.failed);
  }
}

TEST(ZoneSplit, WithoutAListTheMinimumNumberOfZonesIsUsedAndChosenByFreeCapacity) {
  // "At least 2 AZs, chosen by stock": 20 replicas land in two zones, the two with most free capacity.
  const DeploymentPolicyConfig p = non_financial_baseline();
  const std::vector<ZoneState> zones{zone("az-a", 0, 15), zone("az-b", 0, 100), zone("az-c", 0, 60)};
  const ZoneSplit s = fresh_split(p, zones, 20);
  EXPECT_EQ(s.replicas_in("az-a"), 0u);
  EXPECT_EQ(s.replicas_in("az-b") + s.replicas_in("az-c"), 20u);
  EXPECT_LE(s.replicas_in("az-b"), 13u);  // floor(67% of 20)
  EXPECT_GE(s.replicas_in("az-c"), 7u);
}

TEST(ZoneSplit, ScaleOutWithAZoneDownKeepsItsReplicasAndPendsWhatTheSurvivorCannotTake) {
  // 10/10 over az-a and az-b; az-a fails; HPA compensation asks for 24 (14 healthy + 10 in the failed zone).
  // az-b's pools can take only 3 more pods (cloud stock short); az-c has room but the policy does not
  // extend.
  DeploymentPolicyConfig p = non_financial_baseline();
  const std::vector<ZoneState> zones{zone("az-a", 10, 50, false), zone("az-b", 10, 3), zone("az-c", 0, 20)};
  const ZoneSplit s = scale_split(p, zones, 24);
  EXPECT_EQ(counts(s), (V{10, 13, 0}));  // the failed zone keeps its 10: existing replicas do not move
  EXPECT_EQ(s.pending, 1u);
  EXPECT_FALSE(s.failed);
  EXPECT_NE(s.reason.find("policy spread: "), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("az-a cannot take pods (down)"), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("az-b has no free capacity"), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("extend is false, so az-c cannot be used"), std::string::npos) << s.reason;

  p.extend = true;
  const ZoneSplit extended = scale_split(p, zones, 24);
  EXPECT_EQ(counts(extended), (V{10, 13, 1}));
  EXPECT_EQ(extended.pending, 0u);
  EXPECT_TRUE(extended.reason.empty());
}

TEST(ZoneSplit, ScaleOutWithAZoneDownAndAmpleCapacityStopsAtTheShareCap) {
  DeploymentPolicyConfig p = non_financial_baseline();
  const std::vector<ZoneState> zones{zone("az-a", 10, {}, false), zone("az-b", 10), zone("az-c")};
  // 24: az-b takes the 4 new ones (14 of 24 = 58%, under the cap).
  EXPECT_EQ(counts(scale_split(p, zones, 24)), (V{10, 14, 0}));
  // 40: az-b may hold floor(67% x 40) = 26; the other 4 pend.
  const ZoneSplit s = scale_split(p, zones, 40);
  EXPECT_EQ(counts(s), (V{10, 26, 0}));
  EXPECT_EQ(s.pending, 4u);
  EXPECT_NE(s.reason.find("zone az-b would hold 67.5% > maxZoneShare 67%"), std::string::npos) << s.reason;
  p.extend = true;
  EXPECT_EQ(counts(scale_split(p, zones, 40)), (V{10, 26, 4}));
}

TEST(ZoneSplit, EqualOverAz3AndAz4CannotAddAnyReplicaWithAz3Down) {
  DeploymentPolicyConfig p;
  p.kind = "equal";
  p.zones = {"az-3", "az-4"};
  const std::vector<ZoneState> zones{zone("az-3", 10, {}, false), zone("az-4", 10), zone("az-5")};
  const ZoneSplit s = scale_split(p, zones, 24);
  EXPECT_TRUE(s.failed);
  EXPECT_EQ(counts(s), (V{10, 10, 0}));
  EXPECT_EQ(s.pending, 4u);
  EXPECT_EQ(s.reason, "policy equal over az-3, az-4: az-3 cannot take pods");
  // Even one more replica would need az-3 to grow (the remainder goes to the zone listed first on a tie).
  EXPECT_TRUE(scale_split(p, zones, 21).failed);
}

TEST(ZoneSplit, EqualSplitsEvenlyAndGivesTheRemainderToZonesHoldingMost) {
  DeploymentPolicyConfig p;
  p.kind = "equal";
  p.zones = {"az-3", "az-4"};
  EXPECT_EQ(counts(fresh_split(p, std::vector{zone("az-3"), zone("az-4")}, 21)), (V{11, 10}));
  // az-4 already holds the extra replica: nothing moves.
  EXPECT_EQ(counts(scale_split(p, std::vector{zone("az-3", 10), zone("az-4", 11)}, 21)), (V{10, 11}));
  // Scale-in by one from 12/12.
  EXPECT_EQ(counts(scale_split(p, std::vector{zone("az-3", 12), zone("az-4", 12)}, 23)), (V{12, 11}));
  // Capacity short in az-4: what fits is placed, the rest pends.
  const ZoneSplit s = scale_split(p, std::vector{zone("az-3", 10), zone("az-4", 10, 1)}, 24);
  EXPECT_EQ(counts(s), (V{12, 11}));
  EXPECT_EQ(s.pending, 1u);
  EXPECT_EQ(s.reason, "policy equal over az-3, az-4: az-4 short of free capacity");
}

TEST(ZoneSplit, FinancialBaselineUsesThreeZonesAtMostHalfEach) {
  const DeploymentPolicyConfig p = financial_baseline();
  const std::vector<ZoneState> zones{zone("az-a"), zone("az-b"), zone("az-c")};
  EXPECT_EQ(counts(fresh_split(p, zones, 12)), (V{4, 4, 4}));
  EXPECT_EQ(counts(fresh_split(p, zones, 4)), (V{2, 1, 1}));  // 50% of 4 is 2
  // A zone down: scale-out from 4/4/4 to 24 puts the 12 new replicas in the two others (10 each <= 12).
  const std::vector<ZoneState> down{zone("az-a", 4, {}, false), zone("az-b", 4), zone("az-c", 4)};
  EXPECT_EQ(counts(scale_split(p, down, 24)), (V{4, 10, 10}));
  // A policy change computed from scratch cannot find 3 zones that take pods: it is rejected.
  const ZoneSplit fresh = fresh_split(p, down, 12);
  EXPECT_TRUE(fresh.failed);
  EXPECT_EQ(counts(fresh), (V{4, 4, 4}));
  EXPECT_NE(fresh.reason.find("< minZones 3"), std::string::npos) << fresh.reason;
}

TEST(ZoneSplit, ScaleOutNeverMovesExistingReplicas) {
  // A legacy 15/5 split already above the 67% cap: scale-out only adds, and only where the cap allows.
  const DeploymentPolicyConfig p = non_financial_baseline();
  const ZoneSplit s = scale_split(p, std::vector{zone("az-a", 15), zone("az-b", 5)}, 22);
  EXPECT_EQ(counts(s), (V{15, 7}));
  EXPECT_EQ(s.pending, 0u);
}

TEST(ZoneSplit, FreshSplitMovesReplicasOutOfADownZone) {
  // Migration: a policy change recomputes from scratch, and a zone that cannot take pods gets none.
  DeploymentPolicyConfig p = non_financial_baseline();
  p.min_zones = 1;
  p.max_zone_share = Ratio{1.0};
  const ZoneSplit s = fresh_split(p, std::vector{zone("az-a", 10, {}, false), zone("az-b", 10, 5)}, 20);
  EXPECT_EQ(counts(s), (V{0, 15}));  // az-b's own 10 pods plus 5 free
  EXPECT_EQ(s.pending, 5u);
}

TEST(ZoneSplit, ScaleInTrimsZonesAboveTheCapThenDownZonesThenTheLargest) {
  const DeploymentPolicyConfig p = non_financial_baseline();
  // Cap for 12 is 8: both zones are above it and are trimmed alternately (the down zone first on a tie);
  // then the down zone's not-ready pods go first.
  EXPECT_EQ(counts(scale_split(p, std::vector{zone("az-a", 10, {}, false), zone("az-b", 10)}, 12)), (V{4, 8}));
  // Healthy zones: the largest first, the later zone on a tie.
  EXPECT_EQ(counts(scale_split(p, std::vector{zone("az-a", 10), zone("az-b", 10)}, 15)), (V{8, 7}));
  // An extension zone outside the list is emptied first.
  DeploymentPolicyConfig listed = p;
  listed.zones = {"az-a", "az-b"};
  listed.extend = true;
  EXPECT_EQ(counts(scale_split(listed, std::vector{zone("az-a", 10), zone("az-b", 10), zone("az-c", 3)}, 21)),
            (V{10, 10, 1}));
}

TEST(ZoneSplit, TopologySpreadPolicyStallsWhenTheFailedZoneHoldsTheGlobalMinimum) {
  DeploymentPolicyConfig p;
  p.kind = "topologySpread";
  p.max_skew = 1;
  const std::vector<ZoneState> zones{zone("az-a", 10, {}, false), zone("az-b", 10)};
  const ZoneSplit s = scale_split(p, zones, 24);
  EXPECT_EQ(counts(s), (V{10, 11}));
  EXPECT_EQ(s.pending, 3u);
  EXPECT_NE(s.reason.find("policy topologySpread: az-a cannot take pods"), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("az-b would have skew 2 > maxSkew 1"), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("global minimum 10 in az-a"), std::string::npos) << s.reason;
  p.when_unsatisfiable = "ScheduleAnyway";
  EXPECT_EQ(counts(scale_split(p, zones, 24)), (V{10, 14}));
}

TEST(ZoneSplit, ValidationNamesTheBadField) {
  DeploymentPolicyConfig p;
  p.kind = "equal";
  EXPECT_EQ(p.validate().size(), 1u);
  EXPECT_EQ(p.validate()[0].field, "zones");

  p = DeploymentPolicyConfig{};
  p.kind = "striped";
  p.zones = {"az-1", "az-1"};
  p.when_unsatisfiable = "Never";
  const auto problems = p.validate();
  std::set<std::string> fields;
  for (const auto& problem : problems) fields.insert(problem.field);
  EXPECT_EQ(fields, (std::set<std::string>{"kind", "zones[1]", "whenUnsatisfiable"}));

  p = non_financial_baseline();
  p.zones = {"az-a"};
  // One listed zone, 2 required, no extension; and 67% of one zone cannot hold every replica.
  EXPECT_EQ(p.validate().size(), 2u);

  p = DeploymentPolicyConfig{};
  p.kind = "topologySpread";
  p.when_unsatisfiable = "ScheduleAnyway";
  p.min_domains = 3;
  ASSERT_EQ(p.validate().size(), 1u);
  EXPECT_EQ(p.validate()[0].field, "minDomains");
  EXPECT_TRUE(non_financial_baseline().validate().empty());
  EXPECT_TRUE(financial_baseline().validate().empty());
}

TEST(ZoneSplit, FieldListDeclaresTheYamlKeys) {
  std::vector<std::string> keys;
  for_each_field<DeploymentPolicyConfig>([&](const auto& f) { keys.emplace_back(f.key); });
  EXPECT_EQ(keys, (std::vector<std::string>{"kind", "zones", "minZones", "maxZoneShare", "extend", "maxSkew",
                                            "whenUnsatisfiable", "minDomains"}));
}

TEST(ZoneSplit, ZeroReplicasAndUnknownKind) {
  const DeploymentPolicyConfig p = non_financial_baseline();
  const ZoneSplit s = scale_split(p, std::vector{zone("az-a", 2), zone("az-b", 2)}, 0);
  EXPECT_EQ(counts(s), (V{0, 0}));
  DeploymentPolicyConfig bad;
  bad.kind = "nope";
  EXPECT_TRUE(scale_split(bad, std::vector{zone("az-a")}, 3).failed);
}

}  // namespace
}  // namespace drsim

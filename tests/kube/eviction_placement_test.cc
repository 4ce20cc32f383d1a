// Where an evicted zone's replacements go, policy by policy (models/kube/eviction_placement.h): the lost zone
// (here always the first, "a") can take no pods and its evicted pods no longer count; every figure follows from
// the policy's own rule, worked out in each test's comment.
#include "models/kube/eviction_placement.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace drsim {
namespace {

using V = std::vector<std::uint32_t>;

// Zone a is lost (down); b and c are up with the given free room (none: unlimited).
std::vector<ZoneState> zones(V current, std::optional<std::uint32_t> free_b = std::nullopt,
                             std::optional<std::uint32_t> free_c = std::nullopt) {
  return {ZoneState{"a", false, 0, current[0]}, ZoneState{"b", true, free_b, current[1]},
          ZoneState{"c", true, free_c, current[2]}};
}

V targets(const EvictionPlacement& p) {
  V out;
  for (const ZoneTarget& t : p.split.targets) out.push_back(t.replicas);
  return out;
}

DeploymentPolicyConfig topology_spread(std::uint32_t max_skew, const char* when) {
  DeploymentPolicyConfig p;
  p.kind = "topologySpread";
  p.max_skew = max_skew;
  p.when_unsatisfiable = when;
  return p;
}

TEST(EvictionPlacement, ScheduleAnywayPutsTheReplacementsInTheZonesWithFewestPods) {
  // 4/2/2, zone a's 4 evicted: b and c score alike at 2 (input order breaks the tie), then one each in turn.
  const EvictionPlacement p = place_evicted(topology_spread(1, "ScheduleAnyway"), zones({4, 2, 2}), 0, 8);
  EXPECT_EQ(targets(p), (V{0, 4, 4}));
  EXPECT_EQ(p.kept, 0u);
  EXPECT_EQ(p.split.pending, 0u);
  EXPECT_TRUE(p.why_kept.empty());
}

TEST(EvictionPlacement, ScheduleAnywayKeepsWhatNoZoneHasRoomForPendingInTheLostZone) {
  // Room for one pod in b and one in c: two replacements go there, two stay in a.
  const EvictionPlacement p = place_evicted(topology_spread(1, "ScheduleAnyway"), zones({4, 2, 2}, 1, 1), 0, 8);
  EXPECT_EQ(targets(p), (V{2, 3, 3}));
  EXPECT_EQ(p.kept, 2u);
  EXPECT_EQ(p.split.pending, 0u);
  EXPECT_EQ(p.why_kept, "policy topologySpread: a cannot take pods; b has no free capacity; c has no free capacity");
}

TEST(EvictionPlacement, DoNotScheduleCapsTheOtherZonesAtMaxSkewAboveTheLostZonesZero) {
  // The lost zone is still a domain with 0 matching pods: the global minimum is 0, so b and c may hold at most
  // maxSkew pods. maxSkew 3: one more each (2 -> 3), the other two stay Pending in a.
  const EvictionPlacement p = place_evicted(topology_spread(3, "DoNotSchedule"), zones({4, 2, 2}), 0, 8);
  EXPECT_EQ(targets(p), (V{2, 3, 3}));
  EXPECT_EQ(p.kept, 2u);
  EXPECT_EQ(p.why_kept,
            "policy topologySpread: a cannot take pods; b would have skew 4 > maxSkew 3; c would have skew 4 > "
            "maxSkew 3; global minimum 0 in a");
  // maxSkew 1 with 2/2/2: b and c are already above 0 + 1, so neither takes any.
  const EvictionPlacement none = place_evicted(topology_spread(1, "DoNotSchedule"), zones({2, 2, 2}), 0, 6);
  EXPECT_EQ(targets(none), (V{2, 2, 2}));
  EXPECT_EQ(none.kept, 2u);
}

TEST(EvictionPlacement, SpreadWithoutAZoneListUsesTheZonesStillInUse) {
  // No list, minZones 2, 67% of 8 = 5 per zone: the base set is b and c (a holds none after the eviction);
  // the replacements alternate between them by free capacity (unlimited), then fewer replicas.
  DeploymentPolicyConfig p = non_financial_baseline();
  const EvictionPlacement placed = place_evicted(p, zones({4, 2, 2}), 0, 8);
  EXPECT_EQ(targets(placed), (V{0, 4, 4}));
  EXPECT_EQ(placed.kept, 0u);
}

TEST(EvictionPlacement, SpreadWithExtendUsesAZoneOutsideTheListWhenTheListIsShort) {
  // The source's example: 10/10 over a and b (67% of 20 = 13), extend; b has room for 2, c (unlisted) for 20.
  // With a gone, only b holds replicas: minZones 2 seeds c (a cannot take pods, extension may), and the fill
  // then prefers the most free capacity, which c has all along: 0/10/10.
  DeploymentPolicyConfig p = non_financial_baseline();
  p.zones = {"a", "b"};
  p.extend = true;
  const EvictionPlacement placed = place_evicted(p, zones({10, 10, 0}, 2, 20), 0, 20);
  EXPECT_EQ(targets(placed), (V{0, 10, 10}));
  EXPECT_EQ(placed.kept, 0u);
}

TEST(EvictionPlacement, EqualAndSpreadOverListedZonesWithoutExtendPinThePods) {
  DeploymentPolicyConfig equal;
  equal.kind = "equal";
  equal.zones = {"a", "b"};
  const EvictionPlacement e = place_evicted(equal, zones({2, 2, 0}), 0, 4);
  EXPECT_EQ(targets(e), (V{2, 2, 0}));
  EXPECT_EQ(e.kept, 2u);
  EXPECT_EQ(e.why_kept, "policy equal pins pods to their zones");
  DeploymentPolicyConfig listed = non_financial_baseline();
  listed.zones = {"a", "b", "c"};
  const EvictionPlacement s = place_evicted(listed, zones({4, 2, 2}), 0, 8);
  EXPECT_EQ(targets(s), (V{4, 2, 2}));
  EXPECT_EQ(s.kept, 4u);
  EXPECT_TRUE(policy_pins_pods_to_zones(listed));
  listed.extend = true;
  EXPECT_FALSE(policy_pins_pods_to_zones(listed));
  EXPECT_FALSE(policy_pins_pods_to_zones(topology_spread(1, "DoNotSchedule")));
}

TEST(EvictionPlacement, ASplitThatFailsKeepsTheWholeAssignment) {
  // minZones 3 with only b and c up: the spread computation fails, so the parent keeps 4/2/2.
  DeploymentPolicyConfig p = non_financial_baseline();
  p.min_zones = 3;
  const EvictionPlacement placed = place_evicted(p, zones({4, 2, 2}), 0, 8);
  EXPECT_EQ(targets(placed), (V{4, 2, 2}));
  EXPECT_EQ(placed.kept, 4u);
  EXPECT_TRUE(placed.split.failed);
  EXPECT_EQ(placed.why_kept, "policy spread: replicas would be in 2 zone(s) < minZones 3; a cannot take pods (down)");
}

TEST(EvictionPlacement, ReplicasInNoZoneBeforeStayInNoneAndTheLostZonesGoFirst) {
  // 10 desired, 8 assigned (2 unplaced before); b and c have room for 2 each: the 4 evicted move, the 2
  // unplaced stay unplaced, nothing is kept in a.
  const EvictionPlacement p = place_evicted(topology_spread(1, "ScheduleAnyway"), zones({4, 2, 2}, 2, 2), 0, 10);
  EXPECT_EQ(targets(p), (V{0, 4, 4}));
  EXPECT_EQ(p.kept, 0u);
  EXPECT_EQ(p.split.pending, 2u);
  EXPECT_FALSE(p.split.reason.empty());
  // Room for 3 each: the 4 evicted and then the 2 unplaced all find a zone.
  const EvictionPlacement all = place_evicted(topology_spread(1, "ScheduleAnyway"), zones({4, 2, 2}, 3, 3), 0, 10);
  EXPECT_EQ(targets(all), (V{0, 5, 5}));
  EXPECT_EQ(all.split.pending, 0u);
  EXPECT_TRUE(all.split.reason.empty());
}

}  // namespace
}  // namespace drsim

// Policy degradation: candidate policies are run through the split, and those that allow the needed
// scale-out are listed with their split and headroom, least deviation first. The 20-replica example of
// docs/sources.md section 1 (10/10 under a 67% cap, one zone fails) drives most cases.
#include "models/kube/policy_recommendation.h"

#include <gtest/gtest.h>

namespace drsim {
namespace {

ZoneState zone(std::string name, std::uint32_t current, std::optional<std::uint32_t> free, bool up = true) {
  return ZoneState{std::move(name), up, free, current};
}

std::vector<std::string> labels(const std::vector<PolicyRecommendation>& recs) {
  std::vector<std::string> out;
  for (const auto& r : recs) out.push_back(r.label);
  return out;
}

TEST(PolicyRecommendation, TwentyReplicasOneZoneDownSurvivorShortOfStock) {
  // az-a fails with 10 replicas; 24 are needed; az-b can take 3 more, az-c 20.
  RecommendationRequest req;
  req.current = non_financial_baseline();
  req.zones = {zone("az-a", 10, 40, false), zone("az-b", 10, 3), zone("az-c", 0, 20)};
  req.needed = 24;
  const auto recs = recommend_policies(req);
  // The current policy cannot (1 pends); a higher cap or fewer zones do not add capacity; extension does.
  ASSERT_EQ(labels(recs), (std::vector<std::string>{"extend: true", "extend: true, maxZoneShare 100%"}));
  const PolicyRecommendation& best = recs[0];
  EXPECT_EQ(best.deviation, 1u);
  EXPECT_TRUE(best.policy.extend);
  EXPECT_EQ(best.split.replicas_in("az-a"), 10u);
  EXPECT_EQ(best.split.replicas_in("az-b"), 13u);
  EXPECT_EQ(best.split.replicas_in("az-c"), 1u);
  EXPECT_EQ(best.headroom, (std::vector<ZoneHeadroom>{{"az-a", 0}, {"az-b", 0}, {"az-c", 19}}));
  EXPECT_EQ(recs[1].deviation, 3u);
}

TEST(PolicyRecommendation, TwentyReplicasOneZoneDownSurvivorAtTheShareCap) {
  // Ample capacity but 40 needed: az-b stops at 26 (67%) under the current policy.
  RecommendationRequest req;
  req.current = non_financial_baseline();
  req.zones = {zone("az-a", 10, std::nullopt, false), zone("az-b", 10, std::nullopt), zone("az-c", 0, std::nullopt)};
  req.needed = 40;
  const auto recs = recommend_policies(req);
  ASSERT_EQ(labels(recs),
            (std::vector<std::string>{"extend: true", "maxZoneShare 100%", "extend: true, maxZoneShare 100%"}));
  EXPECT_EQ(recs[0].split.replicas_in("az-c"), 4u);
  EXPECT_EQ(recs[1].split.replicas_in("az-b"), 30u);
  EXPECT_EQ(recs[1].deviation, 2u);
  EXPECT_EQ(recs[1].headroom[1].free, std::nullopt);  // unlimited
}

TEST(PolicyRecommendation, CurrentPolicyComesFirstWhenItAlreadyAllowsTheScaleOut) {
  RecommendationRequest req;
  req.current = non_financial_baseline();
  req.zones = {zone("az-a", 10, std::nullopt, false), zone("az-b", 10, std::nullopt), zone("az-c", 0, std::nullopt)};
  req.needed = 24;
  const auto recs = recommend_policies(req);
  ASSERT_FALSE(recs.empty());
  EXPECT_EQ(recs[0].label, "current");
  EXPECT_EQ(recs[0].deviation, 0u);
  EXPECT_EQ(recs[0].split.replicas_in("az-b"), 14u);
}

TEST(PolicyRecommendation, EqualOverAz3AndAz4IsReplacedBySpreadOverTheSurvivor) {
  RecommendationRequest req;
  req.current.kind = "equal";
  req.current.zones = {"az-3", "az-4"};
  req.zones = {zone("az-3", 10, 30, false), zone("az-4", 10, 30), zone("az-5", 0, 30)};
  req.needed = 24;
  const auto recs = recommend_policies(req);
  ASSERT_EQ(labels(recs), (std::vector<std::string>{"spread over az-4", "spread over az-4, extend: true"}));
  EXPECT_EQ(recs[0].deviation, 5u);  // kind changed, az-3 dropped
  EXPECT_EQ(recs[0].split.replicas_in("az-3"), 10u);  // kept: a scale-out moves nothing
  EXPECT_EQ(recs[0].split.replicas_in("az-4"), 14u);
  EXPECT_EQ(recs[0].headroom[1].free, std::optional<std::uint32_t>{26});
}

TEST(PolicyRecommendation, TopologySpreadCandidatesDropTheFailedZoneOrSoftenTheConstraint) {
  RecommendationRequest req;
  req.current.kind = "topologySpread";
  req.current.max_skew = 1;
  req.zones = {zone("az-a", 10, std::nullopt, false), zone("az-b", 10, std::nullopt), zone("az-c", 10, std::nullopt)};
  req.needed = 36;
  const auto recs = recommend_policies(req);
  ASSERT_EQ(labels(recs), (std::vector<std::string>{"zones az-b, az-c (failed zones dropped)",
                                                    "whenUnsatisfiable ScheduleAnyway"}));
  EXPECT_EQ(recs[0].split.replicas_in("az-b"), 13u);
  EXPECT_EQ(recs[0].split.replicas_in("az-c"), 13u);
}

TEST(PolicyRecommendation, UserCandidatesAreEvaluatedAndDuplicatesDropped) {
  RecommendationRequest req;
  req.current = non_financial_baseline();
  req.zones = {zone("az-a", 10, 40, false), zone("az-b", 10, 3), zone("az-c", 0, 20)};
  req.needed = 24;
  DeploymentPolicyConfig dup = req.current;
  dup.extend = true;
  DeploymentPolicyConfig mine;
  mine.kind = "spread";
  mine.zones = {"az-b", "az-c"};
  mine.min_zones = 2;
  mine.max_zone_share = Ratio{0.67};
  req.extra = {{"same as extend", dup}, {"spread over az-b, az-c", mine}};
  const auto recs = recommend_policies(req);
  EXPECT_EQ(labels(recs), (std::vector<std::string>{"extend: true", "spread over az-b, az-c",
                                                    "extend: true, maxZoneShare 100%"}));
  EXPECT_EQ(recs[1].deviation, 2u);  // az-b and az-c added to an empty list
}

TEST(PolicyRecommendation, MigrationEvaluatesFreshSplits) {
  // Moving the failed zone's pods: only policies that can hold all 20 outside az-a qualify.
  RecommendationRequest req;
  req.current = non_financial_baseline();
  req.current.zones = {"az-a", "az-b"};
  req.zones = {zone("az-a", 10, 0, false), zone("az-b", 10, 30), zone("az-c", 0, 30)};
  req.needed = 20;
  req.migrate = true;
  const auto recs = recommend_policies(req);
  ASSERT_FALSE(recs.empty());
  for (const auto& r : recs) EXPECT_EQ(r.split.replicas_in("az-a"), 0u) << r.label;
  EXPECT_EQ(recs[0].label, "extend: true");
  EXPECT_EQ(recs[0].split.replicas_in("az-b"), 13u);
  EXPECT_EQ(recs[0].split.replicas_in("az-c"), 7u);
  EXPECT_EQ(recs[0].headroom[1].free, std::optional<std::uint32_t>{27});  // 30 free + its own 10 - 13
}

TEST(PolicyRecommendation, DeviationWeightsGuaranteesAboveExtensions) {
  const DeploymentPolicyConfig base = non_financial_baseline();
  DeploymentPolicyConfig p = base;
  EXPECT_EQ(policy_deviation(base, p), 0u);
  p.extend = true;
  EXPECT_EQ(policy_deviation(base, p), 1u);
  p = base;
  p.min_zones = 1;
  EXPECT_EQ(policy_deviation(base, p), 2u);
  p.kind = "equal";
  p.zones = {"az-1"};
  EXPECT_EQ(policy_deviation(base, p), 7u);
}

}  // namespace
}  // namespace drsim

// The HPA controller's replica normalisation and behavior config, checked
// against the cases of the Kubernetes tests they port:
//   pkg/controller/podautoscaler/horizontal_test.go (the controller),
//   pkg/apis/autoscaling/v2/defaults_test.go (defaulting),
//   pkg/apis/autoscaling/validation/validation_test.go (behavior validation).
// Table entries keep upstream's case names (as the parameter name, with
// non-alphanumerics turned into '_') and its inputs and expected outputs.
// Upstream builds timestamps from time.Now() and the code under test reads
// time.Now() again a moment later; here one instant, kNow, is passed in.
// The cases skipped, and why, are listed at the end of the file.
#include "models/kube/hpa_behavior.h"

#include <gtest/gtest.h>

#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "models/kube/hpa_behavior_config.h"
#include "sim/errors.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

constexpr SimTime kNow = at(std::chrono::hours(2));

SimTime ago(Duration d) { return kNow - d; }

// gtest parameter names: alphanumerics and '_' only.
std::string param_name(const std::string& upstream) {
  std::string out;
  for (char c : upstream) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0;
    if (keep) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// upstream generateScalingRules: a Pods and/or a Percent policy (0 leaves it
// out), selectPolicy Max, the given stabilisation window.
HpaScalingRulesConfig scaling_rules(std::int32_t pods, std::int32_t pods_period, std::int32_t percent,
                                    std::int32_t percent_period, std::int32_t stabilization_window) {
  HpaScalingRulesConfig rules;
  rules.stabilization_window_seconds = stabilization_window;
  rules.select_policy = "Max";
  rules.policies = std::vector<HpaScalingPolicyConfig>{};
  if (pods != 0) rules.policies->push_back({"Pods", pods, pods_period});
  if (percent != 0) rules.policies->push_back({"Percent", percent, percent_period});
  return rules;
}

// upstream GenerateHPAScaleUpRules / GenerateHPAScaleDownRules on an optional
// rule set (nil: the defaults), resolved to effective rules.
HpaBehavior behavior_of(const std::optional<HpaScalingRulesConfig>& up,
                        const std::optional<HpaScalingRulesConfig>& down) {
  HpaBehaviorConfig config;
  if (up) config.scale_up = *up;
  if (down) config.scale_down = *down;
  return resolve_hpa_behavior(config);
}

HpaScalingRules effective(const HpaScalingRulesConfig& rules) { return behavior_of(rules, std::nullopt).scale_up; }

// upstream generateEventsUniformDistribution: the events spread over the last
// `period_seconds`, each in the middle of its segment, the offset truncated to
// whole seconds (Go's time.Duration(float64)). Upstream generates them a
// moment before the code under test runs; so do we (1 us).
std::vector<HpaScaleEvent> uniform_events(const std::vector<int>& raw, int period_seconds) {
  std::vector<HpaScaleEvent> events;
  const SimTime generated = kNow - 1us;
  const double segment = static_cast<double>(period_seconds) / static_cast<double>(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const auto boundary = static_cast<std::int64_t>(static_cast<double>(period_seconds) -
                                                    segment * static_cast<double>(i + 1) + segment / 2);
    events.push_back({raw[i], generated - std::chrono::seconds(boundary), false});
  }
  return events;
}

// ============================================================================
// upstream: TestScalingWithRules (convertDesiredReplicasWithBehaviorRate), all
// entries. Absent rules are upstream's nil: GenerateHPAScale*Rules defaults.
// ============================================================================

struct ScalingWithRulesCase {
  std::string name;
  std::vector<int> scale_up_events;    // generateEventsUniformDistribution(..., 120)
  std::vector<int> scale_down_events;  // likewise
  std::int32_t spec_min_replicas = 0;
  std::int32_t spec_max_replicas = 0;
  std::optional<HpaScalingRulesConfig> scale_up_rules;
  std::optional<HpaScalingRulesConfig> scale_down_rules;
  std::int32_t current_replicas = 0;
  std::int32_t prenormalized_desired_replicas = 0;
  std::int32_t expected_replicas = 0;
  HpaLimitReason expected_condition = HpaLimitReason::kDesiredWithinRange;
};

class ScalingWithRules : public testing::TestWithParam<ScalingWithRulesCase> {};

TEST_P(ScalingWithRules, Case) {
  const ScalingWithRulesCase& tc = GetParam();
  HpaScalingHistory history;
  history.scale_up_events = uniform_events(tc.scale_up_events, 120);
  history.scale_down_events = uniform_events(tc.scale_down_events, 120);
  const HpaBehavior behavior = behavior_of(tc.scale_up_rules, tc.scale_down_rules);
  const HpaNormalizationInput in{tc.current_replicas, tc.prenormalized_desired_replicas, tc.spec_min_replicas,
                                 tc.spec_max_replicas};
  const HpaLimitedReplicas got = hpa_convert_desired_replicas_with_behavior_rate(in, behavior, history, kNow);
  EXPECT_EQ(got.replicas, tc.expected_replicas);
  EXPECT_STREQ(to_string(got.reason), to_string(tc.expected_condition));
}

using R = HpaLimitReason;

INSTANTIATE_TEST_SUITE_P(
    HpaBehaviorUpstream, ScalingWithRules,
    testing::Values(
        ScalingWithRulesCase{.name = "prenormalized desired replicas within range", .spec_min_replicas = 3,
                             .spec_max_replicas = 8, .current_replicas = 5, .prenormalized_desired_replicas = 7,
                             .expected_replicas = 7, .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "prenormalized desired replicas < minReplicas", .spec_min_replicas = 2,
                             .spec_max_replicas = 8, .current_replicas = 3, .prenormalized_desired_replicas = 1,
                             .expected_replicas = 2, .expected_condition = R::kTooFewReplicas},
        ScalingWithRulesCase{.name = "prenormalized desired replicas within range when minReplicas is 0",
                             .spec_min_replicas = 0, .spec_max_replicas = 10, .current_replicas = 1,
                             .prenormalized_desired_replicas = 0, .expected_replicas = 0,
                             .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "maxReplicas is the limit because maxReplicas < scaleUpLimit",
                             .spec_min_replicas = 1, .spec_max_replicas = 10, .current_replicas = 20,
                             .prenormalized_desired_replicas = 1000, .expected_replicas = 10,
                             .expected_condition = R::kTooManyReplicas},
        ScalingWithRulesCase{.name = "desired replica count is more than the maximum replica count",
                             .spec_min_replicas = 100, .spec_max_replicas = 150, .current_replicas = 100,
                             .prenormalized_desired_replicas = 1000, .expected_replicas = 150,
                             .expected_condition = R::kTooManyReplicas},
        ScalingWithRulesCase{.name = "scaleUpLimit is the limit because scaleUpLimit < maxReplicas with user policies",
                             .spec_min_replicas = 1, .spec_max_replicas = 2000,
                             .scale_up_rules = scaling_rules(0, 0, 1, 60, 0), .current_replicas = 3,
                             .prenormalized_desired_replicas = 1000, .expected_replicas = 4,
                             .expected_condition = R::kScaleUpLimit},
        // ScaleUp without PeriodSeconds usage
        ScalingWithRulesCase{.name = "scaleUp with default behavior", .spec_min_replicas = 1,
                             .spec_max_replicas = 1000, .current_replicas = 10, .prenormalized_desired_replicas = 50,
                             .expected_replicas = 20, .expected_condition = R::kScaleUpLimit},
        ScalingWithRulesCase{.name = "scaleUp with pods policy larger than percent policy", .spec_min_replicas = 1,
                             .spec_max_replicas = 1000, .scale_up_rules = scaling_rules(100, 60, 100, 60, 0),
                             .current_replicas = 10, .prenormalized_desired_replicas = 500, .expected_replicas = 110,
                             .expected_condition = R::kScaleUpLimit},
        ScalingWithRulesCase{.name = "scaleUp with percent policy larger than pods policy", .spec_min_replicas = 1,
                             .spec_max_replicas = 1000, .scale_up_rules = scaling_rules(2, 60, 100, 60, 0),
                             .current_replicas = 10, .prenormalized_desired_replicas = 500, .expected_replicas = 20,
                             .expected_condition = R::kScaleUpLimit},
        ScalingWithRulesCase{.name = "scaleUp with spec MaxReplicas limitation with large pod policy",
                             .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_up_rules = scaling_rules(100, 60, 0, 0, 0), .current_replicas = 10,
                             .prenormalized_desired_replicas = 50, .expected_replicas = 50,
                             .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "scaleUp with spec MaxReplicas limitation with large percent policy",
                             .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_up_rules = scaling_rules(10000, 60, 0, 0, 0), .current_replicas = 10,
                             .prenormalized_desired_replicas = 50, .expected_replicas = 50,
                             .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "scaleUp with pod policy limitation", .spec_min_replicas = 1,
                             .spec_max_replicas = 1000, .scale_up_rules = scaling_rules(30, 60, 0, 0, 0),
                             .current_replicas = 10, .prenormalized_desired_replicas = 50, .expected_replicas = 40,
                             .expected_condition = R::kScaleUpLimit},
        ScalingWithRulesCase{.name = "scaleUp with percent policy limitation", .spec_min_replicas = 1,
                             .spec_max_replicas = 1000, .scale_up_rules = scaling_rules(0, 0, 200, 60, 0),
                             .current_replicas = 10, .prenormalized_desired_replicas = 50, .expected_replicas = 30,
                             .expected_condition = R::kScaleUpLimit},
        ScalingWithRulesCase{.name = "scaleDown with percent policy larger than pod policy", .spec_min_replicas = 1,
                             .spec_max_replicas = 1000, .scale_down_rules = scaling_rules(20, 60, 1, 60, 300),
                             .current_replicas = 100, .prenormalized_desired_replicas = 2, .expected_replicas = 80,
                             .expected_condition = R::kScaleDownLimit},
        ScalingWithRulesCase{.name = "scaleDown with pod policy larger than percent policy", .spec_min_replicas = 1,
                             .spec_max_replicas = 1000, .scale_down_rules = scaling_rules(2, 60, 1, 60, 300),
                             .current_replicas = 100, .prenormalized_desired_replicas = 2, .expected_replicas = 98,
                             .expected_condition = R::kScaleDownLimit},
        ScalingWithRulesCase{.name = "scaleDown with spec MinReplicas limitation with large pod policy",
                             .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(100, 60, 0, 0, 300), .current_replicas = 10,
                             .prenormalized_desired_replicas = 0, .expected_replicas = 1,
                             .expected_condition = R::kTooFewReplicas},
        ScalingWithRulesCase{.name = "scaleDown with spec MinReplicas limitation with large percent policy",
                             .spec_min_replicas = 5, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(0, 0, 100, 60, 300), .current_replicas = 10,
                             .prenormalized_desired_replicas = 2, .expected_replicas = 5,
                             .expected_condition = R::kTooFewReplicas},
        ScalingWithRulesCase{.name = "scaleDown with pod policy limitation", .spec_min_replicas = 1,
                             .spec_max_replicas = 1000, .scale_down_rules = scaling_rules(5, 60, 0, 0, 300),
                             .current_replicas = 10, .prenormalized_desired_replicas = 2, .expected_replicas = 5,
                             .expected_condition = R::kScaleDownLimit},
        ScalingWithRulesCase{.name = "scaleDown with percent policy limitation", .spec_min_replicas = 1,
                             .spec_max_replicas = 1000, .scale_down_rules = scaling_rules(0, 0, 50, 60, 300),
                             .current_replicas = 10, .prenormalized_desired_replicas = 5, .expected_replicas = 5,
                             .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "scaleUp with spec MaxReplicas limitation with large pod policy and events",
                             .scale_up_events = {1, 5, 9}, .spec_min_replicas = 1, .spec_max_replicas = 200,
                             .scale_up_rules = scaling_rules(300, 60, 0, 0, 0), .current_replicas = 100,
                             .prenormalized_desired_replicas = 500, .expected_replicas = 200,
                             .expected_condition = R::kTooManyReplicas},
        ScalingWithRulesCase{.name = "scaleUp with spec MaxReplicas limitation with large percent policy and events",
                             .scale_up_events = {1, 5, 9}, .spec_min_replicas = 1, .spec_max_replicas = 200,
                             .scale_up_rules = scaling_rules(0, 0, 10000, 60, 0), .current_replicas = 100,
                             .prenormalized_desired_replicas = 500, .expected_replicas = 200,
                             .expected_condition = R::kTooManyReplicas},
        // Corner case: the pod policy was lowered after many scale-ups; the
        // naive limit (100 - 15 + 5) is below current, so it holds at current.
        ScalingWithRulesCase{.name = "scaleUp with currentReplicas limitation with rate.PeriodSeconds with a lot of "
                                     "recent scale up events",
                             .scale_up_events = {1, 5, 9}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_up_rules = scaling_rules(5, 120, 0, 0, 0), .current_replicas = 100,
                             .prenormalized_desired_replicas = 500, .expected_replicas = 100,
                             .expected_condition = R::kScaleUpLimit},
        ScalingWithRulesCase{.name = "scaleUp with pod policy and previous scale up events",
                             .scale_up_events = {1, 5, 9}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_up_rules = scaling_rules(150, 120, 0, 0, 0), .current_replicas = 100,
                             .prenormalized_desired_replicas = 500, .expected_replicas = 235,  // 100 - 15 + 150
                             .expected_condition = R::kScaleUpLimit},
        ScalingWithRulesCase{.name = "scaleUp with percent policy and previous scale up events",
                             .scale_up_events = {1, 5, 9}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_up_rules = scaling_rules(0, 0, 200, 120, 0), .current_replicas = 100,
                             .prenormalized_desired_replicas = 500, .expected_replicas = 255,  // (100 - 15) + 200%
                             .expected_condition = R::kScaleUpLimit},
        ScalingWithRulesCase{.name = "scaleUp with percent policy and previous scale up and down events",
                             .scale_up_events = {4}, .scale_down_events = {2}, .spec_min_replicas = 1,
                             .spec_max_replicas = 1000, .scale_up_rules = scaling_rules(0, 0, 300, 300, 0),
                             .current_replicas = 6, .prenormalized_desired_replicas = 24, .expected_replicas = 16,
                             .expected_condition = R::kScaleUpLimit},
        // ScaleDown with PeriodSeconds usage
        ScalingWithRulesCase{.name = "scaleDown with default policy and previous events",
                             .scale_down_events = {1, 5, 9}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .current_replicas = 10, .prenormalized_desired_replicas = 5, .expected_replicas = 5,
                             .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "scaleDown with spec MinReplicas=nil limitation with large pod policy and "
                                     "previous events",
                             .scale_down_events = {1, 5, 9}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(115, 120, 0, 0, 300), .current_replicas = 100,
                             .prenormalized_desired_replicas = 0, .expected_replicas = 1,
                             .expected_condition = R::kTooFewReplicas},
        ScalingWithRulesCase{.name = "scaleDown with spec MinReplicas limitation with large pod policy and previous "
                                     "events",
                             .scale_down_events = {1, 5, 9}, .spec_min_replicas = 5, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(130, 120, 0, 0, 300), .current_replicas = 100,
                             .prenormalized_desired_replicas = 0, .expected_replicas = 5,
                             .expected_condition = R::kTooFewReplicas},
        ScalingWithRulesCase{.name = "scaleDown with spec MinReplicas limitation with large percent policy and "
                                     "previous events",
                             .scale_down_events = {1, 5, 9}, .spec_min_replicas = 5, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(0, 0, 100, 120, 300), .current_replicas = 100,
                             .prenormalized_desired_replicas = 2, .expected_replicas = 5,
                             .expected_condition = R::kTooFewReplicas},
        ScalingWithRulesCase{.name = "scaleDown with pod policy limitation and previous events",
                             .scale_down_events = {1, 5, 9}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(5, 120, 0, 0, 300), .current_replicas = 100,
                             .prenormalized_desired_replicas = 2, .expected_replicas = 100,  // 100 + 15 - 5
                             .expected_condition = R::kScaleDownLimit},
        ScalingWithRulesCase{.name = "scaleDown with percent policy limitation and previous events",
                             .scale_down_events = {2, 4, 6}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(0, 0, 50, 120, 300), .current_replicas = 100,
                             .prenormalized_desired_replicas = 0, .expected_replicas = 56,  // (100 + 12) - 50%
                             .expected_condition = R::kScaleDownLimit},
        ScalingWithRulesCase{.name = "scaleDown with percent policy and previous scale up and down events",
                             .scale_up_events = {2}, .scale_down_events = {4}, .spec_min_replicas = 1,
                             .spec_max_replicas = 1000, .scale_down_rules = scaling_rules(0, 0, 50, 180, 0),
                             .current_replicas = 10, .prenormalized_desired_replicas = 1, .expected_replicas = 6,
                             .expected_condition = R::kScaleDownLimit},
        // Corner case: (100 + 30) - 10% = 117 is above current; hold at 100.
        ScalingWithRulesCase{.name = "scaleDown with previous events preventing further scale down",
                             .scale_down_events = {10, 10, 10}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(0, 0, 10, 120, 300), .current_replicas = 100,
                             .prenormalized_desired_replicas = 0, .expected_replicas = 100,
                             .expected_condition = R::kScaleDownLimit},
        // (10 + 30) - 1000% = -360: below 0 and below the 5 wanted; 5 it is.
        ScalingWithRulesCase{.name = "scaleDown with with previous events still allowing more scale down",
                             .scale_down_events = {10, 10, 10}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(0, 0, 1000, 120, 300), .current_replicas = 10,
                             .prenormalized_desired_replicas = 5, .expected_replicas = 5,
                             .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "check 'outdated' flag for events for one behavior for up",
                             .scale_up_events = {8, 12, 9, 11}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_up_rules = scaling_rules(1000, 60, 0, 0, 0), .current_replicas = 100,
                             .prenormalized_desired_replicas = 200, .expected_replicas = 200,
                             .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "check that events were not marked 'outdated' for two different policies in the "
                                     "behavior for up",
                             .scale_up_events = {8, 12, 9, 11}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_up_rules = scaling_rules(1000, 120, 100, 60, 0), .current_replicas = 100,
                             .prenormalized_desired_replicas = 200, .expected_replicas = 200,
                             .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "check that events were marked 'outdated' for two different policies in the "
                                     "behavior for up",
                             .scale_up_events = {8, 12, 9, 11}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_up_rules = scaling_rules(1000, 30, 100, 60, 0), .current_replicas = 100,
                             .prenormalized_desired_replicas = 200, .expected_replicas = 200,
                             .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "check 'outdated' flag for events for one behavior for down",
                             .scale_down_events = {8, 12, 9, 11}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(1000, 60, 0, 0, 300), .current_replicas = 100,
                             .prenormalized_desired_replicas = 5, .expected_replicas = 5,
                             .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "check that events were not marked 'outdated' for two different policies in the "
                                     "behavior for down",
                             .scale_down_events = {8, 12, 9, 11}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(1000, 120, 100, 60, 300), .current_replicas = 100,
                             .prenormalized_desired_replicas = 5, .expected_replicas = 5,
                             .expected_condition = R::kDesiredWithinRange},
        ScalingWithRulesCase{.name = "check that events were marked 'outdated' for two different policies in the "
                                     "behavior for down",
                             .scale_down_events = {8, 12, 9, 11}, .spec_min_replicas = 1, .spec_max_replicas = 1000,
                             .scale_down_rules = scaling_rules(1000, 30, 100, 60, 300), .current_replicas = 100,
                             .prenormalized_desired_replicas = 5, .expected_replicas = 5,
                             .expected_condition = R::kDesiredWithinRange}),
    [](const testing::TestParamInfo<ScalingWithRulesCase>& p) { return param_name(p.param.name); });

// ============================================================================
// upstream: TestNormalizeDesiredReplicasWithBehavior
// (stabilizeRecommendationWithBehaviors), all entries. A window upstream left
// unset is 0 (Go's zero value).
// ============================================================================

struct StabilizeCase {
  std::string name;
  std::vector<HpaRecommendation> recommendations;
  std::int32_t current_replicas = 0;
  std::int32_t prenormalized_desired_replicas = 0;
  std::int32_t expected_stabilized_replicas = 0;
  std::optional<std::vector<std::int32_t>> expected_recommendations;  // values only, as upstream compares
  std::int32_t scale_up_stabilization_window_seconds = 0;
  std::int32_t scale_down_stabilization_window_seconds = 0;
};

class NormalizeWithBehavior : public testing::TestWithParam<StabilizeCase> {};

TEST_P(NormalizeWithBehavior, Case) {
  const StabilizeCase& tc = GetParam();
  HpaScalingHistory history;
  history.recommendations = tc.recommendations;
  HpaBehavior behavior;
  behavior.scale_up.stabilization_window_seconds = tc.scale_up_stabilization_window_seconds;
  behavior.scale_down.stabilization_window_seconds = tc.scale_down_stabilization_window_seconds;
  const HpaNormalizationInput in{tc.current_replicas, tc.prenormalized_desired_replicas, 0, 0};
  const auto got = history.stabilize_recommendation_with_behaviors(in, behavior, kNow);
  EXPECT_EQ(got.replicas, tc.expected_stabilized_replicas);
  if (tc.expected_recommendations) {
    ASSERT_EQ(history.recommendations.size(), tc.expected_recommendations->size());
    for (std::size_t i = 0; i < history.recommendations.size(); ++i) {
      EXPECT_EQ(history.recommendations[i].recommendation, (*tc.expected_recommendations)[i]) << "position " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    HpaBehaviorUpstream, NormalizeWithBehavior,
    testing::Values(
        StabilizeCase{.name = "empty recommendations for scaling down", .current_replicas = 100,
                      .prenormalized_desired_replicas = 5, .expected_stabilized_replicas = 5,
                      .expected_recommendations = std::vector<std::int32_t>{5}},
        StabilizeCase{.name = "simple scale down stabilization",
                      .recommendations = {{4, ago(2min)}, {5, ago(1min)}}, .current_replicas = 100,
                      .prenormalized_desired_replicas = 3, .expected_stabilized_replicas = 5,
                      .expected_recommendations = std::vector<std::int32_t>{4, 5, 3},
                      .scale_down_stabilization_window_seconds = 60 * 3},
        StabilizeCase{.name = "simple scale up stabilization", .recommendations = {{4, ago(2min)}, {5, ago(1min)}},
                      .current_replicas = 1, .prenormalized_desired_replicas = 7, .expected_stabilized_replicas = 4,
                      .expected_recommendations = std::vector<std::int32_t>{4, 5, 7},
                      .scale_up_stabilization_window_seconds = 60 * 5},
        StabilizeCase{.name = "no scale down stabilization", .recommendations = {{1, ago(2min)}, {2, ago(1min)}},
                      .current_replicas = 100, .prenormalized_desired_replicas = 3,
                      .expected_stabilized_replicas = 3, .expected_recommendations = std::vector<std::int32_t>{1, 2, 3},
                      .scale_up_stabilization_window_seconds = 60 * 5},
        StabilizeCase{.name = "no scale up stabilization", .recommendations = {{4, ago(2min)}, {5, ago(1min)}},
                      .current_replicas = 1, .prenormalized_desired_replicas = 3, .expected_stabilized_replicas = 3,
                      .expected_recommendations = std::vector<std::int32_t>{4, 5, 3},
                      .scale_down_stabilization_window_seconds = 60 * 5},
        StabilizeCase{.name = "no scale down stabilization, reuse recommendation element",
                      .recommendations = {{10, ago(10min)}, {9, ago(9min)}}, .current_replicas = 100,
                      .prenormalized_desired_replicas = 3, .expected_stabilized_replicas = 3,
                      .expected_recommendations = std::vector<std::int32_t>{10, 3}},
        StabilizeCase{.name = "no scale up stabilization, reuse recommendation element",
                      .recommendations = {{10, ago(10min)}, {9, ago(9min)}}, .current_replicas = 1,
                      .prenormalized_desired_replicas = 100, .expected_stabilized_replicas = 100,
                      .expected_recommendations = std::vector<std::int32_t>{10, 100}},
        StabilizeCase{.name = "scale down stabilization, reuse one of obsolete recommendation element",
                      .recommendations = {{10, ago(10min)}, {4, ago(1min)}, {5, ago(2min)}, {9, ago(9min)}},
                      .current_replicas = 100, .prenormalized_desired_replicas = 3,
                      .expected_stabilized_replicas = 5,
                      .expected_recommendations = std::vector<std::int32_t>{10, 4, 5, 3},
                      .scale_down_stabilization_window_seconds = 3 * 60},
        // Only the first element is obsolete for both windows (up 300 s, down 0).
        StabilizeCase{.name = "scale up stabilization, reuse one of obsolete recommendation element",
                      .recommendations = {{10, ago(100min)}, {6, ago(1min)}, {5, ago(2min)}, {9, ago(3min)}},
                      .current_replicas = 1, .prenormalized_desired_replicas = 100,
                      .expected_stabilized_replicas = 5,
                      .expected_recommendations = std::vector<std::int32_t>{100, 6, 5, 9},
                      .scale_up_stabilization_window_seconds = 300},
        StabilizeCase{.name = "scale up and down stabilization, do not scale up when prenormalized rec goes down",
                      .recommendations = {{2, ago(100min)}, {3, ago(3min)}}, .current_replicas = 2,
                      .prenormalized_desired_replicas = 1, .expected_stabilized_replicas = 2,
                      .scale_up_stabilization_window_seconds = 300, .scale_down_stabilization_window_seconds = 300},
        StabilizeCase{.name = "scale up and down stabilization, do not scale down when prenormalized rec goes up",
                      .recommendations = {{2, ago(100min)}, {1, ago(3min)}}, .current_replicas = 2,
                      .prenormalized_desired_replicas = 3, .expected_stabilized_replicas = 2,
                      .scale_up_stabilization_window_seconds = 300,
                      .scale_down_stabilization_window_seconds = 300}),
    [](const testing::TestParamInfo<StabilizeCase>& p) { return param_name(p.param.name); });

// ============================================================================
// upstream: TestStoreScaleEvents (storeScaleEvent, getReplicasChangePerPeriod
// over 60 s), all entries, each for scale-up and for scale-down.
// ============================================================================

struct StoreEventsCase {
  std::string name;
  std::int32_t replica_change = 0;
  std::vector<HpaScaleEvent> prev_scale_events;
  std::vector<HpaScaleEvent> new_scale_events;  // replicaChange and outdated are compared
  std::optional<HpaScalingRulesConfig> scaling_rules;  // absent: no behavior
  std::int32_t expected_replicas_change = 0;
};

class StoreScaleEvents : public testing::TestWithParam<StoreEventsCase> {};

void expect_events(const std::vector<HpaScaleEvent>& got, const std::vector<HpaScaleEvent>& want, const char* dir) {
  ASSERT_EQ(got.size(), want.size()) << dir << ": scale events differ in length";
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].replica_change, want[i].replica_change) << dir << " idx " << i;
    EXPECT_EQ(got[i].outdated, want[i].outdated) << dir << " idx " << i;
  }
}

TEST_P(StoreScaleEvents, Case) {
  const StoreEventsCase& tc = GetParam();
  std::optional<HpaBehavior> behavior;
  // Upstream fills only the direction under test; the other one is not read.
  if (tc.scaling_rules) behavior = HpaBehavior{effective(*tc.scaling_rules), effective(*tc.scaling_rules)};
  const HpaBehavior* b = behavior ? &*behavior : nullptr;

  HpaScalingHistory up;
  up.scale_up_events = tc.prev_scale_events;
  EXPECT_EQ(hpa_replicas_change_per_period(60, up.scale_up_events, kNow), tc.expected_replicas_change);
  up.store_scale_event(b, 10, 10 + tc.replica_change, kNow);
  expect_events(up.scale_up_events, tc.new_scale_events, "up");
  EXPECT_TRUE(up.scale_down_events.empty());

  HpaScalingHistory down;
  down.scale_down_events = tc.prev_scale_events;
  EXPECT_EQ(hpa_replicas_change_per_period(60, down.scale_down_events, kNow), tc.expected_replicas_change);
  down.store_scale_event(b, 10, 10 - tc.replica_change, kNow);
  expect_events(down.scale_down_events, tc.new_scale_events, "down");
  EXPECT_TRUE(down.scale_up_events.empty());
}

INSTANTIATE_TEST_SUITE_P(
    HpaBehaviorUpstream, StoreScaleEvents,
    testing::Values(
        // No history: change 0; no behavior: nothing stored.
        StoreEventsCase{.name = "empty entries with default behavior", .replica_change = 5,
                        .expected_replicas_change = 0},
        StoreEventsCase{.name = "empty entries with two-policy-behavior", .replica_change = 5,
                        .new_scale_events = {{5, kNow, false}}, .scaling_rules = scaling_rules(10, 60, 100, 60, 0),
                        .expected_replicas_change = 0},
        // No behavior: stored events are not touched.
        StoreEventsCase{.name = "one outdated entry to be kept untouched without behavior", .replica_change = 5,
                        .prev_scale_events = {{7, ago(61s), false}}, .new_scale_events = {{7, kNow, false}},
                        .expected_replicas_change = 0},
        StoreEventsCase{.name = "one outdated entry to be replaced with behavior", .replica_change = 5,
                        .prev_scale_events = {{7, ago(61s), false}}, .new_scale_events = {{5, kNow, false}},
                        .scaling_rules = scaling_rules(10, 60, 100, 60, 0), .expected_replicas_change = 0},
        StoreEventsCase{.name = "one actual entry to be not touched with behavior", .replica_change = 5,
                        .prev_scale_events = {{7, ago(58s), false}},
                        .new_scale_events = {{7, kNow, false}, {5, kNow, false}},
                        .scaling_rules = scaling_rules(10, 60, 100, 60, 0), .expected_replicas_change = 7},
        StoreEventsCase{.name = "two entries, one of them to be replaced", .replica_change = 5,
                        .prev_scale_events = {{7, ago(61s), false}, {6, ago(59s), false}},
                        .new_scale_events = {{5, kNow, false}, {6, kNow, false}},
                        .scaling_rules = scaling_rules(10, 60, 0, 0, 0), .expected_replicas_change = 6},
        // Two outdated events: the last one is reused, the other stays flagged.
        StoreEventsCase{.name = "replace one entry, use policies with different periods", .replica_change = 5,
                        .prev_scale_events = {{8, ago(29s), false},
                                              {6, ago(59s), false},
                                              {7, ago(61s), false},
                                              {9, ago(61s), false}},
                        .new_scale_events = {{8, kNow, false}, {6, kNow, false}, {7, kNow, true}, {5, kNow, false}},
                        .scaling_rules = scaling_rules(10, 60, 100, 30, 0), .expected_replicas_change = 14},
        StoreEventsCase{.name = "two entries, both actual", .replica_change = 5,
                        .prev_scale_events = {{7, ago(58s), false}, {6, ago(59s), false}},
                        .new_scale_events = {{7, kNow, false}, {6, kNow, false}, {5, kNow, false}},
                        .scaling_rules = scaling_rules(10, 120, 100, 30, 0), .expected_replicas_change = 13}),
    [](const testing::TestParamInfo<StoreEventsCase>& p) { return param_name(p.param.name); });

// ============================================================================
// upstream: TestNormalizeDesiredReplicas (legacy stabilizeRecommendation with
// a 5-minute downscale window), all entries.
// ============================================================================

struct LegacyStabilizeCase {
  std::string name;
  std::vector<HpaRecommendation> recommendations;
  std::int32_t prenormalized_desired_replicas = 0;
  std::int32_t expected_stabilized_replicas = 0;
  std::size_t expected_log_length = 0;
};

class NormalizeDesiredReplicas : public testing::TestWithParam<LegacyStabilizeCase> {};

TEST_P(NormalizeDesiredReplicas, Case) {
  const LegacyStabilizeCase& tc = GetParam();
  HpaScalingHistory history;
  history.recommendations = tc.recommendations;
  EXPECT_EQ(history.stabilize_recommendation(tc.prenormalized_desired_replicas, 5min, kNow),
            tc.expected_stabilized_replicas);
  EXPECT_EQ(history.recommendations.size(), tc.expected_log_length);
}

INSTANTIATE_TEST_SUITE_P(
    HpaBehaviorUpstream, NormalizeDesiredReplicas,
    testing::Values(
        LegacyStabilizeCase{"empty log", {}, 5, 5, 1},
        LegacyStabilizeCase{"stabilize", {{4, ago(2min)}, {5, ago(1min)}}, 3, 5, 3},
        LegacyStabilizeCase{"no stabilize", {{1, ago(2min)}, {2, ago(1min)}}, 3, 3, 3},
        LegacyStabilizeCase{"no stabilize - old recommendations", {{10, ago(10min)}, {9, ago(9min)}}, 3, 3, 2},
        LegacyStabilizeCase{"stabilize - old recommendations",
                            {{10, ago(10min)}, {4, ago(1min)}, {5, ago(2min)}, {9, ago(9min)}},
                            3,
                            5,
                            4}),
    [](const testing::TestParamInfo<LegacyStabilizeCase>& p) { return param_name(p.param.name); });

// ============================================================================
// upstream: TestConvertDesiredReplicasWithRules (legacy limits), all entries.
// Upstream's test package sets scaleUpLimitFactor = 8 in init(); the expected
// scale-up limit is calculateScaleUpLimit(3) under that factor.
// ============================================================================

struct ConvertCase {
  std::string annotation;
  std::int32_t current_replicas = 0;
  std::int32_t expected_desired_replicas = 0;  // upstream's name for the input
  std::int32_t hpa_min_replicas = 0;
  std::int32_t hpa_max_replicas = 0;
  std::int32_t expected_converted_desired_replicas = 0;
  HpaLimitReason expected_condition = HpaLimitReason::kDesiredWithinRange;
};

constexpr double kUpstreamTestScaleUpLimitFactor = 8;

class ConvertDesiredReplicasWithRules : public testing::TestWithParam<ConvertCase> {};

TEST_P(ConvertDesiredReplicasWithRules, Case) {
  const ConvertCase& tc = GetParam();
  const HpaLimitedReplicas got =
      hpa_convert_desired_replicas_with_rules(tc.current_replicas, tc.expected_desired_replicas, tc.hpa_min_replicas,
                                              tc.hpa_max_replicas, kUpstreamTestScaleUpLimitFactor);
  EXPECT_EQ(got.replicas, tc.expected_converted_desired_replicas);
  EXPECT_STREQ(to_string(got.reason), to_string(tc.expected_condition));
}

INSTANTIATE_TEST_SUITE_P(
    HpaBehaviorUpstream, ConvertDesiredReplicasWithRules,
    testing::Values(ConvertCase{"prenormalized desired replicas within range", 5, 7, 3, 8, 7, R::kDesiredWithinRange},
                    ConvertCase{"prenormalized desired replicas < minReplicas", 3, 1, 2, 8, 2, R::kTooFewReplicas},
                    ConvertCase{"prenormalized desired zeroed replicas within range", 1, 0, 0, 10, 0,
                                R::kDesiredWithinRange},
                    ConvertCase{"maxReplicas is the limit because maxReplicas < scaleUpLimit", 20, 1000, 1, 10, 10,
                                R::kTooManyReplicas},
                    ConvertCase{"scaleUpLimit is the limit because scaleUpLimit < maxReplicas", 3, 1000, 1, 2000,
                                hpa_scale_up_limit(3, kUpstreamTestScaleUpLimitFactor), R::kScaleUpLimit}),
    [](const testing::TestParamInfo<ConvertCase>& p) { return param_name(p.param.annotation); });

// upstream: TestCalculateScaleUpLimitWithScalingRules
TEST(HpaBehaviorUpstream, CalculateScaleUpLimitWithScalingRules_MinPolicyPicksTheSmallerProposal) {
  HpaScalingRules rules;
  rules.stabilization_window_seconds = 300;
  rules.select_policy = HpaSelectPolicy::kMin;
  rules.policies = {{HpaPolicyType::kPods, 2, 60}, {HpaPolicyType::kPercent, 50, 60}};
  // Pods: 1 + 2 = 3; Percent: ceil(1 x 1.5) = 2; Min for scale-up: 2.
  EXPECT_EQ(hpa_scale_up_limit_with_rules(1, {}, {}, rules, kNow), 2);
}

// upstream: TestCalculateScaleDownLimitWithBehaviors
TEST(HpaBehaviorUpstream, CalculateScaleDownLimitWithBehaviors_MinPolicyPicksTheLargerCount) {
  HpaScalingRules rules;
  rules.stabilization_window_seconds = 300;
  rules.select_policy = HpaSelectPolicy::kMin;
  rules.policies = {{HpaPolicyType::kPods, 2, 60}, {HpaPolicyType::kPercent, 50, 60}};
  // Pods: 5 - 2 = 3; Percent: int(5 x 0.5) = 2; the smallest change keeps 3.
  EXPECT_EQ(hpa_scale_down_limit_with_rules(5, {}, {}, rules, kNow), 3);
}

// ============================================================================
// upstream: TestScaleRCImmediately (reconcileAutoscaler corrects a count
// outside [min, max] without metrics; no behavior), both entries.
// ============================================================================

// upstream: TestScaleRCImmediately "scale up to min when below min replicas"
TEST(HpaBehaviorUpstream, ScaleRCImmediately_ScaleUpToMinWhenBelowMinReplicas) {
  HpaScalingHistory history;
  const HpaReconcileDecision d = hpa_reconcile_replicas(history, {.current_replicas = 1, .metric_desired_replicas = 0,
                                                                  .min_replicas = 2, .max_replicas = 6},
                                                        nullptr, kNow);
  EXPECT_TRUE(d.rescale);
  EXPECT_EQ(d.desired_replicas, 2);
  EXPECT_STREQ(to_string(d.reason), "Current number of replicas below Spec.MinReplicas");
  EXPECT_FALSE(d.normalization.has_value());
}

// upstream: TestScaleRCImmediately "scale down to max when above max replicas"
TEST(HpaBehaviorUpstream, ScaleRCImmediately_ScaleDownToMaxWhenAboveMaxReplicas) {
  HpaScalingHistory history;
  // The metrics would want far more (CPU at 8000/9500/1000 of 50%): not consulted.
  const HpaReconcileDecision d = hpa_reconcile_replicas(history, {.current_replicas = 6, .metric_desired_replicas = 60,
                                                                  .min_replicas = 2, .max_replicas = 5},
                                                        nullptr, kNow);
  EXPECT_TRUE(d.rescale);
  EXPECT_EQ(d.desired_replicas, 5);
  EXPECT_STREQ(to_string(d.reason), "Current number of replicas above Spec.MaxReplicas");
}

// ============================================================================
// upstream: pkg/apis/autoscaling/v2/defaults_test.go TestGenerateScaleDownRules
// and TestGenerateScaleUpRules, all entries. A policy is added only when its
// value or period is non-zero, as upstream's test builds them.
// ============================================================================

struct GenerateCase {
  std::string annotation;
  std::int32_t pods = 0, pods_period = 0, percent = 0, percent_period = 0;
  std::optional<std::int32_t> stabilization_seconds;
  std::optional<std::string> select_policy;
  std::vector<HpaScalingPolicyConfig> expected_policies;
  std::optional<std::int32_t> expected_stabilization;
  std::string expected_select_policy;
};

HpaScalingRulesConfig generate_input(const GenerateCase& tc) {
  HpaScalingRulesConfig rules;
  rules.stabilization_window_seconds = tc.stabilization_seconds;
  rules.select_policy = tc.select_policy;
  if (tc.pods != 0 || tc.pods_period != 0) {
    if (!rules.policies) rules.policies.emplace();
    rules.policies->push_back({"Pods", tc.pods, tc.pods_period});
  }
  if (tc.percent != 0 || tc.percent_period != 0) {
    if (!rules.policies) rules.policies.emplace();
    rules.policies->push_back({"Percent", tc.percent, tc.percent_period});
  }
  return rules;
}

void expect_generated(const HpaScalingRulesConfig& got, const GenerateCase& tc) {
  ASSERT_TRUE(got.policies.has_value());
  ASSERT_EQ(got.policies->size(), tc.expected_policies.size());
  for (std::size_t i = 0; i < tc.expected_policies.size(); ++i) {
    EXPECT_EQ((*got.policies)[i].type, tc.expected_policies[i].type) << i;
    EXPECT_EQ((*got.policies)[i].value, tc.expected_policies[i].value) << i;
    EXPECT_EQ((*got.policies)[i].period_seconds, tc.expected_policies[i].period_seconds) << i;
  }
  EXPECT_EQ(got.stabilization_window_seconds, tc.expected_stabilization);
  EXPECT_EQ(got.select_policy, std::optional<std::string>(tc.expected_select_policy));
}

class GenerateScaleDownRules : public testing::TestWithParam<GenerateCase> {};
class GenerateScaleUpRules : public testing::TestWithParam<GenerateCase> {};

TEST_P(GenerateScaleDownRules, Case) {
  expect_generated(generate_hpa_scale_down_rules(generate_input(GetParam())), GetParam());
}
TEST_P(GenerateScaleUpRules, Case) {
  expect_generated(generate_hpa_scale_up_rules(generate_input(GetParam())), GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    HpaBehaviorUpstream, GenerateScaleDownRules,
    testing::Values(
        // The scale-down window stays unset: the controller fills it.
        GenerateCase{.annotation = "Default values", .expected_policies = {{"Percent", 100, 15}},
                     .expected_select_policy = "Max"},
        GenerateCase{.annotation = "All parameters are specified", .pods = 1, .pods_period = 2, .percent = 3,
                     .percent_period = 4, .stabilization_seconds = 25, .select_policy = "Max",
                     .expected_policies = {{"Pods", 1, 2}, {"Percent", 3, 4}}, .expected_stabilization = 25,
                     .expected_select_policy = "Max"},
        GenerateCase{.annotation = "Percent policy is specified", .percent = 1, .percent_period = 2,
                     .select_policy = "Min", .expected_policies = {{"Percent", 1, 2}}, .expected_select_policy = "Min"},
        GenerateCase{.annotation = "Pods policy is specified", .pods = 3, .pods_period = 4,
                     .expected_policies = {{"Pods", 3, 4}}, .expected_select_policy = "Max"}),
    [](const testing::TestParamInfo<GenerateCase>& p) { return param_name(p.param.annotation); });

INSTANTIATE_TEST_SUITE_P(
    HpaBehaviorUpstream, GenerateScaleUpRules,
    testing::Values(
        GenerateCase{.annotation = "Default values", .expected_policies = {{"Pods", 4, 15}, {"Percent", 100, 15}},
                     .expected_stabilization = 0, .expected_select_policy = "Max"},
        GenerateCase{.annotation = "All parameters are specified", .pods = 1, .pods_period = 2, .percent = 3,
                     .percent_period = 4, .stabilization_seconds = 25, .select_policy = "Max",
                     .expected_policies = {{"Pods", 1, 2}, {"Percent", 3, 4}}, .expected_stabilization = 25,
                     .expected_select_policy = "Max"},
        GenerateCase{.annotation = "Pod policy is specified", .pods = 1, .pods_period = 2, .select_policy = "Min",
                     .expected_policies = {{"Pods", 1, 2}}, .expected_stabilization = 0,
                     .expected_select_policy = "Min"},
        GenerateCase{.annotation = "Percent policy is specified", .percent = 7, .percent_period = 10,
                     .expected_policies = {{"Percent", 7, 10}}, .expected_stabilization = 0,
                     .expected_select_policy = "Max"},
        GenerateCase{.annotation = "Pod policy and stabilization window are specified", .pods = 4, .pods_period = 2,
                     .stabilization_seconds = 25, .expected_policies = {{"Pods", 4, 2}},
                     .expected_stabilization = 25, .expected_select_policy = "Max"},
        GenerateCase{.annotation = "Percent policy and stabilization window are specified", .percent = 7,
                     .percent_period = 60, .stabilization_seconds = 25, .expected_policies = {{"Percent", 7, 60}},
                     .expected_stabilization = 25, .expected_select_policy = "Max"}),
    [](const testing::TestParamInfo<GenerateCase>& p) { return param_name(p.param.annotation); });

// ============================================================================
// upstream: pkg/apis/autoscaling/validation/validation_test.go TestValidateBehavior,
// all entries. Upstream validates the internal object as given, so its "no
// policies" cases (Policies nil) fail there; in the API's real path the v2
// defaulting runs first and fills a nil list, so here those cases are written
// with an explicitly empty list (`policies: []`), which is what still fails.
// Expected messages are upstream's with the "spec.behavior." prefix.
// ============================================================================

HpaScalingRulesConfig rules_cfg(std::optional<std::int32_t> window, std::optional<std::string> select,
                                std::optional<std::vector<HpaScalingPolicyConfig>> policies) {
  HpaScalingRulesConfig r;
  r.stabilization_window_seconds = window;
  r.select_policy = std::move(select);
  r.policies = std::move(policies);
  return r;
}

const std::vector<HpaScalingPolicyConfig> kSimplePolicies = {{"Percent", 10, 1}, {"Pods", 1, 1800}};
const std::vector<HpaScalingPolicyConfig> kFourPolicies = {
    {"Pods", 1, 2}, {"Percent", 3, 4}, {"Pods", 5, 6}, {"Percent", 7, 8}};
const std::vector<HpaScalingPolicyConfig> kNoPolicies = {};

// upstream: TestValidateBehavior successCases
TEST(HpaBehaviorUpstream, ValidateBehavior_SuccessCases) {
  std::vector<HpaBehaviorConfig> cases;
  cases.push_back({});  // ScaleUp and ScaleDown nil
  cases.push_back({rules_cfg(3600, "Min", kSimplePolicies), rules_cfg(0, "Disabled", kSimplePolicies)});
  cases.push_back({rules_cfg(120, "Max", kFourPolicies), rules_cfg(120, "Max", kFourPolicies)});
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_TRUE(cases[i].validate().empty()) << "case " << i << ": " << cases[i].validate().front().message;
  }
}

struct ValidateErrorCase {
  std::string name;
  HpaBehaviorConfig behavior;
  std::string msg;
};

class ValidateBehavior : public testing::TestWithParam<ValidateErrorCase> {};

TEST_P(ValidateBehavior, ErrorCase) {
  const ValidateErrorCase& tc = GetParam();
  const std::vector<ConfigProblem> problems = tc.behavior.validate();
  ASSERT_FALSE(problems.empty()) << "expected failure for " << tc.msg;
  EXPECT_EQ("spec.behavior." + problems.front().field + ": " + problems.front().message, tc.msg);
}

HpaBehaviorConfig up_only(HpaScalingRulesConfig r) { return {std::move(r), {}}; }
HpaBehaviorConfig down_only(HpaScalingRulesConfig r) { return {{}, std::move(r)}; }
std::vector<HpaScalingPolicyConfig> one(std::string type, std::int32_t value, std::int32_t period) {
  return {{std::move(type), value, period}};
}

INSTANTIATE_TEST_SUITE_P(
    HpaBehaviorUpstream, ValidateBehavior,
    testing::Values(
        ValidateErrorCase{"scaleUp no policies", up_only(rules_cfg({}, "Min", kNoPolicies)),
                          "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy"},
        ValidateErrorCase{"scaleUp window 3601", up_only(rules_cfg(3601, "Min", kSimplePolicies)),
                          "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than "
                          "or equal to 3600"},
        ValidateErrorCase{"scaleUp period 1801", up_only(rules_cfg({}, {}, one("Pods", 7, 1801))),
                          "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or "
                          "equal to 1800"},
        ValidateErrorCase{"scaleUp incorrect selectPolicy", up_only(rules_cfg({}, "incorrect", one("Pods", 7, 8))),
                          "spec.behavior.scaleUp.selectPolicy: Unsupported value: \"incorrect\": supported values: "
                          "\"Disabled\", \"Max\", \"Min\""},
        ValidateErrorCase{"scaleUp policy type hm", up_only(rules_cfg({}, {}, one("hm", 7, 8))),
                          "spec.behavior.scaleUp.policies[0].type: Unsupported value: \"hm\": supported values: "
                          "\"Percent\", \"Pods\""},
        ValidateErrorCase{"scaleUp period 0", up_only(rules_cfg({}, {}, one("Pods", 8, 0))),
                          "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 0: must be greater than "
                          "zero"},
        ValidateErrorCase{"scaleUp value 0", up_only(rules_cfg({}, {}, one("Pods", 0, 8))),
                          "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero"},
        ValidateErrorCase{"scaleUp period -1", up_only(rules_cfg({}, {}, one("Pods", 1, -1))),
                          "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: -1: must be greater than "
                          "zero"},
        ValidateErrorCase{"scaleUp value -1", up_only(rules_cfg({}, {}, one("Pods", -1, 1))),
                          "spec.behavior.scaleUp.policies[0].value: Invalid value: -1: must be greater than zero"},
        ValidateErrorCase{"scaleDown no policies", down_only(rules_cfg({}, "Min", kNoPolicies)),
                          "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy"},
        ValidateErrorCase{"scaleDown window 3601", down_only(rules_cfg(3601, "Min", kSimplePolicies)),
                          "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be less "
                          "than or equal to 3600"},
        ValidateErrorCase{"scaleDown period 1801", down_only(rules_cfg({}, {}, one("Percent", 7, 1801))),
                          "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than "
                          "or equal to 1800"},
        ValidateErrorCase{"scaleDown incorrect selectPolicy",
                          down_only(rules_cfg({}, "incorrect", one("Pods", 7, 8))),
                          "spec.behavior.scaleDown.selectPolicy: Unsupported value: \"incorrect\": supported values: "
                          "\"Disabled\", \"Max\", \"Min\""},
        ValidateErrorCase{"scaleDown policy type hm", down_only(rules_cfg({}, {}, one("hm", 7, 8))),
                          "spec.behavior.scaleDown.policies[0].type: Unsupported value: \"hm\": supported values: "
                          "\"Percent\", \"Pods\""},
        ValidateErrorCase{"scaleDown period 0", down_only(rules_cfg({}, {}, one("Pods", 8, 0))),
                          "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 0: must be greater than "
                          "zero"},
        ValidateErrorCase{"scaleDown value 0", down_only(rules_cfg({}, {}, one("Pods", 0, 8))),
                          "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero"},
        ValidateErrorCase{"scaleDown period -1", down_only(rules_cfg({}, {}, one("Pods", 1, -1))),
                          "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: -1: must be greater "
                          "than zero"},
        ValidateErrorCase{"scaleDown value -1", down_only(rules_cfg({}, {}, one("Pods", -1, 1))),
                          "spec.behavior.scaleDown.policies[0].value: Invalid value: -1: must be greater than "
                          "zero"}),
    [](const testing::TestParamInfo<ValidateErrorCase>& p) { return param_name(p.param.name); });

// upstream: TestValidateHorizontalPodAutoscalerConfigurableToleranceEnabled
// successCases (scaleDown). Tolerance is a Quantity upstream ("0.1", "10",
// "0", 100m, 1m); a number here.
TEST(HpaBehaviorUpstream, ValidateConfigurableToleranceEnabled_SuccessCases) {
  const auto policies = one("Pods", 1, 1800);
  for (std::optional<double> tolerance : {std::optional<double>(0.1), std::optional<double>(10.0),
                                          std::optional<double>(0.0), std::optional<double>(0.1),
                                          std::optional<double>(0.001), std::optional<double>()}) {
    HpaScalingRulesConfig r = rules_cfg({}, {}, policies);
    r.tolerance = tolerance;
    EXPECT_TRUE(down_only(r).validate().empty()) << tolerance.value_or(-1);
  }
}

// upstream: TestValidateHorizontalPodAutoscalerConfigurableToleranceEnabled
// failureCases (scaleUp): exactly one error each. "HPAScalingRules{}" and
// "StabilizationWindowSeconds only" lack policies: written as `policies: []`
// (see TestValidateBehavior above).
TEST(HpaBehaviorUpstream, ValidateConfigurableToleranceEnabled_FailureCases) {
  struct Case {
    HpaScalingRulesConfig rule;
    std::string msg;
  };
  const auto policies = one("Pods", 1, 1800);
  std::vector<Case> cases;
  cases.push_back({rules_cfg({}, {}, kNoPolicies), "at least one Policy"});
  HpaScalingRulesConfig negative = rules_cfg({}, {}, policies);
  negative.tolerance = -0.001;
  cases.push_back({negative, "greater or equal to zero"});
  negative.tolerance = -0.010;  // NewMilliQuantity(-10)
  cases.push_back({negative, "greater or equal to zero"});
  cases.push_back({rules_cfg(60, {}, kNoPolicies), "at least one Policy"});
  HpaScalingRulesConfig with_tolerance = rules_cfg(60, {}, kNoPolicies);
  with_tolerance.tolerance = 0.001;
  cases.push_back({with_tolerance, "at least one Policy"});
  for (const Case& c : cases) {
    const std::vector<ConfigProblem> problems = up_only(c.rule).validate();
    ASSERT_EQ(problems.size(), 1u) << c.msg;
    EXPECT_NE(problems[0].message.find(c.msg), std::string::npos) << problems[0].message;
  }
}

// ============================================================================
// Our own: effective defaults, edge rules, and worked timelines.
// ============================================================================

TEST(HpaBehaviorDefaults, ResolveFillsTheScaleDownWindowFromTheController) {
  const HpaBehavior def = resolve_hpa_behavior({});
  EXPECT_EQ(def.scale_up, hpa_default_scale_up_rules());
  EXPECT_EQ(def.scale_down, hpa_default_scale_down_rules());
  EXPECT_EQ(def.scale_up.stabilization_window_seconds, 0);
  EXPECT_EQ(def.scale_up.select_policy, HpaSelectPolicy::kMax);
  ASSERT_EQ(def.scale_up.policies.size(), 2u);
  EXPECT_EQ(def.scale_up.policies[0], (HpaScalingPolicy{HpaPolicyType::kPods, 4, 15}));
  EXPECT_EQ(def.scale_up.policies[1], (HpaScalingPolicy{HpaPolicyType::kPercent, 100, 15}));
  EXPECT_EQ(def.scale_down.stabilization_window_seconds, 300);
  ASSERT_EQ(def.scale_down.policies.size(), 1u);
  EXPECT_EQ(def.scale_down.policies[0], (HpaScalingPolicy{HpaPolicyType::kPercent, 100, 15}));

  // --horizontal-pod-autoscaler-downscale-stabilization=90s, whole seconds.
  EXPECT_EQ(resolve_hpa_behavior({}, 90500ms).scale_down.stabilization_window_seconds, 90);
  // A window the user gave wins over the controller's, 0 included.
  HpaBehaviorConfig given;
  given.scale_down.stabilization_window_seconds = 0;
  given.scale_up.select_policy = "Disabled";
  const HpaBehavior b = resolve_hpa_behavior(given, 90s);
  EXPECT_EQ(b.scale_down.stabilization_window_seconds, 0);
  EXPECT_EQ(b.scale_up.select_policy, HpaSelectPolicy::kDisabled);
  EXPECT_EQ(b.scale_up.policies, hpa_default_scale_up_rules().policies);
}

TEST(HpaBehaviorDefaults, ResolveRejectsAnInvalidConfig) {
  HpaBehaviorConfig bad;
  bad.scale_down.policies = std::vector<HpaScalingPolicyConfig>{{"Pods", 1, 1}, {"Percent", 5, 0}};
  const auto problems = bad.validate();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "scaleDown.policies[1].periodSeconds");
  EXPECT_THROW(resolve_hpa_behavior(bad), SimulationError);
}

TEST(HpaBehaviorDefaults, TolerancesFallBackToTheControllers) {
  HpaBehaviorConfig c;
  c.scale_down.tolerance = 0.05;
  const HpaBehavior b = resolve_hpa_behavior(c);
  const HpaScalingTolerances t = hpa_scaling_tolerances(&b);
  EXPECT_DOUBLE_EQ(t.scale_up, 0.1);
  EXPECT_DOUBLE_EQ(t.scale_down, 0.05);
  const HpaScalingTolerances legacy = hpa_scaling_tolerances(nullptr, 0.2);
  EXPECT_DOUBLE_EQ(legacy.scale_up, 0.2);
  EXPECT_DOUBLE_EQ(legacy.scale_down, 0.2);
}

TEST(HpaBehaviorRules, DisabledSelectPolicyHoldsTheCurrentCount) {
  HpaBehaviorConfig c;
  c.scale_down.select_policy = "Disabled";
  const HpaBehavior b = resolve_hpa_behavior(c);
  HpaScalingHistory history;
  const HpaLimitedReplicas down = hpa_convert_desired_replicas_with_behavior_rate({10, 2, 1, 20}, b, history, kNow);
  EXPECT_EQ(down.replicas, 10);
  EXPECT_EQ(down.reason, HpaLimitReason::kScaleDownLimit);
  // Scale-up is unaffected.
  EXPECT_EQ(hpa_convert_desired_replicas_with_behavior_rate({10, 15, 1, 20}, b, history, kNow).replicas, 15);
}

TEST(HpaBehaviorRules, LegacyScaleUpLimitIsTwiceCurrentButAtLeastFour) {
  EXPECT_EQ(hpa_scale_up_limit(0), 4);
  EXPECT_EQ(hpa_scale_up_limit(1), 4);
  EXPECT_EQ(hpa_scale_up_limit(2), 4);
  EXPECT_EQ(hpa_scale_up_limit(3), 6);
  EXPECT_EQ(hpa_scale_up_limit(50), 100);
  // Production factor: 3 -> at most 6 in one sync.
  const HpaLimitedReplicas r = hpa_convert_desired_replicas_with_rules(3, 1000, 1, 2000);
  EXPECT_EQ(r.replicas, 6);
  EXPECT_EQ(r.reason, HpaLimitReason::kScaleUpLimit);
  EXPECT_STREQ(hpa_condition_message(r.reason),
               "the desired replica count is increasing faster than the maximum scale rate");
}

TEST(HpaBehaviorRules, LegacyNormalizationReportsScaleDownStabilizedAndLimits) {
  HpaScalingHistory history;
  history.recommendations = {{8, ago(4min)}};
  const HpaNormalization n = hpa_normalize_desired_replicas(history, {10, 3, 5, 20}, kNow);
  EXPECT_EQ(n.stabilized_recommendation, 8);
  EXPECT_EQ(n.able_to_scale, HpaAbleToScaleReason::kScaleDownStabilized);
  EXPECT_EQ(n.desired_replicas, 8);
  EXPECT_FALSE(n.scaling_limited);
  EXPECT_EQ(n.limit_reason, HpaLimitReason::kDesiredWithinRange);
  // A minute later the 8 is older than 5 min: the 3 wins, then min 5 limits it.
  const HpaNormalization later = hpa_normalize_desired_replicas(history, {8, 3, 5, 20}, kNow + 61s);
  EXPECT_EQ(later.stabilized_recommendation, 3);
  EXPECT_EQ(later.able_to_scale, HpaAbleToScaleReason::kReadyForNewScale);
  EXPECT_EQ(later.desired_replicas, 5);
  EXPECT_TRUE(later.scaling_limited);
  EXPECT_EQ(later.limit_reason, HpaLimitReason::kTooFewReplicas);
}

TEST(HpaBehaviorRules, ZeroReplicasDisablesScaling) {
  HpaScalingHistory history;
  const HpaBehavior b = resolve_hpa_behavior({});
  const HpaReconcileDecision d = hpa_reconcile_replicas(history, {0, 10, 1, 10}, &b, kNow);
  EXPECT_TRUE(d.scaling_disabled);
  EXPECT_FALSE(d.rescale);
  EXPECT_EQ(d.desired_replicas, 0);
  EXPECT_TRUE(history.scale_up_events.empty());
}

// Worked timeline 1: default behavior, a sync from 1 replica with a huge
// recommendation goes to 5 = max(1 + 4 Pods, 1 + 100%), and from there the
// allowance doubles every 15 s sync: 10, 20, 40, 80, then maxReplicas 100.
TEST(HpaBehaviorTimeline, DefaultBehaviorScalesUpByMaxOfFourPodsAndDoubling) {
  const HpaBehavior b = resolve_hpa_behavior({});
  HpaScalingHistory history;
  std::int32_t current = 1;
  const std::vector<std::int32_t> expected = {5, 10, 20, 40, 80, 100, 100};
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const SimTime now = kNow + std::chrono::seconds(15 * k);
    const HpaReconcileDecision d = hpa_reconcile_replicas(history, {current, 1000, 1, 100}, &b, now);
    ASSERT_TRUE(d.normalization.has_value());
    EXPECT_EQ(d.desired_replicas, expected[k]) << "sync " << k;
    if (k == 0) {
      EXPECT_EQ(d.normalization->limit_reason, HpaLimitReason::kScaleUpLimit);
      EXPECT_TRUE(d.normalization->scaling_limited);
      EXPECT_EQ(d.reason, HpaRescaleReason::kMetricAboveTarget);
    }
    if (k == 5) {
      EXPECT_EQ(d.normalization->limit_reason, HpaLimitReason::kTooManyReplicas);
    }
    current = d.desired_replicas;
  }
  // One scale-up event per rescale, the older ones reused once out of the 15 s
  // period: the history does not grow with the run.
  EXPECT_LE(history.scale_up_events.size(), 2u);
}

// Worked timeline 2: default behavior; the recommendation drops from 10 to 4
// at t = 300 s after 10 since t = 0. The drop is held (ScaleDownStabilized)
// until the last recommendation of 10 (t = 285 s) is 300 s old: at t = 585 s
// the HPA goes to 4 in one step (scale-down policy: 100% per 15 s).
TEST(HpaBehaviorTimeline, ScaleDownIsHeldForTheDefaultStabilizationWindow) {
  const HpaBehavior b = resolve_hpa_behavior({});
  HpaScalingHistory history;
  std::int32_t current = 10;
  for (int t = 0; t <= 900; t += 15) {
    const SimTime now = kNow + std::chrono::seconds(t);
    const std::int32_t metric = t < 300 ? 10 : 4;
    const HpaReconcileDecision d = hpa_reconcile_replicas(history, {current, metric, 1, 20}, &b, now);
    ASSERT_TRUE(d.normalization.has_value());
    if (t < 300) {
      EXPECT_FALSE(d.rescale) << t;
      EXPECT_EQ(d.normalization->able_to_scale, HpaAbleToScaleReason::kReadyForNewScale) << t;
    } else if (t < 585) {
      EXPECT_FALSE(d.rescale) << t;
      EXPECT_EQ(d.desired_replicas, 10) << t;
      EXPECT_EQ(d.normalization->able_to_scale, HpaAbleToScaleReason::kScaleDownStabilized) << t;
      EXPECT_STREQ(hpa_condition_message(d.normalization->able_to_scale),
                   "recent recommendations were higher than current one, applying the highest recent "
                   "recommendation");
    } else if (t == 585) {
      EXPECT_TRUE(d.rescale);
      EXPECT_EQ(d.desired_replicas, 4);
      EXPECT_EQ(d.reason, HpaRescaleReason::kAllMetricsBelowTarget);
    } else {
      EXPECT_FALSE(d.rescale) << t;
      EXPECT_EQ(d.desired_replicas, 4) << t;
    }
    current = d.desired_replicas;
  }
  // Entries older than both windows are reused: at most one per sync of the
  // 300 s window, plus the slot being refilled.
  EXPECT_LE(history.recommendations.size(), 300u / 15u + 2u);
  ASSERT_EQ(history.scale_down_events.size(), 1u);
  EXPECT_EQ(history.scale_down_events[0].replica_change, 6);
}

// The same drop without `behavior` (legacy path): the same 5-minute hold by
// the downscale stabilisation window, no rate limit on the way down. One sync
// later than with behavior: the legacy stabilisation counts a recommendation
// exactly `window` old as still in the window (upstream tests Before(cutoff)
// there, After(cutoff) in the behavior path).
TEST(HpaBehaviorTimeline, LegacyPathHoldsScaleDownForTheDownscaleWindow) {
  HpaScalingHistory history;
  std::int32_t current = 10;
  for (int t = 0; t <= 900; t += 15) {
    const SimTime now = kNow + std::chrono::seconds(t);
    const HpaReconcileDecision d = hpa_reconcile_replicas(history, {current, t < 300 ? 10 : 4, 1, 20}, nullptr, now);
    EXPECT_EQ(d.desired_replicas, t < 600 ? 10 : 4) << t;
    current = d.desired_replicas;
  }
  EXPECT_LE(history.recommendations.size(), 300u / 15u + 2u);
  EXPECT_TRUE(history.scale_down_events.empty());  // the legacy path keeps no events
}

}  // namespace
}  // namespace drsim

// ----------------------------------------------------------------------------
// Upstream cases not ported, and why (horizontal_test.go unless noted):
// - TestScaleUp*, TestScaleDown*, TestUpscaleCap*, TestTolerance*, TestMinReplicas*,
//   TestMaxReplicas*, TestSuperfluousMetrics, TestMissingMetrics, TestEmptyMetrics,
//   TestZeroReplicas..., TestConditionInvalidSelector*, TestConditionFailed*,
//   TestScalingWithRules-style controller runs (TestScaleUpWithScalingRules, ...):
//   they run the whole controller against fake metrics/scale clients; the
//   replica proposal comes from the replica calculator (another component),
//   not from normalisation.
// - TestNoScaleDownOneMetricInvalid/Empty, TestScaleUpOneMetricInvalid/Empty: the
//   outcome is decided in computeReplicasForMetrics (how invalid metrics among
//   several are combined), before normalisation; nothing pure to port here.
// - TestScaleRCImmediately: ported for the replica decision; its condition lists
//   and Prometheus counters are controller plumbing.
// - TestMultipleHPAs, TestAvoidUnnecessaryUpdates, TestHPARescaleWithSuccessfulConflictRetry,
//   TestReconciliationDuration*, TestReconciliationsTotal*, TestBuildQuantity,
//   TestEnqueue*, TestUpdateHPA*: informers, work queues, API writes, metrics.
// - defaults_test.go TestHorizontalPodAutoscalerAnnotations: API round-trip of
//   annotations; no counterpart.
// - validation_test.go TestValidateHorizontalPodAutoscalerConfigurableToleranceDisabled
//   and the *Update* tolerance tests: feature-gate-off and update-path variants;
//   here the HPAConfigurableTolerance field is always accepted. Scale-to-zero
//   (HPAScaleToZero, alpha) validation cases: not modelled.
// - Upstream's "no policies" validation cases use a nil list on the internal
//   type; they are ported with an explicitly empty list (see TestValidateBehavior).

#pragma once
// The `behavior` section of a Kubernetes HorizontalPodAutoscaler
// (autoscaling/v2), as scenario config: how fast the HPA may add or remove
// pods (policies of type Pods or Percent, each over a period), which policy
// wins when several apply (selectPolicy Max, Min or Disabled), and how long a
// recommendation is remembered before a change in the opposite direction is
// allowed (stabilizationWindowSeconds). The YAML keys are the API's, so the
// behavior of a real HPA can be pasted in unchanged.
//
// Two stages, as in Kubernetes:
//   - the config (HpaBehaviorConfig) keeps what the user wrote: a field left
//     out is empty (std::optional), because "absent" and "given" default
//     differently (upstream uses pointers for the same reason);
//   - resolve_hpa_behavior() applies the API server's defaulting
//     (pkg/apis/autoscaling/v2/defaults.go, SetDefaults_HorizontalPodAutoscalerBehavior)
//     and the controller's own fill-in of the scale-down window
//     (maybeInitScaleDownStabilizationWindow), and returns the effective rules
//     (HpaBehavior) that the normalisation in hpa_behavior.h works on.
//
// An HPA without `behavior` is not an HPA with a default behavior: the
// controller then takes the legacy path (hpa_normalize_desired_replicas).
// Whoever holds the HPA spec keeps `std::optional<HpaBehaviorConfig>` for that.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"

namespace drsim {

// Limits of the API's validation (pkg/apis/autoscaling/validation).
inline constexpr std::int32_t kHpaMaxPeriodSeconds = 1800;
inline constexpr std::int32_t kHpaMaxStabilizationWindowSeconds = 3600;
// kube-controller-manager --horizontal-pod-autoscaler-downscale-stabilization.
inline constexpr Duration kHpaDefaultDownscaleStabilizationWindow = std::chrono::minutes(5);

struct HpaScalingPolicyConfig {
  std::string type;  // Pods | Percent
  std::int32_t value = 0;
  std::int32_t period_seconds = 0;

  static constexpr std::string_view kTypeName = "HpaScalingPolicy";
  static constexpr auto fields() {
    return std::tuple{
        field("type", &HpaScalingPolicyConfig::type,
              "Pods: change by at most `value` pods per period; Percent: by at most `value` percent of the "
              "replicas at the start of the period.",
              kRequired),
        field("value", &HpaScalingPolicyConfig::value, "Pods or percent allowed per period (> 0).", kRequired),
        field("periodSeconds", &HpaScalingPolicyConfig::period_seconds,
              "Length of the sliding window the value applies to, in seconds (1 to 1800).", kRequired),
    };
  }
};

struct HpaScalingRulesConfig {
  std::optional<std::int32_t> stabilization_window_seconds;
  std::optional<std::string> select_policy;  // Max | Min | Disabled
  // Absent: the default policies. Present but empty: an error, as upstream
  // (defaulting only fills a nil list; validation then wants at least one).
  std::optional<std::vector<HpaScalingPolicyConfig>> policies;
  // autoscaling/v2 HPAConfigurableTolerance (a Quantity upstream; a number
  // here, e.g. 0.05). Absent: the controller-wide tolerance (0.1).
  std::optional<double> tolerance;

  static constexpr std::string_view kTypeName = "HpaScalingRules";
  static constexpr auto fields() {
    return std::tuple{
        field("stabilizationWindowSeconds", &HpaScalingRulesConfig::stabilization_window_seconds,
              "Seconds of past recommendations considered before changing in this direction: scale-down uses "
              "the highest, scale-up the lowest (0 to 3600; default: 0 for scaleUp, the controller's "
              "downscale stabilization window, 300, for scaleDown)."),
        field("selectPolicy", &HpaScalingRulesConfig::select_policy,
              "Which policy limits the change when several apply: Max (the one allowing the largest change, "
              "default), Min (the smallest), or Disabled (no change in this direction)."),
        field("policies", &HpaScalingRulesConfig::policies,
              "Rate limits (default scaleUp: 4 Pods and 100 Percent per 15 s; scaleDown: 100 Percent per "
              "15 s)."),
        field("tolerance", &HpaScalingRulesConfig::tolerance,
              "Relative deviation of the metric from its target ignored in this direction, e.g. 0.05 (>= 0; "
              "default: the controller's 0.1).",
              kNonNegative),
    };
  }
};

struct HpaBehaviorConfig {
  HpaScalingRulesConfig scale_up;
  HpaScalingRulesConfig scale_down;

  static constexpr std::string_view kTypeName = "HpaBehavior";
  static constexpr auto fields() {
    return std::tuple{
        field("scaleUp", &HpaBehaviorConfig::scale_up, "Rules for adding pods (default: see HpaScalingRules)."),
        field("scaleDown", &HpaBehaviorConfig::scale_down,
              "Rules for removing pods (default: see HpaScalingRules)."),
    };
  }

  // The API server's checks, with its messages; field paths like
  // "scaleUp.policies[1].periodSeconds".
  std::vector<ConfigProblem> validate() const;
};

// The checks for one direction; `prefix` is "scaleUp" or "scaleDown".
std::vector<ConfigProblem> validate_hpa_scaling_rules(const HpaScalingRulesConfig& rules, std::string_view prefix);

// --- Effective rules ---------------------------------------------------------

enum class HpaPolicyType : std::uint8_t { kPods, kPercent };
enum class HpaSelectPolicy : std::uint8_t { kMax, kMin, kDisabled };

const char* to_string(HpaPolicyType type);
const char* to_string(HpaSelectPolicy select);
std::optional<HpaPolicyType> hpa_policy_type_from_string(std::string_view name);
std::optional<HpaSelectPolicy> hpa_select_policy_from_string(std::string_view name);

struct HpaScalingPolicy {
  HpaPolicyType type = HpaPolicyType::kPods;
  std::int32_t value = 0;
  std::int32_t period_seconds = 0;
  friend bool operator==(const HpaScalingPolicy&, const HpaScalingPolicy&) = default;
};

struct HpaScalingRules {
  std::int32_t stabilization_window_seconds = 0;
  HpaSelectPolicy select_policy = HpaSelectPolicy::kMax;
  std::vector<HpaScalingPolicy> policies;
  std::optional<double> tolerance;
  friend bool operator==(const HpaScalingRules&, const HpaScalingRules&) = default;
};

struct HpaBehavior {
  HpaScalingRules scale_up;
  HpaScalingRules scale_down;
  friend bool operator==(const HpaBehavior&, const HpaBehavior&) = default;
};

// GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: every field the user
// left out is taken from the defaults; given fields are kept as they are. The
// scale-down window stays empty here, as upstream: the API server cannot know
// the controller's --horizontal-pod-autoscaler-downscale-stabilization.
HpaScalingRulesConfig generate_hpa_scale_up_rules(const HpaScalingRulesConfig& rules);
HpaScalingRulesConfig generate_hpa_scale_down_rules(const HpaScalingRulesConfig& rules);

// The defaults, fully resolved (scale-down window from the controller's).
HpaScalingRules hpa_default_scale_up_rules();
HpaScalingRules hpa_default_scale_down_rules(
    Duration downscale_stabilization_window = kHpaDefaultDownscaleStabilizationWindow);

// Defaulting, then the controller's fill-in of an absent scale-down window
// (whole seconds of `downscale_stabilization_window`, truncated as upstream).
// Throws SimulationError if the config does not validate.
HpaBehavior resolve_hpa_behavior(const HpaBehaviorConfig& config,
                                 Duration downscale_stabilization_window = kHpaDefaultDownscaleStabilizationWindow);

// The usage-ratio tolerances the replica calculation uses (Kubernetes
// HorizontalController.tolerancesForHpa with HPAConfigurableTolerance on):
// the behavior's per-direction tolerance where given, else the controller's.
struct HpaScalingTolerances {
  double scale_up = 0.1;
  double scale_down = 0.1;
};
inline constexpr double kHpaDefaultTolerance = 0.1;  // --horizontal-pod-autoscaler-tolerance
HpaScalingTolerances hpa_scaling_tolerances(const HpaBehavior* behavior,
                                            double controller_tolerance = kHpaDefaultTolerance);

}  // namespace drsim

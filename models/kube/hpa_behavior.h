#pragma once
// The Kubernetes HPA controller's replica normalisation, as pure functions
// (port of pkg/controller/podautoscaler/horizontal.go). The replica
// calculation proposes a count from the metrics; normalisation decides what
// the controller actually writes to the scale subresource, and that is what
// shapes an HPA's response to a disaster: how quickly a surviving zone's
// deployment grows when load shifts onto it, and how long it keeps the extra
// pods afterwards.
//
// Two paths, as upstream:
//   - legacy (the HPA has no `behavior`): the highest recommendation of the
//     last downscale-stabilisation window (default 5 min) is taken, then
//     clamped to [minReplicas, maxReplicas] and to the scale-up limit
//     max(2 x current, 4);
//   - with behavior: the recommendation is held between the lowest of the
//     scale-up window and the highest of the scale-down window, then limited
//     by the policies, counting the changes already made within each
//     policy's period (the scale events).
// Each returns the replicas and the conditions the controller would set
// (AbleToScale reason, ScalingLimited status and reason).
//
// The controller keeps, per HPA, the unstabilised recommendations and the
// scale-up and scale-down events: HpaScalingHistory. Upstream never deletes
// an entry; it reuses one that has left every window, so a history has at
// most as many entries as syncs fit in the longest window (plus one): 21 for
// a 5-minute window at the 15 s sync period.
//
// Upstream reads time.Now() inside each function; here `now` is an argument,
// so a sync is one instant. Comparisons stay strict as Go's Before/After: an
// entry exactly `window` old is out of the window.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "models/kube/hpa_behavior_config.h"
#include "sim/time.h"

namespace drsim {

// The legacy scale-up limit: max(factor x current, minimum). Upstream's
// package variables scaleUpLimitFactor and scaleUpLimitMinimum (its tests set
// the factor to 8; production is 2).
inline constexpr double kHpaScaleUpLimitFactor = 2.0;
inline constexpr double kHpaScaleUpLimitMinimum = 4.0;

struct HpaRecommendation {  // timestampedRecommendation
  std::int32_t recommendation = 0;
  SimTime timestamp{};
  friend bool operator==(const HpaRecommendation&, const HpaRecommendation&) = default;
};

struct HpaScaleEvent {  // timestampedScaleEvent
  std::int32_t replica_change = 0;  // always positive: up and down events are kept apart
  SimTime timestamp{};
  bool outdated = false;  // older than the longest policy period: the slot may be reused
  friend bool operator==(const HpaScaleEvent&, const HpaScaleEvent&) = default;
};

// The ScalingLimited condition's reason (status True when it changed the
// stabilised recommendation).
enum class HpaLimitReason : std::uint8_t {
  kDesiredWithinRange,
  kScaleUpLimit,
  kScaleDownLimit,
  kTooManyReplicas,
  kTooFewReplicas,
};
// The AbleToScale condition's reason (status True) after normalisation.
enum class HpaAbleToScaleReason : std::uint8_t {
  kReadyForNewScale,
  kScaleUpStabilized,
  kScaleDownStabilized,
};
const char* to_string(HpaLimitReason reason);
const char* to_string(HpaAbleToScaleReason reason);
// The condition messages, verbatim from the controller.
const char* hpa_condition_message(HpaLimitReason reason);
const char* hpa_condition_message(HpaAbleToScaleReason reason);

struct HpaLimitedReplicas {
  std::int32_t replicas = 0;
  HpaLimitReason reason = HpaLimitReason::kDesiredWithinRange;
};

// What normalisation works on (upstream's NormalizationArg without the key
// and the behavior, which are passed separately).
struct HpaNormalizationInput {
  std::int32_t current_replicas = 0;  // scale.spec.replicas
  std::int32_t desired_replicas = 0;  // prenormalised: the metrics' proposal
  std::int32_t min_replicas = 1;
  std::int32_t max_replicas = 1;
};

struct HpaNormalization {
  std::int32_t desired_replicas = 0;           // what the controller scales to
  std::int32_t stabilized_recommendation = 0;  // before the rate and min/max limits
  HpaAbleToScaleReason able_to_scale = HpaAbleToScaleReason::kReadyForNewScale;
  bool scaling_limited = false;  // ScalingLimited status: desired != stabilised
  HpaLimitReason limit_reason = HpaLimitReason::kDesiredWithinRange;
};

// Per-HPA controller state. Plain data, so that tests and callers can seed it;
// the member functions are the controller's updates of it.
struct HpaScalingHistory {
  std::vector<HpaRecommendation> recommendations;
  std::vector<HpaScaleEvent> scale_up_events;
  std::vector<HpaScaleEvent> scale_down_events;

  // recordInitialRecommendation: on the first sync, the current replica count
  // counts as a recommendation, so that a restarted controller does not
  // scale down at once on a history it has lost.
  void record_initial_recommendation(std::int32_t current_replicas, SimTime now);

  // stabilizeRecommendation (legacy): the highest recommendation newer than
  // now - window, including this one, which is then recorded.
  std::int32_t stabilize_recommendation(std::int32_t prenormalized_desired, Duration downscale_window, SimTime now);

  struct Stabilized {
    std::int32_t replicas = 0;
    HpaAbleToScaleReason reason = HpaAbleToScaleReason::kScaleUpStabilized;  // used only if replicas changed
  };
  // stabilizeRecommendationWithBehaviors: current replicas clamped between the
  // lowest recommendation of the scale-up window and the highest of the
  // scale-down window (both including this one, which is then recorded).
  Stabilized stabilize_recommendation_with_behaviors(const HpaNormalizationInput& in, const HpaBehavior& behavior,
                                                     SimTime now);

  // storeScaleEvent: after a successful rescale. Without behavior nothing is
  // stored (the legacy path never reads events).
  void store_scale_event(const HpaBehavior* behavior, std::int32_t prev_replicas, std::int32_t new_replicas,
                         SimTime now);

  void clear() {
    recommendations.clear();
    scale_up_events.clear();
    scale_down_events.clear();
  }
};

// --- The steps, as upstream's package functions ------------------------------

// calculateScaleUpLimit.
std::int32_t hpa_scale_up_limit(std::int32_t current_replicas, double factor = kHpaScaleUpLimitFactor,
                                double minimum = kHpaScaleUpLimitMinimum);

// convertDesiredReplicasWithRules (legacy): min/max and the scale-up limit.
HpaLimitedReplicas hpa_convert_desired_replicas_with_rules(std::int32_t current_replicas,
                                                           std::int32_t desired_replicas,
                                                           std::int32_t min_replicas, std::int32_t max_replicas,
                                                           double scale_up_limit_factor = kHpaScaleUpLimitFactor);

// getReplicasChangePerPeriod: the sum of the changes newer than now - period.
std::int32_t hpa_replicas_change_per_period(std::int32_t period_seconds, std::span<const HpaScaleEvent> events,
                                            SimTime now);

// getLongestPolicyPeriod.
std::int32_t hpa_longest_policy_period(const HpaScalingRules& rules);

// markScaleEventsOutdated: flags the events older than now - longest period.
void hpa_mark_scale_events_outdated(std::span<HpaScaleEvent> events, std::int32_t longest_policy_period,
                                    SimTime now);

// calculateScaleUpLimitWithScalingRules: the most replicas the policies allow
// (may be below current after a policy change; the caller holds at current).
std::int32_t hpa_scale_up_limit_with_rules(std::int32_t current_replicas, std::span<const HpaScaleEvent> up_events,
                                           std::span<const HpaScaleEvent> down_events, const HpaScalingRules& rules,
                                           SimTime now);

// calculateScaleDownLimitWithBehaviors: the fewest replicas the policies allow.
std::int32_t hpa_scale_down_limit_with_rules(std::int32_t current_replicas, std::span<const HpaScaleEvent> up_events,
                                             std::span<const HpaScaleEvent> down_events,
                                             const HpaScalingRules& rules, SimTime now);

// convertDesiredReplicasWithBehaviorRate: min/max and the policies' rate.
// `in.desired_replicas` is the stabilised recommendation.
HpaLimitedReplicas hpa_convert_desired_replicas_with_behavior_rate(const HpaNormalizationInput& in,
                                                                   const HpaBehavior& behavior,
                                                                   const HpaScalingHistory& history, SimTime now);

// --- Whole normalisation ------------------------------------------------------

// normalizeDesiredReplicas (no behavior). Records the recommendation.
HpaNormalization hpa_normalize_desired_replicas(HpaScalingHistory& history, const HpaNormalizationInput& in,
                                                SimTime now,
                                                Duration downscale_window = kHpaDefaultDownscaleStabilizationWindow,
                                                double scale_up_limit_factor = kHpaScaleUpLimitFactor);

// normalizeDesiredReplicasWithBehaviors. Records the recommendation; the
// scale event is stored by the caller once the rescale happened
// (store_scale_event), as upstream.
HpaNormalization hpa_normalize_desired_replicas_with_behaviors(HpaScalingHistory& history,
                                                               const HpaNormalizationInput& in,
                                                               const HpaBehavior& behavior, SimTime now);

// --- One sync ----------------------------------------------------------------

// The replica decision of reconcileAutoscaler around normalisation: scaling
// is off while the target has 0 replicas (and minReplicas > 0: scale-to-zero,
// an alpha feature, is not modelled); a count outside [min, max] is corrected
// at once without metrics; otherwise the metrics' proposal is normalised. On a
// rescale the scale event is stored, as after a successful update upstream.
struct HpaReconcileInput {
  std::int32_t current_replicas = 0;
  std::int32_t metric_desired_replicas = 0;  // computeReplicasForMetrics' proposal
  std::int32_t min_replicas = 1;
  std::int32_t max_replicas = 1;
};

enum class HpaRescaleReason : std::uint8_t {
  kNone,                // no rescale
  kAboveMaxReplicas,    // "Current number of replicas above Spec.MaxReplicas"
  kBelowMinReplicas,    // "Current number of replicas below Spec.MinReplicas"
  kMetricAboveTarget,   // "<metric> above target"
  kAllMetricsBelowTarget,  // "All metrics below target"
};
const char* to_string(HpaRescaleReason reason);

struct HpaReconcileDecision {
  std::int32_t desired_replicas = 0;  // status.desiredReplicas: current when not rescaling
  bool rescale = false;
  bool scaling_disabled = false;  // ScalingActive False "ScalingDisabled"
  HpaRescaleReason reason = HpaRescaleReason::kNone;
  std::optional<HpaNormalization> normalization;  // set when the metrics' proposal was normalised
};

HpaReconcileDecision hpa_reconcile_replicas(HpaScalingHistory& history, const HpaReconcileInput& in,
                                            const HpaBehavior* behavior, SimTime now,
                                            Duration downscale_window = kHpaDefaultDownscaleStabilizationWindow);

}  // namespace drsim

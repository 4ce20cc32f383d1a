#include "models/kube/hpa_behavior.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace drsim {

namespace {

constexpr std::int32_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int32_t kInt32Min = std::numeric_limits<std::int32_t>::min();

// Upstream computes in int32 and float64. The arithmetic here is done wider
// and saturated on the way back, so that an absurd policy (Pods 2^31 - 1)
// cannot overflow; within int32 the results are the same.
std::int32_t saturate(std::int64_t v) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, kInt32Min, kInt32Max));
}
// Go's int32(float64) truncates toward zero, as static_cast does.
std::int32_t saturate(double v) {
  if (v >= static_cast<double>(kInt32Max)) return kInt32Max;
  if (v <= static_cast<double>(kInt32Min)) return kInt32Min;
  return static_cast<std::int32_t>(v);
}

Duration seconds(std::int32_t s) { return std::chrono::seconds(s); }

// Replicas at the start of a policy's period: what the policy's allowance is
// measured from, so that a burst of small changes cannot add up to more than
// the policy allows per period. A scale-down within the period gives its pods
// back to a later scale-up's base and vice versa.
std::int64_t period_start_replicas(std::int32_t current, const HpaScalingPolicy& policy,
                                   std::span<const HpaScaleEvent> up_events,
                                   std::span<const HpaScaleEvent> down_events, SimTime now) {
  const std::int64_t added = hpa_replicas_change_per_period(policy.period_seconds, up_events, now);
  const std::int64_t deleted = hpa_replicas_change_per_period(policy.period_seconds, down_events, now);
  return std::int64_t{current} - added + deleted;
}

// Appends, or overwrites the last entry flagged outdated. Upstream reuses the
// last outdated slot found, leaving earlier outdated ones flagged in place.
void store_event(std::vector<HpaScaleEvent>& events, const HpaScalingRules& rules, std::int32_t change,
                 SimTime now) {
  hpa_mark_scale_events_outdated(events, hpa_longest_policy_period(rules), now);
  const HpaScaleEvent event{change, now, false};
  for (std::size_t i = events.size(); i-- > 0;) {
    if (events[i].outdated) {
      events[i] = event;
      return;
    }
  }
  events.push_back(event);
}

}  // namespace

const char* to_string(HpaLimitReason reason) {
  switch (reason) {
    case HpaLimitReason::kDesiredWithinRange: return "DesiredWithinRange";
    case HpaLimitReason::kScaleUpLimit: return "ScaleUpLimit";
    case HpaLimitReason::kScaleDownLimit: return "ScaleDownLimit";
    case HpaLimitReason::kTooManyReplicas: return "TooManyReplicas";
    case HpaLimitReason::kTooFewReplicas: return "TooFewReplicas";
  }
  return "unknown";
}

const char* to_string(HpaAbleToScaleReason reason) {
  switch (reason) {
    case HpaAbleToScaleReason::kReadyForNewScale: return "ReadyForNewScale";
    case HpaAbleToScaleReason::kScaleUpStabilized: return "ScaleUpStabilized";
    case HpaAbleToScaleReason::kScaleDownStabilized: return "ScaleDownStabilized";
  }
  return "unknown";
}

const char* hpa_condition_message(HpaLimitReason reason) {
  switch (reason) {
    case HpaLimitReason::kDesiredWithinRange: return "the desired count is within the acceptable range";
    case HpaLimitReason::kScaleUpLimit:
      return "the desired replica count is increasing faster than the maximum scale rate";
    case HpaLimitReason::kScaleDownLimit:
      return "the desired replica count is decreasing faster than the maximum scale rate";
    case HpaLimitReason::kTooManyReplicas: return "the desired replica count is more than the maximum replica count";
    case HpaLimitReason::kTooFewReplicas: return "the desired replica count is less than the minimum replica count";
  }
  return "";
}

const char* hpa_condition_message(HpaAbleToScaleReason reason) {
  switch (reason) {
    case HpaAbleToScaleReason::kReadyForNewScale: return "recommended size matches current size";
    case HpaAbleToScaleReason::kScaleUpStabilized:
      return "recent recommendations were lower than current one, applying the lowest recent recommendation";
    case HpaAbleToScaleReason::kScaleDownStabilized:
      return "recent recommendations were higher than current one, applying the highest recent recommendation";
  }
  return "";
}

const char* to_string(HpaRescaleReason reason) {
  switch (reason) {
    case HpaRescaleReason::kNone: return "";
    case HpaRescaleReason::kAboveMaxReplicas: return "Current number of replicas above Spec.MaxReplicas";
    case HpaRescaleReason::kBelowMinReplicas: return "Current number of replicas below Spec.MinReplicas";
    case HpaRescaleReason::kMetricAboveTarget: return "metric above target";
    case HpaRescaleReason::kAllMetricsBelowTarget: return "All metrics below target";
  }
  return "";
}

// --- History -----------------------------------------------------------------

void HpaScalingHistory::record_initial_recommendation(std::int32_t current_replicas, SimTime now) {
  // Upstream checks for a nil slice; an HPA whose history was emptied is new.
  if (recommendations.empty()) recommendations.push_back({current_replicas, now});
}

std::int32_t HpaScalingHistory::stabilize_recommendation(std::int32_t prenormalized_desired, Duration downscale_window,
                                                         SimTime now) {
  std::int32_t max_recommendation = prenormalized_desired;
  const SimTime cutoff = now - downscale_window;
  std::optional<std::size_t> old_index;  // the last entry out of the window: its slot is reused
  for (std::size_t i = 0; i < recommendations.size(); ++i) {
    const HpaRecommendation& rec = recommendations[i];
    if (rec.timestamp < cutoff) {
      old_index = i;
    } else if (rec.recommendation > max_recommendation) {
      max_recommendation = rec.recommendation;
    }
  }
  const HpaRecommendation fresh{prenormalized_desired, now};
  if (old_index) {
    recommendations[*old_index] = fresh;
  } else {
    recommendations.push_back(fresh);
  }
  return max_recommendation;
}

HpaScalingHistory::Stabilized HpaScalingHistory::stabilize_recommendation_with_behaviors(
    const HpaNormalizationInput& in, const HpaBehavior& behavior, SimTime now) {
  const SimTime up_cutoff = now - seconds(behavior.scale_up.stabilization_window_seconds);
  const SimTime down_cutoff = now - seconds(behavior.scale_down.stabilization_window_seconds);
  // The scale-up window bounds the recommendation from below (a spike must
  // last the whole window before it is followed), the scale-down window from
  // above (a dip must last its whole window).
  std::int32_t up_recommendation = in.desired_replicas;
  std::int32_t down_recommendation = in.desired_replicas;
  std::optional<std::size_t> old_index;
  for (std::size_t i = 0; i < recommendations.size(); ++i) {
    const HpaRecommendation& rec = recommendations[i];
    if (rec.timestamp > up_cutoff) up_recommendation = std::min(rec.recommendation, up_recommendation);
    if (rec.timestamp > down_cutoff) down_recommendation = std::max(rec.recommendation, down_recommendation);
    if (rec.timestamp < up_cutoff && rec.timestamp < down_cutoff) old_index = i;
  }
  // Starting from the current count (not from the recommendation) is what
  // keeps the HPA still while the two windows disagree.
  std::int32_t recommendation = in.current_replicas;
  if (recommendation < up_recommendation) recommendation = up_recommendation;
  if (recommendation > down_recommendation) recommendation = down_recommendation;

  const HpaRecommendation fresh{in.desired_replicas, now};
  if (old_index) {
    recommendations[*old_index] = fresh;
  } else {
    recommendations.push_back(fresh);
  }
  const HpaAbleToScaleReason reason = in.desired_replicas >= in.current_replicas
                                          ? HpaAbleToScaleReason::kScaleUpStabilized
                                          : HpaAbleToScaleReason::kScaleDownStabilized;
  return {recommendation, reason};
}

void HpaScalingHistory::store_scale_event(const HpaBehavior* behavior, std::int32_t prev_replicas,
                                          std::int32_t new_replicas, SimTime now) {
  if (behavior == nullptr) return;
  if (new_replicas > prev_replicas) {
    store_event(scale_up_events, behavior->scale_up, new_replicas - prev_replicas, now);
  } else {
    // Upstream files an unchanged count (which the controller never stores,
    // as it only stores after a rescale) as a scale-down of 0.
    store_event(scale_down_events, behavior->scale_down, prev_replicas - new_replicas, now);
  }
}

// --- Steps -------------------------------------------------------------------

std::int32_t hpa_scale_up_limit(std::int32_t current_replicas, double factor, double minimum) {
  return saturate(std::max(factor * static_cast<double>(current_replicas), minimum));
}

HpaLimitedReplicas hpa_convert_desired_replicas_with_rules(std::int32_t current_replicas,
                                                           std::int32_t desired_replicas,
                                                           std::int32_t min_replicas, std::int32_t max_replicas,
                                                           double scale_up_limit_factor) {
  // The scale-up limit guards against a bogus metric spike (kubernetes issue
  // #32304) multiplying the replica count in one sync.
  const std::int32_t scale_up_limit = hpa_scale_up_limit(current_replicas, scale_up_limit_factor);
  std::int32_t maximum_allowed = max_replicas;
  HpaLimitReason upper_reason = HpaLimitReason::kTooManyReplicas;
  if (max_replicas > scale_up_limit) {
    maximum_allowed = scale_up_limit;
    upper_reason = HpaLimitReason::kScaleUpLimit;
  }
  if (desired_replicas < min_replicas) return {min_replicas, HpaLimitReason::kTooFewReplicas};
  if (desired_replicas > maximum_allowed) return {maximum_allowed, upper_reason};
  return {desired_replicas, HpaLimitReason::kDesiredWithinRange};
}

std::int32_t hpa_replicas_change_per_period(std::int32_t period_seconds, std::span<const HpaScaleEvent> events,
                                            SimTime now) {
  const SimTime cutoff = now - seconds(period_seconds);
  std::int64_t replicas = 0;
  // Outdated events are not skipped, as upstream: they are older than every
  // policy period anyway, unless the policies changed since.
  for (const HpaScaleEvent& e : events) {
    if (e.timestamp > cutoff) replicas += e.replica_change;
  }
  return saturate(replicas);
}

std::int32_t hpa_longest_policy_period(const HpaScalingRules& rules) {
  std::int32_t longest = 0;
  for (const HpaScalingPolicy& p : rules.policies) longest = std::max(longest, p.period_seconds);
  return longest;
}

void hpa_mark_scale_events_outdated(std::span<HpaScaleEvent> events, std::int32_t longest_policy_period,
                                    SimTime now) {
  const SimTime cutoff = now - seconds(longest_policy_period);
  for (HpaScaleEvent& e : events) {
    if (e.timestamp < cutoff) e.outdated = true;
  }
}

std::int32_t hpa_scale_up_limit_with_rules(std::int32_t current_replicas, std::span<const HpaScaleEvent> up_events,
                                           std::span<const HpaScaleEvent> down_events, const HpaScalingRules& rules,
                                           SimTime now) {
  if (rules.select_policy == HpaSelectPolicy::kDisabled) return current_replicas;
  // For scaling up, Min selects the smallest proposal, Max the largest.
  const bool pick_min = rules.select_policy == HpaSelectPolicy::kMin;
  std::int32_t result = pick_min ? kInt32Max : kInt32Min;
  for (const HpaScalingPolicy& policy : rules.policies) {
    const std::int64_t start = period_start_replicas(current_replicas, policy, up_events, down_events, now);
    std::int32_t proposed = 0;
    if (policy.type == HpaPolicyType::kPods) {
      proposed = saturate(start + policy.value);
    } else {
      // Rounded up: otherwise a small percentage of a small count would never
      // add a pod and the target could never scale up.
      proposed = saturate(std::ceil(static_cast<double>(start) * (1 + static_cast<double>(policy.value) / 100)));
    }
    result = pick_min ? std::min(result, proposed) : std::max(result, proposed);
  }
  return result;
}

std::int32_t hpa_scale_down_limit_with_rules(std::int32_t current_replicas, std::span<const HpaScaleEvent> up_events,
                                             std::span<const HpaScaleEvent> down_events,
                                             const HpaScalingRules& rules, SimTime now) {
  if (rules.select_policy == HpaSelectPolicy::kDisabled) return current_replicas;
  // For scaling down the smallest change is the largest count: Min picks the
  // largest proposal, Max the smallest.
  const bool pick_min_change = rules.select_policy == HpaSelectPolicy::kMin;
  std::int32_t result = pick_min_change ? kInt32Min : kInt32Max;
  for (const HpaScalingPolicy& policy : rules.policies) {
    const std::int64_t start = period_start_replicas(current_replicas, policy, up_events, down_events, now);
    std::int32_t proposed = 0;
    if (policy.type == HpaPolicyType::kPods) {
      proposed = saturate(start - policy.value);
    } else {
      // Truncated toward zero (Go's int32 conversion), so a percentage never
      // removes more than it says.
      proposed = saturate(static_cast<double>(start) * (1 - static_cast<double>(policy.value) / 100));
    }
    result = pick_min_change ? std::max(result, proposed) : std::min(result, proposed);
  }
  return result;
}

HpaLimitedReplicas hpa_convert_desired_replicas_with_behavior_rate(const HpaNormalizationInput& in,
                                                                   const HpaBehavior& behavior,
                                                                   const HpaScalingHistory& history, SimTime now) {
  if (in.desired_replicas > in.current_replicas) {
    std::int32_t scale_up_limit = hpa_scale_up_limit_with_rules(in.current_replicas, history.scale_up_events,
                                                                history.scale_down_events, behavior.scale_up, now);
    // After a policy change the events of the period can already exceed the
    // new allowance: hold at the current count until they age out.
    scale_up_limit = std::max(scale_up_limit, in.current_replicas);
    std::int32_t maximum_allowed = in.max_replicas;
    HpaLimitReason reason = HpaLimitReason::kTooManyReplicas;
    if (maximum_allowed > scale_up_limit) {
      maximum_allowed = scale_up_limit;
      reason = HpaLimitReason::kScaleUpLimit;
    }
    if (in.desired_replicas > maximum_allowed) return {maximum_allowed, reason};
  } else if (in.desired_replicas < in.current_replicas) {
    std::int32_t scale_down_limit = hpa_scale_down_limit_with_rules(
        in.current_replicas, history.scale_up_events, history.scale_down_events, behavior.scale_down, now);
    scale_down_limit = std::min(scale_down_limit, in.current_replicas);
    std::int32_t minimum_allowed = in.min_replicas;
    HpaLimitReason reason = HpaLimitReason::kTooFewReplicas;
    if (minimum_allowed < scale_down_limit) {
      minimum_allowed = scale_down_limit;
      reason = HpaLimitReason::kScaleDownLimit;
    }
    if (in.desired_replicas < minimum_allowed) return {minimum_allowed, reason};
  }
  // Note: with desired == current, min/max are not applied here; the sync
  // corrects a count outside [min, max] before normalising.
  return {in.desired_replicas, HpaLimitReason::kDesiredWithinRange};
}

// --- Whole normalisation -------------------------------------------------------

HpaNormalization hpa_normalize_desired_replicas(HpaScalingHistory& history, const HpaNormalizationInput& in,
                                                SimTime now, Duration downscale_window,
                                                double scale_up_limit_factor) {
  HpaNormalization out;
  out.stabilized_recommendation = history.stabilize_recommendation(in.desired_replicas, downscale_window, now);
  out.able_to_scale = out.stabilized_recommendation != in.desired_replicas
                          ? HpaAbleToScaleReason::kScaleDownStabilized
                          : HpaAbleToScaleReason::kReadyForNewScale;
  const HpaLimitedReplicas limited =
      hpa_convert_desired_replicas_with_rules(in.current_replicas, out.stabilized_recommendation, in.min_replicas,
                                              in.max_replicas, scale_up_limit_factor);
  out.desired_replicas = limited.replicas;
  out.limit_reason = limited.reason;
  out.scaling_limited = limited.replicas != out.stabilized_recommendation;
  return out;
}

HpaNormalization hpa_normalize_desired_replicas_with_behaviors(HpaScalingHistory& history,
                                                               const HpaNormalizationInput& in,
                                                               const HpaBehavior& behavior, SimTime now) {
  HpaNormalization out;
  const HpaScalingHistory::Stabilized stabilized = history.stabilize_recommendation_with_behaviors(in, behavior, now);
  out.stabilized_recommendation = stabilized.replicas;
  out.able_to_scale = stabilized.replicas != in.desired_replicas ? stabilized.reason
                                                                  : HpaAbleToScaleReason::kReadyForNewScale;
  HpaNormalizationInput limited_in = in;
  limited_in.desired_replicas = stabilized.replicas;
  const HpaLimitedReplicas limited =
      hpa_convert_desired_replicas_with_behavior_rate(limited_in, behavior, history, now);
  out.desired_replicas = limited.replicas;
  out.limit_reason = limited.reason;
  out.scaling_limited = limited.replicas != stabilized.replicas;
  return out;
}

HpaReconcileDecision hpa_reconcile_replicas(HpaScalingHistory& history, const HpaReconcileInput& in,
                                            const HpaBehavior* behavior, SimTime now, Duration downscale_window) {
  HpaReconcileDecision out;
  history.record_initial_recommendation(in.current_replicas, now);
  std::int32_t desired = 0;
  bool rescale = true;
  if (in.current_replicas == 0 && in.min_replicas != 0) {
    // A target scaled to zero by hand stays there: the HPA is switched off.
    out.scaling_disabled = true;
    rescale = false;
  } else if (in.current_replicas > in.max_replicas) {
    out.reason = HpaRescaleReason::kAboveMaxReplicas;
    desired = in.max_replicas;
  } else if (in.current_replicas < in.min_replicas) {
    out.reason = HpaRescaleReason::kBelowMinReplicas;
    desired = in.min_replicas;
  } else {
    desired = std::max(in.metric_desired_replicas, 0);
    if (desired > in.current_replicas) out.reason = HpaRescaleReason::kMetricAboveTarget;
    if (desired < in.current_replicas) out.reason = HpaRescaleReason::kAllMetricsBelowTarget;
    const HpaNormalizationInput norm_in{in.current_replicas, desired, in.min_replicas, in.max_replicas};
    out.normalization = behavior != nullptr
                            ? hpa_normalize_desired_replicas_with_behaviors(history, norm_in, *behavior, now)
                            : hpa_normalize_desired_replicas(history, norm_in, now, downscale_window);
    desired = out.normalization->desired_replicas;
    rescale = desired != in.current_replicas;
  }
  out.rescale = rescale;
  if (rescale) {
    history.store_scale_event(behavior, in.current_replicas, desired, now);
    out.desired_replicas = desired;
  } else {
    out.desired_replicas = in.current_replicas;
    out.reason = HpaRescaleReason::kNone;
  }
  return out;
}

}  // namespace drsim

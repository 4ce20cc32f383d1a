#include "models/kube/hpa_controller.h"

#include <algorithm>

namespace drsim {

HpaController::HpaController(HpaConfig config, const HpaControllerConfig& controller)
    : config_(std::move(config)), downscale_stabilization_(controller.downscale_stabilization) {
  if (config_.behavior) behavior_ = resolve_hpa_behavior(*config_.behavior, downscale_stabilization_);
  const HpaScalingTolerances t = hpa_scaling_tolerances(behavior_ ? &*behavior_ : nullptr, controller.tolerance);
  options_.tolerances = Tolerances{.scale_down = t.scale_down, .scale_up = t.scale_up};
  options_.cpu_initialization_period = controller.cpu_initialization_period;
  options_.delay_of_initial_readiness_status = controller.initial_readiness_delay;
}

CalcResult<HpaController::Proposal> HpaController::propose(const HpaMetricConfig& metric,
                                                           const HpaSyncInput& in) const {
  const HpaMetricTargetConfig& target = metric.resource.target;
  const std::int32_t current = in.current_replicas - in.replicas_set_aside;
  if (target.type == "Utilization") {
    const auto r = resource_utilization_replicas(current, *target.average_utilization, ResourceName::kCpu, "", in.pods,
                                                 in.cpu, in.now, options_);
    if (!r.ok()) return CalcResult<Proposal>::failure(r.error);
    return CalcResult<Proposal>{Proposal{r.value->replicas, r.value->utilization, r.value->raw_average_milli}, {}};
  }
  const auto r = raw_resource_replicas(current, target.average_value->millicores, ResourceName::kCpu, in.pods, in.cpu,
                                       in.now, options_);
  if (!r.ok()) return CalcResult<Proposal>::failure(r.error);
  return CalcResult<Proposal>{Proposal{r.value->replicas, std::nullopt, r.value->usage_milli}, {}};
}

std::optional<double> HpaController::all_pods_utilization(const HpaSyncInput& in) {
  std::int64_t requested = 0;
  std::int64_t used = 0;
  for (const PodInfo& pod : in.pods) {
    if (pod.deleting || pod.phase == PodPhase::kFailed) continue;
    for (const ContainerSpec& c : pod.containers) requested += c.requests.cpu_milli.value_or(0);
  }
  for (const PodMetric& m : in.cpu) used += m.value_milli;
  if (requested == 0) return std::nullopt;
  return 100.0 * static_cast<double>(used) / static_cast<double>(requested);
}

bool HpaController::decided_without_metrics(std::int32_t current_replicas) const {
  const bool disabled = current_replicas == 0 && config_.min_replicas != 0;
  return disabled || current_replicas > config_.max_replicas || current_replicas < config_.min_replicas;
}

HpaSyncResult HpaController::sync(const HpaSyncInput& in) {
  HpaSyncResult out;
  out.desired_replicas = in.current_replicas;
  // reconcileAutoscaler looks at the bounds before the metrics: a target
  // scaled to zero is left alone and a count outside [min, max] is corrected
  // even when no metric can be read (a failed zone's pods report none).
  if (decided_without_metrics(in.current_replicas)) {
    const HpaReconcileDecision d = hpa_reconcile_replicas(
        history_, HpaReconcileInput{in.current_replicas, in.current_replicas, config_.min_replicas, config_.max_replicas},
        behavior_ ? &*behavior_ : nullptr, in.now, downscale_stabilization_);
    out.desired_replicas = d.desired_replicas;
    out.rescale = d.rescale;
    out.proposal = d.desired_replicas;
    out.message = d.scaling_disabled ? "scaling is disabled since the replica count of the target is zero"
                                     : to_string(d.reason);
    return out;
  }
  // computeReplicasForMetrics: the largest proposal; a metric that fails
  // is skipped, but if any failed the HPA does not scale down on the
  // others' word (it might be the one asking for more).
  std::optional<std::int32_t> proposal;
  std::size_t invalid = 0;
  std::string errors;
  for (const HpaMetricConfig& metric : config_.metrics) {
    const auto p = propose(metric, in);
    if (!p.ok()) {
      ++invalid;
      errors += (errors.empty() ? "" : "; ") + p.error;
      continue;
    }
    if (!out.average_milli) {
      out.utilization = p.value->utilization;
      out.average_milli = p.value->average_milli;
    }
    if (!proposal || p.value->replicas > *proposal) proposal = p.value->replicas;
  }
  if (!proposal || (invalid > 0 && *proposal < in.current_replicas - in.replicas_set_aside)) {
    out.message = "invalid metrics (" + std::to_string(invalid) + " of " + std::to_string(config_.metrics.size()) +
                  "): " + errors;
    out.proposal = in.current_replicas;
    return out;
  }
  out.proposal = *proposal;
  out.all_pods_utilization = all_pods_utilization(in);
  const std::int32_t total = *proposal + in.replicas_set_aside;
  const HpaReconcileDecision d = hpa_reconcile_replicas(
      history_, HpaReconcileInput{in.current_replicas, total, config_.min_replicas, config_.max_replicas},
      behavior_ ? &*behavior_ : nullptr, in.now, downscale_stabilization_);
  out.desired_replicas = d.desired_replicas;
  out.rescale = d.rescale;
  const HpaMetricTargetConfig& first = config_.metrics.front().resource.target;
  if (out.utilization) {
    out.message = "cpu " + std::to_string(*out.utilization) + "% of requests, target " +
                  std::to_string(first.average_utilization.value_or(0)) + "%";
  } else if (out.average_milli) {
    out.message = "cpu " + std::to_string(*out.average_milli) + "m per pod";
  }
  out.message += ": proposal " + std::to_string(*proposal) +
                 (in.replicas_set_aside > 0 ? " + " + std::to_string(in.replicas_set_aside) + " set aside" : "") +
                 ", desired " + std::to_string(d.desired_replicas);
  if (d.normalization && d.normalization->limit_reason != HpaLimitReason::kDesiredWithinRange) {
    out.message += std::string(" (") + to_string(d.normalization->limit_reason) + ")";
  }
  if (d.normalization && d.normalization->able_to_scale != HpaAbleToScaleReason::kReadyForNewScale) {
    out.message += std::string(" (") + to_string(d.normalization->able_to_scale) + ")";
  }
  return out;
}

}  // namespace drsim

#include "models/kube/hpa_controller.h"

#include <algorithm>

#include "models/kube/kube_quantity.h"

namespace drsim {

HpaController::HpaController(HpaConfig config, const HpaControllerConfig& controller)
    : config_(std::move(config)), downscale_stabilization_(controller.downscale_stabilization) {
  if (config_.behavior) behavior_ = resolve_hpa_behavior(*config_.behavior, downscale_stabilization_);
  const HpaScalingTolerances t = hpa_scaling_tolerances(behavior_ ? &*behavior_ : nullptr, controller.tolerance);
  options_.tolerances = Tolerances{.scale_down = t.scale_down, .scale_up = t.scale_up};
  options_.cpu_initialization_period = controller.cpu_initialization_period;
  options_.delay_of_initial_readiness_status = controller.initial_readiness_delay;
}

namespace {

std::string quantity(std::int64_t milli) { return format_kube_quantity(MilliQuantity{milli}); }

// The ScalingActive reason upstream gives a metric of this type that failed.
std::string failed_reason(const std::string& type) {
  if (type == "Resource") return "FailedGetResourceMetric";
  if (type == "Pods") return "FailedGetPodsMetric";
  if (type == "Object") return "FailedGetObjectMetric";
  return "FailedGetExternalMetric";
}

}  // namespace

std::variant<HpaController::Proposal, HpaController::Failure> HpaController::propose_resource(
    const HpaResourceMetricConfig& metric, const HpaSyncInput& in) const {
  const HpaMetricTargetConfig& target = metric.target;
  const std::int32_t current = in.current_replicas - in.replicas_set_aside;
  if (target.type == "Utilization") {
    const auto r = resource_utilization_replicas(current, *target.average_utilization, ResourceName::kCpu, "", in.pods,
                                                 in.cpu, in.now, options_);
    if (!r.ok()) return Failure{"FailedGetResourceMetric", r.error};
    return Proposal{r.value->replicas, r.value->utilization, r.value->raw_average_milli,
                    "cpu " + std::to_string(r.value->utilization) + "% of requests, target " +
                        std::to_string(*target.average_utilization) + "%"};
  }
  const auto r = raw_resource_replicas(current, target.average_value->millicores, ResourceName::kCpu, in.pods, in.cpu,
                                       in.now, options_);
  if (!r.ok()) return Failure{"FailedGetResourceMetric", r.error};
  return Proposal{r.value->replicas, std::nullopt, r.value->usage_milli,
                  "cpu " + std::to_string(r.value->usage_milli) + "m per pod"};
}

std::variant<HpaController::Proposal, HpaController::Failure> HpaController::propose_custom(
    const HpaMetricConfig& metric, const HpaMetricReading* reading, const HpaSyncInput& in) const {
  const std::string reason = failed_reason(metric.type);
  if (reading == nullptr) return Failure{reason, "no reading for the " + metric.type + " metric"};
  if (!reading->error.empty()) return Failure{reason, reading->error};
  const std::int32_t current = in.current_replicas - in.replicas_set_aside;
  const std::int32_t status = in.status_replicas.value_or(static_cast<std::int32_t>(in.pods.size()));
  const Tolerances& tol = options_.tolerances;
  CalcResult<UsageReplicas> r;
  std::string name, what, per_pod;
  std::int64_t target = 0;
  if (metric.type == "Pods" && metric.pods) {
    name = metric.pods->metric.name;
    target = metric.pods->target.milli();
    r = pods_metric_replicas(current, target, name, in.pods, reading->pods, in.now, options_);
    per_pod = " per pod";
  } else if (metric.type == "Object" && metric.object) {
    const HpaObjectMetricConfig& o = *metric.object;
    name = o.metric.name;
    what = " of " + o.described_object.kind + " " + o.described_object.name;
    target = o.target.milli();
    if (!reading->value_milli) return Failure{reason, "no value for " + name + what};
    if (o.target.average()) {
      r = object_per_pod_metric_replicas(status, target, *reading->value_milli, reading->timestamp, tol);
      per_pod = " per pod";
    } else {
      r = object_metric_replicas(current, target, *reading->value_milli, in.pods, tol);
    }
  } else if (metric.type == "External" && metric.external) {
    const HpaExternalMetricConfig& e = *metric.external;
    name = e.metric.name;
    target = e.target.milli();
    if (e.target.average()) {
      r = external_per_pod_metric_replicas(status, target, name, reading->values_milli, reading->timestamp, tol);
      per_pod = " per pod";
    } else {
      r = external_metric_replicas(current, target, name, reading->values_milli, in.pods, tol);
    }
  } else {
    return Failure{reason, "the " + metric.type + " metric has no " + metric.type + " block"};
  }
  if (!r.ok()) return Failure{reason, r.error};
  return Proposal{r.value->replicas, std::nullopt, r.value->usage_milli,
                  name + what + " " + quantity(r.value->usage_milli) + per_pod + ", target " + quantity(target)};
}

std::variant<HpaController::Proposal, HpaController::Failure> HpaController::propose(std::size_t index,
                                                                                    const HpaSyncInput& in) const {
  const HpaMetricConfig& metric = config_.metrics[index];
  if (metric.type == "Resource") {
    if (!metric.resource) return Failure{"FailedGetResourceMetric", "the Resource metric has no resource block"};
    return propose_resource(*metric.resource, in);
  }
  if (metric.type == "Pods" || metric.type == "Object" || metric.type == "External") {
    return propose_custom(metric, index < in.readings.size() ? &in.readings[index] : nullptr, in);
  }
  // computeReplicasForMetric's default case: a type the controller does not know.
  return Failure{"InvalidMetricSourceType", "unknown metric source type \"" + metric.type + "\""};
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
    if (d.scaling_disabled) {
      out.conditions = {{"AbleToScale", true, "SucceededGetScale"}, {"ScalingActive", false, "ScalingDisabled"}};
    } else {
      out.conditions = {{"AbleToScale", true, d.rescale ? "SucceededRescale" : "SucceededGetScale"}};
    }
    return out;
  }
  // computeReplicasForMetrics: one proposal per metric, the largest wins. A
  // metric that fails is skipped, but if any failed the HPA does not scale
  // down on the others' word (the failed one might be asking for more): it
  // then changes nothing, its ScalingActive condition False with the first
  // failure's reason.
  std::optional<std::int32_t> proposal;
  std::optional<std::size_t> first_valid, largest;
  std::size_t invalid = 0;
  std::string errors, first_reason;
  std::vector<std::string> descriptions(config_.metrics.size());
  for (std::size_t i = 0; i < config_.metrics.size(); ++i) {
    const auto p = propose(i, in);
    if (const Failure* f = std::get_if<Failure>(&p)) {
      if (invalid++ == 0) first_reason = f->reason;
      errors += (errors.empty() ? "" : "; ") + f->error;
      out.metric_proposals.emplace_back();
      out.invalid_reasons.push_back(f->reason);
      continue;
    }
    const Proposal& ok = std::get<Proposal>(p);
    out.metric_proposals.emplace_back(ok.replicas);
    out.invalid_reasons.emplace_back();
    descriptions[i] = ok.description;
    if (!first_valid) {
      first_valid = i;
      out.utilization = ok.utilization;
      out.average_milli = ok.average_milli;
    }
    if (!proposal || ok.replicas > *proposal) {
      proposal = ok.replicas;
      largest = i;
    }
  }
  if (!proposal || (invalid > 0 && *proposal < in.current_replicas - in.replicas_set_aside)) {
    out.message = "invalid metrics (" + std::to_string(invalid) + " of " + std::to_string(config_.metrics.size()) +
                  "): " + errors;
    out.proposal = in.current_replicas;
    out.conditions = {{"AbleToScale", true, "SucceededGetScale"}, {"ScalingActive", false, first_reason}};
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
  // The message describes the first metric that could be computed (and the
  // largest, where another won), as it did when HPAs took CPU only.
  out.message = descriptions[*first_valid];
  if (*largest != *first_valid) out.message += "; largest " + descriptions[*largest];
  out.message += ": proposal " + std::to_string(*proposal) +
                 (in.replicas_set_aside > 0 ? " + " + std::to_string(in.replicas_set_aside) + " set aside" : "") +
                 ", desired " + std::to_string(d.desired_replicas);
  if (d.normalization && d.normalization->limit_reason != HpaLimitReason::kDesiredWithinRange) {
    out.message += std::string(" (") + to_string(d.normalization->limit_reason) + ")";
  }
  if (d.normalization && d.normalization->able_to_scale != HpaAbleToScaleReason::kReadyForNewScale) {
    out.message += std::string(" (") + to_string(d.normalization->able_to_scale) + ")";
  }
  const std::string able = d.rescale ? "SucceededRescale"
                           : d.normalization ? to_string(d.normalization->able_to_scale)
                                             : "ReadyForNewScale";
  const bool limited = d.normalization && d.normalization->limit_reason != HpaLimitReason::kDesiredWithinRange;
  out.conditions = {{"AbleToScale", true, able},
                    {"ScalingActive", true, "ValidMetricFound"},
                    {"ScalingLimited", limited, d.normalization ? to_string(d.normalization->limit_reason)
                                                                : "DesiredWithinRange"}};
  return out;
}

}  // namespace drsim

#include "models/kube/replica_calculator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace drsim {

namespace {

constexpr std::int32_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();
constexpr std::int32_t kMinInt32 = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMinInt64 = std::numeric_limits<std::int64_t>::min();

// Exact sums: upstream falls back to big integers where int64 sums would overflow.
__extension__ using Int128 = __int128;

const char* const kNoPods = "no pods returned by selector while calculating replica count";

// Go converts out-of-range floats to integers with platform-defined results, and C++ leaves them undefined.
// Upstream clamps explicitly where overflow was reported (object and external metrics); we clamp everywhere,
// which agrees with upstream wherever upstream's result is meaningful. NaN (0/0 from a zero target) gives 0.
std::int32_t ceil_to_int32(double x) {
  if (std::isnan(x)) return 0;
  const double c = std::ceil(x);
  if (c >= static_cast<double>(kMaxInt32)) return kMaxInt32;
  if (c <= static_cast<double>(kMinInt32)) return kMinInt32;
  return static_cast<std::int32_t>(c);
}

std::int64_t ceil_to_int64(double x) {
  if (std::isnan(x)) return 0;
  const double c = std::ceil(x);
  // 2^63 is exactly representable; anything at or above it does not fit.
  if (c >= 9223372036854775808.0) return kMaxInt64;
  if (c <= -9223372036854775808.0) return kMinInt64;
  return static_cast<std::int64_t>(c);
}

std::int64_t saturate_int64(Int128 x) {
  if (x > kMaxInt64) return kMaxInt64;
  if (x < kMinInt64) return kMinInt64;
  return static_cast<std::int64_t>(x);
}

// Upstream keys metrics (PodMetricsInfo) and requests by pod name in Go maps; a repeated name keeps the last entry.
// Keys view strings owned by the caller's vectors, which outlive every call.
using MetricIndex = std::unordered_map<std::string_view, const PodMetric*>;
using ValueMap = std::unordered_map<std::string_view, std::int64_t>;

MetricIndex index_metrics(const std::vector<PodMetric>& metrics) {
  MetricIndex index;
  index.reserve(metrics.size());
  for (const PodMetric& m : metrics) index[m.pod] = &m;
  return index;
}

bool is_ready(const PodInfo& pod) { return pod.ready && pod.ready->status == ConditionStatus::kTrue; }

struct Groups {
  int ready_count = 0;
  std::vector<std::string_view> unready, missing, ignored;
};

// Whether a CPU sample of a running pod should be left out because the pod may still be starting up. CPU is
// special because JVMs and friends burn CPU while they initialise: counting that burst would scale up a
// deployment every time it scaled up.
bool cpu_sample_untrusted(const PodInfo& pod, const PodMetric& metric, SimTime now, Duration cpu_initialization_period,
                          Duration delay_of_initial_readiness_status) {
  // Without a Ready condition or a start time nothing can be said about the pod: distrust it.
  if (!pod.ready || !pod.start_time) return true;
  const PodReadyCondition& ready = *pod.ready;
  if (*pod.start_time + cpu_initialization_period > now) {
    // Young pod: use the sample only if the pod is ready and a whole metric window has passed since it last
    // changed readiness, so that the window holds no start-up CPU.
    return ready.status == ConditionStatus::kFalse || metric.timestamp < ready.last_transition + metric.window;
  }
  // Old enough: an unready pod is still ignored if it has never been ready, which upstream infers from its
  // readiness having last changed within delay_of_initial_readiness_status of its start. A pod that was ready
  // and then failed its probe is counted: its CPU is real.
  return ready.status == ConditionStatus::kFalse &&
         *pod.start_time + delay_of_initial_readiness_status > ready.last_transition;
}

Groups group(const std::vector<PodInfo>& pods, const MetricIndex& metrics, std::optional<ResourceName> resource,
             SimTime now, Duration cpu_initialization_period, Duration delay_of_initial_readiness_status) {
  Groups g;
  for (const PodInfo& pod : pods) {
    // Deleted and failed pods take no part: they are on their way out and their replacements are counted.
    if (pod.deleting || pod.phase == PodPhase::kFailed) {
      g.ignored.push_back(pod.name);
      continue;
    }
    // A pending pod has no meaningful usage yet.
    if (pod.phase == PodPhase::kPending) {
      g.unready.push_back(pod.name);
      continue;
    }
    const auto found = metrics.find(pod.name);
    if (found == metrics.end()) {
      g.missing.push_back(pod.name);
      continue;
    }
    // Readiness only matters for CPU: memory and custom metrics do not spike during start-up.
    if (resource == ResourceName::kCpu &&
        cpu_sample_untrusted(pod, *found->second, now, cpu_initialization_period, delay_of_initial_readiness_status)) {
      g.unready.push_back(pod.name);
      continue;
    }
    ++g.ready_count;
  }
  return g;
}

// The samples the calculation uses: all returned ones (samples of pods the selector did not list included, as
// upstream keeps them) except those of ignored and unready pods.
ValueMap usable_values(const MetricIndex& metrics, const Groups& g) {
  ValueMap values;
  values.reserve(metrics.size());
  for (const auto& [pod, metric] : metrics) values.emplace(pod, metric->value_milli);
  for (std::string_view pod : g.ignored) values.erase(pod);
  for (std::string_view pod : g.unready) values.erase(pod);
  return values;
}

struct Utilization {
  double ratio = 0;
  std::int32_t percent = 0;
  std::int64_t raw_average = 0;
};

// upstream metrics.GetResourceUtilizationRatio: utilisation is a ratio of sums over the pods that have both a
// sample and a request, in integer percent (truncated: 28.9% is 28%), and the ratio compares that integer with
// the target. Samples of unknown pods have no request and drop out here. Sums are exact (128-bit), like the
// big-integer fallback upstream uses when int64 would overflow.
CalcResult<Utilization> utilization_ratio(const ValueMap& metrics, const ValueMap& requests,
                                          std::int32_t target_utilization) {
  Int128 metrics_total = 0;
  Int128 requests_total = 0;
  std::int64_t entries = 0;
  for (const auto& [pod, value] : metrics) {
    const auto request = requests.find(pod);
    if (request == requests.end()) continue;
    metrics_total += value;
    requests_total += request->second;
    ++entries;
  }
  if (requests_total == 0) return CalcResult<Utilization>::failure("no metrics returned matched known pods");
  const Int128 percent = metrics_total * 100 / requests_total;
  if (percent < kMinInt32 || percent > kMaxInt32) {
    return CalcResult<Utilization>::failure("resource utilization " + std::to_string(saturate_int64(percent)) +
                                            " is outside the int32 range");
  }
  Utilization u;
  u.percent = static_cast<std::int32_t>(percent);
  u.ratio = static_cast<double>(u.percent) / static_cast<double>(target_utilization);
  u.raw_average = static_cast<std::int64_t>(metrics_total / entries);  // a mean of int64s fits
  return CalcResult<Utilization>{u, {}};
}

// upstream metrics.GetMetricUsageRatio: the plain mean of every sample (truncated) against the target.
std::pair<double, std::int64_t> usage_ratio(const ValueMap& metrics, std::int64_t target) {
  Int128 total = 0;
  for (const auto& [pod, value] : metrics) total += value;
  const auto usage = static_cast<std::int64_t>(total / static_cast<Int128>(metrics.size()));
  return {static_cast<double>(usage) / static_cast<double>(target), usage};
}

// The rebalance step shared by every per-pod calculation, once the first ratio has shown that some pods are
// unready (and we scale up) or missing: fill in what those pods are assumed to use, re-run the ratio, and keep
// the current count if that lands in the tolerance band or on the other side of 1 (the unknowns would reverse
// the change), or if the count over all considered pods moves against the ratio's direction.
template <typename Recompute>
std::int32_t rebalanced_replicas(std::int32_t current_replicas, double usage_ratio,
                                                const Tolerances& tolerances, const ValueMap& values,
                                                const Recompute& recompute_ratio) {
  const double new_ratio = recompute_ratio();
  if (tolerances.within(new_ratio) || (usage_ratio < 1.0 && new_ratio > 1.0) ||
      (usage_ratio > 1.0 && new_ratio < 1.0)) {
    return current_replicas;
  }
  const std::int32_t new_replicas = ceil_to_int32(new_ratio * static_cast<double>(values.size()));
  if ((new_ratio < 1.0 && new_replicas > current_replicas) || (new_ratio > 1.0 && new_replicas < current_replicas)) {
    return current_replicas;
  }
  return new_replicas;
}

// Ready pods as upstream's getReadyPodsCount counts them for Object and External metrics: running and Ready.
CalcResult<std::int64_t> ready_pods_count(const std::vector<PodInfo>& pods) {
  if (pods.empty()) return CalcResult<std::int64_t>::failure(kNoPods);
  std::int64_t ready = 0;
  for (const PodInfo& pod : pods) {
    if (pod.phase == PodPhase::kRunning && is_ready(pod)) ++ready;
  }
  return CalcResult<std::int64_t>{ready, {}};
}

// upstream getUsageRatioReplicaCount. With no replicas (scale-to-zero HPAs) the ratio alone decides: ceil(ratio)
// wakes the workload with as many pods as the metric needs, and the tolerance does not apply.
CalcResult<std::int32_t> usage_ratio_replica_count(std::int32_t current_replicas, double usage_ratio,
                                                   const Tolerances& tolerances, const std::vector<PodInfo>& pods) {
  if (current_replicas == 0) return CalcResult<std::int32_t>{ceil_to_int32(usage_ratio), {}};
  if (tolerances.within(usage_ratio)) return CalcResult<std::int32_t>{current_replicas, {}};
  const auto ready = ready_pods_count(pods);
  if (!ready.ok()) return CalcResult<std::int32_t>::failure("unable to calculate ready pods: " + ready.error);
  // Object metrics are not averaged over pods, so the scale applies to the ready pods only: an Object metric
  // doubling on three pods of which one is ready asks for two pods, not six.
  return CalcResult<std::int32_t>{ceil_to_int32(usage_ratio * static_cast<double>(*ready.value)), {}};
}

// The request the pod as a whole declares for `resource` when it has pod-level requests (component-helpers
// PodRequests): the pod-level value if set, else what the containers add up to, where sidecars (restartable init
// containers) run alongside the app containers and a plain init container, which runs alone before them (with
// the sidecars started before it), only raises the figure if it needs more.
std::optional<std::int64_t> pod_level_request(const PodInfo& pod, ResourceName resource) {
  if (const auto& value = pod.pod_requests.get(resource)) return value;
  std::optional<std::int64_t> total;
  const auto add = [](std::optional<std::int64_t>& sum, std::int64_t v) { sum = sum.value_or(0) + v; };
  for (const ContainerSpec& c : pod.containers) {
    if (const auto& v = c.requests.get(resource)) add(total, *v);
  }
  std::optional<std::int64_t> sidecars;
  std::optional<std::int64_t> init_peak;
  for (const ContainerSpec& c : pod.init_containers) {
    const auto& v = c.requests.get(resource);
    std::optional<std::int64_t> needs;
    if (c.restart_always) {
      if (v) {
        add(total, *v);
        add(sidecars, *v);
      }
      needs = sidecars;
    } else if (v || sidecars) {
      needs = v.value_or(0) + sidecars.value_or(0);
    }
    if (needs) init_peak = std::max(init_peak.value_or(*needs), *needs);
  }
  if (init_peak) total = std::max(total.value_or(*init_peak), *init_peak);
  return total;
}

// upstream calculatePodRequestsFromContainers.
CalcResult<std::int64_t> container_requests(const PodInfo& pod, std::string_view container, ResourceName resource) {
  std::int64_t request = 0;
  const auto visit = [&](const ContainerSpec& c) -> std::optional<CalcResult<std::int64_t>> {
    if (container.empty() || container == c.name) {
      const auto& value = c.requests.get(resource);
      if (!value) {
        return CalcResult<std::int64_t>::failure(std::string("missing request for ") + to_string(resource) +
                                                 " in container " + c.name + " of Pod " + pod.name);
      }
      request += *value;
    }
    if (container == c.name) return CalcResult<std::int64_t>{request, {}};  // names are unique within a pod
    return std::nullopt;
  };
  for (const ContainerSpec& c : pod.containers) {
    if (auto done = visit(c)) return *done;
  }
  // Sidecars count like app containers; plain init containers have finished by the time metrics exist.
  for (const ContainerSpec& c : pod.init_containers) {
    if (!c.restart_always) continue;
    if (auto done = visit(c)) return *done;
  }
  if (!container.empty()) {
    return CalcResult<std::int64_t>::failure("container " + std::string(container) + " not found in Pod " + pod.name);
  }
  return CalcResult<std::int64_t>{request, {}};
}

CalcResult<std::int64_t> one_pod_request(const PodInfo& pod, std::string_view container, ResourceName resource,
                                         bool pod_level_resources) {
  // A named container (ContainerResource metric) always wins over pod-level requests.
  if (pod_level_resources && pod.pod_requests.any() && container.empty()) {
    if (const auto value = pod_level_request(pod, resource)) return CalcResult<std::int64_t>{*value, {}};
    return CalcResult<std::int64_t>::failure(std::string("missing pod-level request for ") + to_string(resource) +
                                             " in Pod " + pod.name);
  }
  return container_requests(pod, container, resource);
}

// upstream calcPlainMetricReplicas, for Pods metrics and AverageValue resource targets: the same scheme as for
// utilisation, on the mean sample, with missing pods assumed at exactly the target on a scale-down.
CalcResult<UsageReplicas> plain_metric_replicas(std::int32_t current_replicas, std::int64_t target,
                                                std::optional<ResourceName> resource,
                                                const std::vector<PodInfo>& pods,
                                                const std::vector<PodMetric>& metrics, SimTime now,
                                                const ReplicaCalcOptions& options) {
  if (pods.empty()) return CalcResult<UsageReplicas>::failure(kNoPods);
  const MetricIndex index = index_metrics(metrics);
  const Groups g = group(pods, index, resource, now, options.cpu_initialization_period,
                         options.delay_of_initial_readiness_status);
  ValueMap values = usable_values(index, g);
  if (values.empty()) {
    return CalcResult<UsageReplicas>::failure("did not receive metrics for targeted pods (pods might be unready)");
  }
  UsageReplicas out;
  out.timestamp = metrics.front().timestamp;
  const auto [ratio, usage] = usage_ratio(values, target);
  out.usage_milli = usage;

  const bool scale_up_with_unready = !g.unready.empty() && ratio > 1.0;
  if (!scale_up_with_unready && g.missing.empty()) {
    out.replicas = options.tolerances.within(ratio) ? current_replicas
                                                    : ceil_to_int32(ratio * static_cast<double>(g.ready_count));
    return CalcResult<UsageReplicas>{out, {}};
  }
  if (!g.missing.empty()) {
    if (ratio < 1.0) {
      for (std::string_view pod : g.missing) values[pod] = target;
    } else if (ratio > 1.0) {
      for (std::string_view pod : g.missing) values[pod] = 0;
    }
  }
  if (scale_up_with_unready) {
    for (std::string_view pod : g.unready) values[pod] = 0;
  }
  out.replicas = rebalanced_replicas(current_replicas, ratio, options.tolerances, values,
                                      [&] { return usage_ratio(values, target).first; });
  return CalcResult<UsageReplicas>{out, {}};
}

}  // namespace

const char* to_string(ResourceName resource) { return resource == ResourceName::kCpu ? "cpu" : "memory"; }

PodInfo PodInfo::single_container(std::string name, std::optional<std::int64_t> cpu_milli,
                                  std::optional<std::int64_t> memory_milli) {
  PodInfo pod;
  pod.name = std::move(name);
  pod.ready = PodReadyCondition{};
  pod.start_time = kSimStart;
  pod.containers.push_back(ContainerSpec{"main", ResourceRequests{cpu_milli, memory_milli}, false});
  return pod;
}

PodGroups group_pods(const std::vector<PodInfo>& pods, const std::vector<PodMetric>& metrics,
                     std::optional<ResourceName> resource, SimTime now, Duration cpu_initialization_period,
                     Duration delay_of_initial_readiness_status) {
  const Groups g =
      group(pods, index_metrics(metrics), resource, now, cpu_initialization_period, delay_of_initial_readiness_status);
  const auto strings = [](const std::vector<std::string_view>& views) {
    return std::vector<std::string>(views.begin(), views.end());
  };
  return PodGroups{g.ready_count, strings(g.unready), strings(g.missing), strings(g.ignored)};
}

CalcResult<std::vector<std::int64_t>> pod_requests(const std::vector<PodInfo>& pods, std::string_view container,
                                                   ResourceName resource, bool pod_level_resources) {
  std::vector<std::int64_t> requests;
  requests.reserve(pods.size());
  for (const PodInfo& pod : pods) {
    auto request = one_pod_request(pod, container, resource, pod_level_resources);
    if (!request.ok()) return CalcResult<std::vector<std::int64_t>>::failure(std::move(request.error));
    requests.push_back(*request.value);
  }
  return CalcResult<std::vector<std::int64_t>>{std::move(requests), {}};
}

CalcResult<UtilizationReplicas> resource_utilization_replicas(std::int32_t current_replicas,
                                                              std::int32_t target_utilization, ResourceName resource,
                                                              std::string_view container,
                                                              const std::vector<PodInfo>& pods,
                                                              const std::vector<PodMetric>& metrics, SimTime now,
                                                              const ReplicaCalcOptions& options) {
  using Result = CalcResult<UtilizationReplicas>;
  // The metrics client fails on an empty answer before the calculator sees anything.
  if (metrics.empty()) {
    return Result::failure(std::string("unable to get metrics for resource ") + to_string(resource) +
                           ": no metrics returned from resource metrics API");
  }
  if (pods.empty()) return Result::failure(kNoPods);

  const MetricIndex index = index_metrics(metrics);
  const Groups g = group(pods, index, resource, now, options.cpu_initialization_period,
                         options.delay_of_initial_readiness_status);
  ValueMap values = usable_values(index, g);
  if (values.empty()) return Result::failure("did not receive metrics for targeted pods (pods might be unready)");

  // Requests of every listed pod, the ignored ones included: one of them missing a request fails the metric.
  const auto request_list = pod_requests(pods, container, resource, options.pod_level_resources);
  if (!request_list.ok()) return Result::failure(request_list.error);
  ValueMap requests;
  requests.reserve(pods.size());
  for (std::size_t i = 0; i < pods.size(); ++i) requests[pods[i].name] = (*request_list.value)[i];

  const auto first = utilization_ratio(values, requests, target_utilization);
  if (!first.ok()) return Result::failure(first.error);
  const double ratio = first.value->ratio;
  UtilizationReplicas out;
  out.utilization = first.value->percent;
  out.raw_average_milli = first.value->raw_average;
  out.timestamp = metrics.front().timestamp;

  const bool scale_up_with_unready = !g.unready.empty() && ratio > 1.0;
  if (!scale_up_with_unready && g.missing.empty()) {
    out.replicas = options.tolerances.within(ratio) ? current_replicas
                                                    : ceil_to_int32(ratio * static_cast<double>(g.ready_count));
    return Result{out, {}};
  }

  if (!g.missing.empty()) {
    if (ratio < 1.0) {
      // Scale-down: assume a silent pod is busy, at 100% of its request, or at the target if that is higher
      // (else a target above 100% would read a silent pod as under-used and still shrink the deployment).
      const std::int64_t fallback_percent = std::max<std::int64_t>(100, target_utilization);
      for (std::string_view pod : g.missing) {
        values[pod] = saturate_int64(static_cast<Int128>(requests[pod]) * fallback_percent / 100);
      }
    } else if (ratio > 1.0) {
      // Scale-up: assume it idle, so that it damps rather than drives the increase.
      for (std::string_view pod : g.missing) values[pod] = 0;
    }
  }
  if (scale_up_with_unready) {
    // Unready pods will take load once ready: count them as idle capacity on the way up.
    for (std::string_view pod : g.unready) values[pod] = 0;
  }

  std::string error;
  const auto replicas = rebalanced_replicas(current_replicas, ratio, options.tolerances, values, [&] {
    const auto again = utilization_ratio(values, requests, target_utilization);
    if (!again.ok()) {
      error = again.error;
      return 1.0;
    }
    return again.value->ratio;
  });
  if (!error.empty()) return Result::failure(error);
  out.replicas = replicas;
  return Result{out, {}};
}

CalcResult<UsageReplicas> raw_resource_replicas(std::int32_t current_replicas, std::int64_t target_average_milli,
                                                ResourceName resource, const std::vector<PodInfo>& pods,
                                                const std::vector<PodMetric>& metrics, SimTime now,
                                                const ReplicaCalcOptions& options) {
  if (metrics.empty()) {
    return CalcResult<UsageReplicas>::failure(std::string("unable to get metrics for resource ") +
                                              to_string(resource) + ": no metrics returned from resource metrics API");
  }
  return plain_metric_replicas(current_replicas, target_average_milli, resource, pods, metrics, now, options);
}

CalcResult<UsageReplicas> pods_metric_replicas(std::int32_t current_replicas, std::int64_t target_average_milli,
                                               std::string_view metric_name, const std::vector<PodInfo>& pods,
                                               const std::vector<PodMetric>& metrics, SimTime now,
                                               const ReplicaCalcOptions& options) {
  if (metrics.empty()) {
    return CalcResult<UsageReplicas>::failure("unable to get metric " + std::string(metric_name) +
                                              ": no metrics returned from custom metrics API");
  }
  return plain_metric_replicas(current_replicas, target_average_milli, std::nullopt, pods, metrics, now, options);
}

CalcResult<UsageReplicas> object_metric_replicas(std::int32_t current_replicas, std::int64_t target_milli,
                                                 std::int64_t usage_milli, const std::vector<PodInfo>& pods,
                                                 const Tolerances& tolerances) {
  const double ratio = static_cast<double>(usage_milli) / static_cast<double>(target_milli);
  const auto replicas = usage_ratio_replica_count(current_replicas, ratio, tolerances, pods);
  if (!replicas.ok()) return CalcResult<UsageReplicas>::failure(replicas.error);
  // Upstream returns the zero time here (the timestamp it returns is never assigned): no timestamp.
  return CalcResult<UsageReplicas>{UsageReplicas{*replicas.value, usage_milli, std::nullopt}, {}};
}

CalcResult<UsageReplicas> object_per_pod_metric_replicas(std::int32_t status_replicas,
                                                         std::int64_t target_average_milli, std::int64_t usage_milli,
                                                         SimTime timestamp, const Tolerances& tolerances) {
  UsageReplicas out{status_replicas, usage_milli, timestamp};
  const double usage = static_cast<double>(usage_milli);
  const double ratio = usage / (static_cast<double>(target_average_milli) * static_cast<double>(status_replicas));
  if (!tolerances.within(ratio)) out.replicas = ceil_to_int32(usage / static_cast<double>(target_average_milli));
  // Reported per pod. With no replicas upstream divides by zero (a garbage value); we report the total instead.
  if (status_replicas != 0) out.usage_milli = ceil_to_int64(usage / static_cast<double>(status_replicas));
  return CalcResult<UsageReplicas>{out, {}};
}

CalcResult<UsageReplicas> external_metric_replicas(std::int32_t current_replicas, std::int64_t target_milli,
                                                   std::string_view metric_name,
                                                   const std::vector<std::int64_t>& values_milli,
                                                   const std::vector<PodInfo>& pods, const Tolerances& tolerances) {
  if (values_milli.empty()) {
    return CalcResult<UsageReplicas>::failure("unable to get external metric " + std::string(metric_name) +
                                              ": no metrics returned from external metrics API");
  }
  // The sum of all matching series, capped at the int64 maximum rather than wrapping negative.
  std::int64_t usage = 0;
  for (const std::int64_t v : values_milli) {
    if (v > 0 && usage > kMaxInt64 - v) {
      usage = kMaxInt64;
      break;
    }
    usage += v;
  }
  const double ratio = static_cast<double>(usage) / static_cast<double>(target_milli);
  const auto replicas = usage_ratio_replica_count(current_replicas, ratio, tolerances, pods);
  if (!replicas.ok()) return CalcResult<UsageReplicas>::failure(replicas.error);
  return CalcResult<UsageReplicas>{UsageReplicas{*replicas.value, usage, std::nullopt}, {}};
}

CalcResult<UsageReplicas> external_per_pod_metric_replicas(std::int32_t status_replicas,
                                                           std::int64_t target_average_milli,
                                                           std::string_view metric_name,
                                                           const std::vector<std::int64_t>& values_milli,
                                                           SimTime timestamp, const Tolerances& tolerances) {
  if (values_milli.empty()) {
    return CalcResult<UsageReplicas>::failure("unable to get external metric " + std::string(metric_name) +
                                              ": no metrics returned from external metrics API");
  }
  // Upstream adds with wrap-around and takes a negative running sum for an overflow (so a negative series can
  // trip it too); the wrapping add is done in unsigned arithmetic to stay defined in C++.
  std::int64_t usage = 0;
  for (const std::int64_t v : values_milli) {
    usage = static_cast<std::int64_t>(static_cast<std::uint64_t>(usage) + static_cast<std::uint64_t>(v));
    if (usage < 0) {
      usage = kMaxInt64;
      break;
    }
  }
  UsageReplicas out{status_replicas, usage, timestamp};
  const double total = static_cast<double>(usage);
  const double ratio = total / (static_cast<double>(target_average_milli) * static_cast<double>(status_replicas));
  if (!tolerances.within(ratio)) out.replicas = ceil_to_int32(total / static_cast<double>(target_average_milli));
  if (total >= static_cast<double>(kMaxInt64)) {
    out.usage_milli = kMaxInt64;
  } else if (status_replicas != 0) {  // see object_per_pod_metric_replicas
    out.usage_milli = ceil_to_int64(total / static_cast<double>(status_replicas));
  }
  return CalcResult<UsageReplicas>{out, {}};
}

}  // namespace drsim

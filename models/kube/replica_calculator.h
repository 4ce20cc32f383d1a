#pragma once
// The replica arithmetic of the Kubernetes HorizontalPodAutoscaler (autoscaling/v2 controller,
// pkg/controller/podautoscaler/replica_calculator.go and metrics/utilization.go), ported as pure functions.
//
// Every 15 s the HPA controller turns, for each metric of an HPA, what the metrics APIs report into a desired
// replica count. The rules are simple to state (desired = ceil(current usage / target x pods)) and full of details
// that decide what a cluster does during a disaster: unready or just-started pods are left out of a CPU average so
// that their start-up burst does not look like load; pods without metrics are assumed idle on the way up and busy
// on the way down so that a partial scrape never exaggerates a change; a change within the tolerance band is not
// made; and when filling in the unknowns would flip the direction of a change, no change is made at all. A pod
// in a lost zone that still counts but stops reporting therefore damps scale-up, which is exactly the behaviour a
// zone-outage study has to reproduce. So this is a faithful port, case for case, of the upstream code and tests.
//
// Inputs mirror what the controller reads: the pods its selector lists (phase, Ready condition, start time,
// deletion, per-container requests) and the per-pod metrics the metrics client returns (value in milli-units,
// sample timestamp and window). Outputs are what the calculator returns: desired replicas, current utilisation or
// usage, and the metrics' timestamp. Errors are returned, not thrown, with upstream's messages.
//
// Fetching the metrics (summing a pod's containers, or picking one container for a ContainerResource metric) is
// the metrics client's job, not the calculator's: callers pass one value per pod, already reduced.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/time.h"

namespace drsim {

enum class PodPhase : std::uint8_t { kPending, kRunning, kSucceeded, kFailed, kUnknown };
enum class ConditionStatus : std::uint8_t { kTrue, kFalse, kUnknown };
// The resources an HPA Resource / ContainerResource metric can name.
enum class ResourceName : std::uint8_t { kCpu, kMemory };
const char* to_string(ResourceName resource);

// A resource request in milli-units (millicores, or milli-bytes for memory, as Quantity.MilliValue() gives them).
// Absent: the request is not set, which upstream treats differently from zero.
struct ResourceRequests {
  std::optional<std::int64_t> cpu_milli;
  std::optional<std::int64_t> memory_milli;

  const std::optional<std::int64_t>& get(ResourceName resource) const {
    return resource == ResourceName::kCpu ? cpu_milli : memory_milli;
  }
  bool any() const { return cpu_milli.has_value() || memory_milli.has_value(); }
};

struct ContainerSpec {
  std::string name;
  ResourceRequests requests;
  // For init containers only: restartPolicy Always makes it a sidecar, whose request counts like a regular
  // container's. A plain init container's request never counts.
  bool restart_always = false;
};

// The pod's Ready condition (type Ready in status.conditions).
struct PodReadyCondition {
  ConditionStatus status = ConditionStatus::kTrue;
  SimTime last_transition{};
};

struct PodInfo {
  std::string name;
  PodPhase phase = PodPhase::kRunning;
  std::optional<PodReadyCondition> ready;  // absent: the pod reports no Ready condition
  std::optional<SimTime> start_time;       // absent: status.startTime not set yet
  bool deleting = false;                   // metadata.deletionTimestamp is set
  std::vector<ContainerSpec> containers;
  std::vector<ContainerSpec> init_containers;
  ResourceRequests pod_requests;  // pod-level spec.resources.requests (KEP-2837); usually unset

  // The common case: a running pod with one container named "main" and the given requests, started and ready
  // since kSimStart.
  static PodInfo single_container(std::string name, std::optional<std::int64_t> cpu_milli,
                                  std::optional<std::int64_t> memory_milli = std::nullopt);
};

// One pod's sample, as metricsclient.PodMetric: the pod's value (sum over its containers, or one container's).
struct PodMetric {
  std::string pod;
  std::int64_t value_milli = 0;
  SimTime timestamp{};
  Duration window = std::chrono::minutes(1);  // the metrics server's default window
};

// The band of usage ratios (current / target) within which the HPA makes no change: [1 - down, 1 + up].
// Kubernetes 1.33+ lets an HPA set the two sides apart (behavior.scale{Up,Down}.tolerance); both default to the
// controller's --horizontal-pod-autoscaler-tolerance, 0.1.
struct Tolerances {
  double scale_down = 0.1;
  double scale_up = 0.1;

  bool within(double usage_ratio) const { return 1.0 - scale_down <= usage_ratio && usage_ratio <= 1.0 + scale_up; }
};

struct ReplicaCalcOptions {
  Tolerances tolerances;
  // kube-controller-manager --horizontal-pod-autoscaler-cpu-initialization-period: a CPU sample of a pod this
  // young is only used if the pod is ready and the sample was taken a full window after it became ready.
  Duration cpu_initialization_period = std::chrono::minutes(5);
  // --horizontal-pod-autoscaler-initial-readiness-delay: after the initialisation period, an unready pod is
  // still ignored if its readiness last changed within this long of its start (it has never been ready).
  Duration delay_of_initial_readiness_status = std::chrono::seconds(30);
  // The PodLevelResources feature gate (beta, on by default since 1.34): pod-level requests, when set, are the
  // pod's request for a whole-pod Resource metric.
  bool pod_level_resources = true;
};

// Either a value or an error message (upstream returns (values..., err)).
template <typename T>
struct CalcResult {
  std::optional<T> value;
  std::string error;

  bool ok() const { return value.has_value(); }
  static CalcResult failure(std::string message) { return CalcResult{std::nullopt, std::move(message)}; }
};

// Result of a Resource / ContainerResource metric with a Utilization target.
struct UtilizationReplicas {
  std::int32_t replicas = 0;
  std::int32_t utilization = 0;        // percent of requests, truncated, over pods with a metric and a request
  std::int64_t raw_average_milli = 0;  // mean usage over the same pods, truncated
  std::optional<SimTime> timestamp;    // the first returned sample's
};

// Result of an AverageValue / Value target (resource, Pods, Object or External metric).
struct UsageReplicas {
  std::int32_t replicas = 0;
  std::int64_t usage_milli = 0;      // average per pod for Pods / AverageValue targets, else the metric's value
  std::optional<SimTime> timestamp;  // absent where upstream returns the zero time (Object and External Value)
};

// How groupPods sorts the listed pods for one metric.
struct PodGroups {
  int ready_count = 0;               // pods whose sample is used as is
  std::vector<std::string> unready;  // pending, or (CPU only) unready or too young for their sample to be trusted
  std::vector<std::string> missing;  // no sample returned
  std::vector<std::string> ignored;  // being deleted, or failed
};

// upstream groupPods. `resource` is absent for custom (Pods) metrics, which never use the readiness rules.
PodGroups group_pods(const std::vector<PodInfo>& pods, const std::vector<PodMetric>& metrics,
                     std::optional<ResourceName> resource, SimTime now, Duration cpu_initialization_period,
                     Duration delay_of_initial_readiness_status);

// upstream calculateRequests: each pod's request for `resource`, in the order of `pods`. With `container` set,
// that container's request; else the pod-level request (if enabled and set), else the sum over the containers
// and sidecar init containers. Fails on the first missing request.
CalcResult<std::vector<std::int64_t>> pod_requests(const std::vector<PodInfo>& pods, std::string_view container,
                                                   ResourceName resource, bool pod_level_resources = true);

// upstream GetResourceReplicas: a Resource (container empty) or ContainerResource metric, Utilization target in
// percent of requests. `metrics` is what the resource metrics API returned, one entry per pod.
CalcResult<UtilizationReplicas> resource_utilization_replicas(std::int32_t current_replicas,
                                                              std::int32_t target_utilization, ResourceName resource,
                                                              std::string_view container,
                                                              const std::vector<PodInfo>& pods,
                                                              const std::vector<PodMetric>& metrics, SimTime now,
                                                              const ReplicaCalcOptions& options = {});

// upstream GetRawResourceReplicas: a Resource / ContainerResource metric with an AverageValue target (milli).
CalcResult<UsageReplicas> raw_resource_replicas(std::int32_t current_replicas, std::int64_t target_average_milli,
                                                ResourceName resource, const std::vector<PodInfo>& pods,
                                                const std::vector<PodMetric>& metrics, SimTime now,
                                                const ReplicaCalcOptions& options = {});

// upstream GetMetricReplicas: a Pods (custom per-pod) metric with an AverageValue target (milli).
CalcResult<UsageReplicas> pods_metric_replicas(std::int32_t current_replicas, std::int64_t target_average_milli,
                                               std::string_view metric_name, const std::vector<PodInfo>& pods,
                                               const std::vector<PodMetric>& metrics, SimTime now,
                                               const ReplicaCalcOptions& options = {});

// upstream GetObjectMetricReplicas: an Object metric with a Value target. `pods` only gives the ready count.
// With current_replicas == 0 (scale-to-zero) the result is ceil(usage / target), tolerance ignored.
CalcResult<UsageReplicas> object_metric_replicas(std::int32_t current_replicas, std::int64_t target_milli,
                                                 std::int64_t usage_milli, const std::vector<PodInfo>& pods,
                                                 const Tolerances& tolerances = {});

// upstream GetObjectPerPodMetricReplicas: an Object metric with an AverageValue target; usage is reported per pod.
CalcResult<UsageReplicas> object_per_pod_metric_replicas(std::int32_t status_replicas,
                                                         std::int64_t target_average_milli, std::int64_t usage_milli,
                                                         SimTime timestamp, const Tolerances& tolerances = {});

// upstream GetExternalMetricReplicas: the sum of an External metric's values against a Value target.
CalcResult<UsageReplicas> external_metric_replicas(std::int32_t current_replicas, std::int64_t target_milli,
                                                   std::string_view metric_name,
                                                   const std::vector<std::int64_t>& values_milli,
                                                   const std::vector<PodInfo>& pods,
                                                   const Tolerances& tolerances = {});

// upstream GetExternalPerPodMetricReplicas: the sum of an External metric's values against an AverageValue target.
CalcResult<UsageReplicas> external_per_pod_metric_replicas(std::int32_t status_replicas,
                                                           std::int64_t target_average_milli,
                                                           std::string_view metric_name,
                                                           const std::vector<std::int64_t>& values_milli,
                                                           SimTime timestamp, const Tolerances& tolerances = {});

}  // namespace drsim

#pragma once
// The records a caller hands the HPA's replica calculation and the parent scheduler's zone split, in the plain
// shape a notebook writes them: a pod as it is listed (with the common one-container case as two keys), a metric
// sample, a candidate zone. Each has a field list like every config (sim/fields.h), so the Python bindings read
// dicts through it and the stubs and docs come from it; to_*() turn a record into the calculators' own inputs
// (replica_calculator.h, zone_split.h).
//
// Times are durations since the start of the run (seconds in Python), quantities Kubernetes quantities kept in
// milli-units (kube_quantity.h).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/kube/kube_quantity.h"
#include "models/kube/replica_calculator.h"
#include "models/kube/zone_split.h"
#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"

namespace drsim {

// "Running", "running" or "RUNNING": Kubernetes spells phases capitalised; a notebook may not.
// Throws std::invalid_argument naming the phases.
PodPhase parse_pod_phase(std::string_view text);
const char* to_string(PodPhase phase);
// "True", "False" or "Unknown", in any case. Throws std::invalid_argument.
ConditionStatus parse_condition_status(std::string_view text);
const char* to_string(ConditionStatus status);

struct KubeContainerRecord {
  std::string name;
  std::optional<MilliQuantity> cpu_request;
  std::optional<MilliQuantity> memory_request;
  bool restart_always = false;

  static constexpr std::string_view kTypeName = "Container";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &KubeContainerRecord::name, "The container's name.", kRequired),
        field("cpu_request", &KubeContainerRecord::cpu_request, "CPU request, cores (0.5, \"500m\"); absent: not set."),
        field("memory_request", &KubeContainerRecord::memory_request,
              "Memory request, bytes (536870912, \"512Mi\"); absent: not set."),
        field("restart_always", &KubeContainerRecord::restart_always,
              "Init containers only: restartPolicy Always, a sidecar whose request counts."),
    };
  }
  ContainerSpec to_spec() const;
};

struct KubePodRecord {
  std::string name;
  PodPhase phase = PodPhase::kRunning;
  std::optional<ConditionStatus> ready = ConditionStatus::kTrue;
  Duration ready_transition{};
  std::optional<Duration> start_time = Duration{};
  bool deleting = false;
  std::optional<MilliQuantity> cpu_request;
  std::optional<MilliQuantity> memory_request;
  std::optional<std::vector<KubeContainerRecord>> containers;
  std::vector<KubeContainerRecord> init_containers;
  std::optional<MilliQuantity> pod_cpu_request;
  std::optional<MilliQuantity> pod_memory_request;

  static constexpr std::string_view kTypeName = "Pod";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &KubePodRecord::name, "The pod's name, as metric samples name it.", kRequired),
        field("phase", &KubePodRecord::phase, "Running (default), Pending, Succeeded, Failed or Unknown."),
        field("ready", &KubePodRecord::ready,
              "The Ready condition: True (default), False, Unknown, or none (the pod reports no Ready condition)."),
        field("ready_transition", &KubePodRecord::ready_transition,
              "When readiness last changed, since the start of the run (default 0)."),
        field("start_time", &KubePodRecord::start_time,
              "When the pod started, since the start of the run (default 0; none: not started)."),
        field("deleting", &KubePodRecord::deleting, "A deletion timestamp is set (default false)."),
        field("cpu_request", &KubePodRecord::cpu_request,
              "CPU request, cores (0.5, \"500m\"), of the pod's one container \"main\"; absent: not set."),
        field("memory_request", &KubePodRecord::memory_request,
              "Memory request, bytes (536870912, \"512Mi\"), of that container; absent: not set."),
        field("containers", &KubePodRecord::containers,
              "Instead of cpu_request and memory_request: the containers, each with its requests."),
        field("init_containers", &KubePodRecord::init_containers,
              "Init containers; those with restart_always (sidecars) count towards the pod's request."),
        field("pod_cpu_request", &KubePodRecord::pod_cpu_request, "Pod-level CPU request (KEP-2837), cores."),
        field("pod_memory_request", &KubePodRecord::pod_memory_request,
              "Pod-level memory request (KEP-2837), bytes."),
    };
  }
  std::vector<ConfigProblem> validate() const;
  PodInfo to_pod_info() const;
};

struct KubePodMetricRecord {
  std::string pod;
  MilliQuantity value;
  std::optional<Duration> timestamp;
  Duration window = std::chrono::minutes(1);

  static constexpr std::string_view kTypeName = "PodMetric";
  static constexpr auto fields() {
    return std::tuple{
        field("pod", &KubePodMetricRecord::pod, "The pod the sample is of.", kRequired),
        field("value", &KubePodMetricRecord::value,
              "The sample in the metric's unit (cores, bytes, or a custom metric's), summed over the pod's "
              "containers or the one container's.",
              kRequired),
        field("timestamp", &KubePodMetricRecord::timestamp,
              "When the sample was taken, since the start of the run (default: now)."),
        field("window", &KubePodMetricRecord::window, "The sample's window (default 60 s, the metrics server's)."),
    };
  }
  std::vector<ConfigProblem> validate() const;
  PodMetric to_pod_metric(SimTime now) const;
};

struct KubeZoneRecord {
  std::string name;
  bool can_take_pods = true;
  std::optional<std::uint32_t> free_capacity;
  std::uint32_t current = 0;

  static constexpr std::string_view kTypeName = "Zone";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &KubeZoneRecord::name, "The zone's name.", kRequired),
        field("can_take_pods", &KubeZoneRecord::can_take_pods, "False for a failed zone (default true)."),
        field("free_capacity", &KubeZoneRecord::free_capacity,
              "New pods of this size its node pools can take (default: unlimited)."),
        field("current", &KubeZoneRecord::current, "Replicas it holds now (default 0)."),
    };
  }
  ZoneState to_zone_state() const;
};

}  // namespace drsim

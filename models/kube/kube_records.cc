#include "models/kube/kube_records.h"

#include <array>
#include <cctype>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "sim/quote.h"

namespace drsim {
namespace {

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

constexpr std::array<std::pair<PodPhase, const char*>, 5> kPhases{{{PodPhase::kPending, "Pending"},
                                                                   {PodPhase::kRunning, "Running"},
                                                                   {PodPhase::kSucceeded, "Succeeded"},
                                                                   {PodPhase::kFailed, "Failed"},
                                                                   {PodPhase::kUnknown, "Unknown"}}};
constexpr std::array<std::pair<ConditionStatus, const char*>, 3> kStatuses{
    {{ConditionStatus::kTrue, "True"}, {ConditionStatus::kFalse, "False"}, {ConditionStatus::kUnknown, "Unknown"}}};

std::optional<std::int64_t> milli_of(const std::optional<MilliQuantity>& q) {
  if (!q) return std::nullopt;
  return q->milli;
}

}  // namespace

PodPhase parse_pod_phase(std::string_view text) {
  for (const auto& [phase, name] : kPhases) {
    if (same_ignoring_case(text, name)) return phase;
  }
  throw std::invalid_argument("expected one of Pending, Running, Succeeded, Failed, Unknown, got " + quote(text));
}

const char* to_string(PodPhase phase) {
  for (const auto& [p, name] : kPhases) {
    if (p == phase) return name;
  }
  return "Unknown";
}

ConditionStatus parse_condition_status(std::string_view text) {
  for (const auto& [status, name] : kStatuses) {
    if (same_ignoring_case(text, name)) return status;
  }
  throw std::invalid_argument("expected True, False or Unknown, got " + quote(text));
}

const char* to_string(ConditionStatus status) {
  for (const auto& [s, name] : kStatuses) {
    if (s == status) return name;
  }
  return "Unknown";
}

ContainerSpec KubeContainerRecord::to_spec() const {
  return ContainerSpec{name, ResourceRequests{milli_of(cpu_request), milli_of(memory_request)}, restart_always};
}

std::vector<ConfigProblem> KubePodRecord::validate() const {
  std::vector<ConfigProblem> problems;
  if (containers && (cpu_request || memory_request)) {
    problems.push_back({"containers", "give either containers or cpu_request/memory_request (one container), "
                                      "not both"});
  }
  if (containers) {
    for (std::size_t i = 0; i < containers->size(); ++i) {
      if ((*containers)[i].restart_always) {
        problems.push_back({"containers[" + std::to_string(i) + "].restart_always",
                            "applies to init containers only (a sidecar)"});
      }
    }
  }
  return problems;
}

PodInfo KubePodRecord::to_pod_info() const {
  PodInfo pod;
  pod.name = name;
  pod.phase = phase;
  if (ready) pod.ready = PodReadyCondition{*ready, at(ready_transition)};
  if (start_time) pod.start_time = at(*start_time);
  pod.deleting = deleting;
  if (containers) {
    for (const KubeContainerRecord& c : *containers) pod.containers.push_back(c.to_spec());
  } else {
    // The common case, written as two keys of the pod: one container, named as upstream's tests name it.
    pod.containers.push_back(ContainerSpec{"main", ResourceRequests{milli_of(cpu_request), milli_of(memory_request)},
                                           false});
  }
  for (const KubeContainerRecord& c : init_containers) pod.init_containers.push_back(c.to_spec());
  pod.pod_requests = ResourceRequests{milli_of(pod_cpu_request), milli_of(pod_memory_request)};
  return pod;
}

std::vector<ConfigProblem> KubePodMetricRecord::validate() const {
  std::vector<ConfigProblem> problems;
  if (window < Duration::zero()) problems.push_back({"window", "must not be negative"});
  return problems;
}

PodMetric KubePodMetricRecord::to_pod_metric(SimTime now) const {
  return PodMetric{pod, value.milli, timestamp ? at(*timestamp) : now, window};
}

ZoneState KubeZoneRecord::to_zone_state() const { return ZoneState{name, can_take_pods, free_capacity, current}; }

}  // namespace drsim

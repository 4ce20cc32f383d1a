#pragma once
// One HorizontalPodAutoscaler as the controller reconciles it every sync
// period: its metrics through the replica calculation (one proposal per
// metric, the largest wins, as computeReplicasForMetrics), then the
// behavior or legacy normalisation with the HPA's own history. The inputs
// are what the controller would list (pods, metric samples): the control
// plane builds them from the simulation; this class holds no simulation
// state, so every sync can be replayed from its inputs.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/kube/hpa_behavior.h"
#include "models/kube/kube_config.h"
#include "models/kube/replica_calculator.h"
#include "sim/time.h"

namespace drsim {

// What the custom or external metrics API answered for one of the HPA's
// Pods, Object or External metrics (in the control plane: the metrics
// adapter's last scrape). An error is an API that could not answer (the
// adapter down, a series never scraped): the metric is invalid this sync.
struct HpaMetricReading {
  std::vector<PodMetric> pods;          // Pods: one sample per pod that has one, milli-units
  std::optional<std::int64_t> value_milli;  // Object: the object's value
  std::vector<std::int64_t> values_milli;   // External: the selected series' values (summed by the HPA)
  SimTime timestamp{};                  // of the Object or External value
  std::string error;                    // non-empty: no answer

  static HpaMetricReading failure(std::string message) {
    HpaMetricReading r;
    r.error = std::move(message);
    return r;
  }
};

struct HpaSyncInput {
  std::int32_t current_replicas = 0;  // the target's spec.replicas
  std::vector<PodInfo> pods;          // the pods its selector matches
  std::vector<PodMetric> cpu;         // the resource metrics API's answer: CPU per pod, millicores
  SimTime now{};
  // One per entry of the HPA's metrics, in order; a Resource metric reads
  // `cpu` and ignores its entry. An entry missing (past the end) is an API
  // that answered nothing.
  std::vector<HpaMetricReading> readings;
  // The target's status.replicas (its pods, ready or not), which per-pod
  // Object and External targets divide by; absent: the listed pods.
  std::optional<std::int32_t> status_replicas;
  // HPA compensation: pods lists only the healthy zones' pods, and the
  // failed zone's replicas are set aside. The metrics propose a count for
  // the healthy part (current_replicas - replicas_set_aside), the replicas
  // set aside are added back, and the total is normalised against the
  // total, so the recommendation history stays in one unit.
  std::int32_t replicas_set_aside = 0;
};

// One of status.conditions: AbleToScale, ScalingActive or ScalingLimited.
struct HpaCondition {
  std::string type;
  bool status = true;
  std::string reason;
  friend bool operator==(const HpaCondition&, const HpaCondition&) = default;
};

struct HpaSyncResult {
  std::int32_t desired_replicas = 0;  // status.desiredReplicas
  bool rescale = false;
  // Of the first metric that could be computed: utilisation in percent of
  // requests (Utilization targets) and the average usage in millicores.
  std::optional<std::int32_t> utilization;
  std::optional<std::int64_t> average_milli;
  // Usage over the requests of every pod the HPA lists (ignored ones aside),
  // in percent: the "average over all replicas" that a failed zone's idle
  // or missing pods drag down.
  std::optional<double> all_pods_utilization;
  std::int32_t proposal = 0;  // before normalisation
  std::string message;        // why: the metric against its target, the limit, or the error
  // status.conditions after the sync, in upstream's order and with its
  // reasons (AbleToScale, then ScalingActive, then ScalingLimited).
  std::vector<HpaCondition> conditions;
  // Per metric, in order: the proposal, or absent where the metric was
  // invalid (invalid_reasons says why: FailedGetPodsMetric, ...).
  std::vector<std::optional<std::int32_t>> metric_proposals;
  std::vector<std::string> invalid_reasons;
};

class HpaController {
 public:
  // Throws SimulationError for a behavior that does not validate.
  HpaController(HpaConfig config, const HpaControllerConfig& controller);

  const HpaConfig& config() const { return config_; }
  HpaSyncResult sync(const HpaSyncInput& input);

 private:
  struct Proposal {
    std::int32_t replicas = 0;
    std::optional<std::int32_t> utilization;
    std::int64_t average_milli = 0;
    std::string description;  // the metric against its target, for the message
  };
  struct Failure {
    std::string reason;  // the ScalingActive condition's reason
    std::string error;
  };
  // One metric's proposal (computeReplicasForMetric), or why it failed.
  std::variant<Proposal, Failure> propose(std::size_t index, const HpaSyncInput& input) const;
  std::variant<Proposal, Failure> propose_resource(const HpaResourceMetricConfig& metric,
                                                   const HpaSyncInput& input) const;
  std::variant<Proposal, Failure> propose_custom(const HpaMetricConfig& metric, const HpaMetricReading* reading,
                                                 const HpaSyncInput& input) const;
  static std::optional<double> all_pods_utilization(const HpaSyncInput& input);
  // Whether the bounds decide this sync before any metric is read: scaling
  // disabled (0 replicas) or a count outside [min, max].
  bool decided_without_metrics(std::int32_t current_replicas) const;

  HpaConfig config_;
  std::optional<HpaBehavior> behavior_;  // absent: the legacy path
  ReplicaCalcOptions options_;
  Duration downscale_stabilization_;
  HpaScalingHistory history_;
};

}  // namespace drsim

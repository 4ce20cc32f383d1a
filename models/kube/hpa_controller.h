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
#include <vector>

#include "models/kube/hpa_behavior.h"
#include "models/kube/kube_config.h"
#include "models/kube/replica_calculator.h"
#include "sim/time.h"

namespace drsim {

struct HpaSyncInput {
  std::int32_t current_replicas = 0;  // the target's spec.replicas
  std::vector<PodInfo> pods;          // the pods its selector matches
  std::vector<PodMetric> cpu;         // the resource metrics API's answer: CPU per pod, millicores
  SimTime now{};
  // HPA compensation: pods lists only the healthy zones' pods, and the
  // failed zone's replicas are set aside. The metrics propose a count for
  // the healthy part (current_replicas - replicas_set_aside), the replicas
  // set aside are added back, and the total is normalised against the
  // total, so the recommendation history stays in one unit.
  std::int32_t replicas_set_aside = 0;
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
  };
  // One metric's proposal, or its error.
  CalcResult<Proposal> propose(const HpaMetricConfig& metric, const HpaSyncInput& input) const;
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

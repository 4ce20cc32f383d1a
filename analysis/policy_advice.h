#pragma once
// Policy degradation advice behind `drsim recommend-policy` (docs/sources.md
// section 1): a zone of a scenario fails, the service's deployment must grow
// (capacity compensation), and its declared policy may forbid it. From the
// scenario as declared (time 0) this builds the parent scheduler's view of the
// service's zones and asks models/kube/policy_recommendation.h which policies
// would place every needed replica.
//
// The zones are the service's zones, as the control plane sees them:
//   can take pods  every zone but the failed one;
//   free capacity  pods of the deployment's size (the service's cpu request,
//                  the deployment's memory) the zone's node pools can still
//                  take once every deployment's starting pods are placed, as
//                  the control plane places them at time 0 (ChildCluster); the
//                  nodes the cluster autoscaler may add count when it is
//                  enabled; a zone without pools is unlimited;
//   current        the service's replicas in the zone.
// Needed replicas default to capacity compensation: the deployment's replicas
// plus the failed zone's (7 + 2 = 9 in the article). WHY from the declared
// state rather than from a run: the advice is what an operator asks before
// (or at the start of) the incident, and it needs no simulation; pass
// --replicas for the number an HPA asked for during a run.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/kube/kube_config.h"
#include "models/kube/policy_recommendation.h"
#include "models/kube/zone_split.h"
#include "models/service/service_config.h"
#include "models/topology/topology_config.h"

namespace drsim {

// Bad input for the advice: an unknown service or zone, a service without a deployment, starting pods that do
// not fit on their nodes. The message names what was wrong and what would be valid.
class PolicyAdviceError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct PolicyAdviceRequest {
  std::string service;
  std::string failed_zone;
  std::optional<std::uint32_t> replicas;  // total needed; none: current + the failed zone's replicas
  // Evaluate candidates as a policy change computed from scratch, as deployment:policy applies it (the failed
  // zone's pods move), rather than as a scale-out that keeps them where they are.
  bool migrate = false;
};

struct PolicyAdvice {
  std::string service;
  std::string failed_zone;
  std::uint32_t replicas_now = 0;          // the deployment's replicas at the start
  std::uint32_t failed_zone_replicas = 0;  // of those, in the failed zone
  std::uint32_t needed = 0;
  bool migrate = false;
  std::vector<ZoneState> zones;   // the parent scheduler's view, in the service's zone order
  DeploymentPolicyConfig policy;  // the declared policy
  ZoneSplit current;              // what the declared policy does with `needed` replicas
  // The policies that place every needed replica, least deviation first; the declared one ("current") is
  // among them when it already allows the scale-out.
  std::vector<PolicyRecommendation> candidates;

  bool allowed() const { return !candidates.empty(); }
};

// What the advice reads of a scenario: its topology, its services and its
// Kubernetes section (null when it has none).
struct PolicyAdviceScenario {
  const TopologyConfig& topology;
  const std::vector<ServiceConfig>& services;
  const KubernetesConfig* kubernetes = nullptr;
};

// Throws PolicyAdviceError for bad input (see above).
PolicyAdvice advise_policy(const PolicyAdviceScenario& scenario, const PolicyAdviceRequest& request);

// A policy on one line in the scenario's YAML keys, ready to paste as a deployment:policy step's `policy`:
// {kind: spread, zones: [zone-a, zone-b], minZones: 2, maxZoneShare: 67%, extend: true}. Only the keys its
// kind uses.
std::string policy_yaml_line(const DeploymentPolicyConfig& policy);

// The advice as text for people: the zones, the declared policy's outcome (what it places, why the rest
// pends), then each candidate with its policy, deviation, split and headroom.
std::string format_policy_advice(const PolicyAdvice& advice);
// The same as JSON (for CI and scripts); unlimited capacity and headroom are null. Deterministic.
std::string format_policy_advice_json(const PolicyAdvice& advice);

}  // namespace drsim

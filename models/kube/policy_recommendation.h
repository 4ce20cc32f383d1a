#pragma once
// Policy degradation (docs/sources.md section 1): when a zone fails and the replica
// count must grow (capacity compensation), the declared deployment policy may
// forbid it - "equal over AZ-3 and AZ-4" with AZ-3 down, or "2 AZs, no
// extension" with the surviving AZ full. The platform then simulates the
// scheduling under candidate policies and recommends those that allow the
// scale-out. This does the same with zone_split.h: it derives candidates from
// the current policy (plus any the user passes), runs the split for each, keeps
// the ones that place every needed replica, and orders them by how far they
// stray from the current policy.
//
// Deviation points (WHY these weights: a change that only adds places to run,
// like extend, keeps the redundancy guarantee; one that lowers a guarantee,
// like a higher share cap or fewer zones, weakens the service against the next
// failure; a change of kind rewrites the topology):
//   kind changed 4; extend turned on 1; maxZoneShare raised 2; minZones lowered
//   2 per zone; each zone added to or dropped from the list 1; maxSkew raised 1;
//   DoNotSchedule -> ScheduleAnyway 2; minDomains changed 1. Any other change of
//   a field 1. Ties keep candidate order (built-in candidates first).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/kube/zone_split.h"

namespace drsim {

struct PolicyCandidate {
  std::string label;  // what changed, for people: "current", "extend: true", "maxZoneShare 100%", ...
  DeploymentPolicyConfig policy;
};

struct ZoneHeadroom {
  std::string zone;
  std::optional<std::uint32_t> free;  // new pods it can still take after the split; none: unlimited
  friend bool operator==(const ZoneHeadroom&, const ZoneHeadroom&) = default;
};

struct PolicyRecommendation {
  std::string label;
  DeploymentPolicyConfig policy;
  std::uint32_t deviation = 0;
  ZoneSplit split;
  std::vector<ZoneHeadroom> headroom;  // per zone, in input order
};

struct RecommendationRequest {
  DeploymentPolicyConfig current;
  std::vector<ZoneState> zones;  // capacity, which zones failed, and the current assignment
  std::uint32_t needed = 0;  // total replicas wanted (healthy-zone need + the failed zone's replicas)
  std::vector<PolicyCandidate> extra;  // the user's own candidates
  // Evaluate each candidate as a policy change computed from scratch (migration: the failed zone's pods move)
  // rather than as a scale-out that keeps them where they are.
  bool migrate = false;
};

// How far `to` strays from `from`, in the points documented above.
std::uint32_t policy_deviation(const DeploymentPolicyConfig& from, const DeploymentPolicyConfig& to);

// The built-in candidates for the current policy given which zones survive, the current policy first.
std::vector<PolicyCandidate> candidate_policies(const DeploymentPolicyConfig& current,
                                               std::span<const ZoneState> zones);

// The candidates (built-in, then extra; duplicates dropped) that place all `needed` replicas, least deviation
// first.
std::vector<PolicyRecommendation> recommend_policies(const RecommendationRequest& request);

}  // namespace drsim

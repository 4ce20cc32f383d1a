#pragma once
// The parent scheduler of a two-level Kubernetes platform (TKE AppFabric in the
// source article, docs/sources.md section 1): from a deployment policy declared per
// zone, it computes how many replicas each zone holds; child clusters then
// place the pods on nodes (node_placement.h). The computation runs only when
// the replica total or the policy changes, which is why recreating a failed
// zone's pod keeps it in that zone under the policies that name their zones
// (equal; spread over listed zones without extend); the others place an
// evicted zone's replacements by their scale-out rule (eviction_placement.h).
//
// Policy kinds:
//   spread         - zones allowed (empty: any), at least minZones zones, no
//                    zone above maxZoneShare of the replicas, new replicas
//                    placed by free capacity; with extend, zones outside the
//                    base set may be used when the base set is short.
//   equal          - exactly the listed zones, in equal proportion.
//   topologySpread - Kubernetes topologySpreadConstraints on the zone key
//                    (topology_spread.h).
//
// Two entry points, because the difference is what the article's failure chain
// hinges on:
//   scale_split - the replica total changed: existing replicas stay where they
//                 are (a failed zone keeps its pods and still counts in shares
//                 and skew); only the difference is placed or removed.
//   fresh_split - the policy changed: the split is computed from scratch, and
//                 a zone that cannot take pods gets none (its pods are moved
//                 by the rolling update that follows). A zone's own replicas
//                 count as free capacity there, since the update replaces them.
//
// Scale-out rules. spread: the base set is the listed zones or, when the list
// is empty, the zones holding replicas topped up to minZones with the zones of
// most free capacity. Each new replica goes to the usable base zone with the
// most free capacity left (unlimited counts as most), then fewest replicas,
// then input order. A zone's cap is max(1, floor(maxZoneShare x total)) -
// WHY the total declared, pending included: the parent computes the topology
// of the declared replicas, not of the ones that happen to run. minZones comes
// first: one replica each to the empty base zones of most free capacity until
// enough zones hold replicas (a down zone that keeps replicas counts). When the
// base set is full, or short of zones, and extend is set, the best zone outside
// it (most free capacity) joins, one at a time.
// equal: targets are total / k per listed zone, the remainder going one each
// to the zones holding most replicas now (then list order) so that no pod
// moves needlessly; a listed zone that must grow but cannot take pods makes
// the whole computation fail. Replicas in unlisted zones are kept by a
// scale-out (the listed zones share the rest) and go first in a scale-in.
// topologySpread: pods are placed one at a time by spread_place; the listed
// zones act as the pods' zone affinity (unlisted zones are not domains).
//
// A computation that fails (equal over a down zone; fewer than minZones zones
// hold replicas) keeps the current assignment and leaves every replica not in
// it pending. A computation that is only short (capacity, maxZoneShare, skew)
// places what it can and leaves the rest pending. The reason names the rule.
//
// Scale-in removes one replica at a time from, in order of preference:
//   1. zones outside the policy's list (e.g. extension zones) - the policy
//      wants none there;
//   2. zones above their allowed count for the new total (spread: the share
//      cap; equal: the equal target), largest excess first;
//   3. zones that cannot take pods - their pods are not Ready, and the
//      ReplicaSet controller deletes not-ready pods first;
//   4. the zone with the most replicas.
// Ties go to the zone later in input order.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/units.h"

namespace drsim {

struct DeploymentPolicyConfig {
  std::string kind = "spread";  // spread | equal | topologySpread
  std::vector<std::string> zones;  // spread: allowed (empty: any); equal: exactly these; topologySpread: eligible
  std::uint32_t min_zones = 1;  // spread
  Ratio max_zone_share{1.0};  // spread
  bool extend = false;  // spread
  std::uint32_t max_skew = 1;  // topologySpread
  std::string when_unsatisfiable = "DoNotSchedule";  // topologySpread
  std::uint32_t min_domains = 1;  // topologySpread

  static constexpr std::string_view kTypeName = "DeploymentPolicy";
  static constexpr auto fields() {
    return std::tuple{
        field("kind", &DeploymentPolicyConfig::kind,
              "spread (by free capacity, with a zone count floor and a share cap), equal (exactly the listed "
              "zones in equal proportion) or topologySpread (Kubernetes topologySpreadConstraints on the zone "
              "key)."),
        field("zones", &DeploymentPolicyConfig::zones,
              "spread: zones allowed (empty: any zone, chosen by free capacity); equal: exactly these zones; "
              "topologySpread: the zones the pods' node affinity allows (empty: all)."),
        field("minZones", &DeploymentPolicyConfig::min_zones, "spread: replicas in at least this many zones.",
              kPositive),
        field("maxZoneShare", &DeploymentPolicyConfig::max_zone_share,
              "spread: no zone holds more than this share of the replicas (67% and 50% are the usual "
              "baselines).",
              kPositive | kAtMostOne),
        field("extend", &DeploymentPolicyConfig::extend,
              "spread: may use zones outside the base set (the listed zones, or the zones in use) when those "
              "are short of capacity or down."),
        field("maxSkew", &DeploymentPolicyConfig::max_skew,
              "topologySpread: largest allowed difference between a zone's replicas and the least-loaded zone's.",
              kPositive),
        field("whenUnsatisfiable", &DeploymentPolicyConfig::when_unsatisfiable,
              "topologySpread: DoNotSchedule (a hard limit: replicas pend) or ScheduleAnyway (a preference)."),
        field("minDomains", &DeploymentPolicyConfig::min_domains,
              "topologySpread: with fewer zones than this, the global minimum counts as 0 (DoNotSchedule only).",
              kPositive),
    };
  }

  std::vector<ConfigProblem> validate() const;
  friend bool operator==(const DeploymentPolicyConfig&, const DeploymentPolicyConfig&) = default;
};

// The two baselines of the source article's high-availability standard.
DeploymentPolicyConfig non_financial_baseline();  // spread, >= 2 zones, <= 67% per zone
DeploymentPolicyConfig financial_baseline();      // spread, >= 3 zones, <= 50% per zone

// A candidate zone as the parent scheduler sees it.
struct ZoneState {
  std::string name;
  bool can_take_pods = true;  // false for a failed zone
  std::optional<std::uint32_t> free_capacity;  // new pods of this size its node pools can take; none: unlimited
  std::uint32_t current = 0;  // replicas assigned to it now
};

struct ZoneTarget {
  std::string zone;
  std::uint32_t replicas = 0;
  friend bool operator==(const ZoneTarget&, const ZoneTarget&) = default;
};

struct ZoneSplit {
  std::vector<ZoneTarget> targets;  // one per input zone, in input order
  std::uint32_t pending = 0;  // replicas of the desired total that no zone holds
  std::string reason;  // names the rule that blocked the pending replicas; empty when none pend
  bool failed = false;  // the policy could not be satisfied at all: targets are the current assignment

  std::uint32_t placed() const;
  std::uint32_t replicas_in(std::string_view zone) const;  // 0 for an unknown zone
};

// The replica total changed: keep existing replicas, place or remove the difference.
ZoneSplit scale_split(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones, std::uint32_t desired);
// The policy changed: compute the split from scratch (a zone that cannot take pods gets none).
ZoneSplit fresh_split(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones, std::uint32_t desired);

}  // namespace drsim

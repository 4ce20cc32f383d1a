#pragma once
// Where the replacements of a lost zone's evicted pods go.
//
// After the unreachable taint's toleration the node lifecycle controller
// evicts a NotReady zone's pods (control_plane.h); a Deployment's ReplicaSet
// replaces them at once. The lost zone's nodes carry the unreachable taint
// with effect NoSchedule from the moment they are NotReady, so kube-scheduler
// never binds a new pod there: a replacement goes where the workload's own
// placement rules allow among the other zones, as a scale-out would.
//
//   topologySpread   the PodTopologySpread filter and score (topology_spread.h)
//                    over the zones: the lost zone is still a domain (its
//                    tainted nodes exist; nodeTaintsPolicy Ignore) but no
//                    longer eligible, and its evicted pods no longer match
//                    (terminating pods are not counted). ScheduleAnyway: the
//                    replacements go to the zones with the fewest pods that
//                    have room. DoNotSchedule: the global minimum drops to the
//                    lost zone's 0, so no other zone may hold more than
//                    maxSkew pods: zones already above it take none.
//   spread with extend, or with no zone list
//                    the policy's scale-out rule (most free capacity first,
//                    the maxZoneShare cap, minZones, extension zones) with the
//                    lost zone unable to take pods: the policy lets the
//                    replicas live outside the zones they were in.
//   equal, and spread over listed zones without extend
//                    pinned: each zone's share is a per-zone assignment of
//                    the two-level scheduling of docs/sources.md section 1,
//                    recomputed only when the replica total or the policy
//                    changes. The replacements are recreated in the lost zone
//                    and stay Pending until it is back.
//
// Replacements that no other zone can take (capacity, maxZoneShare, skew)
// stay assigned to the lost zone, where they are Pending: when it is back
// they bind there, as kube-scheduler would then place them (the lost zone
// holds the fewest matching pods). A split that fails outright (minZones can
// no longer be met) keeps the whole assignment, as the parent scheduler keeps
// its current topology when its computation fails (zone_split.h).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "models/kube/zone_split.h"

namespace drsim {

// The policy pins each pod to the zone it was assigned (equal; spread over listed zones without extend).
bool policy_pins_pods_to_zones(const DeploymentPolicyConfig& policy);

struct EvictionPlacement {
  // The new split, one target per zone in input order; the lost zone keeps the replicas no other zone took.
  // pending and reason: replicas left in no zone at all (the deployment's unplaced), and why.
  ZoneSplit split;
  std::uint32_t kept = 0;  // the lost zone's replicas still assigned to it (Pending there)
  std::string why_kept;    // the rule that kept them there; empty when none are kept
};

// zones: the deployment's zones as the parent scheduler sees them after the eviction (the lost zone cannot
// take pods; `current` is each zone's assignment before it, the lost zone's included). desired: spec.replicas.
EvictionPlacement place_evicted(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones,
                                std::size_t lost, std::uint32_t desired);

}  // namespace drsim

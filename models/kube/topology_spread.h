#pragma once
// Kubernetes topologySpreadConstraints on the zone key, reduced to zones: the
// PodTopologySpread plugin of kube-scheduler (pkg/scheduler/framework/plugins/
// podtopologyspread, filtering.go and scoring.go) for one constraint whose
// topologyKey is topology.kubernetes.io/zone.
//
// Why it matters for disasters: a hard constraint (DoNotSchedule) measures skew
// against the global minimum over every zone that has nodes, including a zone
// whose nodes are down (nodeTaintsPolicy defaults to Ignore, so NotReady nodes
// still make a domain). When a zone fails with its pods still counted, the
// healthy zones can only grow to minimum + maxSkew: scale-out stalls exactly
// when it is needed. Once the failed zone's pods are evicted (terminating pods
// do not count) the minimum drops to 0 and the healthy zones are capped at
// maxSkew pods each.
//
// Faithful to upstream for one constraint:
//   filter: matching(zone) + selfMatch - globalMin <= maxSkew, where globalMin
//           is the minimum over the counted domains, or 0 when there are fewer
//           counted domains than minDomains;
//   score (ScheduleAnyway): matching(zone) x ln(eligibleZones + 2) + maxSkew - 1,
//           rounded, then normalised to 0..100 with fewer matching pods scoring
//           higher (NormalizeScore: 100 x (max + min - s) / max).
// Not modelled: several constraints, per-node (hostname) domains, label
// selectors (the caller passes matching counts), other score plugins. Where
// upstream breaks score ties at random, this picks the first zone in input
// order, so runs are reproducible.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace drsim {

enum class WhenUnsatisfiable : std::uint8_t { kDoNotSchedule, kScheduleAnyway };
const char* to_string(WhenUnsatisfiable when);
std::optional<WhenUnsatisfiable> when_unsatisfiable_from_string(std::string_view name);

// One zone as the plugin sees it for the incoming pod.
struct SpreadDomain {
  std::string zone;
  std::uint32_t matching = 0;  // pods matching the selector in the zone, terminating pods excluded
  // The zone has a node that passes the pod's node affinity (nodeAffinityPolicy Honor) and carries the
  // zone label: it is a domain, and its count takes part in the global minimum. A failed zone whose nodes
  // still exist is counted (nodeTaintsPolicy Ignore).
  bool counted = true;
  // Some node of the zone passes the other filters for this pod (ready, resources fit).
  bool eligible = true;
  // Pods of this size the zone can still take; none: unlimited. A zone that is full stops being eligible.
  std::optional<std::uint32_t> free;
};

struct SpreadConstraint {
  std::uint32_t max_skew = 1;
  std::uint32_t min_domains = 1;  // upstream treats an absent minDomains as 1
  WhenUnsatisfiable when_unsatisfiable = WhenUnsatisfiable::kDoNotSchedule;
  bool self_match = true;  // the incoming pod matches its own selector (the usual case)
};

// The global minimum used for skew: the smallest matching count over counted domains, or 0 when fewer
// domains are counted than minDomains (upstream minMatchNum). 0 when no domain is counted.
std::uint32_t spread_global_min(std::span<const SpreadDomain> domains, const SpreadConstraint& c);

// The skew the zone would have with one more pod: matching + selfMatch - globalMin.
std::int64_t spread_skew_with_pod(std::span<const SpreadDomain> domains, std::size_t i, const SpreadConstraint& c);

// Filter result per domain for a DoNotSchedule constraint: eligible, counted, and skew within maxSkew. For a
// ScheduleAnyway constraint the plugin does not filter, so every eligible domain passes.
std::vector<bool> spread_filter(std::span<const SpreadDomain> domains, const SpreadConstraint& c);

// Normalised PodTopologySpread scores (0..100) of the eligible domains for a ScheduleAnyway constraint;
// ineligible domains score 0 and are never picked.
std::vector<std::int64_t> spread_scores(std::span<const SpreadDomain> domains, const SpreadConstraint& c);

// The zone the next pod goes to, or none. DoNotSchedule: among the passing zones, the one with the fewest
// matching pods (WHY: with only a hard constraint the plugin does not score, and the default scheduler's
// soft system spreading prefers the emptiest zone). ScheduleAnyway: the highest score. Ties: input order.
std::optional<std::size_t> spread_pick(std::span<const SpreadDomain> domains, const SpreadConstraint& c);

struct SpreadPlacement {
  std::vector<std::uint32_t> added;  // per input domain
  std::uint32_t unplaced = 0;
  std::string reason;  // why the first unplaced pod could not go anywhere; empty when all were placed
};

// Places n pods one at a time, as the scheduler does (each placement updates the counts the next one sees);
// a pod placed in a zone counts as matching there when self_match is set.
SpreadPlacement spread_place(std::vector<SpreadDomain> domains, const SpreadConstraint& c, std::uint32_t n);

}  // namespace drsim

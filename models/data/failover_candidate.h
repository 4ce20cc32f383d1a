#pragma once
// Which replica a database promotes when its primary is lost: one rule for the simulator (Database::
// pick_candidate) and for `drsim check` (analysis/database_calls.cc database_case), so the two cannot disagree.
//
// Of the members the failover monitor sees, other than the lost primary, keep those in preferredZone, then of
// those the ones in preferredRegion (each narrowing only when it leaves any), and promote the most up to date;
// a tie goes to the member listed first. The callers differ only in what "sees" and "more up to date" mean: the
// simulator reads its live state and applied log positions, the check the topology and the nominal delays.
#include <cstddef>
#include <functional>
#include <optional>
#include <span>

#include "models/data/database_config.h"
#include "models/topology/topology.h"

namespace drsim {

// member_zones[m] is member m's zone (0: the configured primary, then the replicas in order).
// `seen(m)`: the monitor sees member m. `fresher(a, b)`: a is strictly more up to date than b.
std::optional<std::size_t> pick_failover_candidate(const DatabaseConfig& config, const Topology& topology,
                                                   std::span<const ZoneIndex> member_zones, std::size_t lost_primary,
                                                   const std::function<bool(std::size_t)>& seen,
                                                   const std::function<bool(std::size_t, std::size_t)>& fresher);

}  // namespace drsim

#include "models/data/failover_candidate.h"

#include <utility>
#include <vector>

namespace drsim {

std::optional<std::size_t> pick_failover_candidate(const DatabaseConfig& config, const Topology& topology,
                                                   std::span<const ZoneIndex> member_zones, std::size_t lost_primary,
                                                   const std::function<bool(std::size_t)>& seen,
                                                   const std::function<bool(std::size_t, std::size_t)>& fresher) {
  std::vector<std::size_t> eligible;
  for (std::size_t m = 0; m < member_zones.size(); ++m) {
    if (m != lost_primary && seen(m)) eligible.push_back(m);
  }
  // A preference narrows the choice only when it leaves someone to promote.
  auto restrict = [&](auto keep) {
    std::vector<std::size_t> kept;
    for (std::size_t m : eligible) {
      if (keep(m)) kept.push_back(m);
    }
    if (!kept.empty()) eligible = std::move(kept);
  };
  if (!config.preferred_zone.empty()) {
    restrict([&](std::size_t m) { return topology.zone_name(member_zones[m]) == config.preferred_zone; });
  }
  if (!config.preferred_region.empty()) {
    restrict([&](std::size_t m) {
      return topology.region_name(topology.region_of(member_zones[m])) == config.preferred_region;
    });
  }
  std::optional<std::size_t> best;
  for (std::size_t m : eligible) {
    if (!best || fresher(m, *best)) best = m;
  }
  return best;
}

}  // namespace drsim

#include "analysis/population_routing.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "models/traffic/geo_router.h"

namespace drsim {

std::optional<ZoneIndex> population_zone(const ClientPopulationConfig& population, const Topology& topology) {
  if (population.zone.empty()) return std::nullopt;
  return topology.find_zone(population.zone);
}

// The share of the population's requests each region gets from its static
// geo routing, as GeoRouter::pick draws them (health is not checked, so a
// region that is down keeps its share and its requests find no target).
RegionShares population_region_shares(const ClientPopulationConfig& population, const DeployedService& entry,
                                      const Topology& topology) {
  const GeoRouter router(*population.routing, topology, population_zone(population, topology),
                         serving_regions(entry.zones, topology));
  return router.shares();
}

TrafficSplit population_split(const ClientPopulationConfig& population, const DeployedService& entry,
                           const Topology& topology, const TopologyState& /*state*/) {
  if (!population.routing) return zone_split(entry, population_zone(population, topology));
  return population_split(population, entry, topology, population_region_shares(population, entry, topology));
}

TrafficSplit population_split(const ClientPopulationConfig& population, const DeployedService& entry,
                              const Topology& topology, const RegionShares& shares) {
  const auto from = population_zone(population, topology);
  if (!population.routing) return zone_split(entry, from);
  TrafficSplit split{std::vector<double>(entry.zones.size(), 0.0), std::vector<double>(entry.zones.size(), 0.0)};
  for (const auto& [region, fraction] : shares) {
    std::vector<bool> in_region(entry.zones.size());
    for (std::size_t k = 0; k < entry.zones.size(); ++k) in_region[k] = topology.region_of(entry.zones[k]) == region;
    const TrafficSplit part = zone_split(entry, from, in_region);
    for (std::size_t k = 0; k < entry.zones.size(); ++k) {
      split.share[k] += fraction * part.share[k];
      split.tried_local[k] += fraction * part.tried_local[k];
    }
  }
  return split;
}

}  // namespace drsim

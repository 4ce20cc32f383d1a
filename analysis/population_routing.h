#pragma once
// How a client population's requests reach its entry service in one failure
// case: the one place where the N+1 check decides which of the entry
// service's zones a population's rate lands on.
//
// As in models/traffic/client_population.cc: without geo routing a
// population submits every request to the entry service's balancer, which
// sees all the service's zones (with zone affinity the population's own zone
// is tried first). With geo routing (ClientPopulationConfig::routing) the
// rate splits over the regions as the population's GeoRouter picks them
// (GeoRouter::shares, next to pick: by weight, or all to the first region
// of the latency and failover orders), then each region's part over that
// region's zones.
#include <utility>
#include <vector>

#include "analysis/zone_routing.h"
#include "models/topology/topology.h"
#include "models/traffic/client_population.h"

namespace drsim {

// The population's `zone`, when it names one: where its requests come from
// (network delay, zone affinity).
std::optional<ZoneIndex> population_zone(const ClientPopulationConfig& population, const Topology& topology);

// The fraction of the population's requests served in each zone of `entry`
// (and those tried there first by zone affinity). Shares summing to less
// than 1 leave the rest without a target.
TrafficSplit population_split(const ClientPopulationConfig& population, const DeployedService& entry,
                           const Topology& topology, const TopologyState& state);

// With geo routing: the share of the population's requests each region gets
// (GeoRouter::shares: by the static weights; latency: all to the nearest by
// the nominal round trips; failover: all to the first listed). The same in every failure case, and costly with many zones
// (the nearest region takes a route per zone): drsim check computes it once
// per population and passes it to the overload below.
using RegionShares = std::vector<std::pair<RegionIndex, double>>;
RegionShares population_region_shares(const ClientPopulationConfig& population, const DeployedService& entry,
                                      const Topology& topology);
// As above, with the region shares given (ignored without geo routing).
TrafficSplit population_split(const ClientPopulationConfig& population, const DeployedService& entry,
                              const Topology& topology, const RegionShares& shares);

}  // namespace drsim

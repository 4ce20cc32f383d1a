#pragma once
// Where a service's balancer sends requests in one failure case, in closed
// form, with the simulator's own zone weight (models/service/zone_weight.h,
// as ZoneBalancer::pick_zone draws by it): up pods x cut ratio (smooth
// weighted round-robin, or a weighted
// random draw with `balancing: random`; either way the long-run shares are
// the weights), and with zone affinity the caller's own zone is taken first
// while it has an idle worker. The N+1 cases leave every cut ratio at 1:
// traffic:cut is an operator action on the timeline, not a failure.
//
// Behind a cloud load balancer (discovery loadBalancer,
// models/service/cloud_load_balancer.h) the balancer is regional: a caller
// in a region where the service has zones is served there; any other caller
// reaches each region's balancer in proportion to its live nodes (one per up
// zone) in the answer. A zonal balancer (crossZone off) gives each live node,
// hence each up zone, an equal share whatever its pods.
//
// Zone affinity needs the probability that a same-zone request finds no
// idle worker and spills over (then it goes by the weights, its own zone
// included, like any other request). That depends on the zone's load, which
// depends on the spills: n_plus_one() iterates it to a fixed point and keeps
// it in DeployedService::spill.
#include <cstdint>
#include <optional>
#include <vector>

#include "models/service/service_config.h"
#include "models/topology/topology.h"
#include "sim/time.h"

namespace drsim {

// A service as deployed in one failure case. Zones follow the order of
// config->replicas.
struct DeployedService {
  const ServiceConfig* config = nullptr;
  const Topology* topology = nullptr;
  std::vector<ZoneIndex> zones;        // the topology zone of each
  std::vector<RegionIndex> regions;    // and its region
  std::vector<std::uint32_t> up_pods;  // replicas while the zone is up, else 0
  // Zone affinity: probability that a request from the same zone finds no
  // idle worker there and spills over to the weights.
  std::vector<double> spill;
  Duration mean_service{};
  // Behind a cloud load balancer: regional, and zonal with crossZone off.
  bool regional_balancer = false;
  bool zonal_balancer = false;
  // Reached by service callers through sidecars with locality failover (discovery mesh).
  bool sidecar_locality = false;

  std::uint32_t total_up_pods() const;
  // The service's zone in that topology zone, if it has one.
  std::optional<std::size_t> zone_at(ZoneIndex zone) const;
};

// Throws std::invalid_argument for a zone the topology does not have (the
// loader reports it first).
// scenario_has_kubernetes settles discovery auto (ServiceConfig::discovery_path).
DeployedService deploy(const ServiceConfig& service, const Topology& topology, const TopologyState& state,
                       bool scenario_has_kubernetes = false);

// How one stream of requests spreads over a service's zones.
struct TrafficSplit {
  // Per zone: the fraction of the requests served there. Sums to 1, or to 0
  // when no candidate zone has an up pod (the requests fail at once, cause
  // no_target).
  std::vector<double> share;
  // Per zone: the fraction of the requests that zone affinity offers there
  // first (those that find no idle worker spill over by the weights).
  std::vector<double> tried_local;
};

// The split of requests sent from `caller_zone` (none: a caller outside the
// topology, no affinity) over the zones whose `candidates` flag is set (empty:
// all of them, as an in-region balancer that sees every zone of the service,
// or the regional balancers' choice behind a cloud load balancer).
TrafficSplit zone_split(const DeployedService& callee, std::optional<ZoneIndex> caller_zone,
                     const std::vector<bool>& candidates = {});

// The split of a service caller's requests through its sidecar with locality failover (Envoy's priority levels,
// every listed pod healthy): the caller's zone while the service has up pods there, else the other zones of its
// region that have, else every zone; by pods within the level chosen.
TrafficSplit sidecar_split(const DeployedService& callee, std::optional<ZoneIndex> caller_zone);

}  // namespace drsim

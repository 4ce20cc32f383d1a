#include "analysis/zone_routing.h"

#include <stdexcept>

#include "models/load/service_time.h"
#include "models/service/zone_weight.h"

namespace drsim {

std::uint32_t DeployedService::total_up_pods() const {
  std::uint32_t total = 0;
  for (std::uint32_t n : up_pods) total += n;
  return total;
}

std::optional<std::size_t> DeployedService::zone_at(ZoneIndex zone) const {
  for (std::size_t z = 0; z < zones.size(); ++z) {
    if (zones[z] == zone) return z;
  }
  return std::nullopt;
}

DeployedService deploy(const ServiceConfig& service, const Topology& topology, const TopologyState& state,
                       bool scenario_has_kubernetes) {
  DeployedService out;
  out.config = &service;
  out.topology = &topology;
  if (service.discovery_path(scenario_has_kubernetes) == "mesh") {
    out.sidecar_locality = service.mesh.value_or(MeshConfig{}).locality == "failover";
  }
  if (service.discovery_path(scenario_has_kubernetes) == "loadBalancer") {
    out.regional_balancer = true;
    out.zonal_balancer = !service.load_balancer.value_or(LoadBalancerConfig{}).resolved().cross_zone;
  }
  out.mean_service = ServiceTimeDistribution(service.service_time).mean();
  for (const ReplicasConfig& r : service.replicas) {
    const auto zone = topology.find_zone(r.zone);
    if (!zone) throw std::invalid_argument("service \"" + service.name + "\": unknown zone \"" + r.zone + "\"");
    out.zones.push_back(*zone);
    out.regions.push_back(topology.region_of(*zone));
    out.up_pods.push_back(state.zone_up[*zone] ? r.replicas : 0);
  }
  out.spill.assign(out.zones.size(), 0.0);
  return out;
}

namespace {

// A balancer's weight for one zone: its up pods' (models/service/zone_weight.h), or one share per live
// node when each node sends to its own zone only.
double balancer_weight(const DeployedService& callee, std::size_t z) {
  if (callee.zonal_balancer) return callee.up_pods[z] > 0 ? 1.0 : 0.0;
  return zone_weight(callee.up_pods[z]);
}

bool spans_regions(const DeployedService& callee) {
  for (RegionIndex r : callee.regions) {
    if (r != callee.regions.front()) return true;
  }
  return false;
}

// Behind a regional cloud load balancer: the caller's own region when the service has zones there, else each
// region by its share of the live nodes in the answer.
TrafficSplit regional_split(const DeployedService& callee, std::optional<ZoneIndex> caller_zone) {
  const std::size_t n = callee.zones.size();
  const auto in = [&](RegionIndex r) {
    std::vector<bool> mask(n);
    for (std::size_t z = 0; z < n; ++z) mask[z] = callee.regions[z] == r;
    return mask;
  };
  if (caller_zone && callee.topology != nullptr) {
    const RegionIndex home = callee.topology->region_of(*caller_zone);
    for (std::size_t z = 0; z < n; ++z) {
      if (callee.regions[z] == home) return zone_split(callee, caller_zone, in(home));
    }
  }
  TrafficSplit out{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  double live_nodes = 0;
  for (std::size_t z = 0; z < n; ++z) live_nodes += callee.up_pods[z] > 0 ? 1 : 0;
  if (live_nodes == 0) return out;
  std::vector<bool> done(n);
  for (std::size_t first = 0; first < n; ++first) {
    if (done[first]) continue;
    const std::vector<bool> mask = in(callee.regions[first]);
    double nodes = 0;
    for (std::size_t z = 0; z < n; ++z) {
      if (!mask[z]) continue;
      done[z] = true;
      nodes += callee.up_pods[z] > 0 ? 1 : 0;
    }
    if (nodes == 0) continue;
    const TrafficSplit part = zone_split(callee, caller_zone, mask);
    for (std::size_t z = 0; z < n; ++z) {
      out.share[z] += nodes / live_nodes * part.share[z];
      out.tried_local[z] += nodes / live_nodes * part.tried_local[z];
    }
  }
  return out;
}

}  // namespace

TrafficSplit zone_split(const DeployedService& callee, std::optional<ZoneIndex> caller_zone,
                     const std::vector<bool>& candidates) {
  if (callee.regional_balancer && candidates.empty() && spans_regions(callee)) {
    return regional_split(callee, caller_zone);
  }
  const std::size_t n = callee.zones.size();
  TrafficSplit out;
  out.share.assign(n, 0.0);
  out.tried_local.assign(n, 0.0);
  const auto candidate = [&](std::size_t z) { return candidates.empty() || candidates[z]; };
  double total = 0;
  for (std::size_t z = 0; z < n; ++z) {
    if (candidate(z)) total += balancer_weight(callee, z);
  }
  if (total <= 0) return out;
  // Zone affinity: the caller's own zone first, when the service has up pods there.
  double by_weight = 1.0;
  if (callee.config->zone_affinity && caller_zone) {
    const auto local = callee.zone_at(*caller_zone);
    if (local && candidate(*local) && callee.up_pods[*local] > 0) {
      out.tried_local[*local] = 1.0;
      out.share[*local] += 1.0 - callee.spill[*local];
      by_weight = callee.spill[*local];
    }
  }
  for (std::size_t z = 0; z < n; ++z) {
    if (candidate(z)) out.share[z] += by_weight * balancer_weight(callee, z) / total;
  }
  return out;
}

TrafficSplit sidecar_split(const DeployedService& callee, std::optional<ZoneIndex> caller_zone) {
  if (!callee.sidecar_locality || !caller_zone || callee.topology == nullptr) return zone_split(callee, caller_zone);
  const std::size_t n = callee.zones.size();
  std::vector<bool> level(n, false);
  if (const auto local = callee.zone_at(*caller_zone); local && callee.up_pods[*local] > 0) {
    level[*local] = true;
    return zone_split(callee, caller_zone, level);
  }
  const RegionIndex home = callee.topology->region_of(*caller_zone);
  bool any = false;
  for (std::size_t z = 0; z < n; ++z) {
    level[z] = callee.regions[z] == home && callee.up_pods[z] > 0;
    any = any || level[z];
  }
  return any ? zone_split(callee, caller_zone, level) : zone_split(callee, caller_zone);
}

}  // namespace drsim

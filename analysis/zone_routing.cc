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

DeployedService deploy(const ServiceConfig& service, const Topology& topology, const TopologyState& state) {
  DeployedService out;
  out.config = &service;
  out.mean_service = ServiceTimeDistribution(service.service_time).mean();
  for (const ReplicasConfig& r : service.replicas) {
    const auto zone = topology.find_zone(r.zone);
    if (!zone) throw std::invalid_argument("service \"" + service.name + "\": unknown zone \"" + r.zone + "\"");
    out.zones.push_back(*zone);
    out.up_pods.push_back(state.zone_up[*zone] ? r.replicas : 0);
  }
  out.spill.assign(out.zones.size(), 0.0);
  return out;
}

TrafficSplit zone_split(const DeployedService& callee, std::optional<ZoneIndex> caller_zone,
                     const std::vector<bool>& candidates) {
  const std::size_t n = callee.zones.size();
  TrafficSplit out;
  out.share.assign(n, 0.0);
  out.tried_local.assign(n, 0.0);
  const auto candidate = [&](std::size_t z) { return candidates.empty() || candidates[z]; };
  double total = 0;
  for (std::size_t z = 0; z < n; ++z) {
    if (candidate(z)) total += zone_weight(callee.up_pods[z]);
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
    if (candidate(z)) out.share[z] += by_weight * zone_weight(callee.up_pods[z]) / total;
  }
  return out;
}

}  // namespace drsim

#include "analysis/blast_radius.h"

#include <algorithm>
#include <optional>

namespace drsim {

namespace {
struct Placement {
  ZoneIndex zone = 0;
  std::uint32_t pods = 0;
};

std::vector<Placement> placements(const Topology& topology, const ServiceConfig& service) {
  std::vector<Placement> out;
  for (const ReplicasConfig& r : service.replicas) {
    const auto z = topology.find_zone(r.zone);
    if (z && r.replicas > 0) out.push_back({*z, r.replicas});
  }
  return out;
}

const ServiceConfig* find_service(const std::vector<ServiceConfig>& services, const std::string& name) {
  for (const ServiceConfig& s : services) {
    if (s.name == name) return &s;
  }
  return nullptr;
}
}  // namespace

BlastRadius blast_radius(const Topology& topology, const TopologyState& state,
                         const std::vector<ServiceConfig>& services, const std::vector<ClientPopulationConfig>& load,
                         const std::vector<DatabaseConfig>& databases,
                         const std::vector<std::optional<std::size_t>>* nominal_partitions) {
  BlastRadius radius;
  std::vector<std::optional<std::size_t>> own;
  if (!nominal_partitions) own = topology.partitions(state);
  const std::vector<std::optional<std::size_t>>& partitions = nominal_partitions ? *nominal_partitions : own;
  const auto partition = [&](ZoneIndex z) { return state.zone_up[z] ? partitions[z] : std::nullopt; };
  for (ZoneIndex z = 0; z < topology.zone_count(); ++z) {
    if (!state.zone_up[z]) radius.zones_down.push_back(topology.zone_name(z));
  }
  // Can a caller in zone `from` (nullopt: outside the topology) reach some up
  // pod of `service`, in one of `regions` when given?
  auto reaches = [&](std::optional<ZoneIndex> from, const ServiceConfig& service,
                     const std::vector<RegionIndex>* regions) {
    for (const Placement& p : placements(topology, service)) {
      if (!partition(p.zone)) continue;
      if (regions && std::find(regions->begin(), regions->end(), topology.region_of(p.zone)) == regions->end()) {
        continue;
      }
      if (!from || (partition(*from) && *partition(*from) == *partition(p.zone))) return true;
    }
    return false;
  };

  for (const ServiceConfig& service : services) {
    bool any_up = false;
    for (const Placement& p : placements(topology, service)) {
      if (state.zone_up[p.zone]) {
        any_up = true;
        continue;
      }
      radius.pods_lost.push_back({service.name, topology.zone_name(p.zone), p.pods});
    }
    if (!any_up) radius.services_down.push_back(service.name);
    for (const Placement& p : placements(topology, service)) {
      if (!state.zone_up[p.zone]) continue;
      std::vector<std::string> seen;
      for (std::size_t op = 0; op < service.operation_count(); ++op) {  // every operation's calls
        for (const CallConfig& call : service.calls_of(op)) {
          if (call.service.empty() || std::find(seen.begin(), seen.end(), call.service) != seen.end()) continue;
          seen.push_back(call.service);
          const ServiceConfig* callee = find_service(services, call.service);
          if (callee != nullptr && !reaches(p.zone, *callee, nullptr)) {
            radius.lost_dependencies.push_back({service.name, topology.zone_name(p.zone), callee->name});
          }
        }
      }
    }
  }

  for (const ClientPopulationConfig& population : load) {
    const ServiceConfig* entry = find_service(services, population.service);
    if (entry == nullptr) continue;
    std::optional<ZoneIndex> from;
    if (!population.zone.empty()) from = topology.find_zone(population.zone);
    std::vector<RegionIndex> regions;
    if (population.routing) {
      for (const RegionWeightConfig& r : population.routing->regions) {
        if (const auto region = topology.find_region(r.region)) regions.push_back(*region);
      }
    }
    if (from && !state.zone_up[*from]) {
      radius.populations_cut_off.push_back(population.name);  // the clients' own zone is down
      continue;
    }
    if (!reaches(from, *entry, regions.empty() ? nullptr : &regions)) {
      radius.populations_cut_off.push_back(population.name);
    }
  }
  for (const DatabaseConfig& db : databases) {
    const auto zone = topology.find_zone(db.primary_zone);
    if (zone && !state.zone_up[*zone]) radius.database_primaries_lost.push_back(db.name + " in " + db.primary_zone);
  }
  return radius;
}

std::vector<std::string> describe(const BlastRadius& radius) {
  std::vector<std::string> lines;
  if (!radius.zones_down.empty()) {
    std::string line = "zones down:";
    for (const std::string& z : radius.zones_down) line += " " + z;
    lines.push_back(line);
  }
  for (const LostPods& lost : radius.pods_lost) {
    lines.push_back(lost.service + " loses " + std::to_string(lost.pods) + " pod" + (lost.pods == 1 ? "" : "s") +
                    " in " + lost.zone);
  }
  for (const std::string& s : radius.services_down) lines.push_back(s + " has no pod left");
  for (const LostDependency& d : radius.lost_dependencies) {
    lines.push_back(d.service + " in " + d.zone + " can no longer reach " + d.callee);
  }
  for (const std::string& p : radius.populations_cut_off) {
    lines.push_back("population " + p + " can no longer reach its entry service");
  }
  for (const std::string& db : radius.database_primaries_lost) lines.push_back("database " + db + " loses its primary");
  return lines;
}

}  // namespace drsim

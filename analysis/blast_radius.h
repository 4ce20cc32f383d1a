#pragma once
// The blast radius of a failure, from the topology alone: which zones are
// down, which services lose pods, which services lose a dependency (pods
// left in a zone that can no longer reach any pod of a service they call,
// because the callee's zones are down or cut off by a partition), and which
// client populations can no longer reach their entry service, and which
// databases lose their primary (its zone is down). It answers
// "what does losing this zone, region or link take with it?" before anything
// is simulated; `drsim check` prints it for every single failure.
#include <optional>
#include <string>
#include <vector>

#include "models/data/database_config.h"
#include "models/service/service_config.h"
#include "models/topology/topology.h"
#include "models/traffic/client_population.h"

namespace drsim {

struct LostDependency {
  std::string service;  // the caller
  std::string zone;     // where its surviving pods are
  std::string callee;   // the service none of its pods can reach
  friend bool operator==(const LostDependency&, const LostDependency&) = default;
};

struct LostPods {
  std::string service;
  std::string zone;
  std::uint32_t pods = 0;
  friend bool operator==(const LostPods&, const LostPods&) = default;
};

struct BlastRadius {
  std::vector<std::string> zones_down;
  std::vector<LostPods> pods_lost;
  std::vector<std::string> services_down;  // no pod left up anywhere
  std::vector<LostDependency> lost_dependencies;
  std::vector<std::string> populations_cut_off;  // no reachable pod of their entry service
  // "name in zone": databases whose configured primary's zone is down (what
  // follows, failover or none, is drsim check's business).
  std::vector<std::string> database_primaries_lost;

  bool empty() const {
    return zones_down.empty() && pods_lost.empty() && lost_dependencies.empty() && populations_cut_off.empty() &&
           database_primaries_lost.empty();
  }
};

// `nominal_partitions`: topology.partitions(topology.nominal_state()) when the
// caller evaluates many states that differ from the nominal one only in zones
// being down (drsim check's N+1 cases). Zones are leaves of the topology
// graph, so the up zones then keep their nominal partitions, and one
// computation serves every case instead of one per case.
BlastRadius blast_radius(const Topology& topology, const TopologyState& state,
                         const std::vector<ServiceConfig>& services, const std::vector<ClientPopulationConfig>& load,
                         const std::vector<DatabaseConfig>& databases = {},
                         const std::vector<std::optional<std::size_t>>* nominal_partitions = nullptr);

// One line per finding, for reports: "zones down: a, b", "payments loses 3 pods in north-a", ...
std::vector<std::string> describe(const BlastRadius& radius);

}  // namespace drsim

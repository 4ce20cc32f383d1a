#pragma once
// The N+1 capacity report behind `drsim check`: for the steady state and for
// every single zone failure and every single region failure, where each
// service's traffic goes under the balancing rules and what that does to
// each zone's pods, solved in closed form (no simulation).
//
// The model follows the simulator's: a population's requests are split over
// the service's zones in proportion to up pods (the balancer's weights; zone
// affinity is not modelled here yet), then evenly over a zone's pods; each
// pod is an M/M/c station with c worker slots (M/M/c/K with a queue limit).
// Each population is taken at its peak rate. The response time adds the
// network round trip from the population's zone when it has one.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/load/rate_profile.h"
#include "models/service/service_config.h"
#include "models/topology/topology_config.h"
#include "models/traffic/client_population.h"
#include "sim/time.h"

namespace drsim {

struct StationRow {
  std::string service;
  std::string zone;
  std::uint32_t up_pods = 0;
  double rate_per_s = 0;     // arriving at the zone
  double utilization = 0;    // offered load / workers of the zone's up pods
  bool stable = true;
  double headroom = 0;       // extra load before utilization reaches the target (ratio; < 0: over)
  double blocking = 0;       // rejected fraction (queue limit)
  std::optional<Duration> mean_response;  // queue + service at a pod; none when unstable
};

struct PopulationRow {
  std::string population;
  double rate_per_s = 0;
  double unserved_rate_per_s = 0;         // no up pod anywhere
  std::optional<Duration> mean_latency;   // none when any zone it uses is unstable
};

struct FailureCase {
  std::string name;  // "steady", "zone eu-west-1a down", "region eu-west-1 down"
  std::vector<StationRow> stations;
  std::vector<PopulationRow> populations;
  bool overloaded = false;  // some station over the target utilization or unstable
};

struct NPlusOneReport {
  double utilization_target = 0.8;
  std::vector<FailureCase> cases;
};

// The highest rate a profile reaches.
Rate peak_rate(const RateProfileConfig& profile);

NPlusOneReport n_plus_one(const TopologyConfig& topology, const std::vector<ServiceConfig>& services,
                          const std::vector<ClientPopulationConfig>& load, double utilization_target = 0.8);

// The report as a fixed-width text table.
std::string format_report(const NPlusOneReport& report);

}  // namespace drsim

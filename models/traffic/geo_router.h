#pragma once
// Geo routing of a client population to the regions that serve its entry
// service, as a DNS routing policy does (Route 53 weighted or latency-based
// records): every request is sent to one region, and the service's in-region
// balancer picks the zone and pod inside it.
//
//   weighted: each request draws a region in proportion to its weight (a
//             resolver's answer spreads clients the same way).
//   latency:  the region with the lowest round-trip time from the clients'
//             zone on the nominal topology, as latency records measure it
//             ahead of time; not the live network.
//
// The weights here are static: nothing checks health. A failed region keeps
// its share and its requests fail or time out, which is what static DNS
// does. Whatever changes routing at run time (an operator's DNS edit on the
// timeline, later a GSLB health checker) calls set_weight / set_available.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/config_problem.h"
#include "models/topology/topology.h"
#include "sim/fields.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace drsim {

struct RegionWeightConfig {
  std::string region;
  double weight = 1;

  static constexpr std::string_view kTypeName = "RegionWeight";
  static constexpr auto fields() {
    return std::tuple{
        field("region", &RegionWeightConfig::region, "A region that serves the population's entry service.",
              kRequired),
        field("weight", &RegionWeightConfig::weight,
              "Relative share of requests (0: none while an available region has a positive weight; all 0: equal shares, as Route 53 answers). policy latency: 0 takes the region out of the order.",
              kNonNegative),
    };
  }
};

struct GeoRoutingConfig {
  std::string policy = "weighted";  // weighted | latency
  std::vector<RegionWeightConfig> regions;
  // A consensus group holding the routing rules (models/traffic/routing_rules_store.h); empty: changes
  // apply at once.
  std::string rules_store;
  Duration rules_retry_interval = std::chrono::seconds(1);

  static constexpr std::string_view kTypeName = "GeoRouting";
  static constexpr auto fields() {
    return std::tuple{
        field("policy", &GeoRoutingConfig::policy,
              "weighted (share by weight) or latency (the region closest to the population's zone)."),
        field("regions", &GeoRoutingConfig::regions,
              "The regions requests may go to, with weights (default: every region where the entry service has "
              "pods, weight 1)."),
        field("rulesStore", &GeoRoutingConfig::rules_store,
              "A consensus group (spec.topology.consensusGroups) that stores the routing rules: a change (routing:weight, "
              "a health checker's) takes effect once the group commits it; without a leader it waits (empty: at once)."),
        field("rulesRetryInterval", &GeoRoutingConfig::rules_retry_interval,
              "With rulesStore: how often a change the group could not take (no leader) is proposed again.",
              kPositive),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

class GeoRouter {
 public:
  // serving_regions: where the entry service has pods, the default
  // candidates. client_zone is required by the latency policy.
  GeoRouter(const GeoRoutingConfig& config, const Topology& topology, std::optional<ZoneIndex> client_zone,
            const std::vector<RegionIndex>& serving_regions);

  // The region for the next request; nullopt when no candidate is available.
  std::optional<RegionIndex> pick(RngStream& rng);

  // Run-time changes (operator actions, health checks). Unknown regions are
  // ignored by the getters and rejected by the setters with SimulationError.
  void set_weight(RegionIndex region, double weight);
  void set_available(RegionIndex region, bool available);
  double weight(RegionIndex region) const;
  bool available(RegionIndex region) const;
  // The candidates, in preference order for the latency policy.
  std::vector<RegionIndex> regions() const;

 private:
  struct Candidate {
    RegionIndex region = 0;
    double weight = 1;
    bool available = true;
  };
  Candidate& candidate(RegionIndex region);
  const Candidate* find(RegionIndex region) const;

  bool latency_ = false;
  std::vector<Candidate> candidates_;  // latency policy: nearest first
};

}  // namespace drsim

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
//   failover: the first available region in the configured order (Route 53
//             failover records: primary, then secondary).
//
// Without a healthCheck the weights are static: a failed region keeps its
// share and its requests fail or time out, which is what static DNS does.
// With one (models/traffic/health_checker.h), an unhealthy region is made
// unavailable: under weighted its traffic goes to the others in proportion
// to their weights, under latency and failover to the next region in order.
// Operator DNS edits on the timeline call set_weight. With a dns block
// (models/traffic/dns_caches.h) clients see a change only when their cached
// answer expires.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/config_problem.h"
#include "models/topology/topology.h"
#include "models/traffic/dns_cache_config.h"
#include "models/traffic/health_check_config.h"
#include "models/traffic/traffic_scheduler_config.h"
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
        field("region", &RegionWeightConfig::region, "A region that serves the population's entry service.", kRequired),
        field("weight", &RegionWeightConfig::weight,
              "Relative share of requests (0: none while an available region has a positive weight; all 0: equal "
              "shares, as Route 53 answers). policy latency: 0 takes the region out of the order.",
              kNonNegative),
    };
  }
};

struct GeoRoutingConfig {
  std::string policy = "weighted";  // weighted | latency | failover
  std::vector<RegionWeightConfig> regions;
  // A consensus group holding the routing rules (models/traffic/routing_rules_store.h); empty: changes
  // apply at once.
  std::string rules_store;
  Duration rules_retry_interval = std::chrono::seconds(1);
  std::optional<HealthCheckConfig> health_check;
  std::optional<DnsCacheConfig> dns;
  std::optional<TrafficSchedulerConfig> scheduler;

  static constexpr std::string_view kTypeName = "GeoRouting";
  static constexpr auto fields() {
    return std::tuple{
        field("policy", &GeoRoutingConfig::policy,
              "weighted (share by weight), latency (the region closest to the population's zone) or failover (the "
              "first available region in the order of regions: primary, then secondary)."),
        field("regions", &GeoRoutingConfig::regions,
              "The regions requests may go to, with weights (default: every region where the entry service has "
              "pods, weight 1)."),
        field(
            "rulesStore", &GeoRoutingConfig::rules_store,
            "A consensus group (spec.topology.consensusGroups) that stores the routing rules: a change "
            "(routing:weight, "
            "a health checker's) takes effect once the group commits it; without a leader it waits (empty: at once)."),
        field("rulesRetryInterval", &GeoRoutingConfig::rules_retry_interval,
              "With rulesStore: how often a change the group could not take (no leader) is proposed again.", kPositive),
        field("healthCheck", &GeoRoutingConfig::health_check,
              "GSLB health checks of each region's endpoint (Route 53 semantics); an unhealthy region gets no "
              "traffic (absent: nothing checks health, a failed region keeps its share)."),
        field("dns", &GeoRoutingConfig::dns,
              "DNS caching between the routing decision and the clients: record TTL, resolvers, client caches "
              "(absent: every request sees the current routing at once)."),
        field("scheduler", &GeoRoutingConfig::scheduler,
              "A global traffic scheduler owns the weights (policy weighted, with a healthCheck): an unhealthy "
              "region's weight becomes 0 and its share is spread over the healthy ones; routing:switch steps "
              "move shares in stages (absent: an unhealthy region is only made unavailable)."),
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
  std::optional<RegionIndex> pick(RngStream& rng) const;
  // The share of requests pick() sends to each region in the long run, in
  // candidate order (regions it never picks left out): drsim check's split.
  std::vector<std::pair<RegionIndex, double>> shares() const;

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
  // The available candidates' weights, under Route 53's all-zero rule:
  // what pick() draws by and shares() divides.
  struct Weights {
    double total = 0;
    std::size_t available = 0;
    bool all_zero = false;
    double of(const Candidate& c) const { return all_zero ? 1.0 : c.weight; }
  };
  Weights weights() const;
  Candidate& candidate(RegionIndex region);
  const Candidate* find(RegionIndex region) const;

  bool ordered_ = false;               // latency and failover: the first available candidate
  std::vector<Candidate> candidates_;  // latency policy: nearest first
};

// The regions of the given zones, each once, in the order of the zones: the
// default candidates of a service's geo routing (where it has pods).
std::vector<RegionIndex> serving_regions(const std::vector<ZoneIndex>& zones, const Topology& topology);

}  // namespace drsim

#pragma once
// A global traffic scheduler (GTS, docs/sources.md section 5) in front of a
// geo-routed population: it owns the population's route weights and changes
// them through the routing rules store (Raft-replicated rules,
// models/traffic/routing_rules_store.h), so a change reaches the router one
// commit later, or waits while the store has no quorum. Two kinds of change:
//
//   automatic failover  the population's health checker
//            (models/traffic/health_checker.h) reports each region's health
//            here instead of taking the region out of the router itself.
//            An unhealthy region's weight becomes 0 and its share is spread
//            over the healthy regions by `spread` (even, capacity, weight;
//            models/traffic/traffic_scheduler_config.h); a region drained on
//            purpose (planned share 0) takes none of it unless all the
//            healthy ones are drained. Back to healthy,
//            the region gets its planned share again. With no healthy
//            region, every region keeps its planned share (fail open).
//   planned switch-over a routing:switch step moves `share` of a region's
//            planned share to its target regions in stages (default: 10%
//            at once, 50% after 2 min, 100% after 3 min, the source's T-5,
//            T-3, T-2); its undo (a duration) or a step with reverse: true
//            is the switch-back, the same stages in reverse order (the gaps
//            between them reversed). The moved share is spread over the
//            target regions by `spread` too.
//
// Weights are shares of 1: planned share (configured weights normalised,
// minus what switches moved out, plus what they moved in) with the
// unhealthy regions' shares spread over the healthy ones. Each decision is
// one rules-store change holding the whole weight vector.
//
// Recorded per window (labels population, region): routing.weight (gauge:
// the share the router applies, after the store's commit), routing.requests
// (requests the population sent to the region, DNS caches included).
// Events: the scheduler.* kinds (models/traffic/traffic_event_kinds.h). KPIs:
// routing.failovers.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/metrics/windowed_metrics.h"
#include "models/topology/failure_domains.h"
#include "models/traffic/geo_router.h"
#include "models/traffic/routing_listeners.h"
#include "models/traffic/routing_rules_store.h"
#include "models/traffic/traffic_scheduler_config.h"
#include "sim/component.h"

namespace drsim {

class Service;

class TrafficScheduler : public Component, public RegionHealthListener, public RoutedListener {
 public:
  // label: the population's name. entry: its entry service (capacity).
  // store: its rules store, or null (changes apply at once).
  TrafficScheduler(std::string label, TrafficSchedulerConfig config, GeoRouter& router, const Service& entry,
                   FailureDomains& domains, RoutingRulesStore* store, Duration metrics_window = std::chrono::seconds(1));

  // The health checker's decision about a region.
  void region_health(RegionIndex region, bool healthy) override;
  // A request the population sent to a region.
  void routed(RegionIndex region) override;

  // routing:switch. name: the step's (unique) name. back: run the
  // switch-back schedule (undo, or reverse: true).
  void start_switch(const std::string& name, RegionIndex from, std::vector<RegionIndex> to,
                    std::vector<RoutingSwitchStep> steps, bool back);
  // routing:weight: the region's configured weight (relative, as in the scenario).
  void set_planned_weight(RegionIndex region, double weight);
  double planned_weight(RegionIndex region) const;

  // Serving capacity of the entry service in the region, requests per
  // second: running pods in zones that are up x concurrency / mean service time.
  double capacity(RegionIndex region) const;
  // The weights the scheduler wants now (shares of 1, in router.regions() order).
  std::vector<double> target_shares() const;
  std::uint32_t failovers() const { return failovers_; }

 protected:
  void attach() override;
  void stop() override;

 private:
  struct Region {
    RegionIndex region = 0;
    double configured = 1;  // relative weight
    bool healthy = true;
    GaugeId weight;
    CounterId requests;
  };
  struct Switch {
    std::string name;  // the step's
    RegionIndex from = 0;
    std::vector<RegionIndex> to;
    double share = 0;  // moved so far
    std::vector<EventId> pending;
  };

  std::size_t index_of(RegionIndex region) const;
  // Splits `amount` over `receivers` (indices) by the spread rule; `base` the current shares.
  void spread(double amount, const std::vector<std::size_t>& receivers, const std::vector<double>& base,
              std::vector<double>& out) const;
  std::vector<double> planned_shares() const;
  void set_switch_share(std::size_t s, double share);
  void reconcile(const std::string& why);
  std::string shares_text(const std::vector<double>& shares) const;

  std::string label_;
  TrafficSchedulerConfig config_;
  GeoRouter& router_;
  const Service& entry_;
  FailureDomains& domains_;
  RoutingRulesStore* store_;
  Duration metrics_window_;
  Duration mean_service_time_{};
  std::vector<Region> regions_;
  std::vector<Switch> switches_;            // in the order they started
  std::vector<double> submitted_;           // the last weights handed to the store
  std::uint32_t failovers_ = 0;
  std::optional<WindowedMetrics> metrics_;
};

}  // namespace drsim

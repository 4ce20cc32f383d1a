#pragma once
// A GSLB health checker (Route 53 semantics, models/traffic/health_check_config.h)
// over the regions a population is routed to. Each checker, placed in a
// topology zone, probes each region's endpoint every requestInterval; the
// checkers are staggered (each starts at an offset drawn uniformly in the
// interval from the seed), as Route 53's independent checkers are.
//
//   probe    a real request to the population's entry service, confined to
//            the region and sent from the checker's zone: it fails when the
//            region has no routable pod (zone or region down, no pods), the
//            network has no path (link cut), the service fails it, or no
//            answer comes within the timeout
//   view     a checker's opinion of a region flips after failureThreshold
//            consecutive results that disagree with it (both ways)
//   quorum   the region is healthy while more than healthyQuorum (18%) of the
//            reporting checkers consider it healthy; a checker whose own zone
//            is down reports nothing and is left out, and once its zone is
//            back it rejoins after failureThreshold consecutive agreeing
//            results (its old view is stale)
//   routing  a change of health sets the region's availability in the router
//            through apply_routing_change, so a rules store without quorum
//            freezes it. When every region is unhealthy all are made
//            available again (Route 53 answers as if all records were healthy).
//            With a traffic scheduler (models/traffic/traffic_scheduler.h) the
//            decisions go to it instead, and it sets the weights
//
// Recorded per window (labels population, region): health.checks (probes
// sent), health.checks_failed, health.healthy_checkers (gauge: reporting
// checkers whose view is healthy), health.region_healthy (gauge 0/1). KPIs:
// health.changes. Events: the gslb.* kinds (models/traffic/traffic_event_kinds.h),
// with the time since the last change of the topology (the fault, in a drill).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/metrics/windowed_metrics.h"
#include "models/service/job.h"
#include "models/topology/failure_domains.h"
#include "models/traffic/geo_router.h"
#include "models/traffic/health_check_config.h"
#include "models/traffic/routing_listeners.h"
#include "models/traffic/routing_rules_store.h"
#include "sim/component.h"

namespace drsim {

class Service;

class HealthChecker : public Component, public JobOwner {
 public:
  // label: the population's name. store: its rules store, or null.
  HealthChecker(std::string label, HealthCheckConfig config, Service& service, FailureDomains& domains,
                GeoRouter& router, RoutingRulesStore* store, Duration metrics_window = std::chrono::seconds(1));

  void on_served(std::uint64_t token, ServeOutcome outcome) override;
  // A traffic scheduler takes the health decisions: the checker no longer changes the router itself.
  void hand_decisions_to(RegionHealthListener& listener) { listener_ = &listener; }

  // The endpoint's health as the quorum last decided it (before any rules store delay).
  bool healthy(RegionIndex region) const;
  // Checkers whose view of the region is healthy, among those reporting.
  std::uint32_t reporting_checkers(RegionIndex region) const;
  std::uint32_t healthy_checkers(RegionIndex region) const;
  // When checker c sends its first probes.
  SimTime first_probe(std::size_t checker) const { return checkers_[checker].first; }
  std::size_t checker_count() const { return checkers_.size(); }

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Probe {
    bool healthy_view = true;       // Route 53 starts a new health check as healthy
    bool known = true;              // false from a checker's return until it has threshold agreeing results
    bool last_ok = true;            // while !known: the streak's result
    std::uint32_t disagreeing = 0;  // while !known: the streak's length
    std::uint32_t generation = 0;
    bool outstanding = false;
    EventId timeout;
  };
  struct Checker {
    ZoneIndex zone = 0;
    SimTime first{};
    bool reporting = true;
    std::vector<Probe> probes;  // per region
  };
  struct Region {
    RegionIndex region = 0;
    bool healthy = true;
    bool applied_available = true;  // what was last asked of the router
    CounterId checks, checks_failed;
    GaugeId healthy_checkers, region_healthy;
  };

  void tick(std::size_t checker);
  void result(std::size_t checker, std::size_t region, bool ok);
  void evaluate(std::size_t region);
  void apply_availability();

  std::string label_;
  HealthCheckConfig config_;
  Service& service_;
  FailureDomains& domains_;
  GeoRouter& router_;
  RoutingRulesStore* store_;
  RegionHealthListener* listener_ = nullptr;
  Duration metrics_window_;
  std::vector<Checker> checkers_;
  std::vector<Region> regions_;
  SimTime last_topology_change_{};
  std::uint32_t changes_ = 0;
  std::optional<WindowedMetrics> metrics_;
};

}  // namespace drsim

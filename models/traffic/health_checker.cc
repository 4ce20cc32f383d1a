#include "models/traffic/health_checker.h"

#include "models/service/service.h"
#include "models/traffic/traffic_event_kinds.h"
#include "sim/errors.h"
#include "sim/simulation.h"

namespace drsim {

namespace {
std::string seconds(Duration d) { return format_seconds(d) + "s"; }
}  // namespace

HealthChecker::HealthChecker(std::string label, HealthCheckConfig config, Service& service, FailureDomains& domains,
                             GeoRouter& router, RoutingRulesStore* store, Duration metrics_window)
    : Component("health-check/" + label),
      label_(std::move(label)),
      config_(std::move(config)),
      service_(service),
      domains_(domains),
      router_(router),
      store_(store),
      metrics_window_(metrics_window) {
  if (const auto problems = config_.validate(); !problems.empty()) {
    throw SimulationError("health check of \"" + label_ + "\": " + problems.front().field + ": " +
                          problems.front().message);
  }
  for (RegionIndex r : router_.regions()) regions_.push_back(Region{.region = r});
  for (const std::string& zone : config_.checkers) {
    const auto z = domains_.topology().find_zone(zone);
    if (!z) throw SimulationError("health check of \"" + label_ + "\": unknown checker zone \"" + zone + "\"");
    checkers_.push_back(Checker{.zone = *z, .probes = std::vector<Probe>(regions_.size())});
  }
}

void HealthChecker::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  for (Region& r : regions_) {
    const Labels labels{{"population", label_}, {"region", domains_.topology().region_name(r.region)}};
    r.checks = metrics_->counter("health.checks", labels);
    r.checks_failed = metrics_->counter("health.checks_failed", labels);
    r.healthy_checkers = metrics_->gauge("health.healthy_checkers", labels, static_cast<double>(checkers_.size()));
    r.region_healthy = metrics_->gauge("health.region_healthy", labels, 1.0);
  }
  domains_.on_change([this] { last_topology_change_ = now(); });
}

void HealthChecker::start() {
  // Staggered: each checker's first probe at its own offset in the interval.
  for (std::size_t c = 0; c < checkers_.size(); ++c) {
    const auto offset =
        Duration{static_cast<Duration::rep>(rng().uniform() * static_cast<double>(config_.request_interval.count()))};
    checkers_[c].first = now() + offset;
    schedule_at(checkers_[c].first, "health.probe", [this, c] { tick(c); });
  }
}

void HealthChecker::tick(std::size_t c) {
  schedule_after(config_.request_interval, "health.probe", [this, c] { tick(c); });
  Checker& checker = checkers_[c];
  const bool reporting = domains_.zone_up(checker.zone);
  if (reporting != checker.reporting) {
    checker.reporting = reporting;
    if (reporting) {
      for (Probe& p : checker.probes) {
        p.known = false;
        p.disagreeing = 0;
      }
    }
    for (std::size_t r = 0; r < regions_.size(); ++r) evaluate(r);
  }
  if (!reporting) return;
  for (std::size_t r = 0; r < regions_.size(); ++r) {
    Probe& probe = checker.probes[r];
    ++probe.generation;
    probe.outstanding = true;
    metrics_->add(regions_[r].checks, now());
    const std::size_t index = c * regions_.size() + r;
    const std::uint64_t token = (static_cast<std::uint64_t>(probe.generation) << 32) | index;
    probe.timeout = schedule_after(config_.timeout, "health.timeout", [this, c, r] {
      Probe& p = checkers_[c].probes[r];
      p.timeout = EventId{};
      p.outstanding = false;
      result(c, r, false);
    });
    Job job{this, token, now()};
    job.setup_round_trips = static_cast<std::uint8_t>(config_.handshake_round_trips);
    job.probe = true;
    if (const auto failure = service_.submit(job, checker.zone, regions_[r].region)) on_served(token, *failure);
  }
}

void HealthChecker::on_served(std::uint64_t token, ServeOutcome outcome) {
  const auto index = static_cast<std::size_t>(token & 0xFFFFFFFFu);
  const auto generation = static_cast<std::uint32_t>(token >> 32);
  const std::size_t c = index / regions_.size(), r = index % regions_.size();
  if (c >= checkers_.size()) return;
  Probe& probe = checkers_[c].probes[r];
  if (!probe.outstanding || probe.generation != generation) return;  // late: it timed out
  probe.outstanding = false;
  cancel(probe.timeout);
  probe.timeout = EventId{};
  result(c, r, outcome == ServeOutcome::kServed);
}

void HealthChecker::result(std::size_t c, std::size_t r, bool ok) {
  if (!ok) metrics_->add(regions_[r].checks_failed, now());
  Probe& probe = checkers_[c].probes[r];
  if (!probe.known) {
    probe.disagreeing = (probe.disagreeing > 0 && ok == probe.last_ok) ? probe.disagreeing + 1 : 1;
    probe.last_ok = ok;
    if (probe.disagreeing < config_.failure_threshold) return;
    probe.known = true;
    probe.healthy_view = ok;
    probe.disagreeing = 0;
    evaluate(r);
    return;
  }
  if (ok == probe.healthy_view) {
    probe.disagreeing = 0;
    return;
  }
  if (++probe.disagreeing < config_.failure_threshold) return;
  probe.healthy_view = ok;
  probe.disagreeing = 0;
  evaluate(r);
}

std::uint32_t HealthChecker::healthy_checkers(RegionIndex region) const {
  for (std::size_t r = 0; r < regions_.size(); ++r) {
    if (regions_[r].region != region) continue;
    std::uint32_t n = 0;
    for (const Checker& c : checkers_) n += (c.reporting && c.probes[r].known && c.probes[r].healthy_view) ? 1 : 0;
    return n;
  }
  return 0;
}

std::uint32_t HealthChecker::reporting_checkers(RegionIndex region) const {
  for (std::size_t r = 0; r < regions_.size(); ++r) {
    if (regions_[r].region != region) continue;
    std::uint32_t n = 0;
    for (const Checker& c : checkers_) n += (c.reporting && c.probes[r].known) ? 1 : 0;
    return n;
  }
  return 0;
}

bool HealthChecker::healthy(RegionIndex region) const {
  for (const Region& r : regions_) {
    if (r.region == region) return r.healthy;
  }
  return false;
}

void HealthChecker::evaluate(std::size_t r) {
  Region& region = regions_[r];
  const std::uint32_t reporting = reporting_checkers(region.region);
  const std::uint32_t healthy_count = healthy_checkers(region.region);
  metrics_->set(region.healthy_checkers, now(), healthy_count);
  if (reporting == 0) return;  // nobody reports: the last decision stands
  const bool healthy = static_cast<double>(healthy_count) > config_.healthy_quorum.value * reporting;
  if (healthy == region.healthy) return;
  region.healthy = healthy;
  ++changes_;
  metrics_->set(region.region_healthy, now(), healthy ? 1.0 : 0.0);
  log_event(healthy ? event_kinds::gslb::kRegionHealthy : event_kinds::gslb::kRegionUnhealthy,
            domains_.topology().region_name(region.region) + ": " + std::to_string(healthy_count) + " of " +
                std::to_string(reporting) + " checkers healthy, " + seconds(now() - last_topology_change_) +
                " after the last topology change");
  if (listener_ != nullptr) {
    listener_->region_health(region.region, healthy);
    return;
  }
  apply_availability();
}

void HealthChecker::apply_availability() {
  bool any_healthy = false;
  for (const Region& r : regions_) any_healthy = any_healthy || r.healthy;
  for (Region& r : regions_) {
    // Fail open: with no healthy region, every region is answered.
    const bool available = r.healthy || !any_healthy;
    if (available == r.applied_available) continue;
    r.applied_available = available;
    const RegionIndex region = r.region;
    GeoRouter* router = &router_;
    apply_routing_change(
        store_,
        "health check: " + domains_.topology().region_name(region) + (available ? " available" : " unavailable"),
        [router, region, available] { router->set_available(region, available); });
  }
}

void HealthChecker::stop() {
  metrics_->finish(now());
  recorder().kpi("health.changes", {{"population", label_}}, changes_);
}

}  // namespace drsim

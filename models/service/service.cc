#include "models/service/service.h"

#include <algorithm>

#include "sim/errors.h"
#include "sim/simulation.h"

namespace drsim {

namespace {
ServiceConfig checked(ServiceConfig config) {
  const auto problems = config.validate();
  if (!problems.empty()) {
    throw SimulationError("service \"" + config.name + "\": " + problems.front().field + ": " +
                          problems.front().message);
  }
  return config;
}
}  // namespace

Service::Service(ServiceConfig config, FailureDomains* domains, Duration metrics_window)
    : Component("service/" + config.name),
      config_(checked(std::move(config))),
      domains_(domains),
      service_time_(config_.service_time),
      metrics_window_(metrics_window),
      refuse_on_failure_(config_.zone_failure == "refuse"),
      least_outstanding_(config_.balancing == "least-outstanding") {
  for (const ReplicasConfig& r : config_.replicas) {
    Zone zone;
    zone.name = r.zone;
    if (domains_ != nullptr) {
      zone.topology_zone = domains_->topology().find_zone(r.zone);
      if (!zone.topology_zone) {
        throw SimulationError("service \"" + config_.name + "\": unknown zone \"" + r.zone + "\"");
      }
    }
    for (std::uint32_t i = 0; i < r.replicas; ++i) {
      zone.pods.push_back(pods_.size());
      Pod pod;
      pod.zone = zones_.size();
      pod.running.assign(config_.concurrency, EventId{});
      pods_.push_back(std::move(pod));
    }
    zones_.push_back(std::move(zone));
  }
  in_service_.assign(pods_.size(), std::vector<Job>(config_.concurrency));
}

void Service::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  for (Zone& z : zones_) {
    const Labels labels{{"service", config_.name}, {"zone", z.name}};
    z.arrivals = metrics_->counter("service.arrivals", labels);
    z.waited = metrics_->counter("service.waited", labels);
    z.rejected = metrics_->counter("service.rejected", labels);
    z.completed = metrics_->counter("service.completed", labels);
    z.response = metrics_->latency("service.response", labels);
    z.utilization = metrics_->gauge("zone.utilization", labels);
    z.queue_length = metrics_->gauge("service.queue_length", labels);
  }
  if (domains_ != nullptr) domains_->on_change([this] { on_topology_change(); });
}

void Service::start() {
  if (domains_ != nullptr) on_topology_change();
}

std::uint32_t Service::up_pods(const Zone& zone) const {
  return static_cast<std::uint32_t>(
      std::count_if(zone.pods.begin(), zone.pods.end(), [&](std::size_t p) { return pods_[p].up; }));
}

std::uint32_t Service::busy_workers(std::size_t zone) const { return zones_[zone].busy; }
std::size_t Service::queued(std::size_t zone) const { return zones_[zone].queued; }

void Service::set_cut_ratio(std::size_t zone, double ratio) {
  if (ratio < 0 || ratio > 1) throw SimulationError("cut ratio outside [0, 1]");
  zones_[zone].cut_ratio = ratio;
}

// Smooth weighted round-robin (as in nginx): deterministic, and it spreads a
// zone's turns evenly instead of bunching them. Weight = up pods x cut ratio.
std::optional<std::size_t> Service::pick_zone(std::optional<ZoneIndex> caller_zone) {
  if (config_.zone_affinity && caller_zone) {
    for (std::size_t z = 0; z < zones_.size(); ++z) {
      Zone& zone = zones_[z];
      if (zone.topology_zone != caller_zone || zone.cut_ratio <= 0) continue;
      const std::uint32_t workers = up_pods(zone) * config_.concurrency;
      if (zone.busy < workers) return z;  // an idle worker at home: stay local
    }
  }
  double total = 0;
  std::optional<std::size_t> best;
  for (std::size_t z = 0; z < zones_.size(); ++z) {
    Zone& zone = zones_[z];
    const double weight = up_pods(zone) * zone.cut_ratio;
    if (weight <= 0) continue;
    zone.swrr_current += weight;
    total += weight;
    if (!best || zone.swrr_current > zones_[*best].swrr_current) best = z;
  }
  if (best) zones_[*best].swrr_current -= total;
  return best;
}

std::optional<std::size_t> Service::pick_pod(Zone& zone) {
  std::optional<std::size_t> best;
  const std::size_t n = zone.pods.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t p = zone.pods[(zone.next_pod + k) % n];
    const Pod& pod = pods_[p];
    if (!pod.up) continue;
    if (!least_outstanding_) {
      zone.next_pod = (zone.next_pod + k + 1) % n;
      return p;
    }
    if (!best || pod.outstanding() < pods_[*best].outstanding()) best = p;
  }
  if (best) zone.next_pod = (zone.next_pod + 1) % n;  // rotate ties
  return best;
}

std::optional<ServeOutcome> Service::submit(Job job, std::optional<ZoneIndex> caller_zone) {
  const auto z = pick_zone(caller_zone);
  if (!z) return ServeOutcome::kNoTarget;
  Zone& zone = zones_[*z];
  const auto p = pick_pod(zone);
  if (!p) return ServeOutcome::kNoTarget;
  Pod& pod = pods_[*p];
  const SimTime t = now();
  metrics_->add(zone.arrivals, t);
  job.arrived = t;
  if (pod.busy < config_.concurrency) {
    begin_service(*p, job);
  } else {
    if (config_.queue_limit && pod.queue.size() >= *config_.queue_limit) {
      metrics_->add(zone.rejected, t);
      return ServeOutcome::kRejected;
    }
    metrics_->add(zone.waited, t);
    pod.queue.push_back(job);
    ++zone.queued;
  }
  update_gauges(*z);
  return std::nullopt;
}

void Service::begin_service(std::size_t p, Job job) {
  Pod& pod = pods_[p];
  std::size_t slot = 0;
  while (pod.running[slot].valid()) ++slot;  // concurrency is small: a scan is cheapest
  ++pod.busy;
  ++zones_[pod.zone].busy;
  in_service_[p][slot] = job;
  Duration d = service_time_.sample(rng());
  if (slowdown_ != 1.0) d = Duration{static_cast<std::int64_t>(static_cast<double>(d.count()) * slowdown_)};
  pod.running[slot] = schedule_after(d, "service.complete", [this, p, slot] { complete(p, slot); });
}

void Service::complete(std::size_t p, std::size_t slot) {
  Pod& pod = pods_[p];
  Zone& zone = zones_[pod.zone];
  const Job job = in_service_[p][slot];
  pod.running[slot] = EventId{};
  --pod.busy;
  --zone.busy;
  const SimTime t = now();
  metrics_->add(zone.completed, t);
  metrics_->observe(zone.response, t, t - job.arrived);
  if (!pod.queue.empty()) {
    const Job next = pod.queue.front();
    pod.queue.pop_front();
    --zone.queued;
    begin_service(p, next);
  }
  update_gauges(pod.zone);
  job.owner->on_served(job.token, ServeOutcome::kServed);
}

void Service::update_gauges(std::size_t z) {
  Zone& zone = zones_[z];
  const SimTime t = now();
  const std::uint32_t workers = up_pods(zone) * config_.concurrency;
  metrics_->set(zone.utilization, t, workers == 0 ? 0.0 : static_cast<double>(zone.busy) / workers);
  metrics_->set(zone.queue_length, t, static_cast<double>(zone.queued));
  // Overload: requests are waiting for a worker.
  const bool overloaded = zone.queued > 0;
  if (overloaded && zone.overload_since == kSimTimeMax) zone.overload_since = t;
  if (!overloaded && zone.overload_since != kSimTimeMax) {
    zone.overload += t - zone.overload_since;
    zone.overload_since = kSimTimeMax;
  }
}

void Service::on_topology_change() {
  std::vector<std::pair<JobOwner*, std::uint64_t>> refused;
  for (std::size_t p = 0; p < pods_.size(); ++p) {
    Pod& pod = pods_[p];
    const Zone& zone = zones_[pod.zone];
    const bool up = !zone.topology_zone || domains_->zone_up(*zone.topology_zone);
    if (up == pod.up) continue;
    pod.up = up;
    if (up) continue;
    // The pod's zone failed: its queue and the jobs in service are gone. A
    // black hole tells nobody; a refusal resets every connection at once.
    for (std::size_t slot = 0; slot < pod.running.size(); ++slot) {
      if (!pod.running[slot].valid()) continue;
      cancel(pod.running[slot]);
      pod.running[slot] = EventId{};
      if (refuse_on_failure_) refused.emplace_back(in_service_[p][slot].owner, in_service_[p][slot].token);
    }
    zones_[pod.zone].busy -= pod.busy;
    pod.busy = 0;
    for (const Job& job : pod.queue) {
      if (refuse_on_failure_) refused.emplace_back(job.owner, job.token);
    }
    zones_[pod.zone].queued -= pod.queue.size();
    pod.queue.clear();
  }
  for (std::size_t z = 0; z < zones_.size(); ++z) update_gauges(z);
  // Owners hear after the state is consistent: they may submit again at once.
  for (const auto& [owner, token] : refused) owner->on_served(token, ServeOutcome::kRefused);
}

void Service::stop() {
  const SimTime t = now();
  for (std::size_t z = 0; z < zones_.size(); ++z) {
    Zone& zone = zones_[z];
    if (zone.overload_since != kSimTimeMax) {
      zone.overload += t - zone.overload_since;
      zone.overload_since = t;
    }
  }
  metrics_->finish(t);
  for (const Zone& zone : zones_) {
    const Labels labels{{"service", config_.name}, {"zone", zone.name}};
    recorder().kpi("zone.utilization_mean", labels, metrics_->gauge_mean(zone.utilization));
    recorder().kpi("zone.utilization_peak", labels, metrics_->gauge_max(zone.utilization));
    recorder().kpi("zone.overload_s", labels, to_seconds(zone.overload));
    recorder().kpi("service.rejected", labels, metrics_->total(zone.rejected));
  }
}

}  // namespace drsim

#include "models/service/envoy_cluster.h"

#include <algorithm>

#include "models/service/service.h"
#include "sim/simulation.h"

namespace drsim {

EnvoyCluster::EnvoyCluster(const MeshConfig& config, Service& upstream, std::optional<ZoneIndex> local_zone,
                           std::optional<RegionIndex> local_region, Simulation& sim, std::uint32_t host_component,
                           RngStream& rng)
    : config_(config),
      policy_(config.lb_policy == "roundRobin" ? Policy::kRoundRobin
              : config.lb_policy == "random"   ? Policy::kRandom
                                               : Policy::kLeastRequest),
      upstream_(upstream),
      local_zone_(local_zone),
      local_region_(local_region),
      sim_(sim),
      host_component_(host_component),
      rng_(rng) {}

EnvoyCluster::~EnvoyCluster() = default;

void EnvoyCluster::start() {
  if (running_) return;
  running_ = true;
  used_ = false;
  started_ = sim_.now();
  hosts_.assign(upstream_.pod_total(), Host{});
  // The cluster warmed up before the pod took traffic: what is listed now is known and healthy.
  for (std::size_t p = 0; p < hosts_.size(); ++p) hosts_[p].in_eds = upstream_.pod_routable(p);
  seen_endpoints_ = ~std::uint64_t{0};
  health_changed_ = true;
  if (!config_.health_check) return;
  for (std::size_t p = 0; p < hosts_.size(); ++p) {
    // Sidecars start at different times: each host's checks run at their own phase.
    if (hosts_[p].in_eds) schedule_check(p, Duration{static_cast<std::int64_t>(rng_.uniform() * check_interval().count())});
  }
}

void EnvoyCluster::stop() {
  if (!running_) return;
  running_ = false;
  sim_.cancel(sweep_);
  sweep_ = EventId{};
  for (Host& h : hosts_) cancel_checks(h);
  hosts_.clear();
  seen_endpoints_ = ~std::uint64_t{0};
  health_changed_ = true;
}

std::size_t EnvoyCluster::level_of(std::size_t host) const {
  if (config_.locality == "none" || !local_zone_) return 0;
  const std::size_t z = upstream_.pod_zone(host);
  const std::optional<ZoneIndex> zone = upstream_.topology_zone(z);
  if (zone == local_zone_) return 0;
  if (local_region_ && upstream_.zone_region(z) == local_region_) return 1;
  return 2;
}

void EnvoyCluster::refresh() {
  const std::uint64_t version = upstream_.endpoints_version();
  if (version == seen_endpoints_ && !health_changed_) return;
  seen_endpoints_ = version;
  health_changed_ = false;
  if (hosts_.size() < upstream_.pod_total()) hosts_.resize(upstream_.pod_total());
  for (std::size_t l = 0; l < kLevels; ++l) {
    all_[l].clear();
    healthy_[l].clear();
  }
  listed_ = 0;
  for (std::size_t p = 0; p < hosts_.size(); ++p) {
    Host& h = hosts_[p];
    const bool listed = upstream_.pod_routable(p);
    if (listed != h.in_eds) {
      // A host that leaves EDS is forgotten; one that (re)joins starts afresh, and under active health
      // checking is unhealthy until its first check passes.
      const std::uint32_t active = h.active;
      cancel_checks(h);
      h = Host{};
      h.active = active;
      h.in_eds = listed;
      if (listed && config_.health_check) {
        h.hc_healthy = false;
        h.hc_fresh = true;
        schedule_check(p, Duration::zero());
      }
    }
    if (!listed) continue;
    ++listed_;
    const std::size_t level = level_of(p);
    all_[level].push_back(static_cast<std::uint32_t>(p));
    if (available(h)) healthy_[level].push_back(static_cast<std::uint32_t>(p));
  }
  // Envoy's priority load: each level offers min(100%, factor x its healthy share); the levels take the
  // traffic in order until it is all placed. If they cannot place it all, each gets its offer's part of the
  // total, and a level under the panic threshold sends to all its hosts.
  std::array<double, kLevels> offer{};
  double offered = 0;
  for (std::size_t l = 0; l < kLevels; ++l) {
    if (all_[l].empty()) continue;
    offer[l] = std::min(1.0, config_.overprovisioning_factor * static_cast<double>(healthy_[l].size()) /
                                 static_cast<double>(all_[l].size()));
    offered += offer[l];
  }
  std::array<double, kLevels> share{};
  panic_.fill(false);
  if (offered <= 0) {
    // Nothing healthy anywhere: the first level with hosts takes it all, to any of its hosts.
    for (std::size_t l = 0; l < kLevels; ++l) {
      if (all_[l].empty()) continue;
      share[l] = 1;
      panic_[l] = true;
      break;
    }
  } else if (offered >= 1) {
    double left = 1;
    for (std::size_t l = 0; l < kLevels; ++l) {
      share[l] = std::min(offer[l], left);
      left -= share[l];
    }
  } else {
    for (std::size_t l = 0; l < kLevels; ++l) {
      if (all_[l].empty()) continue;
      share[l] = offer[l] / offered;
      const double healthy_percent =
          100.0 * static_cast<double>(healthy_[l].size()) / static_cast<double>(all_[l].size());
      panic_[l] = healthy_percent < config_.panic_threshold;
    }
  }
  double cumulative = 0;
  for (std::size_t l = 0; l < kLevels; ++l) {
    cumulative += share[l];
    load_[l] = cumulative;
  }
}

std::optional<std::size_t> EnvoyCluster::pick() {
  refresh();
  if (listed_ == 0) return std::nullopt;
  std::size_t level = 0;
  if (load_[0] < 1) {
    const double u = rng_.uniform() * load_[kLevels - 1];
    while (level + 1 < kLevels && (u >= load_[level] || all_[level].empty())) ++level;
  }
  return pick_in(level, panic_[level]);
}

std::size_t EnvoyCluster::pick_in(std::size_t level, bool panic) {
  const std::vector<std::uint32_t>& hosts = panic || healthy_[level].empty() ? all_[level] : healthy_[level];
  const std::size_t n = hosts.size();
  if (n == 1) return hosts[0];
  if (policy_ == Policy::kRoundRobin) return hosts[next_[level]++ % n];
  if (policy_ == Policy::kRandom) return hosts[rng_.below(n)];
  // leastRequest: the fewer requests under way of two hosts drawn at random (Envoy's choice_count 2).
  const std::uint32_t a = hosts[rng_.below(n)];
  const std::uint32_t b = hosts[rng_.below(n)];
  return hosts_[b].active < hosts_[a].active ? b : a;
}

bool EnvoyCluster::needs_connection(std::size_t host) const {
  return host >= hosts_.size() || !hosts_[host].connected;
}

void EnvoyCluster::sent(std::size_t host) {
  used_ = true;
  if (host >= hosts_.size()) hosts_.resize(host + 1);
  ++hosts_[host].active;
}

void EnvoyCluster::ended(std::size_t host, Result result) {
  if (host >= hosts_.size()) return;  // the sidecar stopped meanwhile
  Host& h = hosts_[host];
  if (h.active > 0) --h.active;
  if (result == Result::kSuccess) {
    h.connected = true;
    h.consecutive_failures = 0;
    return;
  }
  // A failed or reset stream closes its HTTP/1.1 connection: the next request connects anew.
  h.connected = false;
  if (result == Result::kAbandoned || h.ejected || !h.in_eds || config_.outlier_detection.consecutive_5xx == 0) return;
  // Envoy acts when the count reaches the threshold: a host that could not be ejected then (too many are)
  // is tried again only after a success has reset its count.
  if (++h.consecutive_failures == config_.outlier_detection.consecutive_5xx) eject(host);
}

void EnvoyCluster::eject(std::size_t host) {
  refresh();
  std::size_t ejected_now = 0;
  for (const auto& level : all_) {
    for (const std::uint32_t p : level) ejected_now += hosts_[p].ejected ? 1 : 0;
  }
  const double percent = 100.0 * static_cast<double>(ejected_now + 1) / static_cast<double>(std::max<std::size_t>(listed_, 1));
  if (ejected_now > 0 && percent > config_.outlier_detection.max_ejection_percent) return;
  Host& h = hosts_[host];
  h.ejected = true;
  h.ejected_at = sim_.now();
  ++h.times_ejected;
  ++ejections_;
  health_changed_ = true;
  schedule_sweep();
}

void EnvoyCluster::schedule_sweep() {
  if (sim_.is_pending(sweep_)) return;
  // The detector's timer runs from the sidecar's start, every interval.
  const std::int64_t interval = config_.outlier_detection.interval.count();
  const std::int64_t since = (sim_.now() - started_).count();
  const SimTime next = started_ + Duration{(since / interval + 1) * interval};
  sweep_ = sim_.schedule_at(next, [this] { sweep(); }, EventTag{host_component_, "mesh.outlier_sweep"});
}

void EnvoyCluster::sweep() {
  sweep_ = EventId{};
  const OutlierDetectionConfig& od = config_.outlier_detection;
  const SimTime t = sim_.now();
  bool again = false;
  for (Host& h : hosts_) {
    if (h.ejected) {
      const Duration length =
          std::min(od.base_ejection_time * static_cast<std::int64_t>(h.times_ejected), od.max_ejection_time);
      if (t >= h.ejected_at + length) {
        h.ejected = false;
        h.consecutive_failures = 0;
        health_changed_ = true;
      }
      again = true;  // back in service, its multiplier still has to come down
    } else if (h.times_ejected > 0) {
      // A sweep that finds the host in service brings its next ejection's length down a step.
      again = --h.times_ejected > 0 || again;
    }
  }
  if (again) schedule_sweep();
}

Duration EnvoyCluster::check_interval() const {
  return used_ ? config_.health_check->interval : config_.health_check->no_traffic_interval;
}

void EnvoyCluster::schedule_check(std::size_t host, Duration after) {
  Host& h = hosts_[host];
  sim_.cancel(h.hc_next);
  h.hc_next = sim_.schedule_after(after, [this, host] { check(host); }, EventTag{host_component_, "mesh.health_check"});
}

void EnvoyCluster::check(std::size_t host) {
  Host& h = hosts_[host];
  h.hc_next = EventId{};
  if (!running_ || !h.in_eds) return;
  const std::uint32_t round = ++h.hc_round;
  const MeshHealthCheckConfig& hc = *config_.health_check;
  const Service::ProbeAnswer answer = upstream_.probe_pod(local_zone_, host);
  const bool in_time = answer.after && *answer.after < hc.timeout;
  const bool passed = in_time && answer.passed;
  h.hc_timeout = sim_.schedule_after(
      in_time ? *answer.after : hc.timeout, [this, host, round, passed] { check_result(host, round, passed); },
      EventTag{host_component_, "mesh.health_check_result"});
  schedule_check(host, check_interval());
}

void EnvoyCluster::check_result(std::size_t host, std::uint32_t round, bool passed) {
  if (host >= hosts_.size()) return;
  Host& h = hosts_[host];
  h.hc_timeout = EventId{};
  if (!running_ || !h.in_eds || round != h.hc_round) return;
  const bool fresh = h.hc_fresh;
  h.hc_fresh = false;
  if (passed == h.hc_healthy) {
    h.hc_streak = 0;
    return;
  }
  const MeshHealthCheckConfig& hc = *config_.health_check;
  // A host new to the sidecar is healthy at its first passed check.
  const std::uint32_t needed = passed ? (fresh ? 1 : hc.healthy_threshold) : hc.unhealthy_threshold;
  if (++h.hc_streak < needed) return;
  h.hc_healthy = passed;
  h.hc_streak = 0;
  health_changed_ = true;
}

void EnvoyCluster::cancel_checks(Host& h) {
  sim_.cancel(h.hc_next);
  sim_.cancel(h.hc_timeout);
  h.hc_next = EventId{};
  h.hc_timeout = EventId{};
  ++h.hc_round;
}

}  // namespace drsim

#include "models/traffic/cdn_edges.h"

#include "models/service/service.h"
#include "models/traffic/health_checker.h"
#include "models/traffic/traffic_event_kinds.h"
#include "sim/errors.h"
#include "sim/simulation.h"

namespace drsim {

CdnEdges::CdnEdges(std::string label, CdnConfig config, FailureDomains& domains, ZoneIndex client_zone,
                   Service& origin, const GeoRouter* router, const HealthChecker* health, JobOwner& clients,
                   Duration metrics_window)
    : Component("cdn/" + label),
      label_(std::move(label)),
      config_(std::move(config)),
      domains_(domains),
      client_zone_(client_zone),
      origin_(origin),
      router_(router),
      health_(health),
      clients_(clients),
      metrics_window_(metrics_window) {
  if (const auto problems = config_.validate(); !problems.empty()) {
    throw SimulationError("cdn of \"" + label_ + "\": " + problems.front().field + ": " + problems.front().message);
  }
  const Topology& topology = domains_.topology();
  for (const CdnVendorConfig& v : config_.vendors) {
    const auto z = topology.find_zone(v.zone);
    if (!z) throw SimulationError("cdn of \"" + label_ + "\": unknown edge zone \"" + v.zone + "\"");
    vendors_.push_back(Vendor{.zone = *z});
  }
  if (config_.backup) {
    backup_zone_ = topology.find_zone(config_.backup->zone);
    if (!backup_zone_) {
      throw SimulationError("cdn of \"" + label_ + "\": unknown backup zone \"" + config_.backup->zone + "\"");
    }
  }
}

void CdnEdges::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  const Labels labels{{"population", label_}};
  origin_pulls_ = metrics_->counter("cdn.origin_pulls", labels);
  backup_served_ = metrics_->counter("cdn.backup_served", labels);
  backup_failed_ = metrics_->counter("cdn.backup_failed", labels);
  for (std::size_t v = 0; v < vendors_.size(); ++v) {
    const Labels vl{{"population", label_}, {"vendor", config_.vendors[v].name}};
    vendors_[v].requests = metrics_->counter("cdn.requests", vl);
    vendors_[v].hits = metrics_->counter("cdn.hits", vl);
    vendors_[v].refused = metrics_->counter("cdn.refused", vl);
    vendors_[v].cname = metrics_->gauge("cdn.cname", vl, v == cname_ ? 1.0 : 0.0);
    vendors_[v].healthy = metrics_->gauge("cdn.vendor_healthy", vl, 1.0);
    vendors_[v].backup_gauge = metrics_->gauge("cdn.backup_active", vl, 0.0);
  }
}

void CdnEdges::start() {
  if (config_.check_interval) {
    const auto offset = Duration{
        static_cast<Duration::rep>(rng().uniform() * static_cast<double>(config_.check_interval->count()))};
    schedule_after(offset, "cdn.probe", [this] { probe(); });
  }
  if (config_.backup) {
    for (std::size_t v = 0; v < vendors_.size(); ++v) {
      const auto offset = Duration{
          static_cast<Duration::rep>(rng().uniform() * static_cast<double>(config_.backup->record_ttl.count()))};
      schedule_after(offset, "cdn.origin_record_expiry", [this, v] { refresh_origin_record(v); });
    }
  }
}

std::optional<Duration> CdnEdges::rtt_to(ZoneIndex zone) const {
  return domains_.topology().rtt(client_zone_, zone, domains_.state());
}

bool CdnEdges::edge_up(const Vendor& vendor) const {
  return !vendor.down && domains_.zone_up(vendor.zone) && rtt_to(vendor.zone).has_value();
}

void CdnEdges::set_vendor_down(const std::string& vendor, bool down) {
  for (std::size_t v = 0; v < vendors_.size(); ++v) {
    if (config_.vendors[v].name == vendor) vendors_[v].down = down;
  }
}

void CdnEdges::probe() {
  schedule_after(*config_.check_interval, "cdn.probe", [this] { probe(); });
  for (std::size_t v = 0; v < vendors_.size(); ++v) {
    Vendor& vendor = vendors_[v];
    const bool ok = edge_up(vendor);
    if (ok == vendor.healthy_view) {
      vendor.disagreeing = 0;
      continue;
    }
    if (++vendor.disagreeing < config_.failure_threshold) continue;
    vendor.healthy_view = ok;
    vendor.disagreeing = 0;
    metrics_->set(vendor.healthy, now(), ok ? 1.0 : 0.0);
    log_event(ok ? event_kinds::cdn::kVendorHealthy : event_kinds::cdn::kVendorUnhealthy, config_.vendors[v].name);
  }
  choose_cname();
}

void CdnEdges::choose_cname() {
  std::size_t chosen = cname_;
  for (std::size_t v = 0; v < vendors_.size(); ++v) {
    if (vendors_[v].healthy_view) {
      chosen = v;
      break;
    }
  }
  // None healthy: the CNAME stays where it is (nothing better to point at).
  if (chosen == cname_) return;
  metrics_->set(vendors_[cname_].cname, now(), 0.0);
  metrics_->set(vendors_[chosen].cname, now(), 1.0);
  log_event(event_kinds::cdn::kCnameSwitch, config_.vendors[cname_].name + " -> " + config_.vendors[chosen].name);
  cname_ = chosen;
  ++switches_;
}

bool CdnEdges::every_origin_region_unhealthy() const {
  if (health_ == nullptr || router_ == nullptr) return false;
  for (RegionIndex r : router_->regions()) {
    if (health_->healthy(r)) return false;
  }
  return true;
}

void CdnEdges::refresh_origin_record(std::size_t v) {
  schedule_after(config_.backup->record_ttl, "cdn.origin_record_expiry", [this, v] { refresh_origin_record(v); });
  const bool backup = every_origin_region_unhealthy();
  Vendor& vendor = vendors_[v];
  if (backup == vendor.backup) return;
  vendor.backup = backup;
  metrics_->set(vendor.backup_gauge, now(), backup ? 1.0 : 0.0);
  log_event(event_kinds::cdn::kBackupOrigin,
            config_.vendors[v].name + (backup ? ": origin pulls to the static backup" : ": origin back"));
}

void CdnEdges::answer(std::uint64_t token, Duration after, ServeOutcome outcome) {
  schedule_after(after, "cdn.answer", [this, token, outcome] { clients_.on_served(token, outcome); });
}

void CdnEdges::serve(std::uint64_t token, std::size_t vendor_index, std::uint32_t handshake_round_trips) {
  Vendor& vendor = vendors_[vendor_index];
  const CdnVendorConfig& config = config_.vendors[vendor_index];
  const SimTime t = now();
  metrics_->add(vendor.requests, t);
  const std::optional<Duration> rtt = edge_up(vendor) ? rtt_to(vendor.zone) : std::nullopt;
  if (!rtt) {  // the edge is down (its zone, or cdn:fail) or cut off: the connection is refused
    metrics_->add(vendor.refused, t);
    clients_.on_served(token, ServeOutcome::kRefused);
    return;
  }
  // The handshake, then the request reaches the edge.
  const Duration to_edge = *rtt * handshake_round_trips + *rtt / 2 + config.edge_time;
  if (rng().uniform() < config.hit_ratio.value) {
    metrics_->add(vendor.hits, t);
    answer(token, to_edge + *rtt / 2, ServeOutcome::kServed);
    return;
  }
  metrics_->add(origin_pulls_, t);
  if (vendor.backup) {
    const std::optional<Duration> to_backup =
        domains_.zone_up(*backup_zone_) ? domains_.topology().rtt(vendor.zone, *backup_zone_, domains_.state())
                                        : std::nullopt;
    if (!to_backup || rng().uniform() >= config_.backup->static_share.value) {  // dynamic: the static site has none
      metrics_->add(backup_failed_, t);
      answer(token, to_edge + (to_backup ? *to_backup : Duration{}) + *rtt / 2, ServeOutcome::kNoTarget);
      return;
    }
    metrics_->add(backup_served_, t);
    answer(token, to_edge + *to_backup + config_.backup->service_time + *rtt / 2, ServeOutcome::kServed);
    return;
  }
  // An origin pull: the edge sends it from its zone; the answer comes back to the edge, then to the client.
  schedule_after(to_edge, "cdn.origin_pull", [this, token, zone = vendor.zone, leg = *rtt / 2] {
    std::optional<RegionIndex> region;
    if (router_ != nullptr) {
      region = router_->pick(rng());
      if (!region) {
        answer(token, leg, ServeOutcome::kNoTarget);
        return;
      }
    }
    return_legs_[token] = leg;
    Job job{this, token, now()};
    job.caller_zone = static_cast<std::uint32_t>(zone);
    if (const auto failure = origin_.submit(job, zone, region)) on_served(token, *failure);
  });
}

void CdnEdges::on_served(std::uint64_t token, ServeOutcome outcome) {
  const auto it = return_legs_.find(token);
  if (it == return_legs_.end()) return;
  const Duration leg = it->second;
  return_legs_.erase(it);
  answer(token, leg, outcome);
}

void CdnEdges::stop() {
  metrics_->finish(now());
  recorder().kpi("cdn.switches", {{"population", label_}}, static_cast<double>(switches_));
}

}  // namespace drsim

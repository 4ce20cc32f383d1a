#include "models/traffic/dns_caches.h"

#include "sim/errors.h"
#include "sim/simulation.h"

namespace drsim {

DnsCaches::DnsCaches(std::string label, DnsCacheConfig config, const GeoRouter& live, Duration metrics_window)
    : Component("dns/" + label),
      label_(std::move(label)),
      config_(config),
      live_(live),
      metrics_window_(metrics_window) {
  if (const auto problems = config_.validate(); !problems.empty()) {
    throw SimulationError("dns of \"" + label_ + "\": " + problems.front().field + ": " + problems.front().message);
  }
  // Until the first expiry every cache holds the routing of the start.
  const auto initial = std::make_shared<const GeoRouter>(live_);
  resolvers_.assign(config_.resolvers, Cache{initial});
  clients_.assign(config_.clients, Cache{initial});
}

void DnsCaches::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  stale_ = metrics_->gauge("dns.stale_clients", {{"population", label_}});
}

SimTime DnsCaches::offset_within(Duration ttl) {
  return now() + Duration{static_cast<Duration::rep>(rng().uniform() * static_cast<double>(ttl.count()))};
}

void DnsCaches::start() {
  for (std::size_t r = 0; r < resolvers_.size(); ++r) {
    resolvers_[r].first = offset_within(config_.record_ttl);
    schedule_at(resolvers_[r].first, "dns.resolver_expiry", [this, r] { refresh_resolver(r); });
  }
  record_staleness();
  if (config_.client_cache_ttl == Duration::zero()) return;  // clients ask their resolver every time
  for (std::size_t c = 0; c < clients_.size(); ++c) {
    clients_[c].first = offset_within(config_.client_cache_ttl);
    schedule_at(clients_[c].first, "dns.client_expiry", [this, c] { refresh_client(c); });
  }
}

void DnsCaches::refresh_resolver(std::size_t r) {
  schedule_after(config_.record_ttl, "dns.resolver_expiry", [this, r] { refresh_resolver(r); });
  resolvers_[r].answer = std::make_shared<const GeoRouter>(live_);
  if (config_.client_cache_ttl == Duration::zero()) {
    for (std::size_t c = r; c < clients_.size(); c += resolvers_.size()) clients_[c].answer = resolvers_[r].answer;
  }
}

void DnsCaches::refresh_client(std::size_t c) {
  schedule_after(config_.client_cache_ttl, "dns.client_expiry", [this, c] { refresh_client(c); });
  clients_[c].answer = resolvers_[c % resolvers_.size()].answer;
}

void DnsCaches::attempt_failed(std::size_t client) {
  if (!config_.refresh_on_failure || client >= clients_.size()) return;
  clients_[client].answer = resolvers_[client % resolvers_.size()].answer;
}

void DnsCaches::record_staleness() {
  schedule_after(metrics_window_, "dns.staleness", [this] { record_staleness(); });
  const std::vector<RegionIndex> regions = live_.regions();
  std::size_t stale = 0;
  for (const Cache& client : clients_) {
    for (RegionIndex r : regions) {
      if (client.answer->available(r) != live_.available(r) || client.answer->weight(r) != live_.weight(r)) {
        ++stale;
        break;
      }
    }
  }
  metrics_->set(stale_, now(), static_cast<double>(stale));
}

void DnsCaches::stop() { metrics_->finish(now()); }

}  // namespace drsim

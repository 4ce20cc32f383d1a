#include "models/traffic/dns_caches.h"

#include "sim/errors.h"
#include "sim/simulation.h"

namespace drsim {

DnsCaches::DnsCaches(std::string label, DnsCacheConfig config, const GeoRouter& live, Duration metrics_window,
                     const FailureDomains* domains)
    : Component("dns/" + label),
      label_(std::move(label)),
      config_(std::move(config)),
      live_(live),
      metrics_window_(metrics_window),
      domains_(domains) {
  if (const auto problems = config_.validate(); !problems.empty()) {
    throw SimulationError("dns of \"" + label_ + "\": " + problems.front().field + ": " + problems.front().message);
  }
  if (!config_.providers.empty() && domains_ == nullptr) {
    throw SimulationError("dns of \"" + label_ + "\": providers need the topology's failure domains");
  }
  for (const DnsProviderConfig& p : config_.providers) {
    Provider provider;
    for (const std::string& zone : p.zones) {
      const auto z = domains_->topology().find_zone(zone);
      if (!z) throw SimulationError("dns of \"" + label_ + "\": unknown provider zone \"" + zone + "\"");
      provider.zones.push_back(*z);
    }
    providers_.push_back(std::move(provider));
  }
  // Until the first expiry every cache holds the routing of the start.
  const auto initial = std::make_shared<const GeoRouter>(live_);
  resolvers_.assign(config_.resolvers, Cache{initial});
  clients_.assign(config_.clients, Cache{initial});
}

void DnsCaches::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  stale_ = metrics_->gauge("dns.stale_clients", {{"population", label_}});
  if (providers_.empty()) return;
  const Labels labels{{"population", label_}};
  resolutions_ = metrics_->counter("dns.resolutions", labels);
  resolution_failures_counter_ = metrics_->counter("dns.resolution_failures", labels);
  failed_lookups_ = metrics_->counter("dns.failed_lookups", labels);
  for (std::size_t p = 0; p < providers_.size(); ++p) {
    const Labels provider{{"population", label_}, {"provider", config_.providers[p].name}};
    providers_[p].queries_counter = metrics_->counter("dns.queries", provider);
    providers_[p].timeouts_counter = metrics_->counter("dns.query_timeouts", provider);
    providers_[p].srtt_gauge = metrics_->gauge("dns.srtt_s", provider);
  }
}

SimTime DnsCaches::offset_within(Duration ttl) {
  return now() + Duration{static_cast<Duration::rep>(rng().uniform() * static_cast<double>(ttl.count()))};
}

void DnsCaches::take_live(Cache& cache) {
  cache.answer = std::make_shared<const GeoRouter>(live_);
  cache.vendor = cname_ != nullptr ? cname_->cname() : 0;
}

void DnsCaches::start() {
  if (cname_ != nullptr) {
    for (Cache& c : resolvers_) c.vendor = cname_->cname();
    for (Cache& c : clients_) c.vendor = cname_->cname();
  }
  for (std::size_t r = 0; r < resolvers_.size(); ++r) {
    resolvers_[r].first = offset_within(config_.record_ttl);
    schedule_at(resolvers_[r].first, "dns.resolver_expiry", [this, r] { refresh_resolver(r); });
  }
  record_staleness();
  if (config_.client_cache_ttl != Duration::zero()) {  // otherwise clients ask their resolver every time
    for (std::size_t c = 0; c < clients_.size(); ++c) {
      clients_[c].first = offset_within(config_.client_cache_ttl);
      schedule_at(clients_[c].first, "dns.client_expiry", [this, c] { refresh_client(c); });
    }
  }
  // Drawn last, so that a dns block without providers draws exactly as before.
  if (providers_.empty()) return;
  const SrttParameters srtt{.gain = config_.srtt_gain.value,
                            .timeout_penalty = config_.srtt_penalty,
                            .max_srtt = config_.srtt_max,
                            .decay = config_.srtt_decay.value};
  for (Cache& r : resolvers_) r.srtt.emplace(providers_.size(), srtt, rng());
  for (std::size_t p = 0; p < providers_.size(); ++p) {
    metrics_->set(providers_[p].srtt_gauge, now(), resolvers_[0].srtt->srtt_s(p));
  }
}

bool DnsCaches::provider_up(const Provider& p) const {
  for (ZoneIndex z : p.zones) {
    if (domains_->zone_up(z)) return true;
  }
  return false;
}

void DnsCaches::refresh_resolver(std::size_t r) {
  if (providers_.empty()) {  // the authoritative answer is there at once
    schedule_after(config_.record_ttl, "dns.resolver_expiry", [this, r] { refresh_resolver(r); });
    take_live(resolvers_[r]);
  } else {  // serve-stale off: nothing to give until the resolution answers
    resolvers_[r].answer = nullptr;
    resolve(r);
  }
  if (config_.client_cache_ttl == Duration::zero()) {
    for (std::size_t c = r; c < clients_.size(); c += resolvers_.size()) {
      clients_[c].answer = resolvers_[r].answer;
      clients_[c].vendor = resolvers_[r].vendor;
    }
  }
}

void DnsCaches::resolve(std::size_t r) {
  Cache& resolver = resolvers_[r];
  SrttSelector& srtt = *resolver.srtt;
  resolver.pending = true;
  const SimTime t = now();
  metrics_->add(resolutions_, t);
  // Ask the best server not yet asked in this round; after every server, a new round.
  std::vector<bool> asked(providers_.size(), false);
  Duration elapsed{};
  bool ok = false;
  for (;;) {
    std::size_t server = providers_.size();
    for (std::size_t s : srtt.order()) {
      if (!asked[s]) {
        server = s;
        break;
      }
    }
    if (server == providers_.size()) {
      asked.assign(providers_.size(), false);
      server = srtt.order().front();
    }
    asked[server] = true;
    Provider& provider = providers_[server];
    ++provider.queries;
    metrics_->add(provider.queries_counter, t);
    if (provider_up(provider)) {
      srtt.answered(server, config_.providers[server].rtt);
      elapsed += config_.providers[server].rtt;
      ok = true;
      break;
    }
    srtt.timed_out(server);
    ++provider.timeouts;
    metrics_->add(provider.timeouts_counter, t);
    elapsed += config_.query_timeout;
    if (elapsed + config_.query_timeout > config_.resolution_timeout) break;  // SERVFAIL
  }
  if (r == 0) {
    for (std::size_t p = 0; p < providers_.size(); ++p) metrics_->set(providers_[p].srtt_gauge, t, srtt.srtt_s(p));
  }
  resolver.ready = t + elapsed;
  schedule_at(resolver.ready, "dns.resolved", [this, r, ok] { resolved(r, ok); });
}

void DnsCaches::resolved(std::size_t r, bool ok) {
  Cache& resolver = resolvers_[r];
  resolver.pending = false;
  if (ok) {
    take_live(resolver);
    schedule_after(config_.record_ttl, "dns.resolver_expiry", [this, r] { refresh_resolver(r); });
  } else {
    ++resolution_failures_;
    metrics_->add(resolution_failures_counter_, now());
    schedule_after(config_.servfail_ttl, "dns.resolver_retry", [this, r] { resolve(r); });
  }
  if (config_.client_cache_ttl == Duration::zero()) {
    for (std::size_t c = r; c < clients_.size(); c += resolvers_.size()) {
      clients_[c].answer = resolver.answer;
      clients_[c].vendor = resolver.vendor;
    }
  }
}

void DnsCaches::refresh_client(std::size_t c) {
  schedule_after(config_.client_cache_ttl, "dns.client_expiry", [this, c] { refresh_client(c); });
  const Cache& resolver = resolvers_[c % resolvers_.size()];
  clients_[c].answer = resolver.answer;
  clients_[c].vendor = resolver.vendor;
}

DnsCaches::Lookup DnsCaches::lookup(std::size_t client) {
  Cache& c = clients_[client];
  if (c.answer) return Lookup{c.answer.get(), c.vendor, {}};
  const Cache& resolver = resolvers_[client % resolvers_.size()];
  if (resolver.answer) {  // the client's cache had expired while its resolver was resolving: it asks now
    c.answer = resolver.answer;
    c.vendor = resolver.vendor;
    return Lookup{c.answer.get(), c.vendor, {}};
  }
  if (resolver.pending) return Lookup{nullptr, 0, resolver.ready};
  metrics_->add(failed_lookups_, now());
  return Lookup{};
}

void DnsCaches::attempt_failed(std::size_t client) {
  if (!config_.refresh_on_failure || client >= clients_.size()) return;
  const Cache& resolver = resolvers_[client % resolvers_.size()];
  clients_[client].answer = resolver.answer;  // null while the resolver resolves: the next lookup waits
  clients_[client].vendor = resolver.vendor;
}

void DnsCaches::record_staleness() {
  schedule_after(metrics_window_, "dns.staleness", [this] { record_staleness(); });
  const std::vector<RegionIndex> regions = live_.regions();
  const std::size_t vendor = cname_ != nullptr ? cname_->cname() : 0;
  std::size_t stale = 0;
  for (const Cache& client : clients_) {
    if (!client.answer || client.vendor != vendor) {
      ++stale;
      continue;
    }
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

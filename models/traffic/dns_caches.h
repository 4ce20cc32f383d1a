#pragma once
// DNS caching between a population's routing (the authoritative answer, a
// GeoRouter, and with a CDN the CNAME's vendor) and its requests. Each
// resolver keeps a copy of the answer taken when its cached record expired
// (every recordTtl, from an offset drawn uniformly in the TTL); each client
// keeps its resolver's copy taken when its own cache expired (every
// clientCacheTtl, from an offset drawn uniformly in that TTL). A routing
// change so reaches a client between 0 and recordTtl + clientCacheTtl later,
// and the population's traffic moves gradually over that span (with one
// resolver: at once for the resolver, then linearly over clientCacheTtl). A
// resolver here refreshes at expiry, as one answering steady traffic does.
//
// With providers (several DNS providers' name servers), a refresh is a
// resolution: the resolver asks the server with the lowest smoothed RTT
// (models/traffic/srtt_selector.h); a server whose provider is down (every
// zone hosting it is down) does not answer, so after queryTimeout the
// resolver penalises it and asks the next, until one answers (the answer
// arrives rtt later) or resolutionTimeout has passed (SERVFAIL, remembered
// servfailTtl, then a new resolution). The providers' state is read when the
// resolution starts: one lasts at most resolutionTimeout. Serve-stale is off,
// as in BIND by default: from expiry until the answer arrives the resolver
// has nothing to give, so a client whose own cache expires meanwhile waits
// for the resolution (its requests wait with it), and a client with no answer
// when the resolution failed gets none: its requests fail (cause no_target,
// and counted in dns.failed_lookups). With every provider down the name stops
// resolving once the caches have expired.
//
// With refreshOnFailure a client whose attempt failed takes its resolver's
// answer at once.
//
// Events per second: resolvers / recordTtl + clients / clientCacheTtl, and
// one per metrics window; nothing per request beyond choosing the client.
// Series (label population): dns.stale_clients (gauge: clients whose answer
// differs from the live routing in availability or weights, or in the CNAME's
// vendor, sampled once per metrics window); with providers also
// dns.resolutions, dns.resolution_failures, dns.failed_lookups (requests that
// found no answer), and per provider (label provider) dns.queries,
// dns.query_timeouts and dns.srtt_s (gauge: the first resolver's smoothed RTT
// for the provider's servers).
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/metrics/windowed_metrics.h"
#include "models/topology/failure_domains.h"
#include "models/traffic/dns_cache_config.h"
#include "models/traffic/geo_router.h"
#include "models/traffic/routing_listeners.h"
#include "models/traffic/srtt_selector.h"
#include "sim/component.h"

namespace drsim {

class DnsCaches : public Component {
 public:
  // domains: where the providers' zones are looked up (required with providers).
  DnsCaches(std::string label, DnsCacheConfig config, const GeoRouter& live,
            Duration metrics_window = std::chrono::seconds(1), const FailureDomains* domains = nullptr);

  // With a CDN: the live CNAME target (a vendor index), cached with the routing.
  void set_cname_source(const CnameSource& cname) { cname_ = &cname; }

  // What a request finds in its client's cache (or its resolver's, when the
  // client has none). answer null: no answer; then ready is when a pending
  // resolution will have one (ask again then), or empty: the lookup failed.
  struct Lookup {
    const GeoRouter* answer = nullptr;
    std::size_t vendor = 0;
    std::optional<SimTime> ready;
  };
  std::size_t pick_client(RngStream& rng) const { return static_cast<std::size_t>(rng.below(clients_.size())); }
  Lookup lookup(std::size_t client);

  // The answer a request uses: a client drawn at random. Only without providers, where an answer is always
  // there; with them use pick_client and lookup.
  const GeoRouter& answer(RngStream& rng) const { return *clients_[pick_client(rng)].answer; }
  // An attempt of that client failed: with refreshOnFailure it re-resolves now.
  void attempt_failed(std::size_t client);
  std::size_t clients() const { return clients_.size(); }
  // Requires client_has_answer(client) (always true without providers).
  const GeoRouter& client_answer(std::size_t client) const { return *clients_[client].answer; }
  bool client_has_answer(std::size_t client) const { return clients_[client].answer != nullptr; }
  std::size_t client_vendor(std::size_t client) const { return clients_[client].vendor; }
  // When resolver r's cache first expires.
  SimTime resolver_first_refresh(std::size_t r) const { return resolvers_[r].first; }
  // Resolver r's smoothed RTT of provider p's servers, in seconds.
  double srtt_s(std::size_t r, std::size_t p) const { return resolvers_[r].srtt->srtt_s(p); }
  std::uint64_t resolution_failures() const { return resolution_failures_; }
  std::uint64_t query_timeouts(std::size_t provider) const { return providers_[provider].timeouts; }
  std::uint64_t queries(std::size_t provider) const { return providers_[provider].queries; }

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Cache {
    std::shared_ptr<const GeoRouter> answer;  // null: nothing valid
    std::size_t vendor = 0;
    SimTime first{};
    // Resolvers with providers:
    bool pending = false;
    SimTime ready{};
    std::optional<SrttSelector> srtt;
  };
  struct Provider {
    std::vector<ZoneIndex> zones;
    std::uint64_t queries = 0, timeouts = 0;
    CounterId queries_counter, timeouts_counter;
    GaugeId srtt_gauge;
  };
  void refresh_resolver(std::size_t r);
  void resolve(std::size_t r);
  void resolved(std::size_t r, bool ok);
  void take_live(Cache& cache);
  void refresh_client(std::size_t c);
  SimTime offset_within(Duration ttl);
  bool provider_up(const Provider& p) const;
  void record_staleness();

  std::string label_;
  DnsCacheConfig config_;
  const GeoRouter& live_;
  Duration metrics_window_;
  const FailureDomains* domains_;
  const CnameSource* cname_ = nullptr;
  std::vector<Cache> resolvers_;
  std::vector<Cache> clients_;
  std::vector<Provider> providers_;
  std::uint64_t resolution_failures_ = 0;
  std::optional<WindowedMetrics> metrics_;
  GaugeId stale_;
  CounterId resolutions_, resolution_failures_counter_, failed_lookups_;
};

}  // namespace drsim

#pragma once
// DNS caching between a population's routing (the authoritative answer, a
// GeoRouter) and its requests. Each resolver keeps a copy of the router
// taken when its cached record expired (every recordTtl, from an offset
// drawn uniformly in the TTL); each client keeps its resolver's copy taken
// when its own cache expired (every clientCacheTtl, from an offset drawn
// uniformly in that TTL). A routing change so reaches a client between 0
// and recordTtl + clientCacheTtl later, and the population's traffic moves
// gradually over that span (with one resolver: at once for the resolver,
// then linearly over clientCacheTtl). A resolver here refreshes at expiry,
// as one answering steady traffic does. With refreshOnFailure a client whose
// attempt failed takes its resolver's answer at once.
//
// Events per second: resolvers / recordTtl + clients / clientCacheTtl, and
// one per metrics window; nothing per request beyond choosing the client.
// Series (label population): dns.stale_clients (gauge: clients whose answer
// differs from the live routing in availability or weights, sampled once per
// metrics window).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/metrics/windowed_metrics.h"
#include "models/traffic/dns_cache_config.h"
#include "models/traffic/geo_router.h"
#include "sim/component.h"

namespace drsim {

class DnsCaches : public Component {
 public:
  DnsCaches(std::string label, DnsCacheConfig config, const GeoRouter& live,
            Duration metrics_window = std::chrono::seconds(1));

  // The answer a request uses: a client drawn at random.
  const GeoRouter& answer(RngStream& rng) const {
    return *clients_[static_cast<std::size_t>(rng.below(clients_.size()))].answer;
  }
  // The client a request comes from, drawn at random (as answer() draws it).
  std::size_t pick_client(RngStream& rng) const { return static_cast<std::size_t>(rng.below(clients_.size())); }
  // An attempt of that client failed: with refreshOnFailure it re-resolves now.
  void attempt_failed(std::size_t client);
  std::size_t clients() const { return clients_.size(); }
  const GeoRouter& client_answer(std::size_t client) const { return *clients_[client].answer; }
  // When resolver r's cache first expires.
  SimTime resolver_first_refresh(std::size_t r) const { return resolvers_[r].first; }

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Cache {
    std::shared_ptr<const GeoRouter> answer;
    SimTime first{};
  };
  void refresh_resolver(std::size_t r);
  void refresh_client(std::size_t c);
  SimTime offset_within(Duration ttl);
  void record_staleness();

  std::string label_;
  DnsCacheConfig config_;
  const GeoRouter& live_;
  Duration metrics_window_;
  std::vector<Cache> resolvers_;
  std::vector<Cache> clients_;
  std::optional<WindowedMetrics> metrics_;
  GaugeId stale_;
};

}  // namespace drsim

#pragma once
// Settings of the DNS caches between a population's routing and its
// requests (models/traffic/dns_caches.h):
//   recordTtl       the record's TTL: how long a resolver keeps an answer
//                   (Route 53 alias records to AWS endpoints: 60 s)
//   clientCacheTtl  how long a client keeps what its resolver said: a JVM's
//                   networkaddress.cache.ttl is 30 s for successful lookups
//                   when no security manager is installed; browsers keep
//                   their own (Chrome about 60 s); 0: no client cache
//   clients         the population as this many clients (cohorts), each with
//                   its own cache expiry, spread uniformly over the TTLs
//   resolvers       recursive resolvers the clients share (round-robin)
#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"

namespace drsim {

struct DnsCacheConfig {
  Duration record_ttl = std::chrono::seconds(60);
  Duration client_cache_ttl = std::chrono::seconds(30);
  std::uint32_t clients = 100;
  std::uint32_t resolvers = 1;
  bool refresh_on_failure = false;

  static constexpr std::string_view kTypeName = "DnsCache";
  static constexpr auto fields() {
    return std::tuple{
        field("recordTtl", &DnsCacheConfig::record_ttl,
              "The record's TTL: a resolver answers from its cache until it expires (Route 53 alias records: 60s).",
              kPositive),
        field("clientCacheTtl", &DnsCacheConfig::client_cache_ttl,
              "How long each client keeps its resolver's answer (JVM networkaddress.cache.ttl: 30s; 0: no client "
              "cache).",
              kNonNegative),
        field("clients", &DnsCacheConfig::clients,
              "The population as this many clients, each with its own cache expiry drawn uniformly from the seed; "
              "each request comes from one of them at random.",
              kPositive),
        field("resolvers", &DnsCacheConfig::resolvers,
              "Recursive resolvers the clients use (client i uses resolver i mod resolvers), each with its own "
              "expiry.",
              kPositive),
        field("refreshOnFailure", &DnsCacheConfig::refresh_on_failure,
              "A client whose attempt failed drops its cached answer and takes its resolver's current one at once "
              "(HTTPDNS SDKs and clients with a failure-triggered re-resolve do this; the JVM does not). The "
              "resolver's own cache still holds its answer until recordTtl."),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim

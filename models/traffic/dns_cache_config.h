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
//   providers       the DNS providers whose authoritative name servers the
//                   resolvers query when a record expires (none: an
//                   authoritative answer is always there at once), with the
//                   resolver's per-server query timeout, its overall
//                   resolution timeout, the SERVFAIL cache, and the SRTT
//                   parameters of its server selection
//                   (models/traffic/srtt_selector.h)
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

// One DNS provider: a set of authoritative name servers for the zone,
// hosted in topology zones (a provider is up while one of them is).
struct DnsProviderConfig {
  std::string name;
  std::vector<std::string> zones;
  Duration rtt = std::chrono::milliseconds(30);

  static constexpr std::string_view kTypeName = "DnsProvider";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &DnsProviderConfig::name, "Provider name, unique in the dns block.", kRequired),
        field("zones", &DnsProviderConfig::zones,
              "Topology zones hosting its name servers (anycast): it answers while one of them is up; a zone or "
              "region failure takes it down.",
              kRequired),
        field("rtt", &DnsProviderConfig::rtt, "Round trip from the resolvers to its name servers.", kPositive),
    };
  }
};

struct DnsCacheConfig {
  Duration record_ttl = std::chrono::seconds(60);
  Duration client_cache_ttl = std::chrono::seconds(30);
  std::uint32_t clients = 100;
  std::uint32_t resolvers = 1;
  bool refresh_on_failure = false;
  std::vector<DnsProviderConfig> providers;
  // BIND 9's defaults where it documents one (ARM: resolver-query-timeout 10 s, servfail-ttl 1 s). The
  // per-server timeout is BIND's sub-second first retransmission; 800 ms is our reading, not a documented value.
  Duration query_timeout = std::chrono::milliseconds(800);
  Duration resolution_timeout = std::chrono::seconds(10);
  Duration servfail_ttl = std::chrono::seconds(1);
  // BIND's SRTT selection (models/traffic/srtt_selector.h).
  Ratio srtt_gain{0.3};
  Duration srtt_penalty = std::chrono::milliseconds(200);
  Duration srtt_max = std::chrono::seconds(1);
  Ratio srtt_decay{0.98};

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
        field("providers", &DnsCacheConfig::providers,
              "DNS providers whose name servers the resolvers query when their record expires, choosing by "
              "smoothed RTT as BIND does (absent: the answer is always there at once)."),
        field("queryTimeout", &DnsCacheConfig::query_timeout,
              "With providers: a resolver gives up on one name server after this long and asks the next.",
              kPositive),
        field("resolutionTimeout", &DnsCacheConfig::resolution_timeout,
              "With providers: a resolution that has no answer after this long fails with SERVFAIL (BIND "
              "resolver-query-timeout: 10s).",
              kPositive),
        field("servfailTtl", &DnsCacheConfig::servfail_ttl,
              "With providers: after a failed resolution the resolver answers SERVFAIL this long, then tries "
              "again (BIND servfail-ttl: 1s).",
              kPositive),
        field("srttGain", &DnsCacheConfig::srtt_gain,
              "Weight of a new RTT sample in a name server's smoothed RTT (BIND: 30%, keeping 70% of the old).",
              kPositive | kAtMostOne),
        field("srttPenalty", &DnsCacheConfig::srtt_penalty,
              "Added to a name server's smoothed RTT when a query to it times out (BIND: 200ms).", kPositive),
        field("srttMax", &DnsCacheConfig::srtt_max, "Cap of a penalised smoothed RTT (BIND: 1s).", kPositive),
        field("srttDecay", &DnsCacheConfig::srtt_decay,
              "Factor applied to the smoothed RTT of the name servers not asked, so a penalised one is retried "
              "after enough queries (BIND: 98%).",
              kPositive | kAtMostOne),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim

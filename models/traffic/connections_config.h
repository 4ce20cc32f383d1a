#pragma once
// Long-lived (keep-alive) connections of a client population
// (ClientPopulation, `connections`): each connection is pinned to the region
// (and CDN vendor) its client resolved when it opened, and keeps sending
// there, whatever DNS says meanwhile, until it closes:
//   maxLifetime   it is closed after this long (HikariCP maxLifetime; an HTTP
//                 server's keep-alive age limit); the first lifetimes are
//                 staggered uniformly, as a pool in steady state has them
//   maxRequests   after this many requests (nginx keepalive_requests: 1000;
//                 0: no limit)
// and when a request on it fails (a reset by the server, a refused or
// unreachable region, a timeout): the client drops it, and the next request
// on it opens a new one, resolving through the DNS caches and paying
// handshakeRoundTrips.
#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"

namespace drsim {

struct ConnectionsConfig {
  std::uint32_t count = 100;
  Duration max_lifetime = std::chrono::minutes(5);
  std::uint32_t max_requests = 0;

  static constexpr std::string_view kTypeName = "Connections";
  static constexpr auto fields() {
    return std::tuple{
        field("count", &ConnectionsConfig::count,
              "Kept-alive connections the population's requests share (each request takes one at random).",
              kPositive),
        field("maxLifetime", &ConnectionsConfig::max_lifetime,
              "A connection is closed this long after it opened, and the next request on it resolves and "
              "connects again (HikariCP maxLifetime: 30m; the first lifetimes are staggered uniformly).",
              kPositive),
        field("maxRequests", &ConnectionsConfig::max_requests,
              "A connection is closed after this many requests (nginx keepalive_requests: 1000; 0: no limit)."),
    };
  }

  std::vector<ConfigProblem> validate() const {
    std::vector<ConfigProblem> problems;
    if (count == 0) problems.push_back({"count", "must be positive"});
    if (max_lifetime <= Duration::zero()) problems.push_back({"maxLifetime", "must be positive"});
    return problems;
  }
};

}  // namespace drsim

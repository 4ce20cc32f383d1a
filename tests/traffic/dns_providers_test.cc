// Several DNS providers behind the DNS caches (models/traffic/dns_caches.h):
// resolvers penalise a dead provider's name servers by SRTT and prefer the
// other, paying at most one query timeout each; with every provider down the
// name stops resolving as the resolvers' records expire, uniformly over the
// TTL (the closed form of uniform expiry offsets).
#include <gtest/gtest.h>

#include "models/topology/failure_domains.h"
#include "models/traffic/dns_caches.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

TopologyConfig topology() {
  TopologyConfig t;
  t.regions = {RegionConfig{"east", {ZoneConfig{"e1"}}, 1ms}, RegionConfig{"west", {ZoneConfig{"w1"}}, 1ms},
               RegionConfig{"dns-a", {ZoneConfig{"a1"}}, 1ms}, RegionConfig{"dns-b", {ZoneConfig{"b1"}}, 1ms}};
  return t;
}

DnsCacheConfig two_providers(std::uint32_t resolvers) {
  DnsCacheConfig config;
  config.record_ttl = 60s;
  config.client_cache_ttl = 0s;
  config.clients = resolvers;
  config.resolvers = resolvers;
  config.providers = {DnsProviderConfig{"a", {"a1"}, 20ms}, DnsProviderConfig{"b", {"b1"}, 35ms}};
  return config;
}

struct Fixture {
  explicit Fixture(DnsCacheConfig config)
      : domains(sim.add<FailureDomains>("topology", Topology(topology()))),
        router(GeoRoutingConfig{}, domains.topology(), std::nullopt, {0, 1}),
        dns(sim.add<DnsCaches>("users", config, router, 1s, &domains)) {}
  // Share of the clients with no answer now (their requests wait for a resolution or fail).
  double failing() {
    std::size_t n = 0;
    for (std::size_t c = 0; c < dns.clients(); ++c) n += dns.client_has_answer(c) ? 0 : 1;
    return static_cast<double>(n) / static_cast<double>(dns.clients());
  }
  Simulation sim{SimulationOptions{.seed = 31}};
  FailureDomains& domains;
  GeoRouter router;
  DnsCaches& dns;
};

TEST(DnsProviders, ADeadProviderCostsEachResolverAtMostOneTimeoutAndNoFailure) {
  Fixture f(two_providers(100));
  f.sim.schedule_at(SimTime{600s}, [&] { f.domains.fail_region(2); });  // provider a
  // Over 20 more minutes (20 refreshes per resolver): a resolver that preferred a times out once, then
  // prefers b for ~100 queries (ln(0.035 / 0.22) / ln(0.98)), longer than the run.
  f.sim.run_until(SimTime{1800s});
  EXPECT_GT(f.dns.query_timeouts(0), 0u) << "some resolvers preferred provider a";
  EXPECT_LE(f.dns.query_timeouts(0), 100u) << "at most one timeout per resolver";
  EXPECT_EQ(f.dns.query_timeouts(1), 0u);
  EXPECT_EQ(f.dns.resolution_failures(), 0u);
  EXPECT_EQ(f.failing(), 0.0);
  for (std::size_t r = 0; r < 100; ++r) EXPECT_LT(f.dns.srtt_s(r, 1), f.dns.srtt_s(r, 0)) << "resolver " << r;
  std::printf("provider a down: %llu timeouts among 100 resolvers\n",
              static_cast<unsigned long long>(f.dns.query_timeouts(0)));
  f.sim.finish();
}

TEST(DnsProviders, WithEveryProviderDownTheNameStopsResolvingAsTheRecordsExpire) {
  Fixture f(two_providers(400));
  const SimTime fault{600s};
  f.sim.schedule_at(fault, [&] {
    f.domains.fail_region(2);
    f.domains.fail_region(3);
  });
  f.sim.run_until(fault - 1ms);
  EXPECT_EQ(f.failing(), 0.0);
  // A resolver's record expires uniformly in the TTL after the fault (serve-stale off: from then on it has
  // no answer; its resolutions fail after the queries that fit in resolutionTimeout, 12 x 800 ms, then
  // SERVFAIL for 1 s, and again). So the share without an answer at fault + x is x / 60 s.
  for (const double x : {15.0, 30.0, 45.0}) {
    f.sim.run_until(fault + Duration{static_cast<Duration::rep>(x * 1e9)});
    EXPECT_NEAR(f.failing(), x / 60.0, 0.08) << x << " s after the fault";
  }
  f.sim.run_until(fault + 61s);
  EXPECT_EQ(f.failing(), 1.0);
  EXPECT_GT(f.dns.resolution_failures(), 0u);
  // Back once a provider is: each resolver's next try comes within servfailTtl + resolutionTimeout.
  f.sim.schedule_at(fault + 80s, [&] { f.domains.recover_region(3); });
  f.sim.run_until(fault + 80s + 12s);
  EXPECT_EQ(f.failing(), 0.0);
  f.sim.finish();
}

TEST(DnsProviders, AClientWhoseResolverIsResolvingWaitsForIt) {
  Fixture f(two_providers(1));
  f.sim.schedule_at(SimTime{1s}, [&] { f.domains.fail_region(2); });
  f.sim.run_until(SimTime{1s});
  const SimTime expiry = f.dns.resolver_first_refresh(0);
  f.sim.run_until(expiry);
  const DnsCaches::Lookup l = f.dns.lookup(0);
  if (l.answer == nullptr) {
    ASSERT_TRUE(l.ready.has_value());
    // Provider a first (lower SRTT): one 800 ms timeout and b's 35 ms; b first: 35 ms.
    EXPECT_TRUE(*l.ready - expiry == 835ms || *l.ready - expiry == 35ms) << format_seconds(*l.ready - expiry);
  }
  f.sim.finish();
}

}  // namespace
}  // namespace drsim

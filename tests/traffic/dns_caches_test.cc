// DNS caches between routing and requests: a change reaches the clients as
// their caches expire, spread uniformly over the client cache TTL once the
// resolver has refreshed, and all of them within recordTtl + clientCacheTtl.
#include "models/traffic/dns_caches.h"

#include <gtest/gtest.h>

#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

Topology two_regions() {
  TopologyConfig t;
  t.regions = {RegionConfig{"east", {ZoneConfig{"e1"}}, 1ms}, RegionConfig{"west", {ZoneConfig{"w1"}}, 1ms}};
  return Topology(t);
}

struct Fixture {
  explicit Fixture(DnsCacheConfig config) : dns(sim.add<DnsCaches>("users", config, router)) {}
  // Share of the clients whose answer no longer includes east.
  double moved() const {
    std::size_t n = 0;
    for (std::size_t c = 0; c < dns.clients(); ++c) n += dns.client_answer(c).available(0) ? 0 : 1;
    return static_cast<double>(n) / static_cast<double>(dns.clients());
  }
  Simulation sim{SimulationOptions{.seed = 21}};
  Topology topology = two_regions();
  GeoRouter router{GeoRoutingConfig{}, topology, std::nullopt, {0, 1}};
  DnsCaches& dns;
};

TEST(DnsCaches, AChangeReachesTheClientsUniformlyOverTheClientCacheOnceTheResolverHasIt) {
  DnsCacheConfig config;
  config.record_ttl = 60s;
  config.client_cache_ttl = 30s;  // the JVM's default
  config.clients = 2000;
  Fixture f(config);
  const SimTime change{300s};
  f.sim.schedule_at(change, [&] { f.router.set_available(0, false); });
  // The resolver refreshes at its first expiry + k x 60 s: the first after the change.
  f.sim.run_until(SimTime{1s});
  SimTime resolver = f.dns.resolver_first_refresh(0);
  while (resolver <= change) resolver += 60s;
  ASSERT_LE(resolver - change, 60s);
  f.sim.run_until(resolver - 1ms);
  EXPECT_EQ(f.moved(), 0.0) << "nobody sees the change before the resolver does";
  // Then clients pick it up as their own caches expire, uniformly over 30 s.
  for (const Duration x : {Duration{7500ms}, Duration{15s}, Duration{22500ms}}) {
    f.sim.run_until(resolver + x);
    EXPECT_NEAR(f.moved(), to_seconds(x) / 30.0, 0.04) << format_seconds(x) << " s after the resolver";
  }
  f.sim.run_until(resolver + 30s + 1ms);
  EXPECT_EQ(f.moved(), 1.0);
  EXPECT_LE(resolver + 30s - change, 90s) << "within recordTtl + clientCacheTtl";
  f.sim.finish();
}

TEST(DnsCaches, WithManyResolversTheSpreadCoversBothTtls) {
  DnsCacheConfig config;
  config.record_ttl = 20s;
  config.client_cache_ttl = 20s;
  config.clients = 2000;
  config.resolvers = 2000;  // one each: expiry = sum of two uniform delays
  Fixture f(config);
  const SimTime change{300s};
  f.sim.schedule_at(change, [&] { f.router.set_available(0, false); });
  // The sum of two U(0, 20 s) delays: CDF x^2 / 800 below 20 s, 1 - (40 - x)^2 / 800 above.
  for (const double x : {10.0, 20.0, 30.0}) {
    f.sim.run_until(change + Duration{static_cast<Duration::rep>(x * 1e9)});
    const double expected = x <= 20 ? x * x / 800 : 1 - (40 - x) * (40 - x) / 800;
    EXPECT_NEAR(f.moved(), expected, 0.04) << x << " s after the change";
  }
  f.sim.run_until(change + 40s + 1ms);
  EXPECT_EQ(f.moved(), 1.0);
  f.sim.finish();
}

TEST(DnsCaches, SameSeedSameExpiries) {
  DnsCacheConfig config;
  config.clients = 50;
  Fixture a(config), b(config);
  a.sim.run_until(SimTime{1s});
  b.sim.run_until(SimTime{1s});
  EXPECT_EQ(a.dns.resolver_first_refresh(0), b.dns.resolver_first_refresh(0));
}

}  // namespace
}  // namespace drsim

// GSLB health checks with Route 53 semantics: a checker's view flips after
// failureThreshold consecutive results, the endpoint is healthy while more
// than 18% of the checkers say so, checkers are staggered from the seed, and
// a rules store without quorum holds the routing change back.
#include "models/traffic/health_checker.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "models/data/raft_group.h"
#include "models/service/service.h"
#include "sim/simulation.h"
#include "tests/traffic/topology_builders.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

using test_support::link;

// Two serving regions (east, west) and checker sites that each reach them
// through one link to east only: cutting a site's link silences its probes
// (to both regions; the tests look at east).
// ca holds six checker zones, cb and cc one each: eight checkers. ctl holds a
// three-member consensus group for the rules store.
TopologyConfig checked_topology() {
  TopologyConfig t;
  t.regions = {RegionConfig{"east", {ZoneConfig{"e1"}}, 1ms},
               RegionConfig{"west", {ZoneConfig{"w1"}}, 1ms},
               RegionConfig{"ca",
                            {ZoneConfig{"a1"}, ZoneConfig{"a2"}, ZoneConfig{"a3"}, ZoneConfig{"a4"}, ZoneConfig{"a5"},
                             ZoneConfig{"a6"}},
                            1ms},
               RegionConfig{"cb", {ZoneConfig{"b1"}}, 1ms},
               RegionConfig{"cc", {ZoneConfig{"c1"}}, 1ms},
               RegionConfig{"ctl", {ZoneConfig{"k1"}, ZoneConfig{"k2"}, ZoneConfig{"k3"}}, 2ms}};
  t.links = {link("east", "west", 60ms), link("ca", "east", 20ms), link("cb", "east", 20ms), link("cc", "east", 20ms),
             link("ctl", "east", 20ms)};
  return t;
}

ServiceConfig api() {
  ServiceConfig sc;
  sc.name = "api";
  sc.replicas = {{"e1", 2}, {"w1", 2}};
  sc.concurrency = 10;
  sc.service_time.kind = "constant";
  sc.service_time.value = 5ms;
  return sc;
}

HealthCheckConfig fast_checks() {
  HealthCheckConfig h;
  h.request_interval = 10s;
  h.failure_threshold = 3;
  h.checkers = {"a1", "a2", "a3", "a4", "a5", "a6", "b1", "c1"};
  return h;
}

GeoRoutingConfig weighted() {
  GeoRoutingConfig g;
  g.regions = {{"east", 1}, {"west", 1}};
  return g;
}

struct Fixture {
  explicit Fixture(std::uint64_t seed = 11, bool with_store = false)
      : sim(SimulationOptions{.seed = seed}),
        domains(sim.add<FailureDomains>("topology", Topology(checked_topology()))),
        service(sim.add<Service>(api(), &domains)),
        router(weighted(), domains.topology(), std::nullopt, {}) {
    if (with_store) {
      RaftConfig c;
      c.name = "scheduler";
      c.members = {RaftMemberConfig{"k1"}, RaftMemberConfig{"k2"}, RaftMemberConfig{"k3"}};
      c.election_timeout = 1s;
      group = &sim.add<RaftGroup>(c, domains);
      store = &sim.add<RoutingRulesStore>("users", *group, 1s);
    }
    checker = &sim.add<HealthChecker>("users", fast_checks(), service, domains, router, store);
  }
  RegionIndex region(const char* name) const { return *domains.topology().find_region(name); }
  ZoneIndex zone(const char* name) const { return *domains.topology().find_zone(name); }

  // The time checker c's view of a region failing at `fault` flips: its
  // failureThreshold-th probe after the fault (probes fail at once then).
  SimTime flip_time(std::size_t c, SimTime fault) const {
    SimTime t = checker->first_probe(c);
    while (t <= fault) t += 10s;
    return t + 2 * 10s;
  }

  Simulation sim;
  FailureDomains& domains;
  Service& service;
  GeoRouter router;
  RaftGroup* group = nullptr;
  RoutingRulesStore* store = nullptr;
  HealthChecker* checker = nullptr;
};

TEST(HealthChecker, ARegionTurnsUnhealthyWhenTheQuorumOfViewsHasFlippedAfterThreeFailedProbes) {
  Fixture f;
  const RegionIndex east = f.region("east");
  const SimTime fault{100s};
  // East's pods go (the region stays up: the checkers' paths to west cross it).
  const std::size_t e1 = *f.service.find_zone("e1");
  f.sim.schedule_at(fault, [&] { f.service.set_replicas(e1, 0); });
  f.sim.run_until(SimTime{99s});
  ASSERT_TRUE(f.checker->healthy(east));
  EXPECT_EQ(f.checker->healthy_checkers(east), 8u);
  // Healthy while more than 18% of 8 (1.44) checkers say so, i.e. at least
  // 2: the region goes when the 7th view flips.
  std::vector<SimTime> flips;
  for (std::size_t c = 0; c < f.checker->checker_count(); ++c) flips.push_back(f.flip_time(c, fault));
  std::sort(flips.begin(), flips.end());
  const SimTime unhealthy = flips[6];
  // Three failed probes at 10 s intervals: between 20 s and 30 s after the fault.
  EXPECT_GT(unhealthy, fault + 20s);
  EXPECT_LE(unhealthy, fault + 30s);
  f.sim.run_until(unhealthy - 1ms);
  EXPECT_TRUE(f.checker->healthy(east));
  EXPECT_TRUE(f.router.available(east));
  EXPECT_EQ(f.checker->healthy_checkers(east), 2u);
  f.sim.run_until(unhealthy + 1ms);
  EXPECT_FALSE(f.checker->healthy(east));
  EXPECT_FALSE(f.router.available(east));
  EXPECT_TRUE(f.router.available(f.region("west")));
  // Back: three passed probes per checker after the recovery.
  const SimTime recovery{200s};
  f.sim.schedule_at(recovery, [&] { f.service.set_replicas(e1, 2); });
  f.sim.run_until(recovery + 19s);
  EXPECT_FALSE(f.router.available(east));
  f.sim.run_until(recovery + 31s);
  EXPECT_TRUE(f.checker->healthy(east));
  EXPECT_TRUE(f.router.available(east));
  f.sim.finish();
  EXPECT_EQ(f.sim.recorder().find_kpi("health.changes", {{"population", "users"}})->value, 2);
}

TEST(HealthChecker, TwoOfEightCheckersHealthyIsMoreThanEighteenPercentOneIsNot) {
  Fixture f;
  const RegionIndex east = f.region("east");
  const Topology& topo = f.domains.topology();
  // Six checkers (ca) lose their path at 100 s: 2 of 8 = 25% > 18% still healthy.
  f.sim.schedule_at(SimTime{100s}, [&] { f.domains.cut_link(*topo.find_link("ca-east")); });
  f.sim.run_until(SimTime{140s});
  EXPECT_EQ(f.checker->healthy_checkers(east), 2u);
  EXPECT_TRUE(f.checker->healthy(east));
  EXPECT_TRUE(f.router.available(east));
  // A seventh (cb) at 150 s: 1 of 8 = 12.5%, not more than 18%.
  f.sim.schedule_at(SimTime{150s}, [&] { f.domains.cut_link(*topo.find_link("cb-east")); });
  f.sim.run_until(SimTime{190s});
  EXPECT_EQ(f.checker->healthy_checkers(east), 1u);
  EXPECT_FALSE(f.checker->healthy(east));
  f.sim.finish();
}

TEST(HealthChecker, ACheckerWhoseZoneIsDownIsLeftOutOfTheQuorum) {
  Fixture f;
  const RegionIndex east = f.region("east");
  // Six of eight checkers' zones go: the other two still see east healthy,
  // 2 of 2 reporting.
  f.sim.schedule_at(SimTime{100s}, [&] { f.domains.fail_region(f.region("ca")); });
  f.sim.run_until(SimTime{150s});
  EXPECT_EQ(f.checker->healthy_checkers(east), 2u);
  EXPECT_TRUE(f.checker->healthy(east));
  // Then cb loses its path: 1 of 2 reporting = 50% > 18%: still healthy,
  // where 1 of 8 would not be.
  f.sim.schedule_at(SimTime{150s}, [&] { f.domains.cut_link(*f.domains.topology().find_link("cb-east")); });
  f.sim.run_until(SimTime{200s});
  EXPECT_EQ(f.checker->healthy_checkers(east), 1u);
  EXPECT_TRUE(f.checker->healthy(east));
  // ca is back at 250 s: its checkers rejoin after three passed probes each, not with their old views.
  f.sim.schedule_at(SimTime{250s}, [&] { f.domains.recover_region(f.region("ca")); });
  f.sim.run_until(SimTime{250s + 1ms});
  EXPECT_EQ(f.checker->reporting_checkers(east), 2u);
  f.sim.run_until(SimTime{291s});
  EXPECT_EQ(f.checker->reporting_checkers(east), 8u);
  EXPECT_EQ(f.checker->healthy_checkers(east), 7u);
  f.sim.finish();
}

TEST(HealthChecker, CheckersAreStaggeredOverTheIntervalTheSameWayForTheSameSeed) {
  Fixture a(5), b(5), c(6);
  std::vector<SimTime> first_a, first_b, first_c;
  for (Fixture* f : {&a, &b, &c}) f->sim.run_until(SimTime{1s});
  for (std::size_t i = 0; i < a.checker->checker_count(); ++i) {
    first_a.push_back(a.checker->first_probe(i));
    first_b.push_back(b.checker->first_probe(i));
    first_c.push_back(c.checker->first_probe(i));
    EXPECT_GE(first_a.back(), SimTime{});
    EXPECT_LT(first_a.back(), SimTime{10s});
  }
  EXPECT_EQ(first_a, first_b);
  EXPECT_NE(first_a, first_c);
  // Spread, not bunched: eight uniform offsets in 10 s span more than half of it.
  const auto [lo, hi] = std::minmax_element(first_a.begin(), first_a.end());
  EXPECT_GT(*hi - *lo, 5s);
}

TEST(HealthChecker, ARulesStoreWithoutQuorumHoldsTheFailoverBack) {
  Fixture f(11, /*with_store=*/true);
  const RegionIndex east = f.region("east");
  // The control plane loses quorum before east fails, and gets it back at 200 s.
  f.sim.schedule_at(SimTime{50s}, [&] {
    f.domains.fail_zone(f.zone("k2"));
    f.domains.fail_zone(f.zone("k3"));
  });
  f.sim.schedule_at(SimTime{100s}, [&] { f.service.set_replicas(*f.service.find_zone("e1"), 0); });
  f.sim.schedule_at(SimTime{200s}, [&] { f.domains.recover_zone(f.zone("k2")); });
  f.sim.run_until(SimTime{190s});
  EXPECT_FALSE(f.checker->healthy(east));  // the checkers have decided
  EXPECT_TRUE(f.router.available(east));   // the routing has not changed
  EXPECT_EQ(f.store->pending(), 1u);
  f.sim.run_until(SimTime{215s});
  EXPECT_FALSE(f.router.available(east));
  EXPECT_EQ(f.store->delayed(), 1u);
  f.sim.finish();
}

}  // namespace
}  // namespace drsim

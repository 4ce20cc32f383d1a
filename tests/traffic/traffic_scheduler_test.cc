// The global traffic scheduler (docs/sources.md section 5): a region the
// health checks find unreachable gets weight 0 and its share is spread over
// the healthy regions evenly, by capacity or by weight (closed forms worked
// out in each test); a planned switch-over moves a region's share in stages
// at the runbook's times and back in reverse order.
#include "models/traffic/traffic_scheduler.h"

#include <gtest/gtest.h>

#include "models/service/service.h"
#include "models/traffic/health_checker.h"
#include "sim/simulation.h"
#include "tests/traffic/topology_builders.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

using test_support::link;

// North, east and south (the drill's round trips) and a probe region with
// three checker zones linked to each of them.
TopologyConfig three_regions() {
  TopologyConfig t;
  t.regions = {RegionConfig{"north", {ZoneConfig{"n1"}}, 1ms}, RegionConfig{"east", {ZoneConfig{"e1"}}, 1ms},
               RegionConfig{"south", {ZoneConfig{"s1"}}, 1ms},
               RegionConfig{"probes", {ZoneConfig{"p1"}, ZoneConfig{"p2"}, ZoneConfig{"p3"}}, 1ms}};
  t.links = {link("north", "east", 28ms),  link("north", "south", 38ms), link("east", "south", 22ms),
             link("probes", "north", 5ms), link("probes", "east", 5ms),  link("probes", "south", 5ms)};
  return t;
}

// Capacity per pod: 10 workers / 10 ms = 1,000 requests/s. North 2 pods,
// east 4, south 2: 2,000, 4,000 and 2,000 requests/s.
ServiceConfig payments() {
  ServiceConfig sc;
  sc.name = "payments";
  sc.replicas = {{"n1", 2}, {"e1", 4}, {"s1", 2}};
  sc.concurrency = 10;
  sc.service_time.kind = "constant";
  sc.service_time.value = 10ms;
  return sc;
}

// Probes every second, three in a row: a region is unhealthy 2-3 s after it fails.
HealthCheckConfig probes() {
  HealthCheckConfig h;
  h.request_interval = 1s;
  h.failure_threshold = 3;
  h.timeout = 500ms;
  h.checkers = {"p1", "p2", "p3"};
  return h;
}

GeoRoutingConfig routing(double north, double east, double south) {
  GeoRoutingConfig g;
  g.regions = {{"north", north}, {"east", east}, {"south", south}};
  return g;
}

struct Fixture {
  explicit Fixture(std::string spread, GeoRoutingConfig g = routing(1, 1, 1))
      : sim(SimulationOptions{.seed = 3}),
        domains(sim.add<FailureDomains>("topology", Topology(three_regions()))),
        service(sim.add<Service>(payments(), &domains)),
        router(g, domains.topology(), std::nullopt, {}) {
    checker = &sim.add<HealthChecker>("users", probes(), service, domains, router, nullptr);
    scheduler = &sim.add<TrafficScheduler>("users", TrafficSchedulerConfig{.spread = std::move(spread)}, router,
                                           service, domains, nullptr);
    checker->hand_decisions_to(*scheduler);
  }
  RegionIndex region(const char* name) const { return *domains.topology().find_region(name); }
  double weight(const char* name) const { return router.weight(region(name)); }
  std::size_t events(std::string_view kind) const {
    std::size_t n = 0;
    for (const std::string& k : sim.recorder().events().kind) n += k == kind ? 1 : 0;
    return n;
  }

  Simulation sim;
  FailureDomains& domains;
  Service& service;
  GeoRouter router;
  HealthChecker* checker = nullptr;
  TrafficScheduler* scheduler = nullptr;
};

TEST(TrafficScheduler, CapacityIsRunningPodsTimesWorkersOverTheMeanServiceTime) {
  Fixture f("capacity");
  f.sim.run_until(SimTime{1s});
  EXPECT_DOUBLE_EQ(f.scheduler->capacity(f.region("north")), 2 * 10 / 0.010);
  EXPECT_DOUBLE_EQ(f.scheduler->capacity(f.region("east")), 4 * 10 / 0.010);
  EXPECT_DOUBLE_EQ(f.scheduler->capacity(f.region("south")), 2 * 10 / 0.010);
  // Live: a zone that is down serves nothing, scaled pods count at once.
  f.domains.fail_region(f.region("north"));
  f.service.set_replicas(*f.service.find_zone("s1"), 6);
  EXPECT_DOUBLE_EQ(f.scheduler->capacity(f.region("north")), 0);
  EXPECT_DOUBLE_EQ(f.scheduler->capacity(f.region("south")), 6 * 10 / 0.010);
  f.sim.finish();
}

// Equal thirds; north fails: its third goes 4:2 to east and south (their
// capacities), so east = 1/3 + 1/3 x 4/6 = 5/9 and south = 1/3 + 1/3 x 2/6 = 4/9.
TEST(TrafficScheduler, AnUnreachableRegionsShareIsSpreadByCapacity) {
  Fixture f("capacity");
  f.sim.schedule_at(SimTime{10s}, [&] { f.domains.fail_region(f.region("north")); });
  f.sim.run_until(SimTime{11s});
  EXPECT_NEAR(f.weight("north"), 1.0 / 3, 1e-12);
  // Three failed probes a second apart: unhealthy 2 to 3 s after the fault, and at once (no rules store).
  f.sim.run_until(SimTime{13s + 600ms});
  EXPECT_EQ(f.weight("north"), 0);
  EXPECT_NEAR(f.weight("east"), 5.0 / 9, 1e-12);
  EXPECT_NEAR(f.weight("south"), 4.0 / 9, 1e-12);
  EXPECT_TRUE(f.router.available(f.region("north")));  // the weight drains it, not availability
  EXPECT_EQ(f.events("scheduler.failover"), 1u);
  EXPECT_EQ(f.scheduler->failovers(), 1u);
  // Back: three passed probes, then the planned thirds again.
  f.sim.schedule_at(SimTime{20s}, [&] { f.domains.recover_region(f.region("north")); });
  f.sim.run_until(SimTime{24s});
  EXPECT_NEAR(f.weight("north"), 1.0 / 3, 1e-12);
  EXPECT_NEAR(f.weight("east"), 1.0 / 3, 1e-12);
  EXPECT_EQ(f.events("scheduler.restore"), 1u);
  f.sim.finish();
  EXPECT_EQ(f.sim.recorder().find_kpi("routing.failovers", {{"population", "users"}})->value, 1);
}

TEST(TrafficScheduler, EvenSpreadSplitsTheLostShareEqually) {
  Fixture f("even");
  f.sim.schedule_at(SimTime{10s}, [&] { f.domains.fail_region(f.region("north")); });
  f.sim.run_until(SimTime{14s});
  EXPECT_EQ(f.weight("north"), 0);
  EXPECT_NEAR(f.weight("east"), 0.5, 1e-12);
  EXPECT_NEAR(f.weight("south"), 0.5, 1e-12);
  f.sim.finish();
}

// Weights 1:2:1 (shares 1/4, 1/2, 1/4); north fails: its quarter goes 2:1,
// east = 1/2 + 1/4 x 2/3 = 2/3 and south = 1/4 + 1/4 x 1/3 = 1/3, what a
// weighted record without north gives.
TEST(TrafficScheduler, WeightSpreadKeepsTheRemainingProportions) {
  Fixture f("weight", routing(1, 2, 1));
  f.sim.schedule_at(SimTime{10s}, [&] { f.domains.fail_region(f.region("north")); });
  f.sim.run_until(SimTime{14s});
  EXPECT_EQ(f.weight("north"), 0);
  EXPECT_NEAR(f.weight("east"), 2.0 / 3, 1e-12);
  EXPECT_NEAR(f.weight("south"), 1.0 / 3, 1e-12);
  f.sim.finish();
}

// The runbook's default stages from a start at 60 s: 10% of north's third
// at 60 s, 50% at 180 s, all of it at 240 s; the switch-back from 400 s runs
// them backwards with the gaps reversed: 50% at 400 s, 10% at 460 s, none at
// 580 s. Even spread into one target: east gets what north gives.
TEST(TrafficScheduler, APlannedSwitchMovesTheShareInStagesAndBackInReverseOrder) {
  Fixture f("even");
  const RegionIndex north = f.region("north"), east = f.region("east");
  f.sim.schedule_at(SimTime{60s}, [&] { f.scheduler->start_switch("move", north, {east}, {}, false); });
  f.sim.schedule_at(SimTime{400s}, [&] { f.scheduler->start_switch("move", north, {east}, {}, true); });
  const double third = 1.0 / 3;
  struct Expect {
    Duration at;
    double north_share;
  };
  for (const Expect& e : {Expect{59s, third}, Expect{61s, third * 0.9}, Expect{179s, third * 0.9},
                          Expect{181s, third * 0.5}, Expect{239s, third * 0.5}, Expect{241s, 0},
                          Expect{399s, 0}, Expect{401s, third * 0.5}, Expect{459s, third * 0.5},
                          Expect{461s, third * 0.9}, Expect{579s, third * 0.9}, Expect{581s, third}}) {
    f.sim.run_until(SimTime{e.at});
    EXPECT_NEAR(f.weight("north"), e.north_share, 1e-12) << "at " << to_seconds(e.at) << " s";
    EXPECT_NEAR(f.weight("east"), third + third - e.north_share, 1e-12) << "at " << to_seconds(e.at) << " s";
    EXPECT_NEAR(f.weight("south"), third, 1e-12);
  }
  EXPECT_EQ(f.events("scheduler.switch_step"), 6u);
  f.sim.finish();
}

// A failover during a switch spreads what the region still has: north at
// 50% moved (1/6 left) fails; even spread over east (1/3 + 1/6 moved) and
// south: east = 1/2 + 1/12, south = 1/3 + 1/12.
TEST(TrafficScheduler, AFailoverDuringASwitchSpreadsWhatTheRegionStillHas) {
  Fixture f("even");
  const RegionIndex north = f.region("north"), east = f.region("east");
  f.sim.schedule_at(SimTime{1s}, [&] {
    f.scheduler->start_switch("move", north, {east},
                              {RoutingSwitchStep{0s, Ratio{0.5}}, RoutingSwitchStep{10min, Ratio{1.0}}}, false);
  });
  f.sim.schedule_at(SimTime{10s}, [&] { f.domains.fail_region(north); });
  f.sim.run_until(SimTime{14s});
  EXPECT_EQ(f.weight("north"), 0);
  EXPECT_NEAR(f.weight("east"), 0.5 + 1.0 / 12, 1e-12);
  EXPECT_NEAR(f.weight("south"), 1.0 / 3 + 1.0 / 12, 1e-12);
  f.sim.finish();
}

// reverse: true on its own: the switch-back of a full switch, from 100% moved back to none in the reverse
// stages (50% at once, 10% after 1 min, none 2 min later).
TEST(TrafficScheduler, AStandAloneSwitchBackStartsFromTheFullSwitch) {
  Fixture f("even");
  const RegionIndex north = f.region("north"), east = f.region("east");
  f.sim.schedule_at(SimTime{10s}, [&] { f.scheduler->start_switch("back", north, {east}, {}, true); });
  const double third = 1.0 / 3;
  f.sim.run_until(SimTime{11s});
  EXPECT_NEAR(f.weight("north"), third * 0.5, 1e-12);
  f.sim.run_until(SimTime{71s});
  EXPECT_NEAR(f.weight("north"), third * 0.9, 1e-12);
  f.sim.run_until(SimTime{191s});
  EXPECT_NEAR(f.weight("north"), third, 1e-12);
  EXPECT_NEAR(f.weight("east"), third, 1e-12);
  f.sim.finish();
}

// routing:weight under a scheduler edits the planned weight, and a failover keeps the edit: north drained
// by hand (0:1:1), then south lost: everything to east.
TEST(TrafficScheduler, APlannedWeightEditSurvivesAFailover) {
  Fixture f("capacity");
  f.sim.schedule_at(SimTime{5s}, [&] { f.scheduler->set_planned_weight(f.region("north"), 0); });
  f.sim.run_until(SimTime{6s});
  EXPECT_EQ(f.weight("north"), 0);
  EXPECT_NEAR(f.weight("east"), 0.5, 1e-12);
  f.sim.schedule_at(SimTime{10s}, [&] { f.domains.fail_region(f.region("south")); });
  f.sim.run_until(SimTime{14s});
  EXPECT_EQ(f.weight("north"), 0);
  EXPECT_NEAR(f.weight("east"), 1.0, 1e-12);
  EXPECT_EQ(f.weight("south"), 0);
  f.sim.finish();
}

}  // namespace
}  // namespace drsim

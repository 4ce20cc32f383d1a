// Routing rules in a consensus group: a change applies one commit later with
// a leader, waits (retried) without one, and changes apply in order.
#include "models/traffic/routing_rules_store.h"

#include <gtest/gtest.h>

#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Three zones 2 ms apart, one member each.
TopologyConfig three_zones() {
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}, ZoneConfig{"b"}, ZoneConfig{"c"}}, 2ms}};
  return t;
}

RaftConfig scheduler() {
  RaftConfig c;
  c.name = "traffic-scheduler";
  c.members = {RaftMemberConfig{"a"}, RaftMemberConfig{"b"}, RaftMemberConfig{"c"}};
  c.election_timeout = 1s;
  return c;
}

struct Fixture {
  Simulation sim{SimulationOptions{.seed = 3}};
  FailureDomains& domains = sim.add<FailureDomains>("topology", Topology(three_zones()));
  RaftGroup& group = sim.add<RaftGroup>(scheduler(), domains);
  RoutingRulesStore& store = sim.add<RoutingRulesStore>("users", group, 1s);
  std::vector<std::pair<std::string, SimTime>> applied;

  void change_at(SimTime t, std::string what) {
    sim.schedule_at(t, [this, what] {
      store.submit(what, [this, what] { applied.emplace_back(what, sim.now()); });
    });
  }
};

TEST(RoutingRulesStore, WithALeaderAChangeAppliesOneQuorumRoundTripLater) {
  Fixture f;
  f.change_at(SimTime{5s}, "north to 0");
  f.sim.run_until(SimTime{10s});
  f.sim.finish();
  ASSERT_EQ(f.applied.size(), 1u);
  // The leader (zone a) hears from one of two followers: one 2 ms round trip.
  EXPECT_EQ(f.applied[0].second, SimTime{5s + 2ms});
  EXPECT_EQ(f.store.delayed(), 0u);
  EXPECT_EQ(f.sim.recorder().find_kpi("routing.max_change_delay_seconds", {{"population", "users"}})->value, 0.002);
}

TEST(RoutingRulesStore, WithoutQuorumChangesWaitForALeaderAndApplyInOrder) {
  Fixture f;
  const ZoneIndex b = *f.domains.topology().find_zone("b"), c = *f.domains.topology().find_zone("c");
  f.sim.schedule_at(SimTime{10s}, [&] {
    f.domains.fail_zone(b);
    f.domains.fail_zone(c);
  });
  f.sim.schedule_at(SimTime{50s}, [&] { f.domains.recover_zone(b); });
  f.change_at(SimTime{20s}, "north to 0");
  f.change_at(SimTime{30s}, "east to 2");
  f.sim.run_until(SimTime{50s});
  EXPECT_TRUE(f.applied.empty());
  EXPECT_EQ(f.store.pending(), 2u);
  f.sim.run_until(SimTime{60s});
  f.sim.finish();
  ASSERT_EQ(f.applied.size(), 2u);
  EXPECT_EQ(f.applied[0].first, "north to 0");
  EXPECT_EQ(f.applied[1].first, "east to 2");
  // A leader within [T, 2T] + one round trip of 50 s; the next retry (every second from 20 s) commits.
  ASSERT_TRUE(f.group.has_quorum());
  const SimTime elected = f.group.leader_changes().back();
  EXPECT_GE(elected, SimTime{51s});
  EXPECT_LE(elected, SimTime{52s + 2ms});
  EXPECT_GT(f.applied[0].second, elected);
  EXPECT_LE(f.applied[0].second, elected + 1s + 2ms);
  // The second change follows the first in the log: one round trip later.
  EXPECT_EQ(f.applied[1].second, f.applied[0].second + 2ms);
  EXPECT_EQ(f.store.delayed(), 2u);
  EXPECT_EQ(f.store.delays()[0], f.applied[0].second - SimTime{20s});
  std::size_t delayed_events = 0;
  for (const std::string& kind : f.sim.recorder().events().kind) delayed_events += kind == "routing_rules.change_delayed";
  EXPECT_EQ(delayed_events, 2u);
}

TEST(RoutingRulesStore, WithoutAStoreAChangeAppliesAtOnce) {
  bool applied = false;
  apply_routing_change(nullptr, "north to 0", [&] { applied = true; });
  EXPECT_TRUE(applied);
}

}  // namespace
}  // namespace drsim

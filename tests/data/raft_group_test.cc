// Consensus groups: majority placements that survive a zone loss, ones that
// do not, election times within Raft's bounds, and leader preference.
#include "models/data/raft_group.h"

#include <gtest/gtest.h>

#include "models/topology/network_model.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

TopologyConfig one_region(std::vector<std::string> zones) {
  TopologyConfig t;
  RegionConfig r{"r", {}, 2ms};
  for (auto& z : zones) r.zones.push_back(ZoneConfig{z});
  t.regions = {r};
  return t;
}

// Three regions with one zone each, as docs/sources.md section 5 (28/38/22 ms).
TopologyConfig three_regions() {
  TopologyConfig t;
  t.regions = {RegionConfig{"north", {ZoneConfig{"n1"}}, 1ms}, RegionConfig{"east", {ZoneConfig{"e1"}}, 1ms},
               RegionConfig{"south", {ZoneConfig{"s1"}}, 1ms}};
  auto link = [](std::string name, std::string a, std::string b, Duration rtt) {
    LinkConfig l;
    l.name = std::move(name);
    l.between = {std::move(a), std::move(b)};
    l.rtt = rtt;
    l.bandwidth = Bandwidth{10e9};
    return l;
  };
  t.links = {link("ne", "north", "east", 28ms), link("ns", "north", "south", 38ms), link("es", "east", "south", 22ms)};
  return t;
}

RaftConfig group(std::vector<std::string> zones) {
  RaftConfig c;
  c.name = "zk";
  for (auto& z : zones) c.members.push_back(RaftMemberConfig{z});
  c.proposal_rate = Rate{100};
  return c;
}

TEST(RaftGroup, ZooKeeper221KeepsAQuorumThroughAnySingleZoneLoss) {
  for (const std::string failed : {"a", "b", "c"}) {
    Simulation sim(SimulationOptions{.seed = 7});
    auto& domains = sim.add<FailureDomains>("topology", Topology(one_region({"a", "b", "c"})));
    auto& g = sim.add<RaftGroup>(group({"a", "a", "b", "b", "c"}), domains);
    const SimTime fail_at{10s + 30ms};
    sim.schedule_at(fail_at, [&] { domains.fail_zone(*domains.topology().find_zone(failed)); });
    sim.run_until(SimTime{10s});
    EXPECT_EQ(g.leader_zone(), "a");
    sim.run_until(SimTime{60s});
    sim.finish();
    EXPECT_TRUE(g.has_quorum()) << failed;
    EXPECT_NE(g.leader_zone(), failed);
    if (failed == "a") {
      // The followers last heard the leader at 10.0 s (heartbeats every 100 ms); the first timeout expires within
      // [T, 2T] of it, and the votes of a majority take one round trip (2 ms between zones).
      ASSERT_EQ(g.election_times().size(), 1u);
      const SimTime elected = g.leader_changes().back();
      EXPECT_GE(elected, SimTime{10s} + 1s);
      EXPECT_LE(elected, SimTime{10s} + 2s + 2ms);
      EXPECT_NEAR(to_seconds(g.unavailable()), to_seconds(elected - fail_at), 1e-9);
      EXPECT_EQ(g.term(), 2u);
    } else {
      EXPECT_EQ(g.elections(), 0u);
      EXPECT_EQ(g.unavailable(), Duration::zero());
    }
  }
}

TEST(RaftGroup, ElectionTimesSpanTheRandomisedTimeout) {
  // Over many seeds the new leader comes between T - heartbeat and 2T + RTT after the loss, and uses the range.
  Duration lo = Duration::max(), hi{};
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Simulation sim(SimulationOptions{.seed = seed});
    auto& domains = sim.add<FailureDomains>("topology", Topology(one_region({"a", "b", "c"})));
    auto& g = sim.add<RaftGroup>(group({"a", "b", "c"}), domains);
    sim.schedule_at(SimTime{5s + 50ms}, [&] { domains.fail_zone(0); });
    sim.run_until(SimTime{20s});
    sim.finish();
    ASSERT_EQ(g.election_times().size(), 1u);
    lo = std::min(lo, g.election_times()[0]);
    hi = std::max(hi, g.election_times()[0]);
  }
  EXPECT_GE(lo, 1s - 50ms);
  EXPECT_LE(hi, 2s + 2ms - 50ms);
  EXPECT_GT(to_seconds(hi - lo), 0.5);  // the draws spread over the interval
}

TEST(RaftGroup, TwoTwoOverTwoZonesLosesItsQuorumWhenEitherZoneFails) {
  for (const std::string failed : {"a", "b"}) {
    Simulation sim;
    auto& domains = sim.add<FailureDomains>("topology", Topology(one_region({"a", "b"})));
    auto& g = sim.add<RaftGroup>(group({"a", "a", "b", "b"}), domains);
    sim.schedule_at(SimTime{10s}, [&] { domains.fail_zone(*domains.topology().find_zone(failed)); });
    sim.schedule_at(SimTime{70s}, [&] { domains.recover_zone(*domains.topology().find_zone(failed)); });
    sim.run_until(SimTime{69s});
    EXPECT_FALSE(g.has_quorum()) << failed;
    sim.run_until(SimTime{100s});
    sim.finish();
    EXPECT_TRUE(g.has_quorum());
    const auto* unavailable = sim.recorder().find_kpi("raft.unavailable_seconds", {{"group", "zk"}});
    ASSERT_NE(unavailable, nullptr);
    // Either way the leader is gone at 10 s (failed, or stepped down without a majority); 60 s without a
    // majority, then an election within [T, 2T] + one round trip after the recovery.
    EXPECT_GE(unavailable->value, 61);
    EXPECT_LE(unavailable->value, 62.002);
    EXPECT_EQ(g.elections(), 1u);
  }
}

TEST(RaftGroup, LeaderPreferenceBringsTheLeaderBackAfterRecovery) {
  Simulation sim(SimulationOptions{.seed = 3});
  auto& domains = sim.add<FailureDomains>("topology", Topology(three_regions()));
  RaftConfig c = group({"n1", "e1", "s1"});
  c.preferred_region = "north";
  auto& g = sim.add<RaftGroup>(c, domains);
  sim.schedule_at(SimTime{10s}, [&] { domains.fail_region(0); });
  sim.schedule_at(SimTime{60s}, [&] { domains.recover_region(0); });
  sim.run_until(SimTime{9s});
  EXPECT_EQ(g.leader_zone(), "n1");
  sim.run_until(SimTime{59s});
  EXPECT_TRUE(g.has_quorum());
  EXPECT_NE(g.leader_zone(), "n1");
  sim.run_until(SimTime{70s});
  EXPECT_NE(g.leader_zone(), "n1");  // the transfer waits leaderTransferDelay (10 s)
  sim.run_until(SimTime{71s});
  EXPECT_EQ(g.leader_zone(), "n1");
  sim.finish();
  EXPECT_EQ(g.transfers(), 1u);
  // Handing over costs no availability; only the election after the loss does.
  EXPECT_LT(to_seconds(g.unavailable()), 2.1);
}

TEST(RaftGroup, AnIsolatedLeaderStepsDownAndTheMajorityElects) {
  Simulation sim(SimulationOptions{.seed = 5});
  auto& domains = sim.add<FailureDomains>("topology", Topology(three_regions()));
  auto& g = sim.add<RaftGroup>(group({"n1", "e1", "s1"}), domains);
  sim.schedule_at(SimTime{10s}, [&] {
    domains.cut_link(0);
    domains.cut_link(1);
  });
  sim.run_until(SimTime{30s});
  sim.finish();
  EXPECT_TRUE(g.has_quorum());
  EXPECT_NE(g.leader_zone(), "n1");
  // The votes cross the east-south link: 22 ms.
  ASSERT_EQ(g.election_times().size(), 1u);
  EXPECT_LE(g.election_times()[0], 2s + 22ms);
}

}  // namespace
}  // namespace drsim

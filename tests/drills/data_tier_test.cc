// The data tier's drills, run from their scenario files: quorum placement
// (ZooKeeper-style 2:2:1 against 2:2) and a database failover whose RPO
// comes out of replication lag over a degraded line.
#include <gtest/gtest.h>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::kpi;
using test_support::range;
using test_support::series;

// Zone-a fails for 2 min at 2 min, zone-b for 2 min at 6 min.
TEST(QuorumPlacement, TwoTwoOneKeepsAQuorumForAnySingleZoneLossTwoTwoDoesNot) {
  const RunResult run = run_scenario(load_scenario_file("scenarios/zookeeper_quorum_placement.yaml"));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  // 2:2:1: each loss costs one election (at most 2T = 4 s after the
  // leader's last heartbeat, no commits meanwhile); the surviving zones
  // commit for the rest of each outage.
  const auto quorum_221 = series(rec, "raft.has_quorum", {{"group", "zk-221"}});
  EXPECT_EQ(range(quorum_221, 125s, 240s).min, 1);
  EXPECT_EQ(range(quorum_221, 365s, 480s).min, 1);
  EXPECT_LT(kpi(rec, "raft.max_election_seconds", {{"group", "zk-221"}}), 4.3);
  EXPECT_LT(kpi(rec, "raft.unavailable_seconds", {{"group", "zk-221"}}), 10);
  // 2:2: no quorum for either outage (120 s each), plus the election after.
  const auto quorum = series(rec, "raft.has_quorum", {{"group", "zk-22"}});
  EXPECT_EQ(range(quorum, 121s, 240s).max, 0);
  EXPECT_EQ(range(quorum, 361s, 480s).max, 0);
  EXPECT_GT(kpi(rec, "raft.unavailable_seconds", {{"group", "zk-22"}}), 240);
  EXPECT_LT(kpi(rec, "raft.unavailable_seconds", {{"group", "zk-22"}}), 250);
}

// RPO is the lag at the loss: 120 s of a 65.5 Mbit/s stream drained at
// 50 Mbit/s leaves (1 - 50/65.536) x 2,000 writes/s x 120 s = 56,900
// writes behind; RTO = detection 10 s + promotion 10 s + switch 5 s.
TEST(DatabaseFailover, RpoComesOutOfTheReplicationLagAtTheLoss) {
  const RunResult run = run_scenario(load_scenario_file("scenarios/three_region_database_failover.yaml"));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  const Labels db{{"database", "payments-db"}};
  const double expected = (1 - 50e6 / (2000 * 4096 * 8.0)) * 2000 * 120;
  EXPECT_NEAR(kpi(rec, "database.rpo_writes", db), expected, 0.01 * expected);
  EXPECT_NEAR(kpi(rec, "database.rpo_seconds", db), expected / 2000, 0.01 * expected / 2000);
  EXPECT_DOUBLE_EQ(kpi(rec, "database.rto_seconds", db), 25);
  EXPECT_EQ(kpi(rec, "database.failovers", db), 1);
  // The lag grew from the degradation on, about 0.24 s per second.
  const auto lag = series(rec, "database.replication_lag_s", {{"database", "payments-db"}, {"member", "1"}});
  EXPECT_LT(range(lag, 60s, 179s).max, 0.1);
  EXPECT_GT(range(lag, 290s, 299s).min, 25);
}

TEST(DatabaseFailover, WithoutTheDegradationTheRpoIsOneOneWayDelayOfWrites) {
  const RunResult run = run_scenario(load_scenario_file("scenarios/three_region_database_failover.yaml",
                                                        {"spec.timeline[north-east-degraded].bandwidth=10Gbps"}));
  const Recorder& rec = run.simulation->recorder();
  const Labels db{{"database", "payments-db"}};
  // 14 ms one way + 1 ms apply + 0.33 ms on the wire at 100 Mbit/s: about 31 writes at 2,000/s.
  EXPECT_NEAR(kpi(rec, "database.rpo_writes", db), 2000 * 0.01533, 2);
  EXPECT_LT(kpi(rec, "database.rpo_seconds", db), 0.02);
}

}  // namespace
}  // namespace drsim

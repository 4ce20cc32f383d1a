// The connection-pool pile-up of docs/sources.md section 5, replayed from
// scenarios/three_region_pool_pileup.yaml: north is lost, the north shard
// fails over to east within seconds, but east's pooled connections to the
// dead primary stay ESTABLISHED. With the default driver and kernel settings
// the queries sent on them wait for the kernel's retransmission give-up
// (924.6 s); with the drill's fix they fail after socketTimeout and the
// pools reconnect to the new primary seconds after the endpoint switch.
#include <gtest/gtest.h>

#include "io/objective_evaluation.h"
#include "io/run.h"
#include "io/scenario_loader.h"
#include "models/data/tcp_config.h"
#include "tests/drills/pool_pileup_scenario.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::first_time_s;
using test_support::range;
using test_support::series;

constexpr const char* kScenario = test_support::kPoolPileupScenario;
constexpr double kLoss = test_support::kPoolPileupLoss;

const std::vector<std::string> kDrillFix = {
    "spec.topology.services[payments].calls[1].pool.idleTimeout=10s",
    "spec.topology.services[payments].calls[1].pool.maxLifetime=300s",
    "spec.topology.services[payments].calls[1].pool.socketTimeout=5s",
    "spec.topology.services[payments].calls[1].pool.tcp.keepaliveTime=60s",
};

const Labels kUsers{{"population", "east-users"}};
const Labels kNorthPools{{"service", "payments"}, {"database", "north-shard"}};
// The north shard's member in east: the promoted replica.
const Labels kNewPrimary{{"database", "north-shard"}, {"member", "1"}};

// Seconds from the loss until east's users get most of their 400 requests/s
// through again (300 in a 1 s window), or -1.
double recovery_s(const Recorder& rec) {
  const double t = first_time_s(series(rec, "client.succeeded", kUsers), 301s, [](double v) { return v >= 300; });
  return t < 0 ? -1 : t - kLoss;
}

TEST(PoolPileup, DefaultSettingsStallEastUntilTcpGivesUp) {
  const RunResult run = run_scenario(load_scenario_file(kScenario));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  // The shard itself recovers in seconds: detection 3 x 2 s (the first failed
  // check at 300 s), promotion 5 s, switch 5 s.
  const Recorder::Kpi* rto = rec.find_kpi("database.rto_seconds", {{"database", "north-shard"}});
  ASSERT_NE(rto, nullptr);
  EXPECT_DOUBLE_EQ(rto->value, 14);
  // Every pooled connection (6 pods x 10) is taken by a query sent to the
  // dead primary and held until retransmission gives up; none reaches the
  // new one.
  const auto active = series(rec, "pool.active", kNorthPools);
  EXPECT_EQ(range(active, 305s, 1220s).min, 60);
  EXPECT_EQ(range(series(rec, "database.connections", kNewPrimary), 300s, 1220s).max, 0);
  // East is down for many minutes: at least the kernel's give-up after the
  // loss, plus the drain of what queued meanwhile (under a minute).
  const double give_up = to_seconds(retransmission_give_up(TcpConfig{}));
  EXPECT_NEAR(give_up, 924.6, 0.1);
  const double recovered = recovery_s(rec);
  EXPECT_GT(recovered, give_up);
  EXPECT_LT(recovered, give_up + 60);
  // Then the pools reconnect, to east.
  EXPECT_EQ(range(series(rec, "database.connections", kNewPrimary), 1260s, 1500s).min, 60);
}

TEST(PoolPileup, TheDrillsFixRecoversSecondsAfterTheEndpointSwitch) {
  const RunResult run = run_scenario(load_scenario_file(kScenario, kDrillFix));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  // Queries on dead connections fail 5 s after they were sent, the pools
  // evict them and reconnect; until the switch at 314 s the connects time
  // out (connectTimeout 2 s) against north; after it they reach east.
  const auto attempts = series(rec, "pool.connection_attempts", kNorthPools);
  const auto failures = series(rec, "pool.connection_failures", kNorthPools);
  EXPECT_GT(range(failures, 306s, 314s).max, 0);
  // The reconnect storm: every pod's pool refills at the switch, several
  // times the steady churn of idleTimeout and maxLifetime retirements.
  const double churn = range(attempts, 200s, 299s).max;
  EXPECT_GT(churn, 0);
  EXPECT_GE(range(attempts, 314s, 317s).max, 50);
  EXPECT_GT(range(attempts, 314s, 317s).max, 3 * churn);
  // From then on the pools live on the new primary (between minimumIdle and
  // maximumPoolSize per pod, as idleTimeout trims them).
  const auto on_new = range(series(rec, "database.connections", kNewPrimary), 320s, 600s);
  EXPECT_GE(on_new.min, 30);
  EXPECT_LE(on_new.max, 60);
  // Recovery in seconds: after the switch (14 s), within one connect timeout
  // plus the adder's longest back-off (5 s) and a few seconds of backlog.
  const double recovered = recovery_s(rec);
  EXPECT_GE(recovered, 14);
  EXPECT_LT(recovered, 30);
}

// The scenario's objectives, judged on east's users: the shard's own RTO of
// 14 s does not make the users' RTO of 1 minute; the fix does.
const ObjectiveVerdict& verdict(const ObjectiveReport& r, std::string_view objective) {
  for (const ObjectiveVerdict& v : r.verdicts) {
    if (v.objective == objective) return v;
  }
  ADD_FAILURE() << "no verdict on " << objective;
  return r.verdicts.at(0);
}

TEST(PoolPileup, TheObjectivesFailWithTheDefaultsAndPassWithTheFix) {
  const RunResult defaults = run_scenario(load_scenario_file(kScenario));
  const ObjectiveReport before = objective_report(defaults);
  ASSERT_EQ(before.faults.size(), 1u);
  // The users recover 15 min 50 s after the loss: the fault table's figure.
  EXPECT_EQ(before.faults[0].rto, 950s);
  EXPECT_FALSE(verdict(before, "rto").pass);
  EXPECT_FALSE(verdict(before, "availability").pass);
  EXPECT_TRUE(before.any_failed());
  // Detection: the north shard's third failed health check, 2 s apart from
  // the first due at 300 s: 304 s, 4 s after the loss.
  EXPECT_EQ(before.faults[0].detection, 4s);
  EXPECT_EQ(before.faults[0].detected_by, "database/north-shard: database.failure_detected");
  // The RPO is the shard's own failover loss, the database.rpo_seconds KPI.
  const Recorder::Kpi* rpo = defaults.recorder().find_kpi("database.rpo_seconds", {{"database", "north-shard"}});
  ASSERT_NE(rpo, nullptr);
  ASSERT_TRUE(before.faults[0].rpo);
  EXPECT_NEAR(to_seconds(*before.faults[0].rpo), rpo->value, 1e-9);
  EXPECT_TRUE(verdict(before, "rpo").pass);

  const ObjectiveReport after = objective_report(run_scenario(load_scenario_file(kScenario, kDrillFix)));
  EXPECT_EQ(after.faults.at(0).rto, 18s);
  EXPECT_FALSE(after.any_failed());
}

}  // namespace
}  // namespace drsim

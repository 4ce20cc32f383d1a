// The scenarios modelled on the published drills of docs/sources.md, run end
// to end from their files: the figures come out of round-trip times, the
// connection handshake, call counts and service times, never out of a
// constant set to match.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>

#include "io/objective_evaluation.h"
#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::series;

// Mean client latency over the windows starting in [from, to), each window's
// mean weighted by its successes.
double mean_latency(const Recorder& rec, const std::string& population, Duration from, Duration to) {
  const auto means = series(rec, "client.latency_mean_s", {{"population", population}});
  const auto counts = series(rec, "client.succeeded", {{"population", population}});
  double weighted = 0, n = 0;
  for (const auto& [t, count] : counts) {
    if (t < from.count() || t >= to.count() || count == 0) continue;
    weighted += means.at(t) * count;
    n += count;
  }
  return n == 0 ? 0 : weighted / n;
}

double failures(const Recorder& rec, const std::string& population, Duration from, Duration to) {
  double total = 0;
  for (const Recorder::Series& s : rec.series_list()) {
    if (s.metric != "client.failed") continue;
    bool ours = false;
    for (const auto& [k, v] : s.labels) ours |= (k == "population" && v == population);
    if (!ours) continue;
    for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
      if (s.t_ns[i] >= from.count() && s.t_ns[i] < to.count()) total += s.value[i];
    }
  }
  return total;
}

// docs/sources.md section 2: 230 ms from Spain to Ireland, 820 ms once Oregon serves,
// about 20 s of errors in between, 220 ms when Ireland is back.
TEST(PublishedDrills, TwoCellRegionFailoverFromSpain) {
  const RunResult run = run_scenario(load_scenario_file("scenarios/two_cell_region_failover_manual_switch.yaml"));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.recorder();
  const double ireland = mean_latency(rec, "spain", 10s, 70s);
  const double oregon = mean_latency(rec, "spain", 95s, 240s);
  const double back = mean_latency(rec, "spain", 255s, 300s);
  EXPECT_NEAR(ireland, 0.230, 0.023) << "Ireland serving";
  EXPECT_NEAR(oregon, 0.820, 0.082) << "Oregon serving";
  EXPECT_NEAR(back, 0.220, 0.023) << "Ireland back";
  // Errors from the deletion (70 s) until the switch (90 s): 20 s at 20 rps,
  // give or take the requests on the wire at each end.
  EXPECT_EQ(failures(rec, "spain", 0s, 70s), 0);
  EXPECT_NEAR(failures(rec, "spain", 70s, 95s), 400, 20);
  EXPECT_EQ(failures(rec, "spain", 95s, 300s), 0);
}

// docs/sources.md section 4, the whole drill (scenarios/same_city_dual_active.yaml).
class SameCityDualActive : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_ = new RunResult(run_scenario(load_scenario_file("scenarios/same_city_dual_active.yaml")));
  }
  static void TearDownTestSuite() {
    delete run_;
    run_ = nullptr;
  }
  const Recorder& rec() const { return run_->recorder(); }
  static RunResult* run_;
};
RunResult* SameCityDualActive::run_ = nullptr;

// Zone B's requests pay 5-8 ms more, because each of their 4 queries crosses
// to the primary in zone A: 4 x 1.6 ms.
TEST_F(SameCityDualActive, ZoneBPaysForItsCrossZoneQueries) {
  ASSERT_EQ(run_->outcome.reason, StopReason::kHorizon);
  const double extra = mean_latency(rec(), "users-blue", 30s, 600s) - mean_latency(rec(), "users-green", 30s, 600s);
  EXPECT_GE(extra, 0.005);
  EXPECT_LE(extra, 0.008);
  EXPECT_EQ(failures(rec(), "users-green", 0s, 600s) + failures(rec(), "users-blue", 0s, 600s), 0);
}

// Zone A lost at 600 s: the gateway sits behind a cloud load balancer with
// the ALB defaults (discovery loadBalancer, the default), so green users'
// requests still go to zone A until its gateway targets fail 2 checks 30 s
// apart (35-65 s) and their cached DNS answers let go of zone A's node
// (dropped after 24-34 s, then up to the 60 s TTL): the traffic switch is
// 35-95 s (the source's "seconds" was an SLB checking every 2 s, which this
// scenario does not configure). Every order needs the primary, so
// requests fail until the operator switches the DB proxy at 780 s: 10 s of
// promotion, 5 s of proxy reconfiguration, then the first write waits
// semiSyncTimeout (10 s) for an ack from zone A's replica before MySQL goes
// on asynchronously. Recovery: between 195 + 10 s and that plus the client
// timeout (2 s) and two windows.
TEST_F(SameCityDualActive, ZoneALostWaitsForTheManualProxySwitch) {
  const ObjectiveReport report = objective_report(*run_);
  ASSERT_EQ(report.faults.size(), 1u) << "the proxy switch is an operator action, not a fault";
  const FaultFigures& f = report.faults[0];
  ASSERT_TRUE(f.traffic_switch);
  EXPECT_GT(*f.traffic_switch, 35s);
  EXPECT_LE(*f.traffic_switch, 95s);
  ASSERT_TRUE(f.detection && f.rto);
  EXPECT_EQ(*f.detection, 4s) << "third failed health check, 2 s apart";
  EXPECT_GE(*f.rto, 205s);
  EXPECT_LE(*f.rto, 214s);
  EXPECT_EQ(failures(rec(), "users-green", 830s, 1500s) + failures(rec(), "users-blue", 830s, 1500s), 0);
  EXPECT_EQ(test_support::kpi(rec(), "database.rpo_writes", {{"database", "orders-db"}}), 0) << "semi-sync";
}

// The middleware: Kafka fences zone A's brokers after broker.session.timeout.ms
// (9 s) and loses nothing; ZooKeeper (2:2:1) and the Elasticsearch masters
// (1:1:1) keep a majority and elect within [T, 2T + RTT]; billing consumes
// each event T = 5.04 s to 2T after it was produced.
TEST_F(SameCityDualActive, MiddlewareKeepsGoingThroughTheZoneLoss) {
  const Labels topic{{"topic", "order-events"}};
  EXPECT_EQ(test_support::kpi(rec(), "kafka.max_failover_seconds", topic), 9);
  EXPECT_EQ(test_support::kpi(rec(), "kafka.lost_messages", topic), 0);
  EXPECT_EQ(test_support::kpi(rec(), "kafka.offline_partition_seconds", topic), 0);
  for (const char* group : {"zookeeper", "es-masters"}) {
    const double election = test_support::kpi(rec(), "raft.max_election_seconds", {{"group", group}});
    EXPECT_GE(election, 2.0) << group;
    EXPECT_LE(election, 4.0 + 0.0016) << group;
  }
  const auto delay = series(rec(), "kafka.consume_delay_p50_s", {{"group", "billing"}, {"topic", "order-events"}});
  double sum = 0, n = 0;
  for (const auto& [t, v] : delay) {
    if (t >= std::chrono::nanoseconds(60s).count() && t < std::chrono::nanoseconds(600s).count()) sum += v, ++n;
  }
  ASSERT_GT(n, 0);
  EXPECT_GE(sum / n, 5.04);
  EXPECT_LE(sum / n, 10.07);
}

}  // namespace
}  // namespace drsim

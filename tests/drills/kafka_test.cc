// Kafka-style partitions on a zone loss (docs/sources.md section 4: "Kafka
// partition leaders fail over", "MQ traffic follows the RPC traffic ratio
// with a 5-10 s lag"), asserted from the series the runs record.
#include <gtest/gtest.h>

#include <cstdio>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::kpi;
using test_support::range;
using test_support::series;

double sum(const std::map<std::int64_t, double>& points, Duration from, Duration to) {
  double total = 0;
  for (const auto& [t, v] : points) {
    if (t >= from.count() && t < to.count()) total += v;
  }
  return total;
}

constexpr const char* kAzLoss = "scenarios/same_city_kafka_az_loss.yaml";
const Labels kTopic{{"topic", "order-events"}};
const Labels kGroup{{"group", "billing"}, {"topic", "order-events"}};

// The billing members' poll period from the scenario's settings: a member owns 2 of the 12 partitions, so
// 200 events/s / 6 members = 33.3 records/s; per-batch cost B = 4.7 s, 2 ms per record, utilisation
// rho = 0.0667, T = B / (1 - rho) = 5.04 s. A record is processed between T and 2T (5.0-10.1 s) after it was
// produced: the source's 5-10 s (docs/sources.md section 4).
constexpr double kRho = 200.0 / 6 * 0.002;
constexpr double kPeriod = 4.7 / (1 - kRho);

class KafkaAzLoss : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_ = new RunResult(run_scenario(load_scenario_file(kAzLoss))); }
  static void TearDownTestSuite() {
    delete run_;
    run_ = nullptr;
  }
  static const Recorder& rec() { return run_->simulation->recorder(); }
  static RunResult* run_;
};
RunResult* KafkaAzLoss::run_ = nullptr;

// Zone A fails at 360 s, right after its brokers' heartbeat (every 2 s): the controller fences them
// broker.session.timeout.ms = 9 s later and elects the zone-B replicas (the ISR) at once.
TEST_F(KafkaAzLoss, HalfTheLeadersFailOverAfterTheBrokerSessionTimeout) {
  ASSERT_EQ(run_->outcome.reason, StopReason::kHorizon);
  EXPECT_DOUBLE_EQ(kpi(rec(), "kafka.max_failover_seconds", kTopic), 9);
  EXPECT_EQ(kpi(rec(), "kafka.leader_elections", kTopic), 6);
  EXPECT_EQ(kpi(rec(), "kafka.offline_partition_seconds", kTopic), 0);
  EXPECT_EQ(kpi(rec(), "kafka.lost_messages", kTopic), 0);
  // Three partitions per broker, then six per zone-B broker until the preferred leaders come back at the
  // controller's imbalance check at 900 s (the one at 600 s ran as zone A returned).
  for (const char* broker : {"0", "1", "2", "3"}) {
    const auto leaders = series(rec(), "kafka.leaders", {{"topic", "order-events"}, {"broker", broker}});
    const bool zone_a = broker[0] < '2';
    EXPECT_EQ(range(leaders, 0s, 360s).max, 3) << broker;
    EXPECT_EQ(range(leaders, 370s, 900s).min, zone_a ? 0 : 6) << broker;
    EXPECT_EQ(range(leaders, 370s, 900s).max, zone_a ? 0 : 6) << broker;
    EXPECT_EQ(range(leaders, 901s, 960s).min, 3) << broker;
  }
  // Zone A's replicas left every ISR when fenced and were back within a second of their return.
  const auto under = series(rec(), "kafka.under_replicated_partitions", kTopic);
  EXPECT_EQ(range(under, 0s, 360s).max, 0);
  EXPECT_EQ(range(under, 370s, 600s).min, 12);
  EXPECT_EQ(range(under, 601s, 960s).max, 0);
}

// The orders served in zone B from `from` to `to`: each produces one event.
double served_in_zone_b(const Recorder& rec, Duration from, Duration to) {
  return sum(series(rec, "service.completed", {{"service", "orders"}, {"zone", "zone-b"}}), from, to);
}

// Sends to the six partitions led in zone A fail until their leaders moved (9 s); the others never fail:
// their ISR (1 once zone A's followers left) never fell below min.insync.replicas = 1.
TEST_F(KafkaAzLoss, ProducesFailOnlyBetweenTheLossAndTheFailover) {
  const auto no_leader =
      series(rec(), "kafka.failed_produces", {{"topic", "order-events"}, {"zone", "zone-b"}, {"cause", "no_leader"}});
  const double gap = sum(no_leader, 360s, 369s);
  // Half of the orders served in zone B in those 9 s produce to a partition led in zone A. How many are
  // served there is the balancer's business: orders sits behind a cloud load balancer (the default), whose
  // zone-A targets and node take 35-94 s to leave the users' view, so in those 9 s zone B serves what enters
  // its node (half) and goes to its own targets (half of that): about 200 x 0.25 x 9 = 450.
  const double served = served_in_zone_b(rec(), 360s, 369s);
  std::printf("served in zone B 360-369 s: %.0f, failed produces (no leader): %.0f\n", served, gap);
  EXPECT_NEAR(served, 200 * 0.25 * 9, 200 * 0.25 * 9 * 0.15) << "self-consistency: the balancer's split";
  EXPECT_NEAR(gap, 0.5 * served, 0.1 * 0.5 * served);
  EXPECT_EQ(sum(no_leader, 0s, 360s) + sum(no_leader, 369s, 960s), 0);
  for (const char* zone : {"zone-a", "zone-b"}) {
    const auto too_few = series(rec(), "kafka.failed_produces",
                                {{"topic", "order-events"}, {"zone", zone}, {"cause", "not_enough_replicas"}});
    EXPECT_EQ(sum(too_few, 0s, 960s), 0) << zone;
  }
  EXPECT_DOUBLE_EQ(kpi(rec(), "kafka.failed_produces", kTopic), gap);
  // Sends to the partitions led in zone B waited for zone A's dead follower to leave the ISR: up to 9 s.
  const auto p99 = series(rec(), "kafka.produce_latency_p99_s", kTopic);
  EXPECT_LT(range(p99, 0s, 360s).max, 0.01);
  EXPECT_GT(range(p99, 360s, 370s).max, 8);
}

// Zone A is drained from 120 s to 240 s. What it produces stops at once; what the group consumes of it stops
// between T and 2T later (the last record produced before 120 s is processed by then), and comes back between
// T and 2T after 240 s. One-second windows: a window's start is up to 1 s before the event in it.
TEST_F(KafkaAzLoss, ConsumedTrafficFollowsTheProducedSplitFiveToTenSecondsLater) {
  const auto produced_a = series(rec(), "kafka.produced", {{"topic", "order-events"}, {"zone", "zone-a"}});
  const auto consumed_a = series(rec(), "kafka.consumed_by_producer_zone",
                                 {{"topic", "order-events"}, {"group", "billing"}, {"zone", "zone-a"}});
  EXPECT_GT(range(produced_a, 110s, 120s).min, 50);
  EXPECT_EQ(range(produced_a, 120s, 240s).max, 0);
  EXPECT_GT(range(produced_a, 240s, 250s).min, 50);
  double last = -1, first = -1;
  for (const auto& [t, v] : consumed_a) {
    if (t >= 120'000'000'000 && t < 240'000'000'000 && v > 0) last = static_cast<double>(t) / 1e9;
    if (t >= 240'000'000'000 && v > 0 && first < 0) first = static_cast<double>(t) / 1e9;
  }
  const double stopped_after = last + 1 - 120, resumed_after = first - 240;
  EXPECT_GE(stopped_after, kPeriod);
  EXPECT_LE(stopped_after, 2 * kPeriod + 1);
  EXPECT_GE(resumed_after, kPeriod - 1);
  EXPECT_LE(resumed_after, 2 * kPeriod);
  EXPECT_GE(stopped_after, 5);
  EXPECT_LE(resumed_after, 10.1);

  // Every record's produce-to-processed delay is within [T, 2T] while the group is whole: the window medians
  // and 99th percentiles (relative accuracy of the sketch: 1%).
  const auto p50 = series(rec(), "kafka.consume_delay_p50_s", kGroup);
  const auto p99 = series(rec(), "kafka.consume_delay_p99_s", kGroup);
  EXPECT_GE(range(p50, 30s, 360s).min, kPeriod * 0.99);
  EXPECT_LE(range(p99, 30s, 360s).max, 2 * kPeriod * 1.01);
  // The lag Kafka reports (age of the oldest record past the committed offset; the members commit on every
  // poll) stays within the same two periods.
  const auto lag = series(rec(), "kafka.consumer_lag_s", kGroup);
  EXPECT_LE(range(lag, 30s, 360s).max, 2 * kPeriod + 0.1);
}

// Zone A's members stop at 360 s; the coordinator removes them session.timeout.ms = 45 s after their last
// heartbeat (360 s), and the rebalance completes once zone B's members have finished their batches (at most
// one period). Meanwhile zone A's six partitions are not consumed.
TEST_F(KafkaAzLoss, ZoneBMembersTakeOverAfterTheSessionTimeoutAndRebalance) {
  const auto members_a = series(rec(), "kafka.consumer_members",
                                {{"topic", "order-events"}, {"group", "billing"}, {"zone", "zone-a"}});
  EXPECT_EQ(range(members_a, 0s, 360s).min, 3);
  EXPECT_EQ(range(members_a, 361s, 600s).max, 0);
  EXPECT_EQ(range(members_a, 601s, 960s).min, 3);
  EXPECT_EQ(kpi(rec(), "kafka.rebalances", kGroup), 2);
  const auto& events = rec().events();
  double assigned = -1;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events.kind[i] == "consumer_group.assigned" && assigned < 0) assigned = static_cast<double>(events.t_ns[i]) / 1e9;
  }
  EXPECT_GE(assigned, 405);
  EXPECT_LE(assigned, 405 + 2 * kPeriod);
  // The lag grows for the 45 s without a reader and the drain after it, then returns to the batch lag.
  const double worst = kpi(rec(), "kafka.max_consumer_lag_seconds", kGroup);
  EXPECT_GT(worst, 45);
  EXPECT_LT(worst, 120);
  const auto lag = series(rec(), "kafka.consumer_lag_s", kGroup);
  EXPECT_GT(range(lag, 400s, 410s).max, 40);
  // Three members with twice the records each: T' = B / (1 - 2 rho) = 5.42 s. They drain the backlog at
  // what a 500-record poll (5.7 s) leaves over their 67 records/s: about 20 records/s each, 1,600 each.
  const double period_after = 4.7 / (1 - 2 * kRho);
  EXPECT_LE(range(lag, 575s, 600s).max, 2 * period_after + 0.1);
  // Nothing is processed twice: every poll committed before the members were lost.
  EXPECT_EQ(kpi(rec(), "kafka.redelivered", kGroup), 0);
}

// With min.insync.replicas = 2, the same loss leaves every partition's ISR at one replica: acks=all sends
// fail for the whole outage, not only for the 9 s of detection.
TEST(KafkaAzLossMinInsyncTwo, AcksAllSendsFailForTheWholeOutage) {
  const RunResult run =
      run_scenario(load_scenario_file(kAzLoss, {"spec.topology.topics[0].minInsyncReplicas=2"}));
  const Recorder& rec = run.simulation->recorder();
  const auto too_few = series(rec, "kafka.failed_produces",
                              {{"topic", "order-events"}, {"zone", "zone-b"}, {"cause", "not_enough_replicas"}});
  EXPECT_EQ(sum(too_few, 0s, 360s), 0);
  // Every order served in zone B from 369 s until zone A's replicas are back in the ISR at 600 s (all 200/s
  // once the balancer has let go of zone A, 35-94 s after the loss).
  const double served = served_in_zone_b(rec, 369s, 600s);
  std::printf("served in zone B 369-600 s: %.0f, failed produces (not enough replicas): %.0f\n", served,
              sum(too_few, 369s, 600s));
  EXPECT_GT(served, 200 * (231 - 94));
  EXPECT_NEAR(sum(too_few, 369s, 600s), served, 0.02 * served);
  EXPECT_LT(sum(too_few, 601s, 960s), 1);
}

// ---- a second zone loss with two replicas over two zones ----

constexpr const char* kSecondLoss = "scenarios/kafka_second_zone_loss.yaml";
const Labels kPayments{{"topic", "payments"}};

// Zone B's brokers are fenced at 249 s (last heartbeat 240 s + 9 s): the last ISR member of every partition is
// gone. Zone A's out-of-sync replicas (back at 360 s) cannot lead; zone B's return at 480 s ends it.
TEST(KafkaSecondZoneLoss, WithoutUncleanElectionEveryPartitionIsOfflineUntilItsIsrReturns) {
  const RunResult run = run_scenario(load_scenario_file(kSecondLoss));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  const auto offline = series(rec, "kafka.offline_partitions", kPayments);
  EXPECT_EQ(range(offline, 0s, 249s).max, 0);
  EXPECT_EQ(range(offline, 249s, 480s).min, 12);
  EXPECT_EQ(range(offline, 481s, 600s).max, 0);
  EXPECT_DOUBLE_EQ(kpi(rec, "kafka.offline_partition_seconds", kPayments), 12 * (480 - 249));
  EXPECT_EQ(kpi(rec, "kafka.lost_messages", kPayments), 0);
  const auto failed = series(rec, "kafka.failed_produces",
                             {{"topic", "payments"}, {"zone", "zone-c"}, {"cause", "no_leader"}});
  EXPECT_NEAR(sum(failed, 249s, 480s), 100 * (480 - 249), 1);
}

// With unclean.leader.election.enable, zone A's replicas lead as soon as they return (360 s), and what was
// acknowledged while only zone B held the partitions (from zone A's loss at 120 s to zone B's at 240 s) is
// gone: exactly the messages produced in those two minutes.
TEST(KafkaSecondZoneLoss, UncleanElectionLosesWhatOnlyTheOtherZoneHeld) {
  const RunResult run = run_scenario(
      load_scenario_file(kSecondLoss, {"spec.topology.topics[0].uncleanLeaderElection=true"}));
  const Recorder& rec = run.simulation->recorder();
  const auto produced = series(rec, "kafka.produced", {{"topic", "payments"}, {"zone", "zone-c"}});
  const double written_to_b_alone = sum(produced, 120s, 240s);
  EXPECT_GT(written_to_b_alone, 11000);
  EXPECT_DOUBLE_EQ(kpi(rec, "kafka.lost_messages", kPayments), written_to_b_alone);
  EXPECT_DOUBLE_EQ(kpi(rec, "kafka.offline_partition_seconds", kPayments), 12 * (360 - 249));
  const auto offline = series(rec, "kafka.offline_partitions", kPayments);
  EXPECT_EQ(range(offline, 361s, 600s).max, 0);
}

}  // namespace
}  // namespace drsim

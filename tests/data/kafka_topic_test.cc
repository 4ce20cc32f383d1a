// Kafka-style partitions: rack-aware assignment, ISR shrink after
// replica.lag.time.max and expansion on catch-up, leader election from the
// ISR only, offline partitions and unclean elections, acks=all against
// min.insync.replicas, and consumer group rebalances and poll cadence.
#include <gtest/gtest.h>

#include "models/data/kafka_consumer_group.h"
#include "models/data/kafka_topic.h"
#include "models/topology/network_model.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Zones a, b, c in one region (1 ms apart).
TopologyConfig three_zones() {
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}, ZoneConfig{"b"}, ZoneConfig{"c"}}, 1ms}};
  return t;
}

// Region r1 (zones a, b) and region r2 (zone c), joined by one 20 ms link.
TopologyConfig two_regions() {
  TopologyConfig t;
  t.regions = {RegionConfig{"r1", {ZoneConfig{"a"}, ZoneConfig{"b"}}, 1ms}, RegionConfig{"r2", {ZoneConfig{"c"}}, 1ms}};
  LinkConfig l;
  l.name = "r1-r2";
  l.between = {"r1", "r2"};
  l.rtt = 20ms;
  l.bandwidth = Bandwidth{10e9};
  t.links = {l};
  return t;
}

TopicConfig topic(std::vector<std::string> broker_zones, std::uint32_t partitions, std::uint32_t rf) {
  TopicConfig c;
  c.name = "orders";
  c.partitions = partitions;
  for (auto& z : broker_zones) c.brokers.push_back(BrokerConfig{z});
  c.replication_factor = rf;
  return c;
}

TopicProducerConfig fixed_rate(std::string zone, double per_second) {
  TopicProducerConfig p;
  p.zone = std::move(zone);
  p.rate = Rate{per_second};
  return p;
}

ZoneIndex zone(const FailureDomains& d, std::string_view name) { return *d.topology().find_zone(name); }

double kpi(const Simulation& sim, std::string_view name) {
  const auto* k = sim.recorder().find_kpi(name, {{"topic", "orders"}});
  EXPECT_NE(k, nullptr) << name;
  return k == nullptr ? -1 : k->value;
}

// The largest point of the first series named metric.
double max_point(const Simulation& sim, std::string_view metric) {
  double worst = -1;
  for (const Recorder::Series& s : sim.recorder().series_list()) {
    if (s.metric != metric) continue;
    for (double v : s.value) worst = std::max(worst, v);
    return worst;
  }
  ADD_FAILURE() << "no series " << metric;
  return worst;
}

std::size_t count_events(const Simulation& sim, std::string_view kind) {
  std::size_t n = 0;
  for (const std::string& k : sim.recorder().events().kind) n += (k == kind);
  return n;
}

TEST(KafkaTopic, ReplicasAlternateZonesAndPreferredLeadersSpreadOverThem) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(three_zones()));
  auto& t = sim.add<KafkaTopic>(topic({"a", "a", "b", "b"}, 4, 2), domains);
  // Brokers alternated by zone: 0 (a), 2 (b), 1 (a), 3 (b); RF consecutive ones per partition.
  EXPECT_EQ(t.replicas(0), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(t.replicas(1), (std::vector<std::size_t>{2, 1}));
  EXPECT_EQ(t.replicas(2), (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(t.replicas(3), (std::vector<std::size_t>{3, 0}));
  sim.run_until(SimTime{1s});
  for (std::size_t p = 0; p < 4; ++p) {
    EXPECT_EQ(t.leader(p), t.replicas(p)[0]);
    EXPECT_EQ(t.isr(p).size(), 2u);
  }
}

TEST(KafkaTopic, LeaderFailsOverToTheIsrAfterTheBrokerSessionTimeout) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(three_zones()));
  TopicConfig c = topic({"a", "b"}, 2, 2);
  c.producers = {fixed_rate("c", 100)};
  auto& t = sim.add<KafkaTopic>(c, domains);
  // Zone a fails at 10.5 s; broker 0's last heartbeat was at 10 s (every 2 s), so it is fenced at 19 s.
  sim.schedule_at(SimTime{10s + 500ms}, [&] { domains.fail_zone(zone(domains, "a")); });
  sim.run_until(SimTime{18s + 999ms});
  EXPECT_EQ(t.leader(0), 0u);  // not yet detected: produces to partition 0 fail
  sim.run_until(SimTime{19s});
  EXPECT_EQ(t.leader(0), 1u);
  EXPECT_EQ(t.isr(0), (std::vector<std::size_t>{1}));
  EXPECT_EQ(t.isr(1), (std::vector<std::size_t>{1}));
  sim.run_until(SimTime{30s});
  sim.finish();
  ASSERT_EQ(t.failover_times().size(), 1u);
  EXPECT_EQ(t.failover_times()[0], 8s + 500ms);
  EXPECT_EQ(kpi(sim, "kafka.leader_elections"), 1);
  EXPECT_EQ(kpi(sim, "kafka.lost_messages"), 0);
  // About half of 8.5 s x 100/s went to the dead leader and failed.
  EXPECT_NEAR(kpi(sim, "kafka.failed_produces"), 425, 80);
  EXPECT_EQ(kpi(sim, "kafka.offline_partition_seconds"), 0);
}

TEST(KafkaTopic, IsrShrinksAfterReplicaLagTimeMaxAndExpandsOnCatchUp) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_regions()));
  TopicConfig c = topic({"a", "c"}, 1, 2);
  c.producers = {fixed_rate("a", 100)};
  auto& t = sim.add<KafkaTopic>(c, domains);
  // The link to the follower's region is cut at 10 s: the follower is up (not fenced) but stops fetching.
  sim.schedule_at(SimTime{10s}, [&] { domains.cut_link(0); });
  sim.schedule_at(SimTime{60s}, [&] { domains.restore_link(0); });
  const Duration rtt = 2 * domains.network().path(zone(domains, "a"), zone(domains, "c")).one_way;
  EXPECT_GE(rtt, 20ms);
  // The leader checks every replicaLagTimeMax / 2 = 15 s: at 30 s the follower is 20 s behind, at 45 s 35 s.
  sim.run_until(SimTime{44s});
  EXPECT_EQ(t.isr(0).size(), 2u);
  const std::uint64_t held = t.high_watermark(0);
  EXPECT_LT(held, t.log_end(0) - 3000);  // the lagging ISR member holds the high water mark
  sim.run_until(SimTime{45s});
  EXPECT_EQ(t.isr(0), (std::vector<std::size_t>{0}));
  EXPECT_EQ(t.high_watermark(0), t.log_end(0));
  // Back at 60 s, 5,000 messages (1 KiB) behind: 5 fetches of 1 MiB (1,024 messages), one round trip each.
  sim.run_until(SimTime{60s} + 5 * rtt - 1ms);
  EXPECT_EQ(t.isr(0).size(), 1u);
  sim.run_until(SimTime{60s} + 5 * rtt);
  EXPECT_EQ(t.isr(0).size(), 2u);
  EXPECT_EQ(t.replica_offset(0, 1), t.log_end(0));
  sim.finish();
  EXPECT_EQ(kpi(sim, "kafka.failed_produces"), 0);
  EXPECT_EQ(count_events(sim, "kafka.isr_shrink"), 1u);
  EXPECT_EQ(count_events(sim, "kafka.isr_expand"), 1u);
  // The sends held back by the lagging follower were acknowledged when it left the ISR, up to 35 s later.
  EXPECT_GT(max_point(sim, "kafka.produce_latency_p99_s"), 34);
}

TEST(KafkaTopic, ElectsOnlyFromTheIsrEvenWhenAnOutOfSyncReplicaComesFirst) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_regions()));
  // Brokers a, c, b: partition 0's replicas in that order. c, across the cut link, falls out of the ISR.
  TopicConfig c = topic({"a", "c", "b"}, 1, 3);
  c.producers = {fixed_rate("b", 10)};
  auto& t = sim.add<KafkaTopic>(c, domains);
  ASSERT_EQ(t.replicas(0), (std::vector<std::size_t>{0, 1, 2}));
  sim.schedule_at(SimTime{5s}, [&] { domains.cut_link(0); });
  sim.schedule_at(SimTime{60s + 500ms}, [&] { domains.fail_zone(zone(domains, "a")); });
  sim.run_until(SimTime{60s});
  EXPECT_EQ(t.isr(0), (std::vector<std::size_t>{0, 2}));
  sim.run_until(SimTime{80s});
  EXPECT_EQ(t.leader(0), 2u);  // broker 1 is alive and listed first, but out of sync
  sim.finish();
  EXPECT_EQ(kpi(sim, "kafka.lost_messages"), 0);
}

struct DoubleFailure {
  Simulation sim;
  FailureDomains* domains = nullptr;
  KafkaTopic* topic = nullptr;

  // RF 2 over zones a and b, producing from c: b fails at 10 s (and leaves the ISR when fenced), a at 100 s
  // (the last ISR member: the partition goes offline). b returns at 200 s, a at 300 s.
  explicit DoubleFailure(bool unclean) {
    domains = &sim.add<FailureDomains>("topology", Topology(three_zones()));
    TopicConfig c = drsim::topic({"a", "b"}, 1, 2);
    c.unclean_leader_election = unclean;
    c.producers = {fixed_rate("c", 10)};
    topic = &sim.add<KafkaTopic>(c, *domains);
    sim.schedule_at(SimTime{10s + 50ms}, [this] { domains->fail_zone(zone(*domains, "b")); });
    sim.schedule_at(SimTime{100s + 50ms}, [this] { domains->fail_zone(zone(*domains, "a")); });
    sim.schedule_at(SimTime{200s + 50ms}, [this] { domains->recover_zone(zone(*domains, "b")); });
    sim.schedule_at(SimTime{300s + 50ms}, [this] { domains->recover_zone(zone(*domains, "a")); });
  }
};

TEST(KafkaTopic, WithoutUncleanElectionAPartitionStaysOfflineUntilItsLastIsrMemberReturns) {
  DoubleFailure f(false);
  f.sim.run_until(SimTime{150s});
  EXPECT_TRUE(f.topic->offline(0));
  EXPECT_EQ(f.topic->isr(0), (std::vector<std::size_t>{0}));  // KRaft keeps the last member
  f.sim.run_until(SimTime{250s});
  EXPECT_TRUE(f.topic->offline(0));  // b is back, but out of sync
  f.sim.run_until(SimTime{301s});
  EXPECT_EQ(f.topic->leader(0), 0u);
  f.sim.run_until(SimTime{320s});
  f.sim.finish();
  EXPECT_EQ(kpi(f.sim, "kafka.lost_messages"), 0);
  // Offline from a's fencing (100 s; its last heartbeat at 100 s + 9 s) to its return.
  EXPECT_NEAR(kpi(f.sim, "kafka.offline_partition_seconds"), 300.05 - 109, 1e-6);
}

TEST(KafkaTopic, UncleanElectionLosesWhatTheOutOfSyncReplicaLacked) {
  DoubleFailure f(true);
  f.sim.run_until(SimTime{250s});
  EXPECT_EQ(f.topic->leader(0), 1u);  // b leads on its return
  f.sim.run_until(SimTime{320s});
  f.sim.finish();
  // b stopped at 10.05 s; a acknowledged everything up to its loss at 100.05 s: 10 messages a second.
  EXPECT_EQ(kpi(f.sim, "kafka.lost_messages"), 900);
  EXPECT_NEAR(kpi(f.sim, "kafka.offline_partition_seconds"), 200.05 - 109, 1e-6);
}

TEST(KafkaTopic, AcksAllFailsBelowMinInsyncReplicas) {
  for (const std::uint32_t min_insync : {1u, 2u}) {
    Simulation sim;
    auto& domains = sim.add<FailureDomains>("topology", Topology(three_zones()));
    TopicConfig c = topic({"a", "b"}, 1, 2);
    c.min_insync_replicas = min_insync;
    c.producers = {fixed_rate("c", 10)};
    auto& t = sim.add<KafkaTopic>(c, domains);
    // The follower b is lost at 10.05 s and fenced at 19 s; b stays down.
    sim.schedule_at(SimTime{10s + 50ms}, [&] { domains.fail_zone(zone(domains, "b")); });
    sim.run_until(SimTime{60s});
    sim.finish();
    EXPECT_EQ(t.isr(0), (std::vector<std::size_t>{0}));
    if (min_insync == 1) {
      EXPECT_EQ(kpi(sim, "kafka.failed_produces"), 0);
      // Sends in the gap wait for the ISR to shrink: up to 19 s - 10.1 s (the window's p99 is a little less).
      EXPECT_GT(max_point(sim, "kafka.produce_latency_p99_s"), 8.5);
    } else {
      // Appended from 10.1 s to 18.9 s and failed once the ISR shrank (89), then refused at once from 19.0 s
      // (the fencing runs first) to 60.0 s (411).
      EXPECT_EQ(kpi(sim, "kafka.failed_produces"), 89 + 411);
    }
  }
}

// ---- consumer groups ----

ConsumerGroupConfig group(std::vector<ConsumerInstancesConfig> instances) {
  ConsumerGroupConfig g;
  g.name = "billing";
  g.instances = std::move(instances);
  return g;
}

TEST(KafkaConsumerGroup, RangeAssignmentThenARebalanceAfterTheSessionTimeout) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(three_zones()));
  TopicConfig c = topic({"c"}, 4, 1);
  c.producers = {fixed_rate("c", 100)};
  auto& t = sim.add<KafkaTopic>(c, domains);
  ConsumerGroupConfig gc = group({{"a", 1}, {"b", 1}});
  gc.record_processing_time = 1ms;
  gc.batch_processing_time = 500ms;
  auto& g = sim.add<KafkaConsumerGroup>(gc, t, domains);
  // Member a's zone fails at 8 s; its last heartbeat was at 6 s (every 3 s): removed at 51 s.
  sim.schedule_at(SimTime{8s}, [&] { domains.fail_zone(zone(domains, "a")); });
  sim.run_until(SimTime{1s});
  EXPECT_EQ(g.assignment(0), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(g.assignment(1), (std::vector<std::size_t>{2, 3}));
  sim.run_until(SimTime{50s + 999ms});
  EXPECT_FALSE(g.rebalancing());
  EXPECT_EQ(g.owner(0), 0u);  // still the dead member's: nobody reads partitions 0 and 1
  EXPECT_GT(g.lag_messages(), 2000u);
  // At 51 s member b finishes its batch (at most 0.5 s + 100 records), joins, and gets everything.
  sim.run_until(SimTime{51s + 700ms});
  EXPECT_FALSE(g.rebalancing());
  EXPECT_EQ(g.assignment(1), (std::vector<std::size_t>{0, 1, 2, 3}));
  sim.run_until(SimTime{120s});
  sim.finish();
  EXPECT_EQ(g.rebalances(), 1u);
  EXPECT_EQ(count_events(sim, "consumer_group.rebalance"), 1u);
  // Member a had processed records since its last commit (every 5 s, the first after 5 s): at most 5 s of its
  // 50 records/s are processed again.
  EXPECT_GT(g.redelivered(), 0u);
  EXPECT_LT(g.redelivered(), 250u);
  // b drains the backlog (about 4,300 records by 51 s; it processes up to 500 per 1 s batch) and is back to a
  // small lag.
  EXPECT_LT(g.lag_messages(), 600u);  // committed every 5 s: up to 500 records past the committed offset
  const auto* max_lag = sim.recorder().find_kpi("kafka.max_consumer_lag_seconds", {{"group", "billing"}, {"topic", "orders"}});
  ASSERT_NE(max_lag, nullptr);
  EXPECT_GT(max_lag->value, 43);
}

TEST(KafkaConsumerGroup, AReturningMemberRejoinsAtOnce) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(three_zones()));
  TopicConfig c = topic({"c"}, 4, 1);
  c.producers = {fixed_rate("c", 50)};
  auto& t = sim.add<KafkaTopic>(c, domains);
  auto& g = sim.add<KafkaConsumerGroup>(group({{"a", 1}, {"b", 1}}), t, domains);
  sim.schedule_at(SimTime{10s}, [&] { domains.fail_zone(zone(domains, "a")); });
  sim.schedule_at(SimTime{100s}, [&] { domains.recover_zone(zone(domains, "a")); });
  sim.run_until(SimTime{99s});
  EXPECT_EQ(g.assignment(1).size(), 4u);
  sim.run_until(SimTime{100s + 1ms});
  EXPECT_EQ(g.assignment(0), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(g.assignment(1), (std::vector<std::size_t>{2, 3}));
  sim.finish();
  EXPECT_EQ(g.rebalances(), 2u);
}

// The poll-cadence tests' topic: 4 partitions over zones a and b, 100 records/s produced from zone c.
TopicConfig hundred_per_second_topic() {
  TopicConfig c = topic({"a", "b"}, 4, 2);
  c.producers = {fixed_rate("c", 100)};
  return c;
}

// Their group: one member in zone a, 1 ms per record and a 4 s per-batch cost.
ConsumerGroupConfig one_batching_member() {
  ConsumerGroupConfig gc = group({{"a", 1}});
  gc.record_processing_time = 1ms;
  gc.batch_processing_time = 4s;
  return gc;
}

// One member, per-batch cost B = 4 s, 1 ms per record, 100 records/s: utilisation rho = 0.1, so it polls every
// T = B / (1 - rho) = 4.44 s and a record waits between T and 2T from production to processing.
TEST(KafkaConsumerGroup, TheBatchCadenceSetsTheLagBetweenProducingAndConsuming) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(three_zones()));
  auto& t = sim.add<KafkaTopic>(hundred_per_second_topic(), domains);
  ConsumerGroupConfig gc = one_batching_member();
  gc.auto_commit_interval = 1s;  // below T: every poll commits
  auto& g = sim.add<KafkaConsumerGroup>(gc, t, domains);
  const double period = 4.0 / (1 - 0.1);
  double lo = 1e9, hi = 0;
  for (int s = 60; s < 300; ++s) {
    sim.run_until(SimTime{std::chrono::seconds(s)});
    lo = std::min(lo, to_seconds(g.lag()));
    hi = std::max(hi, to_seconds(g.lag()));
  }
  sim.finish();
  // The oldest uncommitted record is between one and two periods old (the commit rides on each poll).
  EXPECT_GT(lo, period - 0.1);
  EXPECT_LT(hi, 2 * period + 0.1);
  EXPECT_LT(lo, period + 0.5);        // the sampling sees the whole range
  EXPECT_GT(hi, 2 * period - 0.5);
  const double p99 = max_point(sim, "kafka.consume_delay_p99_s");
  EXPECT_LT(p99, 2 * period * 1.02);
  EXPECT_GT(g.consumed(), 28000u);
}

// With the default autoCommitInterval of 5 s above T = 4.44 s, only every other poll commits: the lag Kafka
// reports (from the committed offset) reaches three periods, though records are processed as fast.
TEST(KafkaConsumerGroup, ACommitIntervalAboveThePollPeriodCommitsEveryOtherPoll) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(three_zones()));
  auto& t = sim.add<KafkaTopic>(hundred_per_second_topic(), domains);
  auto& g = sim.add<KafkaConsumerGroup>(one_batching_member(), t, domains);
  const double period = 4.0 / (1 - 0.1);
  double hi = 0;
  for (int s = 60; s < 300; ++s) {
    sim.run_until(SimTime{std::chrono::seconds(s)});
    hi = std::max(hi, to_seconds(g.lag()));
  }
  sim.finish();
  EXPECT_GT(hi, 3 * period - 0.5);
  EXPECT_LT(hi, 3 * period + 0.1);
  EXPECT_LT(max_point(sim, "kafka.consume_delay_p99_s"), 2 * period * 1.02);
}

}  // namespace
}  // namespace drsim

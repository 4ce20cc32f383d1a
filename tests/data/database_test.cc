// Replicated database: replication lag (latency, FIFO queueing), commit
// modes, and failover RPO/RTO against closed forms.
#include "models/data/database.h"

#include <gtest/gtest.h>

#include "models/topology/network_model.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Region r1 (zones a1, a2, 1 ms apart) and region r2 (zone b1), 20 ms RTT.
TopologyConfig two_regions(Bandwidth bw = Bandwidth{10e9}) {
  TopologyConfig t;
  t.regions = {RegionConfig{"r1", {ZoneConfig{"a1"}, ZoneConfig{"a2"}}, 1ms},
               RegionConfig{"r2", {ZoneConfig{"b1"}}, 1ms}};
  LinkConfig l;
  l.name = "r1-r2";
  l.between = {"r1", "r2"};
  l.rtt = 20ms;
  l.bandwidth = bw;
  t.links = {l};
  return t;
}

DatabaseConfig db(std::vector<DatabaseReplicaConfig> replicas, double rate, std::int64_t size = 1024) {
  DatabaseConfig c;
  c.name = "orders";
  c.primary_zone = "a1";
  c.replicas = std::move(replicas);
  c.write_rate = Rate{rate};
  c.write_size = ByteSize{size};
  return c;
}

Duration one_way(const FailureDomains& d, const char* a, const char* b) {
  return d.network().path(*d.topology().find_zone(a), *d.topology().find_zone(b)).one_way;
}

Duration transmit(std::int64_t bytes, double bps) {
  return Duration{static_cast<std::int64_t>(std::llround(static_cast<double>(bytes) * 8.0 / bps * 1e9))};
}

const Recorder::Kpi& kpi(const Simulation& sim, std::string_view name) {
  const auto* k = sim.recorder().find_kpi(name, {{"database", "orders"}});
  EXPECT_NE(k, nullptr) << name;
  static const Recorder::Kpi none{"", {}, -1};
  return k ? *k : none;
}

TEST(Database, AsyncLagIsOneWayPlusApplyAtLowRates) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_regions()));
  auto& d = sim.add<Database>(db({{"b1", 2ms}}, 10), domains);
  sim.initialize();
  const Duration delay = one_way(domains, "a1", "b1") + 2ms + transmit(1024, 10e9);
  EXPECT_EQ(one_way(domains, "a1", "b1"), 10500us);  // half the link's 20 ms and of the region's 1 ms
  // Writes at k x 100 ms; at a probe time tau the replica has applied the last write with k*100ms + delay <= tau.
  for (SimTime tau : {SimTime{5s + 5ms}, SimTime{5s + 12ms}, SimTime{5s + 13ms}, SimTime{7s + 50ms}}) {
    sim.run_until(tau);
    const std::int64_t k = (to_ns(tau) - to_ns(delay)) / to_ns(Duration{100ms});
    EXPECT_EQ(d.lag(1).applied_commit, SimTime{k * Duration{100ms}}) << format_clock(tau);
    EXPECT_EQ(d.lag(1).applied, static_cast<std::uint64_t>(k + 1));
  }
  sim.finish();
  EXPECT_EQ(kpi(sim, "database.failovers").value, 0);
}

TEST(Database, AsyncLagGrowsAsAFifoWhenWritesExceedTheBandwidth) {
  // 10 kB writes over an 8 Mbps link: 10 ms each on the wire; 200 writes/s arrive every 5 ms (load 2).
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_regions(Bandwidth{8e6})));
  auto& d = sim.add<Database>(db({{"b1", 1ms}}, 200, 10'000), domains);
  sim.initialize();
  const Duration tail = one_way(domains, "a1", "b1") + 1ms;
  for (SimTime tau : {SimTime{1s + 3ms}, SimTime{10s + 7ms}, SimTime{30s + 1ms}}) {
    sim.run_until(tau);
    // Write k (committed at 5k ms) leaves the FIFO at (k + 1) x 10 ms, is applied `tail` later.
    const std::int64_t k = (to_ns(tau) - to_ns(tail)) / to_ns(Duration{10ms}) - 1;
    const Database::Lag lag = d.lag(1);
    EXPECT_EQ(lag.applied, static_cast<std::uint64_t>(k + 1)) << format_clock(tau);
    EXPECT_EQ(lag.applied_commit, SimTime{k * Duration{5ms}});
    // The backlog grows at rate x (1 - 1/load): half the writes committed so far.
    const double t = to_seconds(tau);
    EXPECT_NEAR(static_cast<double>(lag.writes), 200 * t / 2, 3);
    EXPECT_NEAR(to_seconds(lag.seconds), t / 2, 0.02);
  }
  sim.finish();
}

TEST(Database, SemiSyncDegradesToAsyncAfterItsTimeoutAndRecovers) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_regions()));
  DatabaseConfig c = db({{"b1", 1ms}}, 10);
  c.replication = "semi-sync";
  auto& d = sim.add<Database>(c, domains);
  sim.schedule_at(SimTime{10s + 50ms}, [&] { domains.cut_link(0); });
  sim.schedule_at(SimTime{30s + 50ms}, [&] { domains.restore_link(0); });
  sim.run_until(SimTime{10s + 40ms});
  EXPECT_TRUE(d.semi_sync_active());
  EXPECT_EQ(d.pending_writes(), 0u);
  EXPECT_EQ(d.commits(), 101u);  // writes at 0, 0.1, ..., 10.0 s, each acked 21 ms later
  sim.run_until(SimTime{20s + 50ms});
  // Writes from 10.1 s to 20.0 s wait for an ack; the oldest times out at 20.1 s.
  EXPECT_TRUE(d.semi_sync_active());
  EXPECT_EQ(d.pending_writes(), 100u);
  EXPECT_EQ(d.commits(), 101u);
  sim.run_until(SimTime{20s + 150ms});
  EXPECT_FALSE(d.semi_sync_active());
  EXPECT_EQ(d.pending_writes(), 0u);
  EXPECT_EQ(d.commits(), d.head());
  sim.run_until(SimTime{31s});
  EXPECT_TRUE(d.semi_sync_active());  // the replica caught up after the link came back
  sim.finish();
  bool off = false, on = false;
  for (const auto& k : sim.recorder().events().kind) {
    off |= k == "database.semi_sync_off";
    on |= k == "database.semi_sync_on";
  }
  EXPECT_TRUE(off && on);
}

TEST(Database, SyncNeverCommitsWithoutItsQuorum) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_regions()));
  DatabaseConfig c = db({{"a2", 1ms}, {"b1", 1ms}}, 10);
  c.replication = "sync";
  c.sync_acks = 2;
  auto& d = sim.add<Database>(c, domains);
  sim.schedule_at(SimTime{10s + 50ms}, [&] { domains.cut_link(0); });
  sim.schedule_at(SimTime{20s + 50ms}, [&] { domains.restore_link(0); });
  sim.run_until(SimTime{10s + 50ms});
  const std::uint64_t before = d.commits();
  EXPECT_EQ(before, 101u);
  sim.run_until(SimTime{20s});
  EXPECT_EQ(d.commits(), before);       // a2 alone is not a quorum of 2
  EXPECT_EQ(d.pending_writes(), 100u);  // 10.1 .. 20.0 s
  sim.run_until(SimTime{20s + 950ms});
  EXPECT_EQ(d.pending_writes(), 0u);
  EXPECT_EQ(d.commits(), d.head());
  sim.finish();
  DatabaseConfig three;
  three.replicas = {{"a"}, {"b"}};
  EXPECT_EQ(three.required_acks(), 1u);  // a majority of 3 members: the primary and one replica
}

// Closed-form RPO at a constant write rate: the writes committed within one
// replication delay before the failure.
TEST(Database, PrimaryZoneLossLosesTheWritesInFlightAndFailsOverOnSchedule) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_regions()));
  DatabaseConfig c = db({{"a2", 1ms}, {"b1", 1ms}}, 1000);
  c.preferred_region = "r2";  // promote the remote replica: the larger RPO
  auto& d = sim.add<Database>(c, domains);
  const SimTime fail_at{50s + 500us};
  sim.schedule_at(fail_at, [&] { domains.fail_zone(0); });
  sim.initialize();
  const Duration delay = one_way(domains, "a1", "b1") + 1ms + transmit(1024, 10e9);
  sim.run_until(SimTime{200s});
  sim.finish();

  std::uint64_t in_flight = 0;  // writes at k ms committed before the failure, applied after it
  for (std::int64_t k = 0; SimTime{k * Duration{1ms}} < fail_at; ++k) {
    if (SimTime{k * Duration{1ms}} + delay > fail_at) ++in_flight;
  }
  EXPECT_EQ(in_flight, 12u);  // rate x lag = 1000/s x 11.5008 ms
  ASSERT_EQ(d.failovers().size(), 1u);
  const auto& f = d.failovers()[0];
  EXPECT_EQ(f.to, 2u);
  EXPECT_EQ(f.rpo_writes, in_flight);
  EXPECT_EQ(f.rpo, in_flight * Duration{1ms});
  // Checks every 10 s: first failed at 60 s, third at 80 s; promotion 10 s; switch 30 s.
  EXPECT_EQ(f.detected, SimTime{80s});
  EXPECT_EQ(f.promoted, SimTime{90s});
  EXPECT_EQ(f.switched, SimTime{120s});
  ASSERT_TRUE(f.first_write.has_value());
  EXPECT_LE(*f.first_write - SimTime{120s}, 1ms);
  EXPECT_EQ(d.member_zone(d.primary()), "b1");
  EXPECT_DOUBLE_EQ(kpi(sim, "database.rpo_writes").value, 12);
  EXPECT_DOUBLE_EQ(kpi(sim, "database.rpo_seconds").value, 0.012);
  EXPECT_DOUBLE_EQ(kpi(sim, "database.rto_seconds").value, 69.9995);
  EXPECT_NEAR(kpi(sim, "database.failed_writes").value, 69'999.5, 1);  // every write of the gap
  // The new primary replicates to the surviving replica, 11.5 ms (12 writes) behind.
  EXPECT_TRUE(d.lag(1).connected);
  EXPECT_LE(d.lag(1).writes, 12u);
}

TEST(Database, WithoutPreferenceTheMostUpToDateReplicaIsPromoted) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_regions()));
  auto& d = sim.add<Database>(db({{"b1", 1ms}, {"a2", 1ms}}, 1000), domains);
  sim.schedule_at(SimTime{50s + 500us}, [&] { domains.fail_zone(0); });
  sim.run_until(SimTime{150s});
  sim.finish();
  ASSERT_EQ(d.failovers().size(), 1u);
  EXPECT_EQ(d.member_zone(d.failovers()[0].to), "a2");
  // a2 is 0.5 ms + 1 ms apply behind: the writes at 49 ms and 50 ms (of the 50th second) are lost.
  EXPECT_EQ(d.failovers()[0].rpo_writes, 2u);
}

TEST(Database, ManualFailoverWaitsForTheOperator) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_regions()));
  DatabaseConfig c = db({{"b1", 1ms}}, 10);
  c.failover = "manual";
  c.health_check_interval = 5s;
  c.failure_threshold = 2;
  c.promotion_time = 20s;
  c.endpoint_switch = 5s;
  auto& d = sim.add<Database>(c, domains);
  sim.schedule_at(SimTime{12s}, [&] { domains.fail_zone(0); });
  sim.schedule_at(SimTime{300s}, [&] { d.failover(); });
  sim.run_until(SimTime{299s});
  EXPECT_FALSE(d.serving());
  EXPECT_TRUE(d.failovers().size() == 1 && d.failovers()[0].detected == SimTime{20s});
  sim.run_until(SimTime{400s});
  sim.finish();
  const auto& f = d.failovers()[0];
  EXPECT_EQ(f.promoted, SimTime{320s});
  EXPECT_EQ(f.switched, SimTime{325s});
  EXPECT_TRUE(d.serving());
  EXPECT_DOUBLE_EQ(kpi(sim, "database.rto_seconds").value, 313);
}

TEST(Database, AShortBlipBeforeDetectionIsNotAFailover) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_regions()));
  auto& d = sim.add<Database>(db({{"b1", 1ms}}, 10), domains);
  sim.schedule_at(SimTime{12s}, [&] { d.kill_primary(); });
  sim.schedule_at(SimTime{20s}, [&] { d.restart_killed(); });
  sim.run_until(SimTime{100s + 50ms});
  sim.finish();
  EXPECT_TRUE(d.failovers().empty());
  EXPECT_EQ(d.primary(), 0u);
  EXPECT_EQ(d.failed_writes(), 80u);  // 12.0 .. 19.9 s
  EXPECT_EQ(d.commits(), 1001u - 80u);
  EXPECT_EQ(d.lag(1).writes, 0u);
}

TEST(Database, ConfigValidation) {
  DatabaseConfig c = db({{"b1", 1ms}}, 0);
  EXPECT_TRUE(c.validate().empty());
  c.replication = "quorum";
  EXPECT_EQ(c.validate().size(), 1u);
  c.replication = "sync";
  c.sync_acks = 2;
  ASSERT_EQ(c.validate().size(), 1u);
  EXPECT_EQ(c.validate()[0].field, "syncAcks");
}

// shipInterval: async writes leave in one batch every 4 s (log shipping, MirrorMaker's cycle). Between
// batches the replica falls behind by up to the interval; a batch brings it to the write before it, one
// way + apply + the batch's transmission later. So the lag is a sawtooth whose peaks reach 4 s + that delay
// and never more, and a loss costs what was written since the last batch that arrived: at most that much.
TEST(Database, BatchedShippingLagsByUpToTheIntervalAndLosesAtMostThat) {
  Simulation sim(SimulationOptions{.seed = 12});
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_regions()));
  DatabaseConfig c = db({{"b1", 1ms}}, 1000);
  c.ship_interval = 4s;
  c.failure_threshold = 1;
  auto& d = sim.add<Database>(c, domains);
  const SimTime fail_at{30s + 2500ms};
  sim.schedule_at(fail_at, [&] { domains.fail_zone(0); });
  sim.initialize();
  // A batch of 4,000 writes of 1 KiB is 32.8 Mbit: 3.3 ms at 10 Gbit/s.
  const Duration delay = one_way(domains, "a1", "b1") + 1ms + transmit(4000 * 1024, 10e9);
  Duration peak{};
  for (SimTime t{5s}; t < SimTime{30s}; t += 10ms) {
    sim.run_until(t);
    peak = std::max(peak, d.lag(1).seconds);
  }
  EXPECT_GT(peak, 4s - 20ms);
  EXPECT_LE(peak, 4s + delay);
  sim.run_until(SimTime{60s});
  sim.finish();
  ASSERT_EQ(d.failovers().size(), 1u);
  const auto& f = d.failovers()[0];
  EXPECT_GT(f.rpo, 0s);
  EXPECT_LE(f.rpo, 4s + delay);
  // One write a millisecond: the count follows the span.
  EXPECT_NEAR(static_cast<double>(f.rpo_writes), to_seconds(f.rpo) * 1000, 1.5);
}

}  // namespace
}  // namespace drsim

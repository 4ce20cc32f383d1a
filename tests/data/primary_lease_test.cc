// Lease-based self-fencing: the lease arithmetic against its definition, and
// a partitioned primary that stops acknowledging writes once its lease runs
// out (against one without a lease, which takes writes until the failover).
#include "models/data/primary_lease.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "models/data/database.h"
#include "models/topology/network_model.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

TEST(PrimaryLease, ExpiresATimeoutAfterTheLastRenewalBeforeTheLoss) {
  const auto expiry = [](SimTime lost_at) {
    PrimaryLease lease(9s, 3s, 1500ms);  // renewal ticks at 1.5, 4.5, 7.5, ... s
    return lease.lose_quorum(lost_at);
  };
  EXPECT_EQ(expiry(SimTime{1s}), SimTime{9s});            // the lease taken at the start
  EXPECT_EQ(expiry(SimTime{1500ms}), SimTime{10500ms});   // renewed at the instant
  EXPECT_EQ(expiry(SimTime{4400ms}), SimTime{10500ms});   // last renewal 1.5 s
  EXPECT_EQ(expiry(SimTime{4500ms}), SimTime{13500ms});
  const PrimaryLease lease(9s, 3s, 1500ms);
  EXPECT_EQ(lease.next_renewal(SimTime{1s}), SimTime{1500ms});
  EXPECT_EQ(lease.next_renewal(SimTime{4500ms}), SimTime{4500ms});
  EXPECT_EQ(lease.next_renewal(SimTime{4501ms}), SimTime{7500ms});
  // Whatever the phase, the fence comes timeout - interval to timeout after the loss.
  for (std::int64_t loss_ms = 0; loss_ms < 20'000; loss_ms += 37) {
    const SimTime loss{std::chrono::milliseconds(loss_ms)};
    const Duration after = expiry(loss) - loss;
    EXPECT_GT(after, 6s);
    EXPECT_LE(after, 9s);
  }
}

TEST(PrimaryLease, ATickWhileTheQuorumWasAwayRenewsNothing) {
  PrimaryLease lease(9s, 3s, 1500ms);
  EXPECT_EQ(lease.lose_quorum(SimTime{5s}), SimTime{13500ms});  // renewed at 4.5 s
  lease.regain_quorum(SimTime{8s});                              // the 7.5 s tick failed
  EXPECT_EQ(lease.lose_quorum(SimTime{8500ms}), SimTime{13500ms});  // back for 0.5 s, no tick: still 4.5 s
  lease.regain_quorum(SimTime{10s});
  EXPECT_EQ(lease.lose_quorum(SimTime{11s}), SimTime{19500ms});  // the 10.5 s tick renewed it
  lease.acquire(SimTime{30s});                                   // promoted, or renewed after a fence
  EXPECT_EQ(lease.lose_quorum(SimTime{30500ms}), SimTime{39s});
}

// Three regions, one zone each, 20 ms apart: the primary in r1 and a replica
// in each of the others, so cutting r1's two links leaves it alone (1 of 3).
TopologyConfig three_regions() {
  TopologyConfig t;
  t.regions = {RegionConfig{"r1", {ZoneConfig{"a1"}}, 1ms}, RegionConfig{"r2", {ZoneConfig{"b1"}}, 1ms},
               RegionConfig{"r3", {ZoneConfig{"c1"}}, 1ms}};
  for (auto [name, a, b] : {std::tuple{"r1-r2", "r1", "r2"}, {"r1-r3", "r1", "r3"}, {"r2-r3", "r2", "r3"}}) {
    LinkConfig l;
    l.name = name;
    l.between = {a, b};
    l.rtt = 20ms;
    l.bandwidth = Bandwidth{10e9};
    t.links.push_back(l);
  }
  return t;
}

DatabaseConfig events_db(std::optional<Duration> lease) {
  DatabaseConfig c;
  c.name = "events";
  c.primary_zone = "a1";
  c.replicas = {{"b1", 1ms}, {"c1", 1ms}};
  c.ship_interval = 4s;
  c.write_rate = Rate{100};
  c.health_check_interval = 2s;
  c.failure_threshold = 3;
  c.promotion_time = 5s;
  c.endpoint_switch = 5s;
  c.monitor_zone = "b1";
  c.preferred_region = "r2";
  c.lease_timeout = lease;
  return c;
}

struct Partitioned {
  SimTime cut{60s + 250ms};
  std::optional<SimTime> fenced;
  Duration rpo{};
  std::uint64_t rpo_writes = 0;
  double failed_writes = 0;
};

Partitioned run_partition(std::optional<Duration> lease, std::optional<SimTime> heal = std::nullopt) {
  Simulation sim(SimulationOptions{.seed = 7});
  auto& domains = sim.add<FailureDomains>("topology", Topology(three_regions()));
  auto& d = sim.add<Database>(events_db(lease), domains);
  Partitioned out;
  sim.schedule_at(out.cut, [&] {
    domains.cut_link(0);
    domains.cut_link(1);
  });
  if (heal) {
    sim.schedule_at(*heal, [&] {
      domains.restore_link(0);
      domains.restore_link(1);
    });
  }
  sim.initialize();
  sim.run_until(SimTime{120s});
  sim.finish();
  const auto& events = sim.recorder().events();
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events.kind[i] == "database.self_fenced" && !out.fenced) out.fenced = SimTime{Duration{events.t_ns[i]}};
  }
  if (!d.failovers().empty()) {
    out.rpo = d.failovers()[0].rpo;
    out.rpo_writes = d.failovers()[0].rpo_writes;
  }
  const auto* failed = sim.recorder().find_kpi("database.failed_writes", {{"database", "events"}});
  out.failed_writes = failed ? failed->value : -1;
  return out;
}

TEST(DatabaseLease, APartitionedPrimaryStopsAcknowledgingWhenItsLeaseRunsOut) {
  const Partitioned without = run_partition(std::nullopt);
  const Partitioned with = run_partition(3s);  // renewals every 1 s
  EXPECT_FALSE(without.fenced.has_value());
  ASSERT_TRUE(with.fenced.has_value());
  // The fence: the last renewal before the cut (0-1 s before it) plus 3 s.
  EXPECT_GT(*with.fenced - with.cut, 2s);
  EXPECT_LE(*with.fenced - with.cut, 3s);
  // The monitor in b1 cannot reach a1: detection at the third failed 2 s check (6 s), promotion 5 s later.
  // Without a lease the cut-off primary acknowledges until it is fenced by that failover, so the RPO is the
  // mirror's lag at the cut (up to one 4 s batch) plus about 6 s; with one, the lag plus the fence's 2-3 s.
  EXPECT_GT(without.rpo, 6s);
  EXPECT_LE(without.rpo, 4s + 6s + 100ms);
  EXPECT_LE(with.rpo, 4s + (*with.fenced - with.cut) + 100ms);
  EXPECT_LT(with.rpo, without.rpo) << "with " << to_seconds(with.rpo) << " s, without " << to_seconds(without.rpo) << " s, fenced " << to_seconds(*with.fenced - with.cut) << " s after the cut";
  EXPECT_LT(with.rpo_writes, without.rpo_writes);
  // The writes it refused are failures the clients see, not silent losses.
  EXPECT_GT(with.failed_writes, without.failed_writes);
}

TEST(DatabaseLease, AHealedPartitionBeforeTheLeaseRunsOutFencesNothing) {
  const Partitioned healed = run_partition(3s, SimTime{61s + 500ms});  // 1.25 s after the cut: before any expiry
  EXPECT_FALSE(healed.fenced.has_value());
  EXPECT_EQ(healed.rpo_writes, 0u);  // no failover either: the checks saw it again in time
}

TEST(DatabaseLease, ConfigValidation) {
  DatabaseConfig c = events_db(std::nullopt);
  c.lease_renew_interval = 1s;
  auto problems = c.validate();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "leaseRenewInterval");
  c.lease_timeout = 1s;
  problems = c.validate();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("shorter than leaseTimeout"), std::string::npos);
  c.lease_renew_interval.reset();
  EXPECT_TRUE(c.validate().empty());
  EXPECT_EQ(c.renew_interval(), Duration{1s} / 3);
}

}  // namespace
}  // namespace drsim

// Connection pools against a Database's client endpoints: connections stay
// with the member they were opened to (so a failover leaves them stuck on
// the old primary until TCP or the driver gives up), new ones follow the
// endpoint switch, and the servers' session limit holds. Figures come from
// the configuration: health checks, promotion and switch times, the
// kernel's retransmission give-up, the driver's timeouts.
#include <gtest/gtest.h>

#include <algorithm>

#include "models/data/database.h"
#include "pool_test_host.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Regions north (zone n1, index 0) and east (zones e1 and e2, indices 1 and
// 2), 28 ms apart.
TopologyConfig north_east() {
  TopologyConfig t;
  t.regions = {RegionConfig{"north", {ZoneConfig{"n1"}}, 1ms}, RegionConfig{"east", {ZoneConfig{"e1"}, ZoneConfig{"e2"}}, 1ms}};
  LinkConfig l;
  l.name = "north-east";
  l.between = {"north", "east"};
  l.rtt = 28ms;
  t.links = {l};
  return t;
}

// Primary in north, replica in east; failure detected at the third failed
// check (every 5 s), promotion 5 s, endpoint switch 5 s.
DatabaseConfig shard() {
  DatabaseConfig c;
  c.name = "uid-shard";
  c.primary_zone = "n1";
  c.replicas = {DatabaseReplicaConfig{"e1"}};
  c.health_check_interval = 5s;
  c.failure_threshold = 3;
  c.promotion_time = 5s;
  c.endpoint_switch = 5s;
  return c;
}

constexpr ZoneIndex kNorth = 0, kEast = 1, kEast2 = 2;

struct Rig {
  Simulation sim;
  FailureDomains& domains;
  Database& db;
  PoolHost& host;
  Rig(PoolConfig pool, DatabaseConfig dbc = shard(), std::size_t pools = 1)
      : domains(sim.add<FailureDomains>("topology", Topology(north_east()))),
        db(sim.add<Database>(std::move(dbc), domains)),
        host(sim.add<PoolHost>(std::move(pool), db.client_endpoint(kEast), pools, kEast)) {}
  // One query every `every` from `from` to `to`.
  void load(SimTime from, SimTime to, Duration every) {
    std::uint64_t token = 0;
    for (SimTime t = from; t < to; t += every) host.submit_at(t, token++);
  }
  const PoolHost::Heard* first_ok_after(SimTime t) const {
    for (const auto& h : host.heard) {
      if (h.at > t && h.result.outcome == QueryOutcome::kOk) return &h;
    }
    return nullptr;
  }
};


TEST(DatabaseEndpoint, ConnectionsOpenToTheCurrentPrimaryAndCountAgainstIt) {
  Rig rig(PoolConfig{});
  rig.sim.run_until(at(5s));
  EXPECT_EQ(rig.db.connections(0), 10u);  // a fixed-size pool of 10 (HikariCP defaults)
  EXPECT_EQ(rig.db.connections(1), 0u);
  EXPECT_EQ(rig.db.client_endpoint(kEast).resolve().round_trip(kEast), 29ms);  // link + the two zones' halves
  rig.sim.finish();
}

// Default driver and kernel: a query sent on a connection to the vanished
// primary waits for the kernel's retransmission give-up (924.6 s), and the
// one-connection pool is stuck with it long after the endpoint switched.
TEST(DatabaseEndpoint, AQueryOnAStaleConnectionHangsUntilRetransmissionGivesUp) {
  PoolConfig pool;
  pool.maximum_pool_size = 1;
  Rig rig(pool);
  rig.load(at(1s), at(1100s), 100ms);  // idle < 500 ms between uses: no validation on borrow
  rig.host.call_at(at(10s), [&] { rig.domains.fail_zone(kNorth); });
  rig.sim.run_until(at(1100s));
  rig.sim.finish();
  ASSERT_EQ(rig.db.failovers().size(), 1u);
  // Health checks at 10, 15, 20 s fail: detected at 20 s, promoted 25 s, switched 30 s.
  EXPECT_EQ(rig.db.failovers()[0].switched, at(30s));
  // The query sent at 10.0 s is the one that hangs.
  const auto hung = std::find_if(rig.host.heard.begin(), rig.host.heard.end(), [](const PoolHost::Heard& h) {
    return h.result.error == TcpError::kRetransmitTimeout;
  });
  ASSERT_NE(hung, rig.host.heard.end());
  const Duration give_up = retransmission_give_up(TcpConfig{});
  EXPECT_NEAR(to_seconds(hung->at), 10.0 + to_seconds(give_up), 0.2);
  // Nothing succeeds in between; afterwards the new connection goes to east.
  const auto* ok = rig.first_ok_after(at(10s));
  ASSERT_NE(ok, nullptr);
  EXPECT_GT(ok->at, hung->at);
  EXPECT_LT(ok->at, hung->at + 1s);
  EXPECT_EQ(rig.db.connections(1), 1u);
  EXPECT_EQ(rig.db.connections(0), 0u);  // the dead member's sessions went with its zone
}

// With the drill's fix (socketTimeout 5 s) and a 2 s connect timeout, the
// stale connection fails 5 s after the loss, reconnects to the dead primary
// time out until the endpoint switch, and the first query after it works.
TEST(DatabaseEndpoint, ASocketTimeoutFreesThePoolAndItFollowsTheSwitch) {
  PoolConfig pool;
  pool.maximum_pool_size = 1;
  pool.socket_timeout = 5s;
  pool.connect_timeout = 2s;
  Rig rig(pool);
  rig.load(at(1s), at(100s), 100ms);
  rig.host.call_at(at(10s), [&] { rig.domains.fail_zone(kNorth); });
  rig.sim.run_until(at(100s));
  rig.sim.finish();
  const auto timed_out = std::find_if(rig.host.heard.begin(), rig.host.heard.end(), [](const PoolHost::Heard& h) {
    return h.result.error == TcpError::kSocketTimeout;
  });
  ASSERT_NE(timed_out, rig.host.heard.end());
  EXPECT_NEAR(to_seconds(timed_out->at), 15.0, 0.2);
  // Recovery: after the switch at 30 s, within one connect timeout plus the
  // adder's longest back-off (5 s) plus a connect (3 round trips).
  const auto* ok = rig.first_ok_after(at(10s));
  ASSERT_NE(ok, nullptr);
  EXPECT_GE(ok->at, at(30s));
  EXPECT_LE(ok->at, at(30s + 2s + 5s + 1s));
  EXPECT_GT(rig.host.pool().connection_failures(), 0u);  // connects to the dead primary timed out
  EXPECT_EQ(rig.db.connections(1), 1u);
}

// A killed primary process (host up) resets connections: the query fails at
// once instead of hanging.
TEST(DatabaseEndpoint, AKilledPrimaryResetsItsConnections) {
  PoolConfig pool;
  pool.maximum_pool_size = 1;
  Rig rig(pool);
  rig.load(at(1s), at(60s), 100ms);
  rig.host.call_at(at(10s) + 50ms, [&] { rig.db.kill_primary(); });
  rig.sim.run_until(at(60s));
  rig.sim.finish();
  const auto reset = std::find_if(rig.host.heard.begin(), rig.host.heard.end(), [](const PoolHost::Heard& h) {
    return h.result.outcome != QueryOutcome::kOk;
  });
  ASSERT_NE(reset, rig.host.heard.end());
  EXPECT_EQ(reset->result.error, TcpError::kReset);
  EXPECT_LT(reset->at, at(10s) + 200ms);  // within a round trip, not a timeout
  // Killed at 10.05 s: checks at 15, 20, 25 s fail: switched at 25 + 5 + 5.
  ASSERT_EQ(rig.db.failovers().size(), 1u);
  EXPECT_EQ(rig.db.failovers()[0].switched, at(35s));
  const auto* ok = rig.first_ok_after(at(11s));
  ASSERT_NE(ok, nullptr);
  EXPECT_GE(ok->at, at(35s));
}

// maxConnections caps the sessions a member takes from all pools together.
TEST(DatabaseEndpoint, TheServerRefusesSessionsBeyondMaxConnections) {
  DatabaseConfig dbc = shard();
  dbc.max_connections = 15;
  Rig rig(PoolConfig{}, dbc, 2);  // two pods' pools of 10
  rig.sim.run_until(at(10s));
  rig.sim.finish();
  EXPECT_EQ(rig.db.connections(0), 15u);
  EXPECT_EQ(rig.db.peak_connections(), 15u);
  EXPECT_GT(rig.db.refused_connections(), 0u);
  EXPECT_EQ(rig.host.pool(0).total_connections() + rig.host.pool(1).total_connections(), 15u);
  const auto* kpi = rig.sim.recorder().find_kpi("database.peak_connections", {{"database", "uid-shard"}});
  ASSERT_NE(kpi, nullptr);
  EXPECT_EQ(kpi->value, 15);
}


// Writes commit on the primary: every successful write is a commit there.
TEST(DatabaseEndpoint, ClientWritesCommitOnThePrimary) {
  Rig rig(PoolConfig{});
  for (int i = 0; i < 100; ++i) {
    rig.host.call_at(at(1s + i * 10ms), [&rig, i] { rig.host.pool().execute(rig.host, i, 3, 1); });
  }
  rig.sim.run_until(at(10s));
  rig.sim.finish();
  ASSERT_EQ(rig.host.heard.size(), 100u);
  for (const auto& h : rig.host.heard) {
    ASSERT_EQ(h.result.outcome, QueryOutcome::kOk);
    // Three queries in sequence, each a round trip (29 ms) + 1 ms at the
    // server, after the borrow (which validates a connection idle > 500 ms).
    EXPECT_EQ(h.result.total - h.result.borrow_wait, 3 * 30ms);
  }
  EXPECT_EQ(rig.db.commits(), 100u);
}

// Semi-synchronous: the write's answer waits for the replica's ack. Client
// in east, primary in north, replica in east: the write reaches north one way
// on (14.5 ms), ships back to east (14.5 ms + 1 KiB at 10 Gbit/s), applies
// (1 ms), acks (14.5 ms), and the answer returns (14.5 ms).
TEST(DatabaseEndpoint, ASemiSyncWriteWaitsForTheReplicasAck) {
  DatabaseConfig dbc = shard();
  dbc.replication = "semi-sync";
  Rig rig(PoolConfig{}, dbc);
  rig.host.call_at(at(2s), [&rig] { rig.host.pool().execute(rig.host, 1, 1, 1); });
  rig.host.call_at(at(3s), [&rig] { rig.host.pool().execute(rig.host, 2, 1, 0); });  // a read: no wait
  rig.sim.run_until(at(5s));
  rig.sim.finish();
  ASSERT_EQ(rig.host.heard.size(), 2u);
  EXPECT_EQ(rig.host.heard[0].result.outcome, QueryOutcome::kOk);
  const double transmit_ms = 1024 * 8 / 10e9 * 1e3;
  const auto& write = rig.host.heard[0].result;
  EXPECT_NEAR(to_seconds(write.total - write.borrow_wait) * 1e3, 4 * 14.5 + 1 + transmit_ms, 0.01);
  const auto& read = rig.host.heard[1].result;
  EXPECT_EQ(read.total - read.borrow_wait, 30ms);
  EXPECT_EQ(rig.db.commits(), 1u);
}

// A write on a primary whose replica cannot acknowledge (sync, the replica's
// zone down) gets no answer; the driver's socketTimeout ends the wait (and,
// as any read timeout, costs the connection).
TEST(DatabaseEndpoint, ASyncWriteWithoutItsReplicaWaitsForTheSocketTimeout) {
  DatabaseConfig dbc = shard();
  dbc.replication = "sync";
  dbc.sync_acks = 1;
  dbc.replicas = {DatabaseReplicaConfig{"e2"}};
  PoolConfig pool;
  pool.socket_timeout = 3s;
  Rig rig(pool, dbc);
  rig.host.call_at(at(2s), [&rig] { rig.domains.fail_zone(kEast2); });
  rig.host.call_at(at(2s), [&rig] { rig.host.pool().execute(rig.host, 1, 1, 1); });
  rig.sim.run_until(at(10s));
  rig.sim.finish();
  ASSERT_EQ(rig.host.heard.size(), 1u);
  EXPECT_EQ(rig.host.heard[0].result.error, TcpError::kSocketTimeout);
  const auto& write = rig.host.heard[0].result;
  EXPECT_EQ(write.total - write.borrow_wait, 3s);
  EXPECT_EQ(rig.db.commits(), 0u);
}

}  // namespace
}  // namespace drsim

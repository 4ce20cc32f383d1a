// ConnectionPool against a TestEndpoint: capacity, borrow timeouts,
// retirement by housekeeping and maxLifetime, dead connections found by
// queries, validation and keepalive, reconnect attempts. Every figure is
// derived from the configuration, in simulated time only.
#include "models/data/connection_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "pool_test_host.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

const Recorder::Series& find_series(const Recorder& rec, const std::string& metric, const Labels& labels) {
  Labels sorted = labels;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& s : rec.series_list()) {
    if (s.metric == metric && s.labels == sorted) return s;
  }
  throw std::runtime_error("no series " + metric);
}

const Labels kPod0{{"service", "api"}, {"zone", "a"}, {"pod", "api-a-0"}};

std::size_t count_ok(const std::vector<PoolHost::Heard>& heard, SimTime from, SimTime to) {
  return static_cast<std::size_t>(std::count_if(heard.begin(), heard.end(), [&](const PoolHost::Heard& h) {
    return h.result.outcome == QueryOutcome::kOk && h.at >= from && h.at < to;
  }));
}

// Throughput under saturation is maximumPoolSize / query time.
TEST(ConnectionPool, ThroughputCappedAtPoolSizeOverQueryTime) {
  for (const std::uint32_t n : {10u, 4u}) {
    TestEndpoint db("db", 0ms, 100ms);
    PoolConfig cfg;
    cfg.maximum_pool_size = n;
    Simulation sim;
    auto& host = sim.add<PoolHost>(cfg, db);
    // 200 requests/s from 1 s to 21 s: far beyond n / 0.1 s.
    for (int i = 0; i < 4000; ++i) host.submit_at(at(1s + i * 5ms), static_cast<std::uint64_t>(i));
    std::size_t pending_at_20s = 0;
    host.call_at(at(20s), [&] { pending_at_20s = host.pool().pending_borrowers(); });
    sim.run_until(at(25s));
    const double per_second = static_cast<double>(count_ok(host.heard, at(5s), at(20s))) / 15.0;
    EXPECT_NEAR(per_second, n / 0.1, 0.5) << "pool size " << n;
    // The excess queues: about 19 s x (200 - 10 n) requests/s by 20 s.
    EXPECT_NEAR(static_cast<double>(pending_at_20s), 19.0 * (200.0 - 10.0 * n), 0.02 * 19.0 * 200.0);
    EXPECT_EQ(host.pool(0).total_connections(), n);
    EXPECT_EQ(db.open_connections(), n);
  }
}

TEST(ConnectionPool, BorrowerFailsExactlyAtConnectionTimeout) {
  TestEndpoint db("db", 0ms, 100s);  // one query holds the only connection for 100 s
  PoolConfig cfg;
  cfg.maximum_pool_size = 1;
  Simulation sim;
  auto& host = sim.add<PoolHost>(cfg, db);
  host.submit_at(at(1s), 1);
  host.submit_at(at(2s), 2);
  std::size_t pending_at_10s = 0;
  host.call_at(at(10s), [&] { pending_at_10s = host.pool().pending_borrowers(); });
  sim.run_until(at(40s));
  ASSERT_EQ(host.heard.size(), 1u);
  EXPECT_EQ(host.heard[0].token, 2u);
  EXPECT_EQ(host.heard[0].at, at(32s));  // "request timed out after 30000ms"
  EXPECT_EQ(host.heard[0].result.outcome, QueryOutcome::kPoolTimeout);
  EXPECT_EQ(host.heard[0].result.total, 30s);
  EXPECT_EQ(pending_at_10s, 1u);
  EXPECT_EQ(host.pool().borrow_timeouts(), 1u);
  sim.finish();
  const auto& timeouts = find_series(sim.recorder(), "pool.borrow_timeouts", kPod0);
  EXPECT_EQ(timeouts.value[32], 1.0);
}

TEST(ConnectionPool, IdleTimeoutRetiresOnlyAtHousekeepingRuns) {
  TestEndpoint db("db", 1ms, 1s);
  PoolConfig cfg;
  cfg.maximum_pool_size = 10;
  cfg.minimum_idle = 2;
  cfg.idle_timeout = 30s;
  cfg.max_lifetime = Duration::zero();
  Simulation sim;
  auto& host = sim.add<PoolHost>(cfg, db);
  for (int i = 0; i < 10; ++i) host.submit_at(at(1s), static_cast<std::uint64_t>(i));
  std::uint32_t at5 = 0, at60 = 0, at61 = 0;
  host.call_at(at(5s), [&] { at5 = host.pool().total_connections(); });
  // Housekeeping runs at 0.1 s, 30.1 s, 60.1 s: the burst's connections were
  // last returned at about 2-2.5 s, so they pass idleTimeout (30 s) at about
  // 32.5 s but are retired only at 60.1 s.
  host.call_at(at(60s), [&] { at60 = host.pool().total_connections(); });
  host.call_at(at(61s), [&] { at61 = host.pool().total_connections(); });
  sim.run_until(at(62s));
  EXPECT_EQ(at5, 10u);
  EXPECT_EQ(at60, 10u);
  EXPECT_EQ(at61, 2u);
  EXPECT_EQ(host.pool().retirements(), 8u);
  EXPECT_EQ(host.pool().housekeeping_runs(), 3u);
  EXPECT_EQ(db.open_connections(), 2u);
}

TEST(ConnectionPool, MaxLifetimeRetiresWithinTwoAndAHalfPercent) {
  TestEndpoint db("db", 1ms, 10ms);
  PoolConfig cfg;
  cfg.maximum_pool_size = 4;
  cfg.max_lifetime = 60s;  // retire between 58.5 s and 60 s after creation
  Simulation sim;
  auto& host = sim.add<PoolHost>(cfg, db);
  std::uint64_t before = 99, after = 0;
  host.call_at(at(58400ms), [&] { before = host.pool().retirements(); });
  host.call_at(at(60200ms), [&] { after = host.pool().retirements(); });
  sim.run_until(at(62s));
  EXPECT_EQ(before, 0u);
  EXPECT_EQ(after, 4u);
  EXPECT_EQ(host.pool().total_connections(), 4u);  // refilled
  EXPECT_EQ(host.pool().connection_attempts(), 8u);
}

// The drill's in-flight case: a hot connection (used within 500 ms, so not
// validated) sends its query into a black hole.
struct InFlightCase {
  PeerState failure;
  Duration socket_timeout;
  Duration expected_after_send;
  TcpError expected_error;
};

TEST(ConnectionPool, InFlightQueryOnVanishedPeer) {
  const InFlightCase cases[] = {
      {PeerState::kBlackholed, 5s, 5s, TcpError::kSocketTimeout},
      {PeerState::kBlackholed, 0s, 924600ms, TcpError::kRetransmitTimeout},
      {PeerState::kRefusing, 0s, 2ms, TcpError::kReset},
  };
  for (const InFlightCase& c : cases) {
    TestEndpoint db("db", 2ms, 100ms);
    PoolConfig cfg;
    cfg.maximum_pool_size = 1;
    cfg.socket_timeout = c.socket_timeout;
    Simulation sim;
    auto& host = sim.add<PoolHost>(cfg, db);
    host.submit_at(at(1s), 1);  // validated (idle > 500 ms), done at 1.104 s
    host.call_at(at(1200ms), [&] { db.set_state(c.failure, at(1200ms)); });
    host.submit_at(at(1300ms), 2);  // last used 0.2 s ago: no validation
    sim.run_until(at(1000s));
    ASSERT_EQ(host.heard.size(), 2u);
    EXPECT_EQ(host.heard[0].result.outcome, QueryOutcome::kOk);
    EXPECT_EQ(host.heard[1].result.outcome, QueryOutcome::kConnectionError);
    EXPECT_EQ(host.heard[1].result.error, c.expected_error);
    EXPECT_EQ(host.heard[1].at, at(1300ms) + c.expected_after_send);
    EXPECT_EQ(host.pool().evictions(), 1u);
  }
}

TEST(ConnectionPool, PeerVanishingMidQueryFailsAtSocketTimeoutFromSend) {
  TestEndpoint db("db", 0ms, 2s);
  PoolConfig cfg;
  cfg.maximum_pool_size = 1;
  cfg.socket_timeout = 5s;
  Simulation sim;
  auto& host = sim.add<PoolHost>(cfg, db);
  host.submit_at(at(1s), 1);  // sent at 1 s, answer due at 3 s
  host.call_at(at(2s), [&] { db.set_state(PeerState::kBlackholed, at(2s)); });
  sim.run_until(at(20s));
  ASSERT_EQ(host.heard.size(), 1u);
  EXPECT_EQ(host.heard[0].result.error, TcpError::kSocketTimeout);
  EXPECT_EQ(host.heard[0].at, at(6s));
}

// An idle connection to a black-holed peer is found dead on borrow by
// validation (validationTimeout), and the replacement's connect to the
// silent peer outlasts the borrower's connectionTimeout.
TEST(ConnectionPool, IdleDeadConnectionFoundByValidationOnBorrow) {
  TestEndpoint db("db", 1ms, 10ms);
  PoolConfig cfg;
  cfg.maximum_pool_size = 1;
  Simulation sim;
  auto& host = sim.add<PoolHost>(cfg, db);
  host.call_at(at(10s), [&] { db.set_state(PeerState::kBlackholed, at(10s)); });
  host.submit_at(at(20s), 1);
  std::uint64_t evicted_at_25s = 0, attempts_at_26s = 0, failures_at_151s = 9, failures_at_153s = 0;
  host.call_at(at(25001ms), [&] { evicted_at_25s = host.pool().evictions(); });
  host.call_at(at(26s), [&] { attempts_at_26s = host.pool().connection_attempts(); });
  host.call_at(at(151s), [&] { failures_at_151s = host.pool().connection_failures(); });
  host.call_at(at(153s), [&] { failures_at_153s = host.pool().connection_failures(); });
  sim.run_until(at(200s));
  ASSERT_EQ(host.heard.size(), 1u);
  EXPECT_EQ(host.heard[0].result.outcome, QueryOutcome::kPoolTimeout);
  EXPECT_EQ(host.heard[0].at, at(50s));
  EXPECT_EQ(evicted_at_25s, 1u);   // validation gave up at 20 + 5 s
  EXPECT_EQ(attempts_at_26s, 2u);  // the initial fill, then a reconnect at 25 s
  EXPECT_EQ(failures_at_151s, 0u);
  EXPECT_EQ(failures_at_153s, 1u);  // SYN retries exhausted at 25 + 127 s
}

TEST(ConnectionPool, KernelKeepaliveMakesValidationFailAtOnce) {
  for (const bool keepalive : {false, true}) {
    TestEndpoint db("db", 1ms, 10ms);
    PoolConfig cfg;
    cfg.maximum_pool_size = 1;
    cfg.tcp.so_keepalive = keepalive;
    cfg.max_lifetime = Duration::zero();  // keep the one connection for the whole run
    Simulation sim;
    auto& host = sim.add<PoolHost>(cfg, db);
    host.call_at(at(100s), [&] { db.set_state(PeerState::kBlackholed, at(100s)); });
    host.submit_at(at(8000s), 1);  // the connection went idle at 0.003 s: aborted at 7875.003 s with keepalive
    std::uint64_t evicted_soon = 0;
    host.call_at(at(8000s) + 1ms, [&] { evicted_soon = host.pool().evictions(); });
    sim.run_until(at(8100s));
    EXPECT_EQ(evicted_soon, keepalive ? 1u : 0u) << "keepalive " << keepalive;
    EXPECT_EQ(host.pool().evictions(), 1u);
    ASSERT_EQ(host.heard.size(), 1u);
    EXPECT_EQ(host.heard[0].result.outcome, QueryOutcome::kPoolTimeout);
  }
}

TEST(ConnectionPool, HikariKeepaliveEvictsIdleDeadConnections) {
  TestEndpoint db("db", 1ms, 10ms);
  PoolConfig cfg;
  cfg.maximum_pool_size = 2;
  cfg.keepalive_time = 60s;  // each connection tested every 54-60 s while idle
  Simulation sim;
  auto& host = sim.add<PoolHost>(cfg, db);
  host.call_at(at(30s), [&] { db.set_state(PeerState::kBlackholed, at(30s)); });
  std::uint64_t evicted_at_50s = 9, evicted_at_66s = 0;
  host.call_at(at(50s), [&] { evicted_at_50s = host.pool().evictions(); });
  host.call_at(at(66s), [&] { evicted_at_66s = host.pool().evictions(); });  // heartbeat <= 60 s, + 5 s validation
  sim.run_until(at(70s));
  EXPECT_EQ(evicted_at_50s, 0u);
  EXPECT_EQ(evicted_at_66s, 2u);
}

// Against a refusing database the adder retries with HikariCP's backoff
// (10 ms doubling to 5 s); once it answers, the pool refills: attempts per
// window show the storm.
TEST(ConnectionPool, ReconnectAttemptsAreCountedPerWindow) {
  TestEndpoint db("db", 1ms, 10ms);
  db.set_state(PeerState::kRefusing, at(0s));
  PoolConfig cfg;
  Simulation sim;
  auto& host = sim.add<PoolHost>(cfg, db);
  host.call_at(at(60s), [&] { db.set_state(PeerState::kUp, at(60s)); });
  sim.run_until(at(70s));
  sim.finish();
  // Expected attempt times while refused: each fails after 1 ms (the RST),
  // then waits the backoff.
  std::vector<Duration> starts;
  Duration t{0}, backoff = 10ms;
  while (t < 60s) {
    starts.push_back(t);
    t += 1ms + backoff;
    backoff = std::min<Duration>(backoff * 2, 5s);
  }
  const std::uint64_t refused = starts.size();
  EXPECT_EQ(host.pool().connection_failures(), refused);
  EXPECT_EQ(host.pool().connection_attempts(), refused + 10);  // then the 10 of the refill
  EXPECT_EQ(host.pool().total_connections(), 10u);
  const auto& attempts = find_series(sim.recorder(), "pool.connection_attempts", kPod0);
  double sum = 0;
  for (double v : attempts.value) sum += v;
  EXPECT_EQ(sum, static_cast<double>(refused + 10));
  // The refill: the first attempt after recovery, then one every 33 ms.
  const std::size_t window = static_cast<std::size_t>((t - 0s) / 1s);
  EXPECT_GE(attempts.value[window], 10.0 - attempts.value[window + 1]);
  EXPECT_LE(attempts.value[30], 1.0);  // before: one per 5 s
}

TEST(ConnectionPool, FleetConnectionsLimitedByDatabase) {
  TestEndpoint db("db", 1ms, 10ms);
  db.set_max_connections(15);
  PoolConfig cfg;
  Simulation sim;
  auto& host = sim.add<PoolHost>(cfg, db, 2);
  sim.run_until(at(10s));
  EXPECT_EQ(db.open_connections(), 15u);
  EXPECT_EQ(host.pool(0).total_connections() + host.pool(1).total_connections(), 15u);
  EXPECT_GT(host.pool(0).connection_failures() + host.pool(1).connection_failures(), 0u);
}

}  // namespace
}  // namespace drsim

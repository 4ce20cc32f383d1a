#pragma once
// ConnectionPool: one pod's JDBC pool towards one database endpoint, with
// HikariCP 5.1.0's semantics (HikariPool.getConnection, ConcurrentBag,
// HouseKeeper, MaxLifetimeTask, KeepaliveTask, PoolEntryCreator; read from
// tag HikariCP-5.1.0, rewritten here as events):
//  - execute(client, token, queries): borrow a connection, run `queries`
//    queries on it one after another, return it, and report once through the
//    client. A borrower finding no idle connection waits in FIFO order (the
//    handoff queue) up to connectionTimeout, then fails as HikariCP's
//    "Connection is not available, request timed out after 30000ms".
//  - a borrowed connection idle longer than aliveBypassWindow (500 ms) is
//    validated first (a round trip; a dead one costs up to
//    validationTimeout), then closed if dead, and the borrower tries again
//    with what is left of its connectionTimeout.
//  - a query failing on a dead connection (socketTimeout, retransmission
//    give-up, reset; see tcp_connection.h) evicts the connection (HikariCP's
//    ProxyConnection.checkException on SQLState 08xxx) and fails the borrower.
//  - new connections come from one adder at a time (HikariCP's single
//    "connection adder" thread, its task queue bounded by maximumPoolSize):
//    a task keeps trying while the pool is below maximumPoolSize and either
//    below minimumIdle or has more waiters than idle connections, backing off
//    10 ms, 20 ms, ... up to 5 s after failures, and pausing 30 ms after a
//    success. Tasks are queued by fillPool (housekeeping, after every close)
//    and by borrowers that must wait (addBagItem).
//  - housekeeping every 30 s (first run 100 ms after start) closes idle
//    connections past idleTimeout down to minimumIdle, then fills the pool.
//  - each connection retires at maxLifetime minus up to 2.5%: at once if
//    idle, else when returned; keepaliveTime (if set) validates idle ones.
//
// Recorded through PoolMetrics (shared by the pools of one service and zone,
// or one per pod: the host decides the labels): gauges pool.active,
// pool.idle, pool.pending (waiting borrowers), pool.connections; counters
// pool.connection_attempts, pool.connection_failures, pool.borrow_timeouts,
// pool.queries, pool.query_failures, pool.evictions; latency pool.borrow_wait
// (time to get a connection, validation included).
//
// Hot path: a borrower is a 40-byte record in a ring buffer or in its
// connection's slot; events capture (pool, slot, generation). Nothing is
// allocated per request once the pool and its waiter ring have grown.
#include <cstdint>
#include <string>
#include <vector>

#include "models/data/pool_config.h"
#include "models/data/tcp_connection.h"
#include "models/metrics/windowed_metrics.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace drsim {

class Simulation;

enum class QueryOutcome : std::uint8_t {
  kOk,
  kPoolTimeout,      // no connection within connectionTimeout
  kConnectionError,  // the query failed on its connection (see QueryResult::error)
  kServerError,      // the server answered with an error (a write without a writable primary)
};
const char* to_string(QueryOutcome outcome);

struct QueryResult {
  QueryOutcome outcome = QueryOutcome::kOk;
  TcpError error = TcpError::kNone;  // for kConnectionError
  Duration borrow_wait{};            // until a (validated) connection was in hand
  Duration total{};                  // from execute() to the report
};

// Hears once per execute(). Reports come from event handlers, never from
// inside execute() itself.
class QueryClient {
 public:
  virtual void on_query_done(std::uint64_t token, const QueryResult& result) = 0;

 protected:
  ~QueryClient() = default;
};

// The series of one or more pools. Gauges are sums over those pools.
class PoolMetrics {
 public:
  // Declares the series with these labels (e.g. service, zone[, pod]); call
  // from the host's attach(). The helper must outlive the pools using it.
  PoolMetrics(WindowedMetrics& metrics, const Labels& labels);

  WindowedMetrics& metrics() { return metrics_; }
  void add_active(SimTime t, int d) { set(active_id_, active_ += d, t); }
  void add_idle(SimTime t, int d) { set(idle_id_, idle_ += d, t); }
  void add_pending(SimTime t, int d) { set(pending_id_, pending_ += d, t); }
  void add_total(SimTime t, int d) { set(total_id_, total_ += d, t); }

  CounterId attempts, failures, borrow_timeouts, queries, query_failures, evictions;
  LatencyId borrow_wait;

 private:
  void set(GaugeId id, std::int64_t v, SimTime t) { metrics_.set(id, t, static_cast<double>(v)); }
  WindowedMetrics& metrics_;
  GaugeId active_id_, idle_id_, pending_id_, total_id_;
  std::int64_t active_ = 0, idle_ = 0, pending_ = 0, total_ = 0;
};

class ConnectionPool final : private CommitWaiter {
 public:
  // Events are scheduled on `sim` tagged with the host component's id.
  // `zone` is the pod's topology zone (for the endpoint's round trip).
  // metrics may be null. The pool draws from its own stream, named `name`.
  ConnectionPool(Simulation& sim, std::uint32_t host_component, std::string name, PoolConfig config,
                 PoolEndpoint& endpoint, std::uint32_t zone, PoolMetrics* metrics);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // Opens the pool now: fills towards minimumIdle, housekeeping from +100 ms.
  void start();
  // Closes every connection and fails nothing: pending work is dropped
  // (the pod is gone). Borrowers are not told.
  void shutdown();

  // Borrow, run `queries` queries (>= 1) of which the last `writes` are
  // writes (PoolEndpoint::write), return; report to client once.
  void execute(QueryClient& client, std::uint64_t token, std::uint32_t queries = 1, std::uint32_t writes = 0);

  const PoolConfig& config() const { return config_; }
  const std::string& name() const { return name_; }
  std::uint32_t total_connections() const { return total_; }
  std::uint32_t idle_connections() const { return static_cast<std::uint32_t>(idle_.size()); }
  std::uint32_t active_connections() const { return active_; }
  std::size_t pending_borrowers() const { return waiters_size_; }
  // Run totals.
  std::uint64_t connection_attempts() const { return attempts_; }
  std::uint64_t connection_failures() const { return connect_failures_; }
  std::uint64_t borrow_timeouts() const { return borrow_timeouts_; }
  std::uint64_t evictions() const { return evictions_; }
  std::uint64_t housekeeping_runs() const { return housekeeping_runs_; }
  // Closed by idleTimeout or maxLifetime.
  std::uint64_t retirements() const { return retirements_; }

 private:
  struct Borrower {
    QueryClient* client = nullptr;
    std::uint64_t token = 0;
    SimTime since{};            // execute() time: the connectionTimeout deadline is since + timeout
    SimTime got{};              // when it had a usable connection
    std::uint32_t queries = 1;  // left to run
    std::uint32_t writes = 0;   // the last `writes` of them are writes
  };
  enum class State : std::uint8_t { kFree, kIdle, kInUse, kReserved };
  enum class Step : std::uint8_t { kNone, kValidate, kQuery, kKeepalive };
  struct Conn {
    State state = State::kFree;
    Step step = Step::kNone;
    bool evicted = false;
    bool server_error = false;  // the query under way gets an error answer from the server
    TcpError pending_error = TcpError::kNone;  // outcome computed for the step under way
    std::uint32_t generation = 0;
    TcpConnection tcp;
    PoolEndpoint* peer = nullptr;  // the server it was opened to (endpoint_.resolve() then)
    SimTime created{};
    SimTime last_accessed{};  // HikariCP PoolEntry.lastAccessed: creation or last return
    SimTime sent{};           // the step under way started
    Duration heartbeat{};     // keepaliveTime minus this connection's variance
    EventId step_event, eol_event, keepalive_event;
    Borrower borrower;
  };

  // ---- borrowing
  bool try_take(const Borrower& b);
  void give(std::uint32_t index, const Borrower& b);
  void enqueue_front(const Borrower& b);
  void enqueue_back(const Borrower& b);
  Borrower pop_waiter();
  void arm_waiter_timer();
  void on_waiter_timer();
  void report(const Borrower& b, QueryResult r);
  // ---- steps on a connection
  void start_validation(std::uint32_t index, Step step);
  void start_query(std::uint32_t index);
  // A write reaches the server and commits (or fails, or waits for replicas:
  // then the answer goes back once the commit is done, or the driver's read
  // timeout ends the wait). `answer`: when a plain query's answer would be due.
  void write_arrives(std::uint32_t index, std::uint32_t generation, Duration answer);
  // A waiting write's commit (token: generation << 32 | connection).
  void on_commit(std::uint64_t token, bool committed) override;
  void on_step(std::uint32_t index, std::uint32_t generation);
  void release(std::uint32_t index);  // requite: hand off or idle
  // ---- connection life
  std::uint32_t add_connection();
  // dead: closed because it failed (an eviction), not retired.
  void close_connection(std::uint32_t index, bool dead);
  void on_max_lifetime(std::uint32_t index, std::uint32_t generation);
  void on_keepalive(std::uint32_t index, std::uint32_t generation);
  // Back to a waiter, or to idle (ConcurrentBag.add / requite).
  void hand_over(std::uint32_t index);
  void remove_idle(std::uint32_t index);
  // ---- the adder and housekeeping
  void fill_pool();
  void add_bag_item(std::size_t waiting);
  void submit_add();
  void run_next_task();
  void creation_step();
  void retry_borrow(const Borrower& b);
  void on_connect_done(TcpError error);
  bool should_continue_creating() const;
  void housekeep();

  Duration rtt(const PoolEndpoint& peer) const { return peer.round_trip(zone_); }
  SimTime now() const;
  template <class F>
  EventId at(SimTime t, const char* label, F&& f);
  template <class F>
  EventId after(Duration d, const char* label, F&& f) {
    return at(now() + d, label, static_cast<F&&>(f));
  }
  void cancel(EventId& id);

  Simulation& sim_;
  std::uint32_t host_;
  std::string name_;
  PoolConfig config_;
  PoolEndpoint& endpoint_;
  PoolEndpoint* connecting_to_ = nullptr;  // the server of the connect under way
  std::uint32_t zone_;
  PoolMetrics* metrics_;
  RngStream rng_;
  bool open_ = false;

  std::vector<Conn> conns_;
  std::vector<std::uint32_t> free_;  // free slots of conns_
  std::vector<std::uint32_t> idle_;  // idle slots, most recently returned last (taken first)
  std::uint32_t total_ = 0;
  std::uint32_t active_ = 0;

  std::uint64_t retirements_ = 0;
  // Waiting borrowers: a ring (power-of-two capacity) in deadline order.
  std::vector<Borrower> waiters_;
  std::size_t waiters_head_ = 0;
  std::size_t waiters_size_ = 0;
  EventId waiter_timer_;
  SimTime waiter_timer_at_{};

  // The adder: queued tasks, the one running, its backoff.
  std::uint32_t add_queue_ = 0;
  bool adder_running_ = false;
  bool connecting_ = false;
  Duration backoff_{};
  EventId adder_event_;
  EventId housekeeper_event_;

  std::uint64_t attempts_ = 0, connect_failures_ = 0, borrow_timeouts_ = 0, evictions_ = 0, housekeeping_runs_ = 0;
};

}  // namespace drsim

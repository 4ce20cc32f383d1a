#include "models/data/connection_pool.h"

#include <algorithm>
#include <utility>

#include "sim/errors.h"
#include "sim/simulation.h"

namespace drsim {

using namespace std::chrono_literals;

namespace {
// PoolEntryCreator: first backoff after a failed attempt, its cap, and the
// pause after a successful one (quietlySleep(30L)).
constexpr Duration kFirstBackoff = 10ms;
constexpr Duration kMaxBackoff = 5s;
constexpr Duration kPauseAfterAdd = 30ms;
// HikariPool: the housekeeper's first run (scheduleWithFixedDelay(..., 100L, ...)).
constexpr Duration kFirstHousekeeping = 100ms;

std::int64_t whole_ms(Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }
}  // namespace

const char* to_string(QueryOutcome outcome) {
  switch (outcome) {
    case QueryOutcome::kOk:
      return "ok";
    case QueryOutcome::kPoolTimeout:
      return "pool-timeout";
    case QueryOutcome::kConnectionError:
      return "connection-error";
    case QueryOutcome::kServerError:
      return "server-error";
  }
  return "?";
}

PoolMetrics::PoolMetrics(WindowedMetrics& metrics, const Labels& labels) : metrics_(metrics) {
  active_id_ = metrics_.gauge("pool.active", labels);
  idle_id_ = metrics_.gauge("pool.idle", labels);
  pending_id_ = metrics_.gauge("pool.pending", labels);
  total_id_ = metrics_.gauge("pool.connections", labels);
  attempts = metrics_.counter("pool.connection_attempts", labels);
  failures = metrics_.counter("pool.connection_failures", labels);
  borrow_timeouts = metrics_.counter("pool.borrow_timeouts", labels);
  queries = metrics_.counter("pool.queries", labels);
  query_failures = metrics_.counter("pool.query_failures", labels);
  evictions = metrics_.counter("pool.evictions", labels);
  borrow_wait = metrics_.latency("pool.borrow_wait", labels);
}

ConnectionPool::ConnectionPool(Simulation& sim, std::uint32_t host_component, std::string name, PoolConfig config,
                               PoolEndpoint& endpoint, std::uint32_t zone, PoolMetrics* metrics)
    : sim_(sim),
      host_(host_component),
      name_(std::move(name)),
      config_(std::move(config)),
      endpoint_(endpoint),
      zone_(zone),
      metrics_(metrics),
      rng_(sim.rng_stream(name_)) {
  if (config_.maximum_pool_size == 0) throw SimulationError("pool " + name_ + ": maximumPoolSize must be at least 1");
  conns_.reserve(config_.maximum_pool_size);
  idle_.reserve(config_.maximum_pool_size);
}

SimTime ConnectionPool::now() const { return sim_.now(); }

template <class F>
EventId ConnectionPool::at(SimTime t, const char* label, F&& f) {
  return sim_.schedule_at(t, std::forward<F>(f), EventTag{host_, label});
}

void ConnectionPool::cancel(EventId& id) {
  if (id.valid()) sim_.cancel(id);
  id = {};
}

// ---------------------------------------------------------------- lifecycle

void ConnectionPool::start() {
  if (open_) return;
  open_ = true;
  fill_pool();
  housekeeper_event_ = after(kFirstHousekeeping, "pool.housekeeping", [this] { housekeep(); });
}

void ConnectionPool::shutdown() {
  open_ = false;
  cancel(housekeeper_event_);
  cancel(adder_event_);
  cancel(waiter_timer_);
  add_queue_ = 0;
  adder_running_ = connecting_ = false;
  for (std::uint32_t i = 0; i < conns_.size(); ++i) {
    if (conns_[i].state != State::kFree) close_connection(i, false);
  }
  if (metrics_ != nullptr && waiters_size_ > 0) metrics_->add_pending(now(), -static_cast<int>(waiters_size_));
  waiters_head_ = waiters_size_ = 0;
}

// ---------------------------------------------------------------- borrowing

void ConnectionPool::execute(QueryClient& client, std::uint64_t token, std::uint32_t queries, std::uint32_t writes) {
  queries = std::max<std::uint32_t>(queries, 1);
  const Borrower b{&client, token, now(), SimTime{}, queries, std::min(writes, queries)};
  // Idle connections exist only while nobody waits (a return hands off first).
  if (waiters_size_ == 0 && try_take(b)) return;
  enqueue_back(b);
  add_bag_item(waiters_size_);
}

bool ConnectionPool::try_take(const Borrower& b) {
  while (!idle_.empty()) {
    const std::uint32_t index = idle_.back();
    idle_.pop_back();
    Conn& c = conns_[index];
    c.state = State::kInUse;
    ++active_;
    if (metrics_ != nullptr) {
      metrics_->add_idle(now(), -1);
      metrics_->add_active(now(), 1);
    }
    if (c.evicted) {  // past maxLifetime while in use: "(connection was evicted)"
      close_connection(index, false);
      continue;
    }
    give(index, b);
    return true;
  }
  return false;
}

// The connection is kInUse and counted active.
void ConnectionPool::give(std::uint32_t index, const Borrower& b) {
  Conn& c = conns_[index];
  c.borrower = b;
  if (now() - c.last_accessed > config_.alive_bypass_window) {
    start_validation(index, Step::kValidate);
    return;
  }
  c.borrower.got = now();
  if (metrics_ != nullptr) metrics_->metrics().observe(metrics_->borrow_wait, now(), now() - b.since);
  start_query(index);
}

// After a dead connection: HikariCP's getConnection loop, with what is left
// of the borrower's connectionTimeout.
void ConnectionPool::retry_borrow(const Borrower& b) {
  if (now() - b.since >= config_.connection_timeout) {
    ++borrow_timeouts_;
    if (metrics_ != nullptr) metrics_->metrics().add(metrics_->borrow_timeouts, now());
    report(b, {QueryOutcome::kPoolTimeout, TcpError::kNone, now() - b.since, {}});
    return;
  }
  if (waiters_size_ == 0 && try_take(b)) return;
  // Everyone waiting came after this borrower: it keeps its place in front.
  enqueue_front(b);
  add_bag_item(waiters_size_);
}

void ConnectionPool::enqueue_back(const Borrower& b) {
  if (waiters_size_ == waiters_.size()) {
    std::vector<Borrower> grown(std::max<std::size_t>(8, waiters_.size() * 2));
    for (std::size_t i = 0; i < waiters_size_; ++i) grown[i] = waiters_[(waiters_head_ + i) & (waiters_.size() - 1)];
    waiters_ = std::move(grown);
    waiters_head_ = 0;
  }
  waiters_[(waiters_head_ + waiters_size_) & (waiters_.size() - 1)] = b;
  ++waiters_size_;
  if (metrics_ != nullptr) metrics_->add_pending(now(), 1);
  arm_waiter_timer();
}

void ConnectionPool::enqueue_front(const Borrower& b) {
  enqueue_back(b);  // grows if needed, counts, arms
  // Move the range one slot back: the new head is b, the copy at the old tail
  // falls outside [head, head + size).
  const std::size_t mask = waiters_.size() - 1;
  waiters_head_ = (waiters_head_ + mask) & mask;  // head - 1
  waiters_[waiters_head_] = b;
  arm_waiter_timer();
}

ConnectionPool::Borrower ConnectionPool::pop_waiter() {
  const Borrower b = waiters_[waiters_head_];
  waiters_head_ = (waiters_head_ + 1) & (waiters_.size() - 1);
  --waiters_size_;
  if (metrics_ != nullptr) metrics_->add_pending(now(), -1);
  return b;
}

void ConnectionPool::arm_waiter_timer() {
  if (waiters_size_ == 0) return;
  const SimTime deadline = waiters_[waiters_head_].since + config_.connection_timeout;
  if (waiter_timer_.valid() && sim_.is_pending(waiter_timer_)) {
    if (waiter_timer_at_ <= deadline) return;  // fires early and re-arms
    cancel(waiter_timer_);
  }
  waiter_timer_at_ = deadline;
  waiter_timer_ = at(deadline, "pool.borrow_timeout", [this] { on_waiter_timer(); });
}

void ConnectionPool::on_waiter_timer() {
  waiter_timer_ = {};
  while (waiters_size_ > 0 && waiters_[waiters_head_].since + config_.connection_timeout <= now()) {
    const Borrower b = pop_waiter();
    ++borrow_timeouts_;
    if (metrics_ != nullptr) metrics_->metrics().add(metrics_->borrow_timeouts, now());
    // "Connection is not available, request timed out after 30000ms."
    report(b, {QueryOutcome::kPoolTimeout, TcpError::kNone, now() - b.since, {}});
  }
  arm_waiter_timer();
}

void ConnectionPool::report(const Borrower& b, QueryResult r) {
  r.total = now() - b.since;
  b.client->on_query_done(b.token, r);
}

// ---------------------------------------------------------------- steps

void ConnectionPool::start_validation(std::uint32_t index, Step step) {
  Conn& c = conns_[index];
  c.step = step;
  c.sent = now();
  // isConnectionDead: a ping under setNetworkTimeout(validationTimeout).
  const TcpResult r =
      c.tcp.exchange(config_.tcp, *c.peer, now(), rtt(*c.peer), Duration::zero(), config_.validation_timeout);
  c.pending_error = r.error;
  const std::uint32_t generation = c.generation;
  c.step_event = after(r.after, "pool.validate", [this, index, generation] { on_step(index, generation); });
}

void ConnectionPool::start_query(std::uint32_t index) {
  Conn& c = conns_[index];
  c.step = Step::kQuery;
  c.sent = now();
  c.server_error = false;
  const Duration server = c.peer->query_time(rng_);
  const TcpResult r = c.tcp.exchange(config_.tcp, *c.peer, now(), rtt(*c.peer), server, config_.socket_timeout);
  c.pending_error = r.error;
  const std::uint32_t generation = c.generation;
  if (r.ok() && c.borrower.queries <= c.borrower.writes) {
    // A write: it commits when it reaches the server, half a round trip on.
    const Duration answer = r.after;
    c.step_event = after(rtt(*c.peer) / 2, "pool.write_arrives",
                         [this, index, generation, answer] { write_arrives(index, generation, answer); });
    return;
  }
  c.step_event = after(r.after, "pool.query", [this, index, generation] { on_step(index, generation); });
}

void ConnectionPool::write_arrives(std::uint32_t index, std::uint32_t generation, Duration answer) {
  Conn& c = conns_[index];
  if (c.generation != generation || c.step != Step::kQuery) return;
  const SimTime sent = c.sent;
  auto answer_at = [this, index, generation](SimTime t) {
    conns_[index].step_event = at(t, "pool.query", [this, index, generation] { on_step(index, generation); });
  };
  // A peer gone since the send never sees it; on_step's recheck says how the
  // exchange ends.
  if (c.peer->peer_state() != PeerState::kUp) {
    answer_at(sent + answer);
    return;
  }
  const auto written =
      c.peer->write(CommitNotice{this, (static_cast<std::uint64_t>(generation) << 32) | index});
  switch (written) {
    case PoolEndpoint::WriteAnswer::kCommitted:
      answer_at(sent + answer);
      return;
    case PoolEndpoint::WriteAnswer::kFailed:
      c.server_error = true;
      answer_at(sent + answer);
      return;
    case PoolEndpoint::WriteAnswer::kPending:
      // The server holds the answer until the commit; the connection itself
      // is fine, so only the driver's read timeout ends the wait.
      c.step_event = {};
      if (config_.socket_timeout > Duration::zero()) {
        c.pending_error = TcpError::kSocketTimeout;
        answer_at(sent + std::max(answer, config_.socket_timeout));
      }
      return;
  }
}

void ConnectionPool::on_commit(std::uint64_t token, bool committed) {
  const auto index = static_cast<std::uint32_t>(token & 0xFFFFFFFFu);
  const auto generation = static_cast<std::uint32_t>(token >> 32);
  if (index >= conns_.size()) return;
  Conn& c = conns_[index];
  // Still that query? A write waiting for its commit holds its connection
  // until the commit or an error, and an error closes the connection (a new
  // generation), so the generation identifies the query.
  if (c.generation != generation || c.step != Step::kQuery) return;
  c.server_error = !committed;
  c.pending_error = TcpError::kNone;
  cancel(c.step_event);
  // The answer leaves the server now and takes one way back.
  c.step_event = at(now() + rtt(*c.peer) / 2, "pool.commit", [this, index, generation] { on_step(index, generation); });
}

void ConnectionPool::on_step(std::uint32_t index, std::uint32_t generation) {
  Conn& c = conns_[index];
  if (c.generation != generation || c.step == Step::kNone) return;
  c.step_event = {};
  const Duration read_timeout = c.step == Step::kQuery ? config_.socket_timeout : config_.validation_timeout;
  TcpError error = c.pending_error;
  if (error == TcpError::kNone) {
    // The answer looked due now; the peer may have failed since it was sent.
    const TcpResult r = c.tcp.recheck(config_.tcp, *c.peer, c.sent, now(), rtt(*c.peer), read_timeout);
    if (!r.ok()) {
      if (c.sent + r.after > now()) {
        c.pending_error = r.error;
        c.step_event =
            at(c.sent + r.after, "pool.lost_answer", [this, index, generation] { on_step(index, generation); });
        return;
      }
      error = r.error;
    }
  }
  const Step step = c.step;
  c.step = Step::kNone;
  if (error == TcpError::kNone) c.tcp.touch(now());

  switch (step) {
    case Step::kValidate: {
      if (error == TcpError::kNone) {
        c.borrower.got = now();
        if (metrics_ != nullptr) metrics_->metrics().observe(metrics_->borrow_wait, now(), now() - c.borrower.since);
        start_query(index);
        return;
      }
      const Borrower b = c.borrower;
      close_connection(index, true);  // "(connection is dead)"
      retry_borrow(b);
      return;
    }
    case Step::kQuery: {
      if (metrics_ != nullptr) metrics_->metrics().add(metrics_->queries, now());
      if (error == TcpError::kNone && c.server_error) {
        // An error answer: the connection is sound and goes back to the pool.
        const Borrower b = c.borrower;
        if (metrics_ != nullptr) metrics_->metrics().add(metrics_->query_failures, now());
        release(index);
        report(b, {QueryOutcome::kServerError, TcpError::kNone, b.got - b.since, {}});
        return;
      }
      if (error == TcpError::kNone) {
        if (--c.borrower.queries > 0) {
          start_query(index);
          return;
        }
        const Borrower b = c.borrower;
        release(index);
        report(b, {QueryOutcome::kOk, TcpError::kNone, b.got - b.since, {}});
        return;
      }
      const Borrower b = c.borrower;
      if (metrics_ != nullptr) metrics_->metrics().add(metrics_->query_failures, now());
      close_connection(index, true);  // a broken connection (SQLState 08xxx) is evicted
      report(b, {QueryOutcome::kConnectionError, error, b.got - b.since, {}});
      return;
    }
    case Step::kKeepalive: {
      if (error != TcpError::kNone) {
        close_connection(index, true);
        add_bag_item(waiters_size_);
        return;
      }
      if (c.evicted) {
        close_connection(index, false);
        add_bag_item(waiters_size_);
        return;
      }
      // unreserve: hand off to a waiter, or back to idle.
      c.state = State::kInUse;
      ++active_;
      if (metrics_ != nullptr) metrics_->add_active(now(), 1);
      c.keepalive_event =
          after(c.heartbeat, "pool.keepalive", [this, index, generation] { on_keepalive(index, generation); });
      hand_over(index);
      return;
    }
    case Step::kNone:
      return;
  }
}

// ConcurrentBag.requite: the returned connection goes to the first waiter, or idle.
void ConnectionPool::release(std::uint32_t index) {
  Conn& c = conns_[index];
  c.last_accessed = now();
  if (c.evicted) {
    close_connection(index, false);
    add_bag_item(waiters_size_);
    return;
  }
  if (waiters_size_ > 0) {
    give(index, pop_waiter());
    return;
  }
  c.state = State::kIdle;
  --active_;
  idle_.push_back(index);
  if (metrics_ != nullptr) {
    metrics_->add_active(now(), -1);
    metrics_->add_idle(now(), 1);
  }
}

// ---------------------------------------------------------------- connection life

std::uint32_t ConnectionPool::add_connection() {
  std::uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(conns_.size());
    conns_.emplace_back();
  }
  Conn& c = conns_[index];
  const std::uint32_t generation = c.generation;
  c.state = State::kInUse;
  c.step = Step::kNone;
  c.evicted = false;
  c.peer = connecting_to_;
  c.tcp = TcpConnection(now(), c.peer->incarnation(), config_.tcp.so_keepalive);
  c.created = c.last_accessed = now();
  ++total_;
  ++active_;
  if (metrics_ != nullptr) {
    metrics_->add_total(now(), 1);
    metrics_->add_active(now(), 1);
  }
  if (config_.max_lifetime > Duration::zero()) {
    // createPoolEntry: variance up to 2.5% (nextLong(maxLifetime / 40)) when maxLifetime > 10 s.
    const std::int64_t ms = whole_ms(config_.max_lifetime);
    const std::int64_t variance = ms > 10'000 ? static_cast<std::int64_t>(rng_.below(ms / 40)) : 0;
    c.eol_event = after(config_.max_lifetime - std::chrono::milliseconds(variance), "pool.max_lifetime",
                        [this, index, generation] { on_max_lifetime(index, generation); });
  }
  if (config_.keepalive_time > Duration::zero()) {
    // createPoolEntry: heartbeat = keepaliveTime - nextLong(keepaliveTime / 10).
    const std::int64_t ms = whole_ms(config_.keepalive_time);
    const std::int64_t variance = ms >= 10 ? static_cast<std::int64_t>(rng_.below(ms / 10)) : 0;
    c.heartbeat = config_.keepalive_time - std::chrono::milliseconds(variance);
    c.keepalive_event =
        after(c.heartbeat, "pool.keepalive", [this, index, generation] { on_keepalive(index, generation); });
  }
  hand_over(index);
  return index;
}

// ConcurrentBag.add / requite: straight to a waiter if there is one, else
// back to idle. The connection is counted active on entry.
void ConnectionPool::hand_over(std::uint32_t index) {
  if (waiters_size_ > 0) {
    give(index, pop_waiter());
    return;
  }
  conns_[index].state = State::kIdle;
  --active_;
  idle_.push_back(index);
  if (metrics_ != nullptr) {
    metrics_->add_active(now(), -1);
    metrics_->add_idle(now(), 1);
  }
}

void ConnectionPool::remove_idle(std::uint32_t index) {
  const auto it = std::find(idle_.begin(), idle_.end(), index);
  if (it != idle_.end()) idle_.erase(it);
  if (metrics_ != nullptr) metrics_->add_idle(now(), -1);
}

void ConnectionPool::close_connection(std::uint32_t index, bool dead) {
  Conn& c = conns_[index];
  if (c.state == State::kFree) return;
  if (c.state == State::kIdle) {
    remove_idle(index);
  } else if (c.state == State::kInUse) {
    --active_;
    if (metrics_ != nullptr) metrics_->add_active(now(), -1);
  }
  cancel(c.step_event);
  cancel(c.eol_event);
  cancel(c.keepalive_event);
  c.peer->close_connection(c.tcp.incarnation());
  c.state = State::kFree;
  c.step = Step::kNone;
  ++c.generation;
  free_.push_back(index);
  --total_;
  if (metrics_ != nullptr) metrics_->add_total(now(), -1);
  if (dead) {
    ++evictions_;
    if (metrics_ != nullptr) metrics_->metrics().add(metrics_->evictions, now());
  } else {
    ++retirements_;
  }
  fill_pool();  // closeConnection: fillPool(false) once closed
}

void ConnectionPool::on_max_lifetime(std::uint32_t index, std::uint32_t generation) {
  Conn& c = conns_[index];
  if (c.generation != generation) return;
  c.eol_event = {};
  // softEvictConnection: mark; close now only if idle.
  c.evicted = true;
  if (c.state == State::kIdle) {
    close_connection(index, false);  // "(connection has passed maxLifetime)"
    add_bag_item(waiters_size_);
  }
}

void ConnectionPool::on_keepalive(std::uint32_t index, std::uint32_t generation) {
  Conn& c = conns_[index];
  if (c.generation != generation) return;
  c.keepalive_event = {};
  if (c.state != State::kIdle) {  // in use: only idle connections are tested
    c.keepalive_event =
        after(c.heartbeat, "pool.keepalive", [this, index, generation] { on_keepalive(index, generation); });
    return;
  }
  remove_idle(index);
  c.state = State::kReserved;
  start_validation(index, Step::kKeepalive);
}

// ---------------------------------------------------------------- the adder and housekeeping

void ConnectionPool::fill_pool() {
  if (!open_) return;
  const std::uint32_t idle = static_cast<std::uint32_t>(idle_.size());
  const std::uint32_t min_idle = config_.min_idle();
  if (total_ < config_.maximum_pool_size && idle < min_idle) {
    for (std::uint32_t i = idle; i < min_idle; ++i) submit_add();
  }
}

void ConnectionPool::add_bag_item(std::size_t waiting) {
  if (open_ && waiting > add_queue_) submit_add();
}

void ConnectionPool::submit_add() {
  // The adder's queue holds maximumPoolSize tasks; more are discarded.
  if (add_queue_ >= config_.maximum_pool_size) return;
  ++add_queue_;
  if (!adder_running_) run_next_task();
}

void ConnectionPool::run_next_task() {
  while (add_queue_ > 0) {
    --add_queue_;
    if (should_continue_creating()) {
      adder_running_ = true;
      backoff_ = kFirstBackoff;
      creation_step();
      return;
    }
  }
  adder_running_ = false;
}

bool ConnectionPool::should_continue_creating() const {
  const std::size_t idle = idle_.size();
  return open_ && total_ < config_.maximum_pool_size && (idle < config_.min_idle() || waiters_size_ > idle);
}

void ConnectionPool::creation_step() {
  if (!should_continue_creating()) {
    run_next_task();
    return;
  }
  ++attempts_;
  if (metrics_ != nullptr) metrics_->metrics().add(metrics_->attempts, now());
  connecting_ = true;
  connecting_to_ = &endpoint_.resolve();
  const TcpResult r = TcpConnection::connect(config_.tcp, *connecting_to_, rtt(*connecting_to_),
                                             config_.connect_round_trips, config_.connect_timeout);
  const TcpError error = r.error;
  adder_event_ = after(r.after, "pool.connect", [this, error] { on_connect_done(error); });
}

void ConnectionPool::on_connect_done(TcpError error) {
  adder_event_ = {};
  connecting_ = false;
  if (error == TcpError::kNone && connecting_to_->peer_state() != PeerState::kUp) error = TcpError::kConnectTimeout;
  if (error == TcpError::kNone && !connecting_to_->open_connection()) error = TcpError::kTooManyConnections;
  if (error == TcpError::kNone) {
    add_connection();
    adder_event_ = after(kPauseAfterAdd, "pool.adder", [this] {
      adder_event_ = {};
      run_next_task();
    });
    return;
  }
  ++connect_failures_;
  if (metrics_ != nullptr) metrics_->metrics().add(metrics_->failures, now());
  const Duration wait = backoff_;
  backoff_ = std::min(kMaxBackoff, backoff_ * 2);
  adder_event_ = after(wait, "pool.adder", [this] {
    adder_event_ = {};
    creation_step();
  });
}

void ConnectionPool::housekeep() {
  ++housekeeping_runs_;
  if (config_.idle_timeout_applies()) {
    // Idle connections in bag order (oldest return first), down to minimumIdle.
    std::size_t to_remove = idle_.size() > config_.min_idle() ? idle_.size() - config_.min_idle() : 0;
    const std::vector<std::uint32_t> not_in_use = idle_;
    for (const std::uint32_t index : not_in_use) {
      if (to_remove == 0) break;
      if (now() - conns_[index].last_accessed > config_.idle_timeout) {
        close_connection(index, false);  // "(connection has passed idleTimeout)"
        --to_remove;
      }
    }
  }
  fill_pool();
  housekeeper_event_ = after(config_.housekeeping_period, "pool.housekeeping", [this] { housekeep(); });
}

}  // namespace drsim

#include "models/data/database.h"
#include "models/data/failover_candidate.h"

#include <algorithm>

#include "models/data/data_event_kinds.h"
#include "models/topology/network_model.h"
#include "sim/errors.h"
#include "sim/quote.h"
#include "sim/simulation.h"

namespace drsim {

namespace {

ZoneIndex resolve_zone(const Topology& topology, const std::string& database, const std::string& zone) {
  auto z = topology.find_zone(zone);
  if (!z) throw SimulationError("database " + quote(database) + ": unknown zone " + quote(zone));
  return *z;
}

std::string seconds(Duration d) { return format_seconds(d) + "s"; }

ServiceTimeConfig query_time_or_default(const std::optional<ServiceTimeConfig>& configured) {
  if (configured) return *configured;
  ServiceTimeConfig c;
  c.kind = "constant";
  c.value = std::chrono::milliseconds(1);
  return c;
}

}  // namespace

Database::Database(DatabaseConfig config, FailureDomains& domains, Duration metrics_window,
                   std::unique_ptr<ReplicationTransport> transport)
    : Component("database/" + config.name),
      config_(std::move(config)),
      domains_(domains),
      metrics_window_(metrics_window),
      transport_(std::move(transport)),
      mode_(config_.mode()),
      query_time_(query_time_or_default(config_.query_time)) {
  if (auto problems = config_.validate(); !problems.empty()) {
    throw SimulationError("database " + quote(config_.name) + ": " + problems[0].field + " " + problems[0].message);
  }
  const Topology& topology = domains_.topology();
  Member primary;
  primary.zone_name = config_.primary_zone;
  primary.zone = resolve_zone(topology, config_.name, primary.zone_name);
  primary.apply_time = config_.primary_apply_time;
  members_.push_back(std::move(primary));
  for (const auto& r : config_.replicas) {
    Member m;
    m.zone_name = r.zone;
    m.zone = resolve_zone(topology, config_.name, r.zone);
    m.apply_time = r.apply_time;
    members_.push_back(std::move(m));
  }
  if (!config_.monitor_zone.empty()) {
    monitor_zone_ = resolve_zone(topology, config_.name, config_.monitor_zone);
  } else if (members_.size() > 1) {
    monitor_zone_ = members_[1].zone;
  }
  if (!transport_) {
    transport_ =
        std::make_unique<FifoReplicationTransport>(domains_, config_.replication_bandwidth, config_.link_share.value);
  }
  // A stream the transport lost (a failed flow) is a replica it cannot reach, as when send() fails.
  transport_->on_lost([this](std::size_t m) { disconnect(m); });
}

Database::~Database() = default;

// ---- state queries ----

bool Database::member_up(std::size_t m) const { return !members_[m].killed && domains_.zone_up(members_[m].zone); }

bool Database::reachable(ZoneIndex a, ZoneIndex b) const { return domains_.network().path(a, b).reachable; }

bool Database::monitor_sees(std::size_t m) const {
  if (!member_up(m)) return false;
  // A monitor that is itself down or cut off cannot tell; the member counts as seen.
  if (!monitor_zone_ || !domains_.zone_up(*monitor_zone_)) return true;
  return reachable(*monitor_zone_, members_[m].zone);
}

bool Database::serving() const {
  return endpoint_ == primary_ && !fenced_ && !self_fenced_ && phase_ != Phase::kPromoting && member_up(primary_);
}

bool Database::primary_has_quorum() const {
  std::size_t reached = 0;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (member_up(m) && (m == primary_ || reachable(members_[primary_].zone, members_[m].zone))) ++reached;
  }
  return 2 * reached > members_.size();
}

Database::Lag Database::lag(std::size_t m) const {
  const Member& mem = members_[m];
  Lag out;
  out.connected = mem.connected;
  if (m == primary_) {
    out.applied = head_;
    out.applied_commit = head_ >= base_ ? entry(head_).commit : mem.applied_commit;
    return out;
  }
  out.applied = mem.applied;
  out.applied_commit = mem.applied_commit;
  out.writes = head_ - mem.applied;
  if (out.writes > 0) out.seconds = entry(head_).commit - mem.applied_commit;
  return out;
}

// ---- lifecycle ----

void Database::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  const Labels labels{{"database", config_.name}};
  c_commits_ = metrics_->counter("database.commits", labels);
  c_failed_ = metrics_->counter("database.failed_writes", labels);
  c_reads_ = metrics_->counter("database.reads", labels);
  c_failed_reads_ = metrics_->counter("database.failed_reads", labels);
  g_available_ = metrics_->gauge("database.available", labels, 1);
  g_pending_ = metrics_->gauge("database.pending_writes", labels);
  l_delay_ = metrics_->latency("database.replication_delay", labels);
  l_commit_ = metrics_->latency("database.commit_latency", labels);
  for (std::size_t m = 0; m < members_.size(); ++m) {
    Labels ml{{"database", config_.name}, {"member", std::to_string(m)}, {"zone", members_[m].zone_name}};
    members_[m].g_lag_s = metrics_->gauge("database.replication_lag_s", ml);
    members_[m].g_lag_writes = metrics_->gauge("database.replication_lag_writes", ml);
    members_[m].g_primary = metrics_->gauge("database.primary", ml, m == 0 ? 1 : 0);
    members_[m].g_connections = metrics_->gauge("database.connections", ml);
  }
  c_refused_connections_ = metrics_->counter("database.refused_connections", labels);
  s_failover_rpo_s_ = recorder().series("database.failover_rpo_s", labels);
  s_failover_rpo_writes_ = recorder().series("database.failover_rpo_writes", labels);
  domains_.on_change([this] { on_change(); });
}

void Database::start() {
  on_change();
  // A periodic task's first instant, uniform in its period (from the seed).
  const auto offset_in = [this](Duration period) {
    return Duration{static_cast<Duration::rep>(rng().uniform() * static_cast<double>(period.count()))};
  };
  if (config_.ship_interval) {
    schedule_after(offset_in(*config_.ship_interval), "database.ship_batch", [this] { ship_batch(); });
  }
  if (config_.lease_timeout) {
    const Duration interval = config_.renew_interval();
    lease_.emplace(*config_.lease_timeout, interval, offset_in(interval));
    check_lease();
  }
  if (config_.write_rate.per_second > 0) builtin_write();
}

void Database::stop() {
  metrics_->finish(now());
  const Labels labels{{"database", config_.name}};
  std::uint64_t rpo_writes = 0;
  double rpo_s = 0, rto_s = 0, rto_write_s = 0;
  for (const auto& f : failovers_) {
    rpo_writes += f.rpo_writes;
    rpo_s = std::max(rpo_s, to_seconds(f.rpo));
    rto_s = std::max(rto_s, to_seconds(f.switched - f.failed));
    if (f.first_write) rto_write_s = std::max(rto_write_s, to_seconds(*f.first_write - f.failed));
  }
  recorder().kpi("database.failovers", labels, static_cast<double>(failovers_.size()));
  recorder().kpi("database.rpo_writes", labels, static_cast<double>(rpo_writes));
  recorder().kpi("database.rpo_seconds", labels, rpo_s);
  recorder().kpi("database.rto_seconds", labels, rto_s);
  recorder().kpi("database.rto_first_write_seconds", labels, rto_write_s);
  recorder().kpi("database.commits", labels, static_cast<double>(commits_));
  recorder().kpi("database.failed_writes", labels, static_cast<double>(failed_writes_));
  recorder().kpi("database.peak_connections", labels, static_cast<double>(peak_connections_));
}

// ---- client connections ----

PoolEndpoint& Database::client_endpoint(ZoneIndex from) {
  if (from >= fronts_.size()) fronts_.resize(from + 1);
  if (!fronts_[from]) fronts_[from] = std::make_unique<DatabaseFrontEndpoint>(*this, from);
  return *fronts_[from];
}

DatabaseServerEndpoint& Database::server_endpoint(std::size_t m, ZoneIndex from) {
  const std::size_t i = static_cast<std::size_t>(from) * members_.size() + m;
  if (i >= servers_.size()) servers_.resize((static_cast<std::size_t>(from) + 1) * members_.size());
  if (!servers_[i]) {
    servers_[i] = std::make_unique<DatabaseServerEndpoint>(*this, m, from,
                                                           config_.name + "/" + std::to_string(m) + "@" +
                                                               members_[m].zone_name);
    servers_[i]->refresh(metrics_ ? now() : SimTime{});
  }
  return *servers_[i];
}

PeerState Database::member_state(std::size_t m, ZoneIndex from) const {
  const Member& mem = members_[m];
  if (!domains_.zone_up(mem.zone) || !reachable(from, mem.zone)) return PeerState::kBlackholed;
  if (mem.killed) return PeerState::kRefusing;
  // Only the writable primary keeps client sessions: a fenced or demoted
  // member's sessions are killed (by the proxy, or by the fencing itself).
  if (m != primary_ || fenced_ || self_fenced_) return PeerState::kRefusing;
  return PeerState::kUp;
}

std::optional<Duration> Database::member_round_trip(std::size_t m, ZoneIndex from) const {
  const NetworkPath& path = domains_.network().path(from, members_[m].zone);
  if (!path.reachable) return std::nullopt;
  return path.one_way * 2;
}

bool Database::accept_connection(std::size_t m) {
  Member& mem = members_[m];
  if (mem.connections >= config_.max_connections) {
    ++refused_connections_;
    if (metrics_) metrics_->add(c_refused_connections_, now());
    return false;
  }
  ++mem.connections;
  peak_connections_ = std::max(peak_connections_, mem.connections);
  if (metrics_) metrics_->set(mem.g_connections, now(), mem.connections);
  return true;
}

void Database::release_connection(std::size_t m, std::uint64_t incarnation) {
  Member& mem = members_[m];
  if (incarnation != mem.incarnation || mem.connections == 0) return;
  --mem.connections;
  if (metrics_) metrics_->set(mem.g_connections, now(), mem.connections);
}

void Database::restart_member(std::size_t m) {
  Member& mem = members_[m];
  ++mem.incarnation;
  mem.connections = 0;
  if (metrics_) metrics_->set(mem.g_connections, now(), 0);
}

void Database::refresh_endpoints() {
  const SimTime t = now();
  for (auto& server : servers_) {
    if (server) server->refresh(t);
  }
}

void Database::builtin_write() {
  write(config_.write_size.bytes);
  const auto interval = Duration{static_cast<std::int64_t>(1e9 / config_.write_rate.per_second)};
  schedule_after(interval, "database.write", [this] { builtin_write(); });
}

// ---- client operations ----

Database::WriteStatus Database::write(std::int64_t bytes, CommitCallback done) {
  if (!serving()) {
    ++failed_writes_;
    metrics_->add(c_failed_, now());
    return WriteStatus::kFailed;
  }
  ++head_;
  log_.push_back(Entry{now(), bytes, false});
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (m == primary_) continue;
    if (members_[m].connected && !config_.ship_interval) ship(m, head_, bytes);
    update_lag(m);
  }
  const bool waits = (mode_ == ReplicationMode::kSync) || (mode_ == ReplicationMode::kSemiSync && semi_sync_active_);
  if (!waits) {
    acknowledge(head_);
    next_unacked_ = head_ + 1;
    trim_log();
    return WriteStatus::kCommitted;
  }
  if (done) callbacks_.emplace(head_, std::move(done));
  advance_commits();
  metrics_->set(g_pending_, now(), static_cast<double>(pending_writes()));
  if (next_unacked_ > head_) return WriteStatus::kCommitted;
  arm_semi_sync_timer();
  return WriteStatus::kPending;
}

bool Database::read() {
  const bool ok = serving();
  metrics_->add(ok ? c_reads_ : c_failed_reads_, now());
  return ok;
}

void Database::acknowledge(std::uint64_t seq) {
  Entry& e = entry(seq);
  if (e.acked) return;
  e.acked = true;
  ++commits_;
  metrics_->add(c_commits_, now());
  metrics_->observe(l_commit_, now(), now() - e.commit);
  if (!failovers_.empty() && !failovers_.back().first_write && phase_ == Phase::kServing) {
    failovers_.back().first_write = now();
  }
  if (auto it = callbacks_.find(seq); it != callbacks_.end()) {
    CommitCallback cb = std::move(it->second);
    callbacks_.erase(it);
    cb(true);
  }
}

// ---- replication ----

void Database::ship(std::size_t m, std::uint64_t to_seq, std::int64_t bytes) {
  Member& mem = members_[m];
  const std::uint64_t epoch = mem.epoch;
  const Duration apply = mem.apply_time;
  const bool sent =
      transport_->send(m, members_[primary_].zone, mem.zone, bytes, now(), [this, m, epoch, to_seq, apply](SimTime t) {
        schedule_at(std::max(t, now()) + apply, "database.apply",
                    [this, m, epoch, to_seq] { applied(m, epoch, to_seq); });
      });
  if (!sent) {
    disconnect(m);
    return;
  }
  mem.shipped = to_seq;
}

void Database::ship_batch() {
  schedule_after(*config_.ship_interval, "database.ship_batch", [this] { ship_batch(); });
  if (!serving()) return;  // a dead primary ships nothing
  for (std::size_t m = 0; m < members_.size(); ++m) {
    Member& mem = members_[m];
    if (m == primary_ || !mem.connected || mem.shipped >= head_) continue;
    std::int64_t bytes = 0;
    for (std::uint64_t s = std::max({mem.shipped, mem.applied, base_ - 1}) + 1; s <= head_; ++s) bytes += entry(s).bytes;
    ship(m, head_, bytes);
  }
}

void Database::applied(std::size_t m, std::uint64_t epoch, std::uint64_t seq) {
  Member& mem = members_[m];
  if (epoch != mem.epoch || m == primary_ || seq <= mem.applied) return;
  mem.applied = seq;
  mem.applied_commit = entry(seq).commit;
  metrics_->observe(l_delay_, now(), now() - mem.applied_commit);
  update_lag(m);
  if (mode_ != ReplicationMode::kAsync) {
    const NetworkPath& back = domains_.network().path(mem.zone, members_[primary_].zone);
    if (back.reachable) {
      const std::uint64_t term = term_;
      schedule_after(back.one_way, "database.ack", [this, m, epoch, seq, term] {
        if (term == term_) acked(m, epoch, seq);
      });
    }
  }
  trim_log();
}

void Database::acked(std::size_t m, std::uint64_t epoch, std::uint64_t seq) {
  Member& mem = members_[m];
  if (epoch != mem.epoch || !member_up(primary_)) return;
  mem.acked = std::max(mem.acked, seq);
  if (mode_ == ReplicationMode::kSemiSync && !semi_sync_active_ && mem.acked >= head_) {
    semi_sync_active_ = true;
    log_event(event_kinds::database::kSemiSyncOn, "member " + std::to_string(m) + " (" + mem.zone_name + ") caught up");
  }
  advance_commits();
  metrics_->set(g_pending_, now(), static_cast<double>(pending_writes()));
}

void Database::advance_commits() {
  if (next_unacked_ > head_) return;
  const std::uint32_t needed = mode_ == ReplicationMode::kSync ? config_.required_acks() : 1;
  std::vector<std::uint64_t> acks;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (m != primary_) acks.push_back(members_[m].acked);
  }
  if (acks.size() < needed) return;
  std::nth_element(acks.begin(), acks.begin() + (needed - 1), acks.end(), std::greater<>());
  const std::uint64_t upto = std::min(acks[needed - 1], head_);
  while (next_unacked_ <= upto) acknowledge(next_unacked_++);
  arm_semi_sync_timer();
}

void Database::arm_semi_sync_timer() {
  if (mode_ != ReplicationMode::kSemiSync || !semi_sync_active_ || next_unacked_ > head_) return;
  if (sim().is_pending(semi_sync_timer_)) return;
  const SimTime due = entry(next_unacked_).commit + config_.semi_sync_timeout;
  semi_sync_timer_ = schedule_at(std::max(due, now()), "database.semi_sync_timeout", [this] { semi_sync_timeout(); });
}

void Database::semi_sync_timeout() {
  if (!semi_sync_active_ || next_unacked_ > head_) return;
  if (entry(next_unacked_).commit + config_.semi_sync_timeout > now()) {
    arm_semi_sync_timer();
    return;
  }
  semi_sync_active_ = false;
  log_event(event_kinds::database::kSemiSyncOff, "no replica ack for " + seconds(config_.semi_sync_timeout) + "; " +
                                                     std::to_string(pending_writes()) +
                                                     " waiting writes commit asynchronously");
  while (next_unacked_ <= head_) acknowledge(next_unacked_++);
  metrics_->set(g_pending_, now(), 0);
}

void Database::update_lag(std::size_t m) {
  const Lag l = lag(m);
  metrics_->set(members_[m].g_lag_writes, now(), static_cast<double>(l.writes));
  metrics_->set(members_[m].g_lag_s, now(), to_seconds(l.seconds));
}

void Database::trim_log() {
  std::uint64_t keep_from = head_ + 1;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (m != primary_) keep_from = std::min(keep_from, members_[m].applied + 1);
  }
  keep_from = std::min(keep_from, next_unacked_);
  // Keep the entry of each member's last applied write: its commit time is kept in the member too, but the
  // primary's lag read-out needs entry(head_).
  if (keep_from > base_ + 1024) {
    const std::uint64_t drop = std::min<std::uint64_t>(keep_from - 1 - base_, log_.size() > 0 ? log_.size() - 1 : 0);
    log_.erase(log_.begin(), log_.begin() + static_cast<std::ptrdiff_t>(drop));
    base_ += drop;
  }
}

void Database::disconnect(std::size_t m) {
  Member& mem = members_[m];
  if (!mem.connected) return;
  mem.connected = false;
  ++mem.epoch;
  mem.acked = std::min(mem.acked, mem.applied);
  transport_->reset(m);
  log_event(event_kinds::database::kReplicaDisconnected, "member " + std::to_string(m) + " (" + mem.zone_name +
                                                             ") at write " + std::to_string(mem.applied) + " of " +
                                                             std::to_string(head_));
}

void Database::connect(std::size_t m) {
  Member& mem = members_[m];
  mem.connected = true;
  ++mem.epoch;
  mem.shipped = mem.applied;
  transport_->reset(m);
  // It acknowledges its position at once (the replica's handshake).
  mem.acked = mem.applied;
  if (mem.applied < head_) {
    std::int64_t bytes = 0;
    for (std::uint64_t s = std::max(mem.applied + 1, base_); s <= head_; ++s) bytes += entry(s).bytes;
    log_event(event_kinds::database::kReplicaConnected, "member " + std::to_string(m) + " (" + mem.zone_name +
                                                            ") catching up " + std::to_string(head_ - mem.applied) +
                                                            " writes");
    ship(m, head_, bytes);
  } else {
    log_event(event_kinds::database::kReplicaConnected,
              "member " + std::to_string(m) + " (" + mem.zone_name + ") up to date");
  }
}

void Database::check_streams() {
  const bool source_up = member_up(primary_) && !fenced_;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (m == primary_) continue;
    const bool can = source_up && member_up(m) && reachable(members_[primary_].zone, members_[m].zone);
    if (members_[m].connected && !can)
      disconnect(m);
    else if (!members_[m].connected && can)
      connect(m);
  }
  if (mode_ != ReplicationMode::kAsync) advance_commits();
}

// ---- failure and failover ----

void Database::on_change() {
  // A member whose zone comes back runs a new process: a new incarnation.
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const bool down = !domains_.zone_up(members_[m].zone);
    if (!down && members_[m].zone_down) restart_member(m);
    members_[m].zone_down = down;
  }
  transport_->refresh();
  check_lease();
  check_primary();
  check_streams();
  if (awaiting_candidate_) begin_promotion();
  refresh_available();
}

void Database::refresh_available() {
  metrics_->set(g_available_, now(), serving() ? 1 : 0);
  refresh_endpoints();
}

void Database::check_primary() {
  const bool healthy = monitor_sees(primary_) && !fenced_ && !self_fenced_;
  if (phase_ == Phase::kServing && !healthy && endpoint_ == primary_) {
    phase_ = Phase::kFailed;
    failed_at_ = now();
    // In-flight replication from a dead primary is lost.
    if (!member_up(primary_)) {
      for (std::size_t m = 0; m < members_.size(); ++m) {
        if (m != primary_) disconnect(m);
      }
    }
    const std::int64_t interval = to_ns(config_.health_check_interval);
    const std::int64_t first_failed = (to_ns(now()) + interval - 1) / interval * interval;
    const SimTime detect_at{Duration{first_failed + (config_.failure_threshold - 1) * interval}};
    log_event(event_kinds::database::kPrimaryFailed, "member " + std::to_string(primary_) + " (" +
                                                         members_[primary_].zone_name + "); detection due at " +
                                                         format_clock(detect_at));
    detect_event_ = schedule_at(detect_at, "database.detect", [this] { detected(); });
  } else if (phase_ == Phase::kFailed && healthy) {
    cancel(detect_event_);
    phase_ = Phase::kServing;
    log_event(event_kinds::database::kPrimaryRecovered, "before detection, after " + seconds(now() - failed_at_));
  }
}

void Database::check_lease() {
  if (!lease_ || !member_up(primary_)) return;
  const bool quorum = primary_has_quorum();
  if (quorum == lease_quorum_) return;
  lease_quorum_ = quorum;
  cancel(lease_event_);
  if (!quorum) {
    const SimTime expiry = lease_->lose_quorum(now());
    if (expiry <= now()) {
      self_fence();
    } else {
      lease_event_ = schedule_at(expiry, "database.lease_expired", [this] { self_fence(); });
    }
  } else {
    lease_->regain_quorum(now());
    if (self_fenced_) {
      lease_event_ = schedule_at(lease_->next_renewal(now()), "database.lease_renewed", [this] { renew_lease(); });
    }
  }
}

void Database::self_fence() {
  if (self_fenced_ || lease_quorum_) return;
  self_fenced_ = true;
  log_event(event_kinds::database::kSelfFenced,
            "member " + std::to_string(primary_) + " (" + members_[primary_].zone_name + "): its lease of " +
                seconds(lease_->timeout()) + " ran out without a majority of the members");
  check_primary();
  refresh_available();
}

void Database::renew_lease() {
  if (!self_fenced_ || !primary_has_quorum()) return;
  lease_->acquire(now());
  self_fenced_ = false;
  log_event(event_kinds::database::kLeaseRenewed,
            "member " + std::to_string(primary_) + " (" + members_[primary_].zone_name + ") takes writes again");
  check_primary();
  refresh_available();
}

void Database::detected() {
  if (phase_ != Phase::kFailed) return;
  phase_ = Phase::kDetected;
  log_event(event_kinds::database::kFailureDetected,
            "primary member " + std::to_string(primary_) + " (" + members_[primary_].zone_name + ") failed " +
                std::to_string(config_.failure_threshold) + " health checks, " + seconds(now() - failed_at_) +
                " after the failure");
  FailoverRecord rec;
  rec.from = primary_;
  rec.failed = failed_at_;
  rec.detected = now();
  failovers_.push_back(rec);
  if (config_.failover == "automatic") begin_promotion();
}

void Database::failover() {
  if (phase_ == Phase::kServing) {
    log_event(event_kinds::database::kFailoverIgnored, "the primary is healthy (planned switch-over is not modelled)");
    return;
  }
  if (phase_ == Phase::kFailed) {
    cancel(detect_event_);
    phase_ = Phase::kDetected;
    FailoverRecord rec;
    rec.from = primary_;
    rec.failed = failed_at_;
    rec.detected = now();
    failovers_.push_back(rec);
    log_event(event_kinds::database::kFailureDetected,
              "by the operator, " + seconds(now() - failed_at_) + " after the failure");
  }
  if (phase_ == Phase::kDetected) begin_promotion();
}

std::optional<std::size_t> Database::pick_candidate() const {
  std::vector<ZoneIndex> zones;
  zones.reserve(members_.size());
  for (const Member& m : members_) zones.push_back(m.zone);
  return pick_failover_candidate(
      config_, domains_.topology(), zones, primary_, [this](std::size_t m) { return monitor_sees(m); },
      [this](std::size_t a, std::size_t b) { return members_[a].applied > members_[b].applied; });
}

void Database::begin_promotion() {
  awaiting_candidate_ = false;
  fenced_ = true;  // the old primary no longer takes writes, wherever it is
  const auto candidate = pick_candidate();
  if (!candidate) {
    awaiting_candidate_ = true;
    phase_ = Phase::kDetected;
    log_event(event_kinds::database::kPromotionBlocked, "no reachable replica to promote");
    refresh_available();
    return;
  }
  phase_ = Phase::kPromoting;
  candidate_ = candidate;
  // The old primary stops streaming: nothing it commits from here on exists.
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (m != primary_) disconnect(m);
  }
  promote_event_ = schedule_after(config_.promotion_time, "database.promote", [this] {
    if (!candidate_ || !monitor_sees(*candidate_)) {
      begin_promotion();
      return;
    }
    promote(*candidate_);
  });
  refresh_available();
}

void Database::promote(std::size_t c) {
  Member& cand = members_[c];
  FailoverRecord& rec = failovers_.back();
  rec.to = c;
  rec.promoted = now();
  // RPO: what clients were told is committed and the new primary lacks.
  std::uint64_t lost = 0;
  SimTime last_lost{};
  for (std::uint64_t s = std::max(cand.applied + 1, base_); s <= head_; ++s) {
    if (entry(s).acked) {
      ++lost;
      last_lost = entry(s).commit;
    }
  }
  rec.rpo_writes = lost;
  rec.rpo = lost > 0 ? last_lost - cand.applied_commit : Duration::zero();
  recorder().record(s_failover_rpo_s_, now(), to_seconds(rec.rpo));
  recorder().record(s_failover_rpo_writes_, now(), static_cast<double>(lost));
  // Unacknowledged writes beyond the new head are discarded.
  for (auto it = callbacks_.lower_bound(cand.applied + 1); it != callbacks_.end();) {
    CommitCallback cb = std::move(it->second);
    it = callbacks_.erase(it);
    cb(false);
  }
  const std::uint64_t old_head = head_;
  head_ = cand.applied;
  while (!log_.empty() && base_ + log_.size() - 1 > head_) log_.pop_back();
  next_unacked_ = head_ + 1;
  const std::size_t old = primary_;
  // The old primary becomes a replica at the new head (rewound).
  members_[old].applied = std::min(head_, old_head);
  members_[old].applied_commit = cand.applied_commit;
  for (auto& m : members_) {
    if (m.applied > head_) {
      m.applied = head_;
      m.applied_commit = cand.applied_commit;
    }
    m.acked = m.applied;
    m.shipped = m.applied;
    m.connected = false;
    ++m.epoch;
  }
  ++term_;
  primary_ = c;
  fenced_ = false;
  if (lease_) {
    // The new primary took a fresh lease when it was promoted.
    cancel(lease_event_);
    lease_->acquire(now());
    self_fenced_ = false;
    lease_quorum_ = true;
    check_lease();
  }
  semi_sync_active_ = true;
  phase_ = Phase::kSwitching;
  candidate_.reset();
  for (std::size_t m = 0; m < members_.size(); ++m) {
    transport_->reset(m);
    metrics_->set(members_[m].g_primary, now(), m == primary_ ? 1 : 0);
    update_lag(m);
  }
  log_event(event_kinds::database::kPromoted, "member " + std::to_string(c) + " (" + cand.zone_name + ") at write " +
                                                  std::to_string(head_) + " of " + std::to_string(old_head) + ": RPO " +
                                                  std::to_string(lost) + " writes, " + seconds(rec.rpo));
  check_streams();
  schedule_after(config_.endpoint_switch, "database.switch", [this] { switch_endpoint(); });
  refresh_available();
}

void Database::switch_endpoint() {
  endpoint_ = primary_;
  phase_ = Phase::kServing;
  FailoverRecord& rec = failovers_.back();
  rec.switched = now();
  log_event(event_kinds::database::kSwitched,
            "clients reach member " + std::to_string(primary_) + " (" + members_[primary_].zone_name + "): RTO " +
                seconds(now() - rec.failed) + " (detection " + seconds(rec.detected - rec.failed) + ", promotion " +
                seconds(rec.promoted - rec.detected) + ", switch " + seconds(now() - rec.promoted) + ")");
  refresh_available();
  // The new primary may itself have failed meanwhile.
  check_primary();
}

void Database::kill_primary() {
  members_[primary_].killed = true;
  log_event(event_kinds::database::kKilled,
            "primary member " + std::to_string(primary_) + " (" + members_[primary_].zone_name + ")");
  on_change();
}

void Database::restart_killed() {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (!members_[m].killed) continue;
    members_[m].killed = false;
    restart_member(m);
  }
  on_change();
}

}  // namespace drsim

#pragma once
// A replicated database on the event timeline (docs/sources.md sections 4 and 5):
// what a zone or region loss costs in lost writes (RPO) and in time without
// a writable primary (RTO).
//
//   commit        a write commits on the primary at once (async), after one
//                 replica's ack (semi-sync; after semiSyncTimeout without an
//                 ack the primary continues asynchronously until a replica
//                 catches up, as MySQL), or after syncAcks replicas' acks
//                 (sync: never without them)
//   replication   every write ships to every connected replica through a
//                 ReplicationTransport (FIFO drained at the stream's
//                 bandwidth, then the one-way latency); the replica applies
//                 it applyTime later and acknowledges (ack: one-way back).
//                 With shipInterval (async) the writes leave in one batch
//                 per interval instead, so a replica lags by up to it. A
//                 replica that cannot be reached (zone down, link cut) loses
//                 what was in flight and catches up in one batch on return
//   failure       the primary is down (its zone, or database:kill) or the
//                 health checker cannot reach it. Checks run every
//                 healthCheckInterval from t = 0; the failure is detected at
//                 the failureThreshold-th failed check. In-flight replication
//                 from a dead primary is lost (a crash, not a clean stop)
//   failover      automatic: at detection; manual: at database:failover. The
//                 old primary is fenced; the most up-to-date reachable
//                 replica (preferredZone, then preferredRegion first) is
//                 promoted promotionTime later; clients reach it after
//                 endpointSwitch. Writes in between fail (counted)
//   self-fencing  with leaseTimeout, a primary that has not reached a
//                 majority of the members (itself included) since its last
//                 lease renewal stops acknowledging writes when the lease
//                 runs out (primary_lease.h), and takes them again once it
//                 renews the lease; its health checks fail meanwhile
//   RPO           at promotion: the writes acknowledged to clients that the
//                 promoted replica had not applied (count), and the commit
//                 time of the last of them minus that of the replica's last
//                 applied write (seconds). They are discarded (the log is
//                 rewound to the new primary's, as pg_rewind would)
//   RTO           failure -> endpoint switch; also failure -> first write
//                 committed on the new primary
//
// Recorded per window (labels database; member and zone per member):
// database.commits, database.failed_writes, database.reads,
// database.failed_reads, database.available (0/1), database.pending_writes,
// database.replication_lag_s and database.replication_lag_writes per member
// (0 for the primary), database.primary per member (0/1), and latencies
// database.replication_delay_* (commit to apply) and database.commit_latency_*.
// With client pools (database_endpoint.h): database.connections per member
// (client sessions open on it) and database.refused_connections ("Too many
// connections"); KPI database.peak_connections (the most on any member).
// Per failover, a point at the promotion: database.failover_rpo_s and
// database.failover_rpo_writes (what that promotion lost).
// KPIs: database.rpo_writes (sum over failovers), database.rpo_seconds,
// database.rto_seconds, database.rto_first_write_seconds (worst), database.failovers,
// database.commits, database.failed_writes.
// Events: the database.* kinds (models/data/data_event_kinds.h).
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/data/database_config.h"
#include "models/data/database_endpoint.h"
#include "models/data/primary_lease.h"
#include "models/data/replication.h"
#include "models/metrics/windowed_metrics.h"
#include "models/topology/failure_domains.h"
#include "sim/component.h"

namespace drsim {

class Database : public Component {
 public:
  // transport: null for the closed-form FifoReplicationTransport.
  Database(DatabaseConfig config, FailureDomains& domains, Duration metrics_window = std::chrono::seconds(1),
           std::unique_ptr<ReplicationTransport> transport = nullptr);
  ~Database() override;

  enum class WriteStatus { kFailed, kCommitted, kPending };
  // Told once a pending write commits (true) or is discarded unacknowledged
  // by a failover (false).
  using CommitCallback = CommitNotice;

  // A client's write of `bytes`: fails at once when the endpoint leads to no
  // serving primary; commits at once in async mode; otherwise pends until
  // the acks arrive (done is called then).
  WriteStatus write(std::int64_t bytes, CommitCallback done = {});
  // A read on the primary: true when the endpoint leads to a serving one.
  bool read();

  // ---- client connections (connection pools) ----
  // The endpoint a pod in topology zone `from` connects to: the name in front
  // of the members (see database_endpoint.h). Stable for the Database's life.
  PoolEndpoint& client_endpoint(ZoneIndex from);
  // Member m as seen from zone `from`.
  DatabaseServerEndpoint& server_endpoint(std::size_t m, ZoneIndex from);
  // The member new connections reach now.
  std::size_t endpoint_member() const { return endpoint_; }
  PeerState member_state(std::size_t m, ZoneIndex from) const;
  // Bumped each time the member's process starts again (its zone came back,
  // or it was restarted after database:kill).
  std::uint64_t member_incarnation(std::size_t m) const { return members_[m].incarnation; }
  // Round trip from a zone to the member's; nullopt when unreachable.
  std::optional<Duration> member_round_trip(std::size_t m, ZoneIndex from) const;
  Duration draw_query_time(RngStream& rng) const { return query_time_.sample(rng); }
  // A session opens on member m: false beyond maxConnections.
  bool accept_connection(std::size_t m);
  // A session of that incarnation closes (ignored for an earlier one).
  void release_connection(std::size_t m, std::uint64_t incarnation);
  std::uint32_t connections(std::size_t m) const { return members_[m].connections; }
  std::uint32_t peak_connections() const { return peak_connections_; }
  std::uint64_t refused_connections() const { return refused_connections_; }

  // ---- faults and operator actions ----
  // database:failover: promote now (manual mode, or before detection).
  void failover();
  // database:kill: the current primary's process dies; restart_killed()
  // brings every killed member back (as a replica if it lost its role).
  void kill_primary();
  void restart_killed();

  // ---- read-outs ----
  const DatabaseConfig& config() const { return config_; }
  std::size_t member_count() const { return members_.size(); }  // 0 = first primary, then the replicas
  std::size_t primary() const { return primary_; }
  const std::string& member_zone(std::size_t m) const { return members_[m].zone_name; }
  bool serving() const;  // clients reach a primary that takes writes
  bool semi_sync_active() const { return semi_sync_active_; }
  std::uint64_t head() const { return head_; }  // last sequence written on the primary
  std::uint64_t commits() const { return commits_; }
  std::uint64_t failed_writes() const { return failed_writes_; }
  std::uint64_t pending_writes() const { return head_ + 1 - next_unacked_; }
  struct Lag {
    std::uint64_t applied = 0;  // sequence of the last applied write
    SimTime applied_commit{};   // its commit time on the primary
    std::uint64_t writes = 0;   // head - applied
    Duration seconds{};         // commit time of head - that of applied
    bool connected = false;
  };
  Lag lag(std::size_t member) const;

  struct FailoverRecord {
    std::size_t from = 0, to = 0;  // members
    SimTime failed{}, detected{}, promoted{}, switched{};
    std::optional<SimTime> first_write;
    std::uint64_t rpo_writes = 0;
    Duration rpo{};
  };
  const std::vector<FailoverRecord>& failovers() const { return failovers_; }

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Member {
    ZoneIndex zone = 0;
    std::string zone_name;
    Duration apply_time{};
    bool killed = false;
    bool connected = false;   // the primary streams to it
    std::uint64_t epoch = 0;  // bumped when its stream restarts: stale deliveries are dropped
    std::uint64_t applied = 0;
    std::uint64_t shipped = 0;  // the last write sent to it (shipInterval batches)
    SimTime applied_commit{};
    std::uint64_t acked = 0;  // what the primary knows it has
    std::uint64_t incarnation = 0;
    bool zone_down = false;      // its zone was down at the last on_change
    std::uint32_t connections = 0;  // client sessions of this incarnation
    GaugeId g_lag_s, g_lag_writes, g_primary, g_connections;
  };
  struct Entry {
    SimTime commit{};
    std::int64_t bytes = 0;
    bool acked = false;
  };
  enum class Phase { kServing, kFailed, kDetected, kPromoting, kSwitching };

  bool member_up(std::size_t m) const;
  bool reachable(ZoneIndex a, ZoneIndex b) const;
  bool monitor_sees(std::size_t m) const;
  // The primary reaches a majority of the members, itself included (its lease holds).
  bool primary_has_quorum() const;
  Entry& entry(std::uint64_t seq) { return log_[seq - base_]; }
  const Entry& entry(std::uint64_t seq) const { return log_[seq - base_]; }

  void on_change();
  void check_streams();
  void check_primary();
  // Self-fencing (config leaseTimeout): schedules the lease's expiry when the
  // primary loses its quorum, and its renewal when the quorum is back.
  void check_lease();
  void self_fence();
  void renew_lease();
  void disconnect(std::size_t m);
  void connect(std::size_t m);
  void ship(std::size_t m, std::uint64_t to_seq, std::int64_t bytes);
  void ship_batch();
  void applied(std::size_t m, std::uint64_t epoch, std::uint64_t seq);
  void acked(std::size_t m, std::uint64_t epoch, std::uint64_t seq);
  void advance_commits();
  void acknowledge(std::uint64_t seq);
  void arm_semi_sync_timer();
  void semi_sync_timeout();
  void detected();
  void begin_promotion();
  std::optional<std::size_t> pick_candidate() const;
  void promote(std::size_t candidate);
  void switch_endpoint();
  void update_lag(std::size_t m);
  void refresh_available();
  // The process starts again: a new incarnation without sessions.
  void restart_member(std::size_t m);
  void refresh_endpoints();
  void trim_log();
  void builtin_write();

  DatabaseConfig config_;
  FailureDomains& domains_;
  Duration metrics_window_;
  std::unique_ptr<ReplicationTransport> transport_;
  ReplicationMode mode_;
  std::optional<ZoneIndex> monitor_zone_;

  std::vector<Member> members_;
  std::size_t primary_ = 0;
  std::size_t endpoint_ = 0;  // the member clients are directed to
  bool fenced_ = false;       // the primary at the endpoint was demoted
  std::uint64_t term_ = 0;    // bumped at every promotion: stale acks are dropped

  std::deque<Entry> log_;  // sequences base_ .. head_
  std::uint64_t base_ = 1;
  std::uint64_t head_ = 0;
  std::uint64_t next_unacked_ = 1;
  std::map<std::uint64_t, CommitCallback> callbacks_;
  bool semi_sync_active_ = true;
  EventId semi_sync_timer_;

  Phase phase_ = Phase::kServing;
  SimTime failed_at_{};
  EventId detect_event_, promote_event_;
  std::optional<PrimaryLease> lease_;
  EventId lease_event_;
  bool lease_quorum_ = true;  // the primary reached its quorum at the last check
  bool self_fenced_ = false;  // its lease ran out: it takes no writes
  std::optional<std::size_t> candidate_;
  bool awaiting_candidate_ = false;
  std::vector<FailoverRecord> failovers_;

  ServiceTimeDistribution query_time_;
  // Per zone, created on first use: the front and one server view per member.
  std::vector<std::unique_ptr<DatabaseFrontEndpoint>> fronts_;
  std::vector<std::unique_ptr<DatabaseServerEndpoint>> servers_;  // [zone * members + member]
  std::uint32_t peak_connections_ = 0;
  std::uint64_t refused_connections_ = 0;
  CounterId c_refused_connections_;
  SeriesId s_failover_rpo_s_, s_failover_rpo_writes_;

  std::uint64_t commits_ = 0, failed_writes_ = 0;
  std::optional<WindowedMetrics> metrics_;
  CounterId c_commits_, c_failed_, c_reads_, c_failed_reads_;
  GaugeId g_available_, g_pending_;
  LatencyId l_delay_, l_commit_;
};

}  // namespace drsim

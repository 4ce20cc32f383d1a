#pragma once
// A replicated database (spec.databases[]): a primary and replicas placed in
// zones, how commits wait for replicas, and how a failed primary is replaced.
// Plain data described by field lists (sim/fields.h); Database runs it.
//
// Defaults and where they come from:
//   semiSyncTimeout 10s      MySQL rpl_semi_sync_master_timeout = 10000 ms
//   healthCheckInterval 10s  ProxySQL mysql-monitor_ping_interval = 10000 ms;
//   failureThreshold 3       ProxySQL mysql-monitor_ping_max_failures = 3
//                            (Patroni's ttl of 30 s gives the same 30 s)
//   promotionTime 10s        an assumption: Orchestrator/Patroni promote a
//                            replica in seconds once they decide to
//   endpointSwitch 30s       a DNS TTL: AWS advises clients of RDS Multi-AZ
//                            not to cache the endpoint's DNS for more than
//                            30 s
//   applyTime 1ms            an assumption: relay-log write + apply of one
//                            small transaction on the replica
//   writeSize 1KiB           an assumption: one OLTP transaction's binlog/WAL
//   maxConnections 151       MySQL max_connections default (PostgreSQL: 100)
//   queryTime 1ms constant   an assumption: one indexed OLTP statement
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "models/load/service_time.h"
#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

struct DatabaseReplicaConfig {
  std::string zone;
  Duration apply_time = std::chrono::milliseconds(1);

  static constexpr std::string_view kTypeName = "DatabaseReplica";
  static constexpr auto fields() {
    return std::tuple{
        field("zone", &DatabaseReplicaConfig::zone, "The zone this replica runs in.", kRequired),
        field("applyTime", &DatabaseReplicaConfig::apply_time,
              "Time for the replica to persist and apply one received write (relay log + apply); it "
              "acknowledges after it.",
              kNonNegative),
    };
  }
};

enum class ReplicationMode { kAsync, kSemiSync, kSync };

struct DatabaseConfig {
  std::string name;
  std::string primary_zone;
  std::vector<DatabaseReplicaConfig> replicas;
  // Apply time of the primary when it is demoted and rejoins as a replica.
  Duration primary_apply_time = std::chrono::milliseconds(1);

  std::string replication = "async";  // async | semi-sync | sync
  // sync: replica acknowledgements a commit needs; 0 means a majority of the
  // members (primary included): floor((1 + replicas) / 2).
  std::uint32_t sync_acks = 0;
  // MySQL rpl_semi_sync_master_timeout (default 10000 ms).
  Duration semi_sync_timeout = std::chrono::seconds(10);
  // The replication stream's capacity. Absent: the narrowest link on the
  // route between the two zones (unlimited within a region) times linkShare.
  std::optional<Bandwidth> replication_bandwidth;
  Ratio link_share{1.0};
  // async: batches every shipInterval instead of one write at a time (log
  // shipping, Kafka MirrorMaker's poll and flush cycle). Absent: per write.
  std::optional<Duration> ship_interval;

  // The built-in writer (tests, or a database no service drives): writes of
  // writeSize at writeRate, evenly spaced. 0: only write() commits.
  Rate write_rate{0};
  ByteSize write_size{1024};

  // What clients' connection pools meet (database_endpoint.h): sessions per
  // server, and the server-side time of one query.
  std::uint32_t max_connections = 151;
  std::optional<ServiceTimeConfig> query_time;  // absent: constant 1 ms

  // Failover.
  std::string failover = "automatic";  // automatic | manual (waits for database:failover)
  Duration health_check_interval = std::chrono::seconds(10);
  std::uint32_t failure_threshold = 3;
  Duration promotion_time = std::chrono::seconds(10);
  Duration endpoint_switch = std::chrono::seconds(30);
  // Where the health checks run from; empty: the first replica's zone.
  std::string monitor_zone;
  // Self-fencing (primary_lease.h): the primary stops taking writes once it
  // has not reached a majority of the members for leaseTimeout, renewing its
  // lease every leaseRenewInterval (default leaseTimeout / 3). Absent: a
  // cut-off primary takes writes until a failover fences it.
  std::optional<Duration> lease_timeout;
  std::optional<Duration> lease_renew_interval;
  Duration renew_interval() const;
  // Candidates in this zone (else region) are promoted first, as MHA's
  // candidate_master; among equals, the most up to date wins.
  std::string preferred_zone;
  std::string preferred_region;

  ReplicationMode mode() const;
  // The replica acknowledgements a commit waits for in sync mode.
  std::uint32_t required_acks() const;

  static constexpr std::string_view kTypeName = "Database";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &DatabaseConfig::name, "Database name, unique in the scenario.", kRequired),
        field("primaryZone", &DatabaseConfig::primary_zone, "The zone the primary starts in.", kRequired),
        field("replicas", &DatabaseConfig::replicas, "The replicas and their zones.", kRequired),
        field("primaryApplyTime", &DatabaseConfig::primary_apply_time,
              "Apply time of the first primary once demoted and rejoined as a replica.", kNonNegative),
        field("replication", &DatabaseConfig::replication,
              "async (commit on the primary alone), semi-sync (wait for one replica's ack, degrade to async "
              "after semiSyncTimeout, as MySQL) or sync (wait for syncAcks replicas; no commit without them)."),
        field("syncAcks", &DatabaseConfig::sync_acks,
              "sync: replica acknowledgements per commit; 0: a majority of the members, primary included."),
        field("semiSyncTimeout", &DatabaseConfig::semi_sync_timeout,
              "semi-sync: wait for an ack this long, then continue asynchronously (MySQL "
              "rpl_semi_sync_master_timeout, 10 s).",
              kPositive),
        field("replicationBandwidth", &DatabaseConfig::replication_bandwidth,
              "Capacity of each replication stream; absent: the route's narrowest link times linkShare.", kPositive),
        field("linkShare", &DatabaseConfig::link_share, "The share of a link's bandwidth one replication stream gets.",
              kPositive | kAtMostOne),
        field("shipInterval", &DatabaseConfig::ship_interval,
              "async: the primary ships the writes to each replica in batches every shipInterval (log shipping, "
              "Kafka MirrorMaker's poll and flush cycle), the first at an offset drawn uniformly in the interval; "
              "a replica lags by up to the interval (absent: every write ships as it commits).",
              kPositive),
        field("writeRate", &DatabaseConfig::write_rate, "Built-in writer: writes per second (0: none).", kNonNegative),
        field("writeSize", &DatabaseConfig::write_size, "Bytes replicated per write.", kPositive),
        field("maxConnections", &DatabaseConfig::max_connections,
              "Client sessions each server accepts; a pool's connect beyond it fails with \"Too many "
              "connections\" (MySQL max_connections, 151).",
              kPositive),
        field("queryTime", &DatabaseConfig::query_time,
              "Server-side time of one client query (default: constant 1 ms)."),
        field("failover", &DatabaseConfig::failover,
              "automatic (promote once the failure is detected) or manual (wait for a database:failover "
              "action)."),
        field("healthCheckInterval", &DatabaseConfig::health_check_interval,
              "Time between health checks of the primary (ProxySQL monitor_ping_interval, 10 s).", kPositive),
        field("failureThreshold", &DatabaseConfig::failure_threshold,
              "Failed checks in a row that declare the primary dead (ProxySQL monitor_ping_max_failures, 3).",
              kPositive),
        field("promotionTime", &DatabaseConfig::promotion_time,
              "From the decision to fail over to the replica accepting writes.", kNonNegative),
        field("endpointSwitch", &DatabaseConfig::endpoint_switch,
              "From the promotion to clients reaching the new primary (DNS TTL or proxy reconfiguration).",
              kNonNegative),
        field("monitorZone", &DatabaseConfig::monitor_zone,
              "Where the health checks run from (default: the first replica's zone)."),
        field("leaseTimeout", &DatabaseConfig::lease_timeout,
              "Self-fencing: the primary stops acknowledging writes (and refuses sessions) once it has not "
              "reached a majority of the members, itself included, for this long since its last lease renewal, "
              "as a Raft leader with CheckQuorum steps down after an election timeout or Patroni demotes a "
              "leader that cannot renew its key within ttl (30 s); it takes the lease again at the first renewal "
              "after its quorum is back. Absent: a cut-off primary takes writes until a failover fences it.",
              kPositive),
        field("leaseRenewInterval", &DatabaseConfig::lease_renew_interval,
              "Self-fencing: how often the primary renews its lease (Patroni loop_wait, 10 s for a ttl of 30 s; "
              "default leaseTimeout / 3), the first renewal at an offset drawn uniformly in the interval.",
              kPositive),
        field("preferredZone", &DatabaseConfig::preferred_zone, "Promote a replica in this zone first."),
        field("preferredRegion", &DatabaseConfig::preferred_region,
              "Promote a replica in this region first (after preferredZone)."),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim

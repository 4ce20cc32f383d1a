#pragma once
// Database calls in `drsim check` (analysis/n_plus_one.h): where a database
// stands in a failure case once the simulator has settled, and how long one
// call holds a pooled connection. Which replica a failover promotes is the
// simulator's own rule (models/data/failover_candidate.h); the rest restates
// what the simulator does (models/data/database.cc, connection_pool.cc,
// tcp_connection.cc, replication.cc, database_endpoint.cc); the comments on
// the functions name the mechanics and the approximations.
//
// The pool itself is modelled by the caller as a station of the traffic
// equations: one per service x zone x database, each up pod an M/M/c queue
// with c = maximumPoolSize connections and the mean hold computed here as its
// service time (capacity_check.h). The database servers have no capacity
// limit in the simulator (a query's server time is a delay drawn per query,
// whatever the load), so they are not stations.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "models/data/database_config.h"
#include "models/data/pool_config.h"
#include "models/service/service_config.h"
#include "models/topology/topology.h"
#include "sim/time.h"

namespace drsim {

// A database in one failure case, as Database ends up after the case's
// failure (failover done, endpoint switched).
struct DatabaseCase {
  // The member that takes reads and writes (0: the configured primary, then
  // the replicas in order); none when there is no writable primary.
  std::optional<std::size_t> primary;
  ZoneIndex primary_zone = 0;  // valid with primary
  bool failed_over = false;    // primary is a promoted replica
  // Replicas streaming from the primary: up and reachable from it
  // (Database::check_streams). They are the ones a commit can wait for.
  std::vector<std::size_t> connected;
  std::string problem;  // why there is no writable primary
};

// Database::check_primary and detected, closed form: the primary stays while
// the health checks see it (from monitorZone, default the first replica's
// zone; a monitor that is down sees everything). Otherwise, with failover
// automatic, the replica promoted is the simulator's own choice
// (models/data/failover_candidate.h: the replicas the monitor sees, narrowed
// to preferredZone, then preferredRegion, the most up to date). Here the
// most up to date is the one the old primary's writes reached first (one way + transmission + applyTime, in
// the nominal topology), ties to the first listed: exact while writes flow
// faster than those delays differ; with rarer writes the simulator's tie
// (equal applied positions) goes to the first listed. Manual failover waits
// for an operator's database:failover: no writable primary.
DatabaseCase database_case(const DatabaseConfig& db, const Topology& topology, const TopologyState& state);

// How long a write waits on the primary for its commit (Database::write to
// the acknowledgement): none in async mode and in semi-sync mode without a
// connected replica (after semiSyncTimeout the primary goes on alone: the
// steady state). Semi-sync: the first replica's ack; sync: the syncAcks-th.
// One replica's ack comes after one way to it, the write's transmission over
// the stream's bandwidth (replicationBandwidth, or the route's narrowest link
// times linkShare; unlimited within a region), its applyTime and one way
// back (FifoReplicationTransport; the queueing behind other writes on the
// stream is neglected). Throws nothing; `never` is set when a sync commit
// can never collect its acks (fewer connected replicas than syncAcks).
struct CommitWait {
  std::optional<Duration> wait;  // none: commits at once
  bool never = false;
};
CommitWait commit_wait(const DatabaseConfig& db, const DatabaseCase& state, const Topology& topology,
                       const TopologyState& topology_state);

// Mean server time of one query: queryTime, 1 ms constant by default.
Duration mean_query_time(const DatabaseConfig& db);
// Its variance, seconds squared (constant 0, exponential mean^2, lognormal
// (e^(sigma^2) - 1) mean^2, empirical the samples').
double query_time_variance(const DatabaseConfig& db);

// HikariCP validates a borrowed connection idle longer than
// aliveBypassWindow (a ping: one round trip). The pool hands out the
// connection returned last (a LIFO idle list), so its idle time is the time
// since the last return; with returns at `borrows_per_s` (Poisson) the
// chance that it exceeds the window is exp(-rate x window). Approximate: it
// neglects that the connection returned last may have been taken again.
// A borrower that waited gets a connection just returned: never validated,
// also neglected (it matters only when the pool is busy).
double validation_probability(double borrows_per_s, const PoolConfig& pool);

// Mean time one database call holds its connection, with the round trip from
// the pod's zone to the primary (the route's, without jitter or loss, as
// Database::member_round_trip): the validation ping with probability
// `validate`, then the queries one after another (ConnectionPool::
// start_query): each read is a round trip plus the server's query time; each
// write, when the commit waits for replicas, half a round trip, the commit
// wait and half a round trip back (the server time is not added then:
// on_commit answers at the ack), and otherwise a round trip plus the query
// time like a read.
Duration connection_hold(const CallConfig& call, Duration rtt, Duration query_time, const CommitWait& commit,
                         double validate);
// The hold's variance, seconds squared: the query times' (the round trips
// and commit waits are taken as constant, as the simulator's are) and the
// validation ping's (there or not). The pool's waits use it (capacity_check.h
// Station::service_scv).
double connection_hold_variance(const CallConfig& call, Duration rtt, double query_variance, const CommitWait& commit,
                                double validate);

}  // namespace drsim

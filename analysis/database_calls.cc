#include "analysis/database_calls.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/data/failover_candidate.h"
#include "models/load/service_time.h"

namespace drsim {

namespace {

// One way along the route, as NetworkModel's path: half its round trip.
std::optional<Duration> one_way(const Topology& topology, const TopologyState& state, ZoneIndex a, ZoneIndex b) {
  const auto route = topology.route(a, b, state);
  if (!route) return std::nullopt;
  return route->rtt / 2;
}

// FifoReplicationTransport::bandwidth_bps: 0 means unlimited.
double stream_bps(const DatabaseConfig& db, const Topology& topology, const TopologyState& state, ZoneIndex from,
                  ZoneIndex to) {
  if (db.replication_bandwidth) return db.replication_bandwidth->bits_per_second;
  const auto route = topology.route(from, to, state);
  if (!route) return 0;
  double narrowest = std::numeric_limits<double>::infinity();
  for (LinkIndex l : route->links)
    narrowest = std::min(narrowest, topology.config().links[l].bandwidth.bits_per_second);
  return std::isinf(narrowest) ? 0.0 : narrowest * db.link_share.value;
}

// Write -> applied on member m -> its ack back at the primary.
std::optional<Duration> ack_delay(const DatabaseConfig& db, const Topology& topology, const TopologyState& state,
                                  ZoneIndex primary, ZoneIndex member_zone, Duration apply) {
  const auto there = one_way(topology, state, primary, member_zone);
  const auto back = one_way(topology, state, member_zone, primary);
  if (!there || !back) return std::nullopt;
  const double bps = stream_bps(db, topology, state, primary, member_zone);
  Duration transmit{0};
  if (bps > 0) {
    transmit =
        Duration{static_cast<std::int64_t>(std::llround(static_cast<double>(db.write_size.bytes) * 8.0 / bps * 1e9))};
  }
  return *there + transmit + apply + *back;
}

struct Members {
  std::vector<ZoneIndex> zone;
  std::vector<Duration> apply;
};

// Members as Database numbers them: the configured primary, then the replicas.
Members members_of(const DatabaseConfig& db, const Topology& topology) {
  Members m;
  auto add = [&](const std::string& zone, Duration apply) {
    const auto z = topology.find_zone(zone);
    if (!z)
      throw std::invalid_argument("drsim check: database \"" + db.name + "\" names unknown zone \"" + zone + "\"");
    m.zone.push_back(*z);
    m.apply.push_back(apply);
  };
  add(db.primary_zone, db.primary_apply_time);
  for (const DatabaseReplicaConfig& r : db.replicas) add(r.zone, r.apply_time);
  return m;
}

}  // namespace

DatabaseCase database_case(const DatabaseConfig& db, const Topology& topology, const TopologyState& state) {
  const Members members = members_of(db, topology);
  const std::size_t n = members.zone.size();
  std::optional<ZoneIndex> monitor;
  if (!db.monitor_zone.empty()) {
    monitor = topology.find_zone(db.monitor_zone);
    if (!monitor) {
      throw std::invalid_argument("drsim check: database \"" + db.name + "\" names unknown zone \"" + db.monitor_zone +
                                  "\"");
    }
  } else if (n > 1) {
    monitor = members.zone[1];
  }
  auto up = [&](std::size_t m) { return static_cast<bool>(state.zone_up[members.zone[m]]); };
  auto sees = [&](std::size_t m) {  // Database::monitor_sees
    if (!up(m)) return false;
    if (!monitor || !state.zone_up[*monitor]) return true;
    return topology.route(*monitor, members.zone[m], state).has_value();
  };

  DatabaseCase out;
  if (sees(0)) {
    out.primary = 0;
  } else if (db.failover != "automatic") {
    out.problem = "primary lost, failover manual: waits for database:failover";
    return out;
  } else {
    // The most up to date at the failure: the one the old primary's writes reached first.
    const TopologyState nominal = topology.nominal_state();
    std::vector<Duration> reached(n);
    for (std::size_t m = 1; m < n; ++m) {
      const auto there = one_way(topology, nominal, members.zone[0], members.zone[m]);
      const double bps = stream_bps(db, topology, nominal, members.zone[0], members.zone[m]);
      reached[m] = there.value_or(Duration::max() / 4) + members.apply[m];
      if (bps > 0) {
        reached[m] += Duration{static_cast<std::int64_t>(static_cast<double>(db.write_size.bytes) * 8.0 / bps * 1e9)};
      }
    }
    const std::optional<std::size_t> best = pick_failover_candidate(
        db, topology, members.zone, 0, sees, [&](std::size_t a, std::size_t b) { return reached[a] < reached[b]; });
    if (!best) {
      out.problem = "primary lost, no replica to promote";
      return out;
    }
    out.primary = best;
    out.failed_over = true;
  }
  out.primary_zone = members.zone[*out.primary];
  for (std::size_t m = 0; m < n; ++m) {
    if (m == *out.primary || !up(m)) continue;
    if (topology.route(out.primary_zone, members.zone[m], state)) out.connected.push_back(m);
  }
  return out;
}

CommitWait commit_wait(const DatabaseConfig& db, const DatabaseCase& c, const Topology& topology,
                       const TopologyState& topology_state) {
  CommitWait out;
  const ReplicationMode mode = db.mode();
  if (!c.primary || mode == ReplicationMode::kAsync) return out;
  const Members members = members_of(db, topology);
  std::vector<Duration> acks;
  for (std::size_t m : c.connected) {
    if (auto d = ack_delay(db, topology, topology_state, c.primary_zone, members.zone[m], members.apply[m]))
      acks.push_back(*d);
  }
  std::sort(acks.begin(), acks.end());
  if (mode == ReplicationMode::kSemiSync) {
    if (!acks.empty()) out.wait = acks.front();  // else: semi-sync off, commits alone
    return out;
  }
  const std::size_t needed = db.required_acks();
  if (needed == 0 || acks.size() < needed) {
    out.never = true;
    return out;
  }
  out.wait = acks[needed - 1];
  return out;
}

Duration mean_query_time(const DatabaseConfig& db) {
  if (!db.query_time) return std::chrono::milliseconds(1);
  return ServiceTimeDistribution(*db.query_time).mean();
}

double query_time_variance(const DatabaseConfig& db) {
  if (!db.query_time) return 0;
  const ServiceTimeConfig& q = *db.query_time;
  const double mean = to_seconds(mean_query_time(db));
  if (q.kind == "constant") return 0;
  if (q.kind == "lognormal" && q.p50 && q.p99) {
    const double sigma = std::log(to_seconds(*q.p99) / to_seconds(*q.p50)) / kZ099;
    return (std::exp(sigma * sigma) - 1.0) * mean * mean;
  }
  if (q.kind == "empirical" && !q.samples.empty()) {
    double sum = 0;
    for (Duration d : q.samples) sum += (to_seconds(d) - mean) * (to_seconds(d) - mean);
    return sum / static_cast<double>(q.samples.size());
  }
  return mean * mean;  // exponential
}

double validation_probability(double borrows_per_s, const PoolConfig& pool) {
  if (borrows_per_s <= 0) return 1.0;
  return std::exp(-borrows_per_s * to_seconds(pool.alive_bypass_window));
}

Duration connection_hold(const CallConfig& call, Duration rtt, Duration query_time, const CommitWait& commit,
                         double validate) {
  const std::uint32_t queries = std::max<std::uint32_t>(call.queries, 1);
  const std::uint32_t writes = std::min(call.writes, queries);
  const double ping = validate * to_seconds(rtt);
  const double read = to_seconds(rtt) + to_seconds(query_time);
  // A write waiting for acks: rtt / 2 there, the wait, rtt / 2 back.
  const double write = commit.wait ? to_seconds(rtt) + to_seconds(*commit.wait) : read;
  const double total = ping + (queries - writes) * read + writes * write;
  return Duration{static_cast<std::int64_t>(std::llround(total * 1e9))};
}

double connection_hold_variance(const CallConfig& call, Duration rtt, double query_variance, const CommitWait& commit,
                                double validate) {
  const std::uint32_t queries = std::max<std::uint32_t>(call.queries, 1);
  const std::uint32_t writes = std::min(call.writes, queries);
  // Writes waiting for acks are answered at the ack: no query time in them.
  const std::uint32_t timed = commit.wait ? queries - writes : queries;
  const double r = to_seconds(rtt);
  return validate * (1.0 - validate) * r * r + timed * query_variance;
}

}  // namespace drsim

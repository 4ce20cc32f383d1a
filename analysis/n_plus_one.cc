#include "analysis/n_plus_one.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "analysis/blast_radius.h"
#include "analysis/capacity_check.h"
#include "analysis/database_calls.h"
#include "analysis/expected_network_delay.h"
#include "analysis/operation_latency.h"
#include "analysis/population_routing.h"
#include "analysis/queueing.h"
#include "analysis/zone_routing.h"
#include "models/topology/topology.h"

namespace drsim {

Rate peak_rate(const RateProfileConfig& p) {
  if (p.kind == "constant") return p.rate.value_or(Rate{});
  if (p.kind == "stages") {
    Rate peak = p.start_rate.value_or(Rate{});
    for (const auto& s : p.stages) peak = std::max(peak, s.target);
    return peak;
  }
  if (p.kind == "diurnal") {
    const double base = p.base.value_or(Rate{}).per_second;
    return Rate{base * (1.0 + p.amplitude.value_or(Ratio{}).value)};
  }
  Rate peak{};
  for (const auto& point : p.points) peak = std::max(peak, point.rate);
  return peak;
}

bool NPlusOneReport::any_overloaded() const {
  return std::any_of(cases.begin(), cases.end(), [](const FailureCase& c) { return c.overloaded; });
}

double MeanTime::seconds() const {
  if (value_) return to_seconds(*value_);
  return unbounded_ ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
}

std::vector<ServiceWorstCase> NPlusOneReport::worst_per_service() const {
  std::vector<ServiceWorstCase> out;
  std::map<std::string, std::size_t> index;
  for (const FailureCase& c : cases) {
    std::map<std::size_t, bool> over_here;  // service -> some station of it overloaded in this case
    for (const StationRow& s : c.stations) {
      const auto [it, added] = index.try_emplace(s.service, out.size());
      if (added) out.push_back(ServiceWorstCase{.service = s.service, .utilization = -1.0});
      ServiceWorstCase& w = out[it->second];
      over_here[it->second] = over_here[it->second] || s.overloaded;
      if (!(s.utilization > w.utilization)) continue;
      w.case_name = c.name;
      w.zone = s.zone;
      w.utilization = s.utilization;
      w.headroom = s.headroom;
      w.holding_lower_bound = s.holding_lower_bound;
      w.stable = s.stable;
      w.overloaded = s.overloaded;
    }
    for (const auto& [service, over] : over_here) out[service].overloaded_cases += over ? 1 : 0;
  }
  return out;
}

namespace {

constexpr std::size_t kNoNode = std::numeric_limits<std::size_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Zone affinity's spill probabilities are iterated until they move less than
// this, or the rounds run out (then the check is not trustworthy: an error).
constexpr double kSpillTolerance = 1e-10;
constexpr int kMaxSpillRounds = 2000;

// One pod pool per service x zone x database it queries: a station after the
// service stations (node kNoNode when the zone has no up pod).
struct PoolNode {
  std::size_t service = 0;
  std::size_t zone = 0;  // index into the service's zones
  std::size_t database = 0;
  std::size_t node = kNoNode;
  PoolConfig pool;
  std::optional<Duration> rtt;  // pod zone -> primary; none: unreachable or no primary
  double validate = 0;          // chance that a borrow pings first
};

// A call edge on which zone affinity offers the callee's zone in the caller's
// zone first: `calls` per request served by `caller`.
struct LocalTry {
  std::size_t caller = 0;
  std::size_t callee = 0;  // node
  double calls = 0;
};

// Round trips between zones, shared by every failure case: computed once per
// pair of zones that some call or population uses, on the nominal state. That
// is exact for the N+1 cases: a zone is a leaf of the topology graph (joined
// to its region's hub only), a hub stays up when its zones go down (it still
// forwards between links), and the cases leave every link up, so a route
// between two up zones is the same in every case; a case only checks that
// both ends are up. (A table of zones x zones per case was quadratic in
// memory and cubic in time over the cases: 30,000 zones ran out of memory.)
class RouteCache {
 public:
  explicit RouteCache(const Topology& topology) : topology_(topology), nominal_(topology.nominal_state()) {}

  // Mean round trip with the links' jitter and loss (service calls); nullopt
  // when unreachable.
  std::optional<Duration> expected(ZoneIndex from, ZoneIndex to, const TopologyState& state) {
    if (!state.zone_up[from] || !state.zone_up[to]) return std::nullopt;
    const auto [it, added] = expected_.try_emplace(key(from, to));
    if (added) it->second = expected_round_trip(topology_, nominal_, from, to);
    return it->second;
  }

  // The route's round trip, without jitter or loss (the database pools').
  std::optional<Duration> route(ZoneIndex from, ZoneIndex to, const TopologyState& state) {
    if (!state.zone_up[from] || !state.zone_up[to]) return std::nullopt;
    const auto [it, added] = route_.try_emplace(key(from, to));
    if (added) {
      if (const auto r = topology_.route(from, to, nominal_)) it->second = r->rtt;
    }
    return it->second;
  }

 private:
  static std::uint64_t key(ZoneIndex from, ZoneIndex to) {
    return (static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint64_t>(to);
  }

  const Topology& topology_;
  const TopologyState nominal_;
  std::unordered_map<std::uint64_t, std::optional<Duration>> expected_, route_;
};

// What every failure case shares: routes, the populations' geo-routing region
// shares (per population, filled on first use), and the nominal partitions
// for the blast radius. Each depends on the topology and the configuration
// only, not on which zones are down.
struct CaseShared {
  CaseShared(const Topology& topology, std::size_t populations, bool scenario_has_kubernetes,
             std::vector<std::vector<double>> shares)
      : routes(topology),
        region_shares(populations),
        partitions(topology.partitions(topology.nominal_state())),
        kubernetes(scenario_has_kubernetes),
        operation_shares(std::move(shares)) {}
  RouteCache routes;
  std::vector<std::optional<RegionShares>> region_shares;
  std::vector<std::optional<std::size_t>> partitions;
  bool kubernetes;  // settles each service's discovery auto
  // Per service, the share of its requests asking for each of its operations (operation_shares()).
  std::vector<std::vector<double>> operation_shares;
};

// One failure case: the deployed services, their stations, and the network
// of calls between them, rebuilt for every round of the spill fixed point.
class CaseModel {
 public:
  CaseModel(const Topology& topology, const TopologyState& state, const std::vector<ServiceConfig>& services,
            const std::vector<ClientPopulationConfig>& load, const std::vector<DatabaseConfig>& databases,
            CaseShared& shared)
      : topology_(topology),
        state_(state),
        load_(load),
        databases_(databases),
        routes_(shared.routes),
        region_shares_(shared.region_shares) {
    for (const DatabaseConfig& db : databases_) {
      db_by_name_.emplace(db.name, db_cases_.size());
      db_cases_.push_back(database_case(db, topology, state));
      commits_.push_back(commit_wait(db, db_cases_.back(), topology, state));
    }
    for (const ServiceConfig& s : services) {
      by_name_.emplace(s.name, services_.size());
      services_.push_back(deploy(s, topology, state, shared.kubernetes));
      any_affinity_ = any_affinity_ || s.zone_affinity;
      shares_.push_back(shared.operation_shares[services_.size() - 1]);
      operation_means_.emplace_back();
      // CPU seconds of a request's own work over the mix: each operation's rate times its mean service time.
      double cpu_s = 0;
      for (std::size_t op = 0; op < s.operation_count(); ++op) {
        const double share = s.operations.empty() ? 1.0 : shares_.back()[op];
        cpu_s += share * static_cast<double>(s.cpu_millicores_of(op)) / 1000.0 *
                 to_seconds(ServiceTimeDistribution(s.service_time_of(op)).mean());
      }
      cpu_per_request_.push_back(cpu_s);
      if (s.operations.empty()) continue;
      // A mix of operations: the station's mean service time is the mixture's (exact for its utilisation).
      // The operations' means are kept: every round of the fixed point builds the calls to them again.
      double mean = 0;
      for (std::size_t op = 0; op < s.operation_count(); ++op) {
        operation_means_.back().push_back(ServiceTimeDistribution(s.service_time_of(op)).mean());
        mean += shares_.back()[op] * to_seconds(operation_means_.back()[op]);
      }
      services_.back().mean_service = Duration{std::max<std::int64_t>(1, std::llround(mean * 1e9))};
    }
    for (std::size_t s = 0; s < services_.size(); ++s) {
      const DeployedService& d = services_[s];
      node_of_.emplace_back(d.zones.size(), kNoNode);
      for (std::size_t z = 0; z < d.zones.size(); ++z) {
        if (d.up_pods[z] == 0) continue;
        node_of_[s][z] = nodes_.size();
        nodes_.emplace_back(s, z);
        const ServiceConfig& c = *d.config;
        Station station;
        station.servers = c.concurrency;
        station.mean_service = d.mean_service;
        // 64-bit: a concurrency of 2^32 - 1 plus a queue limit overflows 32 bits. An event loop's queue limit
        // bounds the requests waiting for a place in flight, not for a thread: its in-flight limit is checked
        // on the solution instead (station_rows).
        if (c.queue_limit && !c.event_loop()) station.capacity = std::size_t{c.concurrency} + *c.queue_limit;
        station.replicas = d.up_pods[z];
        // Thread per request holds its worker through the calls; an event loop's thread only computes.
        station.holds_worker = !c.event_loop();
        stations_.push_back(station);
        // A call to one of its operations starts at that operation's own service time less the mixture's;
        // update_operation_deltas() moves it to the operation's own response less the station's.
        callee_delta_.emplace_back();
        for (const Duration mean : operation_means_[s]) callee_delta_.back().push_back(mean - d.mean_service);
        any_operations_ = any_operations_ || !operation_means_[s].empty();
      }
    }
    add_pools();
  }

  FailureCase solve(std::string name, double target) {
    FailureCase out;
    out.name = std::move(name);
    CapacityReport report;
    double previous_change = kInf;
    bool damp = false;
    for (int round = 1;; ++round) {
      build();
      // The rows use no visit counts: skip their solve per entry point.
      report = check_capacity(graph_, stations_, external_, CapacityOptions{.visits = false});
      if (!report.ok() || (!any_affinity_ && pools_.empty() && !any_operations_)) break;
      double change = any_affinity_ ? update_spills(report, damp) : 0.0;
      // The pools' validation pings depend on their borrow rates (a second
      // unknown of the same fixed point, settled in the same rounds).
      change = std::max(change, update_pools(&report));
      // And a call to an operation waits for that operation's own response, which depends on the waits.
      if (any_operations_) change = std::max(change, update_operation_deltas(report, damp));
      if (change < kSpillTolerance) break;
      if (change > 0.9 * previous_change) damp = true;
      previous_change = change;
      if (round >= kMaxSpillRounds) {
        // Reported in the case (its rows left empty), not thrown: the other
        // cases still stand.
        char text[96];
        std::snprintf(text, sizeof text, " did not converge in %d rounds (still moving by %.3g)", kMaxSpillRounds,
                      change);
        report.status = TrafficStatus::kNotConverged;
        report.error = "zone affinity spill-over, pool validation and operations' response times" + std::string(text);
        break;
      }
    }
    out.notes = notes_;
    out.overloaded = !notes_.empty();
    if (!report.ok()) {
      out.error = report.error;
      out.overloaded = true;
    }
    station_rows(report, target, out);
    pool_rows(report, target, out);
    population_rows(report, out);
    operation_rows(report, out);
    return out;
  }

 private:
  // The population's split over its entry service's zones in this case.
  TrafficSplit split_of(std::size_t population, std::size_t entry) {
    const ClientPopulationConfig& pop = load_[population];
    std::optional<RegionShares>& shares = region_shares_[population];
    if (pop.routing && !shares) shares = population_region_shares(pop, services_[entry], topology_);
    return population_split(pop, services_[entry], topology_, shares ? *shares : RegionShares{});
  }

  std::string node_name(std::size_t node) const {
    const auto [s, z] = nodes_[node];
    return services_[s].config->name + "@" + services_[s].config->replicas[z].zone;
  }

  // Mean round trip between two zones; nullopt when unreachable.
  std::optional<Duration> round_trip(ZoneIndex from, ZoneIndex to) { return routes_.expected(from, to, state_); }

  // The simulator's pools reach a database member at the route's round trip,
  // without the jitter and loss that service calls sample
  // (Database::member_round_trip).
  std::optional<Duration> route_rtt(ZoneIndex from, ZoneIndex to) { return routes_.route(from, to, state_); }

  std::size_t database_index(const std::string& name) const {
    const auto it = db_by_name_.find(name);
    if (it == db_by_name_.end()) throw std::invalid_argument("drsim check: unknown database \"" + name + "\"");
    return it->second;
  }

  std::string pool_name(const PoolNode& p) const {
    const DeployedService& d = services_[p.service];
    return d.config->name + "@" + d.config->replicas[p.zone].zone + " pool " + databases_[p.database].name;
  }

  // A pool station per service x zone x database called, after the service
  // stations: each up pod's pool is one replica of it, its connections the
  // servers. Its service time (the mean hold) is set by update_pools().
  void add_pools() {
    for (std::size_t s = 0; s < services_.size(); ++s) {
      const DeployedService& d = services_[s];
      std::vector<std::size_t> called;
      for_each_call(s, [&](const CallConfig& call, double) {
        if (call.database.empty()) return;
        const std::size_t db = database_index(call.database);
        if (std::find(called.begin(), called.end(), db) == called.end()) called.push_back(db);
      });
      for (std::size_t db : called) {
        for (std::size_t z = 0; z < d.zones.size(); ++z) {
          PoolNode p;
          p.service = s;
          p.zone = z;
          p.database = db;
          p.pool = d.config->pool_towards(databases_[db].name);
          if (db_cases_[db].primary) p.rtt = route_rtt(d.zones[z], db_cases_[db].primary_zone);
          if (node_of_[s][z] != kNoNode) {
            p.node = nodes_.size() + pool_stations_;
            ++pool_stations_;
            Station station;
            station.servers = p.pool.maximum_pool_size;
            station.replicas = d.up_pods[z];
            stations_.push_back(station);
          }
          pools_.push_back(p);
        }
      }
    }
    update_pools(nullptr);
  }

  // The calls from a pool's service to its database whose borrows reach the
  // pool: its reads always, its writes unless they can never commit.
  bool reaches_pool(const CallConfig& call, const PoolNode& p) const {
    return call.database == databases_[p.database].name && p.rtt && !(call.writes > 0 && commits_[p.database].never);
  }

  // Sets every pool's validation chance from its borrow rate per pod and its
  // mean hold (the count-weighted mean over the calls sharing it: exact for
  // the pool's load, and for the caller's time when the calls are
  // sequential). Returns the largest change of the validation chance.
  double update_pools(const CapacityReport* report) {
    double change = 0;
    for (PoolNode& p : pools_) {
      if (p.node == kNoNode) continue;
      const double borrows = report ? report->nodes[p.node].offered.per_second / stations_[p.node].replicas : 0.0;
      const double validate = validation_probability(borrows, p.pool);
      change = std::max(change, std::abs(validate - p.validate));
      p.validate = validate;
      const DatabaseConfig& db = databases_[p.database];
      // The calls' holds as one mixture: its mean and second moment.
      double weighted = 0, second = 0, weight = 0;
      for_each_call(p.service, [&](const CallConfig& call, double share) {
        if (!reaches_pool(call, p)) return;
        const CommitWait& commit = commits_[p.database];
        const double hold = to_seconds(connection_hold(call, *p.rtt, mean_query_time(db), commit, validate));
        const double variance = connection_hold_variance(call, *p.rtt, query_time_variance(db), commit, validate);
        const double made = share * call.count * call.probability.value;  // calls per request of the service
        weighted += made * hold;
        second += made * (variance + hold * hold);
        weight += made;
      });
      if (weight > 0) {
        const double mean = weighted / weight;
        stations_[p.node].service_scv = std::max(0.0, second / weight - mean * mean) / (mean * mean);
      }
      // No call reaches the pool (no primary, unreachable): it gets no
      // borrows, and a nominal 1 ns keeps the station well-formed.
      stations_[p.node].mean_service =
          weight > 0 ? Duration{std::max<std::int64_t>(1, std::llround(weighted / weight * 1e9))} : Duration{1};
    }
    return change;
  }

  const PoolNode& pool_of(std::size_t service, std::size_t zone, std::size_t database) const {
    for (const PoolNode& p : pools_) {
      if (p.service == service && p.zone == zone && p.database == database) return p;
    }
    throw std::logic_error("drsim check: no pool for a database call");  // add_pools() made one per call
  }

  // A database call: to the pod's pool station, whose response (borrow wait
  // and hold) the caller's worker waits for; no network round trip on top
  // (the hold has the queries' round trips).
  void add_database_call(std::size_t node, const CallConfig& call, double count, std::vector<Call>& group) {
    const auto [s, z] = nodes_[node];
    const std::size_t db = database_index(call.database);
    const PoolNode& p = pool_of(s, z, db);
    const std::size_t pool = p.node;
    const std::string& name = databases_[db].name;
    const DatabaseCase& state = db_cases_[db];
    if (!state.primary) {
      // The endpoint leads to no writable primary: reads and writes fail
      // (in the simulator after the driver's timeouts; taken here as at once).
      note("calls from " + node_name(node) + " to database " + name + " fail: no writable primary (" + state.problem +
           ")");
      return;
    }
    Call routed;
    routed.count = count;
    if (!p.rtt) {
      note("calls from " + node_name(node) + " to database " + name + " are lost: zone unreachable");
      routed.routes.push_back(CallRoute{pool, 0.0, Duration::zero()});
    } else if (call.writes > 0 && commits_[db].never) {
      note("writes from " + node_name(node) + " to database " + name + " never commit: sync replication needs " +
           std::to_string(databases_[db].required_acks()) + " replica acks, " + std::to_string(state.connected.size()) +
           " connected");
      routed.routes.push_back(CallRoute{pool, 0.0, Duration::zero()});
    } else {
      routed.target = pool;
    }
    group.push_back(std::move(routed));
  }

  // Every pod opens up to maximumPoolSize sessions on the primary; beyond
  // maxConnections the connects fail ("Too many connections").
  void note_connection_limits() {
    for (std::size_t db = 0; db < databases_.size(); ++db) {
      if (!db_cases_[db].primary) continue;
      std::uint64_t sessions = 0;
      for (const PoolNode& p : pools_) {
        if (p.database == db && p.node != kNoNode)
          sessions += std::uint64_t{stations_[p.node].replicas} * p.pool.maximum_pool_size;
      }
      if (sessions > databases_[db].max_connections) {
        note("database " + databases_[db].name + ": the pods' pools may open " + std::to_string(sessions) +
             " connections, above its maxConnections " + std::to_string(databases_[db].max_connections) +
             " (connects beyond it fail: Too many connections)");
      }
    }
  }

  std::size_t service_index(const std::string& name) const {
    const auto it = by_name_.find(name);
    if (it == by_name_.end()) throw std::invalid_argument("drsim check: unknown service \"" + name + "\"");
    return it->second;
  }

  void note(std::string text) {
    if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(std::move(text));
  }

  // The station network with the current spill probabilities.
  void build() {
    graph_ = CallGraph{};
    origins_.assign(nodes_.size(), {});
    notes_.clear();
    local_tries_.clear();
    for (std::size_t node = 0; node < nodes_.size(); ++node) graph_.add_node(node_name(node));
    for (const PoolNode& p : pools_) {
      if (p.node != kNoNode) graph_.add_node(pool_name(p));
    }
    for (std::size_t node = 0; node < nodes_.size(); ++node) add_calls(node);
    note_connection_limits();

    external_.assign(stations_.size(), Rate{});
    local_external_.assign(nodes_.size(), 0.0);
    unserved_.assign(load_.size(), 0.0);
    for (std::size_t p = 0; p < load_.size(); ++p) {
      const ClientPopulationConfig& pop = load_[p];
      const std::size_t entry = service_index(pop.service);
      const TrafficSplit split = split_of(p, entry);
      const auto from = population_zone(pop, topology_);
      const double rate = peak_rate(pop.load).per_second;
      double delivered = 0;
      for (std::size_t z = 0; z < split.share.size(); ++z) {
        if (split.share[z] <= 0) continue;
        if (from && !round_trip(*from, services_[entry].zones[z])) continue;  // lost: the clients time out
        const std::size_t node = node_of_[entry][z];
        external_[node].per_second += rate * split.share[z];
        local_external_[node] += rate * split.tried_local[z];
        delivered += split.share[z];
      }
      // Shares that add up to 1 but for rounding leave nothing unserved.
      unserved_[p] = delivered < 1.0 - 1e-9 ? rate * (1.0 - delivered) : 0.0;
    }
  }

  // The node's calls, in order: consecutive parallel calls make one parallel
  // group, consecutive sequential ones a sequential group (their times add).
  // A service with operations makes each operation's calls on that
  // operation's share of its requests: a sequential call's share folds into
  // its count, a parallel group carries it as its weight.
  void add_calls(std::size_t node) {
    const auto [s, z] = nodes_[node];
    const DeployedService& caller = services_[s];
    const ZoneIndex from = caller.zones[z];
    std::vector<Call> group;
    // Per call of the group, the operation it asks of its target (operation_rows()).
    CallGroupOrigin origin;
    bool parallel = false;
    auto flush = [&] {
      if (group.empty()) return;
      if (parallel) {
        graph_.add_parallel(node, std::move(group), origin.share);
      } else {
        graph_.add_sequential(node, std::move(group));
      }
      group.clear();
      origins_[node].push_back(origin);
      origin.callee_operations.clear();
    };
    for (std::size_t op = 0; op < caller.config->operation_count(); ++op) {
      const double share = shares_[s][op];
      if (share <= 0) continue;
      flush();  // an operation's groups are its own
      origin.operation = op;
      origin.share = share;
      for (const CallConfig& call : caller.config->calls_of(op)) {
        if (call.parallel != parallel) {
          flush();
          parallel = call.parallel;
        }
        const double made = share * call.count * call.probability.value;  // calls per request of the service
        // In a parallel group every call is made, count times, on the group's share of the requests.
        const double count = call.parallel ? call.count : made;
        if (!call.database.empty()) {
          const std::size_t before = group.size();
          add_database_call(node, call, count, group);
          if (group.size() > before) origin.callee_operations.push_back(CallGroupOrigin::kNoOperation);
          continue;
        }
        const std::size_t c = service_index(call.service);
        const DeployedService& callee = services_[c];
        const TrafficSplit split = sidecar_split(callee, from);  // zone_split unless through sidecars
        Call routed;
        routed.count = count;
        const std::size_t k = callee.config->operation_index(call.operation).value_or(0);
        for (std::size_t cz = 0; cz < split.share.size(); ++cz) {
          if (split.share[cz] <= 0) continue;
          const std::size_t target = node_of_[c][cz];
          const auto rtt = round_trip(from, callee.zones[cz]);
          if (!rtt) {
            // Lost on the way: the caller's worker waits for an answer that never comes.
            note("calls from " + node_name(node) + " to " + node_name(target) + " are lost: zone unreachable");
            routed.routes.push_back(CallRoute{target, 0.0, Duration::zero()});
            continue;
          }
          // The called operation's own response at the target, against the target's end-to-end time.
          const Duration delta = callee_delta_[target].empty() ? Duration::zero() : callee_delta_[target][k];
          routed.routes.push_back(CallRoute{target, split.share[cz], *rtt, delta});
          if (split.tried_local[cz] > 0) local_tries_.push_back(LocalTry{node, target, made * split.tried_local[cz]});
        }
        if (routed.routes.empty()) {
          // No up pod anywhere: the call fails at once, and so does the request.
          note("calls from " + node_name(node) + " to " + callee.config->name +
               " fail at once: no up pod (requests fail with cause dependency)");
          continue;
        }
        group.push_back(std::move(routed));
        origin.callee_operations.push_back(k);
      }
    }
    flush();
  }

  // Per service node, each operation's mean own service time (a service without operations: its one), for
  // OperationLatency.
  std::vector<std::vector<Duration>> operation_service() const {
    std::vector<std::vector<Duration>> service(stations_.size());
    for (std::size_t node = 0; node < nodes_.size(); ++node) {
      const std::size_t s = nodes_[node].first;
      service[node] =
          operation_means_[s].empty() ? std::vector<Duration>{services_[s].mean_service} : operation_means_[s];
    }
    return service;
  }

  // One round of the operations' fixed point: a call to operation k of node j adds R(j, k) - T_j to j's
  // end-to-end time T_j, R being the operation's own response with its own calls (OperationLatency) on this
  // round's solution. Kept where either is unbounded. Returns the largest change relative to R; a change within
  // the formulas' nanosecond rounding counts as none.
  double update_operation_deltas(const CapacityReport& report, bool damp) {
    OperationLatency latency(graph_, report, stations_, origins_, operation_service());
    double change = 0;
    for (std::size_t node = 0; node < nodes_.size(); ++node) {
      const auto& t = report.nodes[node].end_to_end;
      if (!t) continue;
      for (std::size_t k = 0; k < callee_delta_[node].size(); ++k) {
        const double r = latency.response_s(node, k);
        if (!std::isfinite(r)) continue;
        double next = r - to_seconds(*t);
        Duration& delta = callee_delta_[node][k];
        if (damp) next = 0.5 * (to_seconds(delta) + next);
        const double moved = std::abs(next - to_seconds(delta));
        if (moved > 2e-9) change = std::max(change, moved / std::max(r, 1e-9));
        delta = Duration{std::llround(next * 1e9)};
      }
    }
    return change;
  }

  // Calls f(call, share) for every call of every operation of service s that gets requests, share being the
  // operation's share of the service's requests.
  template <class F>
  void for_each_call(std::size_t s, F&& f) const {
    const ServiceConfig& config = *services_[s].config;
    for (std::size_t op = 0; op < config.operation_count(); ++op) {
      if (shares_[s][op] <= 0) continue;
      for (const CallConfig& call : config.calls_of(op)) f(call, shares_[s][op]);
    }
  }

  // One round of the zone-affinity fixed point: the same-zone rate offered
  // to every zone of a service with affinity (the station's idle-only
  // stream), and the probability that it spills over (the station's
  // overflow). Returns the largest change.
  double update_spills(const CapacityReport& report, bool damp) {
    std::vector<double> local(nodes_.size(), 0.0);
    for (std::size_t node = 0; node < nodes_.size(); ++node) local[node] = local_external_[node];
    for (const LocalTry& t : local_tries_) local[t.callee] += report.nodes[t.caller].accepted.per_second * t.calls;
    double change = 0;
    for (std::size_t node = 0; node < nodes_.size(); ++node) {
      const auto [s, z] = nodes_[node];
      DeployedService& d = services_[s];
      if (!d.config->zone_affinity) continue;
      double& offered = stations_[node].idle_only_offered.per_second;
      double next_offered = local[node];
      // The overflow was computed with last round's offered rate: both settle together.
      double next_spill = offered > 0 ? report.nodes[node].overflow : 0.0;
      if (damp) {
        next_offered = 0.5 * (offered + next_offered);
        next_spill = 0.5 * (d.spill[z] + next_spill);
      }
      change = std::max({change, std::abs(next_spill - d.spill[z]),
                         std::abs(next_offered - offered) / std::max(1.0, next_offered)});
      d.spill[z] = next_spill;
      offered = next_offered;
    }
    return change;
  }

  void station_rows(const CapacityReport& report, double target, FailureCase& out) const {
    for (std::size_t s = 0; s < services_.size(); ++s) {
      const DeployedService& d = services_[s];
      for (std::size_t z = 0; z < d.zones.size(); ++z) {
        StationRow row;
        row.service = d.config->name;
        row.zone = d.config->replicas[z].zone;
        row.up_pods = d.up_pods[z];
        const std::size_t node = node_of_[s][z];
        if (node != kNoNode && report.ok()) {
          const NodeCapacity& n = report.nodes[node];
          const Station& station = stations_[node];
          row.rate_per_s = n.offered.per_second;
          row.utilization = n.offered_utilization;
          row.stable = n.stable;
          row.headroom = n.offered_utilization > 0 ? target / n.offered_utilization - 1.0 : kInf;
          if (n.queue) row.blocking = n.queue->blocking_probability;
          row.mean_holding = n.holding ? MeanTime(*n.holding) : MeanTime::unbounded();
          row.holding_lower_bound = n.holding_lower_bound;
          if (n.queue) {
            row.mean_wait = n.queue->mean_wait;
            row.mean_queue_length = n.queue->mean_queue_length;
          } else {
            // No steady state: the queue grows without bound, or, behind a
            // queue limit with the workers held for good, stays full.
            row.mean_wait = MeanTime::unbounded();
            row.mean_queue_length =
                station.capacity ? static_cast<double>(station.replicas) * static_cast<double>(*station.capacity - station.servers)
                                 : kInf;
          }
          row.mean_response = n.end_to_end ? MeanTime(*n.end_to_end) : MeanTime::unbounded();
          if (d.config->zone_affinity) row.spill = d.spill[z];
          row.overloaded = !n.stable || n.offered_utilization > target;
          cpu_row(s, n, station, target, row, out);
          if (d.config->event_loop() && n.end_to_end && station.replicas > 0) {
            // Little's law: a pod holds rate x response requests in flight on average.
            const double in_flight = n.offered.per_second / static_cast<double>(station.replicas) *
                                     to_seconds(*n.end_to_end);
            if (in_flight > static_cast<double>(*d.config->max_in_flight)) {
              char text[160];
              std::snprintf(text, sizeof text, " holds %.1f requests in flight per pod on average, above its maxInFlight %u",
                            in_flight, *d.config->max_in_flight);
              out.notes.push_back(row.service + "@" + row.zone + text +
                                  " (requests wait for a place or are rejected; the check's waits leave that out)");
              row.overloaded = true;
            }
          }
        } else {
          // No up pod, or no solution for the case (its error): nothing to measure.
          row.headroom = std::numeric_limits<double>::quiet_NaN();
          row.mean_queue_length = std::numeric_limits<double>::quiet_NaN();
          row.cpu_cores = row.cpu_request_share = row.cpu_limit_share = std::numeric_limits<double>::quiet_NaN();
        }
        out.overloaded = out.overloaded || row.overloaded;
        out.stations.push_back(row);
      }
    }
  }

  // A station's CPU per pod against its request and limit. Requests served per pod are the accepted ones:
  // a full queue's rejections use no CPU.
  void cpu_row(std::size_t s, const NodeCapacity& n, const Station& station, double target, StationRow& row,
               FailureCase& out) const {
    const ServiceConfig& c = *services_[s].config;
    const double per_pod = station.replicas > 0 ? n.accepted.per_second / static_cast<double>(station.replicas) : 0.0;
    row.cpu_cores = per_pod * cpu_per_request_[s] + c.cpu.idle.cores();
    row.cpu_request_share = row.cpu_cores / c.cpu_request().cores();
    row.cpu_limit_share = std::numeric_limits<double>::quiet_NaN();
    if (!c.cpu.limit) return;
    row.cpu_limit_share = row.cpu_cores / c.cpu.limit->cores();
    if (row.cpu_limit_share > target) row.overloaded = true;
    if (row.cpu_limit_share >= 1.0) {
      char text[200];
      std::snprintf(text, sizeof text,
                    " needs %.3g cores a pod, %.0f%% of its CPU limit %s: the CFS quota throttles it and its queue "
                    "grows (the check's waits leave throttling out)",
                    row.cpu_cores, 100 * row.cpu_limit_share, format_cpu(*c.cpu.limit).c_str());
      out.notes.push_back(row.service + "@" + row.zone + text);
    }
  }

  void pool_rows(const CapacityReport& report, double target, FailureCase& out) const {
    for (const PoolNode& p : pools_) {
      const DeployedService& d = services_[p.service];
      PoolRow row;
      row.service = d.config->name;
      row.database = databases_[p.database].name;
      row.zone = d.config->replicas[p.zone].zone;
      row.up_pods = d.up_pods[p.zone];
      row.connections = p.pool.maximum_pool_size;
      if (p.node != kNoNode && report.ok()) {
        const NodeCapacity& n = report.nodes[p.node];
        row.rate_per_s = n.offered.per_second;
        row.utilization = n.offered_utilization;
        row.stable = n.stable;
        if (n.offered.per_second > 0) {
          row.mean_hold = n.holding;
          row.mean_wait = n.queue ? MeanTime(n.queue->mean_wait) : MeanTime::unbounded();
        }
        row.overloaded = !n.stable || n.offered_utilization > target;
      }
      out.overloaded = out.overloaded || row.overloaded;
      out.pools.push_back(row);
    }
  }

  // Mean end to end of population p's requests served, given the response in seconds of a request accepted at
  // each of its entry service's nodes: network both ways to the entry zone (handshakes first) and that response,
  // weighted by the zones' shares and acceptance. Unbounded when a zone it uses has no finite response; none when
  // nothing is served or the case has no solution.
  template <class Response>
  MeanTime served_latency(const CapacityReport& report, std::size_t p, Response&& response) {
    if (!report.ok()) return {};
    const ClientPopulationConfig& pop = load_[p];
    const std::size_t entry = service_index(pop.service);
    const TrafficSplit split = split_of(p, entry);
    const auto from = population_zone(pop, topology_);
    double weighted = 0, weight = 0;
    for (std::size_t z = 0; z < split.share.size(); ++z) {
      if (split.share[z] <= 0) continue;
      Duration network{};
      if (from) {
        const auto rtt = round_trip(*from, services_[entry].zones[z]);
        if (!rtt) continue;
        // The connection's handshake round trips come before the request's own.
        network = *rtt * (1 + static_cast<std::int64_t>(pop.handshake_round_trips));
      }
      const std::size_t node = node_of_[entry][z];
      const double answer = response(node);
      if (std::isinf(answer)) return MeanTime::unbounded();
      const NodeCapacity& n = report.nodes[node];
      const double accepted = split.share[z] * (n.queue ? 1.0 - n.queue->blocking_probability : 1.0);
      weighted += accepted * (to_seconds(network) + answer);
      weight += accepted;
    }
    if (weight <= 0) return {};
    return Duration{static_cast<std::int64_t>(std::llround(weighted / weight * 1e9))};
  }

  void population_rows(const CapacityReport& report, FailureCase& out) {
    for (std::size_t p = 0; p < load_.size(); ++p) {
      const ClientPopulationConfig& pop = load_[p];
      PopulationRow row;
      row.population = pop.name;
      row.rate_per_s = peak_rate(pop.load).per_second;
      row.unserved_rate_per_s = unserved_[p];
      if (row.unserved_rate_per_s > 0) out.overloaded = true;
      row.mean_latency = served_latency(report, p, [&](std::size_t node) {
        const auto& t = report.nodes[node].end_to_end;
        return t ? to_seconds(*t) : kInf;
      });
      out.populations.push_back(row);
    }
  }

  // Per population with a mix of operations, each operation's rate and mean latency.
  void operation_rows(const CapacityReport& report, FailureCase& out) {
    std::optional<OperationLatency> latency;
    if (report.ok()) latency.emplace(graph_, report, stations_, origins_, operation_service());
    for (std::size_t p = 0; p < load_.size(); ++p) {
      const ClientPopulationConfig& pop = load_[p];
      if (pop.operations.empty()) continue;
      const ServiceConfig& entry = *services_[service_index(pop.service)].config;
      double total = 0;
      for (const OperationShareConfig& op : pop.operations) total += op.weight;
      for (const OperationShareConfig& op : pop.operations) {
        OperationRow row;
        row.population = pop.name;
        row.operation = op.name;
        row.rate_per_s = peak_rate(pop.load).per_second * op.weight / total;
        const std::size_t k = entry.operation_index(op.name).value_or(0);
        if (latency) {
          row.mean_latency = served_latency(report, p, [&](std::size_t node) { return latency->response_s(node, k); });
        }
        out.operations.push_back(row);
      }
    }
  }

  const Topology& topology_;
  const TopologyState& state_;
  const std::vector<ClientPopulationConfig>& load_;
  const std::vector<DatabaseConfig>& databases_;
  std::map<std::string, std::size_t> db_by_name_;
  std::vector<DatabaseCase> db_cases_;  // per database: who serves in this case
  std::vector<CommitWait> commits_;     // per database
  std::vector<PoolNode> pools_;
  std::size_t pool_stations_ = 0;  // pools with a node
  std::vector<DeployedService> services_;
  std::vector<std::vector<double>> shares_;  // per service, its operations' shares of its requests
  std::vector<std::vector<Duration>> operation_means_;  // per service with operations, each one's mean service time
  std::vector<double> cpu_per_request_;  // per service: mean CPU seconds of a request's own work over its mix
  std::map<std::string, std::size_t> by_name_;
  bool any_affinity_ = false;
  std::vector<std::vector<std::size_t>> node_of_;             // [service][zone] -> node
  std::vector<std::pair<std::size_t, std::size_t>> nodes_;    // node -> (service, zone)
  std::vector<Station> stations_;
  RouteCache& routes_;
  std::vector<std::optional<RegionShares>>& region_shares_;  // per population
  // Rebuilt by build():
  CallGraph graph_;
  std::vector<Rate> external_;
  std::vector<double> local_external_;  // per node: population rate offered there first (zone affinity)
  std::vector<LocalTry> local_tries_;
  std::vector<std::vector<CallGroupOrigin>> origins_;  // per service node: where its call groups came from
  // Per service node with operations, per operation: what a call to it adds to the node's end-to-end time.
  std::vector<std::vector<Duration>> callee_delta_;
  bool any_operations_ = false;
  std::vector<double> unserved_;        // per population
  std::vector<std::string> notes_;
};

FailureCase evaluate(std::string name, const Topology& topology, const TopologyState& state,
                     const std::vector<ServiceConfig>& services, const std::vector<ClientPopulationConfig>& load,
                     const std::vector<DatabaseConfig>& databases, double target, CaseShared& shared) {
  CaseModel model(topology, state, services, load, databases, shared);
  FailureCase out = model.solve(std::move(name), target);
  out.blast_radius = describe(blast_radius(topology, state, services, load, databases, &shared.partitions));
  return out;
}

// What the closed form does not model yet: said, rather than answered wrongly.
void refuse_unsupported(const std::vector<ServiceConfig>& services) {
  for (const ServiceConfig& s : services) {
    for (std::size_t op = 0; op < s.operation_count(); ++op) {
      for (const CallConfig& call : s.calls_of(op)) {
        if (call.parallel && call.probability.value < 1.0) {
          throw CheckUnsupported("service \"" + s.name + "\" makes a parallel call to \"" + call.service +
                                 "\" with a probability below 1: drsim check takes a parallel group's calls as "
                                 "always made; make the call sequential or run the scenario");
        }
      }
    }
  }
}

// Per service, the share of its requests that ask for each of its operations: the populations' mixes at their
// peak rates, carried down every operation's calls (counts x probabilities) in topological order of the
// (service, operation) graph, which validation keeps acyclic. A service nobody calls gets its default
// operation. The shares are the same in every failure case and every zone: a caller whose requests move to
// other zones keeps its mix.
std::vector<std::vector<double>> operation_shares(const std::vector<ServiceConfig>& services,
                                                  const std::vector<ClientPopulationConfig>& load) {
  std::map<std::string_view, std::size_t> index;
  std::vector<std::size_t> offset(services.size() + 1, 0);
  for (std::size_t i = 0; i < services.size(); ++i) {
    index.emplace(services[i].name, i);
    offset[i + 1] = offset[i] + services[i].operation_count();
  }
  const std::size_t n = offset.back();
  std::vector<double> rate(n, 0.0);
  for (const ClientPopulationConfig& p : load) {
    const auto entry = index.find(p.service);
    if (entry == index.end()) continue;
    const ServiceConfig& e = services[entry->second];
    const double peak = peak_rate(p.load).per_second;
    if (p.operations.empty()) {
      rate[offset[entry->second]] += peak;
      continue;
    }
    double total = 0;
    for (const OperationShareConfig& op : p.operations) total += op.weight;
    for (const OperationShareConfig& op : p.operations) {
      const auto k = e.operation_index(op.name);
      if (!k) throw std::invalid_argument("drsim check: unknown operation \"" + op.name + "\"");
      rate[offset[entry->second] + *k] += peak * op.weight / total;
    }
  }
  // Edges (service, operation) -> (callee, operation) with calls per request, and in-degrees for Kahn's order.
  struct Edge {
    std::size_t to;
    double calls;
  };
  std::vector<std::vector<Edge>> edges(n);
  std::vector<std::size_t> in_degree(n, 0);
  for (std::size_t i = 0; i < services.size(); ++i) {
    for (std::size_t op = 0; op < services[i].operation_count(); ++op) {
      for (const CallConfig& call : services[i].calls_of(op)) {
        if (call.service.empty()) continue;
        const auto callee = index.find(call.service);
        if (callee == index.end()) continue;
        const auto k = services[callee->second].operation_index(call.operation);
        if (!k) throw std::invalid_argument("drsim check: unknown operation \"" + call.operation + "\"");
        edges[offset[i] + op].push_back({offset[callee->second] + *k, call.count * call.probability.value});
        ++in_degree[offset[callee->second] + *k];
      }
    }
  }
  std::vector<std::size_t> ready;
  for (std::size_t v = 0; v < n; ++v) {
    if (in_degree[v] == 0) ready.push_back(v);
  }
  std::size_t done = 0;
  while (!ready.empty()) {
    const std::size_t v = ready.back();
    ready.pop_back();
    ++done;
    for (const Edge& e : edges[v]) {
      rate[e.to] += rate[v] * e.calls;
      if (--in_degree[e.to] == 0) ready.push_back(e.to);
    }
  }
  std::vector<std::vector<double>> shares(services.size());
  for (std::size_t i = 0; i < services.size(); ++i) {
    shares[i].assign(services[i].operation_count(), 0.0);
    double total = 0;
    for (std::size_t op = 0; op < shares[i].size(); ++op) total += rate[offset[i] + op];
    if (total <= 0) {
      shares[i][0] = 1.0;
      continue;
    }
    for (std::size_t op = 0; op < shares[i].size(); ++op) shares[i][op] = rate[offset[i] + op] / total;
  }
  if (done < n) {
    // A cycle between operations (validation rejects them in scenarios): only the services it touches are
    // uncertain, so say so instead of guessing.
    for (std::size_t i = 0; i < services.size(); ++i) {
      if (services[i].operations.empty()) continue;
      for (std::size_t op = 0; op < services[i].operation_count(); ++op) {
        if (in_degree[offset[i] + op] > 0) {
          throw CheckUnsupported("a call cycle through operations of service \"" + services[i].name +
                                 "\": drsim check cannot settle its operations' mix");
        }
      }
    }
  }
  return shares;
}

}  // namespace

NPlusOneReport n_plus_one(const TopologyConfig& topology, const std::vector<ServiceConfig>& services,
                          const std::vector<ClientPopulationConfig>& load, double utilization_target,
                          const std::vector<DatabaseConfig>& databases, bool scenario_has_kubernetes) {
  refuse_unsupported(services);
  const Topology topo(topology);
  NPlusOneReport report;
  report.utilization_target = utilization_target;
  const TopologyState nominal = topo.nominal_state();
  CaseShared shared(topo, load.size(), scenario_has_kubernetes, operation_shares(services, load));
  report.cases.push_back(evaluate("steady", topo, nominal, services, load, databases, utilization_target, shared));
  for (ZoneIndex z = 0; z < topo.zone_count(); ++z) {
    TopologyState state = nominal;
    state.zone_up[z] = false;
    report.cases.push_back(evaluate("zone " + topo.zone_name(z) + " down", topo, state, services, load, databases,
                                    utilization_target, shared));
  }
  if (topo.region_count() > 1) {
    for (RegionIndex r = 0; r < topo.region_count(); ++r) {
      TopologyState state = nominal;
      for (ZoneIndex z : topo.zones_of(r)) state.zone_up[z] = false;
      report.cases.push_back(evaluate("region " + topo.region_name(r) + " down", topo, state, services, load, databases,
                                      utilization_target, shared));
    }
  }
  return report;
}

}  // namespace drsim

#include "analysis/n_plus_one.h"

#include "analysis/blast_radius.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "analysis/capacity_check.h"
#include "analysis/expected_network_delay.h"
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

namespace {

constexpr std::size_t kNoNode = std::numeric_limits<std::size_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Zone affinity's spill probabilities are iterated until they move less than
// this, or the rounds run out (then the check is not trustworthy: an error).
constexpr double kSpillTolerance = 1e-10;
constexpr int kMaxSpillRounds = 2000;

// A call edge on which zone affinity offers the callee's zone in the caller's
// zone first: `calls` per request served by `caller`.
struct LocalTry {
  std::size_t caller = 0;
  std::size_t callee = 0;  // node
  double calls = 0;
};

// One failure case: the deployed services, their stations, and the network
// of calls between them, rebuilt for every round of the spill fixed point.
class CaseModel {
 public:
  CaseModel(const Topology& topology, const TopologyState& state, const std::vector<ServiceConfig>& services,
            const std::vector<ClientPopulationConfig>& load)
      : topology_(topology), state_(state), load_(load) {
    for (const ServiceConfig& s : services) {
      by_name_.emplace(s.name, services_.size());
      services_.push_back(deploy(s, topology, state));
      any_affinity_ = any_affinity_ || s.zone_affinity;
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
        if (c.queue_limit) station.capacity = c.concurrency + *c.queue_limit;
        station.replicas = d.up_pods[z];
        station.holds_worker = true;  // thread-per-request, as the simulated services
        stations_.push_back(station);
      }
    }
    rtt_.assign(topology.zone_count() * topology.zone_count(), std::nullopt);
    rtt_known_.assign(rtt_.size(), false);
  }

  FailureCase solve(std::string name, double target) {
    FailureCase out;
    out.name = std::move(name);
    CapacityReport report;
    double previous_change = kInf;
    bool damp = false;
    for (int round = 1;; ++round) {
      build();
      report = check_capacity(graph_, stations_, external_);
      if (!report.ok() || !any_affinity_) break;
      const double change = update_spills(report, damp);
      if (change < kSpillTolerance) break;
      if (change > 0.9 * previous_change) damp = true;
      previous_change = change;
      if (round >= kMaxSpillRounds) {
        throw std::runtime_error("drsim check: zone affinity spill-over did not converge in case \"" + out.name +
                                 "\"");
      }
    }
    out.notes = notes_;
    out.overloaded = !notes_.empty();
    if (!report.ok()) {
      out.error = report.error;
      out.overloaded = true;
    }
    station_rows(report, target, out);
    population_rows(report, out);
    return out;
  }

 private:
  std::string node_name(std::size_t node) const {
    const auto [s, z] = nodes_[node];
    return services_[s].config->name + "@" + services_[s].config->replicas[z].zone;
  }

  // Mean round trip between two zones; nullopt when unreachable.
  std::optional<Duration> round_trip(ZoneIndex from, ZoneIndex to) {
    const std::size_t key = from * topology_.zone_count() + to;
    if (!rtt_known_[key]) {
      rtt_[key] = expected_round_trip(topology_, state_, from, to);
      rtt_known_[key] = true;
    }
    return rtt_[key];
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
    notes_.clear();
    local_tries_.clear();
    for (std::size_t node = 0; node < nodes_.size(); ++node) graph_.add_node(node_name(node));
    for (std::size_t node = 0; node < nodes_.size(); ++node) add_calls(node);

    external_.assign(nodes_.size(), Rate{});
    local_external_.assign(nodes_.size(), 0.0);
    unserved_.assign(load_.size(), 0.0);
    for (std::size_t p = 0; p < load_.size(); ++p) {
      const ClientPopulationConfig& pop = load_[p];
      const std::size_t entry = service_index(pop.service);
      const TrafficSplit split = population_split(pop, services_[entry], topology_, state_);
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
  void add_calls(std::size_t node) {
    const auto [s, z] = nodes_[node];
    const DeployedService& caller = services_[s];
    const ZoneIndex from = caller.zones[z];
    std::vector<Call> group;
    bool parallel = false;
    auto flush = [&] {
      if (group.empty()) return;
      if (parallel) {
        graph_.add_parallel(node, std::move(group));
      } else {
        graph_.add_sequential(node, std::move(group));
      }
      group.clear();
    };
    for (const CallConfig& call : caller.config->calls) {
      if (call.parallel != parallel) {
        flush();
        parallel = call.parallel;
      }
      const std::size_t c = service_index(call.service);
      const DeployedService& callee = services_[c];
      const TrafficSplit split = zone_split(callee, from);
      Call routed;
      routed.count = call.count;
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
        routed.routes.push_back(CallRoute{target, split.share[cz], *rtt});
        if (split.tried_local[cz] > 0) local_tries_.push_back(LocalTry{node, target, call.count * split.tried_local[cz]});
      }
      if (routed.routes.empty()) {
        // No up pod anywhere: the call fails at once, and so does the request.
        note("calls from " + node_name(node) + " to " + callee.config->name +
             " fail at once: no up pod (requests fail with cause dependency)");
        continue;
      }
      group.push_back(std::move(routed));
    }
    flush();
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
          row.rate_per_s = n.offered.per_second;
          row.utilization = n.offered_utilization;
          row.stable = n.stable;
          row.headroom = n.offered_utilization > 0 ? target / n.offered_utilization - 1.0 : kInf;
          if (n.queue) row.blocking = n.queue->blocking_probability;
          row.mean_holding = n.holding;
          row.mean_response = n.end_to_end;
          if (d.config->zone_affinity) row.spill = d.spill[z];
          row.overloaded = !n.stable || n.offered_utilization > target;
        } else {
          row.headroom = kInf;
        }
        out.overloaded = out.overloaded || row.overloaded;
        out.stations.push_back(row);
      }
    }
  }

  void population_rows(const CapacityReport& report, FailureCase& out) {
    for (std::size_t p = 0; p < load_.size(); ++p) {
      const ClientPopulationConfig& pop = load_[p];
      PopulationRow row;
      row.population = pop.name;
      row.rate_per_s = peak_rate(pop.load).per_second;
      row.unserved_rate_per_s = unserved_[p];
      if (row.unserved_rate_per_s > 0) out.overloaded = true;
      const std::size_t entry = service_index(pop.service);
      const TrafficSplit split = population_split(pop, services_[entry], topology_, state_);
      const auto from = population_zone(pop, topology_);
      // Mean over the requests served: weighted by share and acceptance.
      double weighted = 0, weight = 0;
      bool known = report.ok();
      for (std::size_t z = 0; z < split.share.size() && known; ++z) {
        if (split.share[z] <= 0) continue;
        Duration network{};
        if (from) {
          const auto rtt = round_trip(*from, services_[entry].zones[z]);
          if (!rtt) continue;
          // The connection's handshake round trips come before the request's own.
          network = *rtt * (1 + static_cast<std::int64_t>(pop.handshake_round_trips));
        }
        const NodeCapacity& n = report.nodes[node_of_[entry][z]];
        if (!n.end_to_end) {
          known = false;
          break;
        }
        const double accepted = split.share[z] * (n.queue ? 1.0 - n.queue->blocking_probability : 1.0);
        weighted += accepted * (to_seconds(network) + to_seconds(*n.end_to_end));
        weight += accepted;
      }
      if (known && weight > 0) row.mean_latency = Duration{static_cast<std::int64_t>(std::llround(weighted / weight * 1e9))};
      out.populations.push_back(row);
    }
  }

  const Topology& topology_;
  const TopologyState& state_;
  const std::vector<ClientPopulationConfig>& load_;
  std::vector<DeployedService> services_;
  std::map<std::string, std::size_t> by_name_;
  bool any_affinity_ = false;
  std::vector<std::vector<std::size_t>> node_of_;             // [service][zone] -> node
  std::vector<std::pair<std::size_t, std::size_t>> nodes_;    // node -> (service, zone)
  std::vector<Station> stations_;
  std::vector<std::optional<Duration>> rtt_;                  // [from * zones + to]
  std::vector<bool> rtt_known_;
  // Rebuilt by build():
  CallGraph graph_;
  std::vector<Rate> external_;
  std::vector<double> local_external_;  // per node: population rate offered there first (zone affinity)
  std::vector<LocalTry> local_tries_;
  std::vector<double> unserved_;        // per population
  std::vector<std::string> notes_;
};

FailureCase evaluate(std::string name, const Topology& topology, const TopologyState& state,
                     const std::vector<ServiceConfig>& services, const std::vector<ClientPopulationConfig>& load,
                     double target) {
  CaseModel model(topology, state, services, load);
  FailureCase out = model.solve(std::move(name), target);
  out.blast_radius = describe(blast_radius(topology, state, services, load));
  return out;
}

}  // namespace

NPlusOneReport n_plus_one(const TopologyConfig& topology, const std::vector<ServiceConfig>& services,
                          const std::vector<ClientPopulationConfig>& load, double utilization_target) {
  const Topology topo(topology);
  NPlusOneReport report;
  report.utilization_target = utilization_target;
  const TopologyState nominal = topo.nominal_state();
  report.cases.push_back(evaluate("steady", topo, nominal, services, load, utilization_target));
  for (ZoneIndex z = 0; z < topo.zone_count(); ++z) {
    TopologyState state = nominal;
    state.zone_up[z] = false;
    report.cases.push_back(
        evaluate("zone " + topo.zone_name(z) + " down", topo, state, services, load, utilization_target));
  }
  if (topo.region_count() > 1) {
    for (RegionIndex r = 0; r < topo.region_count(); ++r) {
      TopologyState state = nominal;
      for (ZoneIndex z : topo.zones_of(r)) state.zone_up[z] = false;
      report.cases.push_back(
          evaluate("region " + topo.region_name(r) + " down", topo, state, services, load, utilization_target));
    }
  }
  return report;
}

}  // namespace drsim

#include "analysis/n_plus_one.h"

#include <algorithm>
#include <cstdio>

#include "analysis/queueing.h"
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

namespace {

struct ZoneLoad {
  double rate = 0;
  double network_weighted = 0;  // sum over populations of rate x network RTT (s)
};

FailureCase evaluate(const std::string& name, const Topology& topo, const TopologyState& state,
                     const std::vector<ServiceConfig>& services, const std::vector<ClientPopulationConfig>& load,
                     double target) {
  FailureCase out;
  out.name = name;
  for (const ServiceConfig& svc : services) {
    // Up pods per zone of this service, and the populations sending to it.
    std::vector<std::uint32_t> up(svc.replicas.size(), 0);
    std::uint32_t total_up = 0;
    for (std::size_t z = 0; z < svc.replicas.size(); ++z) {
      const auto zi = topo.find_zone(svc.replicas[z].zone);
      if (zi && state.zone_up[*zi]) up[z] = svc.replicas[z].replicas;
      total_up += up[z];
    }
    const Duration service_mean = ServiceTimeDistribution(svc.service_time).mean();
    std::vector<std::optional<Duration>> response(svc.replicas.size());
    std::vector<bool> stable(svc.replicas.size(), true);
    std::vector<double> zone_rate(svc.replicas.size(), 0.0);
    for (const ClientPopulationConfig& pop : load) {
      if (pop.service != svc.name) continue;
      const double rate = peak_rate(pop.load).per_second;
      for (std::size_t z = 0; z < svc.replicas.size(); ++z) {
        if (total_up > 0) zone_rate[z] += rate * up[z] / total_up;
      }
    }
    for (std::size_t z = 0; z < svc.replicas.size(); ++z) {
      StationRow row;
      row.service = svc.name;
      row.zone = svc.replicas[z].zone;
      row.up_pods = up[z];
      row.rate_per_s = zone_rate[z];
      if (up[z] > 0) {
        const Rate per_pod{zone_rate[z] / up[z]};
        row.utilization = per_pod.per_second * to_seconds(service_mean) / svc.concurrency;
        if (svc.queue_limit) {
          const QueueMetrics m = mmck_metrics(per_pod, service_mean, svc.concurrency, svc.concurrency + *svc.queue_limit);
          row.blocking = m.blocking_probability;
          row.mean_response = m.mean_response;
        } else if (const auto m = mmc_metrics(per_pod, service_mean, svc.concurrency)) {
          row.mean_response = m->mean_response;
        } else {
          row.stable = false;
        }
        row.headroom = row.utilization > 0 ? target / row.utilization - 1.0 : 0.0;
        if (!row.stable || row.utilization > target) out.overloaded = true;
      }
      response[z] = row.mean_response;
      stable[z] = row.stable;
      out.stations.push_back(row);
    }
    for (const ClientPopulationConfig& pop : load) {
      if (pop.service != svc.name) continue;
      PopulationRow prow;
      prow.population = pop.name;
      prow.rate_per_s = peak_rate(pop.load).per_second;
      if (total_up == 0) {
        prow.unserved_rate_per_s = prow.rate_per_s;
        out.overloaded = true;
        out.populations.push_back(prow);
        continue;
      }
      const auto from = pop.zone.empty() ? std::nullopt : topo.find_zone(pop.zone);
      double latency = 0;
      bool known = true;
      for (std::size_t z = 0; z < svc.replicas.size(); ++z) {
        if (up[z] == 0) continue;
        const double share = static_cast<double>(up[z]) / total_up;
        if (!stable[z] || !response[z]) {
          known = false;
          continue;
        }
        double network = 0;
        if (from) {
          const auto rtt = topo.rtt(*from, *topo.find_zone(svc.replicas[z].zone), state);
          if (!rtt) {
            known = false;
            continue;
          }
          network = to_seconds(*rtt);
        }
        latency += share * (to_seconds(*response[z]) + network);
      }
      if (known) prow.mean_latency = Duration{static_cast<std::int64_t>(latency * 1e9)};
      out.populations.push_back(prow);
    }
  }
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

namespace {
std::string milliseconds(Duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", to_seconds(d) * 1e3);
  return text;
}
}  // namespace

std::string format_report(const NPlusOneReport& report) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "N+1 capacity check (utilization target %.0f%%; M/M/c per pod)\n\n",
                100 * report.utilization_target);
  out += line;
  for (const FailureCase& c : report.cases) {
    out += c.name + (c.overloaded ? "  -- OVERLOADED\n" : "\n");
    std::snprintf(line, sizeof line, "  %-14s %-16s %5s %10s %7s %9s %9s %12s\n", "service", "zone", "pods",
                  "rate/s", "util", "headroom", "blocked", "response");
    out += line;
    for (const StationRow& s : c.stations) {
      const std::string response = !s.stable ? "UNSTABLE" : s.mean_response ? milliseconds(*s.mean_response) : "-";
      std::snprintf(line, sizeof line, "  %-14s %-16s %5u %10.1f %6.1f%% %8.0f%% %8.2f%% %12s\n", s.service.c_str(),
                    s.zone.c_str(), s.up_pods, s.rate_per_s, 100 * s.utilization,
                    s.up_pods ? 100 * s.headroom : 0.0, 100 * s.blocking, response.c_str());
      out += line;
    }
    for (const PopulationRow& p : c.populations) {
      const std::string latency = p.mean_latency ? milliseconds(*p.mean_latency) : "unbounded";
      std::snprintf(line, sizeof line, "  population %-20s %10.1f/s  mean latency %s%s\n", p.population.c_str(),
                    p.rate_per_s, latency.c_str(),
                    p.unserved_rate_per_s > 0 ? "  (no up pod: every request fails)" : "");
      out += line;
    }
    out += "\n";
  }
  return out;
}

}  // namespace drsim

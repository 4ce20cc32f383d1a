#include "io/run_estimate.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "io/scenario_error.h"
#include "io/source_map.h"
#include "models/load/rate_profile.h"
#include "models/service/service.h"
#include "sim/quote.h"
#include "sim/run_guards.h"

namespace drsim {

namespace {

// A point is a time (8 bytes) and a value (8 bytes); the vectors holding
// them grow by doubling, so on average half as much again is reserved.
constexpr double kBytesPerPoint = 24;

// Series a pod writes with spec.podMetrics (Service::record_pod_series:
// pod.utilization and pod.cpu_cores), for the estimate before the build.
constexpr double kSeriesPerPod = 2;

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x < 1e6 ? "%.0f" : "%.3g", x);
  return buf;
}

// The most pods each service can reach: its replicas, or its HPA's maxReplicas when higher.
std::map<std::string, std::uint64_t> most_pods(const ScenarioSpec& spec) {
  std::map<std::string, std::uint64_t> out;
  for (const ServiceConfig& s : spec.topology.config.services) {
    std::uint64_t n = 0;
    for (const ReplicasConfig& r : s.replicas) n += r.replicas;
    out[s.name] = n;
  }
  if (spec.kubernetes) {
    for (const HpaConfig& h : spec.kubernetes->hpas) {
      auto it = out.find(h.target);
      if (it != out.end()) it->second = std::max<std::uint64_t>(it->second, static_cast<std::uint64_t>(h.max_replicas));
    }
  }
  return out;
}

}  // namespace

std::string RunEstimate::summary() const {
  std::string out = "pods: " + number(static_cast<double>(pods)) + " (" + format_memory(pod_bytes) + ")";
  if (series > 0) {
    out += "; series: " + number(static_cast<double>(series)) + " x " + number(static_cast<double>(windows)) +
           " windows (" + format_memory(series_bytes) + ")";
  } else if (series_bytes > 0) {
    out += "; per-pod series: " + number(static_cast<double>(pods) * kSeriesPerPod) + " x " +
           number(static_cast<double>(windows)) + " windows (" + format_memory(series_bytes) + ")";
  } else {
    out += "; windows: " + number(static_cast<double>(windows));
  }
  out += "; requests: " + number(requests);
  return out;
}

RunEstimate estimate_run(const Scenario& scenario, SimTime horizon) {
  const ScenarioSpec& spec = scenario.spec;
  RunEstimate e;
  const std::map<std::string, std::uint64_t> pods = most_pods(spec);
  for (const ServiceConfig& s : spec.topology.config.services) {
    const std::uint64_t n = pods.at(s.name);
    e.pods += n;
    // In double: 2^31 pods of 2^31 workers is "far too many", not a wrapped small number.
    e.pod_bytes += static_cast<double>(n) * static_cast<double>(Service::memory_per_pod(s));
  }
  const std::int64_t window = spec.metrics_window.count();
  e.windows = window > 0 ? static_cast<std::uint64_t>(horizon.time_since_epoch().count() / window) + 1 : 0;
  // Per-pod series are known before the build; building a million pods'
  // series is itself what takes the time and memory.
  if (spec.pod_metrics) {
    e.series_bytes = static_cast<double>(e.pods) * kSeriesPerPod * static_cast<double>(e.windows) * kBytesPerPoint;
  }
  for (const ClientPopulationConfig& p : spec.load) {
    try {
      e.requests += RateProfile(p.load).cumulative(kSimStart, horizon);
    } catch (const std::exception&) {
      // A profile the loader accepted but that cannot be integrated: information only.
    }
  }
  return e;
}

void add_series(RunEstimate& estimate, std::uint64_t series) {
  estimate.series = series;
  estimate.series_bytes = static_cast<double>(series) * static_cast<double>(estimate.windows) * kBytesPerPoint;
}

std::uint64_t memory_limit(const GuardsConfig& guards) {
  if (guards.max_memory.bytes > 0) return static_cast<std::uint64_t>(guards.max_memory.bytes);
  return available_memory_bytes() / 10 * 8;
}

void refuse_if_too_big(const Scenario& scenario, const RunEstimate& estimate, std::uint64_t limit) {
  const ScenarioSpec& spec = scenario.spec;
  auto refuse = [&](const std::string& path, const std::string& message) {
    if (scenario.source_map) throw ScenarioError(scenario.source_map->at(path, message));
    throw ScenarioError(Diagnostic{.file = scenario.source_file, .path = path, .message = message});
  };
  // A zone's workers are counted in 32 bits; no machine's memory would hold more anyway.
  const std::map<std::string, std::uint64_t> pods = most_pods(spec);
  const auto& services = spec.topology.config.services;
  for (std::size_t i = 0; i < services.size(); ++i) {
    const double workers = static_cast<double>(pods.at(services[i].name)) * services[i].concurrency;
    if (workers > static_cast<double>(UINT32_MAX)) {
      refuse("spec.topology.services[" + std::to_string(i) + "].concurrency",
             "service " + quote(services[i].name) + " would run " + number(workers) + " workers (" +
                 std::to_string(pods.at(services[i].name)) + " pods x " + std::to_string(services[i].concurrency) +
                 "), expected at most " + std::to_string(UINT32_MAX) + ": lower its replicas or concurrency");
    }
  }
  if (limit == 0 || estimate.total_bytes() <= static_cast<double>(limit)) return;
  const bool series_dominate = estimate.series_bytes > estimate.pod_bytes;
  // Blame the setting that makes most of it.
  std::string path = "spec.metricsWindow";
  std::string advice = "lengthen spec.metricsWindow (" + format_duration(spec.metrics_window) + "), shorten the run" +
                       (spec.pod_metrics ? ", turn off spec.podMetrics" : std::string());
  if (!series_dominate) {
    std::size_t biggest = 0;
    double biggest_bytes = -1;
    for (std::size_t i = 0; i < services.size(); ++i) {
      const double b =
          static_cast<double>(pods.at(services[i].name)) * static_cast<double>(Service::memory_per_pod(services[i]));
      if (b > biggest_bytes) biggest = i, biggest_bytes = b;
    }
    path = "spec.topology.services[" + std::to_string(biggest) + "]";
    advice = "lower service " + quote(services.at(biggest).name) + "'s replicas or concurrency (" +
             std::to_string(services.at(biggest).concurrency) + " workers per pod)";
  }
  const std::string limit_text =
      spec.guards.max_memory.bytes > 0
          ? "spec.guards.maxMemory (" + format_memory(static_cast<double>(limit)) + ")"
          : "the default memory limit (" + format_memory(static_cast<double>(limit)) + ", 80% of the " +
                format_memory(static_cast<double>(available_memory_bytes())) + " this process may use)";
  const std::string message = "the run would need about " + format_memory(estimate.total_bytes()) + " of memory (" +
                              estimate.summary() + "), above " + limit_text + ": " + advice +
                              ", or raise spec.guards.maxMemory";
  refuse(path, message);
}

}  // namespace drsim

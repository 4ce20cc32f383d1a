#pragma once
// What a run will hold in memory, estimated before it is built and checked
// against spec.guards.maxMemory, so that a scenario that would need more than
// the machine has is refused with a clear message (exit 2) instead of ending
// in std::bad_alloc or the system's out-of-memory killer.
//
// Two parts dominate and both are known before the first event:
//   pods     every pod holds its worker slots (Service::memory_per_pod): the
//            largest count a service can reach (its replicas, or its HPA's
//            maxReplicas) times its concurrency;
//   series   every series gets a point per metrics window: series x windows,
//            windows = horizon / spec.metricsWindow. The series are counted
//            once the simulation is built and its components have declared
//            them, and before any event runs.
// Requests queued without a limit, events and the events table grow with the
// run itself; maxMemory stops such a run while it is running.
#include <cstdint>
#include <string>

#include "io/scenario.h"
#include "sim/time.h"

namespace drsim {

struct RunEstimate {
  std::uint64_t pods = 0;     // the most pods the services can reach
  double pod_bytes = 0;       // what they hold
  double requests = 0;        // arrivals expected over the horizon (information)
  std::uint64_t windows = 0;  // metrics windows over the horizon
  std::uint64_t series = 0;   // declared series (0 until counted)
  double series_bytes = 0;    // series x windows x the bytes of a point
  double total_bytes() const { return pod_bytes + series_bytes; }
  // "pods: 6 (0.0 GiB); series: 120 x 3600 windows (0.0 GiB); requests: 1.1e6"
  std::string summary() const;
};

// The part known from the scenario alone.
RunEstimate estimate_run(const Scenario& scenario, SimTime horizon);
// Adds the series, once the simulation has declared them.
void add_series(RunEstimate& estimate, std::uint64_t series);

// maxMemory as given, or its default: 80% of available_memory_bytes().
std::uint64_t memory_limit(const GuardsConfig& guards);

// Throws ScenarioError (at the setting to change) when the estimate is above limit.
void refuse_if_too_big(const Scenario& scenario, const RunEstimate& estimate, std::uint64_t limit);

}  // namespace drsim

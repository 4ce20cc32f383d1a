// Whole-scenario benchmarks: issue 3's speed target.
//
// BM_Scenario_ThreeRegions_20krps/<simulated seconds> loads
// bench/scenario_three_regions.yaml (3 regions, 9 zones, a front calling two
// backends, 20,000 requests/s of Poisson load) and runs it through the same
// path as `drsim run` (run_scenario: build, run to the horizon, finish) for
// the given simulated time. The target: the 1-hour run (72 million client
// requests) in under 60 s of wall time on one core.
//
// Counters:
//   items_per_second      client requests offered per wall second
//   sim_s_per_wall_s      simulated seconds per wall second
//   events_per_second     engine events per wall second
//   peak_rss_MiB          peak resident memory of the process during the run
//                         (getrusage; the peak is reset before each run)
//   end_rss_MiB           resident memory when the run has finished, before
//                         the simulation is destroyed
//   series_MiB            what the Recorder's per-window series hold (t_ns +
//                         value per point): these grow with simulated windows,
//                         not with requests
//   pending_events        events pending at the end: in-flight work and timeouts
//   in_flight             client requests in flight at the end
//   allocations           operator new calls during the run (this program
//                         counts them), building and finishing included
// Memory bounded by in-flight requests means: end_rss_MiB of the 600 s and
// the 3600 s runs differ by about the difference of their series_MiB. No
// allocation per request means: allocations hardly grow from the 60 s run to
// the 3600 s one (what remains grows with windows: series points).
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "bench/allocation_counter.h"
#include "io/run.h"
#include "io/scenario_loader.h"

namespace drsim {
namespace {

constexpr const char* kScenarioFile = DRSIM_BENCH_DIR "/scenario_three_regions.yaml";
constexpr double kMiB = 1024.0 * 1024.0;

// Linux: writing 5 to clear_refs resets the process's peak RSS to its
// current RSS, so each run reports its own peak rather than the largest of
// every benchmark run before it in this process.
void reset_peak_rss() {
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
}

double peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // ru_maxrss is in KiB on Linux
}

double current_rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  long pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return static_cast<double>(pages_resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double kpi_sum(const Recorder& recorder, std::string_view name) {
  double sum = 0;
  for (const Recorder::Kpi& kpi : recorder.kpis()) {
    if (kpi.name == name) sum += kpi.value;
  }
  return sum;
}

void run_three_regions(benchmark::State& state, const std::vector<std::string>& overrides) {
  const Scenario scenario = load_scenario_file(kScenarioFile, overrides);
  const Duration simulated = std::chrono::seconds(state.range(0));
  double offered = 0, events = 0, peak_rss = 0, end_rss = 0, series_bytes = 0, pending = 0, in_flight = 0;
  std::uint64_t allocated = 0;
  for (auto _ : state) {
    reset_peak_rss();
    const std::uint64_t allocations_before = bench::allocations_so_far();
    RunResult result = run_scenario(scenario, RunOptions{.until = simulated});
    allocated = bench::allocations_so_far() - allocations_before;
    if (!result.outcome.complete()) {
      state.SkipWithError(result.outcome.message.c_str());
      return;
    }
    const Recorder& recorder = result.recorder();
    offered += kpi_sum(recorder, "client.offered");
    events += static_cast<double>(result.outcome.events);
    peak_rss = peak_rss_bytes();
    end_rss = current_rss_bytes();
    series_bytes = static_cast<double>(recorder.point_count()) * (sizeof(std::int64_t) + sizeof(double));
    pending = static_cast<double>(result.simulation->pending_events());
    in_flight = kpi_sum(recorder, "client.in_flight");
  }
  const double iterations = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(offered));
  state.counters["sim_s_per_wall_s"] =
      benchmark::Counter(to_seconds(simulated) * iterations, benchmark::Counter::kIsRate);
  state.counters["events_per_second"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["peak_rss_MiB"] = peak_rss / kMiB;
  state.counters["end_rss_MiB"] = end_rss / kMiB;
  state.counters["series_MiB"] = series_bytes / kMiB;
  state.counters["pending_events"] = pending;
  state.counters["in_flight"] = in_flight;
  state.counters["allocations"] = static_cast<double>(allocated);
}
void BM_Scenario_ThreeRegions_20krps(benchmark::State& state) { run_three_regions(state, {}); }

// The same with every service behind a cloud load balancer (discovery
// loadBalancer, issue 17): target and node checks for 81 pods and 27 nodes, and
// the entry draw while a dead node may be cached. Its ratio to the run above,
// measured in the same process, is the balancer's cost.
void BM_Scenario_ThreeRegions_20krps_LoadBalanced(benchmark::State& state) {
  run_three_regions(state, {"spec.topology.services[front].discovery=loadBalancer",
                            "spec.topology.services[accounts].discovery=loadBalancer",
                            "spec.topology.services[catalog].discovery=loadBalancer"});
}

// The same with spec.traces (issue 19): 1% and 10% of the requests traced, every span kept (maxSpans far above
// what a minute makes). Its ratio to BM_Scenario_ThreeRegions_20krps/60 in the same process is the cost of
// recording spans; a run without traces pays only a test of each request's span handle.
void BM_Scenario_ThreeRegions_20krps_Traced1pct(benchmark::State& state) {
  run_three_regions(state, {"spec.traces={sampling: 1%, maxSpans: 100000000}"});
}
void BM_Scenario_ThreeRegions_20krps_Traced10pct(benchmark::State& state) {
  run_three_regions(state, {"spec.traces={sampling: 10%, maxSpans: 100000000}"});
}
BENCHMARK(BM_Scenario_ThreeRegions_20krps_Traced1pct)->Arg(60)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_Scenario_ThreeRegions_20krps_Traced10pct)->Arg(60)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);

// 1 minute (quick checks, profiling), 10 minutes and the 1-hour target. One
// iteration each: a run is long enough to time on its own.
BENCHMARK(BM_Scenario_ThreeRegions_20krps_LoadBalanced)->Arg(60)->Arg(600)->Iterations(1)->UseRealTime()->Unit(
    benchmark::kSecond);
BENCHMARK(BM_Scenario_ThreeRegions_20krps)
    ->Arg(60)
    ->Arg(600)
    ->Arg(3600)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace drsim

BENCHMARK_MAIN();

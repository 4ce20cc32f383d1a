// Kubernetes control plane benchmarks: issue 4's speed target, "HPA and
// scheduler ticks must not dominate".
//
// BM_Kube_FiftyHpas/<simulated seconds> loads bench/scenario_fifty_hpas.yaml
// (one region of three zones, 50 independent services with about 3,000
// requests/s of diurnal Poisson load in all, each service run by a deployment
// with an HPA on CPU) and runs it through the same path as `drsim run`
// (run_scenario: build, run to the horizon, finish) for the given simulated
// time. BM_Kube_FiftyServicesNoHpa runs the same loaded Scenario with
// spec.kubernetes removed, so the two differ only in the control plane
// (metrics-server scrapes, HPA syncs, the pods the HPAs add and remove, the
// scheduler binding them, probes, and the control plane's gauges). The
// target: the 1-hour FiftyHpas run takes under 10% more time than the 1-hour
// NoHpa run (bench/README.md computes it from the two medians).
//
// Counters:
//   items_per_second      client requests offered per wall second
//   sim_s_per_wall_s      simulated seconds per wall second
//   events_per_second     engine events per wall second
//   events                engine events of one run
//   hpa_syncs             HPA reconciliations of one run: every HPA once per
//                         hpaController.syncPeriod (0 without the control plane)
//   hpa_rescales          of those, the ones that changed a deployment's
//                         replicas (the hpa.rescales KPIs, summed)
//   series_MiB            what the Recorder's per-window series hold
//   allocations           operator new calls during the run (this program
//                         counts them), building and finishing included
// The runs are single-threaded and measured in real time (UseRealTime); the
// CPU column is the process's CPU time, which a busy machine inflates less.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <string_view>

#include "bench/allocation_counter.h"
#include "io/run.h"
#include "io/scenario_loader.h"

namespace drsim {
namespace {

constexpr const char* kScenarioFile = DRSIM_BENCH_DIR "/scenario_fifty_hpas.yaml";
constexpr double kMiB = 1024.0 * 1024.0;

double kpi_sum(const Recorder& recorder, std::string_view name) {
  double sum = 0;
  for (const Recorder::Kpi& kpi : recorder.kpis()) {
    if (kpi.name == name) sum += kpi.value;
  }
  return sum;
}

// HPA syncs in a run of `simulated`: the control plane syncs every HPA at
// every multiple of the sync period after the start.
double hpa_syncs(const Scenario& scenario, Duration simulated) {
  if (!scenario.spec.kubernetes) return 0;
  const KubernetesConfig& k = *scenario.spec.kubernetes;
  return static_cast<double>(k.hpas.size()) *
         static_cast<double>(simulated.count() / k.hpa_controller.sync_period.count());
}

void run(benchmark::State& state, const Scenario& scenario) {
  const Duration simulated = std::chrono::seconds(state.range(0));
  double offered = 0, events = 0, rescales = 0, series_bytes = 0, last_events = 0;
  std::uint64_t allocated = 0;
  for (auto _ : state) {
    const std::uint64_t allocations_before = bench::allocations_so_far();
    RunResult result = run_scenario(scenario, RunOptions{.until = simulated});
    allocated = bench::allocations_so_far() - allocations_before;
    if (!result.outcome.complete()) {
      state.SkipWithError(result.outcome.message.c_str());
      return;
    }
    const Recorder& recorder = result.recorder();
    offered += kpi_sum(recorder, "client.offered");
    last_events = static_cast<double>(result.outcome.events);
    events += last_events;
    rescales = kpi_sum(recorder, "hpa.rescales");
    series_bytes = static_cast<double>(recorder.point_count()) * (sizeof(std::int64_t) + sizeof(double));
  }
  const double iterations = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(offered));
  state.counters["sim_s_per_wall_s"] =
      benchmark::Counter(to_seconds(simulated) * iterations, benchmark::Counter::kIsRate);
  state.counters["events_per_second"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["events"] = last_events;
  state.counters["hpa_syncs"] = hpa_syncs(scenario, simulated);
  state.counters["hpa_rescales"] = rescales;
  state.counters["series_MiB"] = series_bytes / kMiB;
  state.counters["allocations"] = static_cast<double>(allocated);
}

void BM_Kube_FiftyHpas(benchmark::State& state) {
  const Scenario scenario = load_scenario_file(kScenarioFile);
  run(state, scenario);
}

void BM_Kube_FiftyServicesNoHpa(benchmark::State& state) {
  Scenario scenario = load_scenario_file(kScenarioFile);
  scenario.spec.kubernetes.reset();  // no control plane: the services' replicas stay as declared
  run(state, scenario);
}

// 1 minute (quick checks, profiling), 10 minutes and the 1-hour target. One
// iteration each: a run is long enough to time on its own. On a shared
// machine, pass --benchmark_enable_random_interleaving=true so that the
// repetitions of the two variants alternate and a change in the machine's
// load hits both alike.
BENCHMARK(BM_Kube_FiftyHpas)->Arg(60)->Arg(600)->Arg(3600)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_Kube_FiftyServicesNoHpa)
    ->Arg(60)
    ->Arg(600)
    ->Arg(3600)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace drsim

BENCHMARK_MAIN();

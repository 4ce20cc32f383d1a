// Data tier benchmark: what querying databases through per-pod connection
// pools costs, on the pool pile-up drill (scenarios/three_region_pool_pileup.yaml:
// six pods, two HikariCP pools each, 400 requests/s each making six queries
// of which two are writes, two replicated databases).
//
// BM_Pools_Steady/<simulated seconds>: the scenario without its timeline
// (no failure): the steady cost per query. BM_Pools_PileUp/<s>: as written
// (north lost at 5 min, the pile-up, the recovery at the kernel's give-up).
// Both go through run_scenario, as `drsim run` does.
//
// Counters:
//   items_per_second      pool queries per wall second (pool.queries summed)
//   sim_s_per_wall_s      simulated seconds per wall second
//   events_per_second     engine events per wall second
//   allocations           operator new calls during the run
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

#include "bench/allocation_counter.h"
#include "io/run.h"
#include "io/scenario_loader.h"

namespace drsim {
namespace {

constexpr const char* kScenarioFile = DRSIM_BENCH_DIR "/../scenarios/three_region_pool_pileup.yaml";

double series_sum(const Recorder& recorder, std::string_view metric) {
  double sum = 0;
  for (const Recorder::Series& s : recorder.series_list()) {
    if (s.metric != metric) continue;
    for (double v : s.value) sum += v;
  }
  return sum;
}

void run(benchmark::State& state, const Scenario& scenario) {
  const Duration simulated = std::chrono::seconds(state.range(0));
  double queries = 0, events = 0;
  std::uint64_t allocated = 0;
  for (auto _ : state) {
    const std::uint64_t before = bench::allocations_so_far();
    RunResult result = run_scenario(scenario, RunOptions{.until = simulated});
    allocated = bench::allocations_so_far() - before;
    if (!result.outcome.complete()) {
      state.SkipWithError(result.outcome.message.c_str());
      return;
    }
    queries += series_sum(result.recorder(), "pool.queries");
    events += static_cast<double>(result.outcome.events);
  }
  const double iterations = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(queries));
  state.counters["sim_s_per_wall_s"] =
      benchmark::Counter(to_seconds(simulated) * iterations, benchmark::Counter::kIsRate);
  state.counters["events_per_second"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["allocations"] = static_cast<double>(allocated);
}

void BM_Pools_Steady(benchmark::State& state) {
  Scenario scenario = load_scenario_file(kScenarioFile);
  scenario.spec.timeline.clear();
  scenario.resolved_timeline.clear();
  run(state, scenario);
}

void BM_Pools_PileUp(benchmark::State& state) {
  const Scenario scenario = load_scenario_file(kScenarioFile);
  run(state, scenario);
}

BENCHMARK(BM_Pools_Steady)->Arg(1500)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_Pools_PileUp)->Arg(1500)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);

}  // namespace
}  // namespace drsim

BENCHMARK_MAIN();

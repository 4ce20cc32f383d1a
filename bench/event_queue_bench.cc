// The classic hold model: with N events pending, pop the earliest and push a
// new one at its time + Exp(1 s). The pending count stays N; what is measured
// is the cost of one pop + one push at that size.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <queue>
#include <vector>

#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

Duration exp_delay(RngStream& rng) {
  return Duration{static_cast<std::int64_t>(rng.exponential(1e9)) + 1};
}

void BM_EventQueue_Hold(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  RngStream rng(42, "hold");
  EventQueue queue;
  for (std::size_t i = 0; i < pending; ++i) queue.push(SimTime{exp_delay(rng)}, 0, {}, [] {});
  for (auto _ : state) {
    auto event = queue.pop();
    queue.push(event.time + exp_delay(rng), 0, {}, [] {});
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueue_Hold)->RangeMultiplier(10)->Range(1000, 1000000);

// The baseline the issue quotes: std::priority_queue of {time, seq, id}.
void BM_PriorityQueueBaseline_Hold(benchmark::State& state) {
  struct Entry {
    std::int64_t time;
    std::uint64_t seq;
    std::uint32_t id;
    bool operator>(const Entry& o) const { return time > o.time || (time == o.time && seq > o.seq); }
  };
  const auto pending = static_cast<std::size_t>(state.range(0));
  RngStream rng(42, "hold");
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  std::uint64_t seq = 0;
  for (std::size_t i = 0; i < pending; ++i) queue.push({exp_delay(rng).count(), seq++, 0});
  for (auto _ : state) {
    Entry e = queue.top();
    queue.pop();
    queue.push({e.time + exp_delay(rng).count(), seq++, e.id});
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PriorityQueueBaseline_Hold)->RangeMultiplier(10)->Range(1000, 1000000);

// The same hold model through the full Simulation API: each event's handler
// schedules its successor, as a model's handler would.
struct HoldModel {
  Simulation* sim;
  RngStream rng{42, "hold"};
  void schedule_next() {
    sim->schedule_after(exp_delay(rng), [this] { schedule_next(); });
  }
};

void BM_Simulation_Hold(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  Simulation sim(SimulationOptions{.seed = 42});
  HoldModel model{&sim};
  for (std::size_t i = 0; i < pending; ++i) model.schedule_next();
  for (auto _ : state) sim.step();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Simulation_Hold)->RangeMultiplier(10)->Range(1000, 1000000);

}  // namespace
}  // namespace drsim

BENCHMARK_MAIN();

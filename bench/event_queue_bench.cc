// Event-engine benchmarks. See bench/README.md for the command and the
// recorded medians.
//
// The classic hold model: with N events pending, pop the earliest and push a
// new one at its time + Exp(1 s). The pending count stays N; what is measured
// is the cost of one pop + one push at that size.
//
// The timeout model: N requests in flight, each with a completion at
// + Exp(1 s) and a timeout at + 30 s (2N events pending). A completion cancels
// its request's timeout and starts the next request, so one iteration is a
// pop, a cancel and two pushes: the cancel path under a bimodal load.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <queue>
#include <vector>

#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

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

// ---- timeouts: most scheduled events are cancelled before they fire ----

constexpr Duration kTimeout = 30s;
constexpr const char* kDone = "done";
constexpr const char* kTimedOut = "timeout";

void BM_EventQueue_HoldWithTimeouts(benchmark::State& state) {
  const auto requests = static_cast<std::uint32_t>(state.range(0));
  RngStream rng(42, "hold");
  EventQueue queue;
  std::vector<EventId> done(requests);
  std::vector<EventId> timeout(requests);
  auto start = [&](std::uint32_t r, SimTime now) {
    done[r] = queue.push(now + exp_delay(rng), 0, EventTag{r, kDone}, [] {});
    timeout[r] = queue.push(now + kTimeout, 0, EventTag{r, kTimedOut}, [] {});
  };
  for (std::uint32_t r = 0; r < requests; ++r) start(r, SimTime{});
  std::int64_t fired = 0;
  for (auto _ : state) {
    auto event = queue.pop();
    const std::uint32_t r = event.tag.component;
    if (event.tag.label == kDone) {
      queue.cancel(timeout[r]);
    } else {
      queue.cancel(done[r]);
      ++fired;
    }
    start(r, event.time);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["timeouts_fired"] = static_cast<double>(fired);
}
BENCHMARK(BM_EventQueue_HoldWithTimeouts)->RangeMultiplier(10)->Range(1000, 1000000);

// The same through Simulation, with handlers that capture what they need.
struct TimeoutModel {
  Simulation* sim;
  std::vector<EventId> timeout;
  RngStream rng{42, "hold"};
  std::int64_t fired = 0;
  void start(std::uint32_t r) {
    const EventId completion = sim->schedule_after(exp_delay(rng), [this, r] {
      sim->cancel(timeout[r]);
      start(r);
    });
    timeout[r] = sim->schedule_after(kTimeout, [this, r, completion] {
      sim->cancel(completion);
      ++fired;
      start(r);
    });
  }
};

void BM_Simulation_HoldWithTimeouts(benchmark::State& state) {
  const auto requests = static_cast<std::uint32_t>(state.range(0));
  Simulation sim(SimulationOptions{.seed = 42});
  TimeoutModel model{&sim, std::vector<EventId>(requests)};
  for (std::uint32_t r = 0; r < requests; ++r) model.start(r);
  for (auto _ : state) sim.step();
  state.SetItemsProcessed(state.iterations());
  state.counters["timeouts_fired"] = static_cast<double>(model.fired);
}
BENCHMARK(BM_Simulation_HoldWithTimeouts)->RangeMultiplier(10)->Range(1000, 1000000);

}  // namespace
}  // namespace drsim

BENCHMARK_MAIN();

// Metrics recording benchmarks: the per-observation cost on the hot path.
//
// The target is 72M requests (20,000 rps for a simulated hour) in under 60 s
// of wall time for the whole simulation, so one request's recording (a count,
// a latency, a gauge change or two) must cost well under 100 ns.
//
// Observations are pre-drawn so that the RNG is not measured; time advances
// 50 us per observation (20,000/s), so a 1 s window closes every 20,000
// observations and the window flush is included in the average.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "models/metrics/windowed_metrics.h"
#include "sim/quantile_sketch.h"
#include "sim/recorder.h"
#include "sim/rng.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kDraws = 1 << 16;

std::vector<double> latencies_s() {
  RngStream rng(42, "bench");
  std::vector<double> out(kDraws);
  for (double& x : out) x = rng.lognormal(-4.0, 0.8);  // median ~18 ms
  return out;
}

void BM_QuantileSketch_Add(benchmark::State& state) {
  const auto values = latencies_s();
  QuantileSketch sketch;
  std::size_t i = 0;
  for (auto _ : state) {
    sketch.add(values[i++ & (kDraws - 1)]);
  }
  benchmark::DoNotOptimize(sketch.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_QuantileSketch_Add);

void BM_QuantileSketch_Quantile(benchmark::State& state) {
  const auto values = latencies_s();
  QuantileSketch sketch;
  for (double v : values) sketch.add(v);
  for (auto _ : state) benchmark::DoNotOptimize(sketch.quantile(0.99));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_QuantileSketch_Quantile);

void BM_WindowedMetrics_Counter(benchmark::State& state) {
  Recorder recorder;
  WindowedMetrics metrics(recorder);
  const CounterId ok = metrics.counter("service.succeeded");
  std::int64_t t = 0;
  for (auto _ : state) {
    metrics.add(ok, SimTime{Duration{t}});
    t += 50'000;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WindowedMetrics_Counter);

void BM_WindowedMetrics_Latency(benchmark::State& state) {
  const auto values = latencies_s();
  std::vector<Duration> durations;
  for (double v : values) durations.emplace_back(static_cast<std::int64_t>(v * 1e9));
  Recorder recorder;
  WindowedMetrics metrics(recorder);
  const LatencyId latency = metrics.latency("service.latency");
  std::int64_t t = 0;
  std::size_t i = 0;
  for (auto _ : state) {
    metrics.observe(latency, SimTime{Duration{t}}, durations[i++ & (kDraws - 1)]);
    t += 50'000;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WindowedMetrics_Latency);

// One request as a service model would record it: offered + succeeded
// counters, its latency, and the in-flight gauge going up and down.
void BM_WindowedMetrics_Request(benchmark::State& state) {
  const auto values = latencies_s();
  std::vector<Duration> durations;
  for (double v : values) durations.emplace_back(static_cast<std::int64_t>(v * 1e9));
  Recorder recorder;
  WindowedMetrics metrics(recorder);
  const CounterId offered = metrics.counter("service.offered");
  const CounterId succeeded = metrics.counter("service.succeeded");
  const LatencyId latency = metrics.latency("service.latency");
  const GaugeId in_flight = metrics.gauge("service.in_flight");
  std::int64_t t = 0;
  std::size_t i = 0;
  double level = 0;
  for (auto _ : state) {
    const SimTime now{Duration{t}};
    metrics.add(offered, now);
    metrics.set(in_flight, now, level + 1);
    metrics.add(succeeded, now);
    metrics.observe(latency, now, durations[i++ & (kDraws - 1)]);
    metrics.set(in_flight, now, level);
    level = static_cast<double>(i % 17);
    t += 50'000;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WindowedMetrics_Request);

}  // namespace
}  // namespace drsim

BENCHMARK_MAIN();

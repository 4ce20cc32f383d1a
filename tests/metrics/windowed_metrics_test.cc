#include "models/metrics/windowed_metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/errors.h"
#include "sim/rng.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

const Recorder::Series& find_series(const Recorder& rec, const std::string& metric, const Labels& labels = {}) {
  for (const auto& s : rec.series_list()) {
    if (s.metric == metric && s.labels == labels) return s;
  }
  throw std::runtime_error("no series " + metric);
}

std::vector<std::int64_t> seconds_to_ns(std::initializer_list<double> secs) {
  std::vector<std::int64_t> out;
  for (double s : secs) out.push_back(static_cast<std::int64_t>(std::llround(s * 1e9)));
  return out;
}

TEST(WindowedMetrics, CountsPerWindowIncludingEmptyWindows) {
  Recorder rec;
  WindowedMetrics m(rec);
  const CounterId ok = m.counter("service.requests_ok", {{"service", "api"}});
  m.add(ok, at(100ms));
  m.add(ok, at(900ms), 2);
  m.add(ok, at(1s));          // window 1 starts exactly at 1s
  m.add(ok, at(3500ms));      // window 2 is empty
  m.add(ok, at(3999ms), 0.5);
  m.finish(at(4s));
  const auto& s = find_series(rec, "service.requests_ok", {{"service", "api"}});
  EXPECT_EQ(s.t_ns, seconds_to_ns({0, 1, 2, 3}));  // stamped at window start
  EXPECT_EQ(s.value, (std::vector<double>{3, 1, 0, 1.5}));
  EXPECT_DOUBLE_EQ(m.total(ok), 5.5);
}

TEST(WindowedMetrics, LeadingAndTrailingGapsAreZeros) {
  Recorder rec;
  WindowedMetrics m(rec, {.window = 500ms});
  const CounterId c = m.counter("zone.failed");
  const CounterId idle = m.counter("zone.idle");
  m.add(c, at(1200ms));
  m.finish(at(2500ms));
  EXPECT_EQ(find_series(rec, "zone.failed").value, (std::vector<double>{0, 0, 1, 0, 0}));
  EXPECT_EQ(find_series(rec, "zone.idle").value, (std::vector<double>{0, 0, 0, 0, 0}));
  EXPECT_EQ(find_series(rec, "zone.failed").t_ns, seconds_to_ns({0, 0.5, 1.0, 1.5, 2.0}));
  EXPECT_EQ(m.total(idle), 0.0);
}

TEST(WindowedMetrics, FailuresByCauseAreLabelledSeries) {
  Recorder rec;
  WindowedMetrics m(rec);
  const CounterId timeout = m.counter("service.failed", {{"cause", "timeout"}, {"service", "api"}});
  const CounterId refused = m.counter("service.failed", {{"service", "api"}, {"cause", "refused"}});
  m.add(timeout, at(10ms));
  m.add(refused, at(20ms), 4);
  m.finish(at(1s));
  EXPECT_EQ(find_series(rec, "service.failed", {{"cause", "timeout"}, {"service", "api"}}).value,
            std::vector<double>{1});
  EXPECT_EQ(find_series(rec, "service.failed", {{"cause", "refused"}, {"service", "api"}}).value,
            std::vector<double>{4});
  EXPECT_EQ(m.total(timeout), 1);
  EXPECT_EQ(m.total(refused), 4);
}

TEST(WindowedMetrics, FinishWritesPartialWindow) {
  Recorder rec;
  WindowedMetrics m(rec);
  const CounterId c = m.counter("service.offered");
  const GaugeId g = m.gauge("service.queue_length");
  m.add(c, at(200ms));
  m.set(g, at(1s), 4);
  m.add(c, at(1100ms), 3);
  m.set(g, at(1200ms), 10);
  m.finish(at(1400ms));  // last window [1s, 1.4s): 4 for 0.2s, 10 for 0.2s
  EXPECT_EQ(find_series(rec, "service.offered").value, (std::vector<double>{1, 3}));
  const auto& q = find_series(rec, "service.queue_length");
  EXPECT_EQ(q.t_ns, seconds_to_ns({0, 1}));
  EXPECT_DOUBLE_EQ(q.value[0], 0.0);
  EXPECT_DOUBLE_EQ(q.value[1], 7.0);
  EXPECT_TRUE(m.finished());
  EXPECT_THROW(m.add(c, at(1500ms)), SimulationError);
  EXPECT_THROW(m.finish(at(2s)), SimulationError);
}

TEST(WindowedMetrics, FinishOnBoundaryWritesNoEmptyWindow) {
  Recorder rec;
  WindowedMetrics m(rec);
  const CounterId c = m.counter("service.offered");
  m.add(c, at(500ms));
  m.finish(at(2s));
  EXPECT_EQ(find_series(rec, "service.offered").t_ns, seconds_to_ns({0, 1}));
}

TEST(WindowedMetrics, FinishOnBoundaryKeepsObservationsAtEnd) {
  Recorder rec;
  WindowedMetrics m(rec);
  const CounterId c = m.counter("service.offered");
  const GaugeId g = m.gauge("service.in_flight", {}, 2);
  m.add(c, at(500ms));
  m.add(c, at(2s));  // at the horizon itself
  m.finish(at(2s));
  EXPECT_EQ(find_series(rec, "service.offered").t_ns, seconds_to_ns({0, 1, 2}));
  EXPECT_EQ(find_series(rec, "service.offered").value, (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(find_series(rec, "service.in_flight").value, (std::vector<double>{2, 2, 2}));
  EXPECT_EQ(m.total(c), 2);
  EXPECT_EQ(m.gauge_mean(g), 2.0);
}

TEST(WindowedMetrics, GaugeTimeWeightedMeanByHand) {
  Recorder rec;
  WindowedMetrics m(rec);
  const GaugeId u = m.gauge("zone.utilization", {{"zone", "a"}});
  m.set(u, at(0s), 2);
  m.set(u, at(250ms), 6);  // window 0: 2 for 0.25 s, 6 for 0.75 s -> 5
  m.set(u, at(1500ms), 1);  // window 1: 6 for 0.5 s, 1 for 0.5 s -> 3.5
  m.set(u, at(3750ms), 9);  // window 2: held 1; window 3: 1 for 0.75 s, 9 for 0.25 s -> 3
  m.set(u, at(3800ms), 3);  // window 3: 1*0.75 + 9*0.05 + 3*0.2 = 1.8
  m.finish(at(4s));
  const auto& s = find_series(rec, "zone.utilization", {{"zone", "a"}});
  EXPECT_EQ(s.t_ns, seconds_to_ns({0, 1, 2, 3}));
  ASSERT_EQ(s.value.size(), 4u);
  EXPECT_DOUBLE_EQ(s.value[0], 5.0);
  EXPECT_DOUBLE_EQ(s.value[1], 3.5);
  EXPECT_DOUBLE_EQ(s.value[2], 1.0);
  EXPECT_DOUBLE_EQ(s.value[3], 1.8);
  // Run mean over 4 s: (5 + 3.5 + 1 + 1.8) / 4.
  EXPECT_DOUBLE_EQ(m.gauge_mean(u), 11.3 / 4);
  EXPECT_DOUBLE_EQ(m.gauge_max(u), 9.0);
}

TEST(WindowedMetrics, GaugeSpikeCountsForMaxButNotMean) {
  Recorder rec;
  WindowedMetrics m(rec);
  const GaugeId q = m.gauge("service.queue_length", {}, 1);
  m.set(q, at(500ms), 100);
  m.set(q, at(500ms), 1);  // a zero-length spike
  m.finish(at(1s));
  EXPECT_EQ(find_series(rec, "service.queue_length").value, std::vector<double>{1});
  EXPECT_DOUBLE_EQ(m.gauge_mean(q), 1.0);
  EXPECT_DOUBLE_EQ(m.gauge_max(q), 100.0);
}

TEST(WindowedMetrics, GaugeMeanBeforeFinishIncludesCurrentWindow) {
  Recorder rec;
  WindowedMetrics m(rec);
  const GaugeId g = m.gauge("zone.utilization");
  EXPECT_DOUBLE_EQ(m.gauge_mean(g), 0.0);  // no time has passed: the held value
  m.set(g, at(1500ms), 4);
  m.set(g, at(2s), 4);
  // 0 for 1.5 s, 4 for 0.5 s.
  EXPECT_DOUBLE_EQ(m.gauge_mean(g), 1.0);
}

TEST(WindowedMetrics, LatencyQuantilesPerWindow) {
  Recorder rec;
  WindowedMetrics m(rec);
  const LatencyId lat = m.latency("service.latency", {{"service", "api"}});
  // Window 0: 1..100 ms. Window 1: empty. Window 2: a single 250 ms.
  for (int i = 1; i <= 100; ++i) m.observe(lat, at(std::chrono::milliseconds(5 * i)), std::chrono::milliseconds(i));
  m.observe(lat, at(2100ms), 250ms);
  m.finish(at(3s));
  const Labels labels = {{"service", "api"}};
  const auto& p50 = find_series(rec, "service.latency_p50_s", labels);
  const auto& p90 = find_series(rec, "service.latency_p90_s", labels);
  const auto& p99 = find_series(rec, "service.latency_p99_s", labels);
  const auto& mean = find_series(rec, "service.latency_mean_s", labels);
  EXPECT_EQ(p50.t_ns, seconds_to_ns({0, 2}));  // no point for the empty window
  EXPECT_EQ(p99.t_ns, seconds_to_ns({0, 2}));
  // Exact ranks floor(q * 99): 49 -> 50 ms, 89 -> 90 ms, 98 -> 99 ms.
  EXPECT_NEAR(p50.value[0], 0.050, 0.050 * 0.01);
  EXPECT_NEAR(p90.value[0], 0.090, 0.090 * 0.01);
  EXPECT_NEAR(p99.value[0], 0.099, 0.099 * 0.01);
  EXPECT_NEAR(mean.value[0], 0.0505, 1e-12);
  EXPECT_DOUBLE_EQ(p50.value[1], 0.250);
  EXPECT_DOUBLE_EQ(p99.value[1], 0.250);
  EXPECT_DOUBLE_EQ(mean.value[1], 0.250);
}

TEST(WindowedMetrics, RunQuantilesCoverEveryWindow) {
  Recorder rec;
  WindowedMetrics m(rec, {.window = 100ms});
  const LatencyId lat = m.latency("service.latency");
  RngStream rng(3, "latency");
  std::vector<double> samples;
  for (int i = 0; i < 20000; ++i) {
    const Duration d{static_cast<std::int64_t>(rng.exponential(0.020) * 1e9)};
    samples.push_back(to_seconds(d));
    m.observe(lat, at(std::chrono::microseconds(250 * i)), d);
  }
  std::sort(samples.begin(), samples.end());
  auto check = [&](const char* when) {
    for (double q : {0.5, 0.9, 0.99, 0.999}) {
      const double exact = samples[static_cast<std::size_t>(q * static_cast<double>(samples.size() - 1))];
      EXPECT_NEAR(m.run_quantile(lat, q), exact, exact * 0.01 * (1 + 1e-9)) << when << " q=" << q;
    }
    EXPECT_EQ(m.run_sketch(lat).count(), samples.size()) << when;
  };
  check("before finish");  // the current window is not yet written
  m.finish(at(5s));
  check("after finish");
  EXPECT_EQ(find_series(rec, "service.latency_p99_s").t_ns.size(), 50u);
}

// The trailing quantile merges the last k windows' observations: with q = 1
// it is the exact maximum of the span; empty windows age older ones out.
TEST(WindowedMetrics, TrailingQuantileCoversTheLastWindows) {
  Recorder rec;
  WindowedMetrics m(rec);
  const LatencyId id = m.latency("client.latency", {{"population", "web"}});
  m.trailing_quantile(id, "client.latency_max_window_s", 3, 1.0);
  m.observe(id, at(100ms), 100ms);
  m.observe(id, at(1100ms), 500ms);
  m.observe(id, at(2100ms), 200ms);
  // window 3 is empty
  m.observe(id, at(4100ms), 300ms);
  m.finish(at(8s));
  const auto& s = find_series(rec, "client.latency_max_window_s", {{"population", "web"}});
  // Windows 0-6 each see something in their trailing 3; window 7 (5-7) does not.
  EXPECT_EQ(s.t_ns, seconds_to_ns({0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(s.value, (std::vector<double>{0.1, 0.5, 0.5, 0.5, 0.3, 0.3, 0.3}));
}

// A median over three windows is the median of their pooled samples, not of
// the per-window medians (0.1, 0.3, 0.2): {0.1, 0.2, 0.2, 0.3, 0.3} -> 0.2.
TEST(WindowedMetrics, TrailingQuantilePoolsSamples) {
  Recorder rec;
  WindowedMetrics m(rec);
  const LatencyId id = m.latency("client.latency");
  m.trailing_quantile(id, "client.latency_p50_window_s", 3, 0.5);
  m.observe(id, at(0ms), 100ms);
  m.observe(id, at(1000ms), 300ms);
  m.observe(id, at(1500ms), 300ms);
  m.observe(id, at(2000ms), 200ms);
  m.observe(id, at(2500ms), 200ms);
  m.finish(at(3s));
  const auto& s = find_series(rec, "client.latency_p50_window_s");
  ASSERT_EQ(s.value.size(), 3u);
  EXPECT_NEAR(s.value[0], 0.1, 0.001);
  EXPECT_NEAR(s.value[1], 0.3, 0.003);  // {0.1, 0.3, 0.3}
  EXPECT_NEAR(s.value[2], 0.2, 0.002);
  EXPECT_THROW(m.trailing_quantile(id, "again", 3, 0.5), SimulationError);
}

TEST(WindowedMetrics, TrailingQuantileRejectsBadSettings) {
  Recorder rec;
  WindowedMetrics m(rec);
  const LatencyId id = m.latency("client.latency");
  EXPECT_THROW(m.trailing_quantile(id, "x", 0, 0.5), SimulationError);
  EXPECT_THROW(m.trailing_quantile(id, "x", 2, 1.5), SimulationError);
  EXPECT_THROW(m.trailing_quantile(LatencyId{7}, "x", 2, 0.5), SimulationError);
  EXPECT_THROW(m.trailing_quantile(id, "client.latency_p99_s", 2, 0.5), SimulationError);
}

TEST(WindowedMetrics, RejectsTimeGoingBackwards) {
  Recorder rec;
  WindowedMetrics m(rec);
  const CounterId c = m.counter("service.offered");
  const GaugeId g = m.gauge("service.in_flight");
  const LatencyId l = m.latency("service.latency");
  m.add(c, at(2s));
  // Shared clock: another metric of the helper cannot go back either.
  EXPECT_THROW(m.set(g, at(1999ms), 1), SimulationError);
  EXPECT_THROW(m.observe(l, at(1s), 1ms), SimulationError);
  EXPECT_THROW(m.add(c, at(1s)), SimulationError);
  EXPECT_THROW(m.finish(at(1s)), SimulationError);
  EXPECT_NO_THROW(m.add(c, at(2s)));  // equal time is fine
  try {
    m.add(c, at(500ms));
    FAIL() << "expected SimulationError";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("backwards"), std::string::npos) << e.what();
  }
}

TEST(WindowedMetrics, RejectsBadValuesAndIds) {
  Recorder rec;
  WindowedMetrics m(rec);
  const CounterId c = m.counter("service.offered");
  const GaugeId g = m.gauge("service.in_flight");
  const LatencyId l = m.latency("service.latency");
  EXPECT_THROW(m.add(c, at(0s), -1), SimulationError);
  EXPECT_THROW(m.add(c, at(0s), std::nan("")), SimulationError);
  EXPECT_THROW(m.set(g, at(0s), std::numeric_limits<double>::infinity()), SimulationError);
  EXPECT_THROW(m.observe(l, at(0s), -1ms), SimulationError);
  EXPECT_THROW(m.add(CounterId{7}, at(0s)), SimulationError);
  EXPECT_THROW(m.total(CounterId{7}), SimulationError);
  EXPECT_THROW(m.observe(LatencyId{3}, at(0s), 1ms), SimulationError);
  EXPECT_THROW(m.set(GaugeId{1}, at(0s), 1), SimulationError);
  EXPECT_THROW(WindowedMetrics(rec, {.window = 0s}), SimulationError);
  EXPECT_THROW(WindowedMetrics(rec, {.relative_accuracy = 2}), SimulationError);
  EXPECT_THROW(m.counter("BadName"), SimulationError);
}

TEST(WindowedMetrics, RedeclaringReturnsSameIdOtherKindThrows) {
  Recorder rec;
  WindowedMetrics m(rec);
  const CounterId a = m.counter("service.offered", {{"zone", "a"}});
  const CounterId b = m.counter("service.offered", {{"zone", "b"}});
  EXPECT_NE(a.index, b.index);
  EXPECT_EQ(m.counter("service.offered", {{"zone", "a"}}).index, a.index);
  const LatencyId l = m.latency("service.latency");
  EXPECT_EQ(m.latency("service.latency").index, l.index);
  EXPECT_THROW(m.gauge("service.offered", {{"zone", "a"}}), SimulationError);
  EXPECT_THROW(m.gauge("service.latency_p99_s"), SimulationError);
  // A series another helper already writes.
  WindowedMetrics other(rec);
  const CounterId o = other.counter("service.other");
  other.add(o, at(1s));
  other.finish(at(2s));
  EXPECT_THROW(m.counter("service.other"), SimulationError);
}

TEST(WindowedMetrics, LongGapWritesEveryWindow) {
  Recorder rec;
  WindowedMetrics m(rec);
  const CounterId c = m.counter("service.offered");
  const GaugeId g = m.gauge("service.replicas", {}, 3);
  const LatencyId l = m.latency("service.latency");
  m.observe(l, at(0s), 10ms);
  m.add(c, at(1h));
  m.finish(at(1h + 500ms));
  const auto& counts = find_series(rec, "service.offered");
  ASSERT_EQ(counts.value.size(), 3601u);
  EXPECT_EQ(std::count(counts.value.begin(), counts.value.end(), 0.0), 3600);
  EXPECT_EQ(counts.value.back(), 1.0);
  const auto& replicas = find_series(rec, "service.replicas");
  ASSERT_EQ(replicas.value.size(), 3601u);
  EXPECT_TRUE(std::all_of(replicas.value.begin(), replicas.value.end(), [](double v) { return v == 3.0; }));
  EXPECT_EQ(find_series(rec, "service.latency_p50_s").value.size(), 1u);
  EXPECT_DOUBLE_EQ(m.gauge_mean(g), 3.0);
}

TEST(WindowedMetrics, ManyObservationsKeepMemoryBounded) {
  // 20 s at 20,000 observations/s: the recorder holds one point per window.
  Recorder rec;
  WindowedMetrics m(rec);
  const CounterId ok = m.counter("service.succeeded");
  const LatencyId lat = m.latency("service.latency");
  const GaugeId inflight = m.gauge("service.in_flight");
  RngStream rng(11, "hot");
  for (std::int64_t i = 0; i < 400'000; ++i) {
    const SimTime t = at(std::chrono::microseconds(50 * i));
    m.add(ok, t);
    m.observe(lat, t, Duration{static_cast<std::int64_t>(rng.exponential(0.015) * 1e9)});
    m.set(inflight, t, static_cast<double>(i % 7));
  }
  m.finish(at(20s));
  EXPECT_EQ(find_series(rec, "service.succeeded").value.size(), 20u);
  EXPECT_EQ(find_series(rec, "service.latency_p99_s").value.size(), 20u);
  EXPECT_EQ(m.total(ok), 400'000);
  EXPECT_EQ(rec.point_count(), 20u * (1 + 4 + 1));
  EXPECT_LE(m.run_sketch(lat).allocated_buckets(), QuantileSketch::kDefaultMaxBuckets);
}

// The intended use: a component declares its metrics in attach(), records from
// its handlers and finishes in stop().
class PoissonSource : public Component {
 public:
  explicit PoissonSource(std::string name) : Component(std::move(name)) {}
  std::optional<WindowedMetrics> metrics;
  CounterId arrivals;
  GaugeId busy;

 protected:
  void attach() override {
    metrics.emplace(recorder(), WindowedMetricsConfig{.window = 10s});
    arrivals = metrics->counter("source.arrivals", {{"source", name()}});
    busy = metrics->gauge("source.busy", {{"source", name()}});
  }
  void start() override { next(); }
  void stop() override { metrics->finish(now()); }

 private:
  void next() {
    schedule_after(Duration{static_cast<std::int64_t>(rng().exponential(0.01) * 1e9)}, "arrive", [this] {
      metrics->add(arrivals, now());
      metrics->set(busy, now(), busy_now_ = 1 - busy_now_);
      next();
    });
  }
  double busy_now_ = 0;
};

TEST(WindowedMetrics, InsideASimulation) {
  Simulation sim({.seed = 9});
  PoissonSource& src = sim.add<PoissonSource>("src");
  sim.run_until(at(95s));
  sim.finish();
  const auto& s = find_series(sim.recorder(), "source.arrivals", {{"source", "src"}});
  ASSERT_EQ(s.value.size(), 10u);  // 9 full windows and [90s, 95s)
  double sum = 0;
  for (double v : s.value) sum += v;
  EXPECT_EQ(sum, src.metrics->total(src.arrivals));
  EXPECT_NEAR(src.metrics->total(src.arrivals), 9500, 4 * std::sqrt(9500.0));  // Poisson, 100/s
  EXPECT_NEAR(src.metrics->gauge_mean(src.busy), 0.5, 0.05);
  EXPECT_EQ(src.metrics->gauge_max(src.busy), 1.0);
}

}  // namespace
}  // namespace drsim

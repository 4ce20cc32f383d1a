#pragma once
// WindowedMetrics: per-window series (counts, latency quantiles, time-weighted
// gauges) recorded into the Recorder, plus run-level aggregates for KPIs. It
// is a helper owned by components, not a Component itself.
//
// Windows are [k*w, (k+1)*w) from the start of the run (w = window, default
// 1 s). A window's point is stamped at the window START: the point at t=3s
// with w=1s describes [3s, 4s).
//
// Per window the helper writes:
//   counter  metric                     the count in the window; 0 for empty
//                                       windows, so plots are continuous
//   latency  <prefix>_p50_s, _p90_s,    quantiles (from a relative-error
//            _p99_s, _mean_s            sketch, never stored samples) and mean
//                                       of the window's observations, in
//                                       seconds; no point for empty windows
//   gauge    metric                     the time-weighted mean of the
//                                       piecewise-constant value over the
//                                       window (the held value for windows
//                                       without changes)
//
// Flushing is lazy: all metrics of one helper share one clock, and times
// passed to add/observe/set/finish must not go backwards across them
// (SimulationError). When an observation's time passes a window boundary,
// every completed window is written for every metric, gaps included.
// finish(end) writes the last, partial window [k*w, end): counters as counted,
// gauges as their mean over the partial length. If end falls exactly on a
// boundary, that empty zero-length window is written only if something was
// observed at t == end (counters/latencies as observed, gauges at their held
// value). Call finish() from the owning component's stop(); observations after
// it throw.
//
// The per-observation path is an index, a time comparison and an add (plus
// one logarithm for a latency): no allocation, memory independent of the
// number of observations. Series are declared in the Recorder when a metric is
// declared (call the declaring functions from attach()).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/quantile_sketch.h"
#include "sim/recorder.h"
#include "sim/time.h"

namespace drsim {

struct WindowedMetricsConfig {
  Duration window = std::chrono::seconds(1);  // > 0
  double relative_accuracy = QuantileSketch::kDefaultRelativeAccuracy;
  std::size_t max_buckets = QuantileSketch::kDefaultMaxBuckets;

  // Throws SimulationError on a non-positive window or a bad sketch setting.
  void validate() const;
};

struct CounterId {
  std::uint32_t index = 0;
};
struct LatencyId {
  std::uint32_t index = 0;
};
struct GaugeId {
  std::uint32_t index = 0;
};

class WindowedMetrics {
 public:
  // Keeps a reference to recorder: it must outlive this helper.
  explicit WindowedMetrics(Recorder& recorder, WindowedMetricsConfig config = {});
  // Not copyable: two copies would write the same series twice.
  WindowedMetrics(const WindowedMetrics&) = delete;
  WindowedMetrics& operator=(const WindowedMetrics&) = delete;
  WindowedMetrics(WindowedMetrics&&) = default;

  // ---- declaring (at attach time). Declaring the same metric + labels twice
  // with the same kind returns the same id; with another kind, or for a series
  // that already has points (another helper writes it), it throws.
  CounterId counter(std::string_view metric, Labels labels = {});
  LatencyId latency(std::string_view metric_prefix, Labels labels = {});
  // The gauge holds `initial` from the helper's current time until its first set().
  GaugeId gauge(std::string_view metric, Labels labels = {}, double initial = 0);
  // Adds a trailing-window quantile to a declared latency: each window also
  // writes `metric` (with the latency's labels), the q-quantile of the
  // observations of the last `windows` windows, this one included, stamped
  // like the others at this window's start. Early in the run the trailing
  // span is shorter (what has been seen so far). An objective on "p99 over
  // any minute" needs this: per-window p99s cannot be combined afterwards.
  // Once per latency; windows >= 1, q in [0, 1].
  void trailing_quantile(LatencyId id, std::string_view metric, std::size_t windows, double q);

  // ---- recording (hot path)
  // n must be finite and >= 0.
  void add(CounterId id, SimTime t, double n = 1) {
    Counter& c = counter_at(id);
    advance(t);
    if (!(n >= 0) || n > kMaxCount) bad_count(c, n);
    c.window += n;
    c.total += n;
  }
  // d must be >= 0.
  void observe(LatencyId id, SimTime t, Duration d) {
    Latency& l = latency_at(id);
    advance(t);
    if (d < Duration::zero()) bad_latency(l, d);
    l.window.add(to_seconds(d));
  }
  // value must be finite.
  void set(GaugeId id, SimTime t, double value) {
    Gauge& g = gauge_at(id);
    advance(t);
    if (!std::isfinite(value)) bad_value(g);
    const std::int64_t ns = to_ns(t);
    g.window_integral += g.value * static_cast<double>(ns - g.last_change_ns);
    g.last_change_ns = ns;
    g.value = value;
    g.run_max = std::max(g.run_max, value);
  }

  // Writes every window up to end, the last one partial. Once only.
  void finish(SimTime end);
  bool finished() const { return finished_; }

  // ---- run-level aggregates (include the current, unwritten window)
  double total(CounterId id) const;
  // Quantile of every observation of the run, in seconds; NaN if none.
  double run_quantile(LatencyId id, double q) const;
  // Every observation of the run (current window included).
  QuantileSketch run_sketch(LatencyId id) const;
  // Time-weighted mean from the gauge's declaration to the last time seen
  // (finish's end once finished); the held value if no time has passed.
  double gauge_mean(GaugeId id) const;
  // Largest value the gauge ever held (initial value included), even for an
  // instant.
  double gauge_max(GaugeId id) const;

  Duration window() const { return config_.window; }
  // The latest time seen by this helper.
  SimTime last_time() const { return SimTime{Duration{last_ns_}}; }

 private:
  static constexpr double kMaxCount = 1e300;

  struct Counter {
    SeriesId series;
    std::string name;
    double window = 0;
    double total = 0;
  };
  // The last windows' sketches, a ring (next: the oldest, overwritten next).
  struct Trailing {
    SeriesId series;
    double q = 0.99;
    std::vector<QuantileSketch> ring;
    std::size_t next = 0;
    QuantileSketch merged;
  };
  struct Latency {
    SeriesId p50, p90, p99, mean;
    std::string name;
    QuantileSketch window;
    QuantileSketch run;
    Labels labels;
    std::optional<Trailing> trailing;
  };
  struct Gauge {
    SeriesId series;
    std::string name;
    double value = 0;
    std::int64_t since_ns = 0;        // start of the current window's coverage
    std::int64_t last_change_ns = 0;  // when value was last set (or integrated up to)
    double window_integral = 0;       // value * ns over [since_ns, last_change_ns)
    std::int64_t start_ns = 0;        // declaration time
    double run_integral = 0;          // over [start_ns, since_ns)
    double run_max = 0;
  };
  enum class Kind : std::uint8_t { kCounter, kLatency, kGauge };
  struct Owned {
    Kind kind;
    std::uint32_t index;
  };

  // The recording functions are inline (they run several times per request);
  // their error paths are out of line.
  Counter& counter_at(CounterId id) {
    if (id.index >= counters_.size()) bad_id("counter", id.index);
    return counters_[id.index];
  }
  Latency& latency_at(LatencyId id) {
    if (id.index >= latencies_.size()) bad_id("latency", id.index);
    return latencies_[id.index];
  }
  Gauge& gauge_at(GaugeId id) {
    if (id.index >= gauges_.size()) bad_id("gauge", id.index);
    return gauges_[id.index];
  }
  // Checks t against the shared clock and writes completed windows.
  void advance(SimTime t) {
    const std::int64_t ns = to_ns(t);
    if (ns < last_ns_ || finished_) bad_time(ns);
    last_ns_ = ns;
    if (ns >= window_end_ns_) flush_until(ns);
    observed_in_window_ = true;
  }
  void flush_until(std::int64_t ns);
  void write_window(std::int64_t start_ns, std::int64_t end_ns);
  void write_trailing(Latency& l, SimTime stamp);
  // Declares the series; returns the index of the metric of this kind that
  // already writes it, or kNew (then the caller records ownership).
  static constexpr std::uint32_t kNew = UINT32_MAX;
  std::uint32_t claim(SeriesId series, Kind kind, std::string_view name) const;
  [[noreturn]] void bad_id(const char* kind, std::uint32_t index) const;
  [[noreturn]] void bad_time(std::int64_t ns) const;
  [[noreturn]] void bad_count(const Counter& c, double n) const;
  [[noreturn]] void bad_latency(const Latency& l, Duration d) const;
  [[noreturn]] void bad_value(const Gauge& g) const;

  Recorder& recorder_;
  WindowedMetricsConfig config_;
  std::int64_t window_ns_;
  std::int64_t window_start_ns_ = 0;  // current (unwritten) window
  std::int64_t window_end_ns_;
  std::int64_t last_ns_ = 0;
  bool observed_in_window_ = false;  // for the zero-length last window
  bool finished_ = false;
  std::vector<Counter> counters_;
  std::vector<Latency> latencies_;
  std::vector<Gauge> gauges_;
  std::map<std::uint32_t, Owned> owned_;  // series index -> the metric of this helper writing it
};

}  // namespace drsim

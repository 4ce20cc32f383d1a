#include "models/metrics/windowed_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "sim/errors.h"

namespace drsim {

namespace {

std::string describe(std::string_view metric, const Labels& labels) {
  std::string text(metric);
  if (!labels.empty()) {
    text += '{';
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (i != 0) text += ',';
      text += labels[i].first + '=' + labels[i].second;
    }
    text += '}';
  }
  return text;
}

}  // namespace

void WindowedMetricsConfig::validate() const {
  if (window <= Duration::zero()) {
    throw SimulationError("windowed metrics: window must be positive, got " + format_seconds(window) + "s");
  }
  QuantileSketch check(relative_accuracy, max_buckets);  // throws on bad settings
  (void)check;
}

WindowedMetrics::WindowedMetrics(Recorder& recorder, WindowedMetricsConfig config)
    : recorder_(recorder), config_(config) {
  config_.validate();
  window_ns_ = to_ns(config_.window);
  window_end_ns_ = window_ns_;
}

std::uint32_t WindowedMetrics::claim(SeriesId series, Kind kind, std::string_view name) const {
  if (auto it = owned_.find(series.index); it != owned_.end()) {
    if (it->second.kind != kind) {
      throw SimulationError("windowed metrics: series " + std::string(name) +
                            " is already declared as another kind of metric");
    }
    return it->second.index;
  }
  if (!recorder_.series_at(series).t_ns.empty()) {
    throw SimulationError("windowed metrics: series " + std::string(name) + " already has points written elsewhere");
  }
  return kNew;
}

CounterId WindowedMetrics::counter(std::string_view metric, Labels labels) {
  const std::string name = describe(metric, labels);
  const SeriesId series = recorder_.series(metric, std::move(labels));
  if (const std::uint32_t existing = claim(series, Kind::kCounter, name); existing != kNew) {
    return CounterId{existing};
  }
  const auto index = static_cast<std::uint32_t>(counters_.size());
  counters_.push_back(Counter{series, name, 0, 0});
  owned_.emplace(series.index, Owned{Kind::kCounter, index});
  return CounterId{index};
}

LatencyId WindowedMetrics::latency(std::string_view metric_prefix, Labels labels) {
  const std::string prefix(metric_prefix);
  const std::string name = describe(metric_prefix, labels);
  const SeriesId p50 = recorder_.series(prefix + "_p50_s", labels);
  if (const std::uint32_t existing = claim(p50, Kind::kLatency, name); existing != kNew) {
    return LatencyId{existing};
  }
  const SeriesId p90 = recorder_.series(prefix + "_p90_s", labels);
  const SeriesId p99 = recorder_.series(prefix + "_p99_s", labels);
  const SeriesId mean = recorder_.series(prefix + "_mean_s", labels);
  for (SeriesId s : {p90, p99, mean}) {
    if (claim(s, Kind::kLatency, name) != kNew) {
      throw SimulationError("windowed metrics: series of latency " + name + " are already declared");
    }
  }
  const auto index = static_cast<std::uint32_t>(latencies_.size());
  latencies_.push_back(Latency{p50, p90, p99, mean, name,
                               QuantileSketch(config_.relative_accuracy, config_.max_buckets),
                               QuantileSketch(config_.relative_accuracy, config_.max_buckets), std::move(labels),
                               std::nullopt});
  for (SeriesId s : {p50, p90, p99, mean}) owned_.emplace(s.index, Owned{Kind::kLatency, index});
  return LatencyId{index};
}

void WindowedMetrics::trailing_quantile(LatencyId id, std::string_view metric, std::size_t windows, double q) {
  Latency& l = latency_at(id);
  if (l.trailing) throw SimulationError("windowed metrics: latency " + l.name + " already has a trailing quantile");
  if (windows == 0 || !(q >= 0 && q <= 1)) {
    throw SimulationError("windowed metrics: latency " + l.name + ": trailing quantile needs windows >= 1 and q in [0, 1]");
  }
  const SeriesId series = recorder_.series(metric, l.labels);
  if (claim(series, Kind::kLatency, l.name) != kNew) {
    throw SimulationError("windowed metrics: series " + std::string(metric) + " of latency " + l.name +
                          " is already declared");
  }
  Trailing t;
  t.series = series;
  t.q = q;
  t.ring.assign(windows, QuantileSketch(config_.relative_accuracy, config_.max_buckets));
  t.merged = QuantileSketch(config_.relative_accuracy, config_.max_buckets);
  l.trailing = std::move(t);
  owned_.emplace(series.index, Owned{Kind::kLatency, id.index});
}

GaugeId WindowedMetrics::gauge(std::string_view metric, Labels labels, double initial) {
  const std::string name = describe(metric, labels);
  if (!std::isfinite(initial)) {
    throw SimulationError("windowed metrics: gauge " + name + ": initial value must be finite");
  }
  const SeriesId series = recorder_.series(metric, std::move(labels));
  if (const std::uint32_t existing = claim(series, Kind::kGauge, name); existing != kNew) {
    return GaugeId{existing};
  }
  const auto index = static_cast<std::uint32_t>(gauges_.size());
  Gauge g;
  g.series = series;
  g.name = name;
  g.value = initial;
  g.since_ns = g.last_change_ns = g.start_ns = last_ns_;
  g.run_max = initial;
  gauges_.push_back(std::move(g));
  owned_.emplace(series.index, Owned{Kind::kGauge, index});
  return GaugeId{index};
}

void WindowedMetrics::flush_until(std::int64_t ns) {
  while (ns >= window_end_ns_) {
    write_window(window_start_ns_, window_end_ns_);
    window_start_ns_ = window_end_ns_;
    window_end_ns_ += window_ns_;
  }
}

void WindowedMetrics::write_window(std::int64_t start_ns, std::int64_t end_ns) {
  const SimTime stamp{Duration{start_ns}};
  for (Counter& c : counters_) {
    recorder_.record(c.series, stamp, c.window);
    c.window = 0;
  }
  for (Latency& l : latencies_) {
    if (l.trailing) write_trailing(l, stamp);
    if (l.window.empty()) continue;
    recorder_.record(l.p50, stamp, l.window.quantile(0.50));
    recorder_.record(l.p90, stamp, l.window.quantile(0.90));
    recorder_.record(l.p99, stamp, l.window.quantile(0.99));
    recorder_.record(l.mean, stamp, l.window.mean());
    l.run.merge(l.window);
    l.window.clear();
  }
  for (Gauge& g : gauges_) {
    g.window_integral += g.value * static_cast<double>(end_ns - g.last_change_ns);
    const std::int64_t covered = end_ns - g.since_ns;
    const double mean = covered > 0 ? g.window_integral / static_cast<double>(covered) : g.value;
    recorder_.record(g.series, stamp, mean);
    g.run_integral += g.window_integral;
    g.window_integral = 0;
    g.since_ns = g.last_change_ns = end_ns;
  }
  observed_in_window_ = false;
}

void WindowedMetrics::write_trailing(Latency& l, SimTime stamp) {
  // Every window enters the ring, empty ones too: they age the older ones out.
  Trailing& t = *l.trailing;
  t.ring[t.next].clear();
  t.ring[t.next].merge(l.window);
  t.next = (t.next + 1) % t.ring.size();
  t.merged.clear();
  for (const QuantileSketch& s : t.ring) t.merged.merge(s);
  if (!t.merged.empty()) recorder_.record(t.series, stamp, t.merged.quantile(t.q));
}

void WindowedMetrics::finish(SimTime end) {
  if (finished_) throw SimulationError("windowed metrics: finish() called twice");
  const std::int64_t ns = to_ns(end);
  if (ns < last_ns_) bad_time(ns);
  last_ns_ = ns;
  if (ns >= window_end_ns_) flush_until(ns);
  if (ns > window_start_ns_ || observed_in_window_) write_window(window_start_ns_, ns);
  finished_ = true;
}

double WindowedMetrics::total(CounterId id) const {
  if (id.index >= counters_.size()) bad_id("counter", id.index);
  return counters_[id.index].total;
}

QuantileSketch WindowedMetrics::run_sketch(LatencyId id) const {
  if (id.index >= latencies_.size()) bad_id("latency", id.index);
  const Latency& l = latencies_[id.index];
  QuantileSketch all = l.run;
  all.merge(l.window);
  return all;
}

double WindowedMetrics::run_quantile(LatencyId id, double q) const {
  if (id.index >= latencies_.size()) bad_id("latency", id.index);
  const Latency& l = latencies_[id.index];
  if (l.window.empty()) return l.run.quantile(q);
  return run_sketch(id).quantile(q);
}

double WindowedMetrics::gauge_mean(GaugeId id) const {
  if (id.index >= gauges_.size()) bad_id("gauge", id.index);
  const Gauge& g = gauges_[id.index];
  const std::int64_t duration = last_ns_ - g.start_ns;
  if (duration <= 0) return g.value;
  const double integral =
      g.run_integral + g.window_integral + g.value * static_cast<double>(last_ns_ - g.last_change_ns);
  return integral / static_cast<double>(duration);
}

double WindowedMetrics::gauge_max(GaugeId id) const {
  if (id.index >= gauges_.size()) bad_id("gauge", id.index);
  return gauges_[id.index].run_max;
}

void WindowedMetrics::bad_id(const char* kind, std::uint32_t index) const {
  throw SimulationError(std::string("windowed metrics: ") + kind + " id " + std::to_string(index) +
                        " was not declared by this helper");
}

void WindowedMetrics::bad_time(std::int64_t ns) const {
  if (finished_) {
    throw SimulationError("windowed metrics: observation at " + format_clock(SimTime{Duration{ns}}) +
                          " after finish()");
  }
  throw SimulationError("windowed metrics: time went backwards (" + format_clock(SimTime{Duration{ns}}) + " after " +
                        format_clock(SimTime{Duration{last_ns_}}) + ")");
}

void WindowedMetrics::bad_latency(const Latency& l, Duration d) const {
  throw SimulationError("windowed metrics: latency " + l.name + ": negative duration " + format_seconds(d) + "s");
}

void WindowedMetrics::bad_value(const Gauge& g) const {
  throw SimulationError("windowed metrics: gauge " + g.name + ": value must be finite");
}

void WindowedMetrics::bad_count(const Counter& c, double n) const {
  throw SimulationError("windowed metrics: counter " + c.name + ": increment must be finite and >= 0, got " +
                        std::to_string(n));
}

}  // namespace drsim

#pragma once
// Reading a run's recorded series in tests: the drills assert qualitative
// outcomes from the series the run wrote, as a user would read them.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string_view>

#include "sim/recorder.h"
#include "sim/time.h"

namespace drsim::test_support {

// True when every given label is among the series' labels.
inline bool has_labels(const Recorder::Series& s, const Labels& labels) {
  for (const auto& [k, v] : labels) {
    bool found = false;
    for (const auto& [k2, v2] : s.labels) found |= (k == k2 && v == v2);
    if (!found) return false;
  }
  return true;
}

// The points of metric{labels} (all given labels must match), by window start
// in ns. An empty map (and a test failure) when there is no such series.
inline std::map<std::int64_t, double> series(const Recorder& rec, std::string_view metric, const Labels& labels) {
  for (const Recorder::Series& s : rec.series_list()) {
    if (s.metric != metric || !has_labels(s, labels)) continue;
    std::map<std::int64_t, double> out;
    for (std::size_t i = 0; i < s.t_ns.size(); ++i) out[s.t_ns[i]] = s.value[i];
    return out;
  }
  ADD_FAILURE() << "no series " << metric;
  return {};
}

// The KPI's value, or -1 (and a test failure) when there is no such KPI.
inline double kpi(const Recorder& rec, std::string_view name, const Labels& labels) {
  const Recorder::Kpi* k = rec.find_kpi(name, labels);
  EXPECT_NE(k, nullptr) << name;
  return k == nullptr ? -1 : k->value;
}

// Smallest and largest value over the windows starting in [from, to).
struct Range {
  double min = 0, max = 0;
};
inline Range range(const std::map<std::int64_t, double>& points, Duration from, Duration to) {
  Range r{1e300, -1e300};
  for (const auto& [t, v] : points) {
    if (t < from.count() || t >= to.count()) continue;
    r.min = std::min(r.min, v);
    r.max = std::max(r.max, v);
  }
  return r;
}

// Mean of the windows starting in [from, to) (each window counted once).
inline double mean(const std::map<std::int64_t, double>& points, Duration from, Duration to) {
  double sum = 0, n = 0;
  for (const auto& [t, v] : points) {
    if (t < from.count() || t >= to.count()) continue;
    sum += v;
    ++n;
  }
  return n == 0 ? 0 : sum / n;
}

// The first window start at or after `from` whose value satisfies pred, or -1.
template <class Pred>
double first_time_s(const std::map<std::int64_t, double>& points, Duration from, Pred pred) {
  for (const auto& [t, v] : points) {
    if (t >= from.count() && pred(v)) return static_cast<double>(t) / 1e9;
  }
  return -1;
}

}  // namespace drsim::test_support

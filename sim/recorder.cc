#include "sim/recorder.h"

#include <algorithm>
#include <set>

#include "sim/errors.h"

namespace drsim {

void Recorder::check_metric_name(std::string_view name) {
  // [a-z][a-z0-9_]* ( "." [a-z0-9_]+ )+
  bool ok = !name.empty() && name.front() >= 'a' && name.front() <= 'z';
  bool has_dot = false;
  char previous = '\0';
  for (char c : name) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (c == '.') {
      if (previous == '.' || previous == '\0') ok = false;
      has_dot = true;
    } else if (!word) {
      ok = false;
    }
    previous = c;
  }
  if (!ok || !has_dot || previous == '.') {
    throw SimulationError("metric name \"" + std::string(name) +
                          "\" is not dotted lowercase (e.g. \"zone.utilization\")");
  }
}

Labels Recorder::normalized(Labels labels) {
  std::sort(labels.begin(), labels.end());
  for (std::size_t i = 1; i < labels.size(); ++i) {
    if (labels[i].first == labels[i - 1].first) {
      throw SimulationError("label \"" + labels[i].first + "\" given twice");
    }
  }
  return labels;
}

SeriesId Recorder::series(std::string_view metric, Labels labels) {
  check_metric_name(metric);
  labels = normalized(std::move(labels));
  auto key = std::make_pair(std::string(metric), labels);
  if (auto it = index_.find(key); it != index_.end()) return SeriesId{it->second};
  const auto index = static_cast<std::uint32_t>(series_.size());
  series_.push_back(Series{std::string(metric), std::move(labels), {}, {}});
  index_.emplace(std::move(key), index);
  return SeriesId{index};
}

Recorder::Series& Recorder::checked(SeriesId id, SimTime t) {
  if (id.index >= series_.size()) {
    throw SimulationError("series id " + std::to_string(id.index) + " was not declared with series()");
  }
  Series& s = series_[id.index];
  if (!s.t_ns.empty() && to_ns(t) < s.t_ns.back()) {
    throw SimulationError("series " + s.metric + ": time went backwards (" + format_clock(t) + " after " +
                          format_clock(SimTime{Duration{s.t_ns.back()}}) + ")");
  }
  return s;
}

void Recorder::record(SeriesId id, SimTime t, double value) {
  Series& s = checked(id, t);
  s.t_ns.push_back(to_ns(t));
  s.value.push_back(value);
}

void Recorder::record_change(SeriesId id, SimTime t, double value) {
  Series& s = checked(id, t);
  if (!s.value.empty() && s.value.back() == value) return;
  s.t_ns.push_back(to_ns(t));
  s.value.push_back(value);
}

const Recorder::Series& Recorder::series_at(SeriesId id) const {
  if (id.index >= series_.size()) {
    throw SimulationError("series id " + std::to_string(id.index) + " was not declared with series()");
  }
  return series_[id.index];
}

void Recorder::event(SimTime t, std::string_view component, const EventKind& kind, std::string_view detail) {
  events_.t_ns.push_back(to_ns(t));
  events_.component.emplace_back(component);
  events_.kind.emplace_back(kind.name());
  events_.detail.emplace_back(detail);
}

void Recorder::kpi(std::string_view name, Labels labels, double value) {
  check_metric_name(name);
  auto key = std::make_pair(std::string(name), normalized(std::move(labels)));
  if (const auto it = kpi_index_.find(key); it != kpi_index_.end()) {
    kpis_[it->second].value = value;
    return;
  }
  kpis_.push_back(Kpi{key.first, key.second, value});
  kpi_index_.emplace(std::move(key), kpis_.size() - 1);
}

const Recorder::Kpi* Recorder::find_kpi(std::string_view name, const Labels& labels) const {
  const auto it = kpi_index_.find(std::make_pair(std::string(name), normalized(labels)));
  return it == kpi_index_.end() ? nullptr : &kpis_[it->second];
}

std::vector<std::string> Recorder::label_keys() const {
  std::set<std::string> keys;
  for (const Series& s : series_) {
    for (const auto& [k, v] : s.labels) keys.insert(k);
  }
  for (const Kpi& k : kpis_) {
    for (const auto& [key, v] : k.labels) keys.insert(key);
  }
  return {keys.begin(), keys.end()};
}

std::size_t Recorder::point_count() const {
  std::size_t n = 0;
  for (const Series& s : series_) n += s.t_ns.size();
  return n;
}

}  // namespace drsim

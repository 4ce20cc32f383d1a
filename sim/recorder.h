#pragma once
// The Recorder stores what a run observed, as columns rather than objects:
// per series (metric + labels) a vector of t_ns and a vector of values; an
// events table (t, component, kind, detail); and the run's KPIs. Python turns
// these columns into pandas DataFrames without per-row Python objects.
//
// Labels (region, zone, service, ...) are columns, never parts of a metric
// name. Metric names are dotted lowercase: "zone.up", "service.latency_p99_s".
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/event_kind.h"
#include "sim/time.h"

namespace drsim {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct SeriesId {
  std::uint32_t index = 0;
};

class Recorder {
 public:
  struct Series {
    std::string metric;
    Labels labels;  // sorted by key
    std::vector<std::int64_t> t_ns;
    std::vector<double> value;
  };
  struct Events {
    std::vector<std::int64_t> t_ns;
    std::vector<std::string> component;
    std::vector<std::string> kind;
    std::vector<std::string> detail;
    std::size_t size() const { return t_ns.size(); }
  };
  struct Kpi {
    std::string name;
    Labels labels;  // sorted by key
    double value;
  };

  // Declares (or finds) the series for metric + labels. Call it once, when a
  // component attaches, and keep the id: recording by id is the hot path.
  SeriesId series(std::string_view metric, Labels labels = {});

  // Appends a point. Times must not go backwards within a series
  // (SimulationError); an id not returned by series() is an error too.
  void record(SeriesId id, SimTime t, double value);
  // Appends a point only when the value differs from the last one: for step
  // signals such as "zone.up" or replica counts. Same checks as record().
  void record_change(SeriesId id, SimTime t, double value);

  void event(SimTime t, std::string_view component, const EventKind& kind, std::string_view detail);

  // Sets a run-level KPI; setting the same name and labels again replaces it.
  void kpi(std::string_view name, Labels labels, double value);

  const std::vector<Series>& series_list() const { return series_; }
  const Series& series_at(SeriesId id) const;
  const Events& events() const { return events_; }
  const std::vector<Kpi>& kpis() const { return kpis_; }
  // Looks up a KPI; nullptr if not set.
  const Kpi* find_kpi(std::string_view name, const Labels& labels = {}) const;
  // Every label key used by any series or KPI, sorted: the label columns of
  // the long-format tables.
  std::vector<std::string> label_keys() const;

  std::size_t point_count() const;

  // Throws SimulationError unless name is dotted lowercase ("zone.up").
  static void check_metric_name(std::string_view name);

 private:
  static Labels normalized(Labels labels);
  Series& checked(SeriesId id, SimTime t);

  std::vector<Series> series_;
  std::map<std::pair<std::string, Labels>, std::uint32_t> index_;
  Events events_;
  std::vector<Kpi> kpis_;
  // (name, normalised labels) -> index in kpis_: a run with many timeline
  // steps and populations writes tens of thousands of KPIs, and a scan per
  // insert made that quadratic.
  std::map<std::pair<std::string, Labels>, std::size_t> kpi_index_;
};

}  // namespace drsim

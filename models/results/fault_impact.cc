#include "models/results/fault_impact.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <map>
#include <string_view>
#include <type_traits>
#include <utility>

#include "models/actions/action_catalog.h"
#include "sim/errors.h"
#include "sim/fields.h"

namespace drsim {

namespace {

std::string label_value(const Labels& labels, std::string_view key) {
  for (const auto& [k, v] : labels) {
    if (k == key) return v;
  }
  return {};
}

// The windows [s, s + w) that overlap [from, until): indices [first, last).
struct WindowRange {
  std::size_t first = 0;
  std::size_t last = 0;
};

WindowRange overlapping(const ClientWindows& windows, SimTime from, std::optional<SimTime> until) {
  const auto& starts = windows.starts;
  // s + w > from  <=>  s > from - w
  const auto first = std::upper_bound(starts.begin(), starts.end(), from - windows.window);
  const auto last = until ? std::lower_bound(starts.begin(), starts.end(), *until) : starts.end();
  WindowRange r;
  r.first = static_cast<std::size_t>(first - starts.begin());
  r.last = std::max(r.first, static_cast<std::size_t>(last - starts.begin()));
  return r;
}

// Per-window succeeded and failed (all causes) of one population, or summed.
struct RatioSeries {
  std::vector<double> succeeded;
  std::vector<double> failed;
};

// The first good window after the last bad one of the span; none if no good
// window follows the last bad one.
std::optional<std::size_t> recovery_window(const RatioSeries& series, WindowRange span, double objective) {
  std::optional<std::size_t> first_good;
  for (std::size_t k = span.first; k < span.last; ++k) {
    const double finished = series.succeeded[k] + series.failed[k];
    if (finished == 0) continue;  // empty: neither breaks nor makes a recovery
    if (series.succeeded[k] / finished >= objective) {
      if (!first_good) first_good = k;
    } else {
      first_good.reset();
    }
  }
  return first_good;
}

void set_recovery(ImpactFigures& figures, const FaultStep& step, const ClientWindows& windows,
                  const RatioSeries& series, WindowRange span, double objective) {
  const auto k = recovery_window(series, span, objective);
  if (!k) return;
  const SimTime recovered = std::max(step.start, windows.starts[*k]);
  figures.recovered = recovered;
  figures.time_to_recover = recovered - step.start;
  if (step.end) figures.time_to_recover_after_end = std::max(Duration::zero(), recovered - *step.end);
}

double nan_if_none(const std::optional<double>& v) { return v.value_or(std::numeric_limits<double>::quiet_NaN()); }
double seconds_or_nan(const std::optional<SimTime>& t) {
  return t ? to_seconds(*t) : std::numeric_limits<double>::quiet_NaN();
}
double seconds_or_nan(const std::optional<Duration>& d) {
  return d ? to_seconds(*d) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::string target_text(const ActionTarget& target) {
  std::string out;
  for_each_field<ActionTarget>([&](const auto& info) {
    const auto& value = target.*(info.member);
    static_assert(std::is_same_v<std::decay_t<decltype(value)>, std::string>, "targets are names");
    if (value.empty()) return;
    if (!out.empty()) out += ' ';
    out.append(info.key).append("=").append(value);
  });
  return out;
}

std::vector<FaultStep> fault_steps(const Timeline& timeline) {
  std::vector<FaultStep> out;
  out.reserve(timeline.applied_steps().size());
  // Earlier steps by target that no repair has reached yet.
  std::map<std::string, std::vector<std::size_t>, std::less<>> unrepaired;
  for (const AppliedStep& applied : timeline.applied_steps()) {
    const ActionConfig& action = timeline.steps().at(applied.step).action;
    FaultStep step{action.name, action.action, target_text(action.target), applied.applied, applied.undone, true};
    // The catalog's role: a repair or an operator action is not a fault; a
    // repair ends earlier steps on the same target; neither ends another
    // step's observation span. (An action the catalog does not know, as unit
    // tests make up, counts as a fault.)
    const ActionSpecInfo* info = find_action(action.action);
    if (info != nullptr && info->role != ActionRole::kFault) {
      step.injects_fault = false;
      // A repair ends the steps it undoes that are still in force on its target.
      if (auto it = unrepaired.find(step.target); it != unrepaired.end()) {
        std::erase_if(it->second, [&](std::size_t i) {
          FaultStep& earlier = out[i];
          const auto& r = info->repairs;
          if (std::find(std::begin(r), std::end(r), earlier.action) == std::end(r)) return false;
          if (!earlier.end || *earlier.end > step.start) earlier.end = step.start;
          return true;
        });
      }
    }
    unrepaired[step.target].push_back(out.size());
    out.push_back(std::move(step));
  }
  return out;
}

ClientWindows client_windows(const Recorder& recorder, std::span<const PopulationTimeout> populations,
                             Duration window, SimTime end) {
  ClientWindows out;
  out.window = window;
  std::map<std::string, std::size_t, std::less<>> index;
  for (const PopulationTimeout& p : populations) {
    if (!index.emplace(p.population, out.populations.size()).second) {
      throw SimulationError("fault impact: population \"" + p.population + "\" given twice");
    }
    out.populations.push_back(PopulationWindows{p.population, p.timeout, {}, {}, {}});
  }

  // The client series of those populations, and the window grid they share.
  enum class Count { kOffered, kSucceeded, kFailed };
  struct Found {
    const Recorder::Series* series;
    std::size_t population;
    Count count;
    std::size_t cause;  // kFailed: index into out.causes
  };
  std::vector<Found> found;
  std::vector<std::int64_t> grid;
  for (const Recorder::Series& s : recorder.series_list()) {
    Count count;
    if (s.metric == "client.offered") {
      count = Count::kOffered;
    } else if (s.metric == "client.succeeded") {
      count = Count::kSucceeded;
    } else if (s.metric == "client.failed") {
      count = Count::kFailed;
    } else {
      continue;
    }
    const auto p = index.find(label_value(s.labels, "population"));
    if (p == index.end()) continue;
    std::size_t cause = 0;
    if (count == Count::kFailed) {
      const std::string name = label_value(s.labels, "cause");
      const auto it = std::find(out.causes.begin(), out.causes.end(), name);
      cause = static_cast<std::size_t>(it - out.causes.begin());
      if (it == out.causes.end()) out.causes.push_back(name);
    }
    found.push_back(Found{&s, p->second, count, cause});
    grid.insert(grid.end(), s.t_ns.begin(), s.t_ns.end());
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  // The zero-length window at the end joins the one before it.
  if (grid.size() > 1 && grid.back() >= to_ns(end)) grid.pop_back();
  for (std::int64_t ns : grid) out.starts.push_back(SimTime{Duration{ns}});

  const std::size_t n = grid.size();
  for (PopulationWindows& p : out.populations) {
    p.offered.assign(n, 0);
    p.succeeded.assign(n, 0);
    p.failed.assign(out.causes.size(), std::vector<double>(n, 0));
  }
  for (const Found& f : found) {
    PopulationWindows& p = out.populations[f.population];
    std::vector<double>& column = f.count == Count::kOffered     ? p.offered
                                  : f.count == Count::kSucceeded ? p.succeeded
                                                                 : p.failed[f.cause];
    for (std::size_t i = 0; i < f.series->t_ns.size(); ++i) {
      // The window that starts at the point's time, or the last one before it.
      const auto k = std::upper_bound(grid.begin(), grid.end(), f.series->t_ns[i]) - grid.begin() - 1;
      column[static_cast<std::size_t>(k)] += f.series->value[i];
    }
  }
  return out;
}

std::vector<FaultImpact> assess_fault_impact(std::span<const FaultStep> steps, const ClientWindows& windows,
                                             Ratio objective) {
  if (windows.window <= Duration::zero()) throw SimulationError("fault impact: the window must be positive");
  const std::size_t n = windows.starts.size();
  const std::size_t causes = windows.causes.size();

  // Per population and summed over them: succeeded and failed per window.
  std::vector<RatioSeries> per_population;
  RatioSeries all{std::vector<double>(n, 0), std::vector<double>(n, 0)};
  for (const PopulationWindows& p : windows.populations) {
    if (p.offered.size() != n || p.succeeded.size() != n || p.failed.size() != causes) {
      throw SimulationError("fault impact: population \"" + p.population + "\" does not match the window grid");
    }
    RatioSeries series{p.succeeded, std::vector<double>(n, 0)};
    for (const auto& by_cause : p.failed) {
      if (by_cause.size() != n) {
        throw SimulationError("fault impact: population \"" + p.population + "\" does not match the window grid");
      }
      for (std::size_t k = 0; k < n; ++k) series.failed[k] += by_cause[k];
    }
    for (std::size_t k = 0; k < n; ++k) {
      all.succeeded[k] += series.succeeded[k];
      all.failed[k] += series.failed[k];
    }
    per_population.push_back(std::move(series));
  }

  // Where each step's observation span ends: the next fault's start.
  std::vector<SimTime> fault_starts;
  for (const FaultStep& s : steps) {
    if (s.injects_fault) fault_starts.push_back(s.start);
  }
  std::sort(fault_starts.begin(), fault_starts.end());

  std::vector<FaultImpact> out;
  out.reserve(steps.size());
  for (const FaultStep& step : steps) {
    FaultImpact impact{step, {}, {}};
    impact.all.failed_by_cause.assign(causes, 0);

    const auto next = std::upper_bound(fault_starts.begin(), fault_starts.end(), step.start);
    const WindowRange span = overlapping(
        windows, step.start, next == fault_starts.end() ? std::nullopt : std::optional<SimTime>(*next));

    for (std::size_t p = 0; p < windows.populations.size(); ++p) {
      const PopulationWindows& pop = windows.populations[p];
      ImpactFigures figures;
      figures.failed_by_cause.assign(causes, 0);
      std::optional<SimTime> until;
      if (step.end) until = *step.end + pop.timeout.value_or(Duration::zero());
      const WindowRange counted = overlapping(windows, step.start, until);
      for (std::size_t k = counted.first; k < counted.last; ++k) {
        figures.offered += pop.offered[k];
        figures.succeeded += pop.succeeded[k];
        for (std::size_t c = 0; c < causes; ++c) figures.failed_by_cause[c] += pop.failed[c][k];
        if (!figures.first_failure && per_population[p].failed[k] > 0) {
          figures.first_failure = std::max(step.start, windows.starts[k]);
        }
      }
      for (double f : figures.failed_by_cause) figures.failed += f;
      if (figures.succeeded + figures.failed > 0) {
        figures.success_ratio = figures.succeeded / (figures.succeeded + figures.failed);
      }
      set_recovery(figures, step, windows, per_population[p], span, objective.value);

      impact.all.offered += figures.offered;
      impact.all.succeeded += figures.succeeded;
      impact.all.failed += figures.failed;
      for (std::size_t c = 0; c < causes; ++c) impact.all.failed_by_cause[c] += figures.failed_by_cause[c];
      const auto& first = figures.first_failure;
      if (first && (!impact.all.first_failure || *first < *impact.all.first_failure)) impact.all.first_failure = first;
      impact.populations.push_back(std::move(figures));
    }
    if (impact.all.succeeded + impact.all.failed > 0) {
      impact.all.success_ratio = impact.all.succeeded / (impact.all.succeeded + impact.all.failed);
    }
    set_recovery(impact.all, step, windows, all, span, objective.value);
    out.push_back(std::move(impact));
  }
  return out;
}

void record_fault_impact(Recorder& recorder, std::span<const FaultImpact> impacts, const ClientWindows& windows) {
  auto record_figures = [&](const ImpactFigures& f, const Labels& labels) {
    auto with = [&](std::string key, std::string value) {
      Labels l = labels;
      l.emplace_back(std::move(key), std::move(value));
      return l;
    };
    recorder.kpi("fault.offered", labels, f.offered);
    recorder.kpi("fault.succeeded", labels, f.succeeded);
    recorder.kpi("fault.errors", labels, f.failed);
    for (std::size_t c = 0; c < windows.causes.size(); ++c) {
      recorder.kpi("fault.failed", with("cause", windows.causes[c]), f.failed_by_cause[c]);
    }
    recorder.kpi("fault.success_ratio", labels, nan_if_none(f.success_ratio));
    recorder.kpi("fault.first_failure_s", labels, seconds_or_nan(f.first_failure));
    recorder.kpi("fault.time_to_recover_s", labels, seconds_or_nan(f.time_to_recover));
    recorder.kpi("fault.time_to_recover_after_end_s", labels, seconds_or_nan(f.time_to_recover_after_end));
  };
  for (const FaultImpact& impact : impacts) {
    const Labels step{{"step", impact.step.step}};
    recorder.kpi("fault.start_s", step, to_seconds(impact.step.start));
    recorder.kpi("fault.end_s", step, seconds_or_nan(impact.step.end));
    record_figures(impact.all, step);
    for (std::size_t p = 0; p < impact.populations.size(); ++p) {
      const Labels population{{"step", impact.step.step}, {"population", windows.populations[p].population}};
      record_figures(impact.populations[p], population);
    }
  }
}

}  // namespace drsim

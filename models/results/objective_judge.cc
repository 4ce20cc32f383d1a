#include "models/results/objective_judge.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "models/actions/action_catalog.h"
#include "models/data/data_event_kinds.h"
#include "models/results/event_kind_catalog.h"
#include "models/traffic/traffic_scheduler_config.h"

namespace drsim {

namespace {

Duration from_seconds(double s) { return std::chrono::round<Duration>(std::chrono::duration<double>(s)); }

std::string label_value(const Labels& labels, std::string_view key) {
  for (const auto& [k, v] : labels) {
    if (k == key) return v;
  }
  return {};
}

bool in_scope(const ObjectivesConfig& o, std::string_view population) {
  return o.population.empty() || o.population == population;
}

// The windows of the grid that overlap [from, to).
struct WindowSpan {
  std::size_t first = 0;
  std::size_t last = 0;  // one past
};
WindowSpan overlapping(const ClientWindows& w, SimTime from, SimTime to) {
  WindowSpan out;
  const std::size_t n = w.starts.size();
  while (out.first < n && w.starts[out.first] + w.window <= from) ++out.first;
  out.last = out.first;
  while (out.last < n && w.starts[out.last] < to) ++out.last;
  return out;
}

// Succeeded and failed per window, summed over the populations in scope.
struct ScopeCounts {
  std::vector<double> succeeded;
  std::vector<double> failed;
  Duration timeout{};  // the largest client timeout in scope
};
ScopeCounts scope_counts(const ClientWindows& w, const ObjectivesConfig& o) {
  const std::size_t n = w.starts.size();
  ScopeCounts c{std::vector<double>(n, 0), std::vector<double>(n, 0), Duration::zero()};
  for (const PopulationWindows& p : w.populations) {
    if (!in_scope(o, p.population)) continue;
    c.timeout = std::max(c.timeout, p.timeout.value_or(Duration::zero()));
    for (std::size_t k = 0; k < n && k < p.succeeded.size(); ++k) c.succeeded[k] += p.succeeded[k];
    for (const auto& by_cause : p.failed) {
      for (std::size_t k = 0; k < n && k < by_cause.size(); ++k) c.failed[k] += by_cause[k];
    }
  }
  return c;
}

// The fault report's figures for the scope: all populations, or the named one.
const ImpactFigures& scope_figures(const FaultImpact& f, const ClientWindows& w, const ObjectivesConfig& o) {
  if (!o.population.empty()) {
    for (std::size_t p = 0; p < w.populations.size() && p < f.populations.size(); ++p) {
      if (w.populations[p].population == o.population) return f.populations[p];
    }
  }
  return f.all;
}

const ActionConfig* find_action(const JudgedScenario& scenario, const std::string& name) {
  for (const ActionConfig& a : scenario.timeline) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

// The zones a zone or region target names.
std::set<std::string> failed_zones(const JudgedScenario& scenario, const ActionTarget& target) {
  std::set<std::string> zones;
  if (!target.zone.empty()) zones.insert(target.zone);
  for (const RegionConfig& r : scenario.regions) {
    if (r.name != target.region) continue;
    for (const ZoneConfig& z : r.zones) zones.insert(z.name);
  }
  return zones;
}

// Events that show the system noticed a failure (header comment).
bool is_detection(std::string_view kind) {
  const EventKind* info = find_event_kind(kind);
  return info != nullptr && info->detects_failure();
}
// A routing:switch whose last stage moves all of the region's share.
bool switch_empties_region(const ActionConfig& a) {
  const std::vector<RoutingSwitchStep> stages = a.steps.value_or(default_switch_steps());
  return !stages.empty() && stages.back().share.value >= 1;
}
// What the action catalog says of a step's action (nothing for an action
// it does not know, as unit tests make up).
bool is_repair(std::string_view action) {
  const ActionSpecInfo* info = drsim::find_action(action);
  return info != nullptr && info->role == ActionRole::kRepair;
}
bool stops_zones(std::string_view action) {
  const ActionSpecInfo* info = drsim::find_action(action);
  return info != nullptr && info->stops_zones;
}
bool is_planned(std::string_view action) {
  const ActionSpecInfo* info = drsim::find_action(action);
  return info != nullptr && info->planned;
}

std::optional<double> max_of(std::optional<double> a, double b) { return a ? std::max(*a, b) : b; }

// The largest per-window p99 of the scope's populations among points in [from, to).
std::optional<double> worst_p99(const Recorder& recorder, const ObjectivesConfig& o, SimTime from, SimTime to,
                                Duration window) {
  std::optional<double> worst;
  for (const Recorder::Series& s : recorder.series_list()) {
    if (s.metric != "client.latency_p99_s" || !in_scope(o, label_value(s.labels, "population"))) continue;
    for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
      const SimTime t{Duration{s.t_ns[i]}};
      if (t + window > from && t < to) worst = max_of(worst, s.value[i]);
    }
  }
  return worst;
}

FaultFigures fault_figures(const Recorder& recorder, const JudgedScenario& scenario, const FaultReport& report,
                           const FaultImpact& impact, const ScopeCounts& counts, SimTime span_end, SimTime end) {
  const ObjectivesConfig& o = scenario.objectives;
  const ClientWindows& w = report.windows;
  const FaultStep& step = impact.step;
  FaultFigures f;
  f.step = step;
  const Recorder::Events& e = recorder.events();

  // Detection: a detecting event, or an operator action, in the span.
  std::optional<SimTime> detected;
  for (std::size_t i = 0; i < e.size(); ++i) {
    const SimTime t{Duration{e.t_ns[i]}};
    if (t < step.start || t >= span_end || !is_detection(e.kind[i])) continue;
    if (!detected || t < *detected) {
      detected = t;
      f.detected_by = e.component[i] + ": " + e.kind[i];
    }
  }
  for (const FaultImpact& other : report.impacts) {
    const FaultStep& s = other.step;
    if (s.injects_fault || is_repair(s.action) || s.start < step.start || s.start >= span_end) continue;
    if (!detected || s.start < *detected) {
      detected = s.start;
      f.detected_by = "operator: " + s.action + " " + s.step;
    }
  }
  // A planned switch-over is not a failure anyone detects (its own stages' commits would count): none.
  if (detected && !is_planned(step.action)) f.detection = *detected - step.start;
  if (is_planned(step.action)) f.detected_by.clear();

  // Traffic switch, from the step's start (a planned switch-over: from its last stage).
  SimTime switch_origin = step.start;
  const ActionConfig* action = find_action(scenario, step.step);
  const SimTime step_end = step.end.value_or(end);
  if (action != nullptr && !action->target.database.empty()) {
    f.switch_applies = true;
    for (std::size_t i = 0; i < e.size(); ++i) {
      const SimTime t{Duration{e.t_ns[i]}};
      if (t >= step.start && t < span_end && e.kind[i] == event_kinds::database::kSwitched.name() &&
          e.component[i] == "database/" + action->target.database) {
        f.traffic_switch = t - step.start;
        break;
      }
    }
  } else if (action != nullptr && (!action->target.zone.empty() || !action->target.region.empty()) &&
             stops_zones(step.action) && !w.starts.empty()) {
    // (Without client windows there is no grid to judge the traffic on: n/a.)
    f.switch_applies = true;
    const std::set<std::string> zones = failed_zones(scenario, action->target);
    std::vector<double> arrivals(w.starts.size(), 0);
    for (const Recorder::Series& s : recorder.series_list()) {
      // What reaches the failed zones' services, and what a traffic scheduler's clients still send to the
      // failed region (a dead region's services count no arrival: its requests fail before).
      const bool to_zones = s.metric == "service.arrivals" && zones.contains(label_value(s.labels, "zone"));
      const bool to_region = s.metric == "routing.requests" && !action->target.region.empty() &&
                             label_value(s.labels, "region") == action->target.region;
      if (!to_zones && !to_region) continue;
      for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
        const SimTime t{Duration{s.t_ns[i]}};
        // Onto the client grid: the window holding t (a zero-length last window joins the one before).
        auto it = std::upper_bound(w.starts.begin(), w.starts.end(), t);
        if (it == w.starts.begin()) continue;
        arrivals[static_cast<std::size_t>(it - w.starts.begin() - 1)] += s.value[i];
      }
    }
    const WindowSpan during = overlapping(w, step.start, step_end);
    std::size_t k = during.last;
    while (k > during.first && arrivals[k - 1] == 0) --k;
    if (k < during.last || during.first == during.last) {
      const SimTime switched = k < w.starts.size() ? std::max(step.start, w.starts[k]) : step.start;
      f.traffic_switch = switched - step.start;
    }
  } else if (action != nullptr && is_planned(step.action) && !action->reverse.value_or(false) && !w.starts.empty() &&
             switch_empties_region(*action)) {
    // A planned switch-over that empties the region: from its last stage (the full switch) until the
    // requests its population's traffic scheduler sends to the region stay at zero (up to the
    // switch-back, or the span's end). A partial (gray) one has no such point: n/a.
    f.switch_applies = true;
    const std::vector<RoutingSwitchStep> stages = action->steps.value_or(default_switch_steps());
    switch_origin = step.start + (stages.empty() ? Duration::zero() : stages.back().after);
    std::vector<double> requests(w.starts.size(), 0);
    for (const Recorder::Series& s : recorder.series_list()) {
      if (s.metric != "routing.requests" || label_value(s.labels, "region") != action->target.region ||
          label_value(s.labels, "population") != action->target.population) {
        continue;
      }
      for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
        auto it = std::upper_bound(w.starts.begin(), w.starts.end(), SimTime{Duration{s.t_ns[i]}});
        if (it == w.starts.begin()) continue;
        requests[static_cast<std::size_t>(it - w.starts.begin() - 1)] += s.value[i];
      }
    }
    const WindowSpan during = overlapping(w, step.start, std::min(step_end, span_end));
    std::size_t k = during.last;
    while (k > during.first && requests[k - 1] == 0) --k;
    if (k < during.last) {
      const SimTime switched = std::max(switch_origin, k < w.starts.size() ? w.starts[k] : switch_origin);
      f.traffic_switch = switched - switch_origin;
    }
  }

  // Errors during the switch.
  const ImpactFigures& figures = scope_figures(impact, w, o);
  WindowSpan period;
  if (f.traffic_switch) {
    period = overlapping(w, step.start, switch_origin + *f.traffic_switch + counts.timeout);
  } else {
    period = overlapping(w, step.start, step.end ? *step.end + counts.timeout : end + Duration{1});
  }
  double succeeded = 0;
  for (std::size_t k = period.first; k < period.last; ++k) {
    f.switch_errors += counts.failed[k];
    succeeded += counts.succeeded[k];
  }
  if (f.switch_errors + succeeded > 0) f.switch_error_rate = f.switch_errors / (f.switch_errors + succeeded);

  f.rto = figures.time_to_recover;

  // RPO: the largest loss of the databases' promotions inside the fault
  // (database.failover_rpo_s, one point per promotion).
  for (const Recorder::Series& s : recorder.series_list()) {
    if (s.metric != "database.failover_rpo_s") continue;
    for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
      const SimTime t{Duration{s.t_ns[i]}};
      if (t < step.start || t >= span_end) continue;
      const Duration d = from_seconds(s.value[i]);
      if (!f.rpo || d > *f.rpo) f.rpo = d;
    }
  }

  const Duration lw = o.latency_window;
  f.latency_p99_before_s = worst_p99(recorder, o, step.start - lw, step.start, w.window);
  const SimTime during_end = step.end.value_or(span_end);
  f.latency_p99_during_s = worst_p99(recorder, o, step.start, std::max(during_end, step.start + Duration{1}), w.window);
  if (step.end) f.latency_p99_after_s = worst_p99(recorder, o, *step.end, *step.end + lw, w.window);
  return f;
}

ObjectiveVerdict verdict(std::string objective, std::string scope, ObjectiveVerdict::Unit unit, bool at_most,
                         double target, std::optional<double> measured, std::string note) {
  ObjectiveVerdict v{std::move(objective), std::move(scope), unit, at_most, target, measured, std::move(note), true};
  if (measured) v.pass = at_most ? *measured <= target : *measured >= target;
  return v;
}

// The per-operation targets, from the operation.* KPIs (labelled population and operation; failed also by cause).
void judge_operations(const Recorder& recorder, const ObjectivesConfig& o, ObjectiveReport& report) {
  for (const OperationObjectiveConfig& op : o.operations) {
    double succeeded = 0, failed = 0;
    std::optional<double> p99;
    for (const Recorder::Kpi& k : recorder.kpis()) {
      if (label_value(k.labels, "operation") != op.name || !in_scope(o, label_value(k.labels, "population"))) continue;
      if (k.name == "operation.succeeded") succeeded += k.value;
      if (k.name == "operation.failed" && !label_value(k.labels, "cause").empty()) failed += k.value;
      if (k.name == "operation.latency_p99_s") p99 = max_of(p99, k.value);
    }
    const std::string scope = "operation " + op.name;
    if (op.availability) {
      const double finished = succeeded + failed;
      const std::optional<double> measured = finished > 0 ? std::optional(succeeded / finished) : std::nullopt;
      report.verdicts.push_back(verdict("availability", scope, ObjectiveVerdict::Unit::kRatio, false,
                                        op.availability->value, measured, measured ? "" : "nothing finished"));
    }
    if (op.latency_p99) {
      report.verdicts.push_back(verdict("latencyP99", scope, ObjectiveVerdict::Unit::kSeconds, true,
                                        to_seconds(*op.latency_p99), p99, p99 ? "" : "nothing finished"));
    }
  }
}

}  // namespace

bool ObjectiveReport::any_failed() const {
  return std::any_of(verdicts.begin(), verdicts.end(), [](const ObjectiveVerdict& v) { return !v.pass; });
}

ObjectiveReport judge_objectives(const Recorder& recorder, const JudgedScenario& scenario, const FaultReport& faults,
                                 SimTime end) {
  const ObjectivesConfig& o = scenario.objectives;
  const ClientWindows& w = faults.windows;
  const ScopeCounts counts = scope_counts(w, o);
  ObjectiveReport report;

  std::vector<SimTime> fault_starts;
  for (const FaultImpact& f : faults.impacts) {
    if (f.step.injects_fault) fault_starts.push_back(f.step.start);
  }
  std::sort(fault_starts.begin(), fault_starts.end());
  for (const FaultImpact& impact : faults.impacts) {
    if (!impact.step.injects_fault) continue;
    const auto next = std::upper_bound(fault_starts.begin(), fault_starts.end(), impact.step.start);
    const SimTime span_end = next == fault_starts.end() ? std::max(end, impact.step.start) : *next;
    report.faults.push_back(fault_figures(recorder, scenario, faults, impact, counts, span_end, end));
  }

  using Unit = ObjectiveVerdict::Unit;
  for (const FaultFigures& f : report.faults) {
    if (o.rto) {
      const std::optional<double> measured = f.rto ? std::optional(to_seconds(*f.rto)) : std::nullopt;
      ObjectiveVerdict v = verdict("rto", f.step.step, Unit::kSeconds, true, to_seconds(*o.rto), measured,
                                   measured ? "" : "never recovered");
      if (!measured) v.pass = false;
      report.verdicts.push_back(std::move(v));
    }
    if (o.rpo) {
      const std::optional<double> measured = f.rpo ? std::optional(to_seconds(*f.rpo)) : std::nullopt;
      report.verdicts.push_back(verdict("rpo", f.step.step, Unit::kSeconds, true, to_seconds(*o.rpo), measured,
                                        measured ? "" : "no failover"));
    }
  }

  double succeeded = 0, failed = 0;
  for (std::size_t k = 0; k < w.starts.size(); ++k) {
    succeeded += counts.succeeded[k];
    failed += counts.failed[k];
  }
  const double finished = succeeded + failed;
  if (o.availability) {
    std::optional<double> measured;
    if (!o.availability_window) {
      if (finished > 0) measured = succeeded / finished;
    } else {
      // Every run of consecutive windows covering availabilityWindow; a run shorter than it is one such run.
      const std::size_t n = w.starts.size();
      const std::size_t width =
          std::max<std::size_t>(1, static_cast<std::size_t>(o.availability_window->count() / w.window.count()));
      const std::size_t runs = n > width ? n - width + 1 : (n > 0 ? 1 : 0);
      for (std::size_t first = 0; first < runs; ++first) {
        double s = 0, f = 0;
        for (std::size_t k = first; k < std::min(n, first + width); ++k) {
          s += counts.succeeded[k];
          f += counts.failed[k];
        }
        if (s + f > 0) measured = measured ? std::min(*measured, s / (s + f)) : s / (s + f);
      }
    }
    report.verdicts.push_back(verdict("availability", "run", Unit::kRatio, false, o.availability->value, measured,
                                      measured ? "" : "nothing finished"));
  }
  if (o.error_budget) {
    const std::optional<double> measured = finished > 0 ? std::optional(failed / finished) : std::nullopt;
    report.verdicts.push_back(verdict("errorBudget", "run", Unit::kRatio, true, o.error_budget->value, measured,
                                      measured ? "" : "nothing finished"));
  }
  if (o.latency_p99) {
    std::optional<double> measured;
    if (o.latency_p99_window) {
      for (const Recorder::Series& s : recorder.series_list()) {
        if (s.metric != "client.latency_p99_window_s" || !in_scope(o, label_value(s.labels, "population"))) continue;
        for (double v : s.value) measured = max_of(measured, v);
      }
    } else {
      for (const Recorder::Kpi& k : recorder.kpis()) {
        if (k.name == "client.latency_p99_s" && in_scope(o, label_value(k.labels, "population"))) {
          measured = max_of(measured, k.value);
        }
      }
    }
    report.verdicts.push_back(verdict("latencyP99", "run", Unit::kSeconds, true, to_seconds(*o.latency_p99), measured,
                                      measured ? "" : "nothing finished"));
  }
  judge_operations(recorder, o, report);
  return report;
}

}  // namespace drsim

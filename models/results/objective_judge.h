#pragma once
// Objectives and verdicts: what each fault of a run did in the terms of a
// disaster-recovery drill (detection, traffic switch, RTO, RPO, errors and
// latency during it) and whether the run met the targets of spec.objectives
// (models/results/objectives.h). A pure function of what the run recorded:
// the Recorder's series, events and KPIs, the fault report built from them
// (fault_impact.h) and the scenario's timeline, regions and objectives.
// Nothing here runs the simulation or reads files; io/objective_evaluation.h
// prints the report (drsim run's table, objectives.json).
//
// Definitions, per step of the fault report that injects a fault (repairs and
// operator actions have no row). Its span is the fault report's observation
// span: from its start up to the next fault's start, or the run's end. The
// population scope is spec.objectives.population (empty: all populations,
// their counts summed; latency: the worst population).
//
// - Detection: the earliest event in [start, span end) that shows the system
//   noticed a failure: a kind the event kind catalog marks as detecting one
//   (models/results/event_kind_catalog.h: database.failure_detected, by its
//   health checks or the operator's failover, node.not_ready, ...), or an
//   operator action of the timeline
//   (traffic:cut, routing:weight, service:scale and the other steps that are
//   neither faults nor repairs). Time = that event - start; none ("n/a") when
//   nothing in the span detects, and for a planned switch-over
//   (routing:switch: nothing fails, its own stages' commits would count).
//   A DNS cache expiring writes no event and is not seen here.
// - Traffic switch: for zone:fail and region:fail, the failed zones' traffic
//   is the sum of service.arrivals over the services in those zones (plus,
//   for region:fail, the routing.requests a traffic scheduler counts towards
//   the region: requests its clients still send there), per window of the
//   client grid (none without clients: "n/a"). Switched = the
//   start of the first window from which every window up to the step's end
//   (the run's end if it has none) carries no arrival, or the step's start
//   if that window began before it (0 for zones that never had traffic).
//   Time = switched - start; none ("never") when the last window before the
//   end still has arrivals. For a fault whose target names a database: the first
//   database.switched event of that database in the span (its clients reach the new primary).
//   For a routing:switch (a planned switch-over, which the fault report
//   counts as a fault step): from its last stage (its start + the last
//   stage's `after`) to the start of the first window from which the
//   routing.requests its population's traffic scheduler counts towards the
//   switched region stay at zero, up to the switch-back or the span's end
//   ("never" if requests still go there); a reverse: true step, or one
//   whose last stage moves less than 100% (a gray shift), has none ("n/a").
//   Other faults (links, pods, populations): none ("n/a").
// - Switch period: [start, switched + timeout), timeout the largest client
//   timeout of the scope (a request sent just before the switch fails up to
//   one timeout later); without a switch time, the step's counting window of
//   the fault report. Errors = client.failed summed over the windows that
//   overlap it; error rate = errors / (errors + client.succeeded in them),
//   none when nothing finished.
// - RTO: the fault report's time to recover of the scope (the success ratio
//   back at successRatio for the rest of the span); none: never recovered.
// - RPO: the largest data loss of the databases' promotions in [start, span
//   end) (the database.failover_rpo_s points, one per promotion, the figure
//   database.rpo_seconds sums up); none when no failover was promoted.
// - Latency p99 before / during / after: the largest per-window p99 of the
//   scope's client.latency_p99_s series over the windows in
//   [start - latencyWindow, start), over those that overlap [start, end) (end:
//   the step's end, else the span's end), and over those in
//   [end, end + latencyWindow) (none without an end). A per-window p99 is not
//   a p99 of the whole period: the largest is the conservative figure.
//
// Verdicts. Per fault: rto passes when its RTO is at or below the target
// (never recovering fails); rpo when its RPO is at or below the target, or no
// failover was promoted in the span (nothing lost to one). Per run, from the
// scope's windowed client counts (offered, succeeded, failed): availability
// = succeeded / (succeeded + failed) over the run, or the worst such ratio of
// every availabilityWindow-long run of consecutive windows; it passes when at
// or above the target (nothing finished: passes, nothing failed). Error
// budget: failed / (succeeded + failed) over the run, at or below the target.
// latencyP99: the client.latency_p99_s KPI of the scope (the worst
// population), or with latencyP99Window the largest point of the scope's
// client.latency_p99_window_s series (the p99 of each trailing window), at
// or below the target; nothing finished: passes.
#include <optional>
#include <string>
#include <vector>

#include "models/actions/action_config.h"
#include "models/results/fault_impact.h"
#include "models/results/objectives.h"
#include "models/topology/topology_config.h"
#include "sim/recorder.h"

namespace drsim {

// The figures of one fault step.
struct FaultFigures {
  FaultStep step;
  std::optional<Duration> detection;
  std::string detected_by;  // "database/east-shard: database.failure_detected"; empty without detection
  std::optional<Duration> traffic_switch;
  bool switch_applies = false;  // false: "n/a" (no zone, region or database target)
  std::optional<Duration> rto;
  std::optional<Duration> rpo;
  double switch_errors = 0;
  std::optional<double> switch_error_rate;
  std::optional<double> latency_p99_before_s;
  std::optional<double> latency_p99_during_s;
  std::optional<double> latency_p99_after_s;
};

// One judged target. Targets and measures are seconds for durations and
// fractions for ratios; `unit` says which.
struct ObjectiveVerdict {
  std::string objective;  // "rto", "rpo", "availability", "errorBudget", "latencyP99"
  std::string scope;      // "run", or the fault step's name
  enum class Unit { kSeconds, kRatio } unit = Unit::kSeconds;
  bool at_most = true;  // true: measured must be <= target; false: >= target
  double target = 0;
  std::optional<double> measured;  // none: never recovered, or nothing to measure
  std::string note;                // why there is no measure, e.g. "never recovered", "no failover"
  bool pass = true;
};

struct ObjectiveReport {
  std::vector<FaultFigures> faults;
  std::vector<ObjectiveVerdict> verdicts;
  bool any_failed() const;
};

// What of the scenario the judge reads.
struct JudgedScenario {
  const ObjectivesConfig& objectives;
  const std::vector<ActionConfig>& timeline;
  const std::vector<RegionConfig>& regions;  // for the zones a region target names
};

ObjectiveReport judge_objectives(const Recorder& recorder, const JudgedScenario& scenario, const FaultReport& faults,
                                 SimTime end);

}  // namespace drsim

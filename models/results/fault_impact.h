#pragma once
// Fault impact: for each timeline step of a run, what the clients saw while it
// was in force and how long their success ratio took to get back to the
// objective. Computed once the run is over, from the per-window client counts
// the Recorder holds (client.offered, client.succeeded, client.failed{cause},
// labelled population; see models/traffic/client_population.h) and the times
// the Timeline applied and undid each step.
//
// Definitions. w is the metrics window; window k is [s_k, s_k + w), stamped at
// its start s_k. The last one is cut short by the run's end but counts as
// [s_k, s_k + w) below; what happened exactly at the end (the zero-length
// window the counters write when the end falls on a boundary) counts in the
// window before it, so that one instant cannot pass for a recovery. Counts are
// whole windows: a fault that starts or ends inside a window includes that
// window's requests before or after it.
//
// - Steps. Every step the run applied is a row, in the order applied. Its
//   start is when it was applied. Its end is when it stopped being in force:
//   its own undo (a `duration` running out), or a later step that repairs it
//   (zone:recover ends the zone:fail steps of the same zone still in force,
//   region:recover those of region:fail, link:restore those of link:cut and
//   link:degrade on the same link), whichever comes first; none if neither
//   happened before the run ended. A step injects a fault unless it is a
//   repair (zone:recover, region:recover, link:restore) or an operator action
//   (traffic:cut, service:scale, routing:weight, database:failover,
//   hpa:compensate, deployment:compensate / policy / scale / restart); an
//   action this list
//   does not know counts as a fault.
// - Counting window of a population: the windows overlapping
//   [start, end + timeout), where timeout is the population's client timeout
//   (the whole request, retries included) and end is the run's end when the
//   step has none. The timeout is there because a failure is counted when it
//   happens: a request sent during the fault that gets no answer fails one
//   timeout after it was sent, after the fault's end. Without a timeout it is
//   [start, end). offered, succeeded and failed (by cause, and in total) are
//   the client counts summed over those windows; the counts of all
//   populations are the sums of the populations' own. The success ratio is
//   succeeded / (succeeded + failed), none when nothing finished. Faults that
//   overlap each count everything in their windows: rows do not add up to the
//   run's totals.
// - First failure: the start of the first counted window with a failed
//   request, or the step's start if that window began before it (precision:
//   one window); none without failures.
// - Observation span: from the window containing the start up to the windows
//   that start before the next fault's start (the earliest start, later than
//   this step's, of a step that injects a fault; repairs and operator actions
//   do not end a span, so a fault's recovery includes its mitigation, and
//   steps starting at the same instant share their span); to the end of the
//   run if no fault follows. Window k is empty when no request finished in it
//   (succeeded + failed = 0), good when succeeded / (succeeded + failed) >= the
//   objective, bad otherwise.
// - Recovered: the start of the first good window of the span after its last
//   bad window, or the step's start if that window began before it. Empty
//   windows neither break a recovery nor make one: it takes a good window.
//   None ("never") when the span ends without one; this includes a fault
//   whose impact outlasts its span because the next fault started first.
// - Time to recover = recovered - start (0 when the step did no harm). Time
//   to recover after the end = max(0, recovered - end), none without an end
//   or a recovery: 0 means the clients were back before the fault was
//   repaired (they failed over), more measures the recovery after repair.
//   Both hold for all populations together (the windows' summed counts) and
//   for each population on its own.
//
// Example: a zone fails and black-holes what it holds; the balancer sends it
// nothing more. The requests it held fail one client timeout after they were
// sent, just before start + timeout: the clients recover at the first window
// boundary at or after start + timeout.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/actions/timeline.h"
#include "sim/recorder.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

// A timeline step as it ran.
struct FaultStep {
  std::string step;    // the step's name
  std::string action;  // "zone:fail"
  std::string target;  // "zone=eu-west-1a", "zone=a service=api"
  SimTime start{};
  std::optional<SimTime> end;  // see the header comment
  bool injects_fault = true;   // ends the observation span of earlier steps
};

// One population's client counts per window, on ClientWindows' grid.
struct PopulationWindows {
  std::string population;
  std::optional<Duration> timeout;  // the clients' timeout; none: they wait forever
  std::vector<double> offered;
  std::vector<double> succeeded;
  std::vector<std::vector<double>> failed;  // [cause][window], causes as ClientWindows::causes
};

struct ClientWindows {
  Duration window{};
  std::vector<SimTime> starts;      // the window starts, ascending
  std::vector<std::string> causes;  // failure causes
  std::vector<PopulationWindows> populations;
};

// What the clients saw during one step: all populations, or one.
struct ImpactFigures {
  double offered = 0;
  double succeeded = 0;
  double failed = 0;
  std::vector<double> failed_by_cause;  // as ClientWindows::causes
  std::optional<double> success_ratio;  // none: nothing finished
  std::optional<SimTime> first_failure;
  std::optional<SimTime> recovered;
  std::optional<Duration> time_to_recover;
  std::optional<Duration> time_to_recover_after_end;
};

struct FaultImpact {
  FaultStep step;
  ImpactFigures all;
  std::vector<ImpactFigures> populations;  // as ClientWindows::populations
};

// The steps the timeline applied, with their ends and kinds (header comment).
std::vector<FaultStep> fault_steps(const Timeline& timeline);

// "zone=a service=api": the target fields that are set, in declaration order.
std::string target_text(const ActionTarget& target);

// The populations' windowed client counts from the Recorder, in the order
// given (a population with no series has none: all zeros). The grid is every
// window start any of them recorded, except a zero-length window at `end`
// (the run's end), whose counts join the window before it.
struct PopulationTimeout {
  std::string population;
  std::optional<Duration> timeout;
};
ClientWindows client_windows(const Recorder& recorder, std::span<const PopulationTimeout> populations,
                             Duration window, SimTime end);

// The impact of each step; objective is the success ratio of a good window.
std::vector<FaultImpact> assess_fault_impact(std::span<const FaultStep> steps, const ClientWindows& windows,
                                             Ratio objective);

// Run KPIs, labelled step (and population for one population's figures):
//   fault.start_s, fault.end_s                       the step (not per population)
//   fault.offered, fault.succeeded, fault.errors     counts in the counting window
//   fault.failed{cause}                              errors by cause
//   fault.success_ratio, fault.first_failure_s,
//   fault.time_to_recover_s,
//   fault.time_to_recover_after_end_s                NaN (null in kpis.json) when none
void record_fault_impact(Recorder& recorder, std::span<const FaultImpact> impacts, const ClientWindows& windows);

// What each timeline step the run applied did to the clients, judged against
// spec.objectives.successRatio: the client grid and one impact per step.
struct FaultReport {
  ClientWindows windows;
  std::vector<FaultImpact> impacts;
};

}  // namespace drsim

#pragma once
// What a run is judged against: `spec.objectives` of a scenario. The fault
// impact analysis (models/results/fault_impact.h) reads the success-ratio
// objective to decide when the clients have recovered from a fault; the
// objective judge (models/results/objective_judge.h) judges every other target
// declared here against the recorded series and KPIs. A target left out is
// not judged: a scenario without targets reports what it always did.
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/units.h"

namespace drsim {

// Targets on one operation of the traffic mix (an endpoint's own objective: checkout's p99, not the mix's),
// judged on the operation.* KPIs of the populations in scope that send it.
struct OperationObjectiveConfig {
  std::string name;
  std::optional<Ratio> availability;
  std::optional<Duration> latency_p99;

  static constexpr std::string_view kTypeName = "OperationObjective";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &OperationObjectiveConfig::name,
              "The operation, as the populations' operations name it (load[].operations[].name).", kRequired),
        field("availability", &OperationObjectiveConfig::availability,
              "Share of the operation's finished requests that must succeed over the run (operation.succeeded "
              "and operation.failed KPIs, summed over the populations in scope).",
              kPositive | kAtMostOne),
        field("latencyP99", &OperationObjectiveConfig::latency_p99,
              "Largest 99th-percentile latency of the operation over the run (the operation.latency_p99_s KPI; "
              "the worst population in scope).",
              kPositive),
    };
  }
};

struct ObjectivesConfig {
  // Three nines, the usual availability objective of an online service: per
  // window, one failed request in a thousand finished ones is tolerated. It is
  // the objective the payment drill of docs/sources.md section 5 met (48
  // failed of 150,000 transactions during its switch-over, 99.97%), while a
  // window that loses a zone's in-flight requests (a few percent) falls
  // below it.
  Ratio success_ratio{0.999};
  // Empty: all client populations together (their summed counts).
  std::string population;
  std::optional<Duration> rto;
  std::optional<Duration> rpo;
  std::optional<Ratio> availability;
  std::optional<Duration> availability_window;
  std::optional<Ratio> error_budget;
  std::optional<Duration> latency_p99;
  // Absent: latencyP99 is the run's p99. Set: the worst p99 over any trailing
  // window of this length, so a minute of slow answers cannot hide in a long
  // run's quantile.
  std::optional<Duration> latency_p99_window;
  // A minute: long enough for a 1 s metrics window to show the steady state
  // either side of a fault, short enough not to reach back into an earlier one.
  Duration latency_window = std::chrono::minutes(1);
  std::vector<OperationObjectiveConfig> operations;

  // True when any target beyond successRatio is declared: only then does the
  // run print an Objectives table (the default output stays as it was).
  bool any_target() const { return rto || rpo || availability || error_budget || latency_p99 || !operations.empty(); }
  std::vector<ConfigProblem> validate() const {
    std::vector<ConfigProblem> out;
    if (availability_window && !availability) {
      out.push_back({"availabilityWindow", "has no availability target to apply to (add availability)"});
    }
    if (latency_p99_window && !latency_p99) {
      out.push_back({"latencyP99Window", "has no latencyP99 target to apply to (add latencyP99)"});
    }
    for (std::size_t i = 0; i < operations.size(); ++i) {
      const std::string at = "operations[" + std::to_string(i) + "]";
      if (!operations[i].availability && !operations[i].latency_p99) {
        out.push_back({at, "gives no target (add availability or latencyP99)"});
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (operations[j].name == operations[i].name) {
          out.push_back({at + ".name", "operation \"" + operations[i].name + "\" is listed twice"});
        }
      }
    }
    return out;
  }

  static constexpr std::string_view kTypeName = "Objectives";
  static constexpr auto fields() {
    return std::tuple{
        field("successRatio", &ObjectivesConfig::success_ratio,
              "Share of finished client requests that must succeed in each metrics window. After a fault, the "
              "clients have recovered once every window is back at or above it (default 99.9%).",
              kPositive | kAtMostOne),
        field("population", &ObjectivesConfig::population,
              "The client population the targets below are judged on (default: all populations, their counts "
              "summed)."),
        field("rto", &ObjectivesConfig::rto,
              "Recovery time objective, per fault: from the fault's start until the clients' success ratio is "
              "back at successRatio for good (the fault report's time to recover). Never recovering fails it.",
              kPositive),
        field("rpo", &ObjectivesConfig::rpo,
              "Recovery point objective, per fault: the largest data loss of a database failover promoted "
              "during the fault (the acknowledged writes the new primary lacks, as a span of commit times; 0s: "
              "no loss tolerated)."),
        field("availability", &ObjectivesConfig::availability,
              "Share of finished client requests that must succeed over the run (or over every "
              "availabilityWindow).",
              kPositive | kAtMostOne),
        field("availabilityWindow", &ObjectivesConfig::availability_window,
              "Judge availability over every window of this length (a multiple of metricsWindow, sliding by "
              "metricsWindow) rather than over the whole run: the worst one counts.",
              kPositive),
        field("errorBudget", &ObjectivesConfig::error_budget,
              "Share of finished client requests allowed to fail over the whole run.", kAtMostOne),
        field("latencyP99", &ObjectivesConfig::latency_p99,
              "Largest 99th-percentile client latency over the run (the client.latency_p99_s KPI; the worst "
              "population when none is named), or over every latencyP99Window.",
              kPositive),
        field("latencyP99Window", &ObjectivesConfig::latency_p99_window,
              "Judge latencyP99 over every trailing window of this length (a multiple of metricsWindow, sliding "
              "by metricsWindow; the client.latency_p99_window_s series) rather than over the whole run: the "
              "worst one counts.",
              kPositive),
        field("latencyWindow", &ObjectivesConfig::latency_window,
              "How far before a fault and after its end the per-fault figures look for the p99 latency before "
              "and after it (default 1m).",
              kPositive),
        field("operations", &ObjectivesConfig::operations,
              "Targets per operation of the populations' traffic mix (availability, latencyP99), judged on that "
              "operation's requests alone, of the population named above or of all."),
    };
  }
};

}  // namespace drsim

#pragma once
// Results on disk. timeseries.csv, events.csv and faults.csv are
// byte-identical for the same seed and inputs (integer times printed exactly,
// shortest round-trip doubles); wall-clock figures go only to run.json.
#include <filesystem>
#include <string>

#include "io/run.h"
#include "models/results/fault_impact.h"

namespace drsim {

// The run's FaultReport (models/results/fault_impact.h). Computed from the
// Recorder and the Timeline, so it is the same however often it is asked
// for; io/run.cc records it as fault.* KPIs.
FaultReport fault_report(const RunResult& result);

// Long format: t_s, metric, one column per label key (sorted), value.
std::string timeseries_csv(const Recorder& recorder);
// t_s, component, kind, detail.
std::string events_csv(const Recorder& recorder);
// {"scenario": ..., "seed": ..., "complete": ..., "kpis": [{"name":..., <labels>, "value":...}]}
std::string kpis_json(const RunResult& result);
// One row per applied step, all populations together: step, action, target,
// start_s, end_s, offered, succeeded, errors, failed_<cause> per cause,
// success_ratio, first_failure_s, time_to_recover_s,
// time_to_recover_after_end_s. An empty field is "none" (not undone, nothing
// finished, no failure, never recovered).
std::string faults_csv(const FaultReport& report);
// Writes timeseries.csv, events.csv, kpis.json, faults.csv, scenario.yaml
// (resolved), run.json (outcome, wall time) and objectives.json (per-fault
// figures and verdicts, io/objective_evaluation.h) into dir, creating it; with spec.traces, traces.json
// (io/trace_json.h).
// Each file is written whole or not at all (a temporary file renamed into
// place). Throws OutputError (io/output_error.h) when the folder or a file
// cannot be written.
void write_results(const RunResult& result, const std::filesystem::path& dir);
// A short human summary: what failed when, each fault's errors and time to
// recover, the other KPIs, how the run ended.
std::string summary_text(const RunResult& result);

}  // namespace drsim

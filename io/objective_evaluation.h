#pragma once
// Objectives and verdicts of a scenario run, as drsim run prints them and as
// objectives.json: the judging itself is models/results/objective_judge.h
// (definitions of every figure and verdict there).
#include <string>

#include "io/result_writer.h"
#include "io/scenario.h"
#include "models/results/objective_judge.h"
#include "sim/recorder.h"

namespace drsim {

// judge_objectives over the scenario's timeline, regions and objectives.
ObjectiveReport evaluate_objectives(const Recorder& recorder, const ScenarioSpec& spec, const FaultReport& faults,
                                    SimTime end);
// From a finished run: fault_report(result), then evaluate_objectives.
ObjectiveReport objective_report(const RunResult& result);

// "Objectives" table (target, measured, verdict per row) and the per-fault
// figures, for `drsim run`.
std::string objectives_text(const ObjectiveReport& report, const ObjectivesConfig& objectives);
// {"passed": bool, "verdicts": [...], "faults": [...]}: seconds and fractions,
// null for none.
std::string objectives_json(const ObjectiveReport& report);

}  // namespace drsim

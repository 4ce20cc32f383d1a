#pragma once
// Results on disk. timeseries.csv and events.csv are byte-identical for the
// same seed and inputs (integer times printed exactly, shortest round-trip
// doubles); wall-clock figures go only to run.json.
#include <filesystem>
#include <string>

#include "io/run.h"

namespace drsim {

// Long format: t_s, metric, one column per label key (sorted), value.
std::string timeseries_csv(const Recorder& recorder);
// t_s, component, kind, detail.
std::string events_csv(const Recorder& recorder);
// {"scenario": ..., "seed": ..., "complete": ..., "kpis": [{"name":..., <labels>, "value":...}]}
std::string kpis_json(const RunResult& result);
// Writes timeseries.csv, events.csv, kpis.json, scenario.yaml (resolved) and
// run.json (outcome, wall time) into dir, creating it.
void write_results(const RunResult& result, const std::filesystem::path& dir);
// A short human summary: what failed when, the KPIs, how the run ended.
std::string summary_text(const RunResult& result);

}  // namespace drsim

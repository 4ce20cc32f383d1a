#include "io/objective_evaluation.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "sim/json_scalars.h"

namespace drsim {

ObjectiveReport evaluate_objectives(const Recorder& recorder, const ScenarioSpec& spec, const FaultReport& faults,
                                    SimTime end) {
  return judge_objectives(recorder, JudgedScenario{spec.objectives, spec.timeline, spec.topology.config.regions},
                          faults, end);
}

ObjectiveReport objective_report(const RunResult& result) {
  return evaluate_objectives(result.recorder(), result.scenario.spec, fault_report(result), result.outcome.end_time);
}

namespace {

std::string percent_text(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f%%", ratio * 100);
  return buf;
}
std::string duration_text(std::optional<Duration> d, std::string_view none) {
  return d ? format_duration(*d) : std::string(none);
}
std::string seconds_text(std::optional<double> s) {
  if (!s) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fms", *s * 1000);
  return buf;
}
std::string value_text(const ObjectiveVerdict& v, double value) {
  const auto as_duration = std::chrono::round<Duration>(std::chrono::duration<double>(value));
  return v.unit == ObjectiveVerdict::Unit::kRatio ? percent_text(value) : format_duration(as_duration);
}
std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

std::string objectives_text(const ObjectiveReport& report, const ObjectivesConfig& objectives) {
  std::ostringstream out;
  out << "Objectives (" << (objectives.population.empty() ? "all populations" : "population " + objectives.population)
      << "):\n";
  out << "  " << pad("objective", 14) << pad("scope", 22) << pad("target", 14) << pad("measured", 22) << "verdict\n";
  for (const ObjectiveVerdict& v : report.verdicts) {
    const std::string target = (v.at_most ? "<= " : ">= ") + value_text(v, v.target);
    const std::string measured = v.measured ? value_text(v, *v.measured) : v.note;
    out << "  " << pad(v.objective + " ", 14) << pad(v.scope + " ", 22) << pad(target + " ", 14)
        << pad(measured + " ", 22) << (v.pass ? "pass" : "FAIL") << "\n";
  }
  out << "\nRecovery per fault (detection, traffic switch, RTO from the fault's start; p99 before/during/after):\n";
  out << "  " << pad("step", 20) << pad("detected", 12) << pad("switched", 12) << pad("rto", 12) << pad("rpo", 14)
      << pad("errors", 10) << pad("err rate", 10) << "p99 before / during / after\n";
  for (const FaultFigures& f : report.faults) {
    const std::string rate = f.switch_error_rate ? percent_text(*f.switch_error_rate) : "-";
    char errors[32];
    std::snprintf(errors, sizeof errors, "%.0f", f.switch_errors);
    // A column too narrow for its text gets one space after it all the same.
    out << "  " << pad(f.step.step + " ", 20) << pad(duration_text(f.detection, "n/a") + " ", 12)
        << pad((f.switch_applies ? duration_text(f.traffic_switch, "never") : "n/a") + " ", 12)
        << pad(duration_text(f.rto, "never") + " ", 12) << pad(duration_text(f.rpo, "-") + " ", 14)
        << pad(std::string(errors) + " ", 10) << pad(rate, 10) << seconds_text(f.latency_p99_before_s) << " / "
        << seconds_text(f.latency_p99_during_s) << " / " << seconds_text(f.latency_p99_after_s) << "\n";
    if (!f.detected_by.empty()) out << "  " << pad("", 20) << "detected by " << f.detected_by << "\n";
  }
  return out.str();
}

namespace {
std::string json_opt(std::optional<double> v) { return v ? json_number(*v) : std::string("null"); }
std::string json_opt(std::optional<Duration> d) { return d ? json_number(to_seconds(*d)) : std::string("null"); }
}  // namespace

std::string objectives_json(const ObjectiveReport& report) {
  std::ostringstream out;
  out << "{\n  \"passed\": " << (report.any_failed() ? "false" : "true") << ",\n  \"verdicts\": [";
  for (std::size_t i = 0; i < report.verdicts.size(); ++i) {
    const ObjectiveVerdict& v = report.verdicts[i];
    out << (i ? ",\n" : "\n") << "    {\"objective\": " << json_string(v.objective)
        << ", \"scope\": " << json_string(v.scope)
        << ", \"unit\": " << json_string(v.unit == ObjectiveVerdict::Unit::kRatio ? "ratio" : "s")
        << ", \"comparison\": " << json_string(v.at_most ? "<=" : ">=") << ", \"target\": " << json_number(v.target)
        << ", \"measured\": " << json_opt(v.measured) << ", \"note\": " << json_string(v.note)
        << ", \"pass\": " << (v.pass ? "true" : "false") << "}";
  }
  out << (report.verdicts.empty() ? "],\n" : "\n  ],\n") << "  \"faults\": [";
  for (std::size_t i = 0; i < report.faults.size(); ++i) {
    const FaultFigures& f = report.faults[i];
    out << (i ? ",\n" : "\n") << "    {\"step\": " << json_string(f.step.step)
        << ", \"action\": " << json_string(f.step.action) << ", \"target\": " << json_string(f.step.target)
        << ", \"start_s\": " << json_number(to_seconds(f.step.start))
        << ", \"end_s\": " << (f.step.end ? json_number(to_seconds(*f.step.end)) : std::string("null"))
        << ", \"detection_s\": " << json_opt(f.detection) << ", \"detected_by\": " << json_string(f.detected_by)
        << ", \"traffic_switch_applies\": " << (f.switch_applies ? "true" : "false")
        << ", \"traffic_switch_s\": " << json_opt(f.traffic_switch) << ", \"rto_s\": " << json_opt(f.rto)
        << ", \"rpo_s\": " << json_opt(f.rpo) << ", \"switch_errors\": " << json_number(f.switch_errors)
        << ", \"switch_error_rate\": " << json_opt(f.switch_error_rate)
        << ", \"latency_p99_before_s\": " << json_opt(f.latency_p99_before_s)
        << ", \"latency_p99_during_s\": " << json_opt(f.latency_p99_during_s)
        << ", \"latency_p99_after_s\": " << json_opt(f.latency_p99_after_s) << "}";
  }
  out << (report.faults.empty() ? "]\n" : "\n  ]\n") << "}\n";
  return out.str();
}

}  // namespace drsim

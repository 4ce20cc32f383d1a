#include "io/result_writer.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <system_error>

#include "io/objective_evaluation.h"
#include "io/output_error.h"
#include "io/scenario_loader.h"
#include "io/trace_json.h"
#include "models/actions/timeline.h"
#include "sim/errors.h"
#include "sim/json_scalars.h"
#include "sim/units.h"

namespace drsim {

namespace {

// Shortest text that reads back to the same double: identical on every run.
std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string label_value(const Labels& labels, const std::string& key) {
  for (const auto& [k, v] : labels) {
    if (k == key) return v;
  }
  return "";
}

// errno as an error code; a failure that left errno unset is an I/O error
// rather than "Success".
std::error_code errno_code(int e) { return std::error_code(e != 0 ? e : EIO, std::generic_category()); }

// Writes text to a temporary file beside path and renames it over path, so
// that a failed write (a full disk) leaves no half-written file behind: path
// holds the complete text or what it held before.
void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path temp = path;
  temp.replace_filename("." + path.filename().string() + ".tmp");
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (f == nullptr) throw OutputError(errno_code(errno), "cannot write", path);
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;
  const int close_errno = errno;
  std::error_code ec;
  if (!written || !closed) {
    std::filesystem::remove(temp, ec);
    throw OutputError(errno_code(!written ? write_errno : close_errno), "cannot write", path);
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw OutputError(ec, "cannot write", path);
  }
}

// Creates dir and its parents; the errors name dir whichever part failed.
void create_results_dir(const std::filesystem::path& dir) {
  // The OS would read the path only up to the NUL: somewhere else.
  if (dir.native().find('\0') != std::string::npos) {
    throw OutputError(errno_code(EINVAL), "cannot create the results folder", dir);
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  // A file in the way (/dev/null, a regular file) is reported as such, not as
  // "File exists".
  if (ec && ec != std::errc::file_exists) throw OutputError(ec, "cannot create the results folder", dir);
  if (!std::filesystem::is_directory(dir, ec)) {
    throw OutputError(ec ? ec : errno_code(ENOTDIR), "cannot create the results folder", dir);
  }
}

}  // namespace

FaultReport fault_report(const RunResult& result) {
  const ScenarioSpec& spec = result.scenario.spec;
  std::vector<PopulationTimeout> populations;
  for (const ClientPopulationConfig& p : spec.load) populations.push_back(PopulationTimeout{p.name, p.timeout});
  FaultReport report;
  report.windows = client_windows(result.recorder(), populations, spec.metrics_window, result.outcome.end_time);
  std::vector<FaultStep> steps;
  if (const auto* timeline = result.simulation->find<Timeline>("timeline")) steps = fault_steps(*timeline);
  report.impacts = assess_fault_impact(steps, report.windows, spec.objectives.success_ratio);
  return report;
}

std::string timeseries_csv(const Recorder& recorder) {
  const std::vector<std::string> keys = recorder.label_keys();
  std::string out = "t_s,metric";
  for (const auto& k : keys) out.append(",").append(csv_field(k));
  out += ",value\n";
  for (const Recorder::Series& s : recorder.series_list()) {
    std::string prefix = ",";
    prefix.append(csv_field(s.metric));
    for (const auto& k : keys) prefix.append(",").append(csv_field(label_value(s.labels, k)));
    prefix.append(",");
    for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
      out += format_seconds(Duration{s.t_ns[i]});
      out += prefix;
      out += number_text(s.value[i]);
      out += '\n';
    }
  }
  return out;
}

std::string events_csv(const Recorder& recorder) {
  const Recorder::Events& e = recorder.events();
  std::string out = "t_s,component,kind,detail\n";
  for (std::size_t i = 0; i < e.size(); ++i) {
    out.append(format_seconds(Duration{e.t_ns[i]})).append(",").append(csv_field(e.component[i]));
    out.append(",").append(csv_field(e.kind[i])).append(",").append(csv_field(e.detail[i])).append("\n");
  }
  return out;
}

std::string kpis_json(const RunResult& result) {
  std::ostringstream out;
  out << "{\n";
  out << "  \"scenario\": " << json_string(result.scenario.metadata.name) << ",\n";
  out << "  \"seed\": " << result.seed << ",\n";
  out << "  \"horizon_s\": " << format_seconds(result.horizon) << ",\n";
  out << "  \"end_s\": " << format_seconds(result.outcome.end_time) << ",\n";
  out << "  \"complete\": " << (result.outcome.complete() ? "true" : "false") << ",\n";
  out << "  \"stop_reason\": " << json_string(to_string(result.outcome.reason)) << ",\n";
  out << "  \"events\": " << result.simulation->events_run() << ",\n";
  out << "  \"kpis\": [";
  const auto& kpis = result.recorder().kpis();
  for (std::size_t i = 0; i < kpis.size(); ++i) {
    out << (i == 0 ? "\n" : ",\n") << "    {\"name\": " << json_string(kpis[i].name);
    for (const auto& [k, v] : kpis[i].labels) out << ", " << json_string(k) << ": " << json_string(v);
    out << ", \"value\": " << json_number(kpis[i].value) << "}";
  }
  out << (kpis.empty() ? "]\n" : "\n  ]\n");
  out << "}\n";
  return out.str();
}

namespace {
// An optional value as a CSV field: empty when none.
std::string field_text(const std::optional<double>& v) { return v ? number_text(*v) : ""; }
std::string field_text(const std::optional<SimTime>& t) { return t ? format_seconds(*t) : ""; }
std::string field_text(const std::optional<Duration>& d) { return d ? format_seconds(*d) : ""; }
}  // namespace

std::string faults_csv(const FaultReport& report) {
  std::string out = "step,action,target,start_s,end_s,offered,succeeded,errors";
  for (const std::string& cause : report.windows.causes) out.append(",").append(csv_field("failed_" + cause));
  out += ",success_ratio,first_failure_s,time_to_recover_s,time_to_recover_after_end_s\n";
  for (const FaultImpact& f : report.impacts) {
    const ImpactFigures& all = f.all;
    out.append(csv_field(f.step.step)).append(",").append(csv_field(f.step.action));
    out.append(",").append(csv_field(f.step.target)).append(",").append(format_seconds(f.step.start));
    out.append(",").append(field_text(f.step.end));
    out.append(",").append(number_text(all.offered)).append(",").append(number_text(all.succeeded));
    out.append(",").append(number_text(all.failed));
    for (double n : all.failed_by_cause) out.append(",").append(number_text(n));
    out.append(",").append(field_text(all.success_ratio)).append(",").append(field_text(all.first_failure));
    out.append(",").append(field_text(all.time_to_recover));
    out.append(",").append(field_text(all.time_to_recover_after_end)).append("\n");
  }
  return out;
}

namespace {
std::string run_json(const RunResult& result) {
  std::ostringstream out;
  out << "{\n";
  out << "  \"complete\": " << (result.outcome.complete() ? "true" : "false") << ",\n";
  out << "  \"stop_reason\": " << json_string(to_string(result.outcome.reason)) << ",\n";
  out << "  \"message\": " << json_string(result.outcome.message) << ",\n";
  out << "  \"events\": " << result.simulation->events_run() << ",\n";
  out << "  \"end_s\": " << format_seconds(result.outcome.end_time) << ",\n";
  out << "  \"wall_seconds\": " << json_number(result.outcome.wall_seconds) << ",\n";
  out << "  \"overrides\": [";
  for (std::size_t i = 0; i < result.scenario.overrides.size(); ++i) {
    out << (i ? ", " : "") << json_string(result.scenario.overrides[i]);
  }
  out << "]\n}\n";
  return out.str();
}
}  // namespace

void write_results(const RunResult& result, const std::filesystem::path& dir) {
  create_results_dir(dir);
  write_file(dir / "timeseries.csv", timeseries_csv(result.recorder()));
  write_file(dir / "events.csv", events_csv(result.recorder()));
  write_file(dir / "kpis.json", kpis_json(result));
  write_file(dir / "faults.csv", faults_csv(fault_report(result)));
  write_file(dir / "scenario.yaml", to_yaml(result.scenario));
  write_file(dir / "run.json", run_json(result));
  write_file(dir / "objectives.json", objectives_json(objective_report(result)));
  if (result.simulation->spans().enabled()) write_file(dir / "traces.json", otlp_json(result.simulation->spans()));
}

namespace {

bool is_fault_kpi(const Recorder::Kpi& k) { return k.name.starts_with("fault."); }

// "99.982%": three decimals tell 99.95% from the default objective, 99.9%.
std::string percent_text(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f%%", ratio * 100);
  return buf;
}

// Text in a column of at least `width` characters: left-aligned, or right-
// aligned for numbers. Longer text widens its row rather than being cut.
std::string left(std::string_view text, std::size_t width) {
  std::string out(text);
  if (out.size() < width) out.append(width - out.size(), ' ');
  return out;
}
std::string right(std::string_view text, std::size_t width) {
  std::string out(text.size() < width ? width - text.size() : 0, ' ');
  return out.append(text);
}

// Each step: when, how many requests failed, how long until the success ratio
// was back at the objective (from the start, and after the step's end).
std::string fault_table(const FaultReport& report, const ScenarioSpec& spec) {
  std::ostringstream out;
  out << "Faults (objective: " << format_ratio(spec.objectives.success_ratio)
      << " of the requests finished in each " << format_duration(spec.metrics_window) << " window succeed):\n";
  auto row = [&](std::string_view step, std::string_view action, std::string_view from, std::string_view to,
                 std::string_view errors, std::string_view success, std::string_view recovered,
                 std::string_view after_end) {
    out << "  " << left(step, 20) << " " << left(action, 14) << " " << left(from, 12) << " " << left(to, 12) << " "
        << right(errors, 9) << " " << right(success, 9) << "  " << left(recovered, 12) << " " << after_end << "\n";
  };
  row("step", "action", "from", "to", "errors", "success", "recovered", "after end");
  for (const FaultImpact& f : report.impacts) {
    const ImpactFigures& all = f.all;
    const std::string after_end = !f.step.end                     ? "-"
                                  : all.time_to_recover_after_end ? format_duration(*all.time_to_recover_after_end)
                                                                  : "never";
    row(f.step.step, f.step.action, format_clock(f.step.start), f.step.end ? format_clock(*f.step.end) : "-",
        number_text(all.failed), all.success_ratio ? percent_text(*all.success_ratio) : "-",
        all.time_to_recover ? format_duration(*all.time_to_recover) : "never", after_end);
  }
  return out.str();
}

}  // namespace

std::string summary_text(const RunResult& result) {
  std::ostringstream out;
  const Scenario& s = result.scenario;
  out << s.metadata.name << ": " << format_clock(result.outcome.end_time) << " simulated";
  out << " (horizon " << format_clock(result.horizon) << "), seed " << result.seed << ", "
      << result.simulation->events_run() << " events";
  if (result.outcome.complete()) {
    out << ", complete\n";
  } else {
    out << ", STOPPED: " << result.outcome.message << "\n";
  }

  const Recorder::Events& e = result.recorder().events();
  if (e.size() != 0) {
    out << "\nTimeline:\n";
    for (std::size_t i = 0; i < e.size(); ++i) {
      char line[64];
      std::snprintf(line, sizeof line, "  %-12s  %-16s  ", format_clock(SimTime{Duration{e.t_ns[i]}}).c_str(),
                    e.kind[i].c_str());
      out << line << e.detail[i] << "\n";
    }
  }
  // Without clients there is no impact to show (every figure would be none).
  const FaultReport faults = fault_report(result);
  if (!faults.impacts.empty() && !faults.windows.populations.empty()) {
    out << "\n" << fault_table(faults, result.scenario.spec);
  }
  // Only targets the scenario declares are judged: without any, the summary is as it always was.
  if (result.scenario.spec.objectives.any_target()) {
    const ObjectiveReport objectives =
        evaluate_objectives(result.recorder(), result.scenario.spec, faults, result.outcome.end_time);
    out << "\n" << objectives_text(objectives, result.scenario.spec.objectives);
  }
  // The fault.* KPIs are the table above, per population too: kpis.json has them.
  const auto& kpis = result.recorder().kpis();
  const bool others = std::any_of(kpis.begin(), kpis.end(), [](const Recorder::Kpi& k) { return !is_fault_kpi(k); });
  if (others) {
    out << "\nKPIs:\n";
    for (const auto& k : kpis) {
      if (is_fault_kpi(k)) continue;
      std::string name = k.name;
      for (const auto& [key, v] : k.labels) name.append(" ").append(key).append("=").append(v);
      char line[160];
      std::snprintf(line, sizeof line, "  %-56s %s\n", name.c_str(), number_text(k.value).c_str());
      out << line;
    }
  }
  return out.str();
}

}  // namespace drsim

#pragma once
// The CSV files a scenario names, read at load time into the configs'
// in-memory values, so that models never touch a file:
//   - a rate trace: a load with `kind: trace` and `file:` instead of `points:`;
//   - service-time samples: a service time with `kind: empirical` and
//     `file:` instead of `samples:`.
//
// File formats. A header row names the columns, in any order; every later
// non-blank row is one value per column (io/csv_table.h has the CSV rules:
// RFC 4180 quoting, spaces around fields ignored, blank lines skipped).
//   rate trace:  columns `at` (time since the start of the run, >= 0, never
//                going back) and `rate` (>= 0), e.g. "90s,1200rps".
//   samples:     one column `duration` (> 0), e.g. "12.5ms".
// A cell carries its unit as in the scenario ("90s", "1200rps", "12.5ms"),
// or the header names the unit once, after an underscore, and the cells are
// plain numbers: "at_s,rate_rps" then "90,1200"; "duration_ms" then "12.5".
// Header units are the scenario's (durations: ns, us, µs, ms, s, m, h, d;
// rates: rps, rpm, rph).
//
// Paths are relative to the directory of the document that holds the
// `file:` value: the scenario file, or the topology file for services
// defined there (also when the value comes from --set, as for
// spec.topology). A scenario loaded from text resolves against its base
// directory, the current directory unless the caller gives one. Once read,
// `file` holds the absolute path, so that the resolved scenario (to_yaml)
// keeps the reference and loads back to an equal scenario from any
// directory: the writer leaves out the values a file filled.
//
// A problem is reported at the YAML location of the `file:` value, with the
// CSV position in the message:
//   s.yaml:24:15: spec.load[0].load.file: traces/checkout.csv:14:5: expected a rate with a unit, e.g. "800rps", got "abc"
// filled_from_file belongs to io/'s interface: every writer of scenario text
// (io's and the Python bindings') leaves out the values a file filled.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "io/scenario.h"
#include "io/scenario_error.h"
#include "io/source_map.h"
#include "models/load/rate_profile.h"
#include "models/load/service_time.h"

namespace drsim {

// A problem in a CSV file: line and column 1-based, both 0 when it concerns
// the whole file (an empty one).
struct CsvProblem {
  int line = 0;
  int column = 0;
  std::string message;
  friend bool operator==(const CsvProblem&, const CsvProblem&) = default;
};

// A file with this many problems is not read further: it is most likely not
// the kind of file it was meant to be.
inline constexpr std::size_t kMaxCsvProblems = 20;

// The points of a rate-trace CSV. Problems are appended to problems; when
// there are any, the points returned are incomplete.
std::vector<RatePointConfig> parse_rate_trace(std::string_view text, std::vector<CsvProblem>& problems);
// The samples of a service-time CSV, in file order; as parse_rate_trace.
std::vector<Duration> parse_duration_samples(std::string_view text, std::vector<CsvProblem>& problems);

// Reads every CSV file the spec names (populations' loads of kind trace,
// services' service times of kind empirical) into its config and sets each
// such `file` to the absolute path read. A `file` on another kind is left
// for the config's validate() to report. base_dir is where the scenario's
// own relative paths resolve; where locates the YAML values.
std::vector<Diagnostic> read_csv_inputs(ScenarioSpec& spec, const std::filesystem::path& base_dir,
                                        const SourceMap& where);

// The `file` of one config decoded on its own (io/config_decode.h), read
// as read_csv_inputs reads it inside a scenario, relative to dir; config_path
// is the config's own path.
std::vector<Diagnostic> read_csv_input(RateProfileConfig& config, const std::filesystem::path& dir,
                                       const std::string& config_path, const SourceMap& where);
std::vector<Diagnostic> read_csv_input(ServiceTimeConfig& config, const std::filesystem::path& dir,
                                       const std::string& config_path, const SourceMap& where);

// Whether the field `key` of a config holds values its `file` filled; the
// resolved-scenario writer leaves such a field out, as `file:` stands for it.
inline bool filled_from_file(const RateProfileConfig& c, std::string_view key) {
  return c.file.has_value() && key == "points";
}
inline bool filled_from_file(const ServiceTimeConfig& c, std::string_view key) {
  return c.file.has_value() && key == "samples";
}
template <class T>
bool filled_from_file(const T&, std::string_view) {
  return false;
}

}  // namespace drsim

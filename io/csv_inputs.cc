#include "io/csv_inputs.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <span>
#include <system_error>
#include <utility>

#include "io/csv_table.h"
#include "io/suggest.h"
#include "io/value_codecs.h"
#include "io/yaml_document.h"
#include "sim/fields.h"
#include "sim/quote.h"

namespace drsim {

namespace {

// ---- reading a table ---------------------------------------------------------

// Collects a file's problems up to kMaxCsvProblems, then notes that it stopped.
class Problems {
 public:
  explicit Problems(std::vector<CsvProblem>& out) : out_(out) {}

  void add(int line, int column, std::string message) {
    if (full()) return;
    if (++count_ == kMaxCsvProblems) {
      message += " (stopped after " + std::to_string(kMaxCsvProblems) + " problems in this file)";
    }
    out_.push_back({line, column, std::move(message)});
  }
  void add(const CsvField& at, std::string message) { add(at.line, at.column, std::move(message)); }
  bool full() const { return count_ >= kMaxCsvProblems; }

 private:
  std::vector<CsvProblem>& out_;
  std::size_t count_ = 0;
};

// A column a file must have: its name, and the units its header may name.
struct ColumnSpec {
  std::string_view name;
  std::span<const std::string_view> units;
};

// Where a column sits in the records, and how its cells are read.
struct Column {
  std::size_t index = 0;
  std::string header;  // as written: "at" or "at_s"
  std::string unit;    // from the header ("s"); empty when the cells carry units
};

// Units a header may name: the quantity's own, except the "/s" spellings,
// which would make "rate_/s".
std::vector<std::string_view> header_units(std::span<const std::string_view> units) {
  std::vector<std::string_view> out;
  for (std::string_view u : units) {
    if (u.find('/') == std::string_view::npos) out.push_back(u);
  }
  return out;
}

std::string join(const std::vector<std::string_view>& items, std::string_view separator) {
  std::string out;
  for (std::string_view s : items) out += (out.empty() ? "" : std::string(separator)) + std::string(s);
  return out;
}

bool looks_like_data(std::string_view text) {
  return !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-' || text[0] == '+' ||
                           text[0] == '.');
}

// What a header cell names: the index of its spec and the unit after the
// name, or nullopt after reporting a problem.
std::optional<std::pair<std::size_t, std::string>> read_header_cell(const CsvField& cell,
                                                                     std::span<const ColumnSpec> specs,
                                                                     Problems& problems) {
  const std::string& text = cell.text;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const std::string name(specs[k].name);
    if (text == name) return std::pair{k, std::string()};
    if (!text.starts_with(name + "_")) continue;
    const std::string unit = text.substr(name.size() + 1);
    const std::vector<std::string_view> units = header_units(specs[k].units);
    if (std::find(units.begin(), units.end(), unit) != units.end()) return std::pair{k, unit};
    problems.add(cell, "expected a unit after " + quote(name + "_") + " (" + join(units, ", ") + "), got " +
                           quote(unit));
    return std::nullopt;
  }
  std::vector<std::string_view> names;
  for (const ColumnSpec& s : specs) names.push_back(s.name);
  problems.add(cell, unknown_name_message("column", text, names, "columns"));
  return std::nullopt;
}

// The columns, in specs order, or nullopt after reporting header problems.
std::optional<std::vector<Column>> read_header(const CsvRecord& header, std::span<const ColumnSpec> specs,
                                               Problems& problems) {
  // A file without a header would otherwise hear that each of its first
  // values is an unknown column.
  if (looks_like_data(header.fields.front().text)) {
    std::vector<std::string_view> names;
    for (const ColumnSpec& s : specs) names.push_back(s.name);
    problems.add(header.fields.front(), "expected a header row naming the columns (" + join(names, ", ") +
                                            ") first, got " + quote(header.fields.front().text));
    return std::nullopt;
  }
  std::vector<std::optional<Column>> found(specs.size());
  bool ok = true;
  for (std::size_t i = 0; i < header.fields.size(); ++i) {
    const CsvField& cell = header.fields[i];
    const auto named = read_header_cell(cell, specs, problems);
    if (!named) {
      ok = false;
      continue;
    }
    const auto& [k, unit] = *named;
    if (found[k]) {
      problems.add(cell, "duplicate column " + quote(specs[k].name) + " (first at column " +
                             std::to_string(header.fields[found[k]->index].column) + ")");
      ok = false;
      continue;
    }
    found[k] = Column{i, cell.text, unit};
  }
  if (!ok) return std::nullopt;
  std::vector<Column> columns;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    if (!found[k]) {
      problems.add(header.fields.front(), "missing column " + quote(specs[k].name));
      ok = false;
    } else {
      columns.push_back(*found[k]);
    }
  }
  if (!ok) return std::nullopt;
  return columns;
}

// "90", "-5", "1.5": what a cell holds under a header that names the unit.
bool is_plain_number(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (!digits()) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

// One cell as a T, checked against the flags as the YAML decoder checks a
// field (kPositive, kNonNegative); nullopt after reporting a problem.
template <class T>
std::optional<T> read_cell(const CsvField& cell, const Column& column, unsigned flags, Problems& problems) {
  using Codec = ValueCodec<T>;
  std::string text = cell.text;
  if (!column.unit.empty()) {
    if (!is_plain_number(text)) {
      problems.add(cell, "expected a number (the header " + quote(column.header) + " gives the unit), got " +
                             quote(cell.text));
      return std::nullopt;
    }
    text += column.unit;
  }
  T value{};
  try {
    value = Codec::parse(text);
  } catch (const std::invalid_argument& e) {
    problems.add(cell, e.what());
    return std::nullopt;
  }
  const int sign = Codec::sign(value);
  std::string_view wanted;
  if ((flags & kPositive) && sign <= 0) wanted = "a positive ";
  if ((flags & kNonNegative) && sign < 0) wanted = "a non-negative ";
  if (!wanted.empty()) {
    problems.add(cell, "expected " + std::string(wanted) + std::string(Codec::kName) + ", got " + quote(cell.text));
    return std::nullopt;
  }
  return value;
}

// Reads the header, then calls row(columns, fields) for each data row as
// wide as the header, in file order, until the file ends or has too many
// problems. Rows are read one at a time: a large file is never held as a
// table of strings.
template <class Row>
void read_table(std::string_view text, std::span<const ColumnSpec> specs, Problems& problems, Row&& row) {
  try {
    CsvReader reader(text);
    CsvRecord header;
    if (!reader.next(header)) {
      std::vector<std::string_view> names;
      for (const ColumnSpec& s : specs) names.push_back(s.name);
      problems.add(0, 0, "expected a header row (" + join(names, ",") + ") and rows of data, got an empty file");
      return;
    }
    const std::optional<std::vector<Column>> columns = read_header(header, specs, problems);
    if (!columns) return;
    const std::size_t width = header.fields.size();
    CsvRecord record;
    bool any = false;
    while (!problems.full() && reader.next(record)) {
      any = true;
      const std::vector<CsvField>& fields = record.fields;
      if (fields.size() != width) {
        problems.add(fields.size() > width ? fields[width] : fields.back(),
                     "expected " + std::to_string(width) + (width == 1 ? " field" : " fields") +
                         " as in the header, got " + std::to_string(fields.size()));
        continue;
      }
      row(*columns, fields);
    }
    if (!any) problems.add(header.fields.front(), "expected rows of data after the header, got none");
  } catch (const CsvSyntaxError& e) {
    problems.add(e.line(), e.column(), e.what());
  }
}

// The columns of each kind of file; the names are the YAML keys of the
// values they hold, except `duration`, the usual name in tracing exports.
std::vector<ColumnSpec> rate_trace_columns() { return {{"at", duration_units()}, {"rate", rate_units()}}; }
std::vector<ColumnSpec> sample_columns() { return {{"duration", duration_units()}}; }

// ---- locating problems ---------------------------------------------------------

std::string located(const std::string& file, const CsvProblem& p) {
  if (p.line == 0) return file + ": " + p.message;
  return file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": " + p.message;
}

// The text of a CSV file, or nullopt after reporting at `path` (the YAML
// path of the `file:` value). display is the file's name in messages.
std::optional<std::string> read_input(const std::filesystem::path& resolved, const std::string& display,
                                      const std::string& path, const SourceMap& where,
                                      std::vector<Diagnostic>& out) {
  try {
    std::string reason;
    std::optional<std::string> text = read_document_file(resolved, display, reason);
    if (!text) out.push_back(where.at(path, "cannot read CSV file " + quote(display) + ": " + reason));
    return text;
  } catch (const ScenarioError& e) {
    // Too large: said about the CSV file, reported at the value naming it.
    for (const Diagnostic& d : e.diagnostics()) out.push_back(where.at(path, d.to_string()));
    return std::nullopt;
  }
}

// Reads the CSV file a `file:` value (at path) names into values, and sets
// file to its absolute path; reports problems at path instead.
template <class T, class Parse>
void fill_from_file(std::optional<std::string>& file, std::vector<T>& values, std::string_view values_key,
                    Parse parse, const std::filesystem::path& dir, const std::string& path, const SourceMap& where,
                    std::vector<Diagnostic>& out) {
  if (!values.empty()) {
    out.push_back(where.at(path, "expected either file or " + std::string(values_key) + ", got both"));
    return;
  }
  if (file->empty()) {
    out.push_back(where.at(path, "expected the path of a CSV file, got \"\""));
    return;
  }
  // lexically_normal keeps messages short, as for a topology file.
  const std::filesystem::path resolved = (dir / *file).lexically_normal();
  const std::string display = resolved.string();
  const std::optional<std::string> text = read_input(resolved, display, path, where, out);
  if (!text) return;
  std::vector<CsvProblem> problems;
  std::vector<T> read = parse(*text, problems);
  for (const CsvProblem& p : problems) out.push_back(where.at(path, located(display, p)));
  if (!problems.empty()) return;
  values = std::move(read);
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(resolved, ec);
  file = ec ? display : absolute.lexically_normal().string();
}

// A `file` on another kind is left for the config's validate() to report.
void read_rate_trace(RateProfileConfig& config, const std::filesystem::path& dir, const std::string& config_path,
                     const SourceMap& where, std::vector<Diagnostic>& out) {
  if (!config.file || config.kind != "trace") return;
  fill_from_file(config.file, config.points, "points", parse_rate_trace, dir, config_path + ".file", where, out);
}

void read_samples(ServiceTimeConfig& config, const std::filesystem::path& dir, const std::string& config_path,
                  const SourceMap& where, std::vector<Diagnostic>& out) {
  if (!config.file || config.kind != "empirical") return;
  fill_from_file(config.file, config.samples, "samples", parse_duration_samples, dir, config_path + ".file", where,
                 out);
}

std::string indexed(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

}  // namespace

std::vector<RatePointConfig> parse_rate_trace(std::string_view text, std::vector<CsvProblem>& problems) {
  Problems report(problems);
  std::vector<RatePointConfig> points;
  std::optional<Duration> previous;  // the last time read, to check the order
  read_table(text, rate_trace_columns(), report, [&](const std::vector<Column>& columns,
                                                       const std::vector<CsvField>& fields) {
    const Column& at = columns[0];
    const Column& rate = columns[1];
    const std::optional<Duration> t = read_cell<Duration>(fields[at.index], at, kNonNegative, report);
    const std::optional<Rate> v = read_cell<Rate>(fields[rate.index], rate, kNonNegative, report);
    if (t && previous && *t < *previous) {
      // Equal times are a step; going back is a mistake (a shuffled or
      // concatenated file).
      report.add(fields[at.index], "expected a time at or after the previous row's " + format_duration(*previous) +
                                       ", got " + quote(fields[at.index].text));
    }
    if (t) previous = t;
    if (t && v) points.push_back(RatePointConfig{*t, *v});
  });
  return points;
}

std::vector<Duration> parse_duration_samples(std::string_view text, std::vector<CsvProblem>& problems) {
  Problems report(problems);
  std::vector<Duration> samples;
  read_table(text, sample_columns(), report, [&](const std::vector<Column>& columns,
                                                   const std::vector<CsvField>& fields) {
    const Column& duration = columns[0];
    if (const std::optional<Duration> d = read_cell<Duration>(fields[duration.index], duration, kPositive, report)) {
      samples.push_back(*d);
    }
  });
  return samples;
}

std::vector<Diagnostic> read_csv_input(RateProfileConfig& config, const std::filesystem::path& dir,
                                       const std::string& config_path, const SourceMap& where) {
  std::vector<Diagnostic> out;
  read_rate_trace(config, dir, config_path, where, out);
  return out;
}

std::vector<Diagnostic> read_csv_input(ServiceTimeConfig& config, const std::filesystem::path& dir,
                                       const std::string& config_path, const SourceMap& where) {
  std::vector<Diagnostic> out;
  read_samples(config, dir, config_path, where, out);
  return out;
}

std::vector<Diagnostic> read_csv_inputs(ScenarioSpec& spec, const std::filesystem::path& base_dir,
                                        const SourceMap& where) {
  std::vector<Diagnostic> out;
  for (std::size_t i = 0; i < spec.load.size(); ++i) {
    read_rate_trace(spec.load[i].load, base_dir, indexed("spec.load", i) + ".load", where, out);
  }
  // Services written in a topology file name files relative to that file.
  const std::filesystem::path topology_dir =
      spec.topology.path.empty() ? base_dir : std::filesystem::path(spec.topology.source_file).parent_path();
  std::vector<ServiceConfig>& services = spec.topology.config.services;
  for (std::size_t i = 0; i < services.size(); ++i) {
    read_samples(services[i].service_time, topology_dir, indexed("spec.topology.services", i) + ".serviceTime",
                 where, out);
  }
  return out;
}

}  // namespace drsim

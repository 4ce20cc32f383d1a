// CSV inputs: rate traces and service-time samples read from files named by
// `file:`, their formats and messages, where relative paths resolve, how the
// resolved scenario refers to them, and the distributions they make checked
// against the files themselves.
#include "io/csv_inputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "io/run.h"
#include "models/load/arrival_process.h"
#include "tests/io/test_support.h"

namespace drsim {

std::ostream& operator<<(std::ostream& os, const CsvProblem& p) {
  return os << p.line << ":" << p.column << ": " << p.message;
}

namespace {

using namespace std::chrono_literals;
using testing::error_of;

constexpr const char* kCsvInputs = "tests/data/scenarios/good/csv_inputs.yaml";
constexpr const char* kCsvInTopologyFile = "tests/data/scenarios/good/csv_in_topology_file.yaml";
constexpr const char* kTraceFile = "scenarios/data/checkout_morning_trace.csv";
constexpr const char* kSamplesFile = "scenarios/data/checkout_service_times.csv";

// (at, rate per second) pairs, for compact expectations.
using Points = std::vector<std::pair<Duration, double>>;

Points trace(std::string_view text, std::vector<CsvProblem>& problems) {
  Points out;
  for (const RatePointConfig& p : parse_rate_trace(text, problems)) out.emplace_back(p.at, p.rate.per_second);
  return out;
}

Points trace_of(std::string_view text) {
  std::vector<CsvProblem> problems;
  Points out = trace(text, problems);
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
  return out;
}

std::vector<CsvProblem> trace_problems(std::string_view text) {
  std::vector<CsvProblem> problems;
  parse_rate_trace(text, problems);
  return problems;
}

std::vector<CsvProblem> sample_problems(std::string_view text) {
  std::vector<CsvProblem> problems;
  parse_duration_samples(text, problems);
  return problems;
}

std::string absolute(const std::string& path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

// ---- the file formats ---------------------------------------------------------

TEST(RateTraceCsv, CellsCarryTheirUnits) {
  EXPECT_EQ(trace_of("at,rate\n0s,800rps\n90s,1200/min\n1h30m,0rps\n"),
            (Points{{0s, 800}, {90s, 20}, {90min, 0}}));
}

TEST(RateTraceCsv, OrTheHeaderGivesTheUnitAndColumnsComeInAnyOrder) {
  EXPECT_EQ(trace_of("rate_rps,at_ms\n800,0\n1200.5,1500\n"), (Points{{0s, 800}, {1500ms, 1200.5}}));
  EXPECT_EQ(trace_of("at_m,rate_rph\n1,3600\n"), (Points{{1min, 1}}));
}

TEST(RateTraceCsv, EqualTimesMakeAStep) {
  EXPECT_EQ(trace_of("at,rate\n0s,100rps\n1m,100rps\n1m,400rps\n"),
            (Points{{0s, 100}, {1min, 100}, {1min, 400}}));
}

TEST(RateTraceCsv, HeaderProblems) {
  using P = std::vector<CsvProblem>;
  EXPECT_EQ(trace_problems(""), (P{{0, 0, "expected a header row (at,rate) and rows of data, got an empty file"}}));
  EXPECT_EQ(trace_problems("at,rate\n"), (P{{1, 1, "expected rows of data after the header, got none"}}));
  EXPECT_EQ(trace_problems("0s,800rps\n1m,900rps\n"),
            (P{{1, 1, "expected a header row naming the columns (at, rate) first, got \"0s\""}}));
  EXPECT_EQ(trace_problems("at,rte\n0s,1rps\n"),
            (P{{1, 4, "unknown column \"rte\", did you mean \"rate\"? (columns: at, rate)"}}));
  EXPECT_EQ(trace_problems("at\n0s\n"), (P{{1, 1, "missing column \"rate\""}}));
  EXPECT_EQ(trace_problems("at,rate,at_s\n0s,1rps,0\n"), (P{{1, 9, "duplicate column \"at\" (first at column 1)"}}));
  EXPECT_EQ(trace_problems("at_sec,rate\n0s,1rps\n"),
            (P{{1, 1, "expected a unit after \"at_\" (ns, us, µs, ms, s, m, h, d), got \"sec\""}}));
  EXPECT_EQ(trace_problems("at,rate_/s\n0s,1\n"),
            (P{{1, 4, "expected a unit after \"rate_\" (rps, rpm, rph), got \"/s\""}}));
}

TEST(RateTraceCsv, RowProblemsAreEachReportedAtTheirCell) {
  using P = std::vector<CsvProblem>;
  EXPECT_EQ(trace_problems("at,rate\n0s,1rps,2\n1m\n"),
            (P{{2, 9, "expected 2 fields as in the header, got 3"}, {3, 1, "expected 2 fields as in the header, got 1"}}));
  EXPECT_EQ(trace_problems("at,rate\n0s,1200\nfoo,5rps\n"),
            (P{{2, 4, "expected a rate with a unit, e.g. \"800rps\", got \"1200\""},
               {3, 1,
                "expected a duration such as \"250ms\" or \"1h30m\" (units: ns, us, µs, ms, s, m, h, d), got \"foo\""}}));
  EXPECT_EQ(trace_problems("at_s,rate_rps\n0,1\n5s,2\n10,-5\n"),
            (P{{3, 1, "expected a number (the header \"at_s\" gives the unit), got \"5s\""},
               {4, 4, "expected a non-negative rate, got \"-5\""}}));
  EXPECT_EQ(trace_problems("at,rate\n-1s,1rps\n"), (P{{2, 1, "expected a non-negative duration, got \"-1s\""}}));
  EXPECT_EQ(trace_problems("at_s,rate_rps\n0,1\n10,1\n9.5,1\n"),
            (P{{4, 1, "expected a time at or after the previous row's 10s, got \"9.5\""}}));
  EXPECT_EQ(trace_problems("at,rate\n\"0s,1rps\n"),
            (P{{2, 1, "expected a closing quote for the field that starts here, got the end of the file"}}));
}

TEST(RateTraceCsv, AFileOfGarbageStopsAfterAFewProblems) {
  std::string text = "at,rate\n";
  for (int i = 0; i < 1000; ++i) text += "x,y\n";
  const std::vector<CsvProblem> problems = trace_problems(text);
  ASSERT_EQ(problems.size(), kMaxCsvProblems);
  EXPECT_EQ(problems.back().line, 11);  // two problems a row
  EXPECT_TRUE(problems.back().message.ends_with("(stopped after 20 problems in this file)")) << problems.back();
}

TEST(SamplesCsv, OneColumnOfDurations) {
  std::vector<CsvProblem> problems;
  EXPECT_EQ(parse_duration_samples("duration\n12ms\n1.5s\n\"250us\"\n", problems),
            (std::vector<Duration>{12ms, 1500ms, 250us}));
  EXPECT_EQ(parse_duration_samples("duration_us\n250\n1000.5\n", problems),
            (std::vector<Duration>{250us, 1000500ns}));
  EXPECT_TRUE(problems.empty());
}

TEST(SamplesCsv, SamplesMustBePositive) {
  using P = std::vector<CsvProblem>;
  EXPECT_EQ(sample_problems("duration\n0s\n-1ms\n2ms\n"),
            (P{{2, 1, "expected a positive duration, got \"0s\""}, {3, 1, "expected a positive duration, got \"-1ms\""}}));
  EXPECT_EQ(sample_problems(""),
            (P{{0, 0, "expected a header row (duration) and rows of data, got an empty file"}}));
  EXPECT_EQ(sample_problems("latency\n1ms\n"), (P{{1, 1, "unknown column \"latency\" (columns: duration)"}}));
}

// ---- loading: paths, overrides, the resolved scenario -------------------------

TEST(CsvInputs, ALoadedScenarioHoldsTheFilesValuesAndTheirAbsolutePaths) {
  const Scenario s = load_scenario_file(kCsvInputs);
  const RateProfileConfig& load = s.spec.load.at(0).load;
  ASSERT_EQ(load.points.size(), 61u);  // one hour, a point a minute
  EXPECT_EQ(load.points.front().at, 0s);
  EXPECT_EQ(load.points.back().at, 60min);
  EXPECT_EQ(load.points.front().rate, Rate{316});
  EXPECT_EQ(load.file, absolute(kTraceFile));
  const ServiceTimeConfig& st = s.spec.topology.config.services.at(0).service_time;
  EXPECT_EQ(st.samples.size(), 400u);
  EXPECT_EQ(st.samples.front(), 49300us);
  EXPECT_EQ(st.file, absolute(kSamplesFile));
}

TEST(CsvInputs, ATopologyFilesServicesNameFilesRelativeToIt) {
  const Scenario s = load_scenario_file(kCsvInTopologyFile);
  const ServiceTimeConfig& st = s.spec.topology.config.services.at(0).service_time;
  EXPECT_EQ(st.samples, (std::vector<Duration>{12ms, 15ms, 9500us, 30ms, 1s}));
  EXPECT_EQ(st.file, absolute("tests/data/scenarios/csv/five_samples.csv"));
  // The scenario's own load, relative to the scenario.
  const RateProfileConfig& load = s.spec.load.at(0).load;
  ASSERT_EQ(load.points.size(), 5u);
  EXPECT_EQ(load.points[2].at, 120s);
  EXPECT_EQ(load.points[2].rate, Rate{200});
  EXPECT_EQ(load.points[3].at, 300500ms);
}

TEST(CsvInputs, TextResolvesAgainstItsBaseDirectoryTheCurrentOneByDefault) {
  const std::string text = testing::scenario_with(R"(    services:
      - name: api
        serviceTime: {kind: empirical, file: DIR_five_samples.csv}
        replicas: [{zone: eu-west-1a, replicas: 1}]
)");
  auto with_dir = [&](std::string dir) {
    std::string t = text;
    t.replace(t.find("DIR_"), 4, dir);
    return t;
  };
  // Tests run from the source tree, the current directory.
  const Scenario here = load_scenario_text(with_dir("tests/data/scenarios/csv/"));
  EXPECT_EQ(here.spec.topology.config.services.at(0).service_time.samples.size(), 5u);
  const Scenario there = load_scenario_text(with_dir(""), {}, "<text>", "tests/data/scenarios/csv");
  EXPECT_EQ(there.spec.topology.config.services.at(0).service_time.samples.size(), 5u);
  EXPECT_EQ(testing::load_error(with_dir("")),
            "<text>:17:46: spec.topology.services[0].serviceTime.file: cannot read CSV file \"" +
                (std::filesystem::current_path() / "five_samples.csv").string() + "\": No such file or directory");
}

TEST(CsvInputs, TheResolvedScenarioKeepsTheFileReferenceAndLoadsBackFromAnywhere) {
  const Scenario s = load_scenario_file(kCsvInputs);
  const std::string text = to_yaml(s);
  EXPECT_NE(text.find("file: " + absolute(kTraceFile) + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("file: " + absolute(kSamplesFile) + "\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("points:"), std::string::npos) << text;
  EXPECT_EQ(text.find("samples:"), std::string::npos) << text;
  // From another directory: the paths are absolute.
  const Scenario again = load_scenario_text(text, {}, "<text>", std::filesystem::temp_directory_path());
  EXPECT_EQ(to_yaml(again), text);
  ASSERT_EQ(again.spec.load.at(0).load.points.size(), s.spec.load.at(0).load.points.size());
  for (std::size_t i = 0; i < s.spec.load[0].load.points.size(); ++i) {
    EXPECT_EQ(again.spec.load[0].load.points[i].at, s.spec.load[0].load.points[i].at);
    EXPECT_EQ(again.spec.load[0].load.points[i].rate, s.spec.load[0].load.points[i].rate);
  }
  EXPECT_EQ(again.spec.topology.config.services.at(0).service_time.samples,
            s.spec.topology.config.services.at(0).service_time.samples);
}

TEST(CsvInputs, TheFilesValuesAreThoseOfTheSameValuesWrittenInline) {
  // Without `file`, the writer writes the points and samples inline: loading
  // that text must give the same values the CSV reader gave.
  Scenario s = load_scenario_file(kCsvInputs);
  s.spec.load[0].load.file.reset();
  s.spec.topology.config.services[0].service_time.file.reset();
  const std::string text = to_yaml(s);
  EXPECT_NE(text.find("points:"), std::string::npos);
  const Scenario inline_values = load_scenario_text(text);
  const auto& a = inline_values.spec.load[0].load.points;
  const auto& b = s.spec.load[0].load.points;
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].at, b[i].at);
    EXPECT_EQ(a[i].rate, b[i].rate);
  }
  EXPECT_EQ(inline_values.spec.topology.config.services[0].service_time.samples,
            s.spec.topology.config.services[0].service_time.samples);
}

TEST(CsvInputs, OverridesReplaceTheFileLikeAnyValue) {
  // Relative to the scenario's directory, as the value it replaces.
  const Scenario s = load_scenario_file(kCsvInputs, {"spec.load[0].load.file=../csv/step_trace_header_units.csv"});
  EXPECT_EQ(s.spec.load[0].load.points.size(), 5u);
  EXPECT_EQ(s.spec.load[0].load.file, absolute("tests/data/scenarios/csv/step_trace_header_units.csv"));
  const Scenario again = with_overrides(s, {"spec.load[0].load.file=../../../../scenarios/data/checkout_morning_trace.csv"});
  EXPECT_EQ(again.spec.load[0].load.points.size(), 61u);
  // Inline points instead of the file: the whole profile is replaced.
  const Scenario inline_points =
      load_scenario_file(kCsvInputs, {"spec.load[0].load={kind: trace, points: [{at: 0s, rate: 5rps}]}"});
  ASSERT_EQ(inline_points.spec.load[0].load.points.size(), 1u);
  EXPECT_FALSE(inline_points.spec.load[0].load.file);
  // A topology file's service: relative to the topology file.
  const Scenario topology = load_scenario_file(
      kCsvInTopologyFile, {"spec.topology.services[0].serviceTime.file=../../../../scenarios/data/checkout_service_times.csv"});
  EXPECT_EQ(topology.spec.topology.config.services[0].service_time.samples.size(), 400u);
}

TEST(CsvInputs, AProblemWithAnOverriddenFileNamesTheOverride) {
  EXPECT_EQ(error_of([] { load_scenario_file(kCsvInputs, {"spec.load[0].load.file=nope.csv"}); }),
            "--set spec.load[0].load.file=nope.csv:1:1: spec.load[0].load.file: cannot read CSV file "
            "\"tests/data/scenarios/good/nope.csv\": No such file or directory");
  EXPECT_EQ(error_of([] { load_scenario_file(kCsvInputs, {"spec.load[0].load.file=../csv/negative_rate.csv"}); }),
            "--set spec.load[0].load.file=../csv/negative_rate.csv:1:1: spec.load[0].load.file: "
            "tests/data/scenarios/csv/negative_rate.csv:3:4: expected a non-negative rate, got \"-5rps\"");
}

TEST(CsvInputs, FileOnTheWrongKindAndEmptyPath) {
  EXPECT_EQ(error_of([] { load_scenario_file(kCsvInputs, {"spec.load[0].load.kind=constant"}); }),
            "tests/data/scenarios/good/csv_inputs.yaml:27:15: spec.load[0].load.file: applies only to kind trace, not "
            "constant\n"
            "tests/data/scenarios/good/csv_inputs.yaml:26:9: spec.load[0].load.rate: required for kind constant");
  EXPECT_EQ(error_of([] { load_scenario_file(kCsvInputs, {"spec.topology.services[0].serviceTime.file=\"\""}); }),
            "--set spec.topology.services[0].serviceTime.file=\"\":1:1: spec.topology.services[0].serviceTime.file: "
            "expected the path of a CSV file, got \"\"");
  EXPECT_EQ(error_of([] { load_scenario_file(kCsvInputs, {"spec.topology.services[0].serviceTime.file=."}); }),
            "--set spec.topology.services[0].serviceTime.file=.:1:1: spec.topology.services[0].serviceTime.file: "
            "cannot read CSV file \"tests/data/scenarios/good/\": Is a directory");
}

// ---- the distributions, checked against the files ------------------------------

// The shipped files read without the CSV reader: "<n>m" / "0s" and "<n>rps";
// one duration in ms a line after the header.
std::vector<std::pair<double, double>> trace_from_file() {
  std::ifstream in(kTraceFile);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "at,rate");
  std::vector<std::pair<double, double>> out;  // (seconds, per second)
  while (std::getline(in, line)) {
    const std::string at = line.substr(0, line.find(','));
    const std::string rate = line.substr(line.find(',') + 1);
    const double seconds = at == "0s" ? 0 : std::stod(at.substr(0, at.size() - 1)) * 60;
    EXPECT_TRUE(rate.ends_with("rps")) << line;
    out.emplace_back(seconds, std::stod(rate.substr(0, rate.size() - 3)));
  }
  return out;
}

std::vector<double> samples_ms_from_file() {
  std::ifstream in(kSamplesFile);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "duration_ms");
  std::vector<double> out;
  while (std::getline(in, line)) out.push_back(std::stod(line));
  return out;
}

TEST(CsvInputsValidation, EmpiricalQuantilesAreTheFilesOrderStatistics) {
  const Scenario s = load_scenario_file(kCsvInputs);
  const ServiceTimeDistribution dist(s.spec.topology.config.services.at(0).service_time);
  std::vector<double> ms = samples_ms_from_file();
  ASSERT_EQ(ms.size(), 400u);
  std::sort(ms.begin(), ms.end());
  // Inverse empirical CDF ("inverted_cdf" in numpy): the ceil(q n)-th smallest.
  for (double q : {0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 1.0}) {
    const auto k = static_cast<std::size_t>(std::ceil(q * 400)) - 1;
    EXPECT_NEAR(to_seconds(dist.quantile(q)) * 1e3, ms[k], 1e-9) << "q=" << q;
  }
  double sum = 0;
  for (double x : ms) sum += x;
  EXPECT_NEAR(to_seconds(dist.mean()) * 1e3, sum / 400, 1e-6);
  // The figures scenarios/data/README.md quotes, computed there with Python.
  EXPECT_EQ(dist.quantile(0.5), 33600us);
  EXPECT_EQ(dist.quantile(0.9), 68700us);
  EXPECT_EQ(dist.quantile(0.99), 152400us);
  EXPECT_EQ(dist.quantile(1.0), 188ms);
}

TEST(CsvInputsValidation, DrawsFollowTheFilesEmpiricalDistribution) {
  const Scenario s = load_scenario_file(kCsvInputs);
  const ServiceTimeDistribution dist(s.spec.topology.config.services.at(0).service_time);
  std::vector<double> ms = samples_ms_from_file();
  std::sort(ms.begin(), ms.end());
  RngStream rng(7, "csv-samples");
  constexpr std::size_t kDraws = 200'000;
  std::vector<double> draws(kDraws);
  for (double& d : draws) d = to_seconds(dist.sample(rng)) * 1e3;
  std::sort(draws.begin(), draws.end());
  // Kolmogorov distance between the draws' CDF and the file's, at every
  // sample value; by the Dvoretzky-Kiefer-Wolfowitz inequality it exceeds
  // eps with probability at most 2 exp(-2 n eps^2) = 2.5e-7 for eps = 0.006.
  double worst = 0;
  for (double x : ms) {
    const double file_cdf = static_cast<double>(std::upper_bound(ms.begin(), ms.end(), x) - ms.begin()) / 400.0;
    const double draw_cdf =
        static_cast<double>(std::upper_bound(draws.begin(), draws.end(), x + 1e-9) - draws.begin()) / kDraws;
    worst = std::max(worst, std::abs(file_cdf - draw_cdf));
  }
  EXPECT_LT(worst, 0.006);
}

TEST(CsvInputsValidation, ArrivalsFollowTheTraceIntegratedByHand) {
  const Scenario s = load_scenario_file(kCsvInputs);
  const auto points = trace_from_file();
  ASSERT_EQ(points.size(), 61u);
  // Expected arrivals in each 10-minute block: trapezoids between the points.
  std::vector<double> expected(6, 0);
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const double mass = (points[i + 1].first - points[i].first) * 0.5 * (points[i].second + points[i + 1].second);
    expected[static_cast<std::size_t>(points[i].first / 600)] += mass;
  }
  const ArrivalProcess arrivals{RateProfile(s.spec.load[0].load)};
  RngStream rng(3, "csv-trace");
  std::vector<double> counted(6, 0);
  for (SimTime t = arrivals.next_after(kSimStart, rng); t < at(60min); t = arrivals.next_after(t, rng)) {
    counted[static_cast<std::size_t>(to_seconds(t.time_since_epoch()) / 600)] += 1;
  }
  for (std::size_t b = 0; b < 6; ++b) {
    EXPECT_NEAR(arrivals.profile().cumulative(at(b * 10min), at((b + 1) * 10min)), expected[b], 1e-6 * expected[b]);
    // Poisson: within 4.5 standard deviations.
    EXPECT_NEAR(counted[b], expected[b], 4.5 * std::sqrt(expected[b])) << "block " << b;
  }
  // The morning ramp: the last block carries far more than the first.
  EXPECT_GT(counted[5], 3 * counted[0]);
}

TEST(CsvInputsValidation, TheScenarioRunsOnTheFilesValues) {
  // A short run: requests arrive at the trace's rate and take the samples' time.
  const RunResult r = run_scenario(load_scenario_file(kCsvInputs), RunOptions{.until = 2min});
  ASSERT_TRUE(r.outcome.complete());
  double offered = 0;
  for (const Recorder::Series& series : r.recorder().series_list()) {
    if (series.metric == "client.offered") {
      for (double v : series.value) offered += v;
    }
  }
  // The first two minutes of the trace: 316 -> 320 -> 333 rps, about 38,900 requests.
  EXPECT_NEAR(offered, 60 * 0.5 * (316 + 320) + 60 * 0.5 * (320 + 333), 4.5 * std::sqrt(38'670.0));
}

}  // namespace
}  // namespace drsim

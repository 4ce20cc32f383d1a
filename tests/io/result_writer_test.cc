// Results of a run on disk and as text, and the fault KPIs end to end: a
// scenario whose fault's errors and recovery time follow from its mechanism
// (client timeout, queue, window), run through io/run.cc.
#include "io/result_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/objective_evaluation.h"
#include "io/output_error.h"
#include "io/results_folder.h"
#include "io/scenario_loader.h"
#include "tests/cli/cli_test_support.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Zone a fails at 5.305 s for 6 s. The service has 2 pods of 4 workers per
// zone and takes exactly 50 ms a request; 100 requests/s arrive evenly spaced
// (every 10 ms), with a 2 s client timeout; windows of 1 s. `service_tail`
// and `spec_tail` change the deployment and add settings. The callers use
// the oracle (an explicit opt-in): these tests check the fault figures'
// arithmetic on a failure whose pattern is known to the request; how a
// balancer's detection adds to it is tests/traffic/cloud_load_balancer_test.cc's.
std::string zone_outage(std::string_view replicas = "2", std::string_view service_tail = "",
                        std::string_view step_tail = "      duration: 6s\n", std::string_view spec_tail = "") {
  std::ostringstream text;
  text << R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: zone-outage
spec:
  duration: 20s
  topology:
    regions:
      - name: r1
        zones: [{name: a}, {name: b}]
      - name: r2
        zones: [{name: c}]
    services:
      - name: api
        concurrency: 4
        serviceTime: {kind: constant, value: 50ms}
        discovery: oracle
)" << service_tail
       << "        replicas:\n          - {zone: a, replicas: " << replicas
       << "}\n          - {zone: b, replicas: " << replicas << R"(}
  load:
    - name: web
      service: api
      arrivals: deterministic
      load: {kind: constant, rate: 100rps}
      timeout: 2s
  timeline:
    - name: lose-a
      action: zone:fail
      target: {zone: a}
      at: 5305ms
)" << step_tail
       << spec_tail;
  return text.str();
}

const Recorder::Kpi& kpi(const RunResult& r, std::string_view name, const Labels& labels) {
  const Recorder::Kpi* k = r.recorder().find_kpi(name, labels);
  if (k == nullptr) throw std::runtime_error("no KPI " + std::string(name));
  return *k;
}

double step_kpi(const RunResult& r, std::string_view name) { return kpi(r, name, {{"step", "lose-a"}}).value; }

// The sum of metric{labels} over the windows starting in [from, to).
double window_sum(const Recorder& rec, std::string_view metric, const Labels& labels, Duration from, Duration to) {
  double total = 0;
  for (const Recorder::Series& s : rec.series_list()) {
    if (s.metric != metric || s.labels != labels) continue;
    for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
      if (s.t_ns[i] >= from.count() && s.t_ns[i] < to.count()) total += s.value[i];
    }
  }
  return total;
}

TEST(FaultKpis, ABlackholedZoneCostsTheRequestsItHeldAndRecoveryFollowsTheTimeout) {
  const RunResult r = run_scenario(load_scenario_text(zone_outage()));
  ASSERT_TRUE(r.outcome.complete());
  // The balancer stops sending to a once it is down; what a held when it
  // failed (requests sent in the last 50 ms, half of the 5 of them) is
  // black-holed and times out 2 s after being sent: those are the fault's
  // errors, every failure of the run.
  const double errors = step_kpi(r, "fault.errors");
  EXPECT_GE(errors, 2);
  EXPECT_LE(errors, 3);
  EXPECT_EQ(errors, kpi(r, "client.failed", {{"population", "web"}, {"cause", "timeout"}}).value);
  EXPECT_EQ(kpi(r, "fault.failed", {{"step", "lose-a"}, {"cause", "timeout"}}).value, errors);
  // They fail between 7.255 s and 7.305 s: window 7.
  EXPECT_EQ(step_kpi(r, "fault.first_failure_s"), 7);
  // The success ratio is back for good in the first window after the last
  // timeout, the one starting at ceil(5.305 s + 2 s) = 8 s: 2.695 s after the
  // fault, before its end (the clients had failed over).
  EXPECT_DOUBLE_EQ(step_kpi(r, "fault.time_to_recover_s"), 8 - 5.305);
  EXPECT_EQ(step_kpi(r, "fault.time_to_recover_after_end_s"), 0);
  EXPECT_DOUBLE_EQ(step_kpi(r, "fault.start_s"), 5.305);
  EXPECT_DOUBLE_EQ(step_kpi(r, "fault.end_s"), 11.305);
  // Counted: the windows overlapping [5.305 s, 11.305 s + the 2 s timeout).
  const Labels web{{"population", "web"}};
  EXPECT_EQ(step_kpi(r, "fault.offered"), window_sum(r.recorder(), "client.offered", web, 5s, 14s));
  EXPECT_EQ(step_kpi(r, "fault.succeeded"), window_sum(r.recorder(), "client.succeeded", web, 5s, 14s));
  EXPECT_DOUBLE_EQ(step_kpi(r, "fault.success_ratio"),
                   step_kpi(r, "fault.succeeded") / (step_kpi(r, "fault.succeeded") + errors));
  // One population: its own figures are the same.
  EXPECT_EQ(kpi(r, "fault.errors", {{"step", "lose-a"}, {"population", "web"}}).value, errors);
  EXPECT_DOUBLE_EQ(kpi(r, "fault.time_to_recover_s", {{"step", "lose-a"}, {"population", "web"}}).value, 2.695);
}

TEST(FaultKpis, ShortCapacityRecoversOnlyAfterTheRepair) {
  // One pod per zone: 80 requests/s each, 100 arrive. With zone a down, b
  // rejects a fifth of them (queue of 8) until a is back at 11.305 s; b's
  // queue then drains within 100 ms (8 queued / 4 workers x 50 ms), so the
  // clients are back in the window starting at 12 s.
  const RunResult r = run_scenario(load_scenario_text(zone_outage("1", "        queueLimit: 8\n")));
  EXPECT_GT(kpi(r, "fault.failed", {{"step", "lose-a"}, {"cause", "rejected"}}).value, 100);
  EXPECT_DOUBLE_EQ(step_kpi(r, "fault.time_to_recover_s"), 12 - 5.305);
  EXPECT_DOUBLE_EQ(step_kpi(r, "fault.time_to_recover_after_end_s"), 12 - 11.305);
  EXPECT_LT(step_kpi(r, "fault.success_ratio"), 0.9);
  // The roll-ups: only zone b ever queued; region r1 sums its zones, r2 has no service.
  EXPECT_GT(kpi(r, "zone.overload_service_s", {{"zone", "b"}}).value, 5);
  EXPECT_EQ(kpi(r, "zone.overload_service_s", {{"zone", "b"}}).value,
            kpi(r, "zone.overload_s", {{"service", "api"}, {"zone", "b"}}).value);
  EXPECT_EQ(kpi(r, "region.overload_service_s", {{"region", "r1"}}).value,
            kpi(r, "zone.overload_service_s", {{"zone", "a"}}).value +
                kpi(r, "zone.overload_service_s", {{"zone", "b"}}).value);
  EXPECT_EQ(kpi(r, "region.utilization_peak", {{"region", "r1"}}).value, 1.0);
  EXPECT_EQ(r.recorder().find_kpi("region.utilization_peak", {{"region", "r2"}}), nullptr);
}

TEST(FaultKpis, AFaultNeverRepairedNeverRecovers) {
  const RunResult r = run_scenario(load_scenario_text(zone_outage("1", "        queueLimit: 8\n", "")));
  EXPECT_TRUE(std::isnan(step_kpi(r, "fault.end_s")));
  EXPECT_TRUE(std::isnan(step_kpi(r, "fault.time_to_recover_s")));
  EXPECT_TRUE(std::isnan(step_kpi(r, "fault.time_to_recover_after_end_s")));
  EXPECT_NE(kpis_json(r).find(R"({"name": "fault.time_to_recover_s", "step": "lose-a", "value": null})"),
            std::string::npos);
}

TEST(FaultKpis, TheObjectiveDecidesWhatCountsAsRecovered) {
  // Zone b alone serves 80% of the requests: enough for an objective of 75%,
  // so the fault never takes the clients below it.
  const std::string text = zone_outage("1", "        queueLimit: 8\n", "", "  objectives: {successRatio: 75%}\n");
  const Scenario s = load_scenario_text(text);
  EXPECT_EQ(s.spec.objectives.success_ratio, Ratio{0.75});
  const RunResult r = run_scenario(s);
  EXPECT_EQ(step_kpi(r, "fault.time_to_recover_s"), 0);
  EXPECT_EQ(load_scenario_text(zone_outage()).spec.objectives.success_ratio, Ratio{0.999});
  EXPECT_NE(testing::load_error(zone_outage("2", "", "", "  objectives: {successRatio: 0%}\n")).find("successRatio"),
            std::string::npos);
}

TEST(Objectives, TargetsAreValidatedWithTheirPositions) {
  const std::string unknown = testing::load_error(zone_outage("2", "", "", "  objectives: {population: webb}\n"));
  EXPECT_NE(unknown.find("spec.objectives.population"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("webb"), std::string::npos) << unknown;
  const std::string alone = testing::load_error(zone_outage("2", "", "", "  objectives: {availabilityWindow: 5s}\n"));
  EXPECT_NE(alone.find("has no availability target"), std::string::npos) << alone;
  const std::string grid =
      testing::load_error(zone_outage("2", "", "", "  objectives: {availability: 99%, availabilityWindow: 1500ms}\n"));
  EXPECT_NE(grid.find("expected a multiple of metricsWindow (1s), got 1.5s"), std::string::npos) << grid;
  const std::string latency_alone =
      testing::load_error(zone_outage("2", "", "", "  objectives: {latencyP99Window: 1m}\n"));
  EXPECT_NE(latency_alone.find("spec.objectives.latencyP99Window"), std::string::npos) << latency_alone;
  EXPECT_NE(latency_alone.find("has no latencyP99 target"), std::string::npos) << latency_alone;
  const std::string latency_grid =
      testing::load_error(zone_outage("2", "", "", "  objectives: {latencyP99: 1s, latencyP99Window: 2500ms}\n"));
  EXPECT_NE(latency_grid.find("expected a multiple of metricsWindow (1s), got 2.5s"), std::string::npos)
      << latency_grid;
  EXPECT_NE(testing::load_error(zone_outage("2", "", "", "  objectives: {rto: 0s}\n")).find("rto"), std::string::npos);
}

// With latencyP99Window the run records each population's trailing p99 and
// judges the worst one: never below the run's p99 of the worst window, and
// the run's own p99 lies within the trailing series' range.
TEST(Objectives, ALatencyWindowRecordsTheTrailingP99AndJudgesIt) {
  const RunResult run = run_scenario(
      load_scenario_text(zone_outage("2", "", "", "  objectives: {latencyP99: 10s, latencyP99Window: 3s}\n")));
  double worst = 0, least = 1e9;
  std::size_t points = 0;
  for (const Recorder::Series& s : run.recorder().series_list()) {
    if (s.metric != "client.latency_p99_window_s") continue;
    for (double v : s.value) {
      worst = std::max(worst, v);
      least = std::min(least, v);
      ++points;
    }
  }
  ASSERT_GT(points, 0u);
  double run_p99 = 0;
  for (const Recorder::Kpi& k : run.recorder().kpis()) {
    if (k.name == "client.latency_p99_s") run_p99 = std::max(run_p99, k.value);
  }
  EXPECT_LE(least, run_p99 * 1.01);
  EXPECT_GE(worst, run_p99 * 0.99);
  const ObjectiveReport r = objective_report(run);
  ASSERT_EQ(r.verdicts.size(), 1u);
  EXPECT_DOUBLE_EQ(*r.verdicts[0].measured, worst);
  EXPECT_TRUE(r.verdicts[0].pass);
  // Without the window nothing extra is recorded.
  const RunResult plain =
      run_scenario(load_scenario_text(zone_outage("2", "", "", "  objectives: {latencyP99: 10s}\n")));
  for (const Recorder::Series& s : plain.recorder().series_list()) EXPECT_NE(s.metric, "client.latency_p99_window_s");
}

TEST(Objectives, TheSummaryJudgesOnlyDeclaredTargets) {
  // Without targets the summary is as before: no Objectives table.
  EXPECT_EQ(summary_text(run_scenario(load_scenario_text(zone_outage()))).find("Objectives"), std::string::npos);
  // The clients recover 2.695 s after zone a fails (the fault table's figure):
  // an RTO of 2s fails, one of 3s passes.
  const RunResult tight = run_scenario(load_scenario_text(zone_outage("2", "", "", "  objectives: {rto: 2s}\n")));
  const std::string text = summary_text(tight);
  EXPECT_NE(text.find("rto           lose-a                <= 2s         2.695s                FAIL"),
            std::string::npos)
      << text;
  EXPECT_TRUE(objective_report(tight).any_failed());
  const RunResult loose = run_scenario(load_scenario_text(zone_outage("2", "", "", "  objectives: {rto: 3s}\n")));
  EXPECT_FALSE(objective_report(loose).any_failed());
  EXPECT_NE(objectives_json(objective_report(loose)).find("\"passed\": true"), std::string::npos);
}

TEST(FaultKpis, ARunStoppedByAGuardReportsTheFaultsItReached) {
  const RunResult r =
      run_scenario(load_scenario_text(zone_outage("2", "", "      duration: 6s\n", "  guards: {maxEvents: 1600}\n")));
  ASSERT_FALSE(r.outcome.complete());
  ASSERT_GT(r.outcome.end_time, SimTime{5305ms});
  ASSERT_LT(r.outcome.end_time, SimTime{11305ms});
  EXPECT_DOUBLE_EQ(step_kpi(r, "fault.start_s"), 5.305);
  EXPECT_TRUE(std::isnan(step_kpi(r, "fault.end_s")));  // the undo was not reached
  const std::string csv = faults_csv(fault_report(r));
  EXPECT_NE(csv.find("\nlose-a,zone:fail,zone=a,5.305,,"), std::string::npos) << csv;
}

// ---- the writers ----

TEST(ResultWriter, FaultsCsvHasOneRowPerStepAndEmptyFieldsForNone) {
  FaultReport report;
  report.windows.window = 1s;
  report.windows.causes = {"timeout", "no_target"};
  FaultImpact outage;
  outage.step = FaultStep{"outage, a", "zone:fail", "zone=a", SimTime{1500ms}, SimTime{3s}, true};
  outage.all.offered = 300;
  outage.all.succeeded = 290;
  outage.all.failed = 10;
  outage.all.failed_by_cause = {7, 3};
  outage.all.success_ratio = 290.0 / 300.0;
  outage.all.first_failure = SimTime{2s};
  outage.all.recovered = SimTime{4s};
  outage.all.time_to_recover = 2500ms;
  outage.all.time_to_recover_after_end = 1s;
  FaultImpact drain;
  drain.step = FaultStep{"drain", "traffic:cut", "zone=a service=api", SimTime{2s}, std::nullopt, false};
  drain.all.failed_by_cause = {0, 0};
  report.impacts = {outage, drain};
  EXPECT_EQ(faults_csv(report),
            "step,action,target,start_s,end_s,offered,succeeded,errors,failed_timeout,failed_no_target,"
            "success_ratio,first_failure_s,time_to_recover_s,time_to_recover_after_end_s\n"
            "\"outage, a\",zone:fail,zone=a,1.5,3,300,290,10,7,3,0.9666666666666667,2,2.5,1\n"
            "drain,traffic:cut,zone=a service=api,2,,0,0,0,0,0,,,,\n");
}

TEST(ResultWriter, WritesFaultsCsvWithTheOtherFiles) {
  const RunResult r = run_scenario(load_scenario_text(zone_outage()));
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("drsim-result-writer-" + std::to_string(::getpid()));
  write_results(r, dir);
  std::ifstream in(dir / "faults.csv", std::ios::binary);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, faults_csv(fault_report(r)));
  EXPECT_TRUE(std::filesystem::exists(dir / "objectives.json"));
  EXPECT_EQ(written.substr(0, written.find('\n')),
            "step,action,target,start_s,end_s,offered,succeeded,errors,failed_timeout,failed_rejected,"
            "failed_no_target,failed_refused,failed_dependency,success_ratio,first_failure_s,time_to_recover_s,"
            "time_to_recover_after_end_s");
  std::filesystem::remove_all(dir);
}

TEST(ResultWriter, TheSummaryHasAFaultTableInsteadOfTheFaultKpis) {
  const RunResult r = run_scenario(load_scenario_text(zone_outage()));
  const std::string text = summary_text(r);
  EXPECT_NE(text.find("Faults (objective: 99.9% of the requests finished in each 1s window succeed):\n"
                      "  step                 action         from         to              errors   success  "
                      "recovered    after end\n"
                      "  lose-a               zone:fail      00:00:05.305 00:00:11.305 "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("2.695s       0s\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("fault.errors"), std::string::npos);
  EXPECT_NE(text.find("zone.utilization_peak zone=a"), std::string::npos);
}

TEST(ResultWriter, WithoutClientsTheSummaryHasNoFaultTable) {
  const RunResult r = run_scenario(load_scenario_text(testing::scenario_with(R"(  timeline:
    - {name: fail-a, action: 'zone:fail', at: 5m, target: {zone: eu-west-1a}}
)")));
  EXPECT_EQ(summary_text(r).find("Faults ("), std::string::npos);
  // The step is still a row of faults.csv, with nothing counted.
  EXPECT_EQ(fault_report(r).impacts.size(), 1u);
}

}  // namespace
}  // namespace drsim

namespace drsim {
namespace {

TEST(ResultsFolder, KeepsSafeNamesAsTheyAre) {
  EXPECT_EQ(results_folder_name("az_failure_hpa_trap"), "az_failure_hpa_trap");
  EXPECT_EQ(results_folder_name("readme-example.v2"), "readme-example.v2");
  EXPECT_EQ(default_results_dir("default"), std::filesystem::path("results/default"));
}

TEST(ResultsFolder, NeverLeavesTheResultsFolder) {
  EXPECT_EQ(results_folder_name("../../escaped"), "escaped");
  EXPECT_EQ(results_folder_name("/etc/drill"), "etc-drill");
  EXPECT_EQ(results_folder_name(".."), "scenario");
  EXPECT_EQ(results_folder_name("."), "scenario");
  EXPECT_EQ(results_folder_name(".hidden"), "hidden");
  EXPECT_EQ(results_folder_name("--help"), "help");
  EXPECT_EQ(results_folder_name(""), "scenario");
  EXPECT_EQ(results_folder_name("///"), "scenario");
}

TEST(ResultsFolder, RunsOfOtherCharactersBecomeOneDash) {
  EXPECT_EQ(results_folder_name("AZ failure: checkout"), "AZ-failure-checkout");
  EXPECT_EQ(results_folder_name("zone a/b\\c"), "zone-a-b-c");
  // One character, however many bytes: "é" is one '-'; so is a broken byte.
  EXPECT_EQ(results_folder_name("caf\xc3\xa9-x"), "caf--x");
  EXPECT_EQ(results_folder_name(std::string("a") + '\xff' + "b"), "a-b");
  EXPECT_EQ(results_folder_name(std::string("a\0b", 3)), "a-b");
}

TEST(ResultsFolder, LongNamesAreCutWithAHashThatKeepsThemApart) {
  const std::string base(300, 'x');
  const std::string a = results_folder_name(base + "a");
  const std::string b = results_folder_name(base + "b");
  EXPECT_EQ(a.size(), kMaxResultsFolderChars);
  EXPECT_EQ(b.size(), kMaxResultsFolderChars);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.substr(0, 71), std::string(71, 'x'));
  EXPECT_EQ(a[71], '-');
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef", 72), std::string::npos) << a;
  // The same name, the same folder: the hash is FNV-1a, not std::hash.
  EXPECT_EQ(results_folder_name(base + "a"), a);
  EXPECT_EQ(results_folder_name(std::string(80, 'y')), std::string(80, 'y'));
  EXPECT_EQ(results_folder_name(std::string(81, 'y')).size(), kMaxResultsFolderChars);
}

using testing::TempDir;  // tests/cli/cli_test_support.h

// The error write_results throws for dir, or a failure.
OutputError write_error(const RunResult& r, const std::filesystem::path& dir) {
  try {
    write_results(r, dir);
  } catch (const OutputError& e) {
    return e;
  }
  ADD_FAILURE() << "no OutputError for " << dir;
  return OutputError(std::error_code(), "", dir);
}

TEST(ResultWriter, PathMistakesAreOutputErrorsWithThePathAndTheReason) {
  const RunResult r = run_scenario(load_scenario_text(zone_outage()));
  TempDir tmp("output-errors");
  {
    const OutputError e = write_error(r, "/dev/null");
    EXPECT_EQ(e.code(), std::errc::not_a_directory);
    EXPECT_STREQ(e.what(), "cannot create the results folder /dev/null: Not a directory");
  }
  {
    const std::filesystem::path file = tmp.path() / "file";
    std::ofstream(file) << "x";
    const OutputError e = write_error(r, file / "sub");
    EXPECT_EQ(e.code(), std::errc::not_a_directory);
    EXPECT_EQ(e.path(), file / "sub");
    EXPECT_EQ(std::string(e.what()),
              "cannot create the results folder " + (file / "sub").string() + ": Not a directory");
  }
  {
    const OutputError e = write_error(r, tmp.path() / std::string(300, 'n'));
    EXPECT_EQ(e.code(), std::errc::filename_too_long);
  }
  {
    const OutputError e = write_error(r, tmp.path().string() + std::string("/a\0b", 4));
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
  }
  {
    // A folder where kpis.json belongs: the files before it are written, it
    // is not, and no temporary file is left behind.
    const std::filesystem::path dir = tmp.path() / "blocked";
    std::filesystem::create_directories(dir / "kpis.json");
    const OutputError e = write_error(r, dir);
    EXPECT_EQ(e.code(), std::errc::is_a_directory);
    EXPECT_EQ(std::string(e.what()), "cannot write " + (dir / "kpis.json").string() + ": Is a directory");
    EXPECT_TRUE(std::filesystem::exists(dir / "events.csv"));
    EXPECT_FALSE(std::filesystem::exists(dir / ".kpis.json.tmp"));
  }
}

TEST(ResultWriter, RewritingAFolderLeavesOnlyTheResultFiles) {
  const RunResult r = run_scenario(load_scenario_text(zone_outage()));
  TempDir tmp("rewrite");
  std::ofstream(tmp.path() / "kpis.json") << std::string(100000, 'z');  // longer than the new text
  write_results(r, tmp.path());
  write_results(r, tmp.path());
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(tmp.path())) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"events.csv", "faults.csv", "kpis.json", "objectives.json", "run.json",
                                             "scenario.yaml", "timeseries.csv"}));
  std::ifstream in(tmp.path() / "kpis.json", std::ios::binary);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, kpis_json(r));
}

}  // namespace
}  // namespace drsim

#include "cli/commands.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "io/scenario_error.h"
#include "tests/cli/cli_test_support.h"

namespace drsim::cli {
namespace {

// Captures what a command writes to its Console.
struct CapturedConsole {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  ~CapturedConsole() {
    std::fclose(out);
    std::fclose(err);
  }
  Console console(const std::atomic<bool>* stop = nullptr) const { return Console{out, err, false, stop}; }
  static std::string text(std::FILE* f) {
    std::rewind(f);
    std::string s;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) s.append(buf, n);
    return s;
  }
};

TEST(Commands, RunWritesEveryResultFileAndASummary) {
  testing::TempDir dir("run");
  CapturedConsole io;
  const int code = dispatch(parse_arguments({"run", "scenarios/default.yaml", "--out", dir.path().string()}),
                            io.console());
  EXPECT_EQ(code, kExitOk);
  for (const char* file : {"timeseries.csv", "events.csv", "kpis.json", "scenario.yaml", "run.json", "faults.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() / file)) << file;
  }
  const std::string summary = CapturedConsole::text(io.out);
  EXPECT_NE(summary.find("default: 02:00:00 simulated"), std::string::npos) << summary;
  EXPECT_NE(summary.find("00:10:00      zone:fail"), std::string::npos) << summary;
  EXPECT_NE(summary.find("zone.availability region=north zone=north-a"), std::string::npos) << summary;
}

TEST(Commands, AGuardStopsTheRunAndPartialResultsAreWritten) {
  testing::TempDir dir("guard");
  CapturedConsole io;
  // The outage moved to the start, so that it runs before the guard stops the
  // run among the first client arrivals.
  const int code = dispatch(parse_arguments({"run", "scenarios/default.yaml", "--set", "spec.guards.maxEvents=3",
                                             "--set", "spec.timeline[north-a-outage].at=0s", "--out",
                                             dir.path().string(), "--quiet"}),
                            io.console());
  EXPECT_EQ(code, kExitStoppedByGuard);
  EXPECT_NE(CapturedConsole::text(io.err).find("guard maxEvents (3) stopped the run"), std::string::npos);
  const std::string kpis = testing::read_file(dir.path() / "kpis.json");
  EXPECT_NE(kpis.find("\"complete\": false"), std::string::npos);
  EXPECT_NE(kpis.find("\"stop_reason\": \"max_events\""), std::string::npos);
  EXPECT_NE(testing::read_file(dir.path() / "events.csv").find("zone:fail"), std::string::npos);
}

TEST(Commands, AnInterruptedRunStillWritesWhatItHas) {
  testing::TempDir dir("interrupt");
  CapturedConsole io;
  std::atomic<bool> stop{true};
  const int code = dispatch(
      parse_arguments({"run", "scenarios/default.yaml", "--out", dir.path().string(), "--quiet"}), io.console(&stop));
  EXPECT_EQ(code, kExitInterrupted);
  EXPECT_NE(testing::read_file(dir.path() / "run.json").find("\"stop_reason\": \"interrupted\""), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "timeseries.csv"));
}

TEST(Commands, SameSeedGivesByteIdenticalOutputs) {
  testing::TempDir a("det-a"), b("det-b");
  CapturedConsole io;
  for (const auto* dir : {&a, &b}) {
    ASSERT_EQ(dispatch(parse_arguments({"run", "scenarios/default.yaml", "--seed", "7", "--out",
                                        dir->path().string(), "--quiet"}),
                       io.console()),
              kExitOk);
  }
  for (const char* file : {"timeseries.csv", "events.csv", "kpis.json", "scenario.yaml", "faults.csv"}) {
    const std::string first = testing::read_file(a.path() / file);
    EXPECT_FALSE(first.empty()) << file;
    EXPECT_EQ(first, testing::read_file(b.path() / file)) << file;
  }
}

TEST(Commands, ValidateAndDescribe) {
  CapturedConsole io;
  EXPECT_EQ(dispatch(parse_arguments({"validate", "scenarios/default.yaml"}), io.console()), kExitOk);
  EXPECT_NE(CapturedConsole::text(io.out).find("valid (3 regions, 5 timeline steps)"), std::string::npos);
  CapturedConsole io2;
  EXPECT_EQ(dispatch(parse_arguments({"describe", "scenarios/default.yaml"}), io2.console()), kExitOk);
  EXPECT_NE(CapturedConsole::text(io2.out).find("north-region-loss"), std::string::npos);
}

TEST(Commands, CheckPrintsTheNPlusOneTable) {
  CapturedConsole io;
  EXPECT_EQ(dispatch(parse_arguments({"check", "scenarios/default.yaml", "--target", "70%"}), io.console()), kExitOk);
  const std::string text = CapturedConsole::text(io.out);
  EXPECT_NE(text.find("utilization target 70%"), std::string::npos) << text;
  EXPECT_NE(text.find("\nsteady\n"), std::string::npos) << text;
  EXPECT_NE(text.find("region north down"), std::string::npos) << text;
  EXPECT_NE(text.find("population checkout"), std::string::npos) << text;
}

TEST(Commands, CheckFollowsTheCallGraphAsJsonForCi) {
  CapturedConsole io;
  EXPECT_EQ(dispatch(parse_arguments({"check", "tests/data/scenarios/good/check_call_graph.yaml", "--json"}),
                     io.console()),
            kExitOk);
  const std::string json = CapturedConsole::text(io.out);
  EXPECT_EQ(json.rfind("{\n  \"utilization_target\": 0.8,\n  \"overloaded\": true,", 0), 0u) << json;
  // The callees appear with the load the calls bring: 300 rps x 2 ledger calls over 3 zones.
  EXPECT_NE(json.find("\"service\": \"ledger\", \"zone\": \"eu-a\", \"up_pods\": 1, \"rate_per_s\": 200,"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"name\": \"zone eu-b down\", \"overloaded\": false"), std::string::npos) << json;
}

TEST(Commands, CheckFailsOnOverloadOnlyWhenAsked) {
  CapturedConsole io;
  // The clients sit in eu-a: losing it leaves them unserved.
  const auto check = [&](std::vector<std::string> argv) { return dispatch(parse_arguments(argv), io.console()); };
  const std::string file = "tests/data/scenarios/good/check_call_graph.yaml";
  EXPECT_EQ(check({"check", file}), kExitOk);
  EXPECT_EQ(check({"check", file, "--fail-on-overload"}), kExitOverloaded);
  // A single-region scenario whose clients sit nowhere and whose zones each carry the load alone.
  const std::string single = "tests/data/scenarios/good/services_and_load.yaml";
  EXPECT_EQ(check({"check", single, "--set", "spec.load[web].zone=''", "--fail-on-overload"}), kExitOk);
  EXPECT_EQ(check({"check", single, "--set", "spec.load[web].zone=''", "--target", "20%", "--fail-on-overload"}),
            kExitOverloaded);
}

// The 20-replica example of docs/sources.md section 1: zone-a fails, compensation needs 30, zone-b is full.
TEST(Commands, RecommendPolicyListsTheCandidatesThatPlaceTheScaleOut) {
  CapturedConsole io;
  const std::string file = "scenarios/appfabric_az_failure.yaml";
  EXPECT_EQ(dispatch(parse_arguments({"recommend-policy", file, "--service", "api", "--zone", "zone-a"}), io.console()),
            kExitOk);
  const std::string text = CapturedConsole::text(io.out);
  EXPECT_NE(text.find("30 replicas needed (capacity compensation: 20 + 10 of zone-a)"), std::string::npos) << text;
  EXPECT_NE(text.find("8 pending: policy spread: zone-a cannot take pods (down); zone-b has no free capacity"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("2 candidates allow the scale-out"), std::string::npos) << text;
  EXPECT_NE(text.find("extend: true                     10 down  12 +0   8 +12"), std::string::npos) << text;
  EXPECT_EQ(CapturedConsole::text(io.err), "");
}

TEST(Commands, RecommendPolicyAsJsonForAMigration) {
  CapturedConsole io;
  EXPECT_EQ(dispatch(parse_arguments({"recommend-policy", "scenarios/appfabric_az_failure.yaml", "--service",
                                      "api", "--zone", "zone-a", "--replicas", "25", "--migrate", "--json"}),
                     io.console()),
            kExitOk);
  const std::string json = CapturedConsole::text(io.out);
  EXPECT_EQ(json.rfind("{\n  \"service\": \"api\",\n  \"failed_zone\": \"zone-a\",\n  \"mode\": \"migrate\",", 0), 0u)
      << json;
  EXPECT_NE(json.find("\"needed\": 25,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"label\": \"extend: true\", \"deviation\": 1,"), std::string::npos) << json;
  EXPECT_NE(json.find("[{\"zone\": \"zone-a\", \"replicas\": 0, \"headroom\": 0}, "
                      "{\"zone\": \"zone-b\", \"replicas\": 9, "
                      "\"headroom\": 3}, {\"zone\": \"zone-c\", \"replicas\": 16, \"headroom\": 4}]"),
            std::string::npos)
      << json;
}

TEST(Commands, RecommendPolicyExitsThreeWhenNoPolicyPlacesTheScaleOut) {
  CapturedConsole io;
  EXPECT_EQ(dispatch(parse_arguments({"recommend-policy", "scenarios/appfabric_az_failure.yaml", "--service",
                                      "api", "--zone", "zone-a", "--set", "spec.kubernetes.nodePools[pool-c].nodes=1"}),
                     io.console()),
            kExitOverloaded);
  EXPECT_NE(CapturedConsole::text(io.out).find("no candidate policy places all 30 replicas"), std::string::npos);
}

TEST(Commands, RecommendPolicyBadNamesExitTwoWithAMessage) {
  const std::string file = "scenarios/appfabric_az_failure.yaml";
  CapturedConsole io;
  EXPECT_EQ(dispatch(parse_arguments({"recommend-policy", file, "--service", "api", "--zone", "zone-x"}), io.console()),
            kExitBadInput);
  EXPECT_EQ(CapturedConsole::text(io.err),
            "drsim: recommend-policy: no zone \"zone-x\" in the topology (zones: zone-a, zone-b, zone-c)\n");
  EXPECT_EQ(CapturedConsole::text(io.out), "");
  CapturedConsole io2;
  EXPECT_EQ(dispatch(parse_arguments({"recommend-policy", "scenarios/default.yaml", "--service", "payments", "--zone",
                                      "north-a"}),
                     io2.console()),
            kExitBadInput);
  EXPECT_NE(CapturedConsole::text(io2.err).find("has no deployment: the scenario has no spec.kubernetes section"),
            std::string::npos)
      << CapturedConsole::text(io2.err);
}

TEST(Commands, BadInputThrowsScenarioError) {
  CapturedConsole io;
  EXPECT_THROW(dispatch(parse_arguments({"validate", "scenarios/default.yaml", "--set", "spec.duration=30"}),
                        io.console()),
               ScenarioError);
}

}  // namespace
}  // namespace drsim::cli

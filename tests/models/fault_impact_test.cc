#include "models/results/fault_impact.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

constexpr Ratio kThreeNines{0.999};

// One population's windows as (succeeded, failed) pairs; every request sent
// is finished in its window, so offered = succeeded + failed.
using Windows = std::vector<std::pair<double, double>>;

PopulationWindows population(std::string name, const Windows& w, std::optional<Duration> timeout = std::nullopt) {
  PopulationWindows p{std::move(name), timeout, {}, {}, {std::vector<double>{}}};
  for (const auto& [ok, failed] : w) {
    p.offered.push_back(ok + failed);
    p.succeeded.push_back(ok);
    p.failed[0].push_back(failed);
  }
  return p;
}

// Windows of 1 s from 0 on, one cause ("timeout").
ClientWindows grid(std::vector<PopulationWindows> populations) {
  ClientWindows w;
  w.window = 1s;
  for (std::size_t k = 0; k < populations.at(0).offered.size(); ++k) w.starts.push_back(SimTime{k * 1s});
  w.causes = {"timeout"};
  w.populations = std::move(populations);
  return w;
}

// n windows of 100 successes; windows listed in `failing` have 5 failures and 95 successes.
Windows steady(std::size_t n, std::vector<std::size_t> failing = {}) {
  Windows w(n, {100, 0});
  for (std::size_t k : failing) w.at(k) = {95, 5};
  return w;
}

FaultStep fault(std::string name, Duration start, std::optional<Duration> end = std::nullopt,
                bool injects_fault = true) {
  FaultStep s{std::move(name), injects_fault ? "zone:fail" : "traffic:cut", "zone=a", SimTime{start}, std::nullopt,
              injects_fault};
  if (end) s.end = SimTime{*end};
  return s;
}

FaultImpact assess_one(const FaultStep& step, const ClientWindows& windows, Ratio objective = kThreeNines) {
  const std::vector<FaultImpact> out = assess_fault_impact(std::vector<FaultStep>{step}, windows, objective);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

TEST(FaultImpact, ADipThatRecoversIsCountedAndTimed) {
  // The fault starts mid-window 3 and ends at 6 s; windows 4 and 5 fail.
  const ClientWindows w = grid({population("web", steady(10, {4, 5}))});
  const FaultImpact f = assess_one(fault("outage", 3500ms, 6s), w);
  // Counted: the windows overlapping [3.5 s, 6 s), i.e. 3, 4 and 5, whole.
  EXPECT_EQ(f.all.offered, 300);
  EXPECT_EQ(f.all.succeeded, 290);
  EXPECT_EQ(f.all.failed, 10);
  ASSERT_EQ(f.all.failed_by_cause.size(), 1u);
  EXPECT_EQ(f.all.failed_by_cause[0], 10);
  EXPECT_DOUBLE_EQ(*f.all.success_ratio, 290.0 / 300.0);
  EXPECT_EQ(f.all.first_failure, SimTime{4s});
  // Back at the objective from window 6 on, for good.
  EXPECT_EQ(f.all.recovered, SimTime{6s});
  EXPECT_EQ(f.all.time_to_recover, 2500ms);
  EXPECT_EQ(f.all.time_to_recover_after_end, 0s);
  ASSERT_EQ(f.populations.size(), 1u);
  EXPECT_EQ(f.populations[0].time_to_recover, 2500ms);
  EXPECT_EQ(f.populations[0].failed, 10);
}

TEST(FaultImpact, ADipThatNeverRecoversHasNoRecoveryTime) {
  const ClientWindows w = grid({population("web", steady(10, {4, 5, 6, 7, 8, 9}))});
  const FaultImpact f = assess_one(fault("outage", 3s, 5s), w);
  EXPECT_FALSE(f.all.recovered);
  EXPECT_FALSE(f.all.time_to_recover);
  EXPECT_FALSE(f.all.time_to_recover_after_end);
  // Without a timeout the counting window is the fault's own: windows 3 and 4.
  EXPECT_EQ(f.all.failed, 5);
  EXPECT_EQ(f.all.first_failure, SimTime{4s});
}

TEST(FaultImpact, RecoveryAfterTheRepairIsMeasuredFromTheEnd) {
  // The fault lasts [2 s, 4 s); failures go on until window 6.
  const ClientWindows w = grid({population("web", steady(10, {3, 4, 5, 6}))});
  const FaultImpact f = assess_one(fault("outage", 2s, 4s), w);
  EXPECT_EQ(f.all.time_to_recover, 5s);
  EXPECT_EQ(f.all.time_to_recover_after_end, 3s);
}

TEST(FaultImpact, AStepWithoutEndCountsToTheEndOfTheRun) {
  const ClientWindows w = grid({population("web", steady(10, {4, 9}))});
  const FaultImpact f = assess_one(fault("kill", 3s), w);
  EXPECT_EQ(f.all.offered, 700);  // windows 3 to 9
  EXPECT_EQ(f.all.failed, 10);
  EXPECT_FALSE(f.all.recovered);  // window 9, the last, is below the objective
  EXPECT_FALSE(f.all.time_to_recover_after_end);
}

TEST(FaultImpact, FailuresUpToOneClientTimeoutAfterTheEndAreCounted) {
  // A request sent during [3 s, 5 s) fails at the latest 2 s after it was
  // sent: windows 3 to 6 are counted, window 8 is not.
  const ClientWindows w = grid({population("web", steady(10, {6, 8}), 2s)});
  const FaultImpact f = assess_one(fault("outage", 3s, 5s), w);
  EXPECT_EQ(f.all.offered, 400);
  EXPECT_EQ(f.all.failed, 5);
  EXPECT_EQ(f.all.first_failure, SimTime{6s});
  // Recovery looks at every window up to the next fault (here: the run's end).
  EXPECT_EQ(f.all.recovered, SimTime{9s});
}

TEST(FaultImpact, OverlappingFaultsEachCountTheirWindowsAndTheFirstEndsAtTheSecond) {
  // A from 2 s, B from 5 s, failures in windows 3 to 6.
  const ClientWindows w = grid({population("web", steady(10, {3, 4, 5, 6}))});
  const std::vector<FaultStep> steps{fault("a", 2s), fault("b", 5s)};
  const auto out = assess_fault_impact(steps, w, kThreeNines);
  ASSERT_EQ(out.size(), 2u);
  // A's span is windows 2 to 4 (those that start before B): still failing at
  // its end, so A has not recovered before B started.
  EXPECT_FALSE(out[0].all.recovered);
  EXPECT_EQ(out[0].all.failed, 20);  // both count the failures they overlap
  EXPECT_EQ(out[1].all.failed, 10);
  EXPECT_EQ(out[1].all.time_to_recover, 2s);
}

TEST(FaultImpact, StepsStartingTogetherShareTheirSpan) {
  const ClientWindows w = grid({population("web", steady(10, {3, 4}))});
  const std::vector<FaultStep> steps{fault("a", 2s), fault("b", 2s)};
  const auto out = assess_fault_impact(steps, w, kThreeNines);
  EXPECT_EQ(out.at(0).all.time_to_recover, 3s);
  EXPECT_EQ(out.at(1).all.time_to_recover, 3s);
}

TEST(FaultImpact, OperatorActionsAndRepairsDoNotEndAFaultsSpan) {
  // A fault at 2 s, an operator's traffic cut at 4 s; failures in 3 to 5.
  const ClientWindows w = grid({population("web", steady(10, {3, 4, 5}))});
  const std::vector<FaultStep> steps{fault("fail", 2s), fault("drain", 4s, std::nullopt, false)};
  const auto out = assess_fault_impact(steps, w, kThreeNines);
  EXPECT_EQ(out.at(0).all.time_to_recover, 4s);  // recovered at 6 s, mitigation included
  EXPECT_EQ(out.at(1).all.time_to_recover, 2s);
}

TEST(FaultImpact, EmptyWindowsNeitherMakeNorBreakARecovery) {
  // Failures in window 3, nothing finishes in 4 and 5, successes from 6.
  Windows quiet = steady(10, {3});
  quiet[4] = quiet[5] = {0, 0};
  FaultImpact f = assess_one(fault("outage", 2s, 3s), grid({population("web", quiet)}));
  EXPECT_EQ(f.all.recovered, SimTime{6s});

  // Recovered in window 4; an empty window 6 later does not undo it.
  Windows gap = steady(10, {3});
  gap[6] = {0, 0};
  f = assess_one(fault("outage", 2s, 3s), grid({population("web", gap)}));
  EXPECT_EQ(f.all.recovered, SimTime{4s});

  // Nothing finishes after the failures (a black hole without a timeout):
  // no window shows a recovery.
  Windows silent = steady(10, {3});
  for (std::size_t k = 4; k < 10; ++k) silent[k] = {0, 0};
  f = assess_one(fault("outage", 2s), grid({population("web", silent)}));
  EXPECT_FALSE(f.all.recovered);

  // Nothing finished at all during the counting window: no ratio.
  Windows idle(10, {0, 0});
  f = assess_one(fault("outage", 2s, 3s), grid({population("web", idle)}));
  EXPECT_FALSE(f.all.success_ratio);
  EXPECT_FALSE(f.all.first_failure);
  EXPECT_FALSE(f.all.recovered);
}

TEST(FaultImpact, AStepThatDidNoHarmRecoversAtOnce) {
  const FaultImpact f = assess_one(fault("harmless", 2500ms, 3s), grid({population("web", steady(10))}));
  EXPECT_EQ(f.all.recovered, SimTime{2500ms});
  EXPECT_EQ(f.all.time_to_recover, 0s);
  EXPECT_EQ(f.all.time_to_recover_after_end, 0s);
  EXPECT_FALSE(f.all.first_failure);
  EXPECT_EQ(*f.all.success_ratio, 1.0);
}

TEST(FaultImpact, FaultsAtTheStartAndAtTheEndOfTheRun) {
  FaultImpact f = assess_one(fault("at-start", 0s, 1s), grid({population("web", steady(10, {0}))}));
  EXPECT_EQ(f.all.first_failure, SimTime{0s});
  EXPECT_EQ(f.all.time_to_recover, 1s);

  // At the run's end (10 s, a window boundary): no window is left to count.
  f = assess_one(fault("at-end", 10s), grid({population("web", steady(10))}));
  EXPECT_EQ(f.all.offered, 0);
  EXPECT_FALSE(f.all.success_ratio);
  EXPECT_FALSE(f.all.recovered);
}

TEST(FaultImpact, AWindowExactlyAtTheObjectiveIsGood) {
  Windows at(6, {1000, 0});
  at[2] = {999, 1};  // 99.9%: good
  EXPECT_EQ(assess_one(fault("f", 1s), grid({population("web", at)})).all.time_to_recover, 0s);
  at[2] = {998, 2};  // below
  EXPECT_EQ(assess_one(fault("f", 1s), grid({population("web", at)})).all.time_to_recover, 2s);
  // A lower objective tolerates it.
  EXPECT_EQ(assess_one(fault("f", 1s), grid({population("web", at)}), Ratio{0.99}).all.time_to_recover, 0s);
}

TEST(FaultImpact, AllPopulationsTogetherAndEachOnItsOwn) {
  // A small population keeps failing; a large one does not: together they
  // are above the objective, the small one alone is not.
  Windows small(10, {10, 0});
  for (std::size_t k = 3; k < 10; ++k) small[k] = {9, 1};
  const ClientWindows w =
      grid({population("small", small, 1s), population("large", Windows(10, {10000, 0}), 3s)});
  const FaultImpact f = assess_one(fault("outage", 3s, 5s), w);
  ASSERT_EQ(f.populations.size(), 2u);
  EXPECT_FALSE(f.populations[0].recovered);
  EXPECT_EQ(f.populations[1].time_to_recover, 0s);
  EXPECT_EQ(f.all.time_to_recover, 0s);
  // Each population counts over its own timeout: small windows 3 to 5, large 3 to 7.
  EXPECT_EQ(f.populations[0].failed, 3);
  EXPECT_EQ(f.populations[0].offered, 30);
  EXPECT_EQ(f.populations[1].offered, 50000);
  EXPECT_EQ(f.all.offered, 50030);
  EXPECT_EQ(f.all.failed, 3);
  EXPECT_EQ(f.all.first_failure, SimTime{3s});
  EXPECT_FALSE(f.populations[1].first_failure);
}

TEST(FaultImpact, NoClientsNoFigures) {
  ClientWindows w;
  w.window = 1s;
  const FaultImpact f = assess_one(fault("outage", 3s, 5s), w);
  EXPECT_EQ(f.all.offered, 0);
  EXPECT_TRUE(f.populations.empty());
  EXPECT_FALSE(f.all.recovered);
}

TEST(FaultImpact, ARaggedGridIsAnError) {
  ClientWindows w = grid({population("web", steady(10))});
  w.populations[0].succeeded.pop_back();
  EXPECT_THROW(assess_one(fault("f", 1s), w), SimulationError);
}

// ---- from the Recorder and the Timeline ----

TEST(FaultImpact, ClientWindowsReadsThePopulationsSeriesOnOneGrid) {
  Recorder rec;
  const Labels web{{"population", "web"}};
  const SeriesId offered = rec.series("client.offered", web);
  const SeriesId ok = rec.series("client.succeeded", web);
  const SeriesId timeouts = rec.series("client.failed", {{"population", "web"}, {"cause", "timeout"}});
  const SeriesId refused = rec.series("client.failed", {{"population", "web"}, {"cause", "refused"}});
  const SeriesId other = rec.series("client.offered", {{"population", "batch"}});
  const SeriesId app = rec.series("client.offered", {{"population", "app"}});
  for (int k = 0; k < 3; ++k) {
    const SimTime t{k * 1s};
    rec.record(offered, t, 10);
    rec.record(ok, t, 10 - k);
    rec.record(timeouts, t, k);
    rec.record(refused, t, 0);
    rec.record(other, t, 99);
    rec.record(app, t, 1);
  }
  // The run ends at 3 s: app alone has the zero-length window of what
  // happened exactly then, which joins the window before.
  rec.record(app, SimTime{3s}, 2);

  const std::vector<PopulationTimeout> populations{{"web", 2s}, {"app", std::nullopt}, {"idle", std::nullopt}};
  const ClientWindows w = client_windows(rec, populations, 1s, SimTime{3s});
  EXPECT_EQ(w.window, 1s);
  EXPECT_EQ(w.starts, (std::vector<SimTime>{SimTime{0s}, SimTime{1s}, SimTime{2s}}));
  EXPECT_EQ(w.causes, (std::vector<std::string>{"timeout", "refused"}));
  ASSERT_EQ(w.populations.size(), 3u);
  EXPECT_EQ(w.populations[0].population, "web");
  EXPECT_EQ(w.populations[0].timeout, 2s);
  EXPECT_EQ(w.populations[0].offered, (std::vector<double>{10, 10, 10}));
  EXPECT_EQ(w.populations[0].succeeded, (std::vector<double>{10, 9, 8}));
  EXPECT_EQ(w.populations[0].failed[0], (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(w.populations[1].offered, (std::vector<double>{1, 1, 3}));
  EXPECT_EQ(w.populations[2].offered, (std::vector<double>{0, 0, 0}));  // no series: zeros
  EXPECT_EQ(w.populations[2].failed.size(), 2u);

  // A run that ends later keeps every window; one that ends mid-window too.
  EXPECT_EQ(client_windows(rec, populations, 1s, SimTime{4s}).starts.size(), 4u);
  EXPECT_EQ(client_windows(rec, populations, 1s, SimTime{3500ms}).starts.size(), 4u);
}

TEST(FaultImpact, AnInstantAtTheEndOfTheRunIsNoRecovery) {
  // Window 2 fails; one request succeeds exactly at the end (3 s): it belongs
  // to window 2, which stays below the objective.
  Recorder rec;
  const SeriesId ok = rec.series("client.succeeded", {{"population", "web"}});
  const SeriesId failed = rec.series("client.failed", {{"population", "web"}, {"cause", "rejected"}});
  for (int k = 0; k < 3; ++k) {
    rec.record(ok, SimTime{k * 1s}, k == 2 ? 80 : 100);
    rec.record(failed, SimTime{k * 1s}, k == 2 ? 20 : 0);
  }
  rec.record(ok, SimTime{3s}, 1);
  rec.record(failed, SimTime{3s}, 0);
  const std::vector<PopulationTimeout> web{{"web", std::nullopt}};
  const ClientWindows w = client_windows(rec, web, 1s, SimTime{3s});
  const FaultImpact f = assess_one(fault("outage", 1s), w);
  EXPECT_EQ(f.all.succeeded, 181);  // windows 1 and 2, the instant at 3 s included
  EXPECT_FALSE(f.all.recovered);
}

ActionConfig action(std::string name, std::string kind, ActionTarget target) {
  ActionConfig a;
  a.name = std::move(name);
  a.action = std::move(kind);
  a.target = std::move(target);
  return a;
}

TEST(FaultImpact, FaultStepsAreTheAppliedStepsWithTheirEnds) {
  Simulation sim;
  const std::vector<TimelineStep> steps{
      // Failed for good, repaired by a zone:recover at 5 s.
      TimelineStep{action("fail-a", "zone:fail", {.zone = "a"}), SimTime{1s}, std::nullopt},
      // A duration of 10 s, but repaired at 5 s too.
      TimelineStep{action("fail-a-again", "zone:fail", {.zone = "a"}), SimTime{2s}, SimTime{12s}},
      // Another zone: the repair of a does not end it.
      TimelineStep{action("fail-b", "zone:fail", {.zone = "b"}), SimTime{2s}, std::nullopt},
      TimelineStep{action("recover-a", "zone:recover", {.zone = "a"}), SimTime{5s}, std::nullopt},
      TimelineStep{action("jitter", "link:degrade", {.link = "l"}), SimTime{3s}, SimTime{4s}},
      TimelineStep{action("drain", "traffic:cut", {.zone = "b", .service = "api"}), SimTime{6s}, SimTime{20s}},
      TimelineStep{action("late", "zone:fail", {.zone = "b"}), SimTime{30s}, std::nullopt},
  };
  auto& timeline = sim.add<Timeline>("timeline", steps);
  for (const char* a : {"zone:fail", "zone:recover", "link:degrade", "traffic:cut"}) {
    timeline.on(a, [](const ActionConfig&, ActionPhase) {});
  }
  sim.run_until(SimTime{10s});  // stops before the drain's undo and the late step
  sim.finish();

  const std::vector<FaultStep> out = fault_steps(timeline);
  ASSERT_EQ(out.size(), 6u);
  std::vector<std::string> names;
  for (const FaultStep& s : out) names.push_back(s.step);
  EXPECT_EQ(names, (std::vector<std::string>{"fail-a", "fail-a-again", "fail-b", "jitter", "recover-a", "drain"}));
  EXPECT_EQ(out[0].end, SimTime{5s});
  EXPECT_EQ(out[1].end, SimTime{5s});
  EXPECT_FALSE(out[2].end);
  EXPECT_EQ(out[3].end, SimTime{4s});
  EXPECT_FALSE(out[4].end);
  EXPECT_FALSE(out[5].end);  // its undo was not reached
  EXPECT_EQ(out[0].action, "zone:fail");
  EXPECT_EQ(out[0].target, "zone=a");
  EXPECT_EQ(out[5].target, "zone=b service=api");
  EXPECT_EQ(out[0].start, SimTime{1s});
  EXPECT_TRUE(out[0].injects_fault);
  EXPECT_TRUE(out[3].injects_fault);
  EXPECT_FALSE(out[4].injects_fault);  // a repair
  EXPECT_FALSE(out[5].injects_fault);  // an operator action
}

TEST(FaultImpact, ARepairDoesNotMoveAnEndThatCameBefore) {
  Simulation sim;
  const std::vector<TimelineStep> steps{
      TimelineStep{action("cut", "link:cut", {.link = "l"}), SimTime{1s}, SimTime{2s}},
      TimelineStep{action("restore", "link:restore", {.link = "l"}), SimTime{3s}, std::nullopt},
  };
  auto& timeline = sim.add<Timeline>("timeline", steps);
  for (const char* a : {"link:cut", "link:restore"}) timeline.on(a, [](const ActionConfig&, ActionPhase) {});
  sim.run_until(SimTime{5s});
  EXPECT_EQ(fault_steps(timeline).at(0).end, SimTime{2s});
}

TEST(FaultImpact, RecordsKpisWithNullsAsNaN) {
  const ClientWindows w = grid({population("web", steady(10, {4, 5, 6, 7, 8, 9}))});
  const std::vector<FaultStep> steps{fault("outage", 3s, 5s)};
  const auto impacts = assess_fault_impact(steps, w, kThreeNines);
  Recorder rec;
  record_fault_impact(rec, impacts, w);
  const Labels step{{"step", "outage"}};
  const Labels web{{"step", "outage"}, {"population", "web"}};
  EXPECT_EQ(rec.find_kpi("fault.start_s", step)->value, 3);
  EXPECT_EQ(rec.find_kpi("fault.end_s", step)->value, 5);
  EXPECT_EQ(rec.find_kpi("fault.offered", step)->value, 200);
  EXPECT_EQ(rec.find_kpi("fault.errors", step)->value, 5);
  EXPECT_EQ(rec.find_kpi("fault.failed", {{"step", "outage"}, {"cause", "timeout"}})->value, 5);
  EXPECT_EQ(rec.find_kpi("fault.first_failure_s", step)->value, 4);
  EXPECT_TRUE(std::isnan(rec.find_kpi("fault.time_to_recover_s", step)->value));
  EXPECT_TRUE(std::isnan(rec.find_kpi("fault.time_to_recover_after_end_s", step)->value));
  EXPECT_EQ(rec.find_kpi("fault.errors", web)->value, 5);
  EXPECT_EQ(rec.find_kpi("fault.failed", {{"step", "outage"}, {"population", "web"}, {"cause", "timeout"}})->value,
            5);
  EXPECT_EQ(rec.find_kpi("fault.start_s", web), nullptr);  // the step's own times are not per population
}

}  // namespace
}  // namespace drsim

#include "io/objective_evaluation.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "models/data/data_event_kinds.h"
#include "models/traffic/traffic_event_kinds.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Hand-built runs: a grid of twelve 1 s windows, populations whose requests
// finish in the window they are sent, a Recorder holding only what the
// evaluation reads. Every expected figure is derived in the comments.

using Windows = std::vector<std::pair<double, double>>;  // (succeeded, failed) per window

PopulationWindows population(std::string name, const Windows& w, std::optional<Duration> timeout = 2s) {
  PopulationWindows p{std::move(name), timeout, {}, {}, {std::vector<double>{}}};
  for (const auto& [ok, failed] : w) {
    p.offered.push_back(ok + failed);
    p.succeeded.push_back(ok);
    p.failed[0].push_back(failed);
  }
  return p;
}

// 12 windows of 100 successes; those in `failing` have 95 successes and 5 failures.
Windows steady(std::vector<std::size_t> failing = {}) {
  Windows w(12, {100, 0});
  for (std::size_t k : failing) w.at(k) = {95, 5};
  return w;
}

ClientWindows grid(std::vector<PopulationWindows> populations) {
  ClientWindows w;
  w.window = 1s;
  for (std::size_t k = 0; k < 12; ++k) w.starts.push_back(SimTime{k * 1s});
  w.causes = {"timeout"};
  w.populations = std::move(populations);
  return w;
}

ActionConfig action(std::string name, std::string kind, ActionTarget target) {
  ActionConfig a;
  a.name = std::move(name);
  a.action = std::move(kind);
  a.target = std::move(target);
  return a;
}

// Region r with zones a and b; one zone:fail of zone a from 3 s to 10 s.
ScenarioSpec zone_a_fails() {
  ScenarioSpec spec;
  spec.topology.config.regions.push_back(RegionConfig{"r", {ZoneConfig{"a"}, ZoneConfig{"b"}}});
  spec.timeline.push_back(action("lose-a", "zone:fail", ActionTarget{.zone = "a"}));
  return spec;
}
FaultStep lose_a() { return FaultStep{"lose-a", "zone:fail", "zone=a", SimTime{3s}, SimTime{10s}, true}; }

FaultReport report_of(std::vector<FaultStep> steps, ClientWindows windows, Ratio objective = Ratio{0.999}) {
  FaultReport r;
  r.windows = std::move(windows);
  r.impacts = assess_fault_impact(steps, r.windows, objective);
  return r;
}

// Zone a carries 50 arrivals per window until window 4 (the balancer stops
// sending there at 5 s) and some of service api's in zone b throughout.
void record_arrivals(Recorder& rec) {
  const SeriesId a = rec.series("service.arrivals", {{"service", "api"}, {"zone", "a"}});
  const SeriesId b = rec.series("service.arrivals", {{"service", "api"}, {"zone", "b"}});
  for (int k = 0; k < 12; ++k) {
    rec.record(a, SimTime{k * 1s}, k <= 4 ? 50 : 0);
    rec.record(b, SimTime{k * 1s}, 50);
  }
}

// p99 10 ms before the fault, 20 ms in window 3, 500 ms in window 4, 15 ms
// during the rest of it, 12 ms after it.
void record_latency(Recorder& rec, const std::string& population) {
  const SeriesId p99 = rec.series("client.latency_p99_s", {{"population", population}});
  for (int k = 0; k < 12; ++k) {
    const double v = k < 3 ? 0.010 : k == 3 ? 0.020 : k == 4 ? 0.500 : k < 10 ? 0.015 : 0.012;
    rec.record(p99, SimTime{k * 1s}, v);
  }
}

TEST(ObjectiveEvaluation, AZoneFailureHasEveryFigureFromTheRecordedData) {
  Recorder rec;
  record_arrivals(rec);
  record_latency(rec, "web");
  rec.event(SimTime{3s}, "timeline", EventKind::timeline_action("zone:fail"), "lose-a");
  rec.event(SimTime{4500ms}, "database/db", event_kinds::database::kFailureDetected,
            "primary member 0 (a) failed 3 health checks, 1.5s after the failure");
  rec.record(rec.series("database.failover_rpo_s", {{"database", "db"}}), SimTime{6s}, 0.25);
  ScenarioSpec spec = zone_a_fails();
  // Windows 4 and 5 lose 5 requests each (the in-flight ones of zone a).
  const FaultReport faults = report_of({lose_a()}, grid({population("web", steady({4, 5}))}));
  const ObjectiveReport r = evaluate_objectives(rec, spec, faults, SimTime{12s});

  ASSERT_EQ(r.faults.size(), 1u);
  const FaultFigures& f = r.faults[0];
  // The database's detection at 4.5 s, 1.5 s after the fault's start at 3 s.
  EXPECT_EQ(f.detection, 1500ms);
  EXPECT_EQ(f.detected_by, "database/db: database.failure_detected");
  // Zone a's last window with arrivals is 4: from window 5 on it has none, until the end at 10 s.
  EXPECT_TRUE(f.switch_applies);
  EXPECT_EQ(f.traffic_switch, 2s);
  // The switch period [3 s, 5 s + 2 s timeout) covers windows 3..6: 10 failed, 95 + 95 + 100 + 100 succeeded.
  EXPECT_EQ(f.switch_errors, 10);
  EXPECT_DOUBLE_EQ(*f.switch_error_rate, 10.0 / 400.0);
  // The last bad window is 5 (95%), window 6 is good: recovered at 6 s, 3 s after the start.
  EXPECT_EQ(f.rto, 3s);
  EXPECT_EQ(f.rpo, 250ms);
  // Before: windows 0..2 (the minute before 3 s); during: windows 3..9; after: windows 10 and 11.
  EXPECT_DOUBLE_EQ(*f.latency_p99_before_s, 0.010);
  EXPECT_DOUBLE_EQ(*f.latency_p99_during_s, 0.500);
  EXPECT_DOUBLE_EQ(*f.latency_p99_after_s, 0.012);
  // No target declared: nothing judged, nothing fails.
  EXPECT_TRUE(r.verdicts.empty());
  EXPECT_FALSE(r.any_failed());
}

TEST(ObjectiveEvaluation, EachDeclaredTargetHasAVerdict) {
  Recorder rec;
  record_arrivals(rec);
  record_latency(rec, "web");
  rec.record(rec.series("database.failover_rpo_s", {{"database", "db"}}), SimTime{6s}, 0.25);
  rec.kpi("client.latency_p99_s", {{"population", "web"}}, 0.3);
  ScenarioSpec spec = zone_a_fails();
  spec.objectives.rto = 5s;
  spec.objectives.rpo = 100ms;
  spec.objectives.availability = Ratio{0.99};
  spec.objectives.error_budget = Ratio{0.01};
  spec.objectives.latency_p99 = 250ms;
  const FaultReport faults = report_of({lose_a()}, grid({population("web", steady({4, 5}))}));
  const ObjectiveReport r = evaluate_objectives(rec, spec, faults, SimTime{12s});

  ASSERT_EQ(r.verdicts.size(), 5u);
  // rto: 3 s <= 5 s.
  EXPECT_EQ(r.verdicts[0].objective, "rto");
  EXPECT_EQ(r.verdicts[0].scope, "lose-a");
  EXPECT_DOUBLE_EQ(*r.verdicts[0].measured, 3.0);
  EXPECT_TRUE(r.verdicts[0].pass);
  // rpo: 250 ms > 100 ms.
  EXPECT_EQ(r.verdicts[1].objective, "rpo");
  EXPECT_DOUBLE_EQ(*r.verdicts[1].measured, 0.25);
  EXPECT_FALSE(r.verdicts[1].pass);
  // availability: 1190 of 1200 finished succeeded, 99.17% >= 99%.
  EXPECT_EQ(r.verdicts[2].objective, "availability");
  EXPECT_DOUBLE_EQ(*r.verdicts[2].measured, 1190.0 / 1200.0);
  EXPECT_TRUE(r.verdicts[2].pass);
  // errorBudget: 10 of 1200 failed, 0.83% <= 1%.
  EXPECT_EQ(r.verdicts[3].objective, "errorBudget");
  EXPECT_DOUBLE_EQ(*r.verdicts[3].measured, 10.0 / 1200.0);
  EXPECT_TRUE(r.verdicts[3].pass);
  // latencyP99: the run's KPI, 300 ms > 250 ms.
  EXPECT_EQ(r.verdicts[4].objective, "latencyP99");
  EXPECT_DOUBLE_EQ(*r.verdicts[4].measured, 0.3);
  EXPECT_FALSE(r.verdicts[4].pass);
  EXPECT_TRUE(r.any_failed());

  const std::string json = objectives_json(r);
  EXPECT_NE(json.find("\"passed\": false"), std::string::npos) << json;
  EXPECT_NE(json.find("\"traffic_switch_s\": 2,"), std::string::npos) << json;
  const std::string text = objectives_text(r, spec.objectives);
  EXPECT_NE(text.find("rpo           lose-a                <= 100ms      250ms                 FAIL"),
            std::string::npos)
      << text;
}

TEST(ObjectiveEvaluation, AvailabilityOverAWindowIsTheWorstWindow) {
  Recorder rec;
  ScenarioSpec spec = zone_a_fails();
  spec.objectives.availability = Ratio{0.99};
  spec.objectives.availability_window = 2s;
  const FaultReport faults = report_of({lose_a()}, grid({population("web", steady({4, 5}))}));
  const ObjectiveReport r = evaluate_objectives(rec, spec, faults, SimTime{12s});
  // Windows 4 and 5 together: 190 of 200, 95% < 99% (the run as a whole has 99.17%).
  ASSERT_EQ(r.verdicts.size(), 1u);
  EXPECT_DOUBLE_EQ(*r.verdicts[0].measured, 0.95);
  EXPECT_FALSE(r.verdicts[0].pass);
}

// A run p99 of 100 ms passes a 250 ms target; the trailing-minute series
// shows a minute at 400 ms for the other population, and judged over windows
// the worst population's worst window fails it.
TEST(ObjectiveEvaluation, LatencyOverAWindowIsTheWorstTrailingWindow) {
  Recorder rec;
  rec.kpi("client.latency_p99_s", {{"population", "web"}}, 0.1);
  rec.kpi("client.latency_p99_s", {{"population", "app"}}, 0.1);
  const SeriesId web = rec.series("client.latency_p99_window_s", {{"population", "web"}});
  const SeriesId app = rec.series("client.latency_p99_window_s", {{"population", "app"}});
  for (int k = 0; k < 12; ++k) {
    rec.record(web, SimTime{k * 1s}, 0.05);
    rec.record(app, SimTime{k * 1s}, k == 7 ? 0.4 : 0.08);
  }
  ScenarioSpec spec = zone_a_fails();
  spec.objectives.latency_p99 = 250ms;
  const FaultReport faults = report_of({lose_a()}, grid({population("web", steady())}));
  ObjectiveReport r = evaluate_objectives(rec, spec, faults, SimTime{12s});
  ASSERT_EQ(r.verdicts.size(), 1u);
  EXPECT_DOUBLE_EQ(*r.verdicts[0].measured, 0.1);
  EXPECT_TRUE(r.verdicts[0].pass);

  spec.objectives.latency_p99_window = 1min;
  r = evaluate_objectives(rec, spec, faults, SimTime{12s});
  ASSERT_EQ(r.verdicts.size(), 1u);
  EXPECT_DOUBLE_EQ(*r.verdicts[0].measured, 0.4);
  EXPECT_FALSE(r.verdicts[0].pass);

  spec.objectives.population = "web";
  r = evaluate_objectives(rec, spec, faults, SimTime{12s});
  EXPECT_DOUBLE_EQ(*r.verdicts[0].measured, 0.05);
  EXPECT_TRUE(r.verdicts[0].pass);
}

TEST(ObjectiveEvaluation, NeverRecoveringFailsTheRtoAndNothingDetectingIsNone) {
  Recorder rec;
  // Zone a keeps receiving traffic through its whole fault: the switch never happens.
  const SeriesId a = rec.series("service.arrivals", {{"service", "api"}, {"zone", "a"}});
  for (int k = 0; k < 12; ++k) rec.record(a, SimTime{k * 1s}, 50);
  ScenarioSpec spec = zone_a_fails();
  spec.objectives.rto = 1h;
  spec.objectives.rpo = 0s;
  // Every window from 4 on fails: no good window follows the last bad one.
  const FaultReport faults = report_of({lose_a()}, grid({population("web", steady({4, 5, 6, 7, 8, 9, 10, 11}))}));
  const ObjectiveReport r = evaluate_objectives(rec, spec, faults, SimTime{12s});
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_FALSE(r.faults[0].detection);
  EXPECT_TRUE(r.faults[0].switch_applies);
  EXPECT_FALSE(r.faults[0].traffic_switch);
  // Without a switch the period is the counting window [3 s, 10 s + 2 s): windows 3..11, 8 of them failing.
  EXPECT_EQ(r.faults[0].switch_errors, 40);
  ASSERT_EQ(r.verdicts.size(), 2u);
  EXPECT_FALSE(r.verdicts[0].measured);
  EXPECT_EQ(r.verdicts[0].note, "never recovered");
  EXPECT_FALSE(r.verdicts[0].pass);
  // No failover was promoted: nothing lost to one, the RPO of 0 s holds.
  EXPECT_EQ(r.verdicts[1].note, "no failover");
  EXPECT_TRUE(r.verdicts[1].pass);
}

TEST(ObjectiveEvaluation, ADatabaseKillSwitchesWhenItsClientsReachTheNewPrimaryAndOperatorsDetect) {
  Recorder rec;
  rec.event(SimTime{2s}, "database/db", event_kinds::database::kSwitched, "an earlier failover, before this fault");
  rec.event(SimTime{5s}, "database/other-db", event_kinds::database::kSwitched, "not the target");
  rec.event(SimTime{7s}, "database/db", event_kinds::database::kSwitched, "clients reach member 1 (b)");
  ScenarioSpec spec = zone_a_fails();
  spec.timeline = {action("kill", "database:kill", ActionTarget{.database = "db"}),
                   action("cut", "traffic:cut", ActionTarget{.zone = "a"})};
  const std::vector<FaultStep> steps{FaultStep{"kill", "database:kill", "database=db", SimTime{3s}, {}, true},
                                     FaultStep{"cut", "traffic:cut", "zone=a", SimTime{4s}, {}, false}};
  const FaultReport faults = report_of(steps, grid({population("web", steady())}));
  const ObjectiveReport r = evaluate_objectives(rec, spec, faults, SimTime{12s});
  // The operator action is not a fault: one row, detected by it 1 s in, switched at 7 s.
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_EQ(r.faults[0].detection, 1s);
  EXPECT_EQ(r.faults[0].detected_by, "operator: traffic:cut cut");
  EXPECT_EQ(r.faults[0].traffic_switch, 4s);
  EXPECT_EQ(r.faults[0].rto, 0s);  // no request failed
}

TEST(ObjectiveEvaluation, APopulationScopeJudgesThatPopulationOnly) {
  Recorder rec;
  rec.kpi("client.latency_p99_s", {{"population", "east"}}, 0.1);
  rec.kpi("client.latency_p99_s", {{"population", "west"}}, 2.0);
  ScenarioSpec spec = zone_a_fails();
  spec.objectives.population = "east";
  spec.objectives.rto = 2s;
  spec.objectives.latency_p99 = 250ms;
  // West fails in windows 4..9 and recovers at 10 s; east is untouched.
  const FaultReport faults =
      report_of({lose_a()}, grid({population("east", steady()), population("west", steady({4, 5, 6, 7, 8, 9}))}));
  const ObjectiveReport r = evaluate_objectives(rec, spec, faults, SimTime{12s});
  ASSERT_EQ(r.verdicts.size(), 2u);
  EXPECT_DOUBLE_EQ(*r.verdicts[0].measured, 0.0);
  EXPECT_TRUE(r.verdicts[0].pass);
  EXPECT_DOUBLE_EQ(*r.verdicts[1].measured, 0.1);
  EXPECT_TRUE(r.verdicts[1].pass);
  EXPECT_EQ(r.faults[0].switch_errors, 0);
  // The same run judged on all populations: west's recovery at 10 s, 7 s after the start, fails 2 s.
  spec.objectives.population.clear();
  const ObjectiveReport all = evaluate_objectives(rec, spec, faults, SimTime{12s});
  EXPECT_DOUBLE_EQ(*all.verdicts[0].measured, 7.0);
  EXPECT_FALSE(all.verdicts[0].pass);
  EXPECT_DOUBLE_EQ(*all.verdicts[1].measured, 2.0);
}

// A traffic scheduler's failover counts as detection, and its clients'
// requests towards the failed region decide the switch: region r (zones a
// and b) fails at 3 s; the scheduler takes it out at 5.5 s; the clients
// send r requests until window 7 (DNS caches), none from 8 s on.
TEST(ObjectiveEvaluation, ATrafficSchedulersFailoverDetectsAndItsRequestsDecideTheSwitch) {
  Recorder rec;
  rec.event(SimTime{5500ms}, "scheduler/web", event_kinds::scheduler::kFailover, "r unreachable: weight 0, spread even");
  const SeriesId to_r = rec.series("routing.requests", {{"population", "web"}, {"region", "r"}});
  for (int k = 0; k < 12; ++k) rec.record(to_r, SimTime{k * 1s}, k <= 7 ? 30 : 0);
  ScenarioSpec spec = zone_a_fails();
  spec.timeline = {action("lose-r", "region:fail", ActionTarget{.region = "r"})};
  const FaultReport faults =
      report_of({FaultStep{"lose-r", "region:fail", "region=r", SimTime{3s}, SimTime{11s}, true}},
                grid({population("web", steady({4, 5, 6, 7}))}));
  const ObjectiveReport r = evaluate_objectives(rec, spec, faults, SimTime{12s});
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_EQ(r.faults[0].detection, 2500ms);
  EXPECT_EQ(r.faults[0].detected_by, "scheduler/web: scheduler.failover");
  // The dead zones count no arrival; the requests still routed there do: switched at 8 s, 5 s in.
  EXPECT_EQ(r.faults[0].traffic_switch, 5s);
}

// A planned switch-over (routing:switch) is a row of its own: its switch
// runs from its last stage (start 1 s + 4 s = 5 s) to the first window from
// which its population sends the region nothing (9 s): 4 s.
TEST(ObjectiveEvaluation, APlannedSwitchIsSwitchedFromItsLastStage) {
  Recorder rec;
  const SeriesId to_r = rec.series("routing.requests", {{"population", "web"}, {"region", "r"}});
  const SeriesId other = rec.series("routing.requests", {{"population", "other"}, {"region", "r"}});
  for (int k = 0; k < 12; ++k) {
    rec.record(to_r, SimTime{k * 1s}, k <= 8 ? 30 : 0);
    rec.record(other, SimTime{k * 1s}, 30);  // another population: not switched
  }
  ScenarioSpec spec = zone_a_fails();
  ActionConfig move = action("move", "routing:switch", ActionTarget{.region = "r", .population = "web"});
  move.steps = std::vector<RoutingSwitchStep>{{0s, Ratio{0.5}}, {4s, Ratio{1.0}}};
  spec.timeline = {move};
  const FaultReport faults = report_of({FaultStep{"move", "routing:switch", "region=r population=web", SimTime{1s},
                                                  SimTime{11s}, true}},
                                       grid({population("web", steady())}));
  const ObjectiveReport r = evaluate_objectives(rec, spec, faults, SimTime{12s});
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_TRUE(r.faults[0].switch_applies);
  EXPECT_EQ(r.faults[0].traffic_switch, 4s);
  EXPECT_FALSE(r.faults[0].detection);  // nothing detects a plan
  EXPECT_EQ(r.faults[0].rto, 0s);       // and no client noticed it
}

}  // namespace
}  // namespace drsim

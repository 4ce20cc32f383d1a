// The three-region unit-based drill of docs/sources.md section 5: six rows,
// one scenario file each (scenarios/three_region_unit*.yaml; the index and
// the shared settings are in scenarios/three_region_unit.yaml). Each row's
// traffic switch, RTO and RPO come from the per-fault figures
// (io/objective_evaluation.h), as drsim run and Result.fault_figures() report
// them, and are asserted within bands derived from the settings:
//
//   probes 1 s x 3 in a row          detection 2-3 s (+ a probe's 0.5 s timeout
//                                    when the region is cut off, not dead)
//   GTS rules store                  one Raft commit; a new leader first if it
//                                    was in the lost region (election 1-2 s)
//   DNS                              recordTtl 10 s, clientCacheTtl 30 s; a
//                                    client whose request failed re-resolves
//   clients                          give up after 3 s
//   ledger shard (strong tier)       no leader for 10 x 1 s + 2 s + 1 s = 13 s
//   events mirror (eventual tier)    4 s batches: lag up to 4 s + one way
//
// Published (traffic switch / RTO / RPO): planned N->E 78 s / 95 s / 3 s,
// E->N 65 / 82 / 2, N->S 42 / 58 / 1.5; North failure automatic 18 / 31 /
// 2.3; full-chain injection automatic 11 / 22 / 1.8; gradual n/a / not
// noticed / 1 s. The test prints ours next to them.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "io/objective_evaluation.h"
#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::series;

struct Row {
  RunResult run;
  ObjectiveReport report;
};

Row run_row(const std::string& file, const std::vector<std::string>& overrides = {}) {
  Row row{run_scenario(load_scenario_file("scenarios/" + file, overrides)), {}};
  EXPECT_EQ(row.run.outcome.reason, StopReason::kHorizon) << file;
  row.report = objective_report(row.run);
  return row;
}

double seconds(std::optional<Duration> d) { return d ? to_seconds(*d) : -1; }

void print(const char* row, double sw, double rto, double rpo, const char* published) {
  std::printf("  %-34s switch %6.1f s  RTO %6.1f s  RPO %6.3f s   (published %s)\n", row, sw, rto, rpo, published);
}

// The start of the first window from which the population's scheduler sends
// the region no request, up to `until`; -1 if it never stops.
double requests_stop(const Recorder& rec, const char* region, Duration from, Duration until) {
  const auto points = series(rec, "routing.requests", {{"population", "users"}, {"region", region}});
  std::optional<std::int64_t> last_nonzero;
  for (const auto& [t, v] : points) {
    if (t >= from.count() && t < until.count() && v > 0) last_nonzero = t;
  }
  if (!last_nonzero) return to_seconds(from);
  return static_cast<double>(*last_nonzero) / 1e9 + 1;  // 1 s windows
}

// Automatic failover, North lost at 2 min.
TEST(ThreeRegionUnit, NorthFailureIsFailedOverAutomatically) {
  const Row row = run_row("three_region_unit.yaml");
  ASSERT_EQ(row.report.faults.size(), 1u);
  const FaultFigures& f = row.report.faults[0];
  print("4 North failure, automatic", seconds(f.traffic_switch), seconds(f.rto), seconds(f.rpo), "18 / 31 / 2.3 s");
  // Detection by the GTS's probes: a site's third failed probe (North's own site is down and left out; one
  // of the two others flipping leaves 1 of 2 healthy, not a majority), 2-3 s after the loss, or from 1.5 s
  // when a probe already on its way fails at its 0.5 s timeout; the scheduler's failover comes at the same
  // instant. The gateway and the edge sit behind cloud load balancers (discovery loadBalancer, the
  // default), so a probe enters a dead balancer node and fails at its 0.5 s timeout rather than at once:
  // up to that much later. Probes are not user traffic: the traffic switch is still the moment the users'
  // requests stop reaching North.
  ASSERT_TRUE(f.detection);
  EXPECT_GE(*f.detection, 1500ms);
  EXPECT_LE(*f.detection, 3s + 600ms);
  EXPECT_TRUE(f.detected_by == "health-check/users: gslb.region_unhealthy" ||
              f.detected_by == "scheduler/users: scheduler.failover")
      << f.detected_by;
  // Switch: detection (<= 3 s) + an election and a commit (<= 2.1 s) + the resolvers' TTL (10 s), then each
  // client re-resolves at its next failed request: at once for one sent North (no target), 3 s later for one
  // the ledger outage times out; at the latest its own cache expires (30 s). Hard bounds [2 s, 46 s]; with
  // 1.25 requests/s per client the last of 200 clients fails within a few seconds, hence the published
  // band too (18 s +- 50%).
  ASSERT_TRUE(f.traffic_switch);
  EXPECT_GE(*f.traffic_switch, 2s);
  EXPECT_LE(*f.traffic_switch, 46s);
  EXPECT_GE(*f.traffic_switch, 9s);
  EXPECT_LE(*f.traffic_switch, 27s);
  // RTO: at least the ledger shard's time without a leader (detection at the 10th failed 1 s check, 9-10 s,
  // + 2 s + 1 s) plus the client timeout of the requests caught in it, and not before the traffic switch; at
  // most the switch's bound + a client timeout + the pools' socketTimeout 5 s.
  ASSERT_TRUE(f.rto);
  EXPECT_GE(*f.rto, 12s);
  EXPECT_GE(*f.rto, *f.traffic_switch);
  EXPECT_LE(*f.rto, 46s + 3s + 5s);
  // RPO: events-north's lag when North went, under one 4 s batch plus one way (19 ms) and the apply (1 ms);
  // the ledger (sync) loses nothing.
  ASSERT_TRUE(f.rpo);
  EXPECT_GT(*f.rpo, 0s);
  EXPECT_LE(*f.rpo, 4s + 20ms);
  // The share went by capacity, here equal: East and South half each.
  const Recorder& rec = row.run.simulation->recorder();
  const auto east = series(rec, "routing.weight", {{"population", "users"}, {"region", "east"}});
  EXPECT_NEAR(test_support::range(east, 130s, 400s).max, 0.5, 1e-9);
}

// Planned switch-over from `from` to `to` (the runbook's stages from 2 min, full at 5 min), then `from` taken
// down at 7 min for 3 min.
void planned_row(const char* label, const std::string& file, const char* from, const char* published) {
  const Row row = run_row(file);
  ASSERT_EQ(row.report.faults.size(), 2u);
  const FaultFigures& sw = row.report.faults[0];
  const FaultFigures& cut = row.report.faults[1];
  EXPECT_EQ(sw.step.action, "routing:switch");
  EXPECT_EQ(cut.step.action, "region:fail");
  print(label, seconds(sw.traffic_switch), seconds(sw.traffic_switch) + seconds(cut.rto), seconds(cut.rpo),
        published);
  std::printf("  %-34s (RTO = switch %.1f s + the cut's RTO %.1f s; errors during the switch %.0f)\n", "",
              seconds(sw.traffic_switch), seconds(cut.rto), sw.switch_errors);
  // The switch itself: nothing fails, nothing to recover from.
  EXPECT_EQ(sw.rto, 0s);
  EXPECT_EQ(sw.switch_errors, 0);
  // From the last stage: one commit, then each resolver within its TTL (10 s) and each client within its cache
  // (30 s) after that: at most 40 s + a window; with 200 clients the last one comes near the end (over 20 s).
  ASSERT_TRUE(sw.traffic_switch);
  EXPECT_GE(*sw.traffic_switch, 20s);
  EXPECT_LE(*sw.traffic_switch, 41s);
  // The cut of an empty region: only its ledger shard's 13 s without a leader is felt (+ a client timeout
  // and the pools' socketTimeout at most).
  ASSERT_TRUE(cut.rto);
  EXPECT_GE(*cut.rto, 13s);
  EXPECT_LE(*cut.rto, 22s);
  ASSERT_TRUE(cut.rpo);
  EXPECT_GT(*cut.rpo, 0s);
  EXPECT_LE(*cut.rpo, 4s + 20ms);
  // Nobody sends the region a request from the switch's end until the switch-back starts at 12 min.
  EXPECT_LE(requests_stop(row.run.simulation->recorder(), from, 5min, 12min), to_seconds(5min + 41s));
}

TEST(ThreeRegionUnit, PlannedNorthToEast) {
  planned_row("1 planned North -> East", "three_region_unit_planned_north_east.yaml", "north", "78 / 95 / 3 s");
}
TEST(ThreeRegionUnit, PlannedEastToNorth) {
  planned_row("2 planned East -> North", "three_region_unit_planned_east_north.yaml", "east", "65 / 82 / 2 s");
}
TEST(ThreeRegionUnit, PlannedNorthToSouth) {
  planned_row("3 planned North -> South", "three_region_unit_planned_north_south.yaml", "north", "42 / 58 / 1.5 s");
}

// North cut off from East and South at 2 min: alive, unreachable.
TEST(ThreeRegionUnit, FullChainInjectionIsFailedOverAutomatically) {
  const Row row = run_row("three_region_unit_full_chain.yaml");
  ASSERT_EQ(row.report.faults.size(), 2u);
  const FaultFigures& f = row.report.faults[0];
  EXPECT_FALSE(f.switch_applies);  // link faults: read from the series
  const double sw = requests_stop(row.run.simulation->recorder(), "north", 2min, 7min) - to_seconds(2min);
  print("5 full-chain injection, automatic", sw, seconds(f.rto), seconds(f.rpo), "11 / 22 / 1.8 s");
  // Detection: the sites in East and South time out on North (0.5 s) three times: 1.5-3.5 s.
  ASSERT_TRUE(f.detection);
  EXPECT_GE(*f.detection, 1500ms);
  EXPECT_LE(*f.detection, 3s + 600ms);
  // Switch: as the automatic row, but North is alive: a request sent there fails only at the client's 3 s
  // timeout, and only then does its client re-resolve. Hard bounds [2 s, 3.5 + 2.1 + 10 + 30 + 1 s].
  EXPECT_GE(sw, 2);
  EXPECT_LE(sw, 46.6);
  // RTO: the ledger shard's leaderless time, the timeouts of the requests still sent North.
  ASSERT_TRUE(f.rto);
  EXPECT_GE(*f.rto, 12s);
  EXPECT_LE(*f.rto, 46s + 3s + 5s);
  // RPO: events-north's lag at the cut (< 4 s + one way) plus what its cut-off primary kept acknowledging
  // until its monitor noticed (3 failed checks 2 s apart: < 6 s): a split brain's cost.
  ASSERT_TRUE(f.rpo);
  EXPECT_GT(*f.rpo, 0s);
  EXPECT_LE(*f.rpo, 4s + 20ms + 6s);
  EXPECT_EQ(row.report.faults[1].rto, f.rto);  // the other line: same instant, same span
}

// Half of North's share to East in 10% steps a minute apart: nothing fails.
TEST(ThreeRegionUnit, GradualShiftIsNotNoticed) {
  const Row row = run_row("three_region_unit_gradual.yaml");
  ASSERT_EQ(row.report.faults.size(), 1u);
  const FaultFigures& f = row.report.faults[0];
  print("6 gradual North -> East (gray)", -1, seconds(f.rto), seconds(f.rpo), "n/a / not noticed / 1 s");
  EXPECT_FALSE(f.switch_applies);  // North is never emptied: n/a
  EXPECT_EQ(f.rto, 0s);            // no client noticed
  EXPECT_FALSE(f.rpo);             // nothing promoted, nothing lost
  EXPECT_EQ(f.switch_errors, 0);
  // North's share at the top of the shift: half of its third.
  const auto north = series(row.run.simulation->recorder(), "routing.weight", {{"population", "users"}, {"region", "north"}});
  EXPECT_NEAR(test_support::range(north, 6min + 1s, 10min).max, 1.0 / 6, 1e-9);
}

// The same drill with the oracle (discovery: oracle for the gateway and the
// edge), the shortcut the figures were first derived on: a probe into North
// finds no target at once, so detection is the third failed probe, 2-3 s.
TEST(ThreeRegionUnit, WithTheOracleProbesFailAtOnce) {
  const Row row = run_row("three_region_unit.yaml", {"spec.topology.services[gateway].discovery=oracle",
                                                      "spec.topology.services[edge].discovery=oracle"});
  ASSERT_EQ(row.report.faults.size(), 1u);
  const FaultFigures& f = row.report.faults[0];
  print("4 North failure, oracle", seconds(f.traffic_switch), seconds(f.rto), seconds(f.rpo), "18 / 31 / 2.3 s");
  ASSERT_TRUE(f.detection);
  EXPECT_GE(*f.detection, 1500ms);
  EXPECT_LE(*f.detection, 3s + 100ms);
  ASSERT_TRUE(f.traffic_switch);
  EXPECT_GE(*f.traffic_switch, 2s);
  EXPECT_LE(*f.traffic_switch, 46s);
}

}  // namespace
}  // namespace drsim

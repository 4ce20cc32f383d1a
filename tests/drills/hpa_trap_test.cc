// The HPA trap of docs/sources.md section 1, its three variants run from their
// scenario files. Each asserts the qualitative outcome from the recorded
// series (CPU per zone, replicas, unplaced replicas): the numbers come out of
// the HPA's replica calculation over the pods it lists, the scheduler's
// policy, pod start-up and probes, never out of a constant set to match.
#include <gtest/gtest.h>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::first_time_s;
using test_support::range;
using test_support::series;

Labels zone(std::string_view name) { return {{"service", "api"}, {"zone", std::string(name)}}; }

// Zone-a fails at 5 min. Without compensation the healthy zones run above
// 90% CPU for the rest of the run while the HPA keeps 8 replicas: averaged
// over all 8 pods (zone-a's count as 0 on a scale-up), usage is under target.
TEST(HpaTrap, WithoutCompensationTheHealthyZonesStayOverloadedAndTheHpaDoesNotScale) {
  const RunResult run = run_scenario(load_scenario_file("scenarios/az_failure_hpa_trap.yaml"));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  // Before the failure: about 47% everywhere, inside the HPA's tolerance.
  EXPECT_LT(range(series(rec, "service.cpu_utilization", zone("zone-b")), 60s, 300s).max, 0.6);
  // From a minute after the failure to the end (15 minutes): above 85% in
  // every window, above 90% on average.
  for (const char* z : {"zone-b", "zone-c"}) {
    const auto cpu = series(rec, "service.cpu_utilization", zone(z));
    EXPECT_GT(range(cpu, 360s, 1200s).min, 0.85) << z;
    EXPECT_GT(test_support::mean(cpu, 360s, 1200s), 0.9) << z;
  }
  // The HPA sees the trusted pods above 90%, yet its average over all pods
  // stays under the 60% target, and it keeps 8 replicas.
  EXPECT_GT(range(series(rec, "hpa.utilization", {{"hpa", "api"}}), 400s, 1200s).min, 85);
  EXPECT_LT(range(series(rec, "hpa.all_pods_utilization", {{"hpa", "api"}}), 400s, 1200s).max, 60);
  const auto replicas = series(rec, "deployment.replicas", {{"service", "api"}});
  EXPECT_EQ(range(replicas, 0s, 1200s).max, 8);
  EXPECT_EQ(rec.find_kpi("hpa.rescales", {{"hpa", "api"}})->value, 0);
  // Zone-a's pods go unready after the 50 s grace, and come back Pending in
  // zone-a after the 300 s toleration: recreating does not move them.
  const auto ready_a = series(rec, "deployment.zone_ready", zone("zone-a"));
  EXPECT_EQ(first_time_s(ready_a, 300s, [](double v) { return v == 0; }), 350);
  EXPECT_EQ(range(series(rec, "deployment.pending", {{"service", "api"}}), 660s, 1200s).min, 4);
}

// HPA compensation at 6 min: desired from zone-b and zone-c only, zone-a's
// 4 replicas kept on top. It scales out within a sync period and the new
// pods bring the healthy zones back under target.
TEST(HpaTrap, HpaCompensationScalesOutWithinAFewSyncPeriods) {
  const RunResult run = run_scenario(load_scenario_file("scenarios/az_failure_hpa_trap_compensated.yaml"));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  const auto replicas = series(rec, "deployment.replicas", {{"service", "api"}});
  const double scaled_at = first_time_s(replicas, 360s, [](double v) { return v > 8; });
  ASSERT_GE(scaled_at, 360);
  EXPECT_LE(scaled_at, 360 + 3 * 15);  // within three 15 s sync periods
  // 4 pods at over 90% against a 60% target ask for 7: 11 in all.
  EXPECT_EQ(range(replicas, 420s, 900s).min, 11);
  // The new pods are placed in the healthy zones (zone-a cannot take pods).
  const auto ready_b = series(rec, "deployment.zone_ready", zone("zone-b"));
  const auto ready_c = series(rec, "deployment.zone_ready", zone("zone-c"));
  EXPECT_EQ(range(ready_b, 420s, 1200s).min + range(ready_c, 420s, 1200s).min, 7);
  // Start-up (20 s) and probes (every 5 s) later, CPU is back under target.
  for (const char* z : {"zone-b", "zone-c"}) {
    EXPECT_LT(range(series(rec, "service.cpu_utilization", zone(z)), 420s, 1200s).max, 0.7) << z;
  }
  EXPECT_EQ(rec.find_kpi("deployment.unplaced_peak", {{"service", "api"}})->value, 0);
}

// Equal proportion across zone-a and zone-b: the compensated HPA asks for
// more, the parent scheduler cannot place them while zone-a is down, and
// zone-b stays overloaded though zone-c is healthy and empty.
TEST(HpaTrap, AnEqualProportionPolicyLeavesTheScaleOutUnplaced) {
  const RunResult run = run_scenario(load_scenario_file("scenarios/az_failure_hpa_trap_equal_policy.yaml"));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  EXPECT_GT(range(series(rec, "deployment.replicas", {{"service", "api"}}), 420s, 900s).min, 8);
  EXPECT_GT(range(series(rec, "deployment.unplaced", {{"service", "api"}}), 420s, 900s).min, 0);
  EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone("zone-b")), 420s, 900s).max, 4);
  EXPECT_EQ(range(series(rec, "deployment.zone_ready", zone("zone-c")), 0s, 900s).max, 0);
  EXPECT_GT(range(series(rec, "service.cpu_utilization", zone("zone-b")), 420s, 900s).min, 0.85);
  bool reason_logged = false;
  for (std::size_t i = 0; i < rec.events().size(); ++i) {
    reason_logged |= rec.events().kind[i] == "deployment.unplaced" &&
                     rec.events().detail[i].find("zone-a cannot take pods") != std::string::npos;
  }
  EXPECT_TRUE(reason_logged);
}

// Recovery in the prescribed order: traffic back in steps, only then
// compensation cancelled. The healthy zones stay under target throughout.
TEST(HpaTrap, RecoveryInThePrescribedOrderKeepsEveryZoneUnderTarget) {
  const RunResult run = run_scenario(load_scenario_file("scenarios/az_failure_recovery_order.yaml"));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  for (const char* z : {"zone-b", "zone-c"}) {
    EXPECT_LT(range(series(rec, "service.cpu_utilization", zone(z)), 420s, 1800s).max, 0.7) << z;
  }
  // Zone-a's replacements come back ready within a minute of its recovery.
  const auto ready_a = series(rec, "deployment.zone_ready", zone("zone-a"));
  const double back = first_time_s(ready_a, 720s, [](double v) { return v == 4; });
  EXPECT_GT(back, 720);
  EXPECT_LT(back, 780);
}

// Cancelling compensation while zone-a's traffic is still cut: its idle
// pods drag the HPA's average down, it scales in once the downscale
// stabilisation window has passed, and zone-b/c are overloaded again until
// the traffic comes back.
TEST(HpaTrap, CancellingCompensationTooEarlyShowsTheOverloadAgain) {
  const RunResult run = run_scenario(
      load_scenario_file("scenarios/az_failure_recovery_order.yaml", {"spec.timeline[hpa-compensation].duration=7m"}));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  // Cancelled at 13 min; the scale-in waits for the 5-minute window.
  const auto replicas = series(rec, "deployment.replicas", {{"service", "api"}});
  const double scaled_in = first_time_s(replicas, 780s, [](double v) { return v < 11; });
  EXPECT_GE(scaled_in, 780 + 300);
  EXPECT_LT(scaled_in, 780 + 300 + 30);
  for (const char* z : {"zone-b", "zone-c"}) {
    const auto cpu = series(rec, "service.cpu_utilization", zone(z));
    EXPECT_LT(range(cpu, 420s, 1080s).max, 0.7) << z;             // compensated: fine
    EXPECT_GT(test_support::mean(cpu, 1090s, 1200s), 0.85) << z;  // scaled in, traffic still cut: overload
  }
}

}  // namespace
}  // namespace drsim

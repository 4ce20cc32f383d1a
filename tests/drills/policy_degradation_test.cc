// Policy degradation, scenarios/appfabric_az_failure.yaml: the
// 20-replica example of docs/sources.md section 1. The HPA's compensated
// scale-out stays unplaced under "2 zones, no extension" while zone-b is
// full; degrading the policy to extend to zone-c places it; recovery runs in
// the documented order. Asserted from the recorded series and events: the
// figures come from the HPA's calculation, the split, node capacity, start-up
// and probes, never from a constant set to match.
#include <gtest/gtest.h>

#include <optional>

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
const Labels kApi{{"service", "api"}};

// The first event of `kind` whose detail contains `text`, in seconds; none if there is none.
std::optional<double> event_time_s(const Recorder& rec, std::string_view kind, std::string_view text) {
  const auto& events = rec.events();
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events.kind[i] == kind && events.detail[i].find(text) != std::string::npos) {
      return static_cast<double>(events.t_ns[i]) / 1e9;
    }
  }
  return std::nullopt;
}

class PolicyDegradation : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_ = new RunResult(run_scenario(load_scenario_file("scenarios/appfabric_az_failure.yaml")));
  }
  static void TearDownTestSuite() {
    delete run_;
    run_ = nullptr;
  }
  const Recorder& rec() const { return run_->simulation->recorder(); }
  static RunResult* run_;
};
RunResult* PolicyDegradation::run_ = nullptr;

TEST_F(PolicyDegradation, RunsToTheHorizon) { EXPECT_EQ(run_->outcome.reason, StopReason::kHorizon); }

// Zone-a fails at 5 min, compensation at 6 min asks for 25: zone-b takes the
// 2 pods its nodes have room for, 3 stay unplaced, zone-c stays empty and
// zone-b overloaded until the policy changes at 9 min.
TEST_F(PolicyDegradation, TheCompensatedScaleOutStaysUnplacedUnderTheTwoZonePolicy) {
  const auto unplaced = series(rec(), "deployment.unplaced", kApi);
  EXPECT_EQ(range(unplaced, 0s, 360s).max, 0);
  EXPECT_EQ(range(unplaced, 360s, 540s).min, 3);
  EXPECT_EQ(range(unplaced, 360s, 540s).max, 3);
  EXPECT_EQ(range(series(rec(), "deployment.replicas", kApi), 360s, 540s).min, 25);
  EXPECT_EQ(range(series(rec(), "deployment.zone_target", zone("zone-b")), 360s, 540s).max, 12);
  EXPECT_EQ(range(series(rec(), "deployment.zone_ready", zone("zone-c")), 0s, 540s).max, 0);
  // 12 pods for 700 rps: above the 60% target the whole time.
  EXPECT_GT(range(series(rec(), "service.cpu_utilization", zone("zone-b")), 400s, 540s).min, 0.65);
  const auto logged = event_time_s(rec(), "deployment.unplaced", "extend is false, so zone-c cannot be used");
  ASSERT_TRUE(logged.has_value());
  EXPECT_GE(*logged, 360);
  EXPECT_LT(*logged, 540);
}

// The degraded policy (extend: true) is applied at 9 min: the fresh split
// places every replica, zone-c's pods are Ready within a minute, and CPU falls
// back under target.
TEST_F(PolicyDegradation, ExtendingToTheThirdZonePlacesThePodsAndLoadFallsUnderTarget) {
  const auto unplaced = series(rec(), "deployment.unplaced", kApi);
  EXPECT_EQ(range(unplaced, 540s, 2400s).max, 0);
  const auto ready = series(rec(), "deployment.ready", kApi);
  const double all_ready = first_time_s(ready, 540s, [](double v) { return v >= 25; });
  ASSERT_GE(all_ready, 540);
  EXPECT_LE(all_ready, 540 + 60);
  EXPECT_EQ(range(series(rec(), "deployment.zone_ready", zone("zone-c")), 600s, 1740s).min, 16);
  EXPECT_EQ(range(series(rec(), "deployment.zone_ready", zone("zone-b")), 600s, 1740s).min, 9);
  EXPECT_EQ(range(series(rec(), "deployment.zone_ready", zone("zone-a")), 360s, 1800s).max, 0);
  // 700 rps over 25 pods: about 35%, each 10 s window well under the 60% target.
  for (const char* z : {"zone-b", "zone-c"}) {
    const auto cpu = series(rec(), "service.cpu_utilization", zone(z));
    EXPECT_LT(range(cpu, 600s, 1740s).max, 0.5) << z;
    EXPECT_LT(test_support::mean(cpu, 600s, 1740s), 0.4) << z;
  }
}

// Recovery in the documented order: the zone recovers, traffic comes back in
// steps, then HPA compensation is cancelled, then the declared policy is
// restored; the run ends 10/10 in zone-a and zone-b under target.
TEST_F(PolicyDegradation, RecoveryRunsInTheDocumentedOrderAndEndsWhereItStarted) {
  const auto recovered = event_time_s(rec(), "zone:fail:end", "zone-a-down");
  const auto half = event_time_s(rec(), "traffic:cut", "ratio=50%");
  const auto full = event_time_s(rec(), "traffic:cut", "ratio=100%");
  const auto cancelled = event_time_s(rec(), "hpa.compensation", "cancelled");
  const auto restored = event_time_s(rec(), "deployment.policy", "(restored)");
  ASSERT_TRUE(recovered && half && full && cancelled && restored);
  EXPECT_LT(*recovered, *half);
  EXPECT_LT(*half, *full);
  EXPECT_LT(*full, *cancelled);
  EXPECT_LT(*cancelled, *restored);
  // Cancelled compensation: 25 pods at 35% scale in to the 20 minimum, zone-c (outside the list) first.
  const auto replicas = series(rec(), "deployment.replicas", kApi);
  const double scaled_in = first_time_s(replicas, 1440s, [](double v) { return v == 20; });
  EXPECT_GT(scaled_in, *cancelled);
  EXPECT_LT(scaled_in, *restored);
  EXPECT_EQ(range(series(rec(), "deployment.zone_target", zone("zone-b")), 1740s, 1800s).max, 9);
  // The restored policy moves zone-c's pods back: 10/10, every pod ready, load as before the failure.
  for (const char* z : {"zone-a", "zone-b"}) {
    EXPECT_EQ(range(series(rec(), "deployment.zone_ready", zone(z)), 1860s, 2400s).min, 10) << z;
    EXPECT_LT(range(series(rec(), "service.cpu_utilization", zone(z)), 1860s, 2400s).max, 0.5) << z;
  }
  EXPECT_EQ(range(series(rec(), "deployment.zone_ready", zone("zone-c")), 1860s, 2400s).max, 0);
  EXPECT_EQ(rec().find_kpi("deployment.replicas_final", kApi)->value, 20);
  EXPECT_EQ(rec().find_kpi("deployment.unplaced_peak", kApi)->value, 3);
}

}  // namespace
}  // namespace drsim

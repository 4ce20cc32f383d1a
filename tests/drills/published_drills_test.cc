// The scenarios modelled on the published drills of docs/domain.md, run end
// to end from their files: the figures come out of round-trip times, the
// connection handshake, call counts and service times, never out of a
// constant set to match.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::series;

// Mean client latency over the windows starting in [from, to), each window's
// mean weighted by its successes.
double mean_latency(const Recorder& rec, const std::string& population, Duration from, Duration to) {
  const auto means = series(rec, "client.latency_mean_s", {{"population", population}});
  const auto counts = series(rec, "client.succeeded", {{"population", population}});
  double weighted = 0, n = 0;
  for (const auto& [t, count] : counts) {
    if (t < from.count() || t >= to.count() || count == 0) continue;
    weighted += means.at(t) * count;
    n += count;
  }
  return n == 0 ? 0 : weighted / n;
}

double failures(const Recorder& rec, const std::string& population, Duration from, Duration to) {
  double total = 0;
  for (const Recorder::Series& s : rec.series_list()) {
    if (s.metric != "client.failed") continue;
    bool ours = false;
    for (const auto& [k, v] : s.labels) ours |= (k == "population" && v == population);
    if (!ours) continue;
    for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
      if (s.t_ns[i] >= from.count() && s.t_ns[i] < to.count()) total += s.value[i];
    }
  }
  return total;
}

// domain.md section 2: 230 ms from Spain to Ireland, 820 ms once Oregon serves,
// about 20 s of errors in between, 220 ms when Ireland is back.
TEST(PublishedDrills, TwoCellRegionFailoverFromSpain) {
  const RunResult run = run_scenario(load_scenario_file("scenarios/two_cell_region_failover_manual_switch.yaml"));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.recorder();
  const double ireland = mean_latency(rec, "spain", 10s, 70s);
  const double oregon = mean_latency(rec, "spain", 95s, 240s);
  const double back = mean_latency(rec, "spain", 255s, 300s);
  EXPECT_NEAR(ireland, 0.230, 0.023) << "Ireland serving";
  EXPECT_NEAR(oregon, 0.820, 0.082) << "Oregon serving";
  EXPECT_NEAR(back, 0.220, 0.023) << "Ireland back";
  // Errors from the deletion (70 s) until the switch (90 s): 20 s at 20 rps,
  // give or take the requests on the wire at each end.
  EXPECT_EQ(failures(rec, "spain", 0s, 70s), 0);
  EXPECT_NEAR(failures(rec, "spain", 70s, 95s), 400, 20);
  EXPECT_EQ(failures(rec, "spain", 95s, 300s), 0);
}

// domain.md section 4: zone B's requests pay 5-8 ms more, because each of
// their queries crosses to the primary in zone A.
TEST(PublishedDrills, SameCityDualActiveZoneBPaysForItsCrossZoneQueries) {
  const RunResult run = run_scenario(load_scenario_file("scenarios/same_city_dual_active.yaml"));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.recorder();
  const double green = mean_latency(rec, "users-green", 30s, 300s);
  const double blue = mean_latency(rec, "users-blue", 30s, 300s);
  const double extra = blue - green;
  EXPECT_GE(extra, 0.005);
  EXPECT_LE(extra, 0.008);
  // Losing zone B's orders pods: zone affinity spills blue traffic to zone A;
  // only the requests those pods held fail.
  EXPECT_LT(failures(rec, "users-blue", 300s, 600s), 50);
  EXPECT_EQ(failures(rec, "users-green", 0s, 600s), 0);
}

}  // namespace
}  // namespace drsim

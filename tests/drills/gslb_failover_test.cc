// docs/sources.md section 2 with the switch made by Route 53-style health
// checks and DNS caches (scenarios/two_cell_region_failover.yaml):
// the time from the region loss to the traffic leaving it, and the error
// window, follow from the check interval, the failure threshold, the TTLs
// and the staggering; asserted from the recorded series.
#include <gtest/gtest.h>

#include "io/objective_evaluation.h"
#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::first_time_s;
using test_support::series;

constexpr const char* kScenario = "scenarios/two_cell_region_failover.yaml";

// Settings of the scenario, from which the bands below are derived.
constexpr double kLoss = 70;            // region:fail at 70 s
constexpr double kInterval = 10;        // healthCheck.requestInterval
constexpr double kThreshold = 3;        // healthCheck.failureThreshold
constexpr double kProbeTimeout = 6;     // healthCheck.timeout
constexpr double kCacheSpread = 5 + 5;  // dns.recordTtl + dns.clientCacheTtl
constexpr double kRate = 20;            // requests per second
constexpr double kWindow = 1;           // metricsWindow

double total(const std::map<std::int64_t, double>& points, double from_s, double to_s) {
  double sum = 0;
  for (const auto& [t, v] : points) {
    if (t >= from_s * 1e9 && t < to_s * 1e9) sum += v;
  }
  return sum;
}

TEST(GslbFailover, HealthChecksAndDnsCachesMoveSpainsTrafficToOregon) {
  const RunResult run = run_scenario(load_scenario_file(kScenario));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.recorder();
  const Labels spain{{"population", "spain"}};

  // Detection: every reporting checker's view flips at its threshold-th
  // failed probe; its first after the loss is sent within one interval, and
  // fails at its timeout: the gateway sits behind Ireland's cloud load
  // balancer (discovery loadBalancer, the default), whose dead nodes take
  // the probe and never answer. So (threshold - 1) x interval + timeout to
  // threshold x interval + timeout after the loss.
  const auto ireland_healthy = series(rec, "health.region_healthy", {{"population", "spain"}, {"region", "ireland"}});
  const double unhealthy_at = first_time_s(ireland_healthy, 0s, [](double v) { return v < 1; });
  EXPECT_GE(unhealthy_at, kLoss + (kThreshold - 1) * kInterval + kProbeTimeout - kWindow);
  EXPECT_LE(unhealthy_at, kLoss + kThreshold * kInterval + kProbeTimeout);
  // Back after the redeployment at 240 s: threshold passed probes, which pass at once.
  constexpr double kRecovery = 240;
  const double healthy_again =
      first_time_s(ireland_healthy, std::chrono::seconds(static_cast<int>(kRecovery)), [](double v) { return v > 0; });
  EXPECT_GE(healthy_again, kRecovery + (kThreshold - 1) * kInterval - kWindow);
  EXPECT_LE(healthy_again, kRecovery + kThreshold * kInterval);
  // The objectives report counts the checker's verdict as the detection.
  const ObjectiveReport report = objective_report(run);
  ASSERT_FALSE(report.faults.empty());
  ASSERT_TRUE(report.faults[0].detection.has_value());
  EXPECT_GE(to_seconds(*report.faults[0].detection), (kThreshold - 1) * kInterval + kProbeTimeout - kWindow);
  EXPECT_LE(to_seconds(*report.faults[0].detection), kThreshold * kInterval + kProbeTimeout);
  EXPECT_NE(report.faults[0].detected_by.find("gslb.region_unhealthy"), std::string::npos) << report.faults[0].detected_by;
  const auto oregon_healthy = series(rec, "health.region_healthy", {{"population", "spain"}, {"region", "oregon"}});
  EXPECT_EQ(first_time_s(oregon_healthy, 0s, [](double v) { return v < 1; }), -1) << "Oregon stays healthy";

  // Traffic leaves Ireland when the last client cache has the new answer:
  // within recordTtl + clientCacheTtl of the decision. Until then Spain's
  // requests to Ireland fail (no target), so the last failure marks it.
  std::map<std::int64_t, double> failed;  // every cause
  for (const Recorder::Series& s : rec.series_list()) {
    if (s.metric != "client.failed" || s.labels.empty()) continue;
    bool ours = false;
    for (const auto& [k, v] : s.labels) ours |= (k == "population" && v == "spain");
    if (!ours) continue;
    for (std::size_t i = 0; i < s.t_ns.size(); ++i) failed[s.t_ns[i]] += s.value[i];
  }
  double last_failure = -1;
  for (const auto& [t, v] : failed) {
    if (v > 0) last_failure = static_cast<double>(t) / 1e9;
  }
  EXPECT_GE(last_failure, unhealthy_at - kWindow);
  EXPECT_LE(last_failure, unhealthy_at + kCacheSpread + kWindow);
  const auto stale = series(rec, "dns.stale_clients", spain);
  EXPECT_LE(
      first_time_s(stale, std::chrono::seconds(static_cast<int>(unhealthy_at) + 1), [](double v) { return v == 0; }),
      unhealthy_at + kCacheSpread + kWindow);

  // Errors: none before the loss; from it, the detection's band
  // ((threshold - 1) x interval + timeout to threshold x interval + timeout)
  // then up to the cache spread, at 20 requests/s, give or take Poisson noise
  // (10%); none once Oregon serves, nor when Ireland comes back.
  const double errors = total(failed, 0, 300);
  EXPECT_EQ(total(failed, 0, kLoss), 0);
  EXPECT_GE(errors, 0.9 * kRate * ((kThreshold - 1) * kInterval + kProbeTimeout));
  EXPECT_LE(errors, 1.1 * kRate * (kThreshold * kInterval + kProbeTimeout + kCacheSpread));
  EXPECT_EQ(total(failed, kLoss + kThreshold * kInterval + kProbeTimeout + kCacheSpread + kWindow, 300), 0);

  // Latency from Spain: Ireland, then Oregon, then Ireland again once its
  // health checks pass (3 x 10 s after 240 s) and the caches follow.
  const auto latency = series(rec, "client.latency_mean_s", spain);
  const auto succeeded = series(rec, "client.succeeded", spain);
  auto mean_latency = [&](double from, double to) {
    double weighted = 0, n = 0;
    for (const auto& [t, count] : succeeded) {
      if (t < from * 1e9 || t >= to * 1e9 || count == 0) continue;
      weighted += latency.at(t) * count;
      n += count;
    }
    return n == 0 ? 0 : weighted / n;
  };
  EXPECT_NEAR(mean_latency(10, kLoss), 0.230, 0.023) << "Ireland serving";
  EXPECT_NEAR(mean_latency(115, 240), 0.820, 0.082) << "Oregon serving";
  EXPECT_NEAR(mean_latency(285, 300), 0.220, 0.023) << "Ireland back";
  std::printf(
      "ireland unhealthy at %.0f s (loss at %.0f s), last failure %.0f s, %.0f errors, latency %.3f -> %.3f -> %.3f "
      "s\n",
      unhealthy_at, kLoss, last_failure, errors, mean_latency(10, kLoss), mean_latency(115, 240),
      mean_latency(285, 300));
}

}  // namespace
}  // namespace drsim

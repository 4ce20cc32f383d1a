// Services and client load in scenario files, end to end: loaded, built by
// io/run.cc, driven by the timeline's service actions, and seen in the
// recorded series.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>

#include "io/run.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

// The value of each window point of metric{labels}, by window start in ns.
std::map<std::int64_t, double> series(const Recorder& rec, std::string_view metric, const Labels& labels) {
  for (const Recorder::Series& s : rec.series_list()) {
    if (s.metric != metric) continue;
    bool match = true;
    for (const auto& [k, v] : labels) {
      bool found = false;
      for (const auto& [k2, v2] : s.labels) found |= (k == k2 && v == v2);
      match &= found;
    }
    if (!match) continue;
    std::map<std::int64_t, double> out;
    for (std::size_t i = 0; i < s.t_ns.size(); ++i) out[s.t_ns[i]] = s.value[i];
    return out;
  }
  ADD_FAILURE() << "no series " << metric;
  return {};
}

// Sum of the points with window start in [from, to).
double sum_over(const std::map<std::int64_t, double>& points, Duration from, Duration to) {
  double total = 0;
  for (const auto& [t, v] : points) {
    if (t >= from.count() && t < to.count()) total += v;
  }
  return total;
}

using namespace std::chrono_literals;

TEST(ServiceScenario, LoadsServicesLoadAndServiceActions) {
  const Scenario s = load_scenario_file("tests/data/scenarios/good/services_and_load.yaml");
  ASSERT_EQ(s.spec.topology.config.services.size(), 1u);
  const ServiceConfig& api = s.spec.topology.config.services[0];
  EXPECT_EQ(api.replicas.size(), 2u);
  EXPECT_EQ(api.queue_limit, std::optional<std::uint32_t>(8));
  EXPECT_EQ(api.service_time.kind, "lognormal");
  EXPECT_EQ(api.service_time.p99, std::optional<Duration>(60ms));
  ASSERT_EQ(s.spec.load.size(), 1u);
  EXPECT_EQ(s.spec.load[0].load.kind, "stages");
  ASSERT_EQ(s.spec.load[0].load.stages.size(), 2u);
  EXPECT_EQ(s.spec.load[0].load.stages[1].duration, Duration::zero());
  EXPECT_EQ(s.spec.metrics_window, 10s);
  ASSERT_EQ(s.spec.timeline.size(), 5u);
  EXPECT_EQ(s.spec.timeline[1].replicas, std::optional<std::uint32_t>(4));
  EXPECT_EQ(s.spec.timeline[3].factor, std::optional<double>(3.0));
}

TEST(ServiceScenario, ServiceActionsChangePodsAndRouting) {
  // The actions' own arithmetic, with no detection path in between: behind a load balancer (the default) a new
  // pod would get traffic only after 5 passed health checks (tests/traffic/cloud_load_balancer_test.cc).
  const RunResult r = run_scenario(load_scenario_file("tests/data/scenarios/good/services_and_load.yaml",
                                                      {"spec.topology.services[api].discovery=oracle"}));
  ASSERT_TRUE(r.outcome.complete());
  const Recorder& rec = r.recorder();
  const auto pods_b = series(rec, "service.pods", {{"service", "api"}, {"zone", "eu-west-1b"}});
  // Windows of 10 s: 2 pods, scaled to 4 at 20s, half of them killed at 40s,
  // then scaled to 1 at 80s (a busy pod may finish its work first).
  EXPECT_EQ(pods_b.at(0), 2);
  EXPECT_EQ(pods_b.at(Duration(20s).count()), 4);
  EXPECT_EQ(pods_b.at(Duration(40s).count()), 2);
  EXPECT_EQ(pods_b.at(Duration(100s).count()), 1);
  // The cut halves eu-west-1a's weight from 10s to 30s: its share of the
  // arrivals falls below a half, and is back afterwards.
  const auto a = series(rec, "service.arrivals", {{"service", "api"}, {"zone", "eu-west-1a"}});
  const auto b = series(rec, "service.arrivals", {{"service", "api"}, {"zone", "eu-west-1b"}});
  const double before = sum_over(a, 0s, 10s) / (sum_over(a, 0s, 10s) + sum_over(b, 0s, 10s));
  const double during = sum_over(a, 10s, 20s) / (sum_over(a, 10s, 20s) + sum_over(b, 10s, 20s));
  EXPECT_GT(before, 0.45);
  EXPECT_LT(during, 0.4);
  // The slowdown (x3 from 60s to 80s) shows in the response times.
  const auto p50 = series(rec, "service.response_p50_s", {{"service", "api"}, {"zone", "eu-west-1a"}});
  EXPECT_GT(p50.at(Duration(60s).count()), 2 * p50.at(Duration(50s).count()));
  // Every request is accounted for.
  const Recorder::Kpi* offered = rec.find_kpi("client.offered", {{"population", "web"}});
  ASSERT_NE(offered, nullptr);
  EXPECT_GT(offered->value, 0);
}

TEST(ServiceScenario, AZoneFailureInTheDefaultScenarioReroutesItsRequests) {
  // Behind its cloud load balancer, the default outside Kubernetes.
  const Scenario s = load_scenario_file("scenarios/default.yaml");
  // The outage window of north-a, from the resolved timeline.
  std::optional<ResolvedAction> outage;
  for (const ResolvedAction& a : s.resolved_timeline) {
    if (s.spec.timeline[a.index].action == "zone:fail" && s.spec.timeline[a.index].target.zone == "north-a")
      outage = a;
  }
  ASSERT_TRUE(outage && outage->end);
  const Duration start = outage->start.time_since_epoch();
  const Duration end = outage->end->time_since_epoch();
  const Duration w = s.spec.metrics_window;
  ASSERT_GT(start, w);

  const RunResult r = run_scenario(s, RunOptions{.until = end + w});
  const Recorder& rec = r.recorder();
  const std::string service = s.spec.load.at(0).service;
  const auto north_a = series(rec, "service.arrivals", {{"service", service}, {"zone", "north-a"}});
  const auto north_b = series(rec, "service.arrivals", {{"service", service}, {"zone", "north-b"}});
  // Before: north-a takes its share. Its balancer finds out through its health checks: the targets leave
  // within 65 s, the node within 34 s and the callers' cached address 60 s later, so from the second whole
  // window of the outage (1 m windows) on it gets nothing, and the other zones take more.
  EXPECT_GT(sum_over(north_a, start - w, start), 0);
  EXPECT_GT(sum_over(north_a, start, start + w), 0);
  EXPECT_EQ(sum_over(north_a, start + 2 * w, end - w), 0);
  EXPECT_GT(sum_over(north_b, start + 2 * w, start + 3 * w), sum_over(north_b, start - w, start));
  // The requests north-a held when it failed are black-holed: they time out
  // (or, with zoneFailure refuse, are refused). Either way the offered load
  // is conserved: succeeded + failed + in flight.
  const auto offered = series(rec, "client.offered", {});
  const auto succeeded = series(rec, "client.succeeded", {});
  EXPECT_GT(sum_over(succeeded, start + 2 * w, end - w), 0.99 * sum_over(offered, start + 2 * w, end - w));
}

}  // namespace
}  // namespace drsim

// HPAs on the metrics adapter's Pods metrics, end to end from a scenario: the
// requests a pod finishes reach the HPA through the adapter's scrapes (every
// interval, a rate over the last two) and the HPA's syncs (every 15 s), so a
// step in the load is acted on at the first sync after the first scrape
// whose window lies wholly after the step. And with two metrics, one of them
// from an adapter whose zone is down, the HPA does not scale down on the
// other's word until the adapter has scraped twice again.
//
// The figures are worked out by hand from the load, the targets and the
// schedules; arrivals are evenly spaced, so a window's count is its length
// times the rate.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

#include "tests/drills/recorded_series.h"
#include "tests/drills/run_text.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::first_time_s;
using test_support::range;
using test_support::run_text;
using test_support::series;

// An api of `pods_per_zone` pods in zones a and b (4 workers, 10 ms each: 400
// rps a pod), zone c holding only the metrics adapter, the given load
// (YAML of a population's `load`), the given HPA metrics and timeline.
std::string scenario(int pods_per_zone, const std::string& load, const std::string& metrics,
                     const std::string& timeline = "") {
  const std::string pods = std::to_string(pods_per_zone);
  return R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: hpa-custom-metrics
spec:
  seed: 1
  topology:
    regions:
      - name: r
        zones: [{name: a}, {name: b}, {name: c}]
        interZoneRtt: 1ms
    services:
      - name: api
        replicas:
          - {zone: a, replicas: )" + pods + R"(}
          - {zone: b, replicas: )" + pods + R"(}
        concurrency: 4
        serviceTime: {kind: constant, value: 10ms}
        cpu: {perWorker: 250m}
  duration: 10m
  metricsWindow: 1s
  load:
    - name: users
      service: api
      load: )" + load + R"(
      timeout: 2s
      arrivals: deterministic
  kubernetes:
    deployments:
      - service: api
        startup: {kind: constant, value: 5s}
        readinessProbe: {periodSeconds: 5}
    metricsAdapter: {interval: 10s, zone: c}
    hpas:
      - name: api
        target: api
        minReplicas: 2
        maxReplicas: 20
        metrics:
)" + metrics + (timeline.empty() ? "" : "  timeline:\n" + timeline);
}

const std::string kRps = R"(          - type: Pods
            pods: {metric: {name: requests_per_second}, target: {type: AverageValue, averageValue: "100"}}
)";
const std::string kCpu = R"(          - type: Resource
            resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
)";

std::optional<double> event_time(const Recorder& rec, std::string_view kind, std::size_t nth = 0) {
  for (std::size_t i = 0; i < rec.events().size(); ++i) {
    if (rec.events().kind[i] == kind && nth-- == 0) return static_cast<double>(rec.events().t_ns[i]) / 1e9;
  }
  return std::nullopt;
}

std::string event_detail(const Recorder& rec, std::string_view kind) {
  for (std::size_t i = 0; i < rec.events().size(); ++i) {
    if (rec.events().kind[i] == kind) return rec.events().detail[i];
  }
  return "";
}

const Labels kHpa{{"hpa", "api"}};

TEST(HpaCustomMetrics, RequestsPerSecondPerPodScalesUpAtTheFirstSyncAfterAWholeWindowOfTheNewLoad) {
  // 4 pods at 200 rps until 2 min (50 a pod against 100 asks for 2;
  // minReplicas 4 keeps them), then 800 rps: 200 a pod, twice the target, 8
  // replicas.
  std::string text = scenario(2,
                              "{kind: stages, stages: [{duration: 2m, target: 200rps}, {duration: 0s, target: "
                              "800rps}, {duration: 8m, target: 800rps}]}",
                              kRps);
  text.replace(text.find("minReplicas: 2"), 14, "minReplicas: 4");
  const RunResult run = run_text(text);
  const Recorder& rec = run.simulation->recorder();
  // Scrapes at 120 and 130 s: the window [120, 130] is the first wholly at
  // 800 rps; the syncs are at 15 s multiples, so 135 s is the first to read
  // it. 200 a pod against 100 asks for 8, which the legacy scale-up limit,
  // max(2 x 4, 4) = 8, lets through.
  ASSERT_TRUE(event_time(rec, "hpa.rescale"));
  EXPECT_DOUBLE_EQ(*event_time(rec, "hpa.rescale"), 135.0);
  // The value is the window's finished requests: 800 rps x 10 s over 4 pods,
  // less the few still in service at the window's end.
  const std::string detail = event_detail(rec, "hpa.rescale");
  const std::string prefix = "api: 4 -> 8 (requests_per_second ";
  ASSERT_EQ(detail.rfind(prefix, 0), 0u) << detail;
  const double per_pod_milli = std::stod(detail.substr(prefix.size()));
  EXPECT_GE(per_pod_milli, 199000);
  EXPECT_LE(per_pod_milli, 200000);
  EXPECT_NE(detail.find("m per pod, target 100: proposal 8, desired 8)"), std::string::npos) << detail;
  const auto desired = series(rec, "hpa.desired_replicas", kHpa);
  EXPECT_EQ(range(desired, 0s, 135s).max, 4);
  // 8 pods at 800 rps are at the target: no second rescale.
  EXPECT_FALSE(event_time(rec, "hpa.rescale", 1));
  EXPECT_EQ(range(desired, 135s, 600s).min, 8);
}

TEST(HpaCustomMetrics, ObjectAndExternalMetricsSeeTheStepAtTheSameSync) {
  // The same step, read as the service's total (Object, Value 400: 800
  // against 400 over 4 ready pods asks for 8) and as the population's
  // offered rate per pod (External, AverageValue 100: 800 / 4 against 100
  // asks for 8). Both are rates over the adapter's scrapes: 135 s again.
  const std::string load =
      "{kind: stages, stages: [{duration: 2m, target: 200rps}, {duration: 0s, target: 800rps}, {duration: 8m, "
      "target: 800rps}]}";
  const std::string object = R"(          - type: Object
            object:
              describedObject: {kind: Service, name: api}
              metric: {name: requests_per_second}
              target: {type: Value, value: "400"}
)";
  const std::string external = R"(          - type: External
            external:
              metric: {name: population_offered_rate, selector: {matchLabels: {population: users}}}
              target: {type: AverageValue, averageValue: "100"}
)";
  for (const std::string& metric : {object, external}) {
    std::string text = scenario(2, load, metric);
    text.replace(text.find("minReplicas: 2"), 14, "minReplicas: 4");
    const RunResult run = run_text(text);
    const Recorder& rec = run.simulation->recorder();
    ASSERT_TRUE(event_time(rec, "hpa.rescale")) << metric;
    EXPECT_DOUBLE_EQ(*event_time(rec, "hpa.rescale"), 135.0) << metric;
    EXPECT_EQ(event_detail(rec, "hpa.rescale").rfind("api: 4 -> 8 (", 0), 0u) << event_detail(rec, "hpa.rescale");
  }
}

TEST(HpaCustomMetrics, AnUnavailableMetricHoldsTheScaleDownTheOtherAsksFor) {
  // 6 pods at 120 rps: 20 a pod against 100 and a few % of their CPU
  // against 50% both ask for 2 (minReplicas). The legacy path keeps the
  // highest recommendation of the last 5 minutes, and the first one is the
  // current count, 6, recorded by the first sync that computes: 30 s (at
  // 15 s metrics-server has only its first reading, so the CPU metric is
  // invalid and the rule holds). A recommendation exactly 300 s old still
  // counts, so the scale-down is at 345 s.
  const std::string load = "{kind: constant, rate: 120rps}";
  const RunResult steady = run_text(scenario(3, load, kCpu + kRps));
  const Recorder& s = steady.simulation->recorder();
  ASSERT_TRUE(event_time(s, "hpa.rescale"));
  EXPECT_DOUBLE_EQ(*event_time(s, "hpa.rescale"), 30.0 + 300.0 + 15.0);
  EXPECT_NE(event_detail(s, "hpa.rescale").find("api: 6 -> 2"), std::string::npos) << event_detail(s, "hpa.rescale");

  // Zone c, where the adapter runs, is down from 55 s to 7m5s: the
  // requests_per_second metric is invalid, the CPU metric still asks for 2,
  // and the HPA holds 6 past 345 s. Back at 425 s, the adapter scrapes at 430
  // (its first counters) and 440 (a rate): the sync at 450 s has both
  // metrics again, and the recommendations of the last 5 minutes (the held
  // syncs recorded none; the 6 of 30 s is older) are all 2.
  const RunResult failed = run_text(scenario(
      3, load, kCpu + kRps, "    - {name: lose-c, action: zone:fail, target: {zone: c}, at: 55s, duration: 370s}\n"));
  const Recorder& f = failed.simulation->recorder();
  ASSERT_TRUE(event_time(f, "hpa.rescale"));
  EXPECT_DOUBLE_EQ(*event_time(f, "hpa.rescale"), 450.0);
  EXPECT_NE(event_detail(f, "hpa.rescale").find("api: 6 -> 2"), std::string::npos) << event_detail(f, "hpa.rescale");
  const auto desired = series(f, "hpa.desired_replicas", kHpa);
  EXPECT_EQ(range(desired, 15s, 450s).min, 6);
  EXPECT_EQ(range(desired, 450s, 600s).max, 2);
}

}  // namespace
}  // namespace drsim

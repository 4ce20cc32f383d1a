// HPAs with several metrics, one of them failed or of an unknown type: the
// cases of upstream's pkg/controller/podautoscaler/horizontal_test.go that
// combine metrics, ported through HpaController::sync (computeReplicasForMetrics
// then reconcileAutoscaler). Each test names the upstream test it ports and
// asserts what that test asserts: status.desiredReplicas and
// status.conditions (type, status, reason).
//
// Upstream's harness, reproduced by UpstreamCase: pods test-pod-<i> that each
// request 1 CPU (two containers of 500m) and started long ago; the resource
// metrics API answers reportedLevels as the pods' CPU (each container half,
// in integer millicores); the custom metrics API answers reportedLevels per
// pod for a Pods metric and reportedLevels[0] for an Object metric; the
// external metrics API answers reportedLevels as the series' values. CPUTarget
// > 0 puts a Resource cpu Utilization metric first, before metricsTarget. A
// metric whose API fails ("something went wrong") gets an error reading. The
// type "CheddarCheese" is upstream's metric type that does not exist.
//
// Upstream changed the rule in between: older versions of the file had
// TestScaleDownOneMetricInvalid and TestScaleDownOneMetricEmpty, which scaled
// down to 3 on the valid metric's word; the current ones are
// TestNoScaleDownOneMetricInvalid and TestNoScaleDownOneMetricEmpty, which
// keep 5 ("no scale down while a metric is invalid"). drsim follows the current.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/kube/hpa_controller.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

constexpr SimTime kNow = at(std::chrono::hours(1));

HpaCondition cond(std::string type, bool status, std::string reason) {
  return HpaCondition{std::move(type), status, std::move(reason)};
}

// upstream statusOk: rescaled, a valid metric, within range.
std::vector<HpaCondition> status_ok(std::string able = "SucceededRescale", bool limited = false,
                                    std::string limit = "DesiredWithinRange") {
  return {cond("AbleToScale", true, std::move(able)), cond("ScalingActive", true, "ValidMetricFound"),
          cond("ScalingLimited", limited, std::move(limit))};
}

// The conditions of a sync that could not compute a count.
std::vector<HpaCondition> not_active(std::string reason) {
  return {cond("AbleToScale", true, "SucceededGetScale"), cond("ScalingActive", false, std::move(reason))};
}

HpaMetricConfig cheddar_cheese() {
  HpaMetricConfig m;
  m.type = "CheddarCheese";
  return m;
}

HpaQuantityTargetConfig target(std::string type, std::string quantity) {
  HpaQuantityTargetConfig t;
  t.type = type;
  (type == "Value" ? t.value : t.average_value) = std::move(quantity);
  return t;
}

HpaMetricConfig pods_metric(std::string name, std::string average_value) {
  HpaMetricConfig m;
  m.type = "Pods";
  m.pods.emplace();
  m.pods->metric.name = std::move(name);
  m.pods->target = target("AverageValue", std::move(average_value));
  return m;
}

HpaMetricConfig external_metric(std::string name, std::string type, std::string quantity) {
  HpaMetricConfig m;
  m.type = "External";
  m.external.emplace();
  m.external->metric.name = std::move(name);
  m.external->metric.selector.emplace();
  m.external->target = target(std::move(type), std::move(quantity));
  return m;
}

HpaMetricConfig object_metric(std::string name, std::string type, std::string quantity) {
  HpaMetricConfig m;
  m.type = "Object";
  m.object.emplace();
  m.object->described_object.kind = "Deployment";
  m.object->described_object.name = "some-deployment";
  m.object->metric.name = std::move(name);
  m.object->target = target(std::move(type), std::move(quantity));
  return m;
}

struct UpstreamCase {
  std::int32_t min_replicas = 2;
  std::int32_t max_replicas = 6;
  std::int32_t spec_replicas = 3;
  std::int32_t status_replicas = 3;
  std::int32_t cpu_target = 0;  // CPUTarget: > 0 puts a cpu Utilization metric first
  std::vector<HpaMetricConfig> metrics_target;
  std::vector<std::int64_t> reported_levels;
  std::optional<std::size_t> reported_cpu_requests;  // len(reportedCPURequests); absent: statusReplicas pods
  std::set<std::string> failing_apis;                // "Resource", "Pods", "Object", "External": answer an error

  HpaSyncResult run() const {
    HpaConfig config;
    config.name = "test-hpa";
    config.target = "test-rc";
    config.min_replicas = min_replicas;
    config.max_replicas = max_replicas;
    if (cpu_target > 0) {
      HpaMetricConfig cpu;
      cpu.resource.emplace();
      cpu.resource->target.average_utilization = cpu_target;
      config.metrics.push_back(cpu);
    }
    config.metrics.insert(config.metrics.end(), metrics_target.begin(), metrics_target.end());
    HpaController hpa(config, HpaControllerConfig{});

    HpaSyncInput in;
    in.current_replicas = spec_replicas;
    in.status_replicas = status_replicas;
    in.now = kNow;
    const std::size_t pods = reported_cpu_requests.value_or(static_cast<std::size_t>(status_replicas));
    for (std::size_t i = 0; i < pods; ++i) {
      in.pods.push_back(PodInfo::single_container("test-pod-" + std::to_string(i), 1000));
    }
    if (!failing_apis.contains("Resource")) {
      for (std::size_t i = 0; i < reported_levels.size(); ++i) {
        // Two containers, each reporting half, in whole millicores.
        in.cpu.push_back(PodMetric{.pod = "test-pod-" + std::to_string(i),
                                   .value_milli = reported_levels[i] / 2 * 2,
                                   .timestamp = kNow,
                                   .window = 1min});
      }
    }
    for (const HpaMetricConfig& m : config.metrics) {
      HpaMetricReading r;
      if (failing_apis.contains(m.type)) {
        r = HpaMetricReading::failure("something went wrong");
      } else if (m.type == "Pods") {
        for (std::size_t i = 0; i < reported_levels.size(); ++i) {
          r.pods.push_back(PodMetric{.pod = "test-pod-" + std::to_string(i),
                                     .value_milli = reported_levels[i],
                                     .timestamp = kNow});
        }
      } else if (m.type == "Object") {
        r.value_milli = reported_levels.front();
        r.timestamp = kNow;
      } else if (m.type == "External") {
        r.values_milli = reported_levels;
        r.timestamp = kNow;
      }
      in.readings.push_back(r);
    }
    return hpa.sync(in);
  }
};

// upstream TestScaleUpOneMetricInvalid: cpu 40% against 30% asks for 4; the
// unknown type fails; scaling up on the valid metric is allowed.
TEST(HpaMultiMetric, ScaleUpOneMetricInvalid) {
  UpstreamCase tc;
  tc.cpu_target = 30;
  tc.metrics_target = {cheddar_cheese()};
  tc.reported_levels = {300, 400, 500};
  tc.reported_cpu_requests = 3;
  const HpaSyncResult r = tc.run();
  EXPECT_EQ(r.desired_replicas, 4);
  EXPECT_TRUE(r.rescale);
  EXPECT_EQ(r.conditions, status_ok());
  EXPECT_EQ(r.metric_proposals, (std::vector<std::optional<std::int32_t>>{4, std::nullopt}));
  EXPECT_EQ(r.invalid_reasons, (std::vector<std::string>{"", "InvalidMetricSourceType"}));
}

// upstream TestScaleUpFromZeroOneMetricInvalid: minReplicas 0 and a target at
// 0 replicas (scale to zero), three pods still listed: 4, as above.
TEST(HpaMultiMetric, ScaleUpFromZeroOneMetricInvalid) {
  UpstreamCase tc;
  tc.min_replicas = 0;
  tc.spec_replicas = 0;
  tc.status_replicas = 0;
  tc.cpu_target = 30;
  tc.metrics_target = {cheddar_cheese()};
  tc.reported_levels = {300, 400, 500};
  tc.reported_cpu_requests = 3;
  const HpaSyncResult r = tc.run();
  EXPECT_EQ(r.desired_replicas, 4);
  EXPECT_EQ(r.conditions, status_ok());
}

// upstream TestScaleUpBothMetricsEmpty: no CPU target, so the unknown type
// is the only metric; every metric invalid: no change.
TEST(HpaMultiMetric, ScaleUpBothMetricsEmpty) {
  UpstreamCase tc;
  tc.metrics_target = {cheddar_cheese()};
  tc.reported_cpu_requests = 3;
  const HpaSyncResult r = tc.run();
  EXPECT_EQ(r.desired_replicas, 3);
  EXPECT_FALSE(r.rescale);
  EXPECT_EQ(r.conditions, not_active("InvalidMetricSourceType"));
}

// upstream TestScaleUpOneMetricEmpty: the external metrics API fails; cpu
// asks for 4 and scaling up is allowed.
TEST(HpaMultiMetric, ScaleUpOneMetricEmpty) {
  UpstreamCase tc;
  tc.cpu_target = 30;
  tc.metrics_target = {external_metric("qps", "Value", "100m")};
  tc.reported_levels = {300, 400, 500};
  tc.reported_cpu_requests = 3;
  tc.failing_apis = {"External"};
  const HpaSyncResult r = tc.run();
  EXPECT_EQ(r.desired_replicas, 4);
  EXPECT_EQ(r.conditions, status_ok());
  EXPECT_EQ(r.invalid_reasons, (std::vector<std::string>{"", "FailedGetExternalMetric"}));
}

// upstream TestNoScaleDownOneMetricInvalid: cpu 28% against 50% would take 5
// to 3, but a metric is invalid: no change, ScalingActive False.
TEST(HpaMultiMetric, NoScaleDownOneMetricInvalid) {
  UpstreamCase tc;
  tc.spec_replicas = 5;
  tc.status_replicas = 5;
  tc.cpu_target = 50;
  tc.metrics_target = {cheddar_cheese()};
  tc.reported_levels = {100, 300, 500, 250, 250};
  tc.reported_cpu_requests = 5;
  const HpaSyncResult r = tc.run();
  EXPECT_EQ(r.desired_replicas, 5);
  EXPECT_FALSE(r.rescale);
  EXPECT_EQ(r.conditions, not_active("InvalidMetricSourceType"));
  EXPECT_EQ(r.metric_proposals, (std::vector<std::optional<std::int32_t>>{3, std::nullopt}));
}

// upstream TestNoScaleDownOneMetricEmpty: the same with the external metrics
// API failing.
TEST(HpaMultiMetric, NoScaleDownOneMetricEmpty) {
  UpstreamCase tc;
  tc.spec_replicas = 5;
  tc.status_replicas = 5;
  tc.cpu_target = 50;
  tc.metrics_target = {external_metric("qps", "Value", "1000m")};
  tc.reported_levels = {100, 300, 500, 250, 250};
  tc.reported_cpu_requests = 5;
  tc.failing_apis = {"External"};
  const HpaSyncResult r = tc.run();
  EXPECT_EQ(r.desired_replicas, 5);
  EXPECT_EQ(r.conditions, not_active("FailedGetExternalMetric"));
}

// upstream TestNoBackoffUpscaleCMNoBackoffCpu: cpu (2000% against 10%, 600
// replicas) and qps per pod (20 against 15, 4 replicas) both valid: the
// largest wins, capped by maxReplicas 5.
TEST(HpaMultiMetric, NoBackoffUpscaleCMNoBackoffCpu) {
  UpstreamCase tc;
  tc.min_replicas = 1;
  tc.max_replicas = 5;
  tc.cpu_target = 10;
  tc.metrics_target = {pods_metric("qps", "15.0")};
  tc.reported_levels = {20000, 10000, 30000};
  tc.reported_cpu_requests = 3;
  const HpaSyncResult r = tc.run();
  EXPECT_EQ(r.desired_replicas, 5);
  EXPECT_EQ(r.conditions, status_ok("SucceededRescale", true, "TooManyReplicas"));
  EXPECT_EQ(r.metric_proposals, (std::vector<std::optional<std::int32_t>>{600, 4}));
}

// upstream TestConditionInvalidSourceType: the unknown type alone.
TEST(HpaMultiMetric, ConditionInvalidSourceType) {
  UpstreamCase tc;
  tc.metrics_target = {cheddar_cheese()};
  tc.reported_levels = {20000};
  const HpaSyncResult r = tc.run();
  EXPECT_EQ(r.desired_replicas, 3);
  EXPECT_EQ(r.conditions, not_active("InvalidMetricSourceType"));
}

// upstream TestConditionFailedGetMetrics: each kind of metrics API failing
// alone gives its own ScalingActive reason, and no change.
TEST(HpaMultiMetric, ConditionFailedGetMetrics) {
  struct Case {
    std::string reason;
    std::vector<HpaMetricConfig> specs;  // empty: the cpu metric
    std::string api;
  };
  const std::vector<Case> cases = {
      {"FailedGetResourceMetric", {}, "Resource"},
      {"FailedGetPodsMetric", {pods_metric("qps", "15.0")}, "Pods"},
      {"FailedGetObjectMetric", {object_metric("qps", "Value", "15.0")}, "Object"},
      {"FailedGetExternalMetric", {external_metric("qps", "Value", "300m")}, "External"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.reason);
    UpstreamCase tc;
    tc.min_replicas = 1;
    tc.max_replicas = 100;
    tc.cpu_target = c.specs.empty() ? 10 : 0;
    tc.metrics_target = c.specs;
    tc.reported_levels = {100, 200, 300};
    tc.reported_cpu_requests = 3;
    tc.failing_apis = {c.api};
    const HpaSyncResult r = tc.run();
    EXPECT_EQ(r.desired_replicas, 3);
    EXPECT_EQ(r.conditions, not_active(c.reason));
  }
}

// Not an upstream case: the rule's two sides at once. One valid metric asks
// for fewer replicas and one for more while a third fails: the largest valid
// proposal is above the current count, so the HPA scales up to it.
TEST(HpaMultiMetric, LargestValidProposalWinsWhileAnotherFails) {
  UpstreamCase tc;
  tc.min_replicas = 1;
  tc.max_replicas = 10;
  tc.spec_replicas = 4;
  tc.status_replicas = 4;
  tc.cpu_target = 50;  // 25% of requests: 2
  tc.metrics_target = {pods_metric("qps", "100m"),  // 250m per pod against 100m: 10
                       external_metric("queue", "Value", "1")};
  tc.reported_levels = {250, 250, 250, 250};
  tc.reported_cpu_requests = 4;
  tc.failing_apis = {"External"};
  const HpaSyncResult r = tc.run();
  EXPECT_EQ(r.metric_proposals, (std::vector<std::optional<std::int32_t>>{2, 10, std::nullopt}));
  // The legacy scale-up limit: max(2 x 4, 4) = 8.
  EXPECT_EQ(r.desired_replicas, 8);
  EXPECT_EQ(r.conditions, status_ok("SucceededRescale", true, "ScaleUpLimit"));
}

}  // namespace
}  // namespace drsim

// HpaController::sync in the order of upstream's reconcileAutoscaler
// (pkg/controller/podautoscaler/horizontal.go): a target at 0 replicas turns
// scaling off, and a count outside [minReplicas, maxReplicas] is corrected to
// the bound before, and without, reading any metric; only a count within the
// bounds goes through the metrics, whose failure then leaves it unchanged.
#include "models/kube/hpa_controller.h"

#include <gtest/gtest.h>

#include <string>

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Long after every pod started, so that no CPU sample is set aside as
// initialising.
constexpr SimTime kNow = at(std::chrono::hours(1));

HpaController controller(std::int32_t min_replicas, std::int32_t max_replicas) {
  HpaConfig config;
  config.name = "web";
  config.target = "web";
  config.min_replicas = min_replicas;
  config.max_replicas = max_replicas;
  HpaMetricConfig cpu;
  cpu.resource.emplace();
  cpu.resource->target.average_utilization = 50;
  config.metrics.push_back(cpu);
  return HpaController(config, HpaControllerConfig{});
}

// `replicas` pods requesting 1000m that each use `used_milli`.
HpaSyncInput with_metrics(std::int32_t replicas, std::int64_t used_milli) {
  HpaSyncInput in;
  in.current_replicas = replicas;
  in.now = kNow;
  for (std::int32_t i = 0; i < replicas; ++i) {
    const std::string name = "web-" + std::to_string(i);
    in.pods.push_back(PodInfo::single_container(name, 1000));
    in.cpu.push_back(PodMetric{.pod = name, .value_milli = used_milli, .timestamp = kNow});
  }
  return in;
}

// What the controller sees when no metric can be read: no pods are listed.
HpaSyncInput without_metrics(std::int32_t replicas) {
  HpaSyncInput in;
  in.current_replicas = replicas;
  in.now = kNow;
  return in;
}

TEST(HpaControllerSync, AboveMaxIsCorrectedWithoutMetrics) {
  HpaController hpa = controller(2, 10);
  const HpaSyncResult r = hpa.sync(without_metrics(12));
  EXPECT_TRUE(r.rescale);
  EXPECT_EQ(r.desired_replicas, 10);
  EXPECT_EQ(r.message, "Current number of replicas above Spec.MaxReplicas");
}

TEST(HpaControllerSync, BelowMinIsCorrectedWithoutMetrics) {
  HpaController hpa = controller(3, 10);
  const HpaSyncResult r = hpa.sync(without_metrics(1));
  EXPECT_TRUE(r.rescale);
  EXPECT_EQ(r.desired_replicas, 3);
  EXPECT_EQ(r.message, "Current number of replicas below Spec.MinReplicas");
}

TEST(HpaControllerSync, ZeroReplicasDisablesScaling) {
  HpaController hpa = controller(2, 10);
  const HpaSyncResult r = hpa.sync(without_metrics(0));
  EXPECT_FALSE(r.rescale);
  EXPECT_EQ(r.desired_replicas, 0);
  EXPECT_EQ(r.message, "scaling is disabled since the replica count of the target is zero");
}

TEST(HpaControllerSync, WithinBoundsMissingMetricsKeepTheCount) {
  HpaController hpa = controller(2, 10);
  const HpaSyncResult r = hpa.sync(without_metrics(5));
  EXPECT_FALSE(r.rescale);
  EXPECT_EQ(r.desired_replicas, 5);
  EXPECT_TRUE(r.message.starts_with("invalid metrics (1 of 1): ")) << r.message;
}

TEST(HpaControllerSync, TheBoundsWinOverValidMetrics) {
  // The same usage (200% of the 50% target) read within the bounds asks for
  // more replicas, limited by max...
  HpaController in_range = controller(2, 10);
  const HpaSyncResult scaled = in_range.sync(with_metrics(4, 1000));
  ASSERT_TRUE(scaled.utilization.has_value());
  EXPECT_EQ(*scaled.utilization, 100);
  EXPECT_EQ(scaled.desired_replicas, 8);
  // ...while above max the metrics are not read at all: straight to max.
  HpaController above = controller(2, 10);
  const HpaSyncResult r = above.sync(with_metrics(12, 1000));
  EXPECT_TRUE(r.rescale);
  EXPECT_EQ(r.desired_replicas, 10);
  EXPECT_FALSE(r.utilization.has_value());
  EXPECT_EQ(r.message, "Current number of replicas above Spec.MaxReplicas");
}

}  // namespace
}  // namespace drsim

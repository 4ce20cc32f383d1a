// drsim's kube records: what the defaults mean to the calculators, and what validate() refuses.
#include "models/kube/kube_records.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace drsim {
namespace {

using std::chrono::seconds;

TEST(KubeRecords, ADefaultPodIsTheUpstreamTestsSingleContainerPod) {
  KubePodRecord record;
  record.name = "web-0";
  record.cpu_request = MilliQuantity{1000};
  const PodInfo pod = record.to_pod_info();
  const PodInfo upstream = PodInfo::single_container("web-0", 1000);
  EXPECT_EQ(pod.name, upstream.name);
  EXPECT_EQ(pod.phase, upstream.phase);
  ASSERT_TRUE(pod.ready.has_value());
  EXPECT_EQ(pod.ready->status, ConditionStatus::kTrue);
  EXPECT_EQ(pod.ready->last_transition, upstream.ready->last_transition);
  EXPECT_EQ(pod.start_time, upstream.start_time);
  ASSERT_EQ(pod.containers.size(), 1u);
  EXPECT_EQ(pod.containers[0].name, "main");
  EXPECT_EQ(pod.containers[0].requests.cpu_milli, 1000);
  EXPECT_FALSE(pod.containers[0].requests.memory_milli.has_value());
  EXPECT_FALSE(pod.pod_requests.any());
}

TEST(KubeRecords, AbsentReadinessAndStartAreKeptApartFromTheirDefaults) {
  KubePodRecord record;
  record.name = "p";
  record.ready.reset();       // no Ready condition at all
  record.start_time.reset();  // status.startTime not set
  record.ready_transition = seconds(-30);
  const PodInfo pod = record.to_pod_info();
  EXPECT_FALSE(pod.ready.has_value());
  EXPECT_FALSE(pod.start_time.has_value());

  record.ready = ConditionStatus::kUnknown;
  EXPECT_EQ(record.to_pod_info().ready->last_transition, at(seconds(-30)));
}

TEST(KubeRecords, ContainersReplaceTheOneContainerShorthand) {
  KubePodRecord record;
  record.name = "p";
  record.containers = std::vector<KubeContainerRecord>{{"app", MilliQuantity{250}, std::nullopt, false},
                                                       {"proxy", MilliQuantity{100}, MilliQuantity{5}, false}};
  record.init_containers = {{"sidecar", MilliQuantity{50}, std::nullopt, true}};
  record.pod_memory_request = MilliQuantity{7};
  EXPECT_TRUE(record.validate().empty());
  const PodInfo pod = record.to_pod_info();
  ASSERT_EQ(pod.containers.size(), 2u);
  EXPECT_EQ(pod.containers[1].name, "proxy");
  EXPECT_EQ(pod.containers[1].requests.memory_milli, 5);
  ASSERT_EQ(pod.init_containers.size(), 1u);
  EXPECT_TRUE(pod.init_containers[0].restart_always);
  EXPECT_EQ(pod.pod_requests.memory_milli, 7);
  EXPECT_FALSE(pod.pod_requests.cpu_milli.has_value());
}

TEST(KubeRecords, ValidateRefusesBothShapesAndRegularSidecars) {
  KubePodRecord record;
  record.name = "p";
  record.cpu_request = MilliQuantity{1};
  record.containers = std::vector<KubeContainerRecord>{{"app", std::nullopt, std::nullopt, true}};
  const auto problems = record.validate();
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].field, "containers");
  EXPECT_EQ(problems[1].field, "containers[0].restart_always");
}

TEST(KubeRecords, ASampleWithoutTimestampWasTakenNow) {
  KubePodMetricRecord sample{"p", MilliQuantity{300}, std::nullopt};
  const PodMetric now = sample.to_pod_metric(at(seconds(3600)));
  EXPECT_EQ(now.timestamp, at(seconds(3600)));
  EXPECT_EQ(now.window, std::chrono::minutes(1));
  EXPECT_EQ(now.value_milli, 300);
  sample.timestamp = seconds(10);
  EXPECT_EQ(sample.to_pod_metric(at(seconds(3600))).timestamp, at(seconds(10)));
  sample.window = seconds(-1);
  ASSERT_EQ(sample.validate().size(), 1u);
  EXPECT_EQ(sample.validate()[0].field, "window");
}

TEST(KubeRecords, AZoneDefaultsToAHealthyEmptyUnlimitedZone) {
  const ZoneState zone = KubeZoneRecord{"az-1"}.to_zone_state();
  EXPECT_EQ(zone.name, "az-1");
  EXPECT_TRUE(zone.can_take_pods);
  EXPECT_FALSE(zone.free_capacity.has_value());
  EXPECT_EQ(zone.current, 0u);
}

TEST(KubeRecords, PhasesAndConditionsReadInAnyCase) {
  EXPECT_EQ(parse_pod_phase("pending"), PodPhase::kPending);
  EXPECT_EQ(parse_pod_phase("SUCCEEDED"), PodPhase::kSucceeded);
  EXPECT_STREQ(to_string(PodPhase::kFailed), "Failed");
  EXPECT_EQ(parse_condition_status("unknown"), ConditionStatus::kUnknown);
  EXPECT_STREQ(to_string(ConditionStatus::kFalse), "False");
  EXPECT_THROW(parse_pod_phase("Runing"), std::invalid_argument);
  EXPECT_THROW(parse_condition_status("yes"), std::invalid_argument);
}

}  // namespace
}  // namespace drsim

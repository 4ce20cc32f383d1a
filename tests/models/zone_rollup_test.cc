#include "models/results/zone_rollup.h"

#include <gtest/gtest.h>

namespace drsim {
namespace {

TopologyConfig two_regions() {
  TopologyConfig t;
  t.regions.push_back(RegionConfig{"r1", {ZoneConfig{"a"}, ZoneConfig{"b"}}});
  t.regions.push_back(RegionConfig{"r2", {ZoneConfig{"c"}}});
  return t;
}

void service_kpis(Recorder& rec, const char* service, const char* zone, double peak, double overload_s) {
  const Labels labels{{"service", service}, {"zone", zone}};
  rec.kpi("zone.utilization_mean", labels, peak / 2);
  rec.kpi("zone.utilization_peak", labels, peak);
  rec.kpi("zone.overload_s", labels, overload_s);
}

TEST(ZoneRollup, PeaksAreTheLargestAndOverloadSecondsTheSumOverServices) {
  Recorder rec;
  service_kpis(rec, "api", "a", 0.75, 10);
  service_kpis(rec, "db", "a", 0.5, 2.5);
  service_kpis(rec, "api", "b", 1.0, 0);
  record_zone_rollups(rec, two_regions());

  EXPECT_EQ(rec.find_kpi("zone.utilization_peak", {{"zone", "a"}})->value, 0.75);
  EXPECT_EQ(rec.find_kpi("zone.overload_service_s", {{"zone", "a"}})->value, 12.5);
  EXPECT_EQ(rec.find_kpi("zone.utilization_peak", {{"zone", "b"}})->value, 1.0);
  EXPECT_EQ(rec.find_kpi("zone.overload_service_s", {{"zone", "b"}})->value, 0);
  EXPECT_EQ(rec.find_kpi("region.utilization_peak", {{"region", "r1"}})->value, 1.0);
  EXPECT_EQ(rec.find_kpi("region.overload_service_s", {{"region", "r1"}})->value, 12.5);
  // Zone c has no services: no roll-up for it or its region.
  EXPECT_EQ(rec.find_kpi("zone.utilization_peak", {{"zone", "c"}}), nullptr);
  EXPECT_EQ(rec.find_kpi("region.utilization_peak", {{"region", "r2"}}), nullptr);
  // The per-service KPIs are untouched.
  EXPECT_EQ(rec.find_kpi("zone.utilization_peak", {{"service", "db"}, {"zone", "a"}})->value, 0.5);
}

TEST(ZoneRollup, RollingUpTwiceGivesTheSameFigures) {
  Recorder rec;
  service_kpis(rec, "api", "a", 0.5, 3);
  record_zone_rollups(rec, two_regions());
  const std::size_t count = rec.kpis().size();
  record_zone_rollups(rec, two_regions());
  EXPECT_EQ(rec.kpis().size(), count);
  EXPECT_EQ(rec.find_kpi("zone.overload_service_s", {{"zone", "a"}})->value, 3);
}

}  // namespace
}  // namespace drsim

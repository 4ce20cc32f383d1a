#include "models/topology/failure_domains.h"

#include <gtest/gtest.h>

#include "sim/simulation.h"
#include "tests/models/topology_fixture.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Runs `action` at time t through a plain scheduled event.
template <class F>
void at_time(Simulation& sim, Duration t, F action) {
  sim.schedule_at(SimTime{t}, std::move(action));
}

std::vector<std::pair<double, double>> points(const Recorder& rec, std::string_view metric, const Labels& labels) {
  for (const auto& s : rec.series_list()) {
    if (s.metric == metric && s.labels == labels) {
      std::vector<std::pair<double, double>> out;
      for (std::size_t i = 0; i < s.t_ns.size(); ++i) out.emplace_back(s.t_ns[i] / 1e9, s.value[i]);
      return out;
    }
  }
  ADD_FAILURE() << "no series " << metric;
  return {};
}

double kpi(const Recorder& rec, std::string_view name, const Labels& labels = {}) {
  const auto* k = rec.find_kpi(name, labels);
  if (k == nullptr) {
    ADD_FAILURE() << "no KPI " << name;
    return -1;
  }
  return k->value;
}

TEST(FailureDomains, RecordsZoneStateChangesAndDowntime) {
  Simulation sim;
  auto& fd = sim.add<FailureDomains>("topology", Topology(testing::three_region_config()));
  at_time(sim, 10s, [&] { fd.fail_zone(0); });
  at_time(sim, 40s, [&] { fd.recover_zone(0); });
  sim.run_until(SimTime{100s});
  sim.finish();

  const Labels a{{"region", "r1"}, {"zone", "a"}};
  EXPECT_EQ(points(sim.recorder(), "zone.up", a),
            (std::vector<std::pair<double, double>>{{0, 1}, {10, 0}, {40, 1}}));
  EXPECT_EQ(points(sim.recorder(), "region.zones_up", {{"region", "r1"}}),
            (std::vector<std::pair<double, double>>{{0, 2}, {10, 1}, {40, 2}}));
  EXPECT_DOUBLE_EQ(kpi(sim.recorder(), "zone.downtime_s", a), 30);
  EXPECT_DOUBLE_EQ(kpi(sim.recorder(), "zone.availability", a), 0.7);
  EXPECT_DOUBLE_EQ(kpi(sim.recorder(), "region.downtime_s", {{"region", "r1"}}), 0);
}

TEST(FailureDomains, AZoneStaysDownWhileEitherCauseHolds) {
  Simulation sim;
  auto& fd = sim.add<FailureDomains>("topology", Topology(testing::three_region_config()));
  at_time(sim, 10s, [&] { fd.fail_region(0); });
  at_time(sim, 20s, [&] { fd.fail_zone(0); });
  at_time(sim, 30s, [&] { fd.recover_region(0); });  // zone a still failed by itself
  at_time(sim, 50s, [&] { fd.recover_zone(0); });
  sim.run_until(SimTime{60s});
  sim.finish();
  EXPECT_DOUBLE_EQ(kpi(sim.recorder(), "zone.downtime_s", {{"region", "r1"}, {"zone", "a"}}), 40);
  EXPECT_DOUBLE_EQ(kpi(sim.recorder(), "zone.downtime_s", {{"region", "r1"}, {"zone", "b"}}), 20);
  EXPECT_DOUBLE_EQ(kpi(sim.recorder(), "region.downtime_s", {{"region", "r1"}}), 20);
}

TEST(FailureDomains, LinkCutsPartitionAndDegradationChangesRtt) {
  Simulation sim;
  auto& fd = sim.add<FailureDomains>("topology", Topology(testing::three_region_config()));
  at_time(sim, 5s, [&] { fd.degrade_link(0, LinkDegradation{50ms, Ratio{0.02}, Bandwidth{1e9}}); });
  at_time(sim, 10s, [&] { fd.cut_link(0); });
  at_time(sim, 11s, [&] { fd.cut_link(2); });
  at_time(sim, 20s, [&] { fd.restore_link(0); });
  sim.run_until(SimTime{30s});
  sim.finish();
  const Recorder& rec = sim.recorder();
  EXPECT_EQ(points(rec, "link.rtt_s", {{"link", "r1-r2"}}),
            (std::vector<std::pair<double, double>>{{0, 0.028}, {5, 0.078}, {20, 0.028}}));
  EXPECT_EQ(points(rec, "link.loss", {{"link", "r1-r2"}}),
            (std::vector<std::pair<double, double>>{{0, 0}, {5, 0.02}, {20, 0}}));
  EXPECT_EQ(points(rec, "topology.partitions", {}),
            (std::vector<std::pair<double, double>>{{0, 1}, {11, 2}, {20, 1}}));
  EXPECT_DOUBLE_EQ(kpi(rec, "link.downtime_s", {{"link", "r1-r2"}}), 10);
  EXPECT_DOUBLE_EQ(kpi(rec, "link.downtime_s", {{"link", "r1-r3"}}), 19);
  EXPECT_DOUBLE_EQ(kpi(rec, "topology.max_partitions"), 2);
}

TEST(FailureDomains, NotifiesListenersOnEveryChange) {
  Simulation sim;
  auto& fd = sim.add<FailureDomains>("topology", Topology(testing::three_region_config()));
  std::vector<bool> seen;
  fd.on_change([&] { seen.push_back(fd.zone_up(0)); });
  at_time(sim, 1s, [&] { fd.fail_zone(0); });
  at_time(sim, 2s, [&] { fd.recover_zone(0); });
  sim.run_until(SimTime{3s});
  EXPECT_EQ(seen, (std::vector<bool>{true, false, true}));  // start, fail, recover
}

TEST(FailureDomains, KpisCoverOnlyTheTimeRunWhenStoppedEarly) {
  Simulation sim(SimulationOptions{.max_events = 2});
  auto& fd = sim.add<FailureDomains>("topology", Topology(testing::three_region_config()));
  at_time(sim, 10s, [&] { fd.fail_zone(0); });
  at_time(sim, 20s, [] {});
  at_time(sim, 90s, [] {});
  const auto outcome = sim.run_until(SimTime{100s});
  sim.finish();
  EXPECT_EQ(outcome.reason, StopReason::kMaxEvents);
  EXPECT_DOUBLE_EQ(kpi(sim.recorder(), "zone.downtime_s", {{"region", "r1"}, {"zone", "a"}}), 10);
  EXPECT_DOUBLE_EQ(kpi(sim.recorder(), "zone.availability", {{"region", "r1"}, {"zone", "a"}}), 0.5);
}

}  // namespace
}  // namespace drsim

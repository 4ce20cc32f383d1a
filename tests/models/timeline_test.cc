#include "models/actions/timeline.h"

#include <gtest/gtest.h>

#include "models/actions/action_catalog.h"
#include "models/topology/failure_domains.h"
#include "sim/simulation.h"
#include "tests/models/topology_fixture.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

ActionConfig action(std::string name, std::string kind, ActionTarget target) {
  ActionConfig a;
  a.name = std::move(name);
  a.action = std::move(kind);
  a.target = std::move(target);
  return a;
}

TEST(Timeline, AppliesAndUndoesStepsAtTheirTimesBeforeOtherEvents) {
  Simulation sim;
  std::vector<std::string> log;
  auto& timeline = sim.add<Timeline>(
      "timeline", std::vector<TimelineStep>{
                      TimelineStep{action("outage", "zone:fail", {.zone = "a"}), SimTime{10s}, SimTime{20s}},
                  });
  timeline.on("zone:fail", [&](const ActionConfig& a, ActionPhase phase) {
    log.push_back(a.name + (phase == ActionPhase::kApply ? " apply@" : " undo@") +
                  std::to_string(to_ns(sim.now()) / 1'000'000'000));
  });
  // An ordinary event at the same instant runs after the fault is applied.
  sim.schedule_at(SimTime{10s}, [&] { log.push_back("other@10"); });
  sim.run_until(SimTime{30s});
  sim.finish();
  EXPECT_EQ(log, (std::vector<std::string>{"outage apply@10", "other@10", "outage undo@20"}));

  const auto& events = sim.recorder().events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events.kind[0], "zone:fail");
  EXPECT_EQ(events.detail[0], "outage: zone=a");
  EXPECT_EQ(events.kind[1], "zone:fail:end");
  EXPECT_EQ(sim.recorder().find_kpi("timeline.actions_applied")->value, 1);
}

TEST(Timeline, AStepNobodyHandlesFailsAtStart) {
  // An action the catalog does not know, and no on() handler for it.
  Simulation sim;
  sim.add<Timeline>("timeline", std::vector<TimelineStep>{
                                    TimelineStep{action("x", "made:up", {.zone = "a"}), SimTime{1s}, std::nullopt}});
  EXPECT_THROW(
      {
        try {
          sim.initialize();
        } catch (const SimulationError& e) {
          EXPECT_STREQ(e.what(), "timeline step \"x\": no model handles action \"made:up\"");
          throw;
        }
      },
      SimulationError);
}

TEST(Timeline, ACatalogActionWithoutItsModelFailsWhenItRuns) {
  // The catalog's handler is there, but the context has no topology: a
  // builder's bug, reported at the step rather than ignored.
  Simulation sim;
  sim.add<Timeline>("timeline", std::vector<TimelineStep>{
                                    TimelineStep{action("x", "zone:fail", {.zone = "a"}), SimTime{1s}, std::nullopt}});
  EXPECT_THROW(sim.run_until(SimTime{2s}), SimulationError);
}

TEST(Timeline, AnOnHandlerTakesThePlaceOfTheCatalogs) {
  Simulation sim;
  auto& timeline = sim.add<Timeline>(
      "timeline",
      std::vector<TimelineStep>{TimelineStep{action("x", "zone:fail", {.zone = "a"}), SimTime{1s}, std::nullopt}});
  int calls = 0;
  timeline.on("zone:fail", [&](const ActionConfig&, ActionPhase) { ++calls; });
  sim.run_until(SimTime{2s});
  EXPECT_EQ(calls, 1);
}

TEST(Timeline, FailureDomainsHandleEveryTopologyActionOfTheCatalog) {
  Simulation sim;
  auto& fd = sim.add<FailureDomains>("topology", Topology(testing::three_region_config()));
  std::vector<TimelineStep> steps;
  for (const ActionSpecInfo& info : action_catalog()) {
    if (info.target.contains(TargetField::kService)) continue;     // the services' actions (service_test.cc)
    if (info.target.contains(TargetField::kPopulation)) continue;  // routing:weight (routing_actions.cc)
    if (info.target.contains(TargetField::kDatabase)) continue;    // the databases' (database.cc)
    if (info.target.contains(TargetField::kVendor)) continue;      // cdn:fail (cdn_actions.cc)
    if (info.name == "flow:transfer") continue;                    // network fidelity's bulk copies (flow_transfers.cc)
    ActionTarget target;
    if (info.target == TargetField::kZone) target.zone = "a";
    if (info.target == TargetField::kRegion) target.region = "r1";
    if (info.target == TargetField::kLink) target.link = "r1-r2";
    ActionConfig a = action(std::string(info.name), std::string(info.name), target);
    if (info.name == "link:degrade") a.latency = 10ms;
    steps.push_back(TimelineStep{a, SimTime{1s}, std::nullopt});
  }
  auto& timeline = sim.add<Timeline>("timeline", std::move(steps));
  timeline.context().domains = &fd;
  EXPECT_NO_THROW(sim.run_until(SimTime{2s}));
}

TEST(Timeline, ARegionFailureWithADurationRecoversItsZones) {
  Simulation sim;
  auto& fd = sim.add<FailureDomains>("topology", Topology(testing::three_region_config()));
  auto& timeline =
      sim.add<Timeline>("timeline", std::vector<TimelineStep>{TimelineStep{
                                        action("loss", "region:fail", {.region = "r1"}), SimTime{5s}, SimTime{15s}}});
  timeline.context().domains = &fd;
  sim.run_until(SimTime{10s});
  EXPECT_FALSE(fd.zone_up(0));
  EXPECT_FALSE(fd.zone_up(1));
  EXPECT_TRUE(fd.zone_up(2));
  sim.run_until(SimTime{20s});
  EXPECT_TRUE(fd.zone_up(0));
  EXPECT_TRUE(fd.zone_up(1));
}

}  // namespace
}  // namespace drsim

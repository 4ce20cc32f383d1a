// A global traffic scheduler's routing rules in a Raft group (docs/sources.md
// section 5): a routing change made while the group has no quorum waits for
// a leader. Asserted from the series and KPIs the run records.
#include <gtest/gtest.h>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::range;
using test_support::series;

constexpr const char* kScenario = "scenarios/routing_rules_quorum_loss.yaml";

double kpi(const Recorder& rec, std::string_view name, const Labels& labels) {
  const Recorder::Kpi* k = rec.find_kpi(name, labels);
  EXPECT_NE(k, nullptr) << name;
  return k == nullptr ? -1 : k->value;
}

// The control zones of east and south fail at 120 s for 180 s; north is emptied at 180 s. The change waits
// for the election after 300 s (within [T, 2T] = [1 s, 2 s] plus the votes' round trip), then for the next
// retry (every second from 180 s), then one commit (29 ms).
TEST(RoutingRulesQuorumLoss, AWeightChangeWaitsUntilTheQuorumReturns) {
  const RunResult run = run_scenario(load_scenario_file(kScenario));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.simulation->recorder();
  const Labels users{{"population", "users"}};
  const double delay = kpi(rec, "routing.max_change_delay_seconds", users);
  EXPECT_GT(delay, 120 + 1);
  EXPECT_LT(delay, 120 + 2 + 1 + 0.1);
  EXPECT_EQ(kpi(rec, "routing.changes_delayed", users), 1);
  EXPECT_EQ(kpi(rec, "routing.changes", users), 2);  // the weight to 0, and back at 420 s
  EXPECT_GT(kpi(rec, "raft.unavailable_seconds", {{"group", "traffic-scheduler"}}), 180);

  // North keeps its third of 300 requests/s until the change is committed, then gets none until 420 s.
  const auto north = series(rec, "service.arrivals", {{"service", "payments"}, {"zone", "north-a"}});
  EXPECT_GT(range(north, 180s, 300s).min, 60);
  EXPECT_EQ(range(north, 180s + std::chrono::milliseconds(static_cast<int>(delay * 1000)) + 1s, 420s).max, 0);
  EXPECT_GT(range(north, 421s, 540s).min, 60);
  const auto pending = series(rec, "routing.pending_changes", users);
  EXPECT_EQ(range(pending, 181s, 300s).min, 1);
  EXPECT_EQ(range(pending, 304s, 420s).max, 0);
}

TEST(RoutingRulesQuorumLoss, WithoutARulesStoreTheChangeAppliesAtOnce) {
  const RunResult run = run_scenario(load_scenario_file(kScenario, {"spec.load[0].routing.rulesStore=''"}));
  const Recorder& rec = run.simulation->recorder();
  const auto north = series(rec, "service.arrivals", {{"service", "payments"}, {"zone", "north-a"}});
  EXPECT_GT(range(north, 170s, 180s).min, 60);
  EXPECT_EQ(range(north, 181s, 420s).max, 0);
  EXPECT_EQ(rec.find_kpi("routing.changes", {{"population", "users"}}), nullptr);
}

}  // namespace
}  // namespace drsim

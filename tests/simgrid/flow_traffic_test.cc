// FlowTraffic: what flows move, counted per stream and per link in the
// windows where they move it, against SimGrid's CM02 closed form.
#include "models/topology/flow_traffic.h"

#include <gtest/gtest.h>

#include "models/topology/flow_platform.h"
#include "sim/simgrid/simgrid_flow_network.h"
#include "sim/simulation.h"
#include "tests/drills/recorded_series.h"
#include "tests/simgrid/flow_fixture.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::series;

// 200 MB over the fixture's 1 Gbit/s line in CM02: the latency (14.5 ms),
// then 125 MB/s / 1.05; done at 1.6945 s. Window 0 counts what moved up to
// its last nanosecond, window 1 the rest.
TEST(FlowTraffic, CountsBytesInTheWindowsWhereTheyMove) {
  const Topology topology(testing::two_region_config());
  Simulation sim;
  SimGridFlowNetwork net(sim, make_flow_platform(topology, FlowPlatformOptions{.model = FlowModel::kCm02}));
  auto& traffic = sim.add<FlowTraffic>(net, topology, 1s);
  FlowNetwork& copy = traffic.stream({{"transfer", "copy"}});
  traffic.stream({{"transfer", "idle"}});
  std::optional<FlowOutcome> done;
  sim.schedule_at(kSimStart, [&] { copy.start_flow(0, 1, 200'000'000, [&](const FlowOutcome& o) { done = o; }); });
  ASSERT_TRUE(net.run_until(at(3s)).complete());
  sim.finish();
  ASSERT_TRUE(done && done->completed);

  const double rate = 125e6 / testing::kCrossTraffic;
  const double window0 = (1 - 1e-9 - 0.0145) * rate;
  const Recorder& rec = sim.recorder();
  for (const Labels& labels : {Labels{{"transfer", "copy"}}, Labels{}}) {
    const auto bytes =
        labels.empty() ? series(rec, "link.flow_bytes", {{"link", "r1-r2"}}) : series(rec, "flow.bytes", labels);
    ASSERT_EQ(bytes.size(), 3u);
    EXPECT_NEAR(bytes.at(0), window0, 1);
    EXPECT_NEAR(bytes.at(to_ns(1s)), 200e6 - window0, 1);
    EXPECT_EQ(bytes.at(to_ns(2s)), 0);
  }
  const auto open = series(rec, "flow.open", {{"transfer", "copy"}});
  EXPECT_EQ(open.at(0), 1);
  EXPECT_NEAR(open.at(to_ns(1s)), 0.0145 + 200e6 / rate - 1, 1e-6);
  EXPECT_EQ(rec.find_kpi("flow.bytes_total", {{"transfer", "copy"}})->value, 200e6);
  EXPECT_EQ(rec.find_kpi("flow.flows_started", {{"transfer", "copy"}})->value, 1);
  EXPECT_EQ(rec.find_kpi("flow.flows_completed", {{"transfer", "copy"}})->value, 1);
  EXPECT_EQ(rec.find_kpi("flow.bytes_total", {{"transfer", "idle"}})->value, 0);
  EXPECT_EQ(traffic.bytes_moved(0), 200'000'000);
}

// A flow still open when the run ends counts what it moved up to the end.
TEST(FlowTraffic, AFlowOpenAtTheEndCountsWhatItMoved) {
  const Topology topology(testing::two_region_config());
  Simulation sim;
  SimGridFlowNetwork net(sim, make_flow_platform(topology, FlowPlatformOptions{.model = FlowModel::kCm02}));
  auto& traffic = sim.add<FlowTraffic>(net, topology, 1s);
  FlowNetwork& copy = traffic.stream({{"transfer", "copy"}});
  sim.schedule_at(kSimStart, [&] { copy.start_flow(0, 1, 1'000'000'000, nullptr); });
  ASSERT_TRUE(net.run_until(at(1500ms)).complete());
  sim.finish();
  const double moved = (1.5 - 0.0145) * 125e6 / testing::kCrossTraffic;
  EXPECT_NEAR(sim.recorder().find_kpi("flow.bytes_total", {{"transfer", "copy"}})->value, moved, 2);
  EXPECT_EQ(sim.recorder().find_kpi("flow.flows_completed", {{"transfer", "copy"}})->value, 0);
}

}  // namespace
}  // namespace drsim

// The network-fidelity loop: sharing, interleaving with ordinary events,
// link changes mid-flow, failures, and the promise that a run without flows
// never touches SimGrid. Figures are printed with a [figures] prefix.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "models/topology/failure_domains.h"
#include "models/topology/flow_platform.h"
#include "sim/errors.h"
#include "sim/simgrid/engine_lease.h"
#include "sim/simgrid/simgrid_flow_network.h"
#include "tests/simgrid/flow_fixture.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t k100MB = 100'000'000;

TEST(SimGridFlows, TwoEqualFlowsShareTheLink) {
  const FlowPlatform platform = testing::two_region_platform();
  const FlowOutcome single = testing::run_one_flow(platform, k100MB);

  Simulation sim;
  SimGridFlowNetwork net(sim, platform);
  std::vector<FlowOutcome> done;
  sim.schedule_at(kSimStart, [&] {
    for (int i = 0; i < 2; ++i) net.start_flow(0, 1, k100MB, [&](const FlowOutcome& o) { done.push_back(o); });
  });
  ASSERT_TRUE(net.run_until(at(60s)).complete());
  ASSERT_EQ(done.size(), 2u);
  // Latency (13.01 x 14.5 ms) is paid once by each, in parallel; the transfer
  // part takes twice as long because each flow gets half the bandwidth.
  const double latency = 13.01 * 0.0145;
  const double t1 = to_seconds(single.finished - single.started);
  const double t2 = to_seconds(done[0].finished - done[0].started);
  std::printf("[figures] one flow %.9f s, two equal flows %.9f s and %.9f s (ratio %.4f, transfer ratio %.6f)\n", t1,
              t2, to_seconds(done[1].finished - done[1].started), t2 / t1, (t2 - latency) / (t1 - latency));
  EXPECT_EQ(done[0].finished, done[1].finished);
  EXPECT_NEAR((t2 - latency) / (t1 - latency), 2.0, 1e-6);
  EXPECT_NEAR(t2, testing::lv08_seconds(0.0145, 125e6 / 2, k100MB), 1e-9);
}

TEST(SimGridFlows, FlowInterleavesWithOrdinaryEvents) {
  const FlowPlatform platform = testing::two_region_platform();
  const Duration alone = [&] {
    const FlowOutcome o = testing::run_one_flow(platform, k100MB);
    return o.finished - o.started;
  }();

  Simulation sim;
  SimGridFlowNetwork net(sim, platform);
  std::vector<std::pair<std::string, SimTime>> log;
  auto mark = [&](std::string what) { log.emplace_back(std::move(what), sim.now()); };
  sim.schedule_at(at(50ms), [&] { mark("before"); });
  sim.schedule_at(at(100ms), [&] {
    mark("start");
    net.start_flow(0, 1, k100MB, [&](const FlowOutcome& o) {
      mark("flow-done");
      EXPECT_TRUE(o.completed);
      EXPECT_EQ(o.started, at(100ms));
      sim.schedule_after(100ms, [&] { mark("after-flow"); });
    });
  });
  for (auto t : {500ms, 1000ms, 1500ms}) sim.schedule_at(at(t), [&] { mark("during"); });
  sim.schedule_at(at(5s), [&] { mark("after"); });
  const RunOutcome run = net.run_until(at(10s));
  ASSERT_TRUE(run.complete());
  EXPECT_EQ(sim.now(), at(10s));

  const SimTime done_at = at(100ms) + alone;
  const std::vector<std::pair<std::string, SimTime>> expected = {
      {"before", at(50ms)},   {"start", at(100ms)},   {"during", at(500ms)},
      {"during", at(1000ms)}, {"flow-done", done_at}, {"after-flow", done_at + 100ms},
      {"during", at(1500ms)}, {"after", at(5s)},
  };
  ASSERT_EQ(log.size(), expected.size());
  for (std::size_t i = 0; i < log.size(); ++i) {
    EXPECT_EQ(log[i].first, expected[i].first) << i;
    EXPECT_EQ(log[i].second, expected[i].second) << log[i].first;
  }
  std::printf("[figures] flow started at 0.1 s completed at %lld ns (alone: %lld ns after start)\n",
              static_cast<long long>(to_ns(log[4].second)), static_cast<long long>(to_ns(alone)));
}

// Degradation through the failure domains (link:degrade's path): the flow
// platform follows the FailureDomains component.
TEST(SimGridFlows, LinkDegradationMidFlowSlowsIt) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("domains", Topology(testing::two_region_config()));
  SimGridFlowNetwork net(sim, make_flow_platform(domains.topology()));
  follow_failure_domains(domains, net);
  std::optional<FlowOutcome> result;
  sim.schedule_at(kSimStart, [&] { net.start_flow(0, 1, k100MB, [&](const FlowOutcome& o) { result = o; }); });
  sim.schedule_at(at(500ms), [&] { domains.degrade_link(0, LinkDegradation{0ns, std::nullopt, Bandwidth{0.5e9}}); });
  ASSERT_TRUE(net.run_until(at(60s)).complete());
  ASSERT_TRUE(result && result->completed);
  // Closed form: latency 13.01 x 14.5 ms, then 0.97 x 125 MB/s / 1.05 until
  // 0.5 s, then 0.97 x 62.5 MB/s / 1.05 for what is left (flow_fixture.h).
  const double latency = 13.01 * 0.0145;
  const double sent = (0.5 - latency) * testing::lv08_rate(0.0145, 125e6);
  const double expected = 0.5 + (k100MB - sent) / testing::lv08_rate(0.0145, 62.5e6);
  const double undegraded = testing::lv08_seconds(0.0145, 125e6, k100MB);
  const double got = to_seconds(result->finished);
  std::printf("[figures] degraded to 500 Mbps at 0.5 s: done at %.9f s (closed form %.9f s, undegraded %.9f s)\n", got,
              expected, undegraded);
  EXPECT_GT(got, undegraded + 0.4);
  EXPECT_NEAR(got, expected, 1e-6);
}

TEST(SimGridFlows, CutLinkFailsItsFlowsAndLaterFlowsOnIt) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("domains", Topology(testing::two_region_config()));
  SimGridFlowNetwork net(sim, make_flow_platform(domains.topology()));
  follow_failure_domains(domains, net);
  std::vector<FlowOutcome> done;
  auto record = [&](const FlowOutcome& o) { done.push_back(o); };
  sim.schedule_at(kSimStart, [&] { net.start_flow(0, 1, k100MB, record); });
  sim.schedule_at(at(500ms), [&] { domains.cut_link(0); });
  sim.schedule_at(at(600ms), [&] { net.start_flow(1, 0, k100MB, record); });
  sim.schedule_at(at(700ms), [&] { domains.restore_link(0); });
  sim.schedule_at(at(800ms), [&] { net.start_flow(1, 0, 1000, record); });
  ASSERT_TRUE(net.run_until(at(60s)).complete());
  ASSERT_EQ(done.size(), 3u);
  EXPECT_FALSE(done[0].completed);
  EXPECT_EQ(done[0].finished, at(500ms));
  // Sent until 0.5 s: (0.5 - 13.01 x 14.5 ms) x 0.97 x 125 MB/s / 1.05.
  const double sent = (0.5 - 13.01 * 0.0145) * testing::lv08_rate(0.0145, 125e6);
  EXPECT_NEAR(static_cast<double>(done[0].bytes_remaining), k100MB - sent, 2.0);
  EXPECT_FALSE(done[1].completed);
  EXPECT_EQ(done[1].finished, at(600ms));
  EXPECT_EQ(done[1].bytes_remaining, k100MB);
  EXPECT_TRUE(done[2].completed);
  EXPECT_EQ(net.open_flows(), 0u);
}

TEST(SimGridFlows, ARunWithoutFlowsNeverStartsSimGrid) {
  const std::uint64_t engines_before = SimGridFlowNetwork::engines_created();
  Simulation sim;
  SimGridFlowNetwork net(sim, testing::two_region_platform());
  int ran = 0;
  for (int i = 1; i <= 100; ++i) sim.schedule_at(at(i * 10ms), [&] { ++ran; });
  net.set_link_bandwidth(0, Bandwidth{2e9});  // recorded for later, SimGrid untouched
  const RunOutcome run = net.run_until(at(5s));
  EXPECT_TRUE(run.complete());
  EXPECT_EQ(run.events, 100u);
  EXPECT_EQ(ran, 100);
  EXPECT_EQ(sim.now(), at(5s));
  EXPECT_FALSE(net.engine_started());
  EXPECT_EQ(SimGridFlowNetwork::engines_created(), engines_before);
  EXPECT_FALSE(simgrid_backend::EngineLease::busy());
}

TEST(SimGridFlows, ASecondConcurrentUseFailsWithAClearError) {
  Simulation sim;
  SimGridFlowNetwork net(sim, testing::two_region_platform());
  std::string message;
  sim.schedule_at(kSimStart, [&] { net.start_flow(0, 1, 1000, nullptr); });
  sim.schedule_at(at(1ms), [&] {
    // Another simulation wanting SimGrid while this one holds it.
    Simulation other;
    SimGridFlowNetwork other_net(other, testing::two_region_platform());
    other.schedule_at(kSimStart, [&] { other_net.start_flow(0, 1, 1000, nullptr); });
    try {
      other_net.run_until(at(1s));
    } catch (const SimulationError& e) {
      message = e.what();
    }
  });
  ASSERT_TRUE(net.run_until(at(1s)).complete());
  EXPECT_NE(message.find("one network-fidelity simulation"), std::string::npos) << message;
  EXPECT_FALSE(simgrid_backend::EngineLease::busy());
}

TEST(SimGridFlows, AHandlerErrorInsideTheActorSurfacesAndReleasesTheEngine) {
  {
    Simulation sim;
    SimGridFlowNetwork net(sim, testing::two_region_platform());
    sim.schedule_at(kSimStart, [&] { net.start_flow(0, 1, k100MB, nullptr); });
    sim.schedule_at(at(300ms), [] { throw std::runtime_error("boom"); });
    EXPECT_THROW(net.run_until(at(10s)), HandlerError);
  }
  EXPECT_FALSE(simgrid_backend::EngineLease::busy());
  const FlowOutcome after = testing::run_one_flow(testing::two_region_platform(), 1000);
  EXPECT_TRUE(after.completed);
}

TEST(SimGridFlows, OpenFlowsContinueInTheNextRun) {
  Simulation sim;
  SimGridFlowNetwork net(sim, testing::two_region_platform());
  std::optional<FlowOutcome> result;
  sim.schedule_at(kSimStart, [&] { net.start_flow(0, 1, k100MB, [&](const FlowOutcome& o) { result = o; }); });
  ASSERT_TRUE(net.run_until(at(500ms)).complete());
  EXPECT_FALSE(result);
  EXPECT_EQ(net.open_flows(), 1u);
  ASSERT_TRUE(net.run_until(at(10s)).complete());
  ASSERT_TRUE(result && result->completed);
  // The restart pays the latency once more.
  const double once = testing::lv08_seconds(0.0145, 125e6, k100MB);
  EXPECT_NEAR(to_seconds(result->finished), once + 13.01 * 0.0145, 1e-6);
}

// SimGrid keeps its configuration for the whole process and reads its factor
// settings once: the platform builder sets the model's factors on every
// engine, so runs of either model can follow each other in one process.
TEST(SimGridFlows, ModelsAlternateInOneProcess) {
  FlowPlatform lv08 = testing::two_region_platform();
  FlowPlatform cm02 = lv08;
  cm02.model = FlowModel::kCm02;
  const double cm02_seconds = 0.0145 + k100MB / (125e6 / testing::kCrossTraffic);
  for (int round = 0; round < 2; ++round) {
    const FlowOutcome a = testing::run_one_flow(cm02, k100MB);
    const FlowOutcome b = testing::run_one_flow(lv08, k100MB);
    EXPECT_NEAR(to_seconds(a.finished - a.started), cm02_seconds, 1e-9) << round;
    EXPECT_NEAR(to_seconds(b.finished - b.started), testing::lv08_seconds(0.0145, 125e6, k100MB), 1e-9) << round;
  }
}

TEST(SimGridFlows, BytesRemainingFollowsTheFlow) {
  FlowPlatform platform = testing::two_region_platform();
  platform.model = FlowModel::kCm02;
  Simulation sim;
  SimGridFlowNetwork net(sim, platform);
  FlowId id = 0;
  std::vector<std::int64_t> remaining;
  sim.schedule_at(kSimStart, [&] {
    id = net.start_flow(0, 1, k100MB, nullptr);
    remaining.push_back(net.bytes_remaining(id));  // not launched yet
  });
  // Latency paid at 14.5 ms; then 125 MB/s / 1.05.
  for (Duration t : {Duration{10ms}, Duration{514500us}})
    sim.schedule_at(at(t), [&] { remaining.push_back(net.bytes_remaining(id)); });
  ASSERT_TRUE(net.run_until(at(5s)).complete());
  ASSERT_EQ(remaining.size(), 3u);
  EXPECT_EQ(remaining[0], k100MB);
  EXPECT_EQ(remaining[1], k100MB);
  EXPECT_NEAR(static_cast<double>(remaining[2]), k100MB - 0.5 * 125e6 / testing::kCrossTraffic, 2);
  EXPECT_EQ(net.bytes_remaining(id), 0);  // concluded
}

TEST(SimGridFlows, GuardsStillApply) {
  SimulationOptions options;
  options.max_events = 10;
  Simulation sim(options);
  SimGridFlowNetwork net(sim, testing::two_region_platform());
  sim.schedule_at(kSimStart, [&] { net.start_flow(0, 1, k100MB, nullptr); });
  for (int i = 1; i <= 50; ++i) sim.schedule_at(at(i * 10ms), [] {});
  const RunOutcome run = net.run_until(at(10s));
  EXPECT_EQ(run.reason, StopReason::kMaxEvents);
  EXPECT_EQ(run.events, 10u);
}

}  // namespace
}  // namespace drsim

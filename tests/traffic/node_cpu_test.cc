// A node's cores shared by the pods on it: weighted max-min fairness by
// requests, against hand computations, alone and through two services.
#include <gtest/gtest.h>

#include <map>

#include "models/service/node_cpu.h"
#include "models/service/service.h"
#include "sim/simulation.h"
#include "tests/traffic/served_times.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

struct Heard : NodeCpu::Listener {
  std::map<std::size_t, int> calls;
  void cpu_share_changed(std::size_t pod) override { ++calls[pod]; }
};

TEST(NodeCpu, RoomForEverythingLimitsNobody) {
  NodeCpu node("n", 4000);
  Heard heard;
  const std::size_t a = node.join(heard, 0, 1000), b = node.join(heard, 1, 1000);
  node.set_ask(a, 3000);
  node.set_ask(b, 1000);
  EXPECT_EQ(node.share(a), NodeCpu::kUnlimited);
  EXPECT_EQ(node.share(b), NodeCpu::kUnlimited);
  EXPECT_TRUE(heard.calls.empty());  // nobody's share changed
}

TEST(NodeCpu, WeightedMaxMinFairnessByRequests) {
  // 4 cores asked for 6.5: A (weight 1000) asks 0.5 and gets it; what is left, 3.5 cores, goes 2:1 to C
  // (weight 2000) and B (weight 1000), both asking more than that: C 2333m, B 1166m.
  NodeCpu node("n", 4000);
  Heard heard;
  const std::size_t a = node.join(heard, 10, 1000), b = node.join(heard, 11, 1000), c = node.join(heard, 12, 2000);
  node.set_ask(a, 500);
  node.set_ask(b, 3000);
  node.set_ask(c, 3000);
  EXPECT_EQ(node.share(a), NodeCpu::kUnlimited);
  EXPECT_EQ(node.share(b), 1166);
  EXPECT_EQ(node.share(c), 2333);
  EXPECT_EQ(heard.calls[11], 1);
  EXPECT_EQ(heard.calls[12], 1);
  // C leaves: B and A fit again.
  node.leave(c);
  EXPECT_EQ(node.share(b), NodeCpu::kUnlimited);
  EXPECT_EQ(node.asked(), 3500);
}

TEST(NodeCpu, APodWithinItsRequestIsNeverSlowed) {
  // Requests 1.5 + 0.5 cores fill a 2-core node; the second pod bursts to 4 cores. The first, asking its
  // request, still gets all of it.
  NodeCpu node("n", 2000);
  Heard heard;
  const std::size_t steady = node.join(heard, 0, 1500), burst = node.join(heard, 1, 500);
  node.set_ask(steady, 1500);
  node.set_ask(burst, 4000);
  EXPECT_EQ(node.share(steady), NodeCpu::kUnlimited);
  EXPECT_EQ(node.share(burst), 500);
}

using Answers = test_support::ServedTimes;

ServiceConfig bursting(std::string name, std::int64_t request) {
  ServiceConfig sc;
  sc.name = std::move(name);
  sc.replicas = {{"a", 1}};
  sc.concurrency = 4;
  sc.discovery = "oracle";
  sc.service_time.kind = "constant";
  sc.service_time.value = 50ms;
  sc.cpu.request = CpuQuantity{request};  // each of 4 workers computes at a core: up to 4 cores asked for
  return sc;
}

TEST(NodeCpu, TwoBurstingServicesShareOneCoreByTheirRequests) {
  // One 1-core node; A requests 750m, B 250m; 4 requests of 50 ms of CPU each reach both at once, each pod
  // asking for 4 cores. By hand: A gets 750m, so its requests progress at 750/4000 of full speed and end at
  // 50 / 0.1875 = 266.67 ms; B meanwhile did 266.67 x 250/4000 = 16.67 ms of each, and alone on the core
  // does the other 33.33 ms at 1000/4000: it ends at 400 ms, when the core has done the 400 ms of CPU asked.
  Simulation sim;
  auto& a = sim.add<Service>(bursting("a", 750), nullptr);
  auto& b = sim.add<Service>(bursting("b", 250), nullptr);
  NodeCpu node("n", 1000);
  a.share_node_cpu();
  b.share_node_cpu();
  a.place_on_node(0, node);
  b.place_on_node(0, node);
  Answers answers(sim);
  sim.schedule_at(SimTime{0ms}, [&] {
    for (std::uint64_t i = 0; i < 4; ++i) {
      EXPECT_FALSE(a.submit(Job{.owner = &answers, .token = i}));
      EXPECT_FALSE(b.submit(Job{.owner = &answers, .token = 10 + i}));
    }
  });
  sim.run_until(SimTime{1s});
  ASSERT_EQ(answers.at.size(), 8u);
  for (std::uint64_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(static_cast<double>(answers.at[i]), 266'666'667.0, 2.0) << i;
    EXPECT_NEAR(static_cast<double>(answers.at[10 + i]), 400'000'000.0, 2.0) << i;
  }
  EXPECT_NEAR(a.pod_cpu_core_seconds(0), 0.2, 1e-6);
  EXPECT_NEAR(b.pod_cpu_core_seconds(0), 0.2, 1e-6);
  sim.finish();
}

}  // namespace
}  // namespace drsim

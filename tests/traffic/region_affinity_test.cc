// Call-chain region affinity (docs/sources.md section 5: "28 ms between
// regions over 5-6 hops is 150 ms or more; they pin a request's later hops
// to one region so that a request crosses regions only 1-2 times").
//
// A chain of six services (s1 calls s2, ..., s5 calls s6), each with pods in
// North, East and South (one zone each, the drill's round trips: 28, 38,
// 22 ms), balanced at random in proportion to equal pods. Requests enter s1
// in a region drawn evenly (geo routing 1:1:1). Without affinity each of the
// five calls lands in any of the three regions alike, so by hand:
//   crossings per request = 5 x 2/3 = 3.33
//   extra latency per request = 5 x E[RTT(caller, callee)]
//     = 5 x (2 x (28 + 38 + 22) / 9 + 2/3 x 1) ms = 101.1 ms (one round trip
//     per call; a zone reaches its region's backbone in half the region's
//     1 ms inter-zone RTT, so a crossing pays the link + 1 ms)
// With regionAffinity on s2..s6 every call stays in the entry region while
// it has idle workers (here always): no crossing, no extra latency.
#include <gtest/gtest.h>

#include "models/service/service.h"
#include "models/topology/failure_domains.h"
#include "models/traffic/client_population.h"
#include "sim/simulation.h"
#include "tests/traffic/topology_builders.h"
#include "tests/traffic/service_wiring.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

using test_support::link;

struct Chain {
  Simulation sim{SimulationOptions{.seed = 9}};
  FailureDomains* domains = nullptr;
  std::vector<Service*> services;
  ClientPopulation* clients = nullptr;

  explicit Chain(bool affinity) {
    TopologyConfig t;
    t.regions = {RegionConfig{"north", {ZoneConfig{"n1"}}, 1ms}, RegionConfig{"east", {ZoneConfig{"e1"}}, 1ms},
                 RegionConfig{"south", {ZoneConfig{"s1"}}, 1ms}};
    t.links = {link("north", "east", 28ms), link("north", "south", 38ms), link("east", "south", 22ms)};
    domains = &sim.add<FailureDomains>("topology", Topology(t));
    for (int k = 1; k <= 6; ++k) {
      ServiceConfig sc;
      sc.name = "s" + std::to_string(k);
      sc.replicas = {{"n1", 2}, {"e1", 2}, {"s1", 2}};
      sc.concurrency = 64;
      sc.balancing = "random";
      sc.service_time.kind = "constant";
      sc.service_time.value = 1ms;
      sc.region_affinity = affinity && k > 1;
      if (k < 6) sc.calls = {CallConfig{"s" + std::to_string(k + 1), 1, false}};
      services.push_back(&sim.add<Service>(sc, domains));
    }
    test_support::connect_by_name(services);
    ClientPopulationConfig pc;
    pc.name = "users";
    pc.service = "s1";
    pc.load.kind = "constant";
    pc.load.rate = Rate{100};
    pc.timeout = 5s;
    pc.routing = GeoRoutingConfig{};
    pc.routing->regions = {{"north", 1}, {"east", 1}, {"south", 1}};
    GeoRouter router(*pc.routing, domains->topology(), std::nullopt, {});
    clients = &sim.add<ClientPopulation>(pc, *services[0], std::nullopt, 1s, std::move(router));
    sim.run_until(SimTime{200s});
    sim.finish();
  }

  double crossings_per_request() const {
    double crossings = 0;
    for (const Recorder::Series& s : sim.recorder().series_list()) {
      if (s.metric != "service.region_crossings") continue;
      for (double v : s.value) crossings += v;
    }
    return crossings / static_cast<double>(clients->succeeded());
  }
  // Mean of the per-window mean latencies (every window holds about 100 requests).
  double mean_latency_s() const {
    double sum = 0, n = 0;
    for (const Recorder::Series& s : sim.recorder().series_list()) {
      if (s.metric != "client.latency_mean_s") continue;
      for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
        if (s.t_ns[i] < 10'000'000'000 || s.t_ns[i] >= 190'000'000'000) continue;  // whole windows
        sum += s.value[i];
        ++n;
      }
    }
    return sum / n;
  }
};

TEST(RegionAffinity, WithoutItASixHopChainCrossesRegionsOnTwoCallsInThree) {
  const Chain unpinned(false), pinned(true);
  EXPECT_EQ(unpinned.clients->failed_total(), 0u);
  EXPECT_EQ(pinned.clients->failed_total(), 0u);
  // 20,000 requests x 5 calls, each crossing with probability 2/3: the mean's standard error is about 0.005.
  EXPECT_NEAR(unpinned.crossings_per_request(), 5.0 * 2 / 3, 0.03);
  EXPECT_EQ(pinned.crossings_per_request(), 0);  // "only 1-2 times" in the source; none while there is room
  // The latency that follows from the round trips: 101.1 ms more per request without affinity (the per-request
  // spread of the five round trips averages out over ~18,000 requests: standard error about 0.2 ms).
  const double extra = unpinned.mean_latency_s() - pinned.mean_latency_s();
  EXPECT_NEAR(extra, 5 * (2 * (0.028 + 0.038 + 0.022) / 9 + 2.0 / 3 * 0.001), 0.002);
}

// Affinity holds while the region has an idle worker: with one worker per pod in the entry region's s2 and
// ten times the load it can take there, calls spill over to the other regions.
TEST(RegionAffinity, ACallSpillsOverWhenItsRegionHasNoIdleWorker) {
  Simulation sim{SimulationOptions{.seed = 4}};
  TopologyConfig t;
  t.regions = {RegionConfig{"north", {ZoneConfig{"n1"}}, 1ms}, RegionConfig{"east", {ZoneConfig{"e1"}}, 1ms}};
  t.links = {link("north", "east", 28ms)};
  auto& domains = sim.add<FailureDomains>("topology", Topology(t));
  ServiceConfig front;
  front.name = "front";
  front.replicas = {{"n1", 4}};
  front.concurrency = 64;
  front.service_time.kind = "constant";
  front.service_time.value = 1ms;
  front.calls = {CallConfig{"back", 1, false}};
  ServiceConfig back = front;
  back.name = "back";
  back.calls = {};
  back.replicas = {{"n1", 1}, {"e1", 4}};
  back.concurrency = 1;
  back.service_time.value = 10ms;  // north: 100 calls/s at most
  back.region_affinity = true;
  Service& f = sim.add<Service>(front, &domains);
  Service& b = sim.add<Service>(back, &domains);
  f.connect_calls([&](std::string_view name) -> Service* { return name == "back" ? &b : nullptr; });
  ClientPopulationConfig pc;
  pc.name = "users";
  pc.service = "front";
  pc.load.kind = "constant";
  pc.load.rate = Rate{300};
  pc.timeout = 5s;
  auto& clients = sim.add<ClientPopulation>(pc, f, std::nullopt);
  sim.run_until(SimTime{60s});
  sim.finish();
  double crossings = 0;
  for (const Recorder::Series& s : sim.recorder().series_list()) {
    if (s.metric == "service.region_crossings") {
      for (double v : s.value) crossings += v;
    }
  }
  // North's single worker takes at most 100 of the 300 calls a second; the rest cross to east.
  EXPECT_GT(crossings / static_cast<double>(clients.succeeded()), 0.5);
  EXPECT_EQ(clients.failed_total(), 0u);
}

}  // namespace
}  // namespace drsim

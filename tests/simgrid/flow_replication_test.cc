// Replication over SimGrid flows (FlowReplicationTransport): FIFO batching,
// agreement with the closed-form transport on an idle link, sharing a link,
// resets, and a cut link that the Database recovers from by a catch-up flow.
// Figures are printed with a [figures] prefix.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "models/data/database.h"
#include "models/data/flow_replication_transport.h"
#include "models/topology/failure_domains.h"
#include "models/topology/flow_platform.h"
#include "models/topology/network_model.h"
#include "sim/simgrid/simgrid_flow_network.h"
#include "sim/simulation.h"
#include "tests/simgrid/flow_fixture.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Closed forms of SimGrid's CM02 model for flows alone or sharing their
// bottleneck equally (flow_fixture.h has LV08's): the route latency once,
// then bytes at min(B / 1.05, window / 2L) / n, n flows on the bottleneck
// (1.05: network/crosstraffic, 5% of a flow's rate on its reverse route, the
// same SHARED links).
double cm02_seconds(double latency_s, double bottleneck_bytes_per_s, double bytes, int sharing = 1) {
  const double rate =
      std::min(bottleneck_bytes_per_s / (testing::kCrossTraffic * sharing), 4194304 / (2 * latency_s) / sharing);
  return latency_s + bytes / rate;
}

// The two-region topology of flow_fixture.h with a 100 Mbit/s link, and its
// flow platform in CM02: one way a -> b is 14.5 ms (0.25 + 14 + 0.25).
struct TwoRegions {
  explicit TwoRegions(Bandwidth link = Bandwidth{100e6})
      : domains(sim.add<FailureDomains>("topology", Topology(testing::two_region_config(link)))),
        net(sim, make_flow_platform(domains.topology(), FlowPlatformOptions{.model = FlowModel::kCm02})) {
    follow_failure_domains(domains, net);
    sim.initialize();
  }
  Simulation sim;
  FailureDomains& domains;
  SimGridFlowNetwork net;
};

constexpr double kOneWay = 0.0145;
constexpr double kLink = 100e6 / 8;  // bytes/s

TEST(FlowReplication, WritesSentDuringAFlowLeaveAsOneBatchInOrder) {
  TwoRegions t;
  FlowReplicationTransport transport(t.domains, t.net);
  std::vector<std::pair<int, SimTime>> delivered;
  auto send = [&](int write, std::int64_t bytes) {
    EXPECT_TRUE(
        transport.send(0, 0, 1, bytes, t.sim.now(), [&, write](SimTime at) { delivered.emplace_back(write, at); }));
  };
  // Write 0 alone at 0; writes 1..4 while it is in flight; write 5 long after.
  t.sim.schedule_at(kSimStart, [&] { send(0, 4096); });
  for (int w = 1; w <= 4; ++w) t.sim.schedule_at(at(w * 2ms), [&, w] { send(w, 4096); });
  t.sim.schedule_at(at(1s), [&] { send(5, 4096); });
  ASSERT_TRUE(t.net.run_until(at(2s)).complete());

  ASSERT_EQ(delivered.size(), 6u);
  for (int w = 0; w < 6; ++w) EXPECT_EQ(delivered[w].first, w);  // FIFO
  const SimTime first = at(Duration{std::llround(cm02_seconds(kOneWay, kLink, 4096) * 1e9)});
  const SimTime batch = first + Duration{std::llround(cm02_seconds(kOneWay, kLink, 4 * 4096) * 1e9)};
  EXPECT_NEAR(to_seconds(delivered[0].second), to_seconds(first), 1e-9);
  for (int w = 1; w <= 4; ++w) EXPECT_NEAR(to_seconds(delivered[w].second), to_seconds(batch), 2e-9) << w;
  EXPECT_EQ(transport.flows_started(0), 3u);  // write 0, writes 1-4, write 5
  EXPECT_EQ(transport.bytes_in_flight(0), 0);
  std::printf("[figures] one 4 KiB write delivered after %.9f s; the batch of 4 behind it at %.9f s\n",
              to_seconds(delivered[0].second), to_seconds(delivered[1].second));
}

// On an idle link a write arrives when the closed-form transport says, up to
// SimGrid's ACK traffic: CM02 pays the latency once, as the closed form, and
// carries the bytes at B / 1.05 instead of B (network/crosstraffic), so the
// flow is later by 5% of the write's transmission time: 4 KiB at 100 Mbit/s
// is 327.68 us on the wire, 16.4 us more. (SimGrid's default LV08 would add
// 12.01 route latencies, 174 ms, for TCP slow start: replication streams run
// CM02, see models/topology/flow_network_config.h.)
TEST(FlowReplication, ASingleWriteOnAnIdleLinkArrivesWhenTheClosedFormSays) {
  TwoRegions t;
  FlowReplicationTransport flows(t.domains, t.net);
  FifoReplicationTransport closed(t.domains, std::nullopt);
  std::optional<SimTime> flow_at, closed_at;
  t.sim.schedule_at(at(100ms), [&] {
    EXPECT_TRUE(flows.send(0, 0, 1, 4096, t.sim.now(), [&](SimTime a) { flow_at = a; }));
    EXPECT_TRUE(closed.send(0, 0, 1, 4096, t.sim.now(), [&](SimTime a) { closed_at = a; }));
  });
  ASSERT_TRUE(t.net.run_until(at(1s)).complete());
  ASSERT_TRUE(flow_at && closed_at);
  const double transmit = 4096 * 8 / 100e6;
  const double difference = to_seconds(*flow_at - *closed_at);
  std::printf("[figures] 4 KiB over 100 Mbit/s, 29 ms RTT: flow %.9f s, closed form %.9f s, difference %.1f us\n",
              to_seconds(*flow_at - at(100ms)), to_seconds(*closed_at - at(100ms)), difference * 1e6);
  EXPECT_EQ(*closed_at, at(100ms) + 14500us + 327680ns);
  EXPECT_NEAR(difference, 0.05 * transmit, 2e-9);
}

TEST(FlowReplication, TwoChannelsOnOneLinkGetAboutHalfEach) {
  constexpr std::int64_t k10MB = 10'000'000;
  auto transfer_seconds = [](int channels) {
    TwoRegions t;
    FlowReplicationTransport transport(t.domains, t.net);
    std::vector<SimTime> delivered;
    t.sim.schedule_at(kSimStart, [&] {
      for (int c = 0; c < channels; ++c) {
        transport.send(static_cast<std::size_t>(c), 0, 1, k10MB, t.sim.now(),
                       [&](SimTime a) { delivered.push_back(a); });
      }
    });
    EXPECT_TRUE(t.net.run_until(at(60s)).complete());
    EXPECT_EQ(delivered.size(), static_cast<std::size_t>(channels));
    return to_seconds(delivered.back()) - kOneWay;  // the transfer part
  };
  const double alone = transfer_seconds(1);
  const double shared = transfer_seconds(2);
  std::printf("[figures] 10 MB over 100 Mbit/s: alone %.6f s, two channels %.6f s each (ratio %.6f)\n", alone, shared,
              shared / alone);
  EXPECT_NEAR(alone, cm02_seconds(kOneWay, kLink, k10MB) - kOneWay, 1e-6);
  EXPECT_NEAR(shared / alone, 2.0, 1e-6);
}

TEST(FlowReplication, ResetDropsWhatIsInFlight) {
  TwoRegions t;
  FlowReplicationTransport transport(t.domains, t.net);
  std::vector<std::pair<int, SimTime>> delivered;
  auto send = [&](int write) {
    transport.send(0, 0, 1, 1'000'000, t.sim.now(), [&, write](SimTime a) { delivered.emplace_back(write, a); });
  };
  t.sim.schedule_at(kSimStart, [&] { send(0); });
  t.sim.schedule_at(at(10ms), [&] { send(1); });  // waits behind write 0
  t.sim.schedule_at(at(20ms), [&] {
    transport.reset(0);
    EXPECT_EQ(transport.bytes_in_flight(0), 0);
    send(2);
  });
  ASSERT_TRUE(t.net.run_until(at(5s)).complete());
  // Writes 0 and 1 never arrive; write 2 goes alone in a fresh flow.
  ASSERT_EQ(delivered.size(), 1u);
  EXPECT_EQ(delivered[0].first, 2);
  EXPECT_NEAR(to_seconds(delivered[0].second), 0.020 + cm02_seconds(kOneWay, kLink, 1'000'000), 1e-9);
  EXPECT_EQ(t.net.open_flows(), 0u);
}

// north, east, south: the north-east line is cut for a minute. The failure
// domains route north -> east through south meanwhile, but a flow keeps its
// route (flow_platform.h): east's stream fails, the transport reports the
// channel lost, the Database disconnects east, and when the line is back it
// re-syncs east with one catch-up flow of everything east missed.
TEST(FlowReplication, ACutLinkLosesTheStreamAndTheDatabaseCatchesUpAfterIt) {
  TopologyConfig topology;
  topology.regions = {RegionConfig{"north", {ZoneConfig{"north-a"}}, 1ms},
                      RegionConfig{"east", {ZoneConfig{"east-a"}}, 1ms},
                      RegionConfig{"south", {ZoneConfig{"south-a"}}, 1ms}};
  topology.links = {LinkConfig{"north-east", {"north", "east"}, 28ms, 0ms, Bandwidth{100e6}, Ratio{0}},
                    LinkConfig{"north-south", {"north", "south"}, 38ms, 0ms, Bandwidth{100e6}, Ratio{0}},
                    LinkConfig{"east-south", {"east", "south"}, 22ms, 0ms, Bandwidth{100e6}, Ratio{0}}};
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(topology));
  SimGridFlowNetwork net(sim, make_flow_platform(domains.topology(), FlowPlatformOptions{.model = FlowModel::kCm02}));
  follow_failure_domains(domains, net);
  DatabaseConfig config;
  config.name = "orders";
  config.primary_zone = "north-a";
  config.replicas = {{"east-a"}};
  config.write_rate = Rate{1000};
  config.write_size = ByteSize{4096};
  auto transport = std::make_unique<FlowReplicationTransport>(domains, net);
  FlowReplicationTransport* flows = transport.get();
  auto& db = sim.add<Database>(config, domains, 1s, std::move(transport));
  sim.schedule_at(at(10s), [&] { domains.cut_link(0); });
  sim.schedule_at(at(70s), [&] { domains.restore_link(0); });

  ASSERT_TRUE(net.run_until(at(9s)).complete());
  EXPECT_LT(db.lag(1).writes, 60u);  // up to two batch cycles of writes (22 ms each)
  ASSERT_TRUE(net.run_until(at(10s + 1ms)).complete());
  EXPECT_TRUE(domains.network().path(0, 1).reachable);  // through south, as far as the domains can tell
  EXPECT_FALSE(db.lag(1).connected);                    // but the stream's flow failed
  ASSERT_TRUE(net.run_until(at(69s)).complete());
  EXPECT_GT(db.lag(1).writes, 59'000u);  // a minute of writes missed
  const std::uint64_t flows_before = flows->flows_started(1);
  ASSERT_TRUE(net.run_until(at(70s + 1ms)).complete());
  EXPECT_TRUE(db.lag(1).connected);
  EXPECT_EQ(flows->flows_started(1), flows_before + 1);  // the catch-up, in one flow
  // ~60,000 writes of 4 KiB (246 MB) at 100 Mbit/s / 1.05: about 26 s, with the new writes batched behind it.
  ASSERT_TRUE(net.run_until(at(120s)).complete());
  EXPECT_LT(db.lag(1).writes, 60u);
  sim.finish();

  std::vector<std::string> kinds;
  const auto& events = sim.recorder().events();
  for (std::size_t i = 0; i < events.kind.size(); ++i) {
    if (events.kind[i].starts_with("database.replica_")) kinds.push_back(events.kind[i] + " " + events.detail[i]);
  }
  ASSERT_EQ(kinds.size(), 3u);
  EXPECT_TRUE(kinds[0].starts_with("database.replica_connected")) << kinds[0];
  EXPECT_TRUE(kinds[1].starts_with("database.replica_disconnected")) << kinds[1];
  EXPECT_TRUE(kinds[2].starts_with("database.replica_connected member 1 (east-a) catching up")) << kinds[2];
  for (const auto& k : kinds) std::printf("[figures] %s\n", k.c_str());
}

}  // namespace
}  // namespace drsim

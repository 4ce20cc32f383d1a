// Requests pay the network between the caller's zone and the serving zone,
// both ways, through the topology's current state.
#include <gtest/gtest.h>

#include "models/service/service.h"
#include "models/topology/network_model.h"
#include "models/traffic/client_population.h"
#include "sim/simulation.h"
#include "tests/models/topology_fixture.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

struct World {
  Simulation sim;
  FailureDomains* domains = nullptr;
  Service* service = nullptr;
  ClientPopulation* clients = nullptr;

  // Clients in zone a (region r1); the service only in zone c (region r2),
  // 10 ms of constant work per request.
  World() {
    domains = &sim.add<FailureDomains>("topology", Topology(testing::three_region_config()));
    ServiceConfig sc;
    sc.name = "api";
    sc.replicas = {ReplicasConfig{"c", 2}};
    sc.concurrency = 8;
    sc.service_time.kind = "constant";
    sc.service_time.value = 10ms;
    service = &sim.add<Service>(sc, domains);
    ClientPopulationConfig pc;
    pc.name = "users";
    pc.service = "api";
    pc.load.kind = "constant";
    pc.load.rate = Rate{50};
    pc.arrivals = "deterministic";
    pc.timeout = 2s;
    clients = &sim.add<ClientPopulation>(pc, *service, ZoneIndex{0});
  }
  double mean_latency_s() const {
    for (const auto& s : sim.recorder().series_list()) {
      if (s.metric == "client.latency_mean_s") {
        double sum = 0;
        for (double v : s.value) sum += v;
        return sum / static_cast<double>(s.value.size());
      }
    }
    return -1;
  }
};

TEST(NetworkPath, ACrossRegionCallPaysOneRoundTrip) {
  World w;
  w.sim.run_until(SimTime{60s});
  w.sim.finish();
  // a -> c: 1 ms to r1's hub, 28 ms r1-r2, 0.5 ms to c: 29.5 ms round trip.
  EXPECT_NEAR(w.mean_latency_s(), 0.010 + 0.0295, 1e-9);
  EXPECT_EQ(w.clients->failed_total(), 0u);
}

TEST(NetworkPath, ADegradedLineReroutesAndLossAddsRetransmissions) {
  World w;
  // r1-r2 slows to 128 ms: the route through r3 (38 + 22 ms) becomes shorter.
  w.sim.schedule_at(SimTime{0s}, [&] { w.domains->degrade_link(0, LinkDegradation{100ms, std::nullopt, std::nullopt}); });
  w.sim.run_until(SimTime{60s});
  w.sim.finish();
  EXPECT_NEAR(w.mean_latency_s(), 0.010 + 0.0615, 1e-9);

  World lossy;
  lossy.sim.schedule_at(SimTime{0s}, [&] { lossy.domains->degrade_link(0, LinkDegradation{Duration::zero(), Ratio{0.02}, std::nullopt}); });
  lossy.sim.run_until(SimTime{2000s});
  lossy.sim.finish();
  // Both directions pay the expected retransmission delay: p RTO / (1 - 2p)
  // with RTO = 200 ms (the floor) and p = 2%.
  const double extra = 2 * 0.02 * 0.2 / (1 - 0.04);
  EXPECT_NEAR(lossy.mean_latency_s(), 0.010 + 0.0295 + extra, 0.1 * extra);
}

TEST(NetworkPath, APartitionBlackHolesRequestsIntoTimeouts) {
  World w;
  w.sim.schedule_at(SimTime{10s}, [&] {
    w.domains->cut_link(0);
    w.domains->cut_link(2);
  });
  w.sim.run_until(SimTime{20s});
  w.sim.finish();
  // From 10 s on nothing gets through; requests sent before 18 s have timed out.
  EXPECT_GE(w.clients->failed(ClientPopulation::Cause::kTimeout), 8u * 50u);
  EXPECT_EQ(w.clients->offered(), w.clients->succeeded() + w.clients->failed_total() + w.clients->in_flight());
}

}  // namespace
}  // namespace drsim

// Pods run by a control plane: started unready, made ready, removed
// gracefully or killed, and the ids that stay valid through it all.
#include <gtest/gtest.h>

#include "models/service/service.h"
#include "models/traffic/client_population.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

ServiceConfig api(std::uint32_t pods) {
  ServiceConfig sc;
  sc.name = "api";
  sc.replicas = {{"a", pods}};
  sc.concurrency = 1;
  sc.service_time.kind = "constant";
  sc.service_time.value = 100ms;
  return sc;
}

ClientPopulationConfig users(double rate) {
  ClientPopulationConfig pc;
  pc.name = "users";
  pc.service = "api";
  pc.load.kind = "constant";
  pc.load.rate = Rate{rate};
  pc.arrivals = "deterministic";
  pc.timeout = 10s;
  return pc;
}

TEST(PodLifecycle, AnUnreadyPodTakesNoWorkUntilItIsReady) {
  Simulation sim;
  auto& svc = sim.add<Service>(api(1), nullptr);
  sim.add<ClientPopulation>(users(5), svc, std::nullopt);
  std::size_t added = 0;
  sim.schedule_at(SimTime{1s}, [&] { added = svc.start_pod(0, false); });
  sim.schedule_at(SimTime{5s}, [&] {
    EXPECT_EQ(svc.pod_usage(added).busy, Duration::zero());
    EXPECT_EQ(svc.pod_usage(added).running, 4s);  // running, just not in the endpoints
    svc.set_pod_ready(added, true);
  });
  sim.run_until(SimTime{10s});
  // Round-robin over two ready pods: half of 5 s x 5 requests/s, 100 ms each.
  EXPECT_NEAR(to_seconds(svc.pod_usage(added).busy), 1.2, 0.11);
  sim.finish();
}

TEST(PodLifecycle, RequestDoneListenersHearEveryFinishedRequestWithItsZone) {
  Simulation sim;
  ServiceConfig sc = api(1);
  sc.replicas = {{"a", 1}, {"b", 1}};
  auto& svc = sim.add<Service>(sc, nullptr);
  sim.add<ClientPopulation>(users(4), svc, std::nullopt);
  std::vector<std::uint32_t> done(2, 0);
  svc.on_request_done([&](std::size_t zone, ServeOutcome outcome) {
    EXPECT_EQ(outcome, ServeOutcome::kServed);
    ++done.at(zone);
  });
  std::uint32_t heard_by_second = 0;  // listeners add up: each hears every request
  svc.on_request_done([&](std::size_t, ServeOutcome) { ++heard_by_second; });
  sim.run_until(SimTime{10s});
  sim.finish();
  // 4 requests/s from t = 0.25 s, 100 ms each, alternating between the zones:
  // the 39 finished by 10 s split 20:19.
  EXPECT_EQ(done[0] + done[1], 39u);
  EXPECT_EQ(heard_by_second, 39u);
  EXPECT_LE(done[0] > done[1] ? done[0] - done[1] : done[1] - done[0], 1u);
}

TEST(PodLifecycle, RemovedPodsFinishTheirWorkKilledOnesRefuseIt) {
  Simulation sim;
  ServiceConfig sc = api(2);
  sc.service_time.value = 2s;
  auto& svc = sim.add<Service>(sc, nullptr);
  auto& clients = sim.add<ClientPopulation>(users(1), svc, std::nullopt);
  // t = 1 s: pod 0 takes a request until 3 s; t = 2 s: pod 1 until 4 s.
  sim.schedule_at(SimTime{2500ms}, [&] {
    svc.remove_pod(0);
    svc.kill_pod(1);
    EXPECT_TRUE(svc.pod_present(0));  // finishing its request
    EXPECT_TRUE(svc.pod_terminating(0));
    EXPECT_FALSE(svc.pod_present(1));
    EXPECT_EQ(svc.pods(0), 0u);
  });
  sim.run_until(SimTime{3500ms});
  EXPECT_FALSE(svc.pod_present(0));  // gone once done
  sim.finish();
  const Recorder& rec = sim.recorder();
  EXPECT_EQ(rec.find_kpi("client.succeeded", {{"population", "users"}})->value, 1);
  EXPECT_EQ(rec.find_kpi("client.failed", {{"cause", "refused"}, {"population", "users"}})->value, 1);
  (void)clients;
}

TEST(PodLifecycle, UnderAControlPlaneAKilledPodCrashesAndRefusesUntilRestarted) {
  Simulation sim;
  auto& svc = sim.add<Service>(api(3), nullptr);
  auto& clients = sim.add<ClientPopulation>(users(30), svc, std::nullopt);
  std::vector<std::size_t> killed;
  svc.on_pod_killed([&](std::size_t pod) { killed.push_back(pod); });
  sim.schedule_at(SimTime{1s}, [&] { EXPECT_EQ(svc.kill_pods(0, 2), 2u); });
  sim.schedule_at(SimTime{2s}, [&] {
    EXPECT_TRUE(svc.pod_crashed(0));
    EXPECT_TRUE(svc.pod_present(0));  // still listed: the control plane decides
    EXPECT_EQ(svc.pods(0), 3u);
    svc.restart_pod(0);
    svc.restart_pod(1);
  });
  sim.run_until(SimTime{4s});
  EXPECT_EQ(killed, (std::vector<std::size_t>{0, 1}));
  sim.finish();
  // Between 1 s and 2 s, two of three pods refused what reached them: 2/3 of 30.
  const double refused =
      sim.recorder().find_kpi("client.failed", {{"cause", "refused"}, {"population", "users"}})->value;
  EXPECT_NEAR(refused, 20, 2);
  (void)clients;
}

TEST(PodLifecycle, PodNamesStayUniqueAfterPodsGo) {
  Simulation sim;
  auto& svc = sim.add<Service>(api(3), nullptr);
  sim.schedule_at(SimTime{1s}, [&] { EXPECT_EQ(svc.kill_pods(0, 2), 2u); });
  sim.schedule_at(SimTime{3s}, [&] { EXPECT_EQ(svc.pod_name(svc.start_pod(0, true)), "api-a-3"); });
  sim.run_until(SimTime{4s});
  EXPECT_EQ(svc.pods(0), 2u);
  sim.finish();
}

}  // namespace
}  // namespace drsim

// The service's balancing and its behaviour when a zone fails.
#include "models/service/service.h"

#include <gtest/gtest.h>

#include "models/topology/failure_domains.h"
#include "models/traffic/client_population.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

TopologyConfig two_zone_region() {
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}, ZoneConfig{"b"}}, 1ms}};
  return t;
}

ServiceConfig service(std::vector<ReplicasConfig> replicas, Duration mean = 100ms) {
  ServiceConfig sc;
  sc.name = "api";
  sc.replicas = std::move(replicas);
  sc.concurrency = 4;
  sc.service_time.kind = "constant";
  sc.service_time.value = mean;
  return sc;
}

ClientPopulationConfig clients(double rate, std::optional<Duration> timeout = 1s) {
  ClientPopulationConfig pc;
  pc.name = "users";
  pc.service = "api";
  pc.load.kind = "constant";
  pc.load.rate = Rate{rate};
  pc.arrivals = "deterministic";
  pc.timeout = timeout;
  return pc;
}

double total(const Recorder& rec, std::string_view metric, const Labels& labels) {
  for (const auto& s : rec.series_list()) {
    if (s.metric == metric && s.labels == labels) {
      double sum = 0;
      for (double v : s.value) sum += v;
      return sum;
    }
  }
  return -1;
}

TEST(Service, SmoothWeightedRoundRobinSplitsByUpPods) {
  Simulation sim;
  auto& svc = sim.add<Service>(service({{"a", 3}, {"b", 1}}), nullptr);
  sim.add<ClientPopulation>(clients(40), svc, std::nullopt);
  sim.run_until(SimTime{100s});
  sim.finish();
  const double a = total(sim.recorder(), "service.arrivals", {{"service", "api"}, {"zone", "a"}});
  const double b = total(sim.recorder(), "service.arrivals", {{"service", "api"}, {"zone", "b"}});
  EXPECT_EQ(a + b, 4000);
  EXPECT_EQ(a, 3000);
}

TEST(Service, CutRatioTakesAZoneOutOfRotation) {
  Simulation sim;
  auto& svc = sim.add<Service>(service({{"a", 3}, {"b", 1}}), nullptr);
  sim.add<ClientPopulation>(clients(40), svc, std::nullopt);
  sim.schedule_at(SimTime{50s}, [&] { svc.set_cut_ratio(0, 0.0); });
  sim.run_until(SimTime{100s});
  sim.finish();
  const double a = total(sim.recorder(), "service.arrivals", {{"service", "api"}, {"zone", "a"}});
  EXPECT_NEAR(a, 1500, 1);
}

TEST(Service, ABlackHoledZoneFailureTimesOutWhatItHeldThenShiftsTraffic) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_zone_region()));
  auto& svc = sim.add<Service>(service({{"a", 1}, {"b", 1}}), &domains);
  auto& users = sim.add<ClientPopulation>(clients(20), svc, std::nullopt);
  sim.schedule_at(SimTime{10s}, [&] { domains.fail_zone(0); });
  sim.run_until(SimTime{20s});
  sim.finish();
  // 20 rps at 100 ms split over two zones: one request in service in zone a
  // when it fails; it is never answered and times out after 1 s.
  EXPECT_EQ(users.failed(ClientPopulation::Cause::kTimeout), 1u);
  EXPECT_EQ(users.failed(ClientPopulation::Cause::kRefused), 0u);
  EXPECT_EQ(users.offered(), users.succeeded() + users.failed_total() + users.in_flight());
  const Recorder::Kpi* util = sim.recorder().find_kpi("zone.utilization_peak", {{"service", "api"}, {"zone", "b"}});
  ASSERT_NE(util, nullptr);
  EXPECT_EQ(util->value, 0.5);  // zone b alone: 20 rps x 100 ms = 2 busy of 4 workers
}

TEST(Service, ARefusingZoneFailureFailsItsRequestsAtOnce) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_zone_region()));
  ServiceConfig sc = service({{"a", 1}, {"b", 1}});
  sc.zone_failure = "refuse";
  auto& svc = sim.add<Service>(sc, &domains);
  auto& users = sim.add<ClientPopulation>(clients(20), svc, std::nullopt);
  sim.schedule_at(SimTime{10s}, [&] { domains.fail_zone(0); });
  sim.run_until(SimTime{20s});
  sim.finish();
  EXPECT_EQ(users.failed(ClientPopulation::Cause::kRefused), 1u);
  EXPECT_EQ(users.failed(ClientPopulation::Cause::kTimeout), 0u);
}

TEST(Service, NoUpZoneMeansNoTarget) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_zone_region()));
  auto& svc = sim.add<Service>(service({{"a", 1}}), &domains);
  auto& users = sim.add<ClientPopulation>(clients(10), svc, std::nullopt);
  sim.schedule_at(SimTime{5s}, [&] { domains.fail_zone(0); });
  sim.schedule_at(SimTime{8s}, [&] { domains.recover_zone(0); });
  sim.run_until(SimTime{10s});
  sim.finish();
  EXPECT_EQ(users.failed(ClientPopulation::Cause::kNoTarget), 30u);  // 3 s at 10 rps
  EXPECT_EQ(users.failed(ClientPopulation::Cause::kTimeout), 1u);    // the one in service at 5 s
}

TEST(Service, WithoutATimeoutABlackHoledRequestStaysInFlight) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_zone_region()));
  auto& svc = sim.add<Service>(service({{"a", 1}, {"b", 1}}), &domains);
  auto& users = sim.add<ClientPopulation>(clients(20, std::nullopt), svc, std::nullopt);
  sim.schedule_at(SimTime{10s}, [&] { domains.fail_zone(0); });
  sim.run_until(SimTime{20s});
  sim.finish();
  // The black-holed request, plus those zone b is serving at the horizon.
  EXPECT_EQ(users.in_flight(), 1u + svc.busy_workers(1) + svc.queued(1));
  EXPECT_EQ(users.failed_total(), 0u);
}

TEST(Service, LeastOutstandingPrefersTheIdlePod) {
  Simulation sim;
  ServiceConfig sc = service({{"a", 2}}, 1s);
  sc.concurrency = 1;
  sc.balancing = "least-outstanding";
  auto& svc = sim.add<Service>(sc, nullptr);
  auto& users = sim.add<ClientPopulation>(clients(2, 10s), svc, std::nullopt);
  sim.run_until(SimTime{100s});
  sim.finish();
  // Arrivals every 500 ms, 1 s of work each: two pods keep up exactly, nobody waits.
  EXPECT_EQ(total(sim.recorder(), "service.waited", {{"service", "api"}, {"zone", "a"}}), 0);
  EXPECT_EQ(users.failed_total(), 0u);
}

TEST(Service, ZoneAffinityServesLocallyWhileIdleWorkersRemain) {
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(two_zone_region()));
  ServiceConfig sc = service({{"a", 1}, {"b", 1}});
  sc.zone_affinity = true;
  auto& svc = sim.add<Service>(sc, &domains);
  sim.add<ClientPopulation>(clients(20), svc, ZoneIndex{1});
  sim.run_until(SimTime{50s});
  sim.finish();
  // 2 busy of 4 workers on average in zone b: always an idle worker at home.
  EXPECT_EQ(total(sim.recorder(), "service.arrivals", {{"service", "api"}, {"zone", "a"}}), 0);
}

TEST(Service, KilledPodsRefuseWhatTheyHeldAndTakeNoMoreWork) {
  Simulation sim;
  // One pod, 4 workers, 100 ms per request, 20 rps evenly: 2 in service at a time.
  auto& svc = sim.add<Service>(service({{"a", 1}, {"b", 1}}), nullptr);
  auto& users = sim.add<ClientPopulation>(clients(20), svc, std::nullopt);
  sim.schedule_at(SimTime{10s} + 1ms, [&] {
    ASSERT_GT(svc.busy_workers(0), 0u);
    EXPECT_EQ(svc.kill_pods(0, 5), 1u);  // only one pod to kill
    EXPECT_EQ(svc.busy_workers(0), 0u);
    EXPECT_EQ(svc.pods(0), 0u);
  });
  sim.run_until(SimTime{20s});
  sim.finish();
  EXPECT_GT(users.failed(ClientPopulation::Cause::kRefused), 0u);
  EXPECT_EQ(users.failed(ClientPopulation::Cause::kTimeout), 0u);
  // After the kill, zone a gets nothing: every later arrival goes to b.
  const double a = total(sim.recorder(), "service.arrivals", {{"service", "api"}, {"zone", "a"}});
  EXPECT_NEAR(a, 100, 1);
}

TEST(Service, ScalingDownLetsBusyPodsFinishAndScalingUpAddsReadyPods) {
  Simulation sim;
  auto& svc = sim.add<Service>(service({{"a", 2}}, 1s), nullptr);
  auto& users = sim.add<ClientPopulation>(clients(6, 3s), svc, std::nullopt);
  sim.schedule_at(SimTime{10s} + 1ms, [&] {
    ASSERT_GT(svc.busy_workers(0), 0u);
    svc.set_replicas(0, 0);
    EXPECT_EQ(svc.pods(0), 0u);
    EXPECT_GT(svc.busy_workers(0), 0u);  // the busy pods finish their work
  });
  sim.schedule_at(SimTime{15s}, [&] {
    EXPECT_EQ(svc.busy_workers(0), 0u);
    svc.set_replicas(0, 3);
    EXPECT_EQ(svc.pods(0), 3u);
  });
  sim.run_until(SimTime{30s});
  sim.finish();
  // Nothing in service was lost to the scale-down; the requests while no pod
  // took work found no target.
  EXPECT_EQ(users.failed(ClientPopulation::Cause::kTimeout), 0u);
  EXPECT_EQ(users.failed(ClientPopulation::Cause::kRefused), 0u);
  EXPECT_GT(users.failed(ClientPopulation::Cause::kNoTarget), 0u);
  EXPECT_LE(sim.recorder().find_kpi("zone.utilization_peak", {{"service", "api"}, {"zone", "a"}})->value, 1.0);
}

}  // namespace
}  // namespace drsim

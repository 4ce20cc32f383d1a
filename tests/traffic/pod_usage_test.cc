// A pod's CPU and utilisation: the exact use integrals an autoscaler reads,
// and the per-window series derived from them.
#include <gtest/gtest.h>

#include "models/service/service.h"
#include "models/topology/failure_domains.h"
#include "models/traffic/client_population.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

ServiceConfig one_zone_service(std::uint32_t pods, std::uint32_t concurrency, Duration work) {
  ServiceConfig sc;
  sc.name = "api";
  sc.replicas = {{"a", pods}};
  sc.concurrency = concurrency;
  sc.service_time.kind = "constant";
  sc.service_time.value = work;
  return sc;
}

ClientPopulationConfig steady(std::string service, double rate) {
  ClientPopulationConfig pc;
  pc.name = "users";
  pc.service = std::move(service);
  pc.load.kind = "constant";
  pc.load.rate = Rate{rate};
  pc.arrivals = "deterministic";
  return pc;
}

const Recorder::Series* find_series(const Recorder& rec, std::string_view metric, const Labels& labels) {
  for (const auto& s : rec.series_list()) {
    if (s.metric == metric && s.labels == labels) return &s;
  }
  return nullptr;
}

TEST(PodUsage, DeterministicLoadGivesExactBusyAndCpuTime) {
  // 10 requests/s of 50 ms each on one pod: busy 0.5 worker-seconds per
  // second. Deterministic arrivals come at k/10 s: by 10 s, 99 are done and
  // the 100th has just begun.
  Simulation sim;
  ServiceConfig sc = one_zone_service(1, 2, 50ms);
  sc.cpu.per_worker = CpuQuantity{500};  // half a core per computing worker
  sc.cpu.idle = CpuQuantity{100};
  auto& svc = sim.add<Service>(sc, nullptr);
  sim.add<ClientPopulation>(steady("api", 10), svc, std::nullopt);
  sim.run_until(SimTime{10s});
  const Service::PodUsage u = svc.pod_usage(0);
  EXPECT_EQ(u.busy, 50ms * 99);
  EXPECT_EQ(u.computing, u.busy);  // no calls: a busy worker computes
  EXPECT_EQ(u.running, 10s);
  EXPECT_DOUBLE_EQ(svc.pod_cpu_core_seconds(0), 0.5 * 4.95 + 0.1 * 10.0);
  sim.finish();
}

TEST(PodUsage, CpuRequestDefaultsToEveryWorkerComputing) {
  ServiceConfig sc = one_zone_service(1, 4, 10ms);
  sc.cpu.per_worker = CpuQuantity{250};
  sc.cpu.idle = CpuQuantity{50};
  EXPECT_EQ(sc.cpu_request().millicores, 50 + 4 * 250);
  sc.cpu.request = CpuQuantity{2000};
  EXPECT_EQ(sc.cpu_request().millicores, 2000);
  sc.cpu = CpuConfig{.request = std::nullopt, .per_worker = CpuQuantity{0}, .idle = CpuQuantity{0}};
  ASSERT_EQ(sc.validate().size(), 1u);
  EXPECT_EQ(sc.validate()[0].field, "cpu.request");
}

TEST(PodUsage, AWorkerWaitingOnItsCallsHoldsASlotButNoCpu) {
  // front does 10 ms of work then calls back, which takes 30 ms: each request
  // holds a front worker 40 ms but computes on it for 10 ms. Arrivals at
  // k/20 s: by 5 s, 99 are done and the 100th has just begun.
  Simulation sim;
  ServiceConfig front = one_zone_service(1, 8, 10ms);
  front.name = "front";
  front.calls = {CallConfig{.service = "back"}};
  ServiceConfig back = one_zone_service(1, 8, 30ms);
  back.name = "back";
  auto& f = sim.add<Service>(front, nullptr);
  auto& b = sim.add<Service>(back, nullptr);
  f.connect_calls([&](std::string_view name) -> Service* { return name == "back" ? &b : nullptr; });
  sim.add<ClientPopulation>(steady("front", 20), f, std::nullopt);
  sim.run_until(SimTime{5s});
  const Service::PodUsage u = f.pod_usage(0);
  EXPECT_EQ(u.computing, 10ms * 99);
  EXPECT_EQ(u.busy, 40ms * 99);
  sim.finish();
}

TEST(PodUsage, WindowSeriesAreTheIntegralsDifferences) {
  // Two pods, round-robin, 40 requests/s of 100 ms on concurrency 4: each pod
  // has 2 busy workers on average, utilisation 50%, CPU 2 cores.
  Simulation sim;
  auto& svc = sim.add<Service>(one_zone_service(2, 4, 100ms), nullptr, 1s);
  svc.record_pod_series(true);
  sim.add<ClientPopulation>(steady("api", 40), svc, std::nullopt);
  sim.run_until(SimTime{10s});
  sim.finish();
  const Recorder& rec = sim.recorder();
  const auto* util = find_series(rec, "pod.utilization", {{"pod", "api-a-1"}, {"service", "api"}, {"zone", "a"}});
  const auto* cpu = find_series(rec, "pod.cpu_cores", {{"pod", "api-a-1"}, {"service", "api"}, {"zone", "a"}});
  const auto* zone_cpu = find_series(rec, "service.cpu_cores", {{"service", "api"}, {"zone", "a"}});
  const auto* zone_util = find_series(rec, "service.cpu_utilization", {{"service", "api"}, {"zone", "a"}});
  ASSERT_NE(util, nullptr);
  ASSERT_NE(cpu, nullptr);
  ASSERT_NE(zone_cpu, nullptr);
  ASSERT_NE(zone_util, nullptr);
  ASSERT_EQ(util->value.size(), 10u);
  EXPECT_EQ(util->t_ns[3], 3'000'000'000);  // stamped at the window's start
  // Steady state from the second window (the first starts empty).
  for (std::size_t w = 1; w < 10; ++w) {
    EXPECT_NEAR(util->value[w], 0.5, 1e-9) << w;
    EXPECT_NEAR(cpu->value[w], 2.0, 1e-9) << w;
    EXPECT_NEAR(zone_cpu->value[w], 4.0, 1e-9) << w;
    EXPECT_NEAR(zone_util->value[w], 0.5, 1e-9) << w;  // 4 cores of 2 x 4 requested
  }
}

TEST(PodUsage, AFailedZoneRunsNoPodsAndUsesNoCpu) {
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}, ZoneConfig{"b"}}, 1ms}};
  Simulation sim;
  auto& domains = sim.add<FailureDomains>("topology", Topology(t));
  ServiceConfig sc = one_zone_service(1, 1, 10ms);
  sc.replicas = {{"a", 1}, {"b", 1}};
  sc.cpu.idle = CpuQuantity{100};
  auto& svc = sim.add<Service>(sc, &domains, 1s);
  svc.record_pod_series(true);
  sim.schedule_at(SimTime{4s}, [&] { domains.fail_zone(0); });
  sim.run_until(SimTime{8s});
  EXPECT_EQ(svc.pod_usage(0).running, 4s);
  EXPECT_EQ(svc.pod_usage(1).running, 8s);
  sim.finish();
  const auto* cpu =
      find_series(sim.recorder(), "pod.cpu_cores", {{"pod", "api-a-0"}, {"service", "api"}, {"zone", "a"}});
  ASSERT_NE(cpu, nullptr);
  EXPECT_NEAR(cpu->value[3], 0.1, 1e-12);
  EXPECT_EQ(cpu->value[5], 0.0);
}

TEST(PodUsage, PodsAddedByScalingGetSeriesFromTheirStart) {
  Simulation sim;
  auto& svc = sim.add<Service>(one_zone_service(1, 1, 10ms), nullptr, 1s);
  svc.record_pod_series(true);
  sim.schedule_at(SimTime{2500ms}, [&] { svc.set_replicas(0, 2); });
  sim.run_until(SimTime{5s});
  ASSERT_EQ(svc.pod_total(), 2u);
  EXPECT_EQ(svc.pod_name(1), "api-a-1");
  EXPECT_EQ(svc.pod_usage(1).running, 2500ms);
  sim.finish();
  const auto* util =
      find_series(sim.recorder(), "pod.utilization", {{"pod", "api-a-1"}, {"service", "api"}, {"zone", "a"}});
  ASSERT_NE(util, nullptr);
  EXPECT_EQ(util->t_ns.front(), 2'000'000'000);
}

}  // namespace
}  // namespace drsim

// Services calling services: sequential calls add up, parallel calls take the
// slowest, the caller's worker is held while it waits, and a failed call
// fails the request with cause "dependency".
#include <gtest/gtest.h>

#include "models/service/service.h"
#include "models/topology/failure_domains.h"
#include "models/traffic/client_population.h"
#include "sim/simulation.h"
#include "tests/traffic/service_wiring.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

ServiceConfig service(std::string name, Duration work, std::vector<CallConfig> calls = {},
                      std::uint32_t concurrency = 8) {
  ServiceConfig sc;
  sc.name = std::move(name);
  sc.replicas = {ReplicasConfig{"a", 1}};
  sc.concurrency = concurrency;
  sc.service_time.kind = "constant";
  sc.service_time.value = work;
  sc.calls = std::move(calls);
  return sc;
}

struct World {
  Simulation sim;
  FailureDomains* domains;
  std::vector<Service*> services;
  ClientPopulation* clients = nullptr;

  explicit World(std::vector<ServiceConfig> configs, double rate = 10) {
    TopologyConfig t;
    t.regions = {RegionConfig{"r", {ZoneConfig{"a"}}, 1ms}};
    domains = &sim.add<FailureDomains>("topology", Topology(t));
    for (auto& c : configs) services.push_back(&sim.add<Service>(c, domains));
    test_support::connect_by_name(services);
    ClientPopulationConfig pc;
    pc.name = "users";
    pc.service = services[0]->config().name;
    pc.load.kind = "constant";
    pc.load.rate = Rate{rate};
    pc.arrivals = "deterministic";
    pc.timeout = 5s;
    clients = &sim.add<ClientPopulation>(pc, *services[0], std::nullopt);
  }
  double kpi(std::string_view name, const Labels& labels) const {
    const auto* k = sim.recorder().find_kpi(name, labels);
    return k ? k->value : -1;
  }
};

TEST(CallGraph, SequentialCallsAddUp) {
  World w({service("front", 10ms, {CallConfig{"db", 2, false}}), service("db", 5ms)});
  w.sim.run_until(SimTime{60s});
  w.sim.finish();
  // Zone-local calls: caller and callee in zone a pay no network.
  EXPECT_NEAR(w.kpi("client.latency_p50_s", {{"population", "users"}}), 0.020, 0.020 * 0.01);
  EXPECT_EQ(w.clients->failed_total(), 0u);
}

TEST(CallGraph, ParallelCallsTakeTheSlowest) {
  World w({service("front", 10ms, {CallConfig{"a", 1, true}, CallConfig{"b", 1, true}}), service("a", 5ms),
           service("b", 8ms)});
  w.sim.run_until(SimTime{60s});
  w.sim.finish();
  EXPECT_NEAR(w.kpi("client.latency_p50_s", {{"population", "users"}}), 0.018, 0.018 * 0.01);
}

TEST(CallGraph, TheCallersWorkerIsHeldWhileItWaits) {
  World w({service("front", 10ms, {CallConfig{"db", 1, false}}, 1), service("db", 40ms)});
  w.sim.run_until(SimTime{100s});
  w.sim.finish();
  // 10 rps x (10 ms own work + 40 ms waiting) = half of the one worker.
  EXPECT_NEAR(w.kpi("zone.utilization_mean", {{"service", "front"}, {"zone", "a"}}), 0.5, 0.01);
  EXPECT_NEAR(w.kpi("zone.utilization_mean", {{"service", "db"}, {"zone", "a"}}), 0.4 / 8, 0.001);  // 8 workers
}

TEST(CallGraph, AFailedCallFailsTheRequestAsADependencyFailure) {
  ServiceConfig db = service("db", 5ms);
  db.replicas = {ReplicasConfig{"a", 1}};
  World w({service("front", 10ms, {CallConfig{"db", 1, false}}), db});
  w.sim.schedule_at(SimTime{10s}, [&] { w.services[1]->set_cut_ratio(0, 0.0); });  // db has no target left
  w.sim.run_until(SimTime{20s});
  w.sim.finish();
  EXPECT_EQ(w.clients->failed(ClientPopulation::Cause::kDependency), 100u);  // 10 s at 10 rps
  EXPECT_EQ(w.clients->failed(ClientPopulation::Cause::kNoTarget), 0u);
  EXPECT_EQ(w.clients->offered(), w.clients->succeeded() + w.clients->failed_total() + w.clients->in_flight());
}

}  // namespace
}  // namespace drsim

namespace drsim {
namespace {

CallConfig call(std::string service, std::optional<Duration> timeout, std::uint32_t attempts = 1,
                std::optional<Duration> per_try = std::nullopt) {
  CallConfig c{std::move(service), 1, false};
  c.timeout = timeout;
  c.retry.attempts = attempts;
  c.retry.per_try_timeout = per_try;
  c.retry.backoff.base = Duration::zero();
  return c;
}

TEST(CallTimeouts, ACallTimeoutFailsTheRequestAndFreesTheWorker) {
  // db takes 1 s; front gives up after 100 ms: the request fails as a
  // dependency failure after 10 + 100 ms, and front's worker is free again.
  World w({service("front", 10ms, {call("db", 100ms)}, 1), service("db", 1s, {}, 100)}, 5);
  w.sim.run_until(SimTime{60s});
  w.sim.finish();
  EXPECT_EQ(w.clients->succeeded(), 0u);
  EXPECT_EQ(w.clients->failed(ClientPopulation::Cause::kDependency) + w.clients->in_flight(),
            w.clients->offered());
  EXPECT_EQ(w.clients->failed(ClientPopulation::Cause::kTimeout), 0u);
  // One worker, 110 ms per request at 5 rps: nobody waits for front.
  EXPECT_LT(w.kpi("zone.utilization_peak", {{"service", "front"}, {"zone", "a"}}), 1.0 + 1e-9);
}

TEST(CallTimeouts, PerTryTimeoutsRetryAndEachAttemptCostsTheCallee) {
  World w({service("front", 10ms, {call("db", 1s, 3, 100ms)}, 10), service("db", 500ms, {}, 1000)}, 10);
  w.sim.run_until(SimTime{60s});
  w.sim.finish();
  // Attempts at 10, 110 and 210 ms all time out: failure at 310 ms, three
  // arrivals at db per request.
  EXPECT_EQ(w.clients->succeeded(), 0u);
  EXPECT_EQ(w.clients->failed(ClientPopulation::Cause::kDependency), w.clients->failed_total());
  double seen = 0;
  for (const auto& s : w.sim.recorder().series_list()) {
    if (s.metric != "service.arrivals" || s.labels[0].second != "db") continue;
    for (double v : s.value) seen += v;
  }
  // Requests still in flight at the horizon may not have made all three.
  EXPECT_GE(seen, 3.0 * w.clients->failed_total());
  EXPECT_LE(seen, 3.0 * w.clients->offered());
  EXPECT_GT(w.clients->failed_total(), 590u);
}

TEST(CallTimeouts, ARetriedCallSucceedsWhenTheSlowAttemptIsAbandoned) {
  // db answers in 50 ms, within the 80 ms per-try timeout: the first attempt
  // succeeds, and its timer must not fire afterwards.
  World w({service("front", 10ms, {call("db", 1s, 2, 80ms)}), service("db", 50ms)});
  w.sim.run_until(SimTime{30s});
  w.sim.finish();
  EXPECT_EQ(w.clients->failed_total(), 0u);
  EXPECT_NEAR(w.kpi("client.latency_p50_s", {{"population", "users"}}), 0.060, 0.060 * 0.01);
}

}  // namespace
}  // namespace drsim

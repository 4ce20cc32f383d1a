// Client-side retries end to end: what they save, what they cost the server,
// and how a budget caps the cost.
#include <gtest/gtest.h>

#include "models/service/service.h"
#include "models/traffic/client_population.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

ServiceConfig api(std::vector<ReplicasConfig> replicas, Duration work, std::uint32_t concurrency) {
  ServiceConfig sc;
  sc.name = "api";
  sc.replicas = std::move(replicas);
  sc.concurrency = concurrency;
  sc.service_time.kind = "constant";
  sc.service_time.value = work;
  return sc;
}

ClientPopulationConfig users(double rate, Duration timeout) {
  ClientPopulationConfig pc;
  pc.name = "users";
  pc.service = "api";
  pc.load.kind = "constant";
  pc.load.rate = Rate{rate};
  pc.arrivals = "deterministic";
  pc.timeout = timeout;
  return pc;
}

double arrivals(const Recorder& rec) {
  double sum = 0;
  for (const auto& s : rec.series_list()) {
    if (s.metric != "service.arrivals") continue;
    for (double v : s.value) sum += v;
  }
  return sum;
}

// Kills zone a's only pod at 10 s while it holds requests: they are refused
// (connections reset). Returns the population after 20 s.
struct KillRun {
  Simulation sim;
  ClientPopulation* clients = nullptr;
};
void run_kill(KillRun& run, std::uint32_t attempts) {
  auto& svc = run.sim.add<Service>(api({{"a", 1}, {"b", 1}}, 100ms, 4), nullptr);
  ClientPopulationConfig pc = users(20, 2s);
  pc.retry.attempts = attempts;
  run.clients = &run.sim.add<ClientPopulation>(pc, svc, std::nullopt);
  run.sim.schedule_at(SimTime{10s} + 1ms, [&svc] { svc.kill_pods(0, 1); });
  run.sim.run_until(SimTime{20s});
  run.sim.finish();
}

TEST(ClientRetry, ARetryTurnsARefusalIntoASuccessElsewhere) {
  KillRun without;
  run_kill(without, 1);
  const std::uint64_t refused = without.clients->failed(ClientPopulation::Cause::kRefused);
  ASSERT_GT(refused, 0u);

  KillRun with;
  run_kill(with, 2);
  EXPECT_EQ(with.clients->failed_total(), 0u);
  EXPECT_EQ(with.clients->retries(), refused);  // same seed, same moment: the same requests were refused
  EXPECT_EQ(with.clients->succeeded() + with.clients->in_flight(), with.clients->offered());
}

// Every attempt outlives its per-try timeout (300 ms of work, 100 ms
// allowed): each request costs the server `attempts` arrivals and fails.
struct SlowRun {
  Simulation sim;
  ClientPopulation* clients = nullptr;
};
void run_slow(SlowRun& run, std::optional<RetryBudgetConfig> budget) {
  auto& svc = run.sim.add<Service>(api({{"a", 1}}, 300ms, 1000), nullptr);
  ClientPopulationConfig pc = users(100, 5s);
  pc.retry.attempts = 3;
  pc.retry.per_try_timeout = 100ms;
  pc.retry.backoff.base = Duration::zero();
  pc.retry.budget = budget;
  run.clients = &run.sim.add<ClientPopulation>(pc, svc, std::nullopt);
  run.sim.run_until(SimTime{100s});
  run.sim.finish();
}

TEST(ClientRetry, TimedOutAttemptsStillCostTheServerWork) {
  SlowRun run;
  run_slow(run, std::nullopt);
  const ClientPopulation& c = *run.clients;
  EXPECT_EQ(c.succeeded(), 0u);
  EXPECT_EQ(c.failed(ClientPopulation::Cause::kTimeout) + c.in_flight(), c.offered());
  // Every attempt reaches the server; a finished request made three, one
  // still in flight at the horizon one to three.
  EXPECT_EQ(arrivals(run.sim.recorder()), static_cast<double>(c.offered() + c.retries()));
  EXPECT_GE(c.retries(), 2 * c.failed_total());
  EXPECT_LE(c.retries(), 2 * (c.failed_total() + c.in_flight()));
}

TEST(ClientRetry, ABudgetCapsTheAmplification) {
  SlowRun run;
  RetryBudgetConfig budget;
  budget.ratio = Ratio{0.1};
  budget.min_per_second = 0;
  run_slow(run, budget);
  const ClientPopulation& c = *run.clients;
  // At most 10% of first attempts in any 10 s window, so over the run too.
  EXPECT_LE(static_cast<double>(c.retries()), 0.1 * c.offered() + 1);
  EXPECT_GE(static_cast<double>(c.retries()), 0.09 * c.offered());
  EXPECT_GT(c.retries_denied(), 0u);
  EXPECT_EQ(arrivals(run.sim.recorder()), static_cast<double>(c.offered() + c.retries()));
}

TEST(ClientRetry, TheWholeRequestTimeoutEndsRetriesEarly) {
  Simulation sim;
  auto& svc = sim.add<Service>(api({{"a", 1}}, 300ms, 1000), nullptr);
  ClientPopulationConfig pc = users(10, 250ms);  // shorter than two attempts
  pc.retry.attempts = 5;
  pc.retry.per_try_timeout = 100ms;
  pc.retry.backoff.base = Duration::zero();
  auto& clients = sim.add<ClientPopulation>(pc, svc, std::nullopt);
  sim.run_until(SimTime{10s});
  sim.finish();
  // Attempts at 0, 100 and 200 ms; the request times out at 250 ms, before
  // a fourth.
  EXPECT_EQ(clients.succeeded(), 0u);
  EXPECT_GE(clients.retries(), 2 * clients.failed_total());
  EXPECT_LE(clients.retries(), 2 * (clients.failed_total() + clients.in_flight()));
  EXPECT_EQ(arrivals(sim.recorder()), static_cast<double>(clients.offered() + clients.retries()));
}

}  // namespace
}  // namespace drsim

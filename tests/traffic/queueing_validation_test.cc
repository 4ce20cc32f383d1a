// The simulated service against closed-form queueing results that nobody
// here wrote: one pod with c workers and one FIFO queue, Poisson arrivals and
// exponential service is an M/M/c queue (Erlang C); with a queue limit it is
// M/M/c/K. Confidence intervals come from batch means over the recorded
// per-window series, so the check reads what a user would read.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "analysis/queueing.h"
#include "models/service/service.h"
#include "models/traffic/client_population.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kBatches = 30;

struct Case {
  double lambda;       // arrivals per second
  Duration service;    // mean service time
  std::uint32_t servers;
  std::optional<std::uint32_t> queue_limit;  // none: unbounded
  Duration window;     // one batch; the run is a warm-up window + 30 batches
  Duration run() const { return window * static_cast<std::int64_t>(kBatches + 1); }
};

const Recorder::Series& series(const Recorder& rec, std::string_view metric, const Labels& labels) {
  for (const auto& s : rec.series_list()) {
    if (s.metric == metric && s.labels == labels) return s;
  }
  throw std::runtime_error("no series " + std::string(metric));
}

// One value per window (windows are stamped at their start; a series has no
// point for a window where nothing was observed, which counts as 0 here),
// then one batch per window after a first window dropped as warm-up.
std::vector<double> batches(const Recorder::Series& s, Duration window) {
  std::vector<double> out(kBatches, 0.0);
  for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
    const auto w = static_cast<std::size_t>(s.t_ns[i] / window.count());
    if (w >= 1 && w <= kBatches) out[w - 1] += s.value[i];
  }
  return out;
}
// The product of two per-window series, matched by window.
std::vector<double> batches_of_product(const Recorder::Series& a, const Recorder::Series& b, Duration window) {
  const std::vector<double> x = batches(a, window);
  const std::vector<double> y = batches(b, window);
  std::vector<double> out(kBatches);
  for (std::size_t i = 0; i < kBatches; ++i) out[i] = x[i] * y[i];
  return out;
}

// Ratio estimate per batch, and the half-width of a 99.9% interval
// (t quantile for 29 degrees of freedom: 3.659).
struct Estimate {
  double mean;
  double half_width;
};
Estimate ratio_of_batches(const std::vector<double>& num, const std::vector<double>& den) {
  std::vector<double> r;
  for (std::size_t i = 0; i < num.size(); ++i) r.push_back(num[i] / den[i]);
  const double mean = std::accumulate(r.begin(), r.end(), 0.0) / r.size();
  double ss = 0;
  for (double v : r) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / (r.size() - 1));
  return {mean, 3.659 * sd / std::sqrt(static_cast<double>(r.size()))};
}

struct Run {
  explicit Run(std::uint64_t seed) : sim(SimulationOptions{.seed = seed}) {}
  Simulation sim;
  Service* service = nullptr;
  ClientPopulation* clients = nullptr;
};

std::unique_ptr<Run> run_queue(const Case& c, std::uint64_t seed) {
  auto run = std::make_unique<Run>(seed);
  ServiceConfig sc;
  sc.name = "svc";
  sc.replicas = {ReplicasConfig{"z", 1}};
  sc.concurrency = c.servers;
  sc.queue_limit = c.queue_limit;
  sc.service_time.kind = "exponential";
  sc.service_time.mean = c.service;
  run->service = &run->sim.add<Service>(sc, nullptr, c.window);
  ClientPopulationConfig pc;
  pc.name = "clients";
  pc.service = "svc";
  pc.load.kind = "constant";
  pc.load.rate = Rate{c.lambda};
  run->clients = &run->sim.add<ClientPopulation>(pc, *run->service, std::nullopt, c.window);
  run->sim.run_until(SimTime{c.run()});
  run->sim.finish();
  return run;
}

class MMc : public ::testing::TestWithParam<Case> {};

TEST_P(MMc, WaitProbabilityMeanResponseAndUtilizationMatchErlangC) {
  const Case c = GetParam();
  const auto run = run_queue(c, 7);
  const Recorder& rec = run->sim.recorder();
  const auto expected = mmc_metrics(Rate{c.lambda}, c.service, c.servers);
  ASSERT_TRUE(expected.has_value());
  const Labels zone{{"service", "svc"}, {"zone", "z"}};
  const Labels pop{{"population", "clients"}};
  const auto waited = batches(series(rec, "service.waited", zone), c.window);
  const auto arrivals = batches(series(rec, "service.arrivals", zone), c.window);
  const Estimate p_wait = ratio_of_batches(waited, arrivals);
  EXPECT_NEAR(p_wait.mean, expected->wait_probability, p_wait.half_width);
  EXPECT_LT(p_wait.half_width, 0.05) << "run too short to be a tight check";

  // Mean response per batch: sum(window mean x completions) / completions.
  const auto& mean_s = series(rec, "client.latency_mean_s", pop);
  const auto& done = series(rec, "client.succeeded", pop);
  const Estimate response =
      ratio_of_batches(batches_of_product(mean_s, done, c.window), batches(done, c.window));
  const double w = to_seconds(expected->mean_response);
  EXPECT_NEAR(response.mean, w, response.half_width);
  EXPECT_LT(response.half_width / w, 0.08) << "run too short to be a tight check";

  EXPECT_NEAR(rec.find_kpi("zone.utilization_mean", zone)->value, expected->utilization, 0.02);
  EXPECT_EQ(run->clients->offered(), run->clients->succeeded() + run->clients->in_flight());
}

INSTANTIATE_TEST_SUITE_P(
    Loads, MMc,
    ::testing::Values(Case{5.0, 100ms, 1, std::nullopt, 1300s},     // M/M/1, rho 0.5
                      Case{36.0, 100ms, 4, std::nullopt, 1300s},    // M/M/4, rho 0.9
                      Case{95.0, 100ms, 10, std::nullopt, 1200s}),  // M/M/10, rho 0.95
    [](const auto& param) { return "case" + std::to_string(param.index); });

TEST(MMcK, BlockingMatchesTheFiniteQueueFormula) {
  // c = 3 workers, room for 2 waiting (K = 5), offered load 3 Erlangs.
  const Case c{30.0, 100ms, 3, 2, 650s};
  const auto run = run_queue(c, 11);
  const Recorder& rec = run->sim.recorder();
  const Labels zone{{"service", "svc"}, {"zone", "z"}};
  const auto rejected = batches(series(rec, "service.rejected", zone), c.window);
  const auto arrivals = batches(series(rec, "service.arrivals", zone), c.window);
  const Estimate blocking = ratio_of_batches(rejected, arrivals);
  const QueueMetrics expected = mmck_metrics(Rate{c.lambda}, c.service, c.servers, c.servers + *c.queue_limit);
  EXPECT_NEAR(blocking.mean, expected.blocking_probability, blocking.half_width);
  EXPECT_LT(blocking.half_width, 0.02);
  EXPECT_EQ(run->clients->failed(ClientPopulation::Cause::kRejected),
            static_cast<std::uint64_t>(rec.find_kpi("service.rejected", zone)->value));
}

TEST(MMcK, LossSystemMatchesErlangB) {
  // No waiting room: the Erlang B loss system. 4.461 Erlangs on 10 servers
  // blocks 1% of arrivals (the published table value).
  const Case c{44.61, 100ms, 10, 0, 650s};
  const auto run = run_queue(c, 13);
  const Recorder& rec = run->sim.recorder();
  const Labels zone{{"service", "svc"}, {"zone", "z"}};
  const Estimate blocking = ratio_of_batches(batches(series(rec, "service.rejected", zone), c.window),
                                             batches(series(rec, "service.arrivals", zone), c.window));
  EXPECT_NEAR(blocking.mean, erlang_b(10, 4.461), blocking.half_width);
  EXPECT_LT(blocking.half_width, 0.005);
}

}  // namespace
}  // namespace drsim

// The simulated service against closed-form queueing results that nobody
// here wrote: one pod with c workers and one FIFO queue, Poisson arrivals and
// exponential service is an M/M/c queue (Erlang C); with a queue limit it is
// M/M/c/K. Confidence intervals come from batch means over the recorded
// per-window series, so the check reads what a user would read.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "analysis/queueing.h"
#include "io/run.h"
#include "io/scenario_loader.h"
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

// Two classes through one worker (M/G/1, FCFS): operation "small" takes a
// constant 4 ms on 60% of requests, "large" an exponential 10 ms on 40%. The
// Pollaczek-Khinchine formula gives the mean wait, the same for both classes
// in FIFO order: W = lambda E[S^2] / (2 (1 - rho)), with E[S] and E[S^2] of
// the mixture. Each class's mean response is W + its own mean service time.
// A worker pool of one and an event loop of one thread (with room for every
// request in flight) are both that queue.
class MG1 : public ::testing::TestWithParam<std::string> {};

TEST_P(MG1, MixedClassesMatchPollaczekKhinchine) {
  const Duration window = 300s;
  Simulation sim(SimulationOptions{.seed = 17});
  ServiceConfig sc;
  sc.name = "svc";
  sc.server = GetParam();
  if (sc.event_loop()) sc.max_in_flight = 100000;
  sc.replicas = {ReplicasConfig{"z", 1}};
  sc.concurrency = 1;
  sc.service_time.kind = "constant";
  sc.service_time.value = 1ms;  // the default operation, which nobody asks for
  OperationConfig small{"small", ServiceTimeConfig{.kind = "constant", .value = 4ms}, std::nullopt};
  OperationConfig large{"large", ServiceTimeConfig{.kind = "exponential", .mean = 10ms}, std::nullopt};
  sc.operations = {small, large};
  auto& service = sim.add<Service>(sc, nullptr, window);
  ClientPopulationConfig pc;
  pc.name = "clients";
  pc.service = "svc";
  pc.load.kind = "constant";
  const double lambda = 100.0;
  pc.load.rate = Rate{lambda};
  pc.operations = {OperationShareConfig{"small", 0.6}, OperationShareConfig{"large", 0.4}};
  auto& clients = sim.add<ClientPopulation>(pc, service, std::nullopt, window);
  sim.run_until(SimTime{window * static_cast<std::int64_t>(kBatches + 1)});
  sim.finish();

  const double es = 0.6 * 0.004 + 0.4 * 0.010;                     // 6.4 ms
  const double es2 = 0.6 * 0.004 * 0.004 + 0.4 * 2 * 0.010 * 0.010;  // 89.6 ms^2
  const double rho = lambda * es;
  const double wait = lambda * es2 / (2 * (1 - rho));  // 12.44 ms
  const Recorder& rec = sim.recorder();
  for (const auto& [name, mean_service] : {std::pair{"small", 0.004}, std::pair{"large", 0.010}}) {
    const Labels labels{{"operation", name}, {"population", "clients"}};
    const auto& mean_s = series(rec, "operation.latency_mean_s", labels);
    const auto& done = series(rec, "operation.succeeded", labels);
    const Estimate response = ratio_of_batches(batches_of_product(mean_s, done, window), batches(done, window));
    const double expected = wait + mean_service;
    RecordProperty(std::string(name) + "_simulated_ms", std::to_string(response.mean * 1e3));
    RecordProperty(std::string(name) + "_formula_ms", std::to_string(expected * 1e3));
    EXPECT_NEAR(response.mean, expected, 0.02 * expected) << name;
    EXPECT_NEAR(response.mean, expected, response.half_width) << name;
    EXPECT_LT(response.half_width / expected, 0.03) << name << ": run too short to be a tight check";
  }
  EXPECT_NEAR(rec.find_kpi("zone.utilization_mean", {{"service", "svc"}, {"zone", "z"}})->value, rho, 0.01);
  EXPECT_EQ(clients.offered(), clients.succeeded() + clients.in_flight());
}

INSTANTIATE_TEST_SUITE_P(Servers, MG1, ::testing::Values("workerPool", "eventLoop"),
                         [](const auto& param) { return param.param; });

// An event loop that holds at most 10 requests in flight and queues none is
// a loss system whatever its requests do while in flight: with the callee
// answering after a constant 1 s and the loop's own work negligible, each
// request holds its place for about 1 s, and Erlang B (insensitive to the
// holding time's distribution) gives the share turned away.
TEST(EventLoop, InFlightLimitIsALossSystemMatchingErlangB) {
  const RunResult run = run_scenario(load_scenario_text(R"(
apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: loss}
spec:
  duration: 3100s
  seed: 23
  metricsWindow: 100s
  topology:
    regions: [{name: r, zones: [{name: a}]}]
    services:
      - name: loop
        replicas: [{zone: a, replicas: 1}]
        server: eventLoop
        concurrency: 1
        maxInFlight: 10
        queueLimit: 0
        discovery: oracle
        serviceTime: {kind: constant, value: 1us}
        calls: [{service: slow}]
      - name: slow
        replicas: [{zone: a, replicas: 1}]
        concurrency: 1000
        discovery: oracle
        serviceTime: {kind: constant, value: 1s}
  load:
    - {name: clients, service: loop, load: {kind: constant, rate: 8rps}}
)"));
  const Recorder& rec = run.recorder();
  const Labels zone{{"service", "loop"}, {"zone", "a"}};
  const Estimate blocking = ratio_of_batches(batches(series(rec, "service.rejected", zone), 100s),
                                             batches(series(rec, "service.arrivals", zone), 100s));
  const double expected = erlang_b(10, 8.0 * 1.000001);  // 12.2%
  RecordProperty("simulated", std::to_string(blocking.mean));
  RecordProperty("formula", std::to_string(expected));
  EXPECT_NEAR(blocking.mean, expected, blocking.half_width);
  EXPECT_LT(blocking.half_width, 0.02);
}

// An open product-form network, solved by mean value analysis (open model:
// a visit to station i takes S_i / (1 - U_i), U_i = lambda_i S_i; Lazowska et
// al., Quantitative System Performance, ch. 7). Two event-loop services with
// one thread each are FCFS stations with exponential service that does not
// depend on the class (BCMP's condition); their threads are free while calls
// are out, so the front computes, then its calls visit the back end. Two
// operations route differently: "one" calls the back end once, "two" twice
// in sequence. Each operation's mean response is the sum of its visits'.
TEST(ProductForm, TwoClassOpenNetworkMatchesMeanValueAnalysis) {
  const Duration window = 300s;
  const RunResult run = run_scenario(load_scenario_text(R"(
apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: mva}
spec:
  duration: 9300s
  seed: 29
  metricsWindow: 300s
  topology:
    regions: [{name: r, zones: [{name: a}]}]
    services:
      - name: front
        replicas: [{zone: a, replicas: 1}]
        server: eventLoop
        concurrency: 1
        maxInFlight: 100000
        discovery: oracle
        serviceTime: {kind: exponential, mean: 5ms}
        operations:
          - {name: one, calls: [{service: back}]}
          - {name: two, calls: [{service: back, count: 2}]}
      - name: back
        replicas: [{zone: a, replicas: 1}]
        server: eventLoop
        concurrency: 1
        maxInFlight: 100000
        discovery: oracle
        serviceTime: {kind: exponential, mean: 4ms}
  load:
    - name: clients
      service: front
      load: {kind: constant, rate: 60rps}
      operations: [{name: one, weight: 1}, {name: two, weight: 1}]
)"));
  const double lambda = 60;
  const double u_front = lambda * 0.005;        // 0.30
  const double u_back = lambda * 1.5 * 0.004;   // 0.36: 1.5 visits per request
  const double r_front = 0.005 / (1 - u_front);  // 7.14 ms a visit
  const double r_back = 0.004 / (1 - u_back);    // 6.25 ms a visit
  const Recorder& rec = run.recorder();
  for (const auto& [name, visits] : {std::pair{"one", 1.0}, std::pair{"two", 2.0}}) {
    const Labels labels{{"operation", name}, {"population", "clients"}};
    const Estimate response =
        ratio_of_batches(batches_of_product(series(rec, "operation.latency_mean_s", labels),
                                            series(rec, "operation.succeeded", labels), window),
                         batches(series(rec, "operation.succeeded", labels), window));
    const double expected = r_front + visits * r_back;
    RecordProperty(std::string(name) + "_simulated_ms", std::to_string(response.mean * 1e3));
    RecordProperty(std::string(name) + "_formula_ms", std::to_string(expected * 1e3));
    EXPECT_NEAR(response.mean, expected, 0.02 * expected) << name;
    EXPECT_NEAR(response.mean, expected, response.half_width) << name;
    EXPECT_LT(response.half_width / expected, 0.03) << name << ": run too short to be a tight check";
  }
  EXPECT_NEAR(rec.find_kpi("zone.utilization_mean", {{"service", "front"}, {"zone", "a"}})->value, u_front, 0.01);
  EXPECT_NEAR(rec.find_kpi("zone.utilization_mean", {{"service", "back"}, {"zone", "a"}})->value, u_back, 0.01);
}

}  // namespace
}  // namespace drsim

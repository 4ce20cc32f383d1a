// The round trip of issue 19: traces written by a drsim run of a known model (spec.traces), imported back with
// drsim import traces, give that model's call graph, its call probabilities and its service-time quantiles within
// sampling error, and its request rates; the imported scenario, run, gives the same latencies.
//
// "Within sampling error" is a bound that holds whatever the seed: for a probability, 5 standard errors of a
// binomial share; for a distribution, the Dvoretzky-Kiefer-Wolfowitz inequality (the empirical CDF of n samples is
// within eps = sqrt(ln(2 / alpha) / 2n) of the true one everywhere, with probability 1 - alpha; alpha = 1e-6 here).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "io/trace_import.h"
#include "io/trace_json.h"
#include "tests/io/traced_operations.h"
#include "models/load/service_time.h"

namespace drsim {
namespace {

constexpr const char* kModel = R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: known-shop
spec:
  duration: 60s
  seed: 11
  traces: {sampling: 10%}
  topology:
    regions:
      - name: r
        zones: [{name: a}, {name: b}]
    links: []
    services:
      - name: frontend
        concurrency: 64
        replicas: [{zone: a, replicas: 2}, {zone: b, replicas: 2}]
        serviceTime: {kind: constant, value: 1ms}
        operations:
          - name: home
            serviceTime: {kind: lognormal, p50: 2ms, p99: 9ms}
            calls:
              - {service: cart, operation: get}
              - {service: catalog, operation: list, count: 2, parallel: true}
              - {service: recommendations, operation: rec, probability: 50%}
          - name: checkout
            serviceTime: {kind: exponential, mean: 5ms}
            calls:
              - {service: cart, operation: get}
              - {service: payment, operation: charge}
      - name: cart
        concurrency: 64
        replicas: [{zone: a, replicas: 1}, {zone: b, replicas: 1}]
        serviceTime: {kind: constant, value: 1ms}
        operations: [{name: get, serviceTime: {kind: exponential, mean: 1ms}}]
      - name: catalog
        concurrency: 64
        replicas: [{zone: a, replicas: 1}, {zone: b, replicas: 1}]
        serviceTime: {kind: constant, value: 1ms}
        operations: [{name: list, serviceTime: {kind: lognormal, p50: 3ms, p99: 12ms}}]
      - name: recommendations
        concurrency: 64
        replicas: [{zone: a, replicas: 1}, {zone: b, replicas: 1}]
        serviceTime: {kind: constant, value: 1ms}
        operations: [{name: rec, serviceTime: {kind: constant, value: 4ms}}]
      - name: payment
        concurrency: 64
        replicas: [{zone: a, replicas: 1}, {zone: b, replicas: 1}]
        serviceTime: {kind: constant, value: 1ms}
        operations: [{name: charge, serviceTime: {kind: exponential, mean: 4ms}}]
  load:
    - name: shoppers
      service: frontend
      timeout: 5s
      load: {kind: constant, rate: 200rps}
      operations: [{name: home, weight: 80}, {name: checkout, weight: 20}]
)";

using testing::find_op;

const TracedCall& find_call(const TracedOperation& op, const std::string& callee) {
  for (const TracedCall& c : op.calls) {
    if (c.service == callee) return c;
  }
  throw std::runtime_error("no call to " + callee);
}

double dkw_epsilon(std::size_t n) { return std::sqrt(std::log(2 / 1e-6) / (2.0 * static_cast<double>(n))); }

// The samples' empirical CDF against the configured distribution's, at its 5%, 25%, 50%, 75%, 95% and 99%
// quantiles: F_n(x_q) must be within eps of q.
void expect_distribution(const TracedOperation& op, const ServiceTimeConfig& config) {
  const ServiceTimeDistribution truth(config);
  const std::size_t n = op.self_times.size();
  ASSERT_EQ(n, op.requests) << op.operation;  // every sample kept
  if (config.kind == "constant") {  // a point mass: every sample is it
    EXPECT_EQ(op.self_times.front(), *config.value) << op.operation;
    EXPECT_EQ(op.self_times.back(), *config.value) << op.operation;
    return;
  }
  const double eps = dkw_epsilon(n);
  for (const double q : {0.05, 0.25, 0.5, 0.75, 0.95, 0.99}) {
    const Duration x = truth.quantile(q);
    const auto at_or_below = static_cast<double>(
        std::upper_bound(op.self_times.begin(), op.self_times.end(), x) - op.self_times.begin());
    EXPECT_NEAR(at_or_below / static_cast<double>(n), q, eps)
        << op.service << " " << op.operation << " at q " << q << " (" << n << " samples)";
  }
}

TEST(TraceRoundTrip, ARunsTracesGiveBackItsCallGraphServiceTimesAndRates) {
  const Scenario model = load_scenario_text(kModel);
  const RunResult run = run_scenario(model);
  const std::string traces = otlp_json(run.simulation->spans());

  TraceImportOptions options;
  options.workload.sampling = 0.1;
  options.workload.max_samples = 1'000'000;  // every sample, for the distribution check
  const TraceImport imported = import_traces_texts(kModel, "known-shop.yaml", {{"traces.json", traces}}, options);
  const TraceWorkload& w = imported.workload;

  // The call graph: every operation and call of the model, in its order, with its count and parallelism.
  ASSERT_EQ(w.operations.size(), 6u);
  const TracedOperation& home = find_op(w, "frontend", "home");
  ASSERT_EQ(home.calls.size(), 3u);
  EXPECT_EQ(home.calls[0].service, "cart");
  EXPECT_EQ(home.calls[0].count, 1u);
  EXPECT_DOUBLE_EQ(home.calls[0].probability, 1.0);
  EXPECT_FALSE(home.calls[0].parallel);
  EXPECT_EQ(home.calls[1].service, "catalog");
  EXPECT_EQ(home.calls[1].count, 2u);
  EXPECT_DOUBLE_EQ(home.calls[1].probability, 1.0);
  EXPECT_TRUE(home.calls[1].parallel);
  EXPECT_EQ(home.calls[2].service, "recommendations");
  EXPECT_FALSE(home.calls[2].parallel);
  // Made on half the requests: a binomial share, within 5 standard errors.
  const double n_home = static_cast<double>(home.requests);
  EXPECT_NEAR(home.calls[2].probability, 0.5, 5 * std::sqrt(0.25 / n_home)) << home.requests << " requests";
  const TracedOperation& checkout = find_op(w, "frontend", "checkout");
  ASSERT_EQ(checkout.calls.size(), 2u);
  EXPECT_EQ(checkout.calls[0].service, "cart");
  EXPECT_EQ(checkout.calls[1].service, "payment");
  EXPECT_EQ(find_call(checkout, "payment").count, 1u);
  EXPECT_TRUE(find_op(w, "catalog", "list").calls.empty());

  // The mix: home is 80% of the traced requests (5 standard errors).
  const double n_all = n_home + static_cast<double>(checkout.requests);
  EXPECT_NEAR(n_home / n_all, 0.8, 5 * std::sqrt(0.16 / n_all));
  // The rate: 200 requests/s in all; the traced count is Poisson (5 standard errors of 60 s x 20/s).
  ASSERT_EQ(w.entries.size(), 2u);
  double rate = 0;
  for (const TracedEntry& e : w.entries) rate += e.rates.front();
  const double traced = 200 * 0.1 * 60;
  EXPECT_NEAR(rate, 200, 200 * 5 / std::sqrt(traced));

  // Self times: each operation's own work, within the DKW bound of its configured distribution.
  const auto service_time = [&](const std::string& service, const std::string& op) {
    for (const ServiceConfig& svc : model.spec.topology.config.services) {
      if (svc.name == service) return svc.service_time_of(*svc.operation_index(op));
    }
    throw std::runtime_error("no service " + service);
  };
  for (const auto& [service, op] : {std::pair{"frontend", "home"}, {"frontend", "checkout"}, {"cart", "get"},
                                    {"catalog", "list"}, {"recommendations", "rec"}, {"payment", "charge"}}) {
    expect_distribution(find_op(w, service, op), service_time(service, op));
  }
  // A catalog list is called twice per home request.
  EXPECT_EQ(find_op(w, "catalog", "list").requests, 2 * home.requests);

  // The imported scenario, run, answers as the model did: the latency of home end to end.
  const Scenario back = load_scenario_text(imported.scenario_yaml);
  const RunResult rerun = run_scenario(back);
  const Recorder::Kpi* original =
      run.recorder().find_kpi("operation.latency_p50_s", {{"population", "shoppers"}, {"operation", "home"}});
  const Recorder::Kpi* replayed = rerun.recorder().find_kpi("operation.latency_p50_s",
                                                            {{"population", "frontend.home"}, {"operation", "home"}});
  ASSERT_NE(original, nullptr);
  ASSERT_NE(replayed, nullptr);
  EXPECT_NEAR(replayed->value, original->value, 0.05 * original->value);
}

TEST(TraceRoundTrip, TracingChangesNothingElseAndIsTheSameForTheSameSeed) {
  Scenario off = load_scenario_text(kModel, {"spec.traces.sampling=0%", "spec.duration=10s"});
  Scenario on = load_scenario_text(kModel, {"spec.duration=10s"});
  const RunResult a = run_scenario(off);
  const RunResult b = run_scenario(on);
  const RunResult c = run_scenario(on);
  EXPECT_FALSE(a.simulation->spans().enabled());
  EXPECT_TRUE(a.simulation->spans().spans().empty());
  // The same requests, answered at the same times: every KPI equal.
  ASSERT_EQ(a.recorder().kpis().size(), b.recorder().kpis().size());
  for (std::size_t i = 0; i < a.recorder().kpis().size(); ++i) {
    EXPECT_EQ(a.recorder().kpis()[i].value, b.recorder().kpis()[i].value) << a.recorder().kpis()[i].name;
  }
  EXPECT_EQ(otlp_json(b.simulation->spans()), otlp_json(c.simulation->spans()));
  EXPECT_GT(b.simulation->spans().traces(), 100u);
}

TEST(TraceRoundTrip, NoNewTraceStartsPastMaxSpansAndOpenTracesAreLeftOut) {
  const Scenario capped = load_scenario_text(kModel, {"spec.traces.maxSpans=50", "spec.duration=5s"});
  const RunResult run = run_scenario(capped);
  const SpanRecorder& spans = run.simulation->spans();
  // Traces under way when the cap was reached finish: a few spans past it, never a new trace.
  EXPECT_GE(spans.spans().size(), 50u);
  EXPECT_LT(spans.spans().size(), 50u + 20u);
  // What is written reads back: no orphan.
  EXPECT_NO_THROW(read_trace_texts({{"traces.json", otlp_json(spans)}}));
}

}  // namespace
}  // namespace drsim

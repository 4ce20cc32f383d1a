// CPU limits: the CFS quota against hand computations, each operation's CPU
// time apart from its wall time, and what a throttled pod reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "models/service/cfs_bandwidth.h"
#include "models/service/service.h"
#include "sim/simulation.h"
#include "tests/traffic/served_times.h"
#include "tests/drills/run_text.h"
#include "tests/traffic/kpi_lookup.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::run_text;

constexpr std::int64_t kMs = 1'000'000;

// ---- the quota alone (pure arithmetic) ----

TEST(CfsBandwidth, OneThreadAtOneCoreUnderA200mLimit) {
  // 50 ms of CPU on one thread, limit 200m, period 100 ms: a quota of 20 ms a period. By hand: it runs
  // 0-20 ms, stands still to 100, runs 100-120, stands still to 200, and needs 10 ms more: 200-210.
  CfsBandwidth q(200, 100 * kMs, 0);
  std::int64_t t = 0, left = 50 * kMs;  // CPU still needed (ns at 1 core)
  std::int64_t done = -1;
  while (left > 0) {
    const auto next = q.next_change(t, 1000);
    const std::int64_t run_until_done = q.throttled() ? -1 : t + left;
    if (!q.throttled() && (!next || run_until_done <= *next)) {
      done = run_until_done;
      q.advance(done, 1000);
      break;
    }
    ASSERT_TRUE(next.has_value());
    if (!q.throttled()) left -= *next - t;
    q.advance(*next, 1000);
    t = *next;
  }
  EXPECT_EQ(done, 210 * kMs);
  EXPECT_EQ(q.periods(), 3u);
  EXPECT_EQ(q.throttled_periods(), 2u);
  EXPECT_EQ(q.throttled_ns(), 160 * kMs);
}

TEST(CfsBandwidth, FourBusyThreadsUnderOneCoreRun25MsOfEvery100) {
  CfsBandwidth q(1000, 100 * kMs, 0);
  q.advance(0, 4000);
  EXPECT_EQ(q.next_change(0, 4000), 25 * kMs);  // 100 ms of quota at 4 cores
  q.advance(25 * kMs, 4000);
  EXPECT_TRUE(q.throttled());
  EXPECT_EQ(q.next_change(25 * kMs, 4000), 100 * kMs);
  q.advance(100 * kMs, 4000);
  EXPECT_FALSE(q.throttled());
  // Across many periods in one call, exactly as event by event.
  q.advance(1000 * kMs, 4000);
  EXPECT_EQ(q.periods(), 10u);
  EXPECT_EQ(q.throttled_periods(), 10u);
  EXPECT_EQ(q.throttled_ns(), 10 * 75 * kMs);
}

TEST(CfsBandwidth, BelowTheLimitNothingIsThrottledAndIdleHoursAreOneStep) {
  CfsBandwidth q(500, 100 * kMs, 7 * kMs);  // period timer started at 7 ms
  q.advance(7 * kMs, 0);
  EXPECT_EQ(q.next_change(7 * kMs, 500), std::nullopt);  // exactly the limit: never runs out
  q.advance(3'600'000 * kMs + 7 * kMs, 500);
  EXPECT_EQ(q.periods(), 36'000u);
  EXPECT_EQ(q.throttled_periods(), 0u);
  q.advance(7'200'000 * kMs, 0);  // idle: no period counted
  EXPECT_EQ(q.periods(), 36'000u);
  // Above the limit: 7,200,000 ms is 93 ms into a period (they start at 7 ms), whose quota would last
  // to 7,200,050 ms, after the period's end; so the quota runs out 50 ms into the next one.
  EXPECT_EQ(q.next_change(7'200'000 * kMs, 1000), 7'200'007 * kMs + 50 * kMs);
}

// ---- a service with a limit ----

using Answers = test_support::ServedTimes;

ServiceConfig one_pod(std::uint32_t concurrency, Duration work) {
  ServiceConfig sc;
  sc.name = "api";
  sc.replicas = {{"a", 1}};
  sc.concurrency = concurrency;
  sc.discovery = "oracle";
  sc.service_time.kind = "constant";
  sc.service_time.value = work;
  return sc;
}

// Submits n jobs at t and runs to the horizon.
void submit_at(Simulation& sim, Service& svc, Answers& answers, SimTime t, std::uint32_t n, std::uint64_t first) {
  sim.schedule_at(t, [&svc, &answers, n, first] {
    for (std::uint32_t i = 0; i < n; ++i) EXPECT_FALSE(svc.submit(Job{.owner = &answers, .token = first + i}));
  });
}

TEST(CpuLimit, OneRequestStandsStillWhenItsPodHasUsedItsQuota) {
  // The hand computation of OneThreadAtOneCoreUnderA200mLimit, through a service: done at 210 ms, not 50.
  Simulation sim;
  ServiceConfig sc = one_pod(1, 50ms);
  sc.cpu.limit = CpuQuantity{200};
  auto& svc = sim.add<Service>(sc, nullptr);
  Answers answers(sim);
  submit_at(sim, svc, answers, SimTime{0ms}, 1, 1);
  sim.run_until(SimTime{1s});
  ASSERT_EQ(answers.at.size(), 1u);
  EXPECT_EQ(answers.at[1], to_ns(SimTime{210ms}));
  EXPECT_DOUBLE_EQ(svc.pod_cpu_core_seconds(0), 0.050);
  sim.finish();
}

TEST(CpuLimit, FourThreadsUnderOneCoreWaitThreeQuartersOfThePeriod) {
  // Four requests of 50 ms at once on four workers, limit 1 core: they use the 100 ms quota in 25 ms, stand
  // still to 100 ms, and finish their last 25 ms at 125 ms. Without the limit: 50 ms.
  for (const bool limited : {false, true}) {
    Simulation sim;
    ServiceConfig sc = one_pod(4, 50ms);
    if (limited) sc.cpu.limit = CpuQuantity{1000};
    auto& svc = sim.add<Service>(sc, nullptr);
    Answers answers(sim);
    submit_at(sim, svc, answers, SimTime{0ms}, 4, 1);
    sim.run_until(SimTime{1s});
    ASSERT_EQ(answers.at.size(), 4u);
    for (const auto& [token, at] : answers.at) EXPECT_EQ(at, to_ns(SimTime{limited ? 125ms : 50ms})) << token;
    sim.finish();
  }
}

TEST(CpuLimit, CpuTimeApartFromWallTime) {
  // 100 ms of wall time using 20 ms of CPU: 200m while it computes. A 200m limit never bites; a 100m limit
  // (10 ms of quota a period) runs out at 50 ms, and the rest of the work follows the refill: done at 150 ms.
  for (const auto& [limit, expected] : {std::pair{200, 100ms}, std::pair{100, 150ms}}) {
    Simulation sim;
    ServiceConfig sc = one_pod(1, 100ms);
    sc.cpu_time = 20ms;
    sc.cpu.limit = CpuQuantity{limit};
    EXPECT_EQ(sc.cpu_millicores_of(0), 200);
    auto& svc = sim.add<Service>(sc, nullptr);
    Answers answers(sim);
    submit_at(sim, svc, answers, SimTime{0ms}, 1, 1);
    sim.run_until(SimTime{1s});
    ASSERT_EQ(answers.at.size(), 1u);
    EXPECT_EQ(answers.at[1], to_ns(SimTime{expected})) << "limit " << limit << "m";
    EXPECT_NEAR(svc.pod_cpu_core_seconds(0), 0.020, 1e-9);
    sim.finish();
  }
}

TEST(CpuLimit, EachOperationHasItsOwnCpuTime) {
  ServiceConfig sc = one_pod(1, 10ms);
  sc.cpu.per_worker = CpuQuantity{700};
  sc.operations = {OperationConfig{.name = "light", .cpu_time = 1ms},
                   OperationConfig{.name = "heavy", .service_time = ServiceTimeConfig{.kind = "constant", .value = 40ms},
                                   .cpu_time = 30ms},
                   OperationConfig{.name = "plain"}};
  EXPECT_EQ(sc.cpu_millicores_of(0), 700);  // no cpuTime anywhere: perWorker
  EXPECT_EQ(sc.cpu_millicores_of(1), 100);
  EXPECT_EQ(sc.cpu_millicores_of(2), 750);
  EXPECT_EQ(sc.cpu_millicores_of(3), 700);
  sc.cpu_time = 5ms;  // now the default, and what plain inherits
  EXPECT_EQ(sc.cpu_millicores_of(0), 500);
  EXPECT_EQ(sc.cpu_millicores_of(3), 500);
  EXPECT_TRUE(sc.validate().empty());
}

std::string field_problems(const ServiceConfig& sc) {
  std::string out;
  for (const ConfigProblem& p : sc.validate()) out += p.field + ": " + p.message + "\n";
  return out;
}

TEST(CpuLimit, BadSettingsAreRefusedWithTheirField) {
  ServiceConfig sc = one_pod(1, 10ms);
  sc.cpu.request = CpuQuantity{1500};
  sc.cpu.limit = CpuQuantity{1000};
  EXPECT_NE(field_problems(sc).find("cpu.request: 1500m exceeds cpu.limit 1"), std::string::npos) << field_problems(sc);
  sc.cpu.request.reset();
  EXPECT_EQ(sc.cpu_request().millicores, 1000);  // Kubernetes: a missing request is the limit
  EXPECT_TRUE(sc.validate().empty()) << field_problems(sc);
  sc.cpu.quota_period = 2s;
  EXPECT_NE(field_problems(sc).find("cpu.quotaPeriod: must be between 1ms and 1s"), std::string::npos);
  sc.cpu.quota_period = 100ms;
  sc.cpu_time = 11ms;
  EXPECT_NE(field_problems(sc).find("cpuTime: 11ms exceeds the mean service time 10ms"), std::string::npos);
  sc.cpu_time = 5ms;
  sc.operations = {OperationConfig{.name = "quick", .service_time = ServiceTimeConfig{.kind = "constant", .value = 2ms}}};
  EXPECT_NE(field_problems(sc).find("of operation \"quick\", which inherits it"), std::string::npos)
      << field_problems(sc);
}

// ---- what a throttled service reports, through a scenario ----

std::string limited_service(const std::string& rate, const std::string& limit) {
  return R"(
apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: throttled}
spec:
  duration: 120s
  seed: 4
  metricsWindow: 10s
  topology:
    regions: [{name: r, zones: [{name: a}]}]
    services:
      - name: api
        replicas: [{zone: a, replicas: 1}]
        concurrency: 8
        discovery: oracle
        serviceTime: {kind: exponential, mean: 20ms}
        cpuTime: 10ms
        cpu: {request: 250m, limit: )" + limit + R"(}
  load:
    - {name: users, service: api, load: {kind: constant, rate: )" + rate + R"(}, timeout: 30s}
)";
}

// The run's KPI (tests/traffic/kpi_lookup.h).
double kpi(const RunResult& run, std::string_view name, const Labels& labels) {
  return test_support::kpi(run.recorder(), name, labels);
}

TEST(CpuLimit, ReportsUseAgainstRequestAndLimitAndTheThrottledShare) {
  // 40 rps x 10 ms of CPU: 0.4 cores, 160% of the 250m request, 80% of a 500m limit. The quota is the
  // capacity: at 60 rps (0.6 cores asked for) the pod is held to 0.5 cores and its queue grows.
  const Labels api{{"service", "api"}, {"zone", "a"}};
  const Labels service{{"service", "api"}};
  double below_limit_share = 0;
  {
    const RunResult run = run_text(limited_service("40rps", "500m"));
    EXPECT_NEAR(kpi(run, "service.cpu_utilization_mean", api), 1.6, 0.08);
    EXPECT_NEAR(kpi(run, "service.cpu_utilization_mean", service), 1.6, 0.08);
    EXPECT_LE(kpi(run, "service.cpu_limit_utilization_peak", api), 1.0 + 1e-9);
    EXPECT_GT(kpi(run, "service.cpu_limit_utilization_peak", api), 0.7);
    // Poisson bursts use up some periods' quota even below the limit on average, and the work held over
    // makes the next period likelier to run out too; but not every period.
    below_limit_share = kpi(run, "service.cpu_throttled_share", api);
    EXPECT_GT(below_limit_share, 0.0);
    EXPECT_LT(below_limit_share, 0.9);
  }
  {
    const RunResult run = run_text(limited_service("60rps", "500m"));
    EXPECT_NEAR(kpi(run, "service.cpu_limit_utilization_peak", api), 1.0, 0.01);
    EXPECT_LE(kpi(run, "service.cpu_limit_utilization_peak", api), 1.0 + 1e-9);
    EXPECT_GT(kpi(run, "service.cpu_throttled_share", api), std::max(0.9, below_limit_share));
    EXPECT_GT(kpi(run, "service.cpu_throttled_s", service), 30.0);  // of 120 s
    EXPECT_GT(kpi(run, "zone.overload_s", api), 60.0);
  }
}

}  // namespace
}  // namespace drsim

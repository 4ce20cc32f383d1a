// The event-loop server model: requests in flight up to maxInFlight, a thread
// only while they compute, none while their calls are out.
#include <gtest/gtest.h>

#include <string>

#include "tests/io/test_support.h"
#include "tests/drills/run_text.h"
#include "tests/traffic/kpi_lookup.h"

namespace drsim {
namespace {

using test_support::run_text;
using testing::load_error;  // the io tests' own

// A front that computes 2 ms per request, then calls a back end that answers
// after 100 ms, at 40 requests per second: 4.08 requests in flight at the
// front on average (Little), but only 0.08 threads computing.
std::string front_and_back(const std::string& server) {
  return R"(
apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: loop}
spec:
  duration: 300s
  seed: 9
  metricsWindow: 10s
  topology:
    regions: [{name: r, zones: [{name: a}]}]
    services:
      - name: front
        replicas: [{zone: a, replicas: 1}]
        concurrency: 2
)" + server + R"(
        discovery: oracle
        serviceTime: {kind: constant, value: 2ms}
        calls: [{service: back}]
      - name: back
        replicas: [{zone: a, replicas: 1}]
        concurrency: 100
        discovery: oracle
        serviceTime: {kind: constant, value: 100ms}
  load:
    - {name: users, service: front, load: {kind: constant, rate: 40rps}, arrivals: deterministic, timeout: 5s}
)";
}

// The run's KPI (tests/traffic/kpi_lookup.h).
double kpi(const RunResult& run, std::string_view name, const Labels& labels) {
  return test_support::kpi(run.recorder(), name, labels);
}

const Labels kUsers{{"population", "users"}};
const Labels kFront{{"service", "front"}, {"zone", "a"}};

TEST(EventLoop, ThreadsAreFreeWhileCallsAreOut) {
  const RunResult run = run_text(front_and_back("        server: eventLoop\n        maxInFlight: 50"));
  // Every request is answered in its own 102 ms: two threads are plenty.
  EXPECT_EQ(kpi(run, "client.failed", {{"cause", "timeout"}, {"population", "users"}}), 0);
  EXPECT_NEAR(kpi(run, "client.latency_p99_s", kUsers), 0.102, 0.102 * 0.01);
  // Utilisation is the threads' computing: 40/s x 2 ms over 2 threads.
  EXPECT_NEAR(kpi(run, "zone.utilization_mean", kFront), 0.04, 0.002);
}

TEST(EventLoop, AWorkerPoolOfTheSameSizeHoldsItsWorkersThroughTheCalls) {
  const RunResult run = run_text(front_and_back(""));
  // Two workers, each held 102 ms a request: at most 19.6 requests a second, against 40 offered.
  EXPECT_NEAR(kpi(run, "zone.utilization_mean", kFront), 1.0, 0.01);
  EXPECT_GT(kpi(run, "client.failed", {{"cause", "timeout"}, {"population", "users"}}), 0);
}

TEST(EventLoop, RequestsBeyondMaxInFlightWaitInThePodsQueue) {
  // Room for 3 in flight: with 4.08 wanted, some wait for a place (service.waited) and none is lost.
  const RunResult run = run_text(front_and_back("        server: eventLoop\n        maxInFlight: 3"));
  EXPECT_GT(kpi(run, "zone.overload_s", kFront), 0);
  EXPECT_EQ(kpi(run, "service.rejected", kFront), 0);
}

TEST(EventLoop, BusyThreadsQueueRequestsFirstComeFirstServed) {
  // One thread, 20 ms a request, 40 requests a second: the CPU is 80% busy, requests queue for the thread
  // (not for a place in flight), and the loop is stable.
  std::string text = front_and_back("        server: eventLoop\n        maxInFlight: 1000");
  text.replace(text.find("concurrency: 2"), 14, "concurrency: 1");
  text.replace(text.find("value: 2ms"), 10, "value: 20ms");
  const RunResult run = run_text(text);
  EXPECT_NEAR(kpi(run, "zone.utilization_mean", kFront), 0.8, 0.01);
  EXPECT_EQ(kpi(run, "client.failed", {{"cause", "timeout"}, {"population", "users"}}), 0);
  // Deterministic arrivals every 25 ms and constant 20 ms: D/D/1, no one ever waits for the thread.
  EXPECT_NEAR(kpi(run, "client.latency_p99_s", kUsers), 0.120, 0.120 * 0.01);
}

TEST(EventLoop, MaxInFlightIsRequiredAndOnlyForEventLoops) {
  std::string error = load_error(front_and_back("        server: eventLoop"));
  EXPECT_NE(error.find("maxInFlight"), std::string::npos) << error;
  EXPECT_NE(error.find("required"), std::string::npos) << error;
  error = load_error(front_and_back("        maxInFlight: 5"));
  EXPECT_NE(error.find("applies to server eventLoop only"), std::string::npos) << error;
  error = load_error(front_and_back("        server: reactor"));
  EXPECT_NE(error.find("expected workerPool or eventLoop"), std::string::npos) << error;
}

}  // namespace
}  // namespace drsim

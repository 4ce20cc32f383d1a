// Deadlines (ServiceConfig::deadlines): with `propagate` a service drops a
// queued request whose caller has given up and cancels one in service at its
// deadline, and its calls carry the time left to their callees; with `ignore`
// (the default) it goes on with work nobody waits for. The figures are
// derived from the scenarios' own rates, service times and timeouts
// (self-consistency checks of the mechanism, not published figures).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"
#include "tests/drills/run_text.h"

namespace drsim {
namespace {

using test_support::run_text;

using test_support::kpi;
using test_support::series;

// One pod of one worker, 100 ms a request (10 a second), behind no balancer
// worth the name (one zone, the oracle: this is about the queue). 40 requests
// a second for 10 s, then 5 a second; clients give up after 1 s.
std::string burst(const std::string& deadlines) {
  return R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: burst
spec:
  duration: 60s
  seed: 1
  metricsWindow: 1s
  topology:
    regions:
      - name: r
        zones: [{name: a}]
    services:
      - name: api
        discovery: oracle
        deadlines: )" + deadlines + R"(
        concurrency: 1
        serviceTime: {kind: constant, value: 100ms}
        replicas: [{zone: a, replicas: 1}]
  load:
    - name: users
      service: api
      arrivals: deterministic
      load:
        kind: stages
        startRate: 40rps
        stages:
          - {duration: 10s, target: 40rps}
          - {duration: 0s, target: 5rps}
      timeout: 1s
)";
}

double failures_from(const Recorder& rec, double from_s) {
  double total = 0;
  for (const Recorder::Series& s : rec.series_list()) {
    if (s.metric != "client.failed") continue;
    for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
      if (s.t_ns[i] >= from_s * 1e9) total += s.value[i];
    }
  }
  return total;
}

TEST(Deadlines, AQueueThatHonoursDeadlinesForgetsTheBurstAtOnce) {
  // The burst leaves 40 x 10 - 10 x 10 = 300 requests queued. Ignored, the queue drains at 10 - 5 = 5 a second
  // after the burst: every request waits more than its 1 s for about a minute, so they all fail to the end.
  const RunResult ignored = run_text(burst("ignore"));
  const double ignored_late = failures_from(ignored.recorder(), 40);
  // Honoured, the request in service is cancelled at its deadline and the next is taken; one still queued
  // past its deadline is answered without running: the burst is forgotten 1 s after it ends (plus the 100 ms
  // request in service), and nothing fails after.
  const RunResult honoured = run_text(burst("propagate"));
  const double honoured_late = failures_from(honoured.recorder(), 12);
  const double given_up = kpi(honoured.recorder(), "service.deadline_drops", {{"service", "api"}}) +
                          kpi(honoured.recorder(), "service.deadline_cancels", {{"service", "api"}});
  std::printf("failures after the burst: ignored %.0f (from 40 s), honoured %.0f (from 12 s); given up %.0f\n",
              ignored_late, honoured_late, given_up);
  EXPECT_GT(ignored_late, 5 * 20 * 0.9) << "the last 20 s still fail";
  EXPECT_EQ(honoured_late, 0);
  // Given up on: the k-th request of the burst starts after 0.1 k s and was sent k / 40 s in, so it has waited
  // 0.075 k s: the first 13 (k <= 12) are done within their second, every later one of the 400 is not. Once
  // the queue is that deep the worker takes each next request just before its deadline and is cancelled at
  // it (FIFO under overload: deadlines free the worker but do not save the burst).
  EXPECT_NEAR(given_up, 400 - 13, 3);
  EXPECT_EQ(ignored.recorder().find_kpi("service.deadline_drops", {{"service", "api"}}), nullptr) << "ignored";
}

// web calls api with no timeout of its own; api takes 5 s a request. Users give up after 1 s, at 10 a second.
std::string slow_callee(const std::string& deadlines) {
  return R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: slow-callee
spec:
  duration: 120s
  seed: 1
  metricsWindow: 10s
  topology:
    regions:
      - name: r
        zones: [{name: a}]
    services:
      - name: web
        discovery: oracle
        deadlines: )" + deadlines + R"(
        concurrency: 100
        serviceTime: {kind: constant, value: 1ms}
        replicas: [{zone: a, replicas: 1}]
        calls: [{service: api}]
      - name: api
        discovery: oracle
        deadlines: )" + deadlines + R"(
        concurrency: 100
        serviceTime: {kind: constant, value: 5s}
        replicas: [{zone: a, replicas: 1}]
  load:
    - name: users
      service: web
      arrivals: deterministic
      load: {kind: constant, rate: 10rps}
      timeout: 1s
)";
}

TEST(Deadlines, ACallersDeadlineCancelsItsCalleesWork) {
  // Ignored: each request holds a worker of web and of api for 5 s: 10 x 5 = 50 of 100 busy (Little's law).
  // Propagated: web's call carries the user's deadline; both give the worker back at it: 10 x 1 s = 10 of 100.
  const Labels api{{"service", "api"}, {"zone", "a"}};
  const Labels web{{"service", "web"}, {"zone", "a"}};
  const RunResult ignored = run_text(slow_callee("ignore"));
  const RunResult propagated = run_text(slow_callee("propagate"));
  const double ignored_api = kpi(ignored.recorder(), "zone.utilization_mean", api);
  const double propagated_api = kpi(propagated.recorder(), "zone.utilization_mean", api);
  const double propagated_web = kpi(propagated.recorder(), "zone.utilization_mean", web);
  std::printf("api busy: ignored %.3f, propagated %.3f; web busy propagated %.3f\n", ignored_api, propagated_api,
              propagated_web);
  // The first 5 s (ignored) or 1 s (propagated) fill up linearly from empty: half the steady value over them.
  EXPECT_NEAR(ignored_api, 0.50 * (120 - 2.5) / 120, 0.005);
  EXPECT_NEAR(propagated_api, 0.10 * (120 - 0.5) / 120, 0.002);
  EXPECT_NEAR(propagated_web, 0.10 * (120 - 0.5) / 120, 0.002);
  // Every request is cancelled at both, once the first second is over: 10 x 119 of the 1,200 sent.
  EXPECT_NEAR(kpi(propagated.recorder(), "service.deadline_cancels", {{"service", "api"}}), 1190, 10);
  EXPECT_NEAR(kpi(propagated.recorder(), "service.deadline_cancels", {{"service", "web"}}), 1190, 10);
  // The users fail the same way either way: at their own 1 s timeout.
  EXPECT_EQ(kpi(ignored.recorder(), "client.succeeded", {{"population", "users"}}), 0);
  EXPECT_EQ(kpi(propagated.recorder(), "client.succeeded", {{"population", "users"}}), 0);
}

// A call's own timeout shorter than the user's: the callee's deadline is the call's (0.3 s), not the user's.
TEST(Deadlines, ACallCarriesTheEarlierOfItsTimeoutAndTheCallersDeadline) {
  std::string text = slow_callee("propagate");
  const std::string calls = "calls: [{service: api}]";
  text.replace(text.find(calls), calls.size(), "calls: [{service: api, timeout: 300ms}]");
  const RunResult run = run_text(text);
  const double api = kpi(run.recorder(), "zone.utilization_mean", {{"service", "api"}, {"zone", "a"}});
  std::printf("api busy with a 300 ms call timeout: %.4f\n", api);
  EXPECT_NEAR(api, 0.03 * (120 - 0.15) / 120, 0.0005);  // 10 x 0.3 s of 100 workers, filling up over 0.3 s
}

// Requests with different deadlines in one queue: a patient request in service (1.5 s, users wait 60 s) keeps
// the hasty ones (users wait 0.4 s) queued past their deadlines, so they are answered without running when
// the worker frees up, not cancelled. Patient users arrive every 2 s from 2 s, hasty ones every second from
// 1 s: in each 2 s period the hasty request sent at an odd second is queued behind the patient one (busy
// until 1.5 s into the period, or 1.9 s when the hasty one of the even second went first and was cancelled
// at its 0.4 s) and dropped; the one sent with the patient one is dropped or cancelled.
TEST(Deadlines, AQueuedRequestPastItsDeadlineIsAnsweredWithoutRunning) {
  const RunResult run = run_text(R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: mixed-deadlines
spec:
  duration: 60s
  seed: 1
  topology:
    regions:
      - name: r
        zones: [{name: a}]
    services:
      - name: api
        discovery: oracle
        deadlines: propagate
        concurrency: 1
        serviceTime: {kind: constant, value: 1500ms}
        replicas: [{zone: a, replicas: 1}]
  load:
    - name: patient
      service: api
      arrivals: deterministic
      load: {kind: constant, rate: 0.5rps}
      timeout: 60s
    - name: hasty
      service: api
      arrivals: deterministic
      load: {kind: constant, rate: 1rps}
      timeout: 400ms
)");
  const Recorder& rec = run.recorder();
  const double drops = kpi(rec, "service.deadline_drops", {{"service", "api"}});
  const double cancels = kpi(rec, "service.deadline_cancels", {{"service", "api"}});
  const double hasty = kpi(rec, "client.offered", {{"population", "hasty"}});
  std::printf("hasty offered %.0f: dropped %.0f, cancelled %.0f; patient served %.0f of %.0f\n", hasty, drops,
              cancels, kpi(rec, "client.succeeded", {{"population", "patient"}}),
              kpi(rec, "client.offered", {{"population", "patient"}}));
  EXPECT_EQ(kpi(rec, "client.succeeded", {{"population", "hasty"}}), 0);
  EXPECT_GE(drops, 29) << "at least the odd second's request of each of the 29 full periods";
  EXPECT_NEAR(drops + cancels, hasty, 1) << "every hasty request given up on (the last may still be queued)";
  EXPECT_GE(kpi(rec, "client.succeeded", {{"population", "patient"}}), 29);
}

}  // namespace
}  // namespace drsim

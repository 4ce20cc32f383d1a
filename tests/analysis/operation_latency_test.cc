// Per-operation response times of stations that serve a mix of operations
// (analysis/operation_latency.h), checked by hand on small call graphs: the
// wait is the station's, the service time the operation's own, and the calls
// the operation's own, followed down to the operation called. Exponential
// branches in parallel give the closed form of their expected maximum
// (1.5 means for two equal ones).
#include "analysis/operation_latency.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace drsim {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kNone = CallGroupOrigin::kNoOperation;

double s(Duration d) { return to_seconds(d); }

// front (node 0): "browse" (75%, 10 ms) calls back's "lookup" once; "buy" (25%, 30 ms) calls back's "store" twice in
// parallel. back (node 1): "lookup" (60% of its calls, 20 ms) calls leaf (node 2) once; "store" (40%, 40 ms) calls
// nothing. leaf answers as a whole (5 ms). Round trips 2 ms. 20 front requests a second.
struct Shop {
  CallGraph graph;
  std::vector<Station> stations;
  std::vector<Rate> external;
  std::vector<std::vector<CallGroupOrigin>> origins;
  std::vector<std::vector<Duration>> service;
  CapacityReport report;

  // back's mix: browse 0.75 x 1 lookup, buy 0.25 x 2 stores per front request: lookup 0.75 / 1.25 = 60%.
  static constexpr double kLookup = 0.6, kStore = 0.4;

  Shop() {
    for (const char* name : {"front", "back", "leaf"}) graph.add_node(name);
    const Duration back_mix = Duration{std::llround((kLookup * 0.020 + kStore * 0.040) * 1e9)};
    // front's calls: per request of front, each operation's share folded into a sequential count, a parallel
    // group's share its weight; a call to one operation of back adds that operation's time less back's mix.
    Call lookup{.target = 1, .count = 0.75, .network_rtt = 2ms, .callee_time_delta = 20ms - back_mix};
    graph.add_sequential(0, {lookup});
    Call store{.target = 1, .count = 1, .network_rtt = 2ms, .callee_time_delta = 40ms - back_mix};
    graph.add_parallel(0, {store, store}, 0.25);
    graph.add_sequential(1, {Call{.target = 2, .count = kLookup, .network_rtt = 2ms}});
    stations = {Station{.servers = 4, .mean_service = 15ms},  // 0.75 x 10 + 0.25 x 30
                Station{.servers = 4, .mean_service = back_mix}, Station{.servers = 2, .mean_service = 5ms}};
    external = {Rate{20}, Rate{}, Rate{}};
    origins = {{CallGroupOrigin{0, 0.75, {0}}, CallGroupOrigin{1, 0.25, {1, 1}}},
               {CallGroupOrigin{0, kLookup, {kNone}}},
               {}};
    service = {{10ms, 30ms}, {20ms, 40ms}, {}};
    report = check_capacity(graph, stations, external);
  }

  OperationLatency latency() const { return OperationLatency(graph, report, stations, origins, service); }
  double wait(std::size_t node) const { return s(report.nodes[node].queue->mean_wait); }
  double end_to_end(std::size_t node) const { return s(*report.nodes[node].end_to_end); }
};

TEST(OperationLatency, EachOperationTakesItsOwnServiceTimeAndCalls) {
  const Shop shop;
  ASSERT_TRUE(shop.report.ok()) << shop.report.error;
  OperationLatency latency = shop.latency();
  const double leaf = shop.end_to_end(2);
  const double lookup = shop.wait(1) + 0.020 + (0.002 + leaf);
  const double store = shop.wait(1) + 0.040;
  EXPECT_NEAR(latency.response_s(1, 0), lookup, 1e-9);
  EXPECT_NEAR(latency.response_s(1, 1), store, 1e-9);
  EXPECT_NEAR(latency.response_s(0, 0), shop.wait(0) + 0.010 + 0.002 + lookup, 1e-9);
  // Two independent exponential branches of mean m after the same round trip: rtt + 1.5 m.
  EXPECT_NEAR(latency.response_s(0, 1), shop.wait(0) + 0.030 + 0.002 + 1.5 * store, 1e-8);
  // A node answering as a whole, or asked for no operation of its own: its end-to-end time.
  EXPECT_DOUBLE_EQ(latency.response_s(2, 0), leaf);
  EXPECT_DOUBLE_EQ(latency.response_s(1, 7), shop.end_to_end(1));
}

TEST(OperationLatency, SelfConsistencyTheSharesAddUpToTheStationsEndToEnd) {
  // Self-consistency (the check against its own formula): back's callees answer as a whole, so its operations'
  // responses weighted by their shares are its end-to-end time. front's are not: its calls to "store" wait for
  // store's own response, not back's mixture plus store's extra service time (which includes lookup's call).
  const Shop shop;
  OperationLatency latency = shop.latency();
  // (Within the nanosecond rounding of the report's waits.)
  EXPECT_NEAR(Shop::kLookup * latency.response_s(1, 0) + Shop::kStore * latency.response_s(1, 1), shop.end_to_end(1),
              2e-9);
  const double mixture = s(shop.stations[1].mean_service);
  EXPECT_LT(latency.response_s(1, 1), shop.end_to_end(1) + 0.040 - mixture);
  EXPECT_GT(latency.response_s(1, 0), shop.end_to_end(1) + 0.020 - mixture);
}

TEST(OperationLatency, ACallLostOnTheWayOrAnUnstableStationIsUnbounded) {
  Shop shop;
  // Half of back's calls to leaf lost (a zone unreachable): lookup never returns, browse neither; store does.
  shop.graph = CallGraph{};
  for (const char* name : {"front", "back", "leaf"}) shop.graph.add_node(name);
  shop.graph.add_sequential(0, {Call{.target = 1, .count = 0.75, .network_rtt = 2ms}});
  shop.graph.add_parallel(0, {Call{.target = 1, .count = 1}, Call{.target = 1, .count = 1}}, 0.25);
  Call half{.count = Shop::kLookup, .routes = {CallRoute{2, 0.5, 2ms}}};
  shop.graph.add_sequential(1, {half});
  shop.report = check_capacity(shop.graph, shop.stations, shop.external);
  ASSERT_TRUE(shop.report.ok());
  OperationLatency latency = shop.latency();
  EXPECT_TRUE(std::isinf(latency.response_s(1, 0)));
  EXPECT_TRUE(std::isinf(latency.response_s(0, 0)));
  // back's and front's end-to-end times are unbounded (some of their requests never return); store and buy, which
  // do not call leaf, are answered.
  EXPECT_FALSE(shop.report.nodes[1].end_to_end);
  EXPECT_FALSE(shop.report.nodes[0].end_to_end);
  EXPECT_NEAR(latency.response_s(1, 1), shop.wait(1) + 0.040, 1e-9);
  EXPECT_NEAR(latency.response_s(0, 1), shop.wait(0) + 0.030 + 1.5 * latency.response_s(1, 1), 1e-8);

  Shop busy;
  busy.external[0] = Rate{400};  // front: 400 x 15 ms over 4 workers = 1.5
  busy.report = check_capacity(busy.graph, busy.stations, busy.external);
  ASSERT_TRUE(busy.report.ok());
  OperationLatency overloaded = busy.latency();
  EXPECT_TRUE(std::isinf(overloaded.response_s(0, 0)));
}

TEST(OperationLatency, ACycleBackIntoAnOperationTakesTheChecksOwnCalleeTime) {
  // node 0's only operation calls itself again on 30% of its requests (a retry loop): followed once, then the
  // check's own end-to-end time, which is exact here (one operation).
  CallGraph graph;
  graph.add_node("loop");
  graph.add_sequential(0, {Call{.target = 0, .count = 0.3, .network_rtt = 1ms}});
  const std::vector<Station> stations{Station{.servers = 2, .mean_service = 10ms}};
  const CapacityReport report = check_capacity(graph, stations, std::vector<Rate>{Rate{10}});
  ASSERT_TRUE(report.ok());
  OperationLatency latency(graph, report, stations, {{CallGroupOrigin{0, 1.0, {0}}}}, {{10ms}});
  const double t = s(*report.nodes[0].end_to_end);
  EXPECT_NEAR(latency.response_s(0, 0), t, 1e-9);
}

TEST(OperationLatency, OriginsThatDoNotMatchTheGraphAreRefused) {
  const Shop shop;
  auto origins = shop.origins;
  origins[0].pop_back();
  EXPECT_THROW(OperationLatency(shop.graph, shop.report, shop.stations, origins, shop.service), std::invalid_argument);
  origins = shop.origins;
  origins[0][1].callee_operations = {1};
  EXPECT_THROW(OperationLatency(shop.graph, shop.report, shop.stations, origins, shop.service), std::invalid_argument);
  CapacityReport failed;
  failed.status = TrafficStatus::kUnboundedResponse;
  EXPECT_THROW(OperationLatency(shop.graph, failed, shop.stations, shop.origins, shop.service), std::invalid_argument);
}

}  // namespace
}  // namespace drsim

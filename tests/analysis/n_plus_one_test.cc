// The N+1 report's station network, checked by hand on small deployments:
// the rates that the call graph and the routing rules give every service in
// every zone, the held workers' holding times, failures that leave callers
// without a target or a route, zone affinity's spill-over, and the text and
// JSON forms.
#include "analysis/n_plus_one.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analysis/queueing.h"
#include "models/topology/topology.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

TopologyConfig regions(bool linked = true) {
  TopologyConfig t;
  t.regions = {RegionConfig{"eu", {ZoneConfig{"a"}, ZoneConfig{"b"}, ZoneConfig{"c"}}, 2ms},
               RegionConfig{"us", {ZoneConfig{"d"}}, 1ms}};
  if (linked) t.links = {LinkConfig{"eu-us", {"eu", "us"}, 40ms, 0ms, Bandwidth{1e9}, Ratio{0}}};
  return t;
}

ServiceConfig service(std::string name, std::vector<ReplicasConfig> replicas, Duration mean,
                      std::uint32_t concurrency = 4, std::vector<CallConfig> calls = {}) {
  ServiceConfig s;
  s.name = std::move(name);
  s.replicas = std::move(replicas);
  s.concurrency = concurrency;
  s.service_time.mean = mean;
  s.balancing = "random";
  s.calls = std::move(calls);
  return s;
}

ClientPopulationConfig users(double rate, std::string zone = "") {
  ClientPopulationConfig p;
  p.name = "users";
  p.service = "front";
  p.zone = std::move(zone);
  p.load.rate = Rate{rate};
  return p;
}

const StationRow& row(const FailureCase& c, const std::string& service, const std::string& zone) {
  for (const StationRow& r : c.stations) {
    if (r.service == service && r.zone == zone) return r;
  }
  throw std::runtime_error("no row " + service + "@" + zone);
}

const FailureCase& find_case(const NPlusOneReport& report, const std::string& name) {
  for (const FailureCase& c : report.cases) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no case " + name);
}

TEST(NPlusOne, CallsMultiplyAndTheBalancersSpreadTheLoad) {
  // front (2 pods in a, b, c) calls back twice in sequence, then x and y in
  // parallel; back has pods in a and b only, y in d (another region).
  const std::vector<ServiceConfig> services{
      service("front", {{"a", 2}, {"b", 2}, {"c", 2}}, 10ms, 8,
              {{"back", 2, false}, {"x", 1, true}, {"y", 1, true}}),
      service("back", {{"a", 1}, {"b", 1}}, 5ms),
      service("x", {{"a", 1}, {"b", 1}, {"c", 1}}, 5ms),
      service("y", {{"d", 2}}, 5ms),
  };
  const NPlusOneReport report = n_plus_one(regions(), services, {users(120)});
  ASSERT_EQ(report.cases.size(), 1u + 4 + 2);
  const FailureCase& steady = report.cases[0];
  EXPECT_TRUE(steady.error.empty());
  EXPECT_TRUE(steady.notes.empty());
  EXPECT_NEAR(row(steady, "front", "a").rate_per_s, 40, 1e-9);
  EXPECT_NEAR(row(steady, "back", "a").rate_per_s, 120, 1e-9);  // 2 calls x 120 / 2 zones
  EXPECT_NEAR(row(steady, "x", "c").rate_per_s, 40, 1e-9);
  EXPECT_NEAR(row(steady, "y", "d").rate_per_s, 120, 1e-9);
  EXPECT_NEAR(row(steady, "back", "a").utilization, 120 * 0.005 / 4, 1e-12);
  // Little's law for the held workers: utilisation = rate x holding / workers.
  const StationRow& front = row(steady, "front", "a");
  ASSERT_TRUE(front.mean_holding && front.mean_response);
  EXPECT_NEAR(front.utilization, 40 * to_seconds(*front.mean_holding) / 16, 1e-9);
  // front's worker waits for the calls: at least two back round trips and the far y.
  EXPECT_GT(to_seconds(*front.mean_holding), 0.010 + 2 * 0.005 + 0.0405 + 0.005);
  EXPECT_GE(*front.mean_response, *front.mean_holding);

  // Zone a down: front's traffic and back's calls move to the others.
  const FailureCase& a_down = find_case(report, "zone a down");
  EXPECT_EQ(row(a_down, "front", "a").up_pods, 0u);
  EXPECT_NEAR(row(a_down, "front", "b").rate_per_s, 60, 1e-9);
  EXPECT_NEAR(row(a_down, "back", "b").rate_per_s, 240, 1e-9);
  EXPECT_NEAR(row(a_down, "back", "b").utilization, 240 * 0.005 / 4, 1e-12);

  // Region us down: y has no pod anywhere; front's calls to it fail at once.
  const FailureCase& us_down = find_case(report, "region us down");
  EXPECT_TRUE(us_down.overloaded);
  ASSERT_EQ(us_down.notes.size(), 3u);  // one per zone of front
  EXPECT_NE(us_down.notes[0].find("to y fail at once: no up pod"), std::string::npos) << us_down.notes[0];
}

TEST(NPlusOne, AHeldWorkerCarriesItsCallees) {
  // One zone, no network: front's holding time is its own 10 ms plus two
  // back responses (M/M/2 per pod at 60 rps, 20 ms).
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}}, 1ms}};
  const std::vector<ServiceConfig> services{service("front", {{"a", 1}}, 10ms, 8, {{"back", 2, false}}),
                                            service("back", {{"a", 1}}, 20ms, 2)};
  const NPlusOneReport report = n_plus_one(t, services, {users(30)});
  const FailureCase& steady = report.cases[0];
  const auto back = mmc_metrics(Rate{60}, 20ms, 2);
  ASSERT_TRUE(back.has_value());
  const double back_response = back->mean_in_system / 60;
  EXPECT_NEAR(to_seconds(*row(steady, "back", "a").mean_response), back_response, 1e-9);
  const double holding = 0.010 + 2 * back_response;
  EXPECT_NEAR(to_seconds(*row(steady, "front", "a").mean_holding), holding, 1e-9);
  const auto front = mmc_metrics(Rate{30}, Duration{static_cast<std::int64_t>(holding * 1e9)}, 8);
  EXPECT_NEAR(to_seconds(*row(steady, "front", "a").mean_response), to_seconds(front->mean_response), 2e-9);
  // The population pays no network (it sits nowhere in the topology).
  EXPECT_EQ(steady.populations[0].mean_latency, row(steady, "front", "a").mean_response);
  EXPECT_FALSE(steady.overloaded);
}

TEST(NPlusOne, OverloadAndUnservedCasesAreMarked) {
  const std::vector<ServiceConfig> services{service("front", {{"a", 1}, {"b", 1}}, 20ms, 4)};
  // 150 rps: 37.5% per zone steady; with a zone down 75%, over a 70% target.
  const NPlusOneReport report = n_plus_one(regions(), services, {users(150, "a")}, 0.7);
  EXPECT_FALSE(report.cases[0].overloaded);
  const FailureCase& b_down = find_case(report, "zone b down");
  EXPECT_TRUE(b_down.overloaded);
  EXPECT_TRUE(row(b_down, "front", "a").overloaded);
  EXPECT_NEAR(row(b_down, "front", "a").headroom, 0.7 / 0.75 - 1, 1e-12);
  // The clients sit in a: with a down they reach nothing.
  const FailureCase& a_down = find_case(report, "zone a down");
  EXPECT_TRUE(a_down.overloaded);
  EXPECT_NEAR(a_down.populations[0].unserved_rate_per_s, 150, 1e-9);
  EXPECT_FALSE(a_down.populations[0].mean_latency.has_value());
  EXPECT_TRUE(report.any_overloaded());
  // Latency from a: half the requests stay in a, half cross to b (2 ms round trip).
  const FailureCase& steady = report.cases[0];
  const double response = to_seconds(*row(steady, "front", "a").mean_response);
  EXPECT_NEAR(to_seconds(*steady.populations[0].mean_latency), response + 0.5 * 0.002, 1e-9);
}

TEST(NPlusOne, CallsToAnUnreachableZoneNeverReturn) {
  // Two regions without a link: front in eu calls back, which has pods in eu and us behind one balancer that
  // spans both regions (the oracle's; a cloud load balancer is regional, see the next test).
  std::vector<ServiceConfig> services{service("front", {{"a", 1}}, 10ms, 4, {{"back", 1, false}}),
                                      service("back", {{"a", 1}, {"d", 1}}, 5ms)};
  services[1].discovery = "oracle";
  const NPlusOneReport report = n_plus_one(regions(false), services, {users(10)});
  const FailureCase& steady = report.cases[0];
  EXPECT_TRUE(steady.overloaded);
  ASSERT_EQ(steady.notes.size(), 1u);
  EXPECT_NE(steady.notes[0].find("back@d are lost"), std::string::npos) << steady.notes[0];
  EXPECT_FALSE(row(steady, "front", "a").stable);  // its workers wait for ever
  EXPECT_FALSE(steady.populations[0].mean_latency.has_value());
  // With d down, nothing goes there.
  const FailureCase& d_down = find_case(report, "zone d down");
  EXPECT_TRUE(d_down.notes.empty());
  EXPECT_TRUE(row(d_down, "front", "a").stable);
}

TEST(NPlusOne, CloudLoadBalancersAreRegional) {
  // back (2 pods in a, 1 in b, 1 in d) behind cloud load balancers (the default outside Kubernetes): front
  // in eu calls eu's balancer only, by the pods' weights; a population outside the topology reaches each
  // region's balancer by its live nodes (one per up zone: 2 of 3 for eu), by pods within the region.
  std::vector<ServiceConfig> services{service("front", {{"a", 1}}, 10ms, 4, {{"back", 1, false}}),
                                      service("back", {{"a", 2}, {"b", 1}, {"d", 1}}, 5ms)};
  const FailureCase steady = n_plus_one(regions(), services, {users(30)}).cases[0];
  EXPECT_NEAR(row(steady, "back", "a").rate_per_s, 20, 1e-9);
  EXPECT_NEAR(row(steady, "back", "b").rate_per_s, 10, 1e-9);
  EXPECT_NEAR(row(steady, "back", "d").rate_per_s, 0, 1e-9);
  // Zonal (an nlb, crossZone off): each node, hence each zone of the region, an equal share.
  services[1].load_balancer = LoadBalancerConfig{};
  services[1].load_balancer->type = "nlb";
  const FailureCase zonal = n_plus_one(regions(), services, {users(30)}).cases[0];
  EXPECT_NEAR(row(zonal, "back", "a").rate_per_s, 15, 1e-9);
  EXPECT_NEAR(row(zonal, "back", "b").rate_per_s, 15, 1e-9);
  // A population outside the topology: by live nodes, 2 of 3 to eu's balancer (by pods: a 2, b 1), 1 of 3
  // to us's; with b down, 1 of 2 each.
  const std::vector<ServiceConfig> entry{service("front", {{"a", 2}, {"b", 1}, {"d", 1}}, 10ms, 4)};
  const NPlusOneReport report = n_plus_one(regions(), entry, {users(30)});
  EXPECT_NEAR(row(report.cases[0], "front", "a").rate_per_s, 20 * 2.0 / 3, 1e-9);
  EXPECT_NEAR(row(report.cases[0], "front", "b").rate_per_s, 20 * 1.0 / 3, 1e-9);
  EXPECT_NEAR(row(report.cases[0], "front", "d").rate_per_s, 10, 1e-9);
  const FailureCase& b_down = find_case(report, "zone b down");
  EXPECT_NEAR(row(b_down, "front", "a").rate_per_s, 15, 1e-9);
  EXPECT_NEAR(row(b_down, "front", "d").rate_per_s, 15, 1e-9);
}

TEST(NPlusOne, SidecarsWithLocalityFailoverKeepACallersLoadInItsZone) {
  // front (3 pods in a, 1 in b; users spread over them by pods) calls back (1 pod in a, c and d) through
  // sidecars with Istio's locality failover: a's front pods call a's back; b has none, so b's front pod calls
  // the rest of its region (a and c, by pods), never d. Through kube-proxy each back pod gets a third.
  std::vector<ServiceConfig> services{service("front", {{"a", 3}, {"b", 1}}, 10ms, 4, {{"back", 1, false}}),
                                      service("back", {{"a", 1}, {"c", 1}, {"d", 1}}, 5ms)};
  services[1].discovery = "mesh";
  const NPlusOneReport report = n_plus_one(regions(), services, {users(40)}, 0.8, {}, true);
  const FailureCase& steady = report.cases[0];
  EXPECT_NEAR(row(steady, "back", "a").rate_per_s, 30 + 5, 1e-9);
  EXPECT_NEAR(row(steady, "back", "c").rate_per_s, 5, 1e-9);
  EXPECT_NEAR(row(steady, "back", "d").rate_per_s, 0, 1e-9);
  // Zone a lost: all 40 through b's front pod, whose region has back only in c.
  const FailureCase& a_down = find_case(report, "zone a down");
  EXPECT_NEAR(row(a_down, "back", "c").rate_per_s, 40, 1e-9);
  EXPECT_NEAR(row(a_down, "back", "d").rate_per_s, 0, 1e-9);
  services[1].discovery = "kubernetes";
  const FailureCase kube = n_plus_one(regions(), services, {users(40)}, 0.8, {}, true).cases[0];
  for (const char* zone : {"a", "c", "d"}) EXPECT_NEAR(row(kube, "back", zone).rate_per_s, 40.0 / 3, 1e-9) << zone;
}

TEST(NPlusOne, ZoneAffinitySpillsMoreAsTheLocalZoneFills) {
  // front in a and b calls back (affinity; one pod of 2 workers per zone).
  auto deployment = [](bool affinity) {
    std::vector<ServiceConfig> s{service("front", {{"a", 2}, {"b", 2}}, 5ms, 8, {{"back", 1, false}}),
                                 service("back", {{"a", 1}, {"b", 1}}, 10ms, 2)};
    s[1].zone_affinity = affinity;
    return s;
  };
  double previous = 0;
  for (double rate : {40.0, 120.0, 240.0}) {
    const FailureCase steady = n_plus_one(regions(), deployment(true), {users(rate)}).cases[0];
    const StationRow& back = row(steady, "back", "a");
    EXPECT_GT(back.spill, previous) << rate;
    EXPECT_LT(back.spill, 1) << rate;
    previous = back.spill;
    // Symmetric zones: every zone still serves half of the calls.
    EXPECT_NEAR(back.rate_per_s, rate / 2, 1e-6 * rate);
  }
  // Local calls pay no network and never wait when they join: faster than
  // without affinity.
  const FailureCase with = n_plus_one(regions(), deployment(true), {users(120)}).cases[0];
  const FailureCase without = n_plus_one(regions(), deployment(false), {users(120)}).cases[0];
  EXPECT_LT(*row(with, "front", "a").mean_holding, *row(without, "front", "a").mean_holding);
  EXPECT_EQ(row(without, "back", "a").spill, 0);
}

TEST(NPlusOne, OverloadedStationsReportTheirOfferedLoad) {
  // One pod of 4 workers, 10 ms: 400 rps is rho 1.0, 600 rps 1.5. No steady
  // state (no response time), but the utilisation is rho, not +infinity.
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}}, 1ms}};
  for (const double rate : {400.0, 600.0}) {
    const NPlusOneReport report = n_plus_one(t, {service("front", {{"a", 1}}, 10ms, 4)}, {users(rate)});
    const StationRow& front = row(report.cases[0], "front", "a");
    EXPECT_NEAR(front.utilization, rate * 0.010 / 4, 1e-12);
    EXPECT_FALSE(front.stable);
    EXPECT_TRUE(front.overloaded);
    ASSERT_TRUE(front.mean_holding);
    EXPECT_EQ(*front.mean_holding, 10ms);
    EXPECT_FALSE(front.mean_response);
    // No steady state: the wait, the queue and the response are infinite.
    EXPECT_TRUE(front.mean_response.is_unbounded());
    EXPECT_TRUE(front.mean_wait.is_unbounded());
    EXPECT_TRUE(std::isinf(front.mean_wait.seconds()));
    EXPECT_TRUE(std::isinf(front.mean_queue_length));
    EXPECT_NEAR(front.headroom, 0.8 / (rate * 0.010 / 4) - 1, 1e-12);
    EXPECT_FALSE(front.holding_lower_bound);
    const PopulationRow& population = report.cases[0].populations[0];
    EXPECT_TRUE(population.mean_latency.is_unbounded());
    const std::string text = format_report(report);
    EXPECT_NE(text.find(rate == 400 ? " 100.0% " : " 150.0% "), std::string::npos) << text;
    EXPECT_NE(text.find("10.0 ms        inf     inf        inf     100%        -  UNSTABLE OVERLOAD\n"), std::string::npos) << text;
    EXPECT_NE(text.find("mean latency inf"), std::string::npos) << text;
    const std::string json = format_report_json(report);
    EXPECT_NE(json.find(rate == 400 ? "\"utilization\": 1," : "\"utilization\": 1.5,"), std::string::npos) << json;
    EXPECT_NE(json.find("\"mean_wait_s\": \"inf\", \"mean_queue_length\": \"inf\", \"mean_response_s\": \"inf\""),
              std::string::npos)
        << json;
    EXPECT_NE(json.find("\"mean_latency_s\": \"inf\""), std::string::npos) << json;
  }
  // Holding its worker for a call to a healthy back: rho = lambda (S + call) / c.
  const std::vector<ServiceConfig> services{service("front", {{"a", 1}}, 10ms, 4, {{"back", 1, false}}),
                                            service("back", {{"a", 2}}, 2ms, 4)};
  const NPlusOneReport report = n_plus_one(t, services, {users(400)});
  const StationRow& front = row(report.cases[0], "front", "a");
  const StationRow& back = row(report.cases[0], "back", "a");
  ASSERT_TRUE(front.mean_holding && back.mean_response);
  EXPECT_NEAR(to_seconds(*front.mean_holding), 0.010 + to_seconds(*back.mean_response), 2e-9);
  // The holding time is reported to the nanosecond.
  EXPECT_NEAR(front.utilization, 400 * to_seconds(*front.mean_holding) / 4, 1e-6);
  EXPECT_GT(front.utilization, 1.0);
  EXPECT_TRUE(front.overloaded);
}

TEST(NPlusOne, ACallerHoldingItsWorkersForAnOverloadedCalleeReportsLowerBounds) {
  // back (one pod of 4 workers, 10 ms) at rho 1.0 and 1.5; front holds its 8
  // workers for the call. front's holding time was absent, its utilisation
  // +infinity and its headroom -100%; now they are bounds: its own 5 ms and
  // back's 10 ms, back's growing wait left out (one zone: no round trip).
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}}, 1ms}};
  const std::vector<ServiceConfig> services{service("front", {{"a", 1}}, 5ms, 8, {{"back", 1, false}}),
                                            service("back", {{"a", 1}}, 10ms, 4)};
  for (const double rate : {400.0, 600.0}) {
    const NPlusOneReport report = n_plus_one(t, services, {users(rate)});
    const FailureCase& steady = report.cases[0];
    const StationRow& back = row(steady, "back", "a");
    EXPECT_NEAR(back.utilization, rate * 0.010 / 4, 1e-12);
    EXPECT_FALSE(back.stable);
    EXPECT_TRUE(back.mean_wait.is_unbounded());
    EXPECT_TRUE(std::isinf(back.mean_queue_length));
    const StationRow& front = row(steady, "front", "a");
    EXPECT_TRUE(front.holding_lower_bound);
    EXPECT_FALSE(front.stable);
    EXPECT_TRUE(front.overloaded);
    ASSERT_TRUE(front.mean_holding);
    const double holding = to_seconds(*front.mean_holding);
    EXPECT_GE(holding, 0.015);
    EXPECT_LT(holding, 0.0151);  // a same-zone round trip is tiny
    EXPECT_NEAR(front.utilization, rate * holding / 8, 1e-12);
    EXPECT_NEAR(front.headroom, 0.8 / front.utilization - 1, 1e-12);
    EXPECT_GT(front.headroom, -1.0);
    EXPECT_TRUE(front.mean_wait.is_unbounded());
    EXPECT_TRUE(front.mean_response.is_unbounded());
    const std::string text = format_report(report);
    EXPECT_NE(text.find(">=" + std::string(rate == 400 ? "75.0%" : "112.5%")), std::string::npos) << text;
    EXPECT_NE(text.find("  >= / <=: bounds;"), std::string::npos) << text;
    const std::string json = format_report_json(report);
    EXPECT_NE(json.find("\"holding_lower_bound\": true"), std::string::npos) << json;
  }
}

TEST(NPlusOne, TheWorstCasePerServiceIsItsBusiestStation) {
  // front in a, b, c (2 pods each) calls back in a and b twice. With a or b
  // down, the other zone of back takes all 240 calls a second.
  const std::vector<ServiceConfig> services{
      service("front", {{"a", 2}, {"b", 2}, {"c", 2}}, 10ms, 8, {{"back", 2, false}}),
      service("back", {{"a", 1}, {"b", 1}}, 5ms, 4)};
  const NPlusOneReport report = n_plus_one(regions(), services, {users(120)}, 0.7);
  const std::vector<ServiceWorstCase> worst = report.worst_per_service();
  ASSERT_EQ(worst.size(), 2u);
  for (const ServiceWorstCase& w : worst) {
    // The row with the highest utilisation over every case and zone, found by hand.
    const StationRow* best = nullptr;
    std::string best_case;
    std::size_t over = 0;
    for (const FailureCase& c : report.cases) {
      bool any = false;
      for (const StationRow& s : c.stations) {
        if (s.service != w.service) continue;
        any = any || s.overloaded;
        if (!best || s.utilization > best->utilization) {
          best = &s;
          best_case = c.name;
        }
      }
      over += any ? 1 : 0;
    }
    ASSERT_NE(best, nullptr);
    EXPECT_EQ(w.case_name, best_case) << w.service;
    EXPECT_EQ(w.zone, best->zone) << w.service;
    EXPECT_EQ(w.utilization, best->utilization);
    EXPECT_EQ(w.headroom, best->headroom);
    EXPECT_EQ(w.overloaded, best->overloaded);
    EXPECT_EQ(w.overloaded_cases, over);
  }
  EXPECT_EQ(worst[0].service, "front");
  EXPECT_EQ(worst[1].service, "back");
  // back's a (b down) and b (a down) tie: the first in report order wins.
  EXPECT_EQ(worst[1].case_name, "zone a down");
  EXPECT_EQ(worst[1].zone, "b");
  EXPECT_NEAR(worst[1].utilization, 240 * 0.005 / 4, 1e-12);
  // The text starts with the table, the JSON has it as "worst".
  const std::string text = format_report(report);
  const auto table = text.find("worst case per service");
  ASSERT_NE(table, std::string::npos) << text;
  EXPECT_LT(table, text.find("\nsteady")) << text;
  EXPECT_NE(text.find("  back           zone a down              b"), std::string::npos) << text;
  const std::string json = format_report_json(report);
  EXPECT_NE(json.find("\"worst\": [\n    {\"service\": \"front\", \"case\": "), std::string::npos) << json;
  EXPECT_NE(json.find("{\"service\": \"back\", \"case\": \"zone a down\", \"zone\": \"b\", \"utilization\": 0.3,"),
            std::string::npos)
      << json;
}

TEST(NPlusOne, AGatewayCallingOrdersTwiceSettles) {
  // The gateway's queue limit thins orders' load and its holding time
  // depends on orders' response: the rounds used to flip for ever across a
  // nanosecond boundary ("holding times did not converge"). Little's law
  // ties the settled numbers together.
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}, ZoneConfig{"b"}}, 2ms}};
  ServiceConfig gateway = service("front", {{"a", 1}, {"b", 1}}, 5ms, 8, {{"orders", 1, false}, {"orders", 1, false}});
  gateway.queue_limit = 10;
  const std::vector<ServiceConfig> services{gateway, service("orders", {{"a", 1}, {"b", 1}}, 10ms, 4)};
  for (const double rate : {300.0, 340.0, 350.0}) {
    const NPlusOneReport report = n_plus_one(t, services, {users(rate)});
    for (const FailureCase& c : report.cases) EXPECT_TRUE(c.error.empty()) << rate << " " << c.name << ": " << c.error;
    const StationRow& front = row(report.cases[0], "front", "a");
    const StationRow& orders = row(report.cases[0], "orders", "a");
    EXPECT_GT(front.blocking, 0.0);
    // Orders gets two calls per accepted gateway request, half of them per zone.
    EXPECT_NEAR(orders.rate_per_s, rate * (1 - front.blocking) * 2 / 2, 1e-6 * rate);
    ASSERT_TRUE(front.mean_holding);
    EXPECT_NEAR(front.utilization, rate / 2 * to_seconds(*front.mean_holding) / 8, 1e-7);  // holding to the ns
  }
}

TEST(NPlusOne, TheLargestConcurrencyWithAQueueLimit) {
  // concurrency 2^32 - 1 + queueLimit 50 overflowed 32 bits (K < c: an
  // internal error); 4e9 workers took time linear in the concurrency.
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}, ZoneConfig{"b"}}, 2ms}};
  ServiceConfig front = service("front", {{"a", 1}, {"b", 1}}, 10ms, 4294967295u);
  front.queue_limit = 50;
  for (const ServiceConfig& s : {front, service("front", {{"a", 1}, {"b", 1}}, 10ms, 4000000000u)}) {
    const NPlusOneReport report = n_plus_one(t, {s}, {users(1000)});
    const StationRow& steady = row(report.cases[0], "front", "a");
    EXPECT_NEAR(steady.utilization, 500 * 0.010 / s.concurrency, 1e-20);
    EXPECT_EQ(steady.blocking, 0.0);
    ASSERT_TRUE(steady.mean_response);
    EXPECT_EQ(*steady.mean_response, 10ms);  // no wait
    EXPECT_FALSE(report.any_overloaded());   // a zone down leaves 4e9 workers for 1000 rps
  }
}

TEST(NPlusOneScale, TwoThousandZones) {
  // A case per zone, each as small as the deployment it changes: the round
  // trips and the partitions are shared by the cases (a zones x zones table
  // per case was cubic in time and ran out of memory at 30,000 zones).
  TopologyConfig t;
  RegionConfig eu{"eu", {}, 2ms}, us{"us", {}, 2ms};
  for (int z = 0; z < 1000; ++z) eu.zones.push_back(ZoneConfig{"eu" + std::to_string(z)});
  for (int z = 0; z < 1000; ++z) us.zones.push_back(ZoneConfig{"us" + std::to_string(z)});
  t.regions = {eu, us};
  t.links = {LinkConfig{"eu-us", {"eu", "us"}, 40ms, 0ms, Bandwidth{1e9}, Ratio{0}}};
  const std::vector<ServiceConfig> services{
      service("front", {{"eu0", 2}, {"eu1", 2}, {"us999", 2}}, 5ms, 8, {{"back", 1, false}}),
      service("back", {{"eu0", 1}, {"eu1", 1}}, 5ms, 4)};
  const NPlusOneReport report = n_plus_one(t, services, {users(200)});
  ASSERT_EQ(report.cases.size(), 1u + 2000 + 2);
  // A zone without pods changes nothing: its case is the steady state.
  const FailureCase& idle = find_case(report, "zone eu500 down");
  for (std::size_t i = 0; i < idle.stations.size(); ++i) {
    EXPECT_EQ(idle.stations[i].rate_per_s, report.cases[0].stations[i].rate_per_s);
    EXPECT_EQ(idle.stations[i].mean_response, report.cases[0].stations[i].mean_response);
  }
  // us999's front calls back in eu across the link, 1 + 40 + 1 ms each way
  // round; eu0's front half the time in its own zone, half 2 ms away.
  const FailureCase& steady = report.cases[0];
  EXPECT_NEAR(
      to_seconds(*row(steady, "front", "us999").mean_holding) - to_seconds(*row(steady, "front", "eu0").mean_holding),
      0.042 - 0.001, 1e-8);
  EXPECT_EQ(row(find_case(report, "region us down"), "front", "us999").up_pods, 0u);
}

TEST(NPlusOne, TextAndJsonForms) {
  const std::vector<ServiceConfig> services{service("front", {{"a", 1}, {"b", 1}}, 20ms, 4)};
  const NPlusOneReport report = n_plus_one(regions(), services, {users(150, "a")}, 0.7);
  const std::string text = format_report(report);
  EXPECT_NE(text.find("N+1 capacity check (utilization target 70%"), std::string::npos) << text;
  EXPECT_NE(text.find("zone b down  -- OVERLOADED"), std::string::npos) << text;
  EXPECT_NE(text.find("  OVERLOAD\n"), std::string::npos) << text;
  EXPECT_NE(text.find("population users"), std::string::npos) << text;
  EXPECT_NE(text.find("(150.0/s unserved"), std::string::npos) << text;
  const std::string json = format_report_json(report);
  EXPECT_EQ(json.rfind("{\n  \"utilization_target\": 0.7,\n  \"overloaded\": true,", 0), 0u) << json;
  EXPECT_NE(json.find("{\"name\": \"steady\", \"overloaded\": false, \"error\": null, \"notes\": []"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"service\": \"front\", \"zone\": \"a\", \"up_pods\": 1, \"rate_per_s\": 75,"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"unserved_rate_per_s\": 150, \"mean_latency_s\": null"), std::string::npos) << json;
  // Same input, same bytes.
  EXPECT_EQ(json, format_report_json(n_plus_one(regions(), services, {users(150, "a")}, 0.7)));
}

// --- Database calls ------------------------------------------------------------

// db: primary in b, replicas in c and d (another region), semi-sync, 2 ms queries.
DatabaseConfig database(std::string replication = "semi-sync") {
  DatabaseConfig db;
  db.name = "db";
  db.primary_zone = "b";
  db.replicas = {DatabaseReplicaConfig{"c"}, DatabaseReplicaConfig{"d"}};
  db.replication = std::move(replication);
  ServiceTimeConfig q;
  q.kind = "constant";
  q.value = 2ms;
  db.query_time = q;
  return db;
}

// front in a (pods pods) queries db: 3 queries, the last a write, on a pool of `pool` connections.
std::vector<ServiceConfig> db_caller(std::uint32_t pool, std::uint32_t pods = 1) {
  CallConfig call;
  call.database = "db";
  call.queries = 3;
  call.writes = 1;
  PoolConfig p;
  p.maximum_pool_size = pool;
  call.pool = p;
  return {service("front", {{"a", pods}}, 10ms, 8, {call})};
}

const PoolRow& pool_row(const FailureCase& c, const std::string& zone) {
  for (const PoolRow& r : c.pools) {
    if (r.database == "db" && r.zone == zone) return r;
  }
  throw std::runtime_error("no pool row db@" + zone);
}

Duration route_rtt(const TopologyConfig& config, const std::string& from, const std::string& to,
                   const std::string& down = "") {
  const Topology topology(config);
  TopologyState state = topology.nominal_state();
  if (!down.empty()) state.zone_up[*topology.find_zone(down)] = false;
  return topology.route(*topology.find_zone(from), *topology.find_zone(to), state)->rtt;
}

TEST(NPlusOneDatabase, TheCallHoldsItsConnectionForTheQueriesAndTheCommit) {
  // Steady: the primary is in b, 2 ms from a. Two reads (rtt + 2 ms each),
  // then the write: rtt and the nearest replica's ack, c: 1 ms there, no
  // transmission time within a region, 1 ms apply, 1 ms back. A borrow pings
  // first with probability exp(-20/s x 0.5 s).
  const NPlusOneReport report = n_plus_one(regions(), db_caller(4), {users(20)}, 0.8, {database()});
  const FailureCase& steady = report.cases[0];
  EXPECT_TRUE(steady.notes.empty());
  ASSERT_EQ(steady.pools.size(), 1u);  // one per zone of front and database
  const PoolRow& pool = pool_row(steady, "a");
  EXPECT_EQ(pool.connections, 4u);
  EXPECT_EQ(pool.up_pods, 1u);
  EXPECT_NEAR(pool.rate_per_s, 20, 1e-9);
  const double ping = std::exp(-20 * 0.5) * 0.002;
  const double hold = 2 * (0.002 + 0.002) + (0.002 + 0.003) + ping;
  ASSERT_TRUE(pool.mean_hold && pool.mean_wait);
  EXPECT_NEAR(to_seconds(*pool.mean_hold), hold, 2e-9);
  EXPECT_NEAR(pool.utilization, 20 * hold / 4, 1e-8);  // lambda_pod x hold / poolSize
  EXPECT_TRUE(pool.stable);
  EXPECT_FALSE(pool.overloaded);
  // The caller's worker waits for the borrow and the hold.
  const StationRow& front = row(steady, "front", "a");
  ASSERT_TRUE(front.mean_holding);
  EXPECT_NEAR(to_seconds(*front.mean_holding), 0.010 + to_seconds(*pool.mean_wait) + hold, 2e-9);
}

TEST(NPlusOneDatabase, APoolNearItsSizeWaitsAsErlangC) {
  // 2 connections per pod at 100 borrows/s of 13 ms: M/M/2 at 65%. The hold
  // is constant here (constant query times, a validation ping practically
  // never): the M/G/c wait is half Erlang C's.
  const NPlusOneReport report = n_plus_one(regions(), db_caller(2), {users(100)}, 0.8, {database()});
  const PoolRow& pool = pool_row(report.cases[0], "a");
  ASSERT_TRUE(pool.mean_hold && pool.mean_wait);
  EXPECT_NEAR(to_seconds(*pool.mean_hold), 0.013, 1e-6);
  EXPECT_NEAR(pool.utilization, 100 * to_seconds(*pool.mean_hold) / 2, 1e-9);
  const auto mmc = mmc_metrics(Rate{100}, *pool.mean_hold, 2);
  ASSERT_TRUE(mmc);
  EXPECT_GT(to_seconds(mmc->mean_wait), 0.005);  // non-trivial: about 0.5 hold times
  EXPECT_NEAR(to_seconds(*pool.mean_wait), to_seconds(mmc->mean_wait) / 2, 2e-9);

  // Past its size the pool is unstable, and so is its caller (workers held without bound).
  const NPlusOneReport over = n_plus_one(regions(), db_caller(1), {users(100)}, 0.8, {database()});
  const PoolRow& full = pool_row(over.cases[0], "a");
  EXPECT_FALSE(full.stable);
  EXPECT_TRUE(full.overloaded);
  EXPECT_FALSE(full.mean_wait);
  // Its utilisation is its offered load, borrows x hold / connections.
  ASSERT_TRUE(full.mean_hold);
  EXPECT_NEAR(full.utilization, 100 * to_seconds(*full.mean_hold) / 1, 1e-9);
  EXPECT_GT(full.utilization, 1.0);
  EXPECT_FALSE(row(over.cases[0], "front", "a").stable);
  EXPECT_TRUE(over.cases[0].overloaded);
}

TEST(NPlusOneDatabase, AutomaticFailoverPromotesTheReplicaTheSimulatorWould) {
  // Zone b down: the preferred region's replica (d) is promoted; writes now
  // wait for c's ack from d (one way each way, 1 KiB over the 1 Gbps link,
  // 1 ms apply).
  DatabaseConfig db = database();
  db.preferred_region = "us";
  const TopologyConfig t = regions();
  const NPlusOneReport report = n_plus_one(t, db_caller(4), {users(20)}, 0.8, {db});
  const FailureCase& b_down = find_case(report, "zone b down");
  EXPECT_TRUE(b_down.notes.empty()) << b_down.notes[0];
  EXPECT_NE(std::find(b_down.blast_radius.begin(), b_down.blast_radius.end(), "database db in b loses its primary"),
            b_down.blast_radius.end());
  const double rtt = to_seconds(route_rtt(t, "a", "d", "b"));
  EXPECT_GT(rtt, 0.040);
  const double ack = to_seconds(route_rtt(t, "d", "c", "b")) + 1024 * 8 / 1e9 + 0.001;
  const double hold = 2 * (rtt + 0.002) + (rtt + ack) + std::exp(-20 * 0.5) * rtt;
  const PoolRow& pool = pool_row(b_down, "a");
  ASSERT_TRUE(pool.mean_hold);
  EXPECT_NEAR(to_seconds(*pool.mean_hold), hold, 1e-8);

  // Without a preference the nearest replica (c, the writes reach it first) wins.
  const FailureCase nearest =
      find_case(n_plus_one(t, db_caller(4), {users(20)}, 0.8, {database("async")}), "zone b down");
  ASSERT_TRUE(pool_row(nearest, "a").mean_hold);
  EXPECT_NEAR(to_seconds(*pool_row(nearest, "a").mean_hold), 3 * (0.002 + 0.002) + std::exp(-10.0) * 0.002, 1e-8);
}

TEST(NPlusOneDatabase, ManualFailoverLeavesNoWritablePrimary) {
  DatabaseConfig db = database();
  db.failover = "manual";
  const NPlusOneReport report = n_plus_one(regions(), db_caller(4), {users(20)}, 0.8, {db});
  EXPECT_FALSE(report.cases[0].overloaded);
  const FailureCase& b_down = find_case(report, "zone b down");
  EXPECT_TRUE(b_down.overloaded);
  ASSERT_EQ(b_down.notes.size(), 1u);
  EXPECT_EQ(b_down.notes[0].rfind("calls from front@a to database db fail: no writable primary", 0), 0u)
      << b_down.notes[0];
  EXPECT_EQ(pool_row(b_down, "a").rate_per_s, 0);
  // The calls fail at once: the worker holds for its own work only.
  ASSERT_TRUE(row(b_down, "front", "a").mean_holding);
  EXPECT_NEAR(to_seconds(*row(b_down, "front", "a").mean_holding), 0.010, 1e-9);
}

TEST(NPlusOneDatabase, AnUnreachablePrimaryLosesTheCalls) {
  // No link between the regions: front in a cannot reach the primary in d.
  // The health checks run in d too, so it stays the primary (checked from
  // c, it would be failed over to c: a partition looks like a loss).
  DatabaseConfig db = database("async");
  db.primary_zone = "d";
  db.replicas = {DatabaseReplicaConfig{"c"}};
  db.monitor_zone = "d";
  const FailureCase steady = n_plus_one(regions(false), db_caller(4), {users(20)}, 0.8, {db}).cases[0];
  EXPECT_TRUE(steady.overloaded);
  ASSERT_EQ(steady.notes.size(), 1u);
  EXPECT_EQ(steady.notes[0], "calls from front@a to database db are lost: zone unreachable");
  EXPECT_FALSE(row(steady, "front", "a").stable);
}

TEST(NPlusOneDatabase, SyncWritesWithoutEnoughReplicasNeverCommit) {
  DatabaseConfig db = database("sync");
  db.sync_acks = 2;  // c and d
  const NPlusOneReport report = n_plus_one(regions(), db_caller(4), {users(20)}, 0.8, {db});
  EXPECT_TRUE(report.cases[0].notes.empty());
  const FailureCase& c_down = find_case(report, "zone c down");
  ASSERT_EQ(c_down.notes.size(), 1u);
  EXPECT_EQ(c_down.notes[0],
            "writes from front@a to database db never commit: sync replication needs 2 replica acks, 1 connected");
  EXPECT_TRUE(c_down.overloaded);
}

TEST(NPlusOneDatabase, PoolsBeyondMaxConnectionsAreNoted) {
  DatabaseConfig db = database();
  db.max_connections = 20;
  const FailureCase steady = n_plus_one(regions(), db_caller(10, 3), {users(20)}, 0.8, {db}).cases[0];
  ASSERT_EQ(steady.notes.size(), 1u);
  EXPECT_EQ(steady.notes[0],
            "database db: the pods' pools may open 30 connections, above its maxConnections 20 (connects beyond it "
            "fail: Too many connections)");
}

TEST(NPlusOneDatabase, UnknownDatabaseIsAnError) {
  EXPECT_THROW(n_plus_one(regions(), db_caller(4), {users(20)}), std::invalid_argument);
}

TEST(NPlusOneDatabase, TextAndJsonForms) {
  const NPlusOneReport report = n_plus_one(regions(), db_caller(4), {users(20)}, 0.8, {database()});
  const std::string text = format_report(report);
  EXPECT_NE(text.find("  pool of        database"), std::string::npos) << text;
  EXPECT_NE(text.find("  front          db             a                    1     4       20.0"), std::string::npos)
      << text;
  const std::string json = format_report_json(report);
  EXPECT_NE(
      json.find("\"pools\": [\n      {\"service\": \"front\", \"database\": \"db\", \"zone\": \"a\", \"up_pods\": 1, "
                "\"connections\": 4, \"rate_per_s\": 20,"),
      std::string::npos)
      << json;
  EXPECT_EQ(json, format_report_json(n_plus_one(regions(), db_caller(4), {users(20)}, 0.8, {database()})));
  // Without database calls: no pools table, an empty list.
  const NPlusOneReport plain = n_plus_one(regions(), {service("front", {{"a", 1}}, 10ms)}, {users(20)});
  EXPECT_EQ(format_report(plain).find("pool of"), std::string::npos);
  EXPECT_NE(format_report_json(plain).find("\"pools\": []"), std::string::npos);
}

}  // namespace
}  // namespace drsim

namespace drsim {
namespace {

TopologyConfig one_zone() {
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}}, 1ms}};
  return t;
}

TEST(NPlusOneServers, AnEventLoopHoldsNoThreadWhileItsCallsAreOut) {
  // front's 2 threads compute 10 ms a request; its calls to back do not hold them: utilisation 30 x 10 ms / 2.
  ServiceConfig front = service("front", {{"a", 1}}, 10ms, 2, {{"back", 2, false}});
  front.server = "eventLoop";
  front.max_in_flight = 100;
  const NPlusOneReport report = n_plus_one(one_zone(), {front, service("back", {{"a", 1}}, 20ms, 2)}, {users(30)});
  const FailureCase& steady = report.cases[0];
  EXPECT_NEAR(row(steady, "front", "a").utilization, 30 * 0.010 / 2, 1e-9);
  EXPECT_NEAR(to_seconds(*row(steady, "front", "a").mean_holding), 0.010, 1e-9);
  // The response still waits for the calls: M/M/2's own response plus two of back's.
  const auto own = mmc_metrics(Rate{30}, 10ms, 2);
  const auto back = mmc_metrics(Rate{60}, 20ms, 2);
  const double expected = to_seconds(own->mean_response) + 2 * back->mean_in_system / 60;
  EXPECT_NEAR(to_seconds(*row(steady, "front", "a").mean_response), expected, 1e-8);
  EXPECT_TRUE(steady.notes.empty());
}

TEST(NPlusOneServers, AnEventLoopOverItsInFlightLimitIsNoted) {
  // 30 requests a second held about 50 ms each: 1.5 in flight, above a limit of 1.
  ServiceConfig front = service("front", {{"a", 1}}, 10ms, 2, {{"back", 1, false}});
  front.server = "eventLoop";
  front.max_in_flight = 1;
  const NPlusOneReport report = n_plus_one(one_zone(), {front, service("back", {{"a", 1}}, 40ms, 8)}, {users(30)});
  const FailureCase& steady = report.cases[0];
  ASSERT_EQ(steady.notes.size(), 1u);
  EXPECT_NE(steady.notes[0].find("front@a holds 1.5 requests in flight per pod on average, above its maxInFlight 1"),
            std::string::npos)
      << steady.notes[0];
  EXPECT_TRUE(row(steady, "front", "a").overloaded);
  EXPECT_TRUE(steady.overloaded);
}

TEST(NPlusOneServers, ACallMadeWithAProbabilityCountsItsShare) {
  CallConfig call{"back", 2, false};
  call.probability = Ratio{0.25};
  const NPlusOneReport report =
      n_plus_one(one_zone(), {service("front", {{"a", 1}}, 10ms, 8, {call}), service("back", {{"a", 1}}, 20ms, 2)},
                 {users(40)});
  EXPECT_NEAR(row(report.cases[0], "back", "a").rate_per_s, 40 * 2 * 0.25, 1e-9);
}

TEST(NPlusOneOperations, AStationServesItsOperationsMixAndCallsOnTheirShares) {
  // 40 rps: 75% "browse" (front's own 10 ms, then back once), 25% "buy" (30 ms, then back.slow three times
  // and back once in parallel with another back). back's default operation takes 20 ms, its "slow" 40 ms.
  CallConfig slow{"back", 3, false};
  slow.operation = "slow";
  ServiceConfig front = service("front", {{"a", 1}}, 10ms, 8);
  front.operations = {
      OperationConfig{"browse", std::nullopt, std::vector<CallConfig>{CallConfig{"back", 1, false}}},
      OperationConfig{"buy", ServiceTimeConfig{.kind = "exponential", .mean = 30ms},
                      std::vector<CallConfig>{slow, CallConfig{"back", 1, true}, CallConfig{"back", 1, true}}}};
  ServiceConfig back = service("back", {{"a", 2}}, 20ms, 16);
  back.operations = {OperationConfig{"slow", ServiceTimeConfig{.kind = "exponential", .mean = 40ms}, std::nullopt}};
  ClientPopulationConfig mix = users(40);
  mix.operations = {OperationShareConfig{"browse", 3}, OperationShareConfig{"buy", 1}};
  const NPlusOneReport report = n_plus_one(one_zone(), {front, back}, {mix});
  const FailureCase& steady = report.cases[0];
  ASSERT_TRUE(steady.error.empty()) << steady.error;
  // back: browse 30 x 1 + buy 10 x (3 + 2) = 80 rps, of which 30 slow at 40 ms and 50 at 20 ms.
  EXPECT_NEAR(row(steady, "back", "a").rate_per_s, 80, 1e-9);
  EXPECT_NEAR(row(steady, "back", "a").utilization, (30 * 0.040 + 50 * 0.020) / 32, 1e-6);
  // front's own work: 0.75 x 10 ms + 0.25 x 30 ms = 15 ms; its holding adds each operation's calls on its share.
  const double r = to_seconds(*row(steady, "back", "a").mean_response);  // the mixture's response, per call
  const double holding = to_seconds(*row(steady, "front", "a").mean_holding);
  EXPECT_GT(holding, 0.015 + 0.75 * r);
  EXPECT_NEAR(row(steady, "front", "a").utilization, 40 * holding / 8, 1e-9);
  EXPECT_TRUE(steady.notes.empty());
  // A row per operation of the mix: its rate, and its own latency. back's operations make no calls, so the rows
  // weighted by the mix are the population's latency (self-consistency), and buy (30 ms, then three slow calls and
  // a parallel pair) is the slower.
  ASSERT_EQ(steady.operations.size(), 2u);
  EXPECT_EQ(steady.operations[0].operation, "browse");
  EXPECT_EQ(steady.operations[1].operation, "buy");
  EXPECT_NEAR(steady.operations[0].rate_per_s, 30, 1e-9);
  EXPECT_NEAR(steady.operations[1].rate_per_s, 10, 1e-9);
  const double browse = steady.operations[0].mean_latency.seconds();
  const double buy = steady.operations[1].mean_latency.seconds();
  EXPECT_NEAR(0.75 * browse + 0.25 * buy, steady.populations[0].mean_latency.seconds(), 2e-9);
  EXPECT_GT(buy, browse + 0.020 + 3 * 0.040);
  const std::string text = format_report(report);
  EXPECT_NE(text.find("operation browse"), std::string::npos) << text;
  const std::string json = format_report_json(report);
  EXPECT_NE(json.find("\"operations\": [\n      {\"population\": \"users\", \"operation\": \"browse\", \"rate_per_s\": 30"),
            std::string::npos)
      << json;
}

TEST(NPlusOneOperations, AnOperationWhoseCallsAvoidALostZoneIsStillAnswered) {
  // front in zone a: "read" calls cache, "write" calls store; store's only pods are in region us, unreachable
  // (no link). front is an event loop, so the writes that never return hold no thread: the population's mean is
  // unbounded, read's is not. (A thread-per-request front would have every worker held for good: both unbounded.)
  ServiceConfig front = service("front", {{"a", 1}}, 5ms, 8);
  front.server = "eventLoop";
  front.max_in_flight = 1000;
  front.operations = {OperationConfig{"read", std::nullopt, std::vector<CallConfig>{CallConfig{"cache", 1, false}}},
                      OperationConfig{"write", std::nullopt, std::vector<CallConfig>{CallConfig{"store", 1, false}}}};
  ClientPopulationConfig mix = users(10);
  mix.operations = {OperationShareConfig{"read", 9}, OperationShareConfig{"write", 1}};
  const NPlusOneReport report = n_plus_one(
      regions(false), {front, service("cache", {{"a", 1}}, 1ms), service("store", {{"d", 1}}, 1ms)}, {mix});
  const FailureCase& steady = report.cases[0];
  ASSERT_EQ(steady.operations.size(), 2u);
  EXPECT_TRUE(steady.populations[0].mean_latency.is_unbounded());
  EXPECT_TRUE(steady.operations[0].mean_latency.has_value());
  EXPECT_TRUE(steady.operations[1].mean_latency.is_unbounded());
  front.server = "workerPool";
  const FailureCase held = n_plus_one(
      regions(false), {front, service("cache", {{"a", 1}}, 1ms), service("store", {{"d", 1}}, 1ms)}, {mix}).cases[0];
  EXPECT_TRUE(held.operations[0].mean_latency.is_unbounded());
}

TEST(NPlusOneServers, WhatTheCheckCannotAnswerYetIsRefusedNotGuessed) {
  CallConfig maybe{"back", 1, true};
  maybe.probability = Ratio{0.5};
  EXPECT_THROW(n_plus_one(one_zone(), {service("front", {{"a", 1}}, 10ms, 4, {maybe}), service("back", {{"a", 1}}, 1ms)},
                          {users(1)}),
               CheckUnsupported);
}

}  // namespace
}  // namespace drsim

// The N+1 report's station network, checked by hand on small deployments:
// the rates that the call graph and the routing rules give every service in
// every zone, the held workers' holding times, failures that leave callers
// without a target or a route, zone affinity's spill-over, and the text and
// JSON forms.
#include "analysis/n_plus_one.h"

#include <gtest/gtest.h>

#include "analysis/queueing.h"

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
  // Two regions without a link: front in eu calls back, which has pods in eu and us.
  const std::vector<ServiceConfig> services{service("front", {{"a", 1}}, 10ms, 4, {{"back", 1, false}}),
                                            service("back", {{"a", 1}, {"d", 1}}, 5ms)};
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

}  // namespace
}  // namespace drsim

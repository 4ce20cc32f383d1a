// drsim check against the simulation of the same configuration: the issue
// asks for utilisation within 3% and mean latency within 10% in the stable
// cases, steady and with a zone down. The check's M/M/c per pod is exact
// when the balancer splits a Poisson stream at random.
#include <gtest/gtest.h>

#include "analysis/n_plus_one.h"
#include "models/service/service.h"
#include "models/traffic/client_population.h"
#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

TopologyConfig one_region() {
  TopologyConfig t;
  t.regions = {RegionConfig{"r", {ZoneConfig{"a"}, ZoneConfig{"b"}, ZoneConfig{"c"}}, 1ms}};
  return t;
}

ServiceConfig api(std::string balancing = "random") {
  ServiceConfig sc;
  sc.name = "api";
  sc.balancing = std::move(balancing);
  sc.replicas = {{"a", 2}, {"b", 2}, {"c", 2}};
  sc.concurrency = 4;
  sc.service_time.kind = "exponential";
  sc.service_time.mean = 50ms;
  return sc;
}

ClientPopulationConfig users(double rate) {
  ClientPopulationConfig pc;
  pc.name = "users";
  pc.service = "api";
  pc.load.kind = "constant";
  pc.load.rate = Rate{rate};
  pc.timeout = 30s;
  return pc;
}

struct Simulated {
  double utilization_b;
  double mean_latency_s;
};

Simulated simulate(double rate, bool zone_a_down, std::string balancing = "random") {
  Simulation sim(SimulationOptions{.seed = 5});
  auto& domains = sim.add<FailureDomains>("topology", Topology(one_region()));
  auto& svc = sim.add<Service>(api(std::move(balancing)), &domains, 100s);
  auto& clients = sim.add<ClientPopulation>(users(rate), svc, std::nullopt, 100s);
  if (zone_a_down) sim.schedule_at(SimTime{0s}, [&] { domains.fail_zone(0); });
  sim.run_until(SimTime{3000s});
  sim.finish();
  EXPECT_EQ(clients.failed_total(), 0u);
  double latency_sum = 0, count = 0;
  const auto& series = sim.recorder().series_list();
  const Recorder::Series* mean = nullptr;
  const Recorder::Series* done = nullptr;
  for (const auto& s : series) {
    if (s.metric == "client.latency_mean_s") mean = &s;
    if (s.metric == "client.succeeded") done = &s;
  }
  for (std::size_t i = 0; i < mean->value.size(); ++i) {
    latency_sum += mean->value[i] * done->value[i];
    count += done->value[i];
  }
  return {sim.recorder().find_kpi("zone.utilization_mean", {{"service", "api"}, {"zone", "b"}})->value,
          latency_sum / count};
}

void expect_agreement(const FailureCase& predicted, const Simulated& simulated) {
  const StationRow& b = predicted.stations[1];
  ASSERT_EQ(b.zone, "b");
  EXPECT_NEAR(simulated.utilization_b, b.utilization, 0.03 * b.utilization);
  ASSERT_TRUE(predicted.populations[0].mean_latency.has_value());
  const double latency = to_seconds(*predicted.populations[0].mean_latency);
  EXPECT_NEAR(simulated.mean_latency_s, latency, 0.10 * latency);
}

TEST(CheckAgreesWithSimulation, SteadyState) {
  const NPlusOneReport report = n_plus_one(one_region(), {api()}, {users(240)});
  ASSERT_EQ(report.cases[0].name, "steady");
  EXPECT_NEAR(report.cases[0].stations[1].utilization, 40.0 * 0.05 / 4, 1e-12);  // 240/6 pods x 50 ms / 4
  expect_agreement(report.cases[0], simulate(240, false));
}

TEST(CheckAgreesWithSimulation, ZoneDown) {
  const NPlusOneReport report = n_plus_one(one_region(), {api()}, {users(240)});
  ASSERT_EQ(report.cases[1].name, "zone a down");
  EXPECT_EQ(report.cases[1].stations[0].up_pods, 0u);
  EXPECT_NEAR(report.cases[1].stations[1].utilization, 60.0 * 0.05 / 4, 1e-12);
  expect_agreement(report.cases[1], simulate(240, true));
}

// Round-robin hands each pod every n-th arrival: smoother than Poisson, so
// pods wait less than M/M/c says. The check stays on the safe side.
TEST(CheckAgreesWithSimulation, RoundRobinWaitsNoLongerThanPredicted) {
  const NPlusOneReport report = n_plus_one(one_region(), {api("round-robin")}, {users(240)});
  const Simulated simulated = simulate(240, true, "round-robin");
  EXPECT_NEAR(simulated.utilization_b, report.cases[1].stations[1].utilization, 0.03 * 0.75);
  EXPECT_LT(simulated.mean_latency_s, to_seconds(*report.cases[1].populations[0].mean_latency));
}

TEST(CheckReport, MarksTheFailuresThatOverload) {
  // 300 rps: steady 62.5% per pod; with a zone down 93.75%: over an 80% target.
  const NPlusOneReport report = n_plus_one(one_region(), {api()}, {users(300)}, 0.8);
  EXPECT_FALSE(report.cases[0].overloaded);
  EXPECT_TRUE(report.cases[1].overloaded);
  EXPECT_LT(report.cases[1].stations[1].headroom, 0);
  EXPECT_NE(format_report(report).find("zone a down  -- OVERLOADED"), std::string::npos);
}

TEST(CheckReport, PeakRateOfEachProfileKind) {
  RateProfileConfig stages;
  stages.kind = "stages";
  stages.stages = {{10s, Rate{100}}, {10s, Rate{300}}, {10s, Rate{50}}};
  EXPECT_EQ(peak_rate(stages), Rate{300});
  RateProfileConfig diurnal;
  diurnal.kind = "diurnal";
  diurnal.base = Rate{100};
  diurnal.amplitude = Ratio{0.5};
  EXPECT_EQ(peak_rate(diurnal), Rate{150});
}

}  // namespace
}  // namespace drsim

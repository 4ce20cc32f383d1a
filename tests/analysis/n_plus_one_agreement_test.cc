// drsim check against the simulation of the same scenario, the issue's
// acceptance test: for the stable cases, utilisation within 3% and mean
// latency within 10%. The scenario (tests/data/scenarios/good/
// check_call_graph.yaml) has a call graph with sequential and parallel calls
// across three zones and two regions, at moderate load; it is simulated
// steady and with zone eu-b down from the start, and compared with the
// check's "steady" and "zone eu-b down" cases, station by station (service x
// zone: utilisation, and the mean response that includes the calls) and end
// to end (the population's mean latency). Callers learn of the loss through
// their load balancers' target health checks and cached DNS answers
// (discovery loadBalancer, the default), so requests fail and a backlog
// builds for a while after the fault; the check predicts the state after
// that, so a zone-down run is compared over a settled window that starts
// after detection, the callers' 127 s connect timeouts into the dead node
// and the backlog's drain, and no request may fail in it. A second scenario
// (check_database_calls.yaml) has database calls through per-pod connection
// pools: its stations, its pools (utilisation: the simulated mean of
// pool.active over the pods' connections) and its population are compared
// the same way, steady and with a zone down. A third
// (check_database_failover.yaml) loses the primary's zone mid-run: the
// check's post-failover case is compared with the simulation over a window
// after the failover and the pools' reconnection, and the replica the check
// promotes with the one the simulation promoted.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <map>

#include "analysis/database_calls.h"
#include "analysis/n_plus_one.h"
#include "io/run.h"
#include "io/scenario_loader.h"
#include "models/topology/topology.h"

namespace drsim {
namespace {

constexpr const char* kScenario = "tests/data/scenarios/good/check_call_graph.yaml";

// Means from the recorded series: per-window means weighted by the window's
// count, over the whole run, or from `from_ns` to the end (the windows that
// start there or later; a window's point is stamped at its start).
struct Simulated {
  const Recorder& recorder;
  std::int64_t from_ns = 0;

  // The whole run: the KPI (the gauge's time-weighted mean); from a time:
  // the mean of the equal windows' time-weighted means.
  double utilization(const std::string& service, const std::string& zone) const {
    if (from_ns == 0) {
      const auto* kpi = recorder.find_kpi("zone.utilization_mean", {{"service", service}, {"zone", zone}});
      return kpi ? kpi->value : -1;
    }
    return window_mean("zone.utilization", {{"service", service}, {"zone", zone}});
  }
  double response_s(const std::string& service, const std::string& zone) const {
    return weighted_mean("service.response_mean_s", "service.completed", {{"service", service}, {"zone", zone}});
  }
  // Mean connections in use (the gauge's time-weighted window means,
  // averaged over the equal windows), and the mean borrow wait.
  double pool_active(const std::string& service, const std::string& zone, const std::string& database) const {
    return window_mean("pool.active", {{"database", database}, {"service", service}, {"zone", zone}});
  }
  double pool_wait_s(const std::string& service, const std::string& zone, const std::string& database) const {
    return weighted_mean("pool.borrow_wait_mean_s", "pool.queries",
                         {{"database", database}, {"service", service}, {"zone", zone}});
  }
  // CPU cores of the zone's pods together (the usage series' window means, averaged over the equal windows).
  double cpu_cores(const std::string& service, const std::string& zone) const {
    return window_mean("service.cpu_cores", {{"service", service}, {"zone", zone}});
  }
  double latency_s(const std::string& population) const {
    return weighted_mean("client.latency_mean_s", "client.succeeded", {{"population", population}});
  }
  double operation_latency_s(const std::string& population, const std::string& operation) const {
    return weighted_mean("operation.latency_mean_s", "operation.succeeded",
                         {{"operation", operation}, {"population", population}});
  }
  // A counter's total over every series of `metric` whose labels include
  // `labels` (e.g. client.failed of every cause).
  double total(const std::string& metric, const Labels& labels) const {
    double sum = 0;
    for (const auto& s : recorder.series_list()) {
      if (s.metric != metric) continue;
      bool match = true;
      for (const auto& l : labels) match = match && std::find(s.labels.begin(), s.labels.end(), l) != s.labels.end();
      if (!match) continue;
      for (std::size_t i = 0; i < s.t_ns.size(); ++i) {
        if (s.t_ns[i] >= from_ns) sum += s.value[i];
      }
    }
    return sum;
  }

 private:
  const Recorder::Series* find(const std::string& metric, const Labels& labels) const {
    for (const auto& s : recorder.series_list()) {
      if (s.metric == metric && s.labels == labels) return &s;
    }
    return nullptr;
  }
  double window_mean(const std::string& metric, const Labels& labels) const {
    const auto* gauge = find(metric, labels);
    if (gauge == nullptr) return -1;
    double sum = 0, n = 0;
    for (std::size_t i = 0; i < gauge->t_ns.size(); ++i) {
      if (gauge->t_ns[i] < from_ns) continue;
      sum += gauge->value[i];
      ++n;
    }
    return n > 0 ? sum / n : -1;
  }
  double weighted_mean(const std::string& mean_metric, const std::string& count_metric, const Labels& labels) const {
    const auto* mean = find(mean_metric, labels);
    const auto* count = find(count_metric, labels);
    if (mean == nullptr || count == nullptr) return -1;
    // Latency windows without a sample are not written: match by time.
    std::map<std::int64_t, double> counts;
    for (std::size_t i = 0; i < count->t_ns.size(); ++i) counts[count->t_ns[i]] = count->value[i];
    double sum = 0, n = 0;
    for (std::size_t i = 0; i < mean->t_ns.size(); ++i) {
      if (mean->t_ns[i] < from_ns) continue;
      const double c = counts[mean->t_ns[i]];
      sum += mean->value[i] * c;
      n += c;
    }
    return n > 0 ? sum / n : -1;
  }
};

const FailureCase& find_case(const NPlusOneReport& report, const std::string& name) {
  for (const FailureCase& c : report.cases) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no case " + name);
}

// `from`: compare with the simulation from then to the end (a settled window).
void expect_agreement(const FailureCase& predicted, const RunResult& run, int min_stations = 11,
                      Duration from = Duration::zero()) {
  ASSERT_TRUE(run.outcome.complete());
  ASSERT_FALSE(predicted.overloaded) << predicted.name;
  const Simulated simulated{run.recorder(), to_ns(from)};
  if (from > Duration::zero()) std::printf("simulated from %.0f s to the end\n", to_seconds(from));
  std::printf("%s\n  %-8s %-5s %8s %8s %6s %10s %10s %6s\n", predicted.name.c_str(), "service", "zone", "util",
              "sim", "diff", "resp ms", "sim ms", "diff");
  int compared = 0;
  for (const StationRow& row : predicted.stations) {
    if (row.up_pods == 0) continue;
    if (row.rate_per_s == 0) {
      // No caller reaches the zone (a regional balancer elsewhere): nor does the simulation send it anything.
      std::printf("  %-8s %-5s no traffic, sim util %.2f%%\n", row.service.c_str(), row.zone.c_str(),
                  100 * simulated.utilization(row.service, row.zone));
      EXPECT_EQ(simulated.utilization(row.service, row.zone), 0) << row.service << "@" << row.zone;
      continue;
    }
    ASSERT_TRUE(row.stable && row.mean_response) << row.service << "@" << row.zone;
    const double util = simulated.utilization(row.service, row.zone);
    const double response = simulated.response_s(row.service, row.zone);
    const double predicted_response = to_seconds(*row.mean_response);
    std::printf("  %-8s %-5s %7.2f%% %7.2f%% %+5.1f%% %10.2f %10.2f %+5.1f%%\n", row.service.c_str(), row.zone.c_str(),
                100 * row.utilization, 100 * util, 100 * (util / row.utilization - 1), 1e3 * predicted_response,
                1e3 * response, 100 * (response / predicted_response - 1));
    EXPECT_NEAR(util, row.utilization, 0.03 * row.utilization) << row.service << "@" << row.zone;
    EXPECT_NEAR(response, predicted_response, 0.10 * predicted_response) << row.service << "@" << row.zone;
    // CPU per pod: the accepted requests' CPU time, each operation's own, plus idle.
    const double cpu = simulated.cpu_cores(row.service, row.zone) / row.up_pods;
    std::printf("  %-8s %-5s cpu %.4f cores a pod, sim %.4f (%+.2f%%)\n", row.service.c_str(), row.zone.c_str(),
                row.cpu_cores, cpu, 100 * (cpu / row.cpu_cores - 1));
    EXPECT_NEAR(cpu, row.cpu_cores, 0.03 * row.cpu_cores + 1e-9) << row.service << "@" << row.zone << " CPU";
    ++compared;
  }
  EXPECT_GE(compared, min_stations);
  // Pools: Little's law (utilisation = borrows x hold / connections) holds
  // whatever the distributions; the wait is M/M/c's, printed only (the hold
  // is far from exponential, so Erlang C leans high).
  for (const PoolRow& row : predicted.pools) {
    if (row.up_pods == 0) continue;
    ASSERT_TRUE(row.stable && row.mean_wait) << row.service << "@" << row.zone << " pool " << row.database;
    const double util = simulated.pool_active(row.service, row.zone, row.database) / (row.up_pods * row.connections);
    const double wait = simulated.pool_wait_s(row.service, row.zone, row.database);
    std::printf("  pool %s@%s %s: util %.2f%%, sim %.2f%% (%+.1f%%); wait %.3f ms, sim %.3f ms\n", row.service.c_str(),
                row.zone.c_str(), row.database.c_str(), 100 * row.utilization, 100 * util,
                100 * (util / row.utilization - 1), 1e3 * to_seconds(*row.mean_wait), 1e3 * wait);
    EXPECT_NEAR(util, row.utilization, 0.03 * row.utilization) << row.service << "@" << row.zone;
  }
  for (const PopulationRow& row : predicted.populations) {
    ASSERT_TRUE(row.mean_latency) << row.population;
    EXPECT_EQ(row.unserved_rate_per_s, 0);
    const double latency = simulated.latency_s(row.population);
    const double expected = to_seconds(*row.mean_latency);
    std::printf("  population %s: mean latency %.2f ms, simulated %.2f ms (%+.1f%%)\n", row.population.c_str(),
                1e3 * expected, 1e3 * latency, 100 * (latency / expected - 1));
    EXPECT_NEAR(latency, expected, 0.10 * expected) << row.population;
  }
  for (const OperationRow& row : predicted.operations) {
    ASSERT_TRUE(row.mean_latency) << row.population << " " << row.operation;
    const double latency = simulated.operation_latency_s(row.population, row.operation);
    const double expected = to_seconds(*row.mean_latency);
    std::printf("  operation %s/%s: mean latency %.2f ms, simulated %.2f ms (%+.1f%%)\n", row.population.c_str(),
                row.operation.c_str(), 1e3 * expected, 1e3 * latency, 100 * (latency / expected - 1));
    EXPECT_NEAR(latency, expected, 0.10 * expected) << row.population << " " << row.operation;
  }
}

NPlusOneReport check(const Scenario& scenario) {
  const DeploymentConfig& deployment = scenario.spec.topology.config;
  return n_plus_one(deployment, deployment.services, scenario.spec.load, 0.8, deployment.databases,
                    scenario.spec.kubernetes.has_value());
}

TEST(CheckAgreesWithTheSimulatedCallGraph, Steady) {
  const Scenario scenario = load_scenario_file(kScenario);
  expect_agreement(find_case(check(scenario), "steady"), run_scenario(scenario));
}

// The zone-down runs of the call graph: eu-b lost from the start, and the
// run long enough to leave a settled window of 10 minutes. The backlog
// lasts until about 330 s: web's workers wait on calls into eu-b's balancer
// nodes, whose addresses callers cache for a TTL after the nodes leave DNS,
// until their 127 s connect timeouts; with no deadline they then serve the
// queued requests their clients gave up on.
constexpr std::array kCallGraphZoneDown{
    "spec.timeline=[{name: eu-b-outage, action: 'zone:fail', target: {zone: eu-b}, at: 0s}]",
    "spec.duration=17m"};
constexpr Duration kCallGraphSettled = std::chrono::minutes(7);

// No request fails from `from` to the end of the run.
void expect_settled(const RunResult& run, Duration from) {
  const Simulated window{run.recorder(), to_ns(from)};
  EXPECT_EQ(window.total("client.failed", {}), 0) << "still failing after " << to_seconds(from) << " s";
}

TEST(CheckAgreesWithTheSimulatedCallGraph, ZoneDown) {
  const Scenario scenario =
      load_scenario_file(kScenario, std::vector<std::string>(kCallGraphZoneDown.begin(), kCallGraphZoneDown.end()));
  const RunResult run = run_scenario(scenario);
  expect_settled(run, kCallGraphSettled);
  expect_agreement(find_case(check(scenario), "zone eu-b down"), run, 11, kCallGraphSettled);
}

// pricing behind its cloud load balancers (the default) rather than one
// balancer across both regions: web, in eu, calls eu's balancer only, and
// us-a's pod gets nothing, in the check as in the simulation.
TEST(CheckAgreesWithTheSimulatedCallGraph, RegionalBalancer) {
  const Scenario scenario = load_scenario_file(kScenario, {"spec.topology.services[pricing].discovery=auto"});
  expect_agreement(find_case(check(scenario), "steady"), run_scenario(scenario), 12);
}

// Zone affinity: same-zone calls stay local unless the zone has no idle
// worker; the spill-over is approximated (n_plus_one.h).
const std::vector<std::string> kAffinity{"spec.topology.services[auth].zoneAffinity=true",
                                         "spec.topology.services[catalog].zoneAffinity=true",
                                         "spec.topology.services[ledger].zoneAffinity=true"};

TEST(CheckAgreesWithTheSimulatedCallGraph, ZoneAffinitySteady) {
  const Scenario scenario = load_scenario_file(kScenario, kAffinity);
  expect_agreement(find_case(check(scenario), "steady"), run_scenario(scenario));
}

TEST(CheckAgreesWithTheSimulatedCallGraph, ZoneAffinityZoneDown) {
  std::vector<std::string> overrides = kAffinity;
  overrides.insert(overrides.end(), kCallGraphZoneDown.begin(), kCallGraphZoneDown.end());
  const Scenario scenario = load_scenario_file(kScenario, overrides);
  const RunResult run = run_scenario(scenario);
  expect_settled(run, kCallGraphSettled);
  expect_agreement(find_case(check(scenario), "zone eu-b down"), run, 11, kCallGraphSettled);
}

// Database calls: every request holds a pooled connection for three queries
// (the last a semi-sync write); the pools' borrow waits and holds add to the
// web tier's holding time.
constexpr const char* kDatabaseScenario = "tests/data/scenarios/good/check_database_calls.yaml";

TEST(CheckAgreesWithTheSimulatedDatabaseCalls, Steady) {
  const Scenario scenario = load_scenario_file(kDatabaseScenario);
  expect_agreement(find_case(check(scenario), "steady"), run_scenario(scenario), 3);
}

TEST(CheckAgreesWithTheSimulatedDatabaseCalls, ZoneDown) {
  // eu-c down: its replica is gone (the writes wait for eu-b's ack alone)
  // and its share of the traffic moves to eu-a and eu-b, once web's balancer
  // has found its eu-c targets dead and callers' cached answers have expired.
  using namespace std::chrono_literals;
  const Scenario scenario = load_scenario_file(
      kDatabaseScenario, {"spec.timeline=[{name: eu-c-outage, action: 'zone:fail', target: {zone: eu-c}, at: 0s}]",
                          "spec.duration=10m"});
  const RunResult run = run_scenario(scenario);
  constexpr Duration kSettled = 4min;
  expect_settled(run, kSettled);
  expect_agreement(find_case(check(scenario), "zone eu-c down"), run, 2, kSettled);
}

// A failure that takes the primary's zone: the check's case is the state
// after the failover (analysis/database_calls.h database_case). The scenario
// loses eu-a, the primary's zone, at 30 s; the database fails over to its
// eu-c replica (preferredZone) and the pools, with short driver timeouts,
// reconnect to it seconds after the endpoint switch. The shoppers' requests
// into eu-a's pods of web fail until web's balancer has found them dead and
// the callers' cached DNS answers have let go of eu-a's node. The run is
// lengthened to 10 minutes and compared from 4 minutes to the end, once the
// failover, the reconnections, the detection and the backlog are over: no
// request and no query fails in that window.
constexpr const char* kFailoverScenario = "tests/data/scenarios/good/check_database_failover.yaml";

TEST(CheckAgreesWithTheSimulatedDatabaseCalls, PrimaryZoneDownAfterFailover) {
  using namespace std::chrono_literals;
  const Scenario scenario = load_scenario_file(kFailoverScenario, {"spec.duration=10m"});
  const DeploymentConfig& deployment = scenario.spec.topology.config;
  ASSERT_EQ(deployment.databases.size(), 1u);
  const DatabaseConfig& orders = deployment.databases[0];

  // The member the check takes as the new primary in "zone eu-a down".
  const Topology topology(deployment);
  TopologyState state = topology.nominal_state();
  state.zone_up[*topology.find_zone(orders.primary_zone)] = false;
  const DatabaseCase after = database_case(orders, topology, state);
  ASSERT_TRUE(after.primary && after.failed_over) << after.problem;
  EXPECT_EQ(*after.primary, 2u);
  EXPECT_EQ(topology.zone_name(after.primary_zone), "eu-c");

  const RunResult run = run_scenario(scenario);
  ASSERT_TRUE(run.outcome.complete());

  // The simulation promoted the same member, once, and switched the
  // endpoint to it well before the window.
  const Recorder::Events& events = run.recorder().events();
  int promotions = 0;
  std::int64_t switched_ns = -1;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events.component[i] != "database/" + orders.name) continue;
    if (events.kind[i] == "database.promoted") {
      ++promotions;
      const std::string member =
          "member " + std::to_string(*after.primary) + " (" + topology.zone_name(after.primary_zone) + ")";
      EXPECT_EQ(events.detail[i].rfind(member, 0), 0u) << events.detail[i];
    }
    if (events.kind[i] == "database.switched") switched_ns = events.t_ns[i];
  }
  EXPECT_EQ(promotions, 1);
  ASSERT_GT(switched_ns, 0);
  std::printf("endpoint switched at %.1f s\n", switched_ns / 1e9);
  constexpr Duration kSettled = 4min;
  EXPECT_LT(switched_ns, to_ns(90s));

  // The loss is felt (requests fail while there is no primary), but nothing
  // fails from the window's start on: it is settled.
  const Simulated whole{run.recorder()};
  const double failed = whole.total("client.failed", {{"population", "shoppers"}});
  std::printf("requests failed over the run: %.0f\n", failed);
  EXPECT_GT(failed, 0);
  const Simulated window{run.recorder(), to_ns(kSettled)};
  EXPECT_EQ(window.total("client.failed", {{"population", "shoppers"}}), 0);
  EXPECT_EQ(window.total("pool.query_failures", {{"database", orders.name}}), 0);
  EXPECT_EQ(window.total("pool.borrow_timeouts", {{"database", orders.name}}), 0);

  expect_agreement(find_case(check(scenario), "zone eu-a down"), run, 2, kSettled);
}

}  // namespace
}  // namespace drsim

namespace drsim {
namespace {

// Operations: every station of the 11-service shop serves a mix of operations with their own service times and
// calls; the check folds each service's mix (from the load generator's weights, down the operations' calls) into
// its station. The zone loss moved past the end, so the whole run is the steady state, long enough for the
// stations that see a request or two a second (email, payment) to settle within 3%.
TEST(CheckAgreesWithTheSimulatedOperations, OnlineBoutiqueSteady) {
  const Scenario scenario = load_scenario_file("scenarios/online_boutique_zone_loss.yaml",
                                               {"spec.duration=40m", "spec.timeline[lose-zone-a].at=50m"});
  expect_agreement(find_case(check(scenario), "steady"), run_scenario(scenario), 33);
}

}  // namespace
}  // namespace drsim

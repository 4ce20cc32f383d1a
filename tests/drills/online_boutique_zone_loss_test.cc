// The shipped shop (scenarios/online_boutique_zone_loss.yaml) losing zone-a, checked against a computation
// that shares nothing with the simulator but the scenario's settings: the call graph, the mix, the rate and
// the pods per zone (read from the loaded scenario, not typed in), and the blind window the run logged
// (Kubernetes' node lifecycle bounds it; node_lifecycle_bounds.h).
//
// Until a service's callers drop the lost zone's endpoints, each pick of a pod of it lands in zone-a with
// probability lost/total; a request succeeds only if no pick of its tree does. A call made with probability
// p succeeds with (1 - p) + p x P(callee's tree succeeds), count times over. An operation at rate r then loses
// r x (1 - P(success)) requests a second while the window is open, Poisson: the bands are +-4 sigma.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "models/kube/node_lifecycle_bounds.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

constexpr const char* kShop = "scenarios/online_boutique_zone_loss.yaml";
// The variant whose recommendation service gives up on productcatalog after 2 s (docs/validation.md).
const std::vector<std::string> kRecommendationTimeout = {
    "spec.topology.services[recommendation].operations[listRecommendations].calls[0].timeout=2s"};

double seconds(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }

// P(a request of `operation` at `service` succeeds) when a pick of a pod of service s lands on a lost one with
// probability lost[s]. Operations without calls of their own make the service's (its default operation's).
class TreeSuccess {
 public:
  TreeSuccess(const Scenario& scenario, std::map<std::string, double> lost)
      : scenario_(scenario), lost_(std::move(lost)) {}

  double request(const std::string& service, const std::string& operation, int depth = 0) const {
    const ServiceConfig& sv = find(service);
    double p = 1 - lost_.at(service);
    const std::vector<CallConfig>* calls = &sv.calls;
    for (const OperationConfig& op : sv.operations) {
      if (op.name == operation && op.calls) calls = &*op.calls;
    }
    if (depth > 16) {
      ADD_FAILURE() << "the shop's call graph has a cycle at " << service;
      return 0;
    }
    for (const CallConfig& call : *calls) {
      EXPECT_TRUE(call.database.empty()) << service << " queries a database: not in this computation";
      const double one =
          (1 - call.probability.value) + call.probability.value * request(call.service, call.operation, depth + 1);
      p *= std::pow(one, call.count);
    }
    return p;
  }

 private:
  const ServiceConfig& find(const std::string& name) const {
    for (const ServiceConfig& sv : scenario_.spec.topology.config.services) {
      if (sv.name == name) return sv;
    }
    ADD_FAILURE() << "no service " << name;
    return scenario_.spec.topology.config.services.front();
  }

  const Scenario& scenario_;
  std::map<std::string, double> lost_;
};

struct Band {
  double low = 0, high = 0;
};

struct ZoneLoss {
  RunResult run;
  double lost_at_s = 0;
  // Each service's endpoints sync that dropped the lost pods, in s.
  std::map<std::string, double> dropped_at_s;
};

ZoneLoss run_shop(const std::vector<std::string>& overrides) {
  ZoneLoss out{run_scenario(load_scenario_file(kShop, overrides))};
  const Scenario& s = out.run.scenario;
  const ActionConfig& loss = s.spec.timeline.at(0);
  EXPECT_EQ(loss.action, "zone:fail");
  out.lost_at_s = std::chrono::duration<double>(*loss.at).count();
  const Recorder::Events& ev = out.run.recorder().events();
  for (const ServiceConfig& sv : s.spec.topology.config.services) {
    for (std::size_t i = 0; i < ev.kind.size(); ++i) {
      if (ev.kind[i] != "endpoints.updated" || seconds(ev.t_ns[i]) < out.lost_at_s) continue;
      if (ev.detail[i].rfind(sv.name + ":", 0) != 0 || ev.detail[i].find("removed") == std::string::npos) continue;
      out.dropped_at_s.emplace(sv.name, seconds(ev.t_ns[i]));
      break;
    }
    EXPECT_TRUE(out.dropped_at_s.contains(sv.name)) << sv.name << "'s callers never dropped the lost pods";
  }
  return out;
}

// Requests of the population's `operation` expected to fail in the blind window: the window is cut at each
// service's sync, and over each piece the tree's success uses the services still blind in it.
Band expected_failed(const ZoneLoss& z, const std::string& operation) {
  const Scenario& s = z.run.scenario;
  const ClientPopulationConfig& population = s.spec.load.at(0);
  double weights = 0, weight = 0;
  for (const OperationShareConfig& share : population.operations) {
    weights += share.weight;
    if (share.name == operation) weight = share.weight;
  }
  const double rate = population.load.rate->per_second * weight / weights;
  const std::string lost_zone = s.spec.timeline.at(0).target.zone;
  std::map<std::string, double> lost_fraction;
  for (const ServiceConfig& sv : s.spec.topology.config.services) {
    double lost = 0, all = 0;
    for (const ReplicasConfig& r : sv.replicas) {
      all += r.replicas;
      if (r.zone == lost_zone) lost += r.replicas;
    }
    lost_fraction[sv.name] = lost / all;
  }
  std::set<double> cuts{z.lost_at_s};
  for (const auto& [service, t] : z.dropped_at_s) cuts.insert(t);
  double mean = 0;
  for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
    std::map<std::string, double> blind = lost_fraction;
    for (auto& [service, f] : blind) {
      if (z.dropped_at_s.at(service) <= *it) f = 0;
    }
    const double failing = 1 - TreeSuccess(s, blind).request(population.service, operation);
    mean += rate * failing * (*std::next(it) - *it);
  }
  const double sigma = std::sqrt(mean);
  return {mean - 4 * sigma, mean + 4 * sigma};
}

// The population's failed requests of `operation`, every cause.
double failed(const Recorder& rec, const std::string& operation) {
  double n = 0;
  for (const Recorder::Kpi& k : rec.kpis()) {
    if (k.name != "operation.failed") continue;
    const bool mine = std::count(k.labels.begin(), k.labels.end(),
                                 std::pair<std::string, std::string>{"operation", operation}) == 1 &&
                      std::count(k.labels.begin(), k.labels.end(),
                                 std::pair<std::string, std::string>{"population", "shoppers"}) == 1;
    if (mine) n += k.value;
  }
  return n;
}

TEST(OnlineBoutiqueZoneLoss, TheLostPodsAreDroppedInsideTheNodeLifecycleRange) {
  const ZoneLoss z = run_shop({});
  const DelayRange nl = not_ready_delay_range(z.run.scenario.spec.kubernetes->node_lifecycle);
  const double sync = std::chrono::duration<double>(z.run.scenario.spec.kubernetes->kube_proxy.min_sync_period).count();
  for (const auto& [service, t] : z.dropped_at_s) {
    EXPECT_GT(t - z.lost_at_s, std::chrono::duration<double>(nl.above).count()) << service;
    EXPECT_LE(t - z.lost_at_s, std::chrono::duration<double>(nl.at_most).count() + sync) << service;
  }
}

TEST(OnlineBoutiqueZoneLoss, OperationsOffTheDeadlinelessCallLoseTheirBlindWindowsPicks) {
  // home, setCurrency and addToCart do not reach recommendation, whose call to productcatalog has no deadline:
  // they fail only while the window is open.
  const ZoneLoss z = run_shop({});
  for (const std::string op : {"home", "setCurrency", "addToCart"}) {
    const Band band = expected_failed(z, op);
    const double got = failed(z.run.recorder(), op);
    EXPECT_GE(got, band.low) << op;
    EXPECT_LE(got, band.high) << op;
  }
  // Those that do reach it stay down after the window: recommendation's threads wait on zone-a's pod until TCP
  // gives up, far beyond the run.
  for (const std::string op : {"product", "viewCart", "placeOrder"}) {
    const Labels mine{{"operation", op}, {"population", "shoppers"}};
    EXPECT_LT(test_support::kpi(z.run.recorder(), "operation.availability", mine), 0.5) << op;
    EXPECT_GT(failed(z.run.recorder(), op), 2 * expected_failed(z, op).high) << op;
  }
}

TEST(OnlineBoutiqueZoneLoss, WithADeadlineOnThatCallEveryOperationLosesOnlyItsBlindWindowsPicks) {
  const ZoneLoss z = run_shop(kRecommendationTimeout);
  for (const OperationShareConfig& share : z.run.scenario.spec.load.at(0).operations) {
    const Band band = expected_failed(z, share.name);
    const double got = failed(z.run.recorder(), share.name);
    EXPECT_GE(got, band.low) << share.name;
    EXPECT_LE(got, band.high) << share.name;
  }
}

}  // namespace
}  // namespace drsim

// The worked example end to end (issue 19): the shop's manifests (examples/online_boutique/kubernetes) imported,
// its AZ power interruption (examples/online_boutique/experiments, an AWS FIS template) imported against the
// result, and the run: the control plane's answer to the lost zone, from the imported settings alone. The
// nodes of us-east-1a go NotReady inside the node lifecycle range, the pods there are evicted a toleration
// later, and a service whose pods keep a zone spread constraint of maxSkew 1 (DoNotSchedule) cannot place its
// replacement elsewhere (the lost zone still holds the global minimum), while the load generator, under the
// scheduler's default constraint (maxSkew 5, ScheduleAnyway), moves to another zone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "io/experiment_import.h"
#include "io/kubernetes_import.h"
#include "io/run.h"
#include "io/scenario_loader.h"
#include "io/trace_import.h"
#include "io/yaml_document.h"
#include "models/kube/node_lifecycle_bounds.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

struct Logged {
  double t = -1;
  std::string detail;
};

std::vector<Logged> events(const Recorder& rec, std::string_view kind) {
  std::vector<Logged> out;
  for (std::size_t i = 0; i < rec.events().size(); ++i) {
    if (rec.events().kind[i] == kind) {
      out.push_back({static_cast<double>(rec.events().t_ns[i]) / 1e9, rec.events().detail[i]});
    }
  }
  return out;
}

TEST(OnlineBoutiqueImport, TheImportedShopUnderTheImportedAzExperiment) {
  const KubernetesImport shop = import_kubernetes({"examples/online_boutique/kubernetes"}, {});
  const Scenario base = load_scenario_text(shop.scenario_yaml, {}, "shop.yaml");
  ExperimentImportOptions options;
  options.start = 2min;
  const ExperimentImport fis =
      import_experiment(base, {"examples/online_boutique/experiments/az_power_interruption.json"}, options);
  ASSERT_EQ(fis.steps.size(), 1u);  // the network disruption and the instance stop: one zone failure
  const Scenario s = load_scenario_text(scenario_with_steps(shop.scenario_yaml, "shop.yaml", fis), {}, "shop.yaml");
  const ActionConfig& loss = s.spec.timeline.at(0);
  EXPECT_EQ(loss.target.zone, "us-east-1a");
  EXPECT_EQ(loss.duration, 30min);

  const RunResult run = run_scenario(s, RunOptions{.until = 12min});
  ASSERT_TRUE(run.outcome.complete()) << run.outcome.message;
  const Recorder& rec = run.recorder();
  const NodeLifecycleConfig& nl = s.spec.kubernetes->node_lifecycle;
  const DelayRange range = not_ready_delay_range(nl);
  const std::vector<Logged> not_ready = events(rec, "node.not_ready");
  ASSERT_EQ(not_ready.size(), 1u);
  const double lost_at = seconds(*loss.at);
  EXPECT_GT(not_ready[0].t - lost_at, seconds(range.above));
  EXPECT_LE(not_ready[0].t - lost_at, seconds(range.at_most));

  const std::vector<Logged> evicted = events(rec, "pod.evicted");
  EXPECT_EQ(evicted.size(), s.spec.kubernetes->deployments.size());  // one pod of each in the lost zone
  for (const Logged& e : evicted) {
    EXPECT_DOUBLE_EQ(e.t, not_ready[0].t + seconds(nl.toleration)) << e.detail;
    const std::string service = e.detail.substr(0, e.detail.find(':'));
    for (const KubeDeploymentConfig& d : s.spec.kubernetes->deployments) {
      if (d.service != service) continue;
      if (d.policy.when_unsatisfiable == "DoNotSchedule" && d.policy.max_skew == 1) {
        EXPECT_NE(e.detail.find("Pending until it is back"), std::string::npos) << e.detail;
      } else {
        EXPECT_NE(e.detail.find("replacements 1 in us-east-1"), std::string::npos) << e.detail;
      }
    }
  }
}

// What the demo's instrumentation calls the hand model's services and operations (as
// examples/online_boutique/traces/generate.py renamed them).
std::string traced_service(const std::string& s) {
  static const std::map<std::string, std::string> names{
      {"frontend", "frontend"},         {"checkout", "checkoutservice"},   {"productcatalog", "productcatalogservice"},
      {"currency", "currencyservice"},  {"cart", "cartservice"},           {"redis-cart", "redis-cart"},
      {"recommendation", "recommendationservice"}, {"shipping", "shippingservice"}, {"payment", "paymentservice"},
      {"email", "emailservice"},        {"ad", "adservice"}};
  return names.at(s);
}
std::string traced_operation(const std::string& service, const std::string& op) {
  static const std::map<std::string, std::string> routes{
      {"home", "GET /"},        {"product", "GET /product/{id}"}, {"setCurrency", "POST /setCurrency"},
      {"addToCart", "POST /cart"}, {"viewCart", "GET /cart"},   {"placeOrder", "POST /cart/checkout"}};
  static const std::map<std::string, std::string> grpc{
      {"checkout", "CheckoutService"}, {"productcatalog", "ProductCatalogService"}, {"currency", "CurrencyService"},
      {"cart", "CartService"},         {"recommendation", "RecommendationService"}, {"shipping", "ShippingService"},
      {"payment", "PaymentService"},   {"email", "EmailService"},                   {"ad", "AdService"}};
  if (service == "frontend") return routes.at(op);
  if (service == "redis-cart") return op == "default" ? "HGETALL" : op;
  return "hipstershop." + grpc.at(service) + "/" + static_cast<char>(std::toupper(op[0])) + op.substr(1);
}

// The traces of the hand-written shop, renamed as the demo names things, imported against the shop imported from
// its manifests: every operation of the hand model, with its callees, counts, parallel groups and (within 5
// standard errors) probabilities; and the result, with the server models the manifests cannot give, runs.
TEST(OnlineBoutiqueImport, TheShopsTracesGiveBackTheHandModelsCallGraph) {
  const KubernetesImport shop = import_kubernetes({"examples/online_boutique/kubernetes"}, {});
  TraceImportOptions options;
  options.workload.sampling = 0.01;
  const TraceImport traced = import_traces_texts(shop.scenario_yaml, "shop.yaml",
                                                 read_text_files({"examples/online_boutique/traces/shop_traces.json"},
                                                                 "trace"),
                                                 options);
  const Scenario hand = load_scenario_file("scenarios/online_boutique_zone_loss.yaml");
  std::size_t operations = 0;
  for (const ServiceConfig& svc : hand.spec.topology.config.services) {
    for (std::size_t op = 0; op < svc.operation_count(); ++op) {
      if (op == 0 && !svc.operations.empty()) continue;  // a default operation nobody calls
      ++operations;
      const std::string service = traced_service(svc.name);
      const std::string name = traced_operation(svc.name, std::string(svc.span_name(op)));
      const auto found = std::find_if(traced.workload.operations.begin(), traced.workload.operations.end(),
                                      [&](const TracedOperation& t) { return t.service == service && t.operation == name; });
      ASSERT_NE(found, traced.workload.operations.end()) << service << " " << name;
      // The hand model's calls, merged per callee operation as the importer reads them: every call of a request
      // to one callee operation is one entry, at the place of the first (checkout's PlaceOrder converts a
      // currency twice, then once more after the shipping quote: count 3).
      std::vector<CallConfig> calls;
      for (const CallConfig& c : svc.calls_of(op)) {
        const auto same = std::find_if(calls.begin(), calls.end(), [&](const CallConfig& m) {
          return m.service == c.service && m.operation == c.operation;
        });
        if (same == calls.end()) {
          calls.push_back(c);
        } else {
          same->count += c.count;
        }
      }
      ASSERT_EQ(found->calls.size(), calls.size()) << service << " " << name;
      for (std::size_t i = 0; i < calls.size(); ++i) {
        const CallConfig& want = calls[i];
        const TracedCall& got = found->calls[i];
        const std::string callee = traced_service(want.service);
        const auto callee_svc = std::find_if(hand.spec.topology.config.services.begin(),
                                             hand.spec.topology.config.services.end(),
                                             [&](const ServiceConfig& c) { return c.name == want.service; });
        EXPECT_EQ(got.service, callee) << name << " call " << i;
        EXPECT_EQ(got.operation,
                  traced_operation(want.service,
                                   std::string(callee_svc->span_name(*callee_svc->operation_index(want.operation)))))
            << name << " call " << i;
        EXPECT_EQ(got.count, want.count) << name << " -> " << got.operation;
        EXPECT_EQ(got.parallel, want.parallel) << name << " -> " << got.operation;
        const double p = want.probability.value;
        const double n = static_cast<double>(found->requests);
        EXPECT_NEAR(got.probability, p, 5 * std::sqrt(std::max(p * (1 - p), 0.25 / n) / n) + 1e-12)
            << name << " -> " << got.operation << " (" << found->requests << " requests)";
      }
    }
  }
  EXPECT_EQ(traced.workload.operations.size(), operations);

  // The manifests do not say how a pod serves: with one worker a pod (the importer's placeholder) the frontend
  // overloads; the demo's Go, Node.js and C# servers are event loops, its Python ones thread pools of 10.
  std::vector<std::string> overrides;
  for (const char* s : {"frontend", "checkoutservice", "productcatalogservice", "currencyservice", "cartservice",
                        "redis-cart", "shippingservice", "paymentservice", "adservice"}) {
    overrides.push_back(std::string("spec.topology.services[") + s + "].server=eventLoop");
    overrides.push_back(std::string("spec.topology.services[") + s + "].maxInFlight=100000");
  }
  for (const char* s : {"recommendationservice", "emailservice"})
    overrides.push_back(std::string("spec.topology.services[") + s + "].concurrency=10");
  // Traces give a request's time, not how much of it computes: at one core a worker (cpu.perWorker's default)
  // the frontend and recommendation pods need more than the manifests' 200m limit at this load, are throttled
  // and fall behind (drsim check says so; so does the hand model's own note on those limits). Lifted here, as
  // the hand model leaves them out.
  for (const char* s : {"frontend", "recommendationservice"})
    overrides.push_back(std::string("spec.topology.services[") + s + "].cpu.limit=2");
  for (std::size_t p = 0; p < traced.workload.entries.size(); ++p)
    overrides.push_back("spec.load[" + std::to_string(p) + "].timeout=60s");
  const Scenario s = load_scenario_text(traced.scenario_yaml, overrides, "shop.yaml");
  const RunResult run = run_scenario(s, RunOptions{.until = 1min});
  ASSERT_TRUE(run.outcome.complete()) << run.outcome.message;
  double offered = 0, succeeded = 0;
  for (const ClientPopulationConfig& p : s.spec.load) {
    offered += run.recorder().find_kpi("client.offered", {{"population", p.name}})->value;
    succeeded += run.recorder().find_kpi("client.succeeded", {{"population", p.name}})->value;
  }
  // About 300 requests a second, as the hand model's load (the traced share, 1%, undone).
  EXPECT_NEAR(offered / 60, 300, 300 * 0.25);
  EXPECT_GE(succeeded / offered, 0.99);
}

}  // namespace
}  // namespace drsim

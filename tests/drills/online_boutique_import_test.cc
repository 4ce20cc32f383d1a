// The worked example end to end (issue 19): the shop's manifests (examples/online_boutique/kubernetes) imported,
// its AZ power interruption (examples/online_boutique/experiments, an AWS FIS template) imported against the
// result, and the run: the control plane's answer to the lost zone, from the imported settings alone. The
// nodes of us-east-1a go NotReady inside the node lifecycle range, the pods there are evicted a toleration
// later, and a service whose pods keep a zone spread constraint of maxSkew 1 (DoNotSchedule) cannot place its
// replacement elsewhere (the lost zone still holds the global minimum), while the load generator, under the
// scheduler's default constraint (maxSkew 5, ScheduleAnyway), moves to another zone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/experiment_import.h"
#include "io/kubernetes_import.h"
#include "io/run.h"
#include "io/scenario_loader.h"
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

}  // namespace
}  // namespace drsim

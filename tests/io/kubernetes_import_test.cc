// drsim import kubernetes against the manifests of tests/data/manifests: each kind and field the importer
// models lands in the scenario with the manifests' values (read back through the scenario loader, as a user
// loads the output), everything else is in the notes, and bad manifests give the exact message a user sees.
#include "io/kubernetes_import.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

constexpr const char* kBasic = "tests/data/manifests/basic";

struct Imported {
  KubernetesImport import;
  Scenario scenario;
};

Imported import_dir(const char* dir, KubernetesImportOptions options = {}) {
  KubernetesImport i = import_kubernetes({dir}, options);
  Scenario s = load_scenario_text(i.scenario_yaml, {}, "imported.yaml");
  return {std::move(i), std::move(s)};
}

// The item of `items` whose `key` member is `name` (a test failure, and an empty item, when there is none).
template <class Item>
const Item& named(const std::vector<Item>& items, std::string Item::*key, const std::string& name) {
  for (const Item& item : items) {
    if (item.*key == name) return item;
  }
  ADD_FAILURE() << "none named " << name;
  static const Item none{};
  return none;
}

const ServiceConfig& service(const Scenario& s, const std::string& name) {
  return named(s.spec.topology.config.services, &ServiceConfig::name, name);
}
const KubeDeploymentConfig& deployment(const Scenario& s, const std::string& name) {
  return named(s.spec.kubernetes->deployments, &KubeDeploymentConfig::service, name);
}
const HpaConfig& hpa(const Scenario& s, const std::string& name) {
  return named(s.spec.kubernetes->hpas, &HpaConfig::name, name);
}

std::uint32_t replicas_in(const ServiceConfig& sv, const std::string& zone) {
  for (const ReplicasConfig& r : sv.replicas) {
    if (r.zone == zone) return r.replicas;
  }
  return 0;
}

bool noted(const KubernetesImport& i, const std::string& object, const std::string& path,
           const std::string& words = "") {
  return std::any_of(i.notes.begin(), i.notes.end(), [&](const ImportNote& n) {
    return n.object == object && n.path == path && n.message.find(words) != std::string::npos;
  });
}

// The pods a rollout may add and take away at a count, as drsim's control plane rounds them.
std::uint32_t surge_at(const RollingUpdateConfig& r, std::uint32_t n) {
  return static_cast<std::uint32_t>(std::ceil(r.max_surge.value * n));
}
std::uint32_t unavailable_at(const RollingUpdateConfig& r, std::uint32_t n) {
  return static_cast<std::uint32_t>(std::floor(r.max_unavailable.value * n));
}

TEST(KubernetesImport, ZonesAndNodePoolsComeFromTheNodes) {
  const Imported x = import_dir(kBasic);
  const auto& regions = x.scenario.spec.topology.config.regions;
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].name, "region-1");
  ASSERT_EQ(regions[0].zones.size(), 3u);
  EXPECT_EQ(regions[0].zones[0].name, "zone-a");
  EXPECT_EQ(regions[0].zones[2].name, "zone-c");
  const auto& pools = x.scenario.spec.kubernetes->node_pools;
  ASSERT_EQ(pools.size(), 3u);
  EXPECT_EQ(pools[0].name, "zone-a-m5.xlarge");
  EXPECT_EQ(pools[0].nodes, 2u);
  EXPECT_EQ(pools[0].cpu.millicores, 3920);
  EXPECT_EQ(pools[0].memory.bytes, std::int64_t{15} << 30);
  EXPECT_EQ(pools[0].max_pods, 58u);
  EXPECT_EQ(pools[2].zone, "zone-c");
  EXPECT_EQ(pools[2].nodes, 1u);
  // A Node's state is not read; its taints are listed.
  EXPECT_TRUE(noted(x.import, "Node node-c-1", "spec", "not modelled"));
  EXPECT_FALSE(noted(x.import, "Node node-a-1", "status.capacity"));
}

TEST(KubernetesImport, ADeploymentsReplicasResourcesProbeAndRolloutAreTheManifests) {
  const Imported x = import_dir(kBasic);
  const ServiceConfig& fe = service(x.scenario, "frontend");
  // spec.replicas 4 over three zones under maxSkew 1.
  EXPECT_EQ(replicas_in(fe, "zone-a") + replicas_in(fe, "zone-b") + replicas_in(fe, "zone-c"), 4u);
  EXPECT_LE(replicas_in(fe, "zone-a") - replicas_in(fe, "zone-c"), 1u);
  // Two containers: 100m + 50m requested, 200m + "0.1" limited; 64Mi + 32Mi of memory.
  ASSERT_TRUE(fe.cpu.request && fe.cpu.limit);
  EXPECT_EQ(fe.cpu.request->millicores, 150);
  EXPECT_EQ(fe.cpu.limit->millicores, 300);
  EXPECT_TRUE(fe.zone_affinity);  // service.kubernetes.io/topology-mode: Auto
  const KubeDeploymentConfig& d = deployment(x.scenario, "frontend");
  EXPECT_EQ(d.kind, "Deployment");
  EXPECT_EQ(d.memory.bytes, 96 << 20);
  EXPECT_EQ(d.readiness_probe.initial_delay_seconds, 5);
  EXPECT_EQ(d.readiness_probe.period_seconds, 3);
  EXPECT_EQ(d.readiness_probe.success_threshold, 1);
  EXPECT_EQ(d.readiness_probe.failure_threshold, 2);
  EXPECT_EQ(d.policy.kind, "topologySpread");
  EXPECT_EQ(d.policy.max_skew, 1u);
  EXPECT_EQ(d.policy.when_unsatisfiable, "DoNotSchedule");
  EXPECT_TRUE(d.policy.zones.empty());
  ASSERT_TRUE(d.toleration);
  EXPECT_EQ(*d.toleration, 120s);
  // maxSurge 1, maxUnavailable 0 at 4 replicas.
  EXPECT_EQ(surge_at(d.rolling_update, 4), 1u);
  EXPECT_EQ(unavailable_at(d.rolling_update, 4), 0u);
  EXPECT_TRUE(noted(x.import, "Deployment frontend", "spec.strategy.rollingUpdate", "converted"));
  // What drsim does not model is listed where it is.
  EXPECT_TRUE(noted(x.import, "Deployment frontend", "spec.template.spec.containers[0].livenessProbe"));
  EXPECT_TRUE(noted(x.import, "Deployment frontend", "spec.template.spec.containers[0].readinessProbe.timeoutSeconds"));
  EXPECT_TRUE(noted(x.import, "Deployment frontend", "spec.template.spec.containers[0].resources.limits.memory"));
  EXPECT_TRUE(noted(x.import, "Deployment frontend", "spec.template.spec.topologySpreadConstraints[1]",
                    "kubernetes.io/hostname"));
  EXPECT_TRUE(noted(x.import, "Deployment frontend", "spec.revisionHistoryLimit"));
  // ... and nothing it read is.
  for (const ImportNote& n : x.import.notes) {
    EXPECT_EQ(n.path.find("resources.requests"), std::string::npos) << n.to_string();
    EXPECT_NE(n.path, "spec.replicas") << n.to_string();
    EXPECT_NE(n.path, "spec.template.spec.topologySpreadConstraints[0]") << n.to_string();
  }
}

TEST(KubernetesImport, AStatefulSetKeepsItsKindZonesAndOnePodAtATime) {
  const Imported x = import_dir(kBasic);
  const ServiceConfig& redis = service(x.scenario, "redis");
  EXPECT_EQ(replicas_in(redis, "zone-a"), 1u);
  EXPECT_EQ(replicas_in(redis, "zone-b"), 1u);
  EXPECT_EQ(replicas_in(redis, "zone-c"), 0u);
  ASSERT_TRUE(redis.cpu.request);
  EXPECT_EQ(redis.cpu.request->millicores, 250);
  EXPECT_FALSE(redis.cpu.limit);
  const KubeDeploymentConfig& d = deployment(x.scenario, "redis");
  EXPECT_EQ(d.kind, "StatefulSet");
  EXPECT_EQ(d.policy.zones, (std::vector<std::string>{"zone-a", "zone-b"}));
  EXPECT_EQ(d.memory.bytes, std::int64_t{1} << 30);
  EXPECT_EQ(d.readiness_probe.period_seconds, 5);
  EXPECT_EQ(surge_at(d.rolling_update, 2), 0u);
  EXPECT_EQ(unavailable_at(d.rolling_update, 2), 1u);
  EXPECT_TRUE(noted(x.import, "PodDisruptionBudget redis", "", "not modelled"));
}

TEST(KubernetesImport, ListsServerFieldsAndTheCpuRequestDefaultedToTheLimit) {
  const Imported x = import_dir(kBasic);
  const ServiceConfig& worker = service(x.scenario, "worker");
  // No spec.replicas: 1. Only limits.cpu "1": the request defaults to it.
  EXPECT_EQ(replicas_in(worker, "zone-a") + replicas_in(worker, "zone-b") + replicas_in(worker, "zone-c"), 1u);
  ASSERT_TRUE(worker.cpu.request && worker.cpu.limit);
  EXPECT_EQ(worker.cpu.request->millicores, 1000);
  EXPECT_EQ(worker.cpu.limit->millicores, 1000);
  EXPECT_EQ(deployment(x.scenario, "worker").memory.bytes, 512 << 20);
  // The server's own fields (uid, status, ...) are bookkeeping, not listed; a ConfigMap is.
  EXPECT_FALSE(noted(x.import, "Deployment worker", "status"));
  EXPECT_FALSE(noted(x.import, "Deployment worker", "metadata.uid"));
  EXPECT_TRUE(noted(x.import, "ConfigMap worker-settings", "", "not modelled"));
}

TEST(KubernetesImport, HpasKeepTheirBoundsBehaviorAndTheMetricsDrsimMeasures) {
  const Imported x = import_dir(kBasic);
  const HpaConfig& fe = hpa(x.scenario, "frontend");
  EXPECT_EQ(fe.target, "frontend");
  EXPECT_EQ(fe.min_replicas, 3);
  EXPECT_EQ(fe.max_replicas, 12);
  ASSERT_EQ(fe.metrics.size(), 1u);  // cpu; memory, an unknown Pods metric and an External one are listed
  ASSERT_TRUE(fe.metrics[0].resource);
  EXPECT_EQ(fe.metrics[0].resource->target.average_utilization, 60);
  EXPECT_TRUE(noted(x.import, "HorizontalPodAutoscaler frontend", "spec.metrics[1]", "memory"));
  EXPECT_TRUE(noted(x.import, "HorizontalPodAutoscaler frontend", "spec.metrics[2]", "http_requests_per_second"));
  EXPECT_TRUE(noted(x.import, "HorizontalPodAutoscaler frontend", "spec.metrics[3]", "External"));
  ASSERT_TRUE(fe.behavior);
  EXPECT_EQ(fe.behavior->scale_up.stabilization_window_seconds, 0);
  EXPECT_EQ(fe.behavior->scale_up.select_policy, "Max");
  ASSERT_TRUE(fe.behavior->scale_up.policies);
  ASSERT_EQ(fe.behavior->scale_up.policies->size(), 2u);
  EXPECT_EQ((*fe.behavior->scale_up.policies)[1].type, "Pods");
  EXPECT_EQ((*fe.behavior->scale_up.policies)[1].value, 4);
  EXPECT_EQ((*fe.behavior->scale_up.policies)[1].period_seconds, 15);
  EXPECT_EQ(fe.behavior->scale_down.stabilization_window_seconds, 120);
  // autoscaling/v1: targetCPUUtilizationPercentage.
  const HpaConfig& worker = hpa(x.scenario, "worker");
  EXPECT_EQ(worker.max_replicas, 5);
  ASSERT_EQ(worker.metrics.size(), 1u);
  EXPECT_EQ(worker.metrics[0].resource->target.average_utilization, 70);
  EXPECT_FALSE(worker.behavior);
}

TEST(KubernetesImport, AMetricCanBeReadAsOneTheAdapterServes) {
  KubernetesImportOptions options;
  options.metric_names["http_requests_per_second"] = "requests_per_second";
  const Imported x = import_dir(kBasic, options);
  const HpaConfig& fe = hpa(x.scenario, "frontend");
  ASSERT_EQ(fe.metrics.size(), 2u);
  ASSERT_TRUE(fe.metrics[1].pods);
  EXPECT_EQ(fe.metrics[1].pods->metric.name, "requests_per_second");
  EXPECT_EQ(fe.metrics[1].pods->target.average_value, "50");
}

// A ContainerResource cpu metric is the pod's CPU when the pod has that container only; of a pod with a
// sidecar it is a note (drsim measures pods).
TEST(KubernetesImport, AContainersCpuIsThePodsWhenItIsTheOnlyContainer) {
  const auto manifests = [](const std::string& containers) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  replicas: 2\n  template:\n"
           "    spec:\n      containers:\n" + containers +
           "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: api}\nspec:\n"
           "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}\n  minReplicas: 2\n"
           "  maxReplicas: 6\n  metrics:\n  - type: ContainerResource\n    containerResource:\n"
           "      name: cpu\n      container: app\n      target: {type: Utilization, averageUtilization: 60}\n"
           "  - type: Resource\n    resource:\n      name: cpu\n      target: {type: Utilization, "
           "averageUtilization: 90}\n";
  };
  KubernetesImportOptions options;
  options.zones = {"a"};
  const std::string app = "        - name: app\n          resources: {requests: {cpu: 200m}}\n";
  const KubernetesImport alone = import_kubernetes_texts({{"api.yaml", manifests(app)}}, options);
  const Scenario s = load_scenario_text(alone.scenario_yaml);
  ASSERT_EQ(s.spec.kubernetes->hpas.size(), 1u);
  const HpaConfig& h = s.spec.kubernetes->hpas[0];
  ASSERT_EQ(h.metrics.size(), 2u);
  EXPECT_EQ(h.metrics[0].type, "Resource");
  ASSERT_TRUE(h.metrics[0].resource);
  EXPECT_EQ(h.metrics[0].resource->target.average_utilization, 60);
  EXPECT_TRUE(noted(alone, "HorizontalPodAutoscaler api", "spec.metrics[0]", "read as a Resource metric"));

  const std::string sidecar = app + "        - name: envoy\n          resources: {requests: {cpu: 100m}}\n";
  const KubernetesImport with_sidecar = import_kubernetes_texts({{"api.yaml", manifests(sidecar)}}, options);
  const Scenario s2 = load_scenario_text(with_sidecar.scenario_yaml);  // kept: h2 refers into it
  const HpaConfig& h2 = s2.spec.kubernetes->hpas.at(0);
  ASSERT_EQ(h2.metrics.size(), 1u);  // the pod's CPU only
  EXPECT_EQ(h2.metrics[0].resource->target.average_utilization, 90);
  EXPECT_TRUE(noted(with_sidecar, "HorizontalPodAutoscaler api", "spec.metrics[0]",
                    "not modelled: the CPU of container \"app\" of a pod of 2 containers"));
}

TEST(KubernetesImport, ServicesNameThePodsTheySelect) {
  const Imported x = import_dir(kBasic);
  // frontend-external (LoadBalancer) selects frontend's pods too: one service, the ClusterIP one's name.
  EXPECT_EQ(x.scenario.spec.topology.config.services.size(), 3u);
  EXPECT_TRUE(noted(x.import, "Service frontend-external", "spec.selector", "modelled as service frontend"));
}

TEST(KubernetesImport, TheOutputSaysWhereEachValueCameFrom) {
  const Imported x = import_dir(kBasic);
  const std::string& y = x.import.scenario_yaml;
  EXPECT_NE(y.find("cpu: {request: 150m, limit: 300m}  # the containers' resources "
                   "(tests/data/manifests/basic/frontend.yaml:24)"),
            std::string::npos)
      << y;
  EXPECT_NE(y.find("# spec.replicas 4 (tests/data/manifests/basic/frontend.yaml:8)"), std::string::npos) << y;
  EXPECT_NE(y.find("serviceTime: {kind: exponential, mean: 10ms}  # not in the manifests"), std::string::npos) << y;
  EXPECT_EQ(x.import.objects, 14u);
  EXPECT_EQ(x.import.files, 4u);
}

TEST(KubernetesImport, GivenZonesAndANamespace) {
  KubernetesImportOptions options;
  options.zones = {"zone-a", "zone-b", "zone-c"};
  options.region = "eu-west-1";
  options.namespace_name = "shop";
  const Imported x = import_dir("tests/data/manifests/bad/two_namespaces.yaml", options);
  EXPECT_EQ(x.scenario.spec.topology.config.regions[0].name, "eu-west-1");
  EXPECT_EQ(x.scenario.spec.topology.config.services.size(), 1u);
  EXPECT_EQ(x.import.skipped, 1u);
}

TEST(KubernetesImport, ManifestsWithoutWorkloadsGiveAnEmptyScenarioThatLoads) {
  KubernetesImportOptions options;
  options.zones = {"a"};
  const KubernetesImport i = import_kubernetes_texts(
      {{"settings.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"}}, options);
  const Scenario s = load_scenario_text(i.scenario_yaml);
  EXPECT_TRUE(s.spec.topology.config.services.empty());
  ASSERT_EQ(i.notes.size(), 1u);
  EXPECT_EQ(i.notes[0].to_string(),
            "settings.yaml:1:1: ConfigMap settings: not modelled: drsim reads Deployments, StatefulSets, Services, "
            "HorizontalPodAutoscalers and Nodes");
}

TEST(KubernetesImport, TheImportedScenarioRuns) {
  const Imported x = import_dir(kBasic);
  const RunResult run = run_scenario(x.scenario, RunOptions{.until = 60s});
  EXPECT_TRUE(run.outcome.complete()) << run.outcome.message;
  // The control plane runs the imported deployments: every replica Ready, where the split put it.
  for (const auto& [name, zone, ready] : {std::tuple{"frontend", "zone-a", 2.0}, std::tuple{"frontend", "zone-c", 1.0},
                                          std::tuple{"redis", "zone-b", 1.0}, std::tuple{"redis", "zone-c", 0.0}}) {
    double last = -1;
    for (const Recorder::Series& series : run.recorder().series_list()) {
      if (series.metric != "deployment.zone_ready") continue;
      const Labels want{{"service", name}, {"zone", zone}};
      if (std::all_of(want.begin(), want.end(), [&](const auto& kv) {
            return std::find(series.labels.begin(), series.labels.end(), kv) != series.labels.end();
          })) {
        last = series.value.empty() ? -1 : series.value.back();
      }
    }
    EXPECT_EQ(last, ready) << name << " " << zone;
  }
}

struct BadManifest {
  const char* file;
  const char* expected;
};

const BadManifest kBadManifests[] = {
    {"affinity_unknown_zone.yaml",
     "tests/data/manifests/bad/affinity_unknown_zone.yaml:15:87: Deployment api: "
     "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
     "matchExpressions[0].values[1]: expected one of the cluster's zones (zone-a, zone-b, zone-c, from the zones "
     "given), got \"zone-x\""},
    {"bad_cpu.yaml",
     "tests/data/manifests/bad/bad_cpu.yaml:13:29: Deployment api: spec.template.spec.containers[0].resources."
     "requests.cpu: expected a number or a Kubernetes quantity such as \"500m\" or \"512Mi\", got \"lots\""},
    {"bad_json.json",
     "tests/data/manifests/bad/bad_json.json:1:146: Deployment api: spec.replicas: expected an integer, got "
     "\"three\""},
    {"hpa_unknown_target.yaml",
     "tests/data/manifests/bad/hpa_unknown_target.yaml:6:19: HorizontalPodAutoscaler api: spec.scaleTargetRef: "
     "expected a Deployment or StatefulSet of the manifests, got Deployment \"apii\""},
    {"missing_kind.yaml",
     "tests/data/manifests/bad/missing_kind.yaml:1:1: expected a Kubernetes object, got a mapping without kind"},
    {"negative_replicas.yaml",
     "tests/data/manifests/bad/negative_replicas.yaml:6:13: Deployment api: spec.replicas: expected an integer of at "
     "least 0, got -2"},
    {"no_containers.yaml",
     "tests/data/manifests/bad/no_containers.yaml:8:19: StatefulSet db: spec.template.spec.containers: expected at "
     "least one container, got none"},
    {"not_an_object.yaml",
     "tests/data/manifests/bad/not_an_object.yaml:1:1: expected a Kubernetes object (a mapping with apiVersion and "
     "kind), got a list"},
    {"syntax_error.yaml", "tests/data/manifests/bad/syntax_error.yaml:4:5: end of map flow not found"},
    {"two_namespaces.yaml",
     "tests/data/manifests/bad/two_namespaces.yaml:9:1: Deployment staging/api: expected one workload per service "
     "name, got a second one named \"api\" (the first: Deployment shop/api, "
     "tests/data/manifests/bad/two_namespaces.yaml:1); import one namespace at a time (--namespace)"},
};

TEST(KubernetesImportBadManifests, EachGivesItsMessage) {
  KubernetesImportOptions options;
  options.zones = {"zone-a", "zone-b", "zone-c"};
  for (const BadManifest& c : kBadManifests) {
    const std::string path = std::string("tests/data/manifests/bad/") + c.file;
    EXPECT_EQ(testing::error_of([&] { import_kubernetes({path}, options); }), c.expected) << c.file;
  }
}

TEST(KubernetesImportBadManifests, EveryFileOfTheCorpusHasACase) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/data/manifests/bad")) {
    ++files;
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(std::any_of(std::begin(kBadManifests), std::end(kBadManifests), [&](const BadManifest& c) {
      return name == c.file;
    })) << name;
  }
  EXPECT_EQ(files, std::size(kBadManifests));
}

TEST(KubernetesImportBadManifests, AFileThatCannotBeReadIsNamed) {
  EXPECT_EQ(testing::error_of([] { import_kubernetes({"no/such/manifest.yaml"}, {}); }),
            "no/such/manifest.yaml: cannot read the manifest: No such file or directory");
  // A directory of other files.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "drsim-no-manifests";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "README.txt") << "not a manifest\n";
  EXPECT_EQ(testing::error_of([&] { import_kubernetes({dir}, {}); }),
            dir.string() + ": expected .yaml, .yml or .json manifests in this directory, got none");
  std::filesystem::remove_all(dir);
}

TEST(KubernetesImportBadManifests, NoZonesAndNoNodesIsAnError) {
  EXPECT_EQ(testing::error_of([&] { import_kubernetes({"tests/data/manifests/bad/two_namespaces.yaml"}, {}); }),
            "expected the cluster's zones (--zones a,b,c), got none: the manifests hold no Node with a "
            "topology.kubernetes.io/zone label");
}

}  // namespace
}  // namespace drsim

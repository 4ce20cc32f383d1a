// The worked example's manifests (examples/online_boutique/kubernetes: an 11-service shop in the shape of a
// public demo, plus its load generator and nodes) imported, and every Deployment's replicas, CPU requests and
// limits, memory request and readiness probe compared with what the test reads from the manifests itself.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <string>

#include "io/kubernetes_import.h"
#include "io/scenario_loader.h"
#include "models/kube/kube_quantity.h"

namespace drsim {
namespace {

constexpr const char* kExample = "examples/online_boutique/kubernetes";

struct Expected {
  std::int64_t replicas = 1;
  std::int64_t cpu_request = 0, cpu_limit = 0, memory = 0;
  int probe_period = 10, probe_delay = 0;
};

std::int64_t milli(const YAML::Node& n) { return parse_kube_quantity(n.as<std::string>()).milli; }

// The Deployments of the example, read here with yaml-cpp and the quantity parser alone.
std::map<std::string, Expected> read_deployments() {
  std::map<std::string, Expected> out;
  for (const auto& entry : std::filesystem::directory_iterator(kExample)) {
    for (const YAML::Node& doc : YAML::LoadAllFromFile(entry.path().string())) {
      if (!doc["kind"] || doc["kind"].as<std::string>() != "Deployment") continue;
      Expected e;
      if (doc["spec"]["replicas"]) e.replicas = doc["spec"]["replicas"].as<std::int64_t>();
      bool probed = false;
      for (const YAML::Node& c : doc["spec"]["template"]["spec"]["containers"]) {
        const YAML::Node r = c["resources"];
        e.cpu_request += milli(r["requests"]["cpu"]);
        e.cpu_limit += milli(r["limits"]["cpu"]);
        e.memory += milli(r["requests"]["memory"]) / 1000;
        if (c["readinessProbe"] && !probed) {
          probed = true;
          if (c["readinessProbe"]["periodSeconds"]) e.probe_period = c["readinessProbe"]["periodSeconds"].as<int>();
          if (c["readinessProbe"]["initialDelaySeconds"]) {
            e.probe_delay = c["readinessProbe"]["initialDelaySeconds"].as<int>();
          }
        }
      }
      out[doc["metadata"]["name"].as<std::string>()] = e;
    }
  }
  return out;
}

TEST(KubernetesImportExample, EveryDeploymentIsItsManifest) {
  const KubernetesImport imported = import_kubernetes({kExample}, {});
  const Scenario s = load_scenario_text(imported.scenario_yaml, {}, "imported.yaml");
  const std::map<std::string, Expected> expected = read_deployments();
  ASSERT_EQ(expected.size(), 12u);  // 11 services and the load generator
  ASSERT_EQ(s.spec.topology.config.services.size(), expected.size());
  for (const ServiceConfig& sv : s.spec.topology.config.services) {
    const auto it = expected.find(sv.name);
    ASSERT_NE(it, expected.end()) << sv.name;
    const Expected& e = it->second;
    std::int64_t replicas = 0;
    for (const ReplicasConfig& r : sv.replicas) replicas += r.replicas;
    EXPECT_EQ(replicas, e.replicas) << sv.name;
    ASSERT_TRUE(sv.cpu.request && sv.cpu.limit) << sv.name;
    EXPECT_EQ(sv.cpu.request->millicores, e.cpu_request) << sv.name;
    EXPECT_EQ(sv.cpu.limit->millicores, e.cpu_limit) << sv.name;
  }
  for (const KubeDeploymentConfig& d : s.spec.kubernetes->deployments) {
    const Expected& e = expected.at(d.service);
    EXPECT_EQ(d.memory.bytes, e.memory) << d.service;
    EXPECT_EQ(d.readiness_probe.period_seconds, e.probe_period) << d.service;
    EXPECT_EQ(d.readiness_probe.initial_delay_seconds, e.probe_delay) << d.service;
  }
  // Zones from the nodes: three, two nodes each.
  ASSERT_EQ(s.spec.kubernetes->node_pools.size(), 3u);
  for (const NodePoolConfig& p : s.spec.kubernetes->node_pools) EXPECT_EQ(p.nodes, 2u) << p.name;
  ASSERT_EQ(s.spec.kubernetes->hpas.size(), 1u);
  EXPECT_EQ(s.spec.kubernetes->hpas[0].max_replicas, 9);
}

}  // namespace
}  // namespace drsim

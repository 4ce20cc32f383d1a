#pragma once
// `drsim import kubernetes`: a scenario from the manifests a cluster already has, as `kubectl get -o yaml` or
// `helm template` writes them (multi-document YAML, `kind: List` included; docs/import.md).
//
// What is read:
//   Deployment, StatefulSet  a service (named by the Service that selects its pods, else its own name) and a
//                            deployment: spec.replicas split over the zones, the containers' CPU requests and
//                            limits (summed over the containers), memory requests, the readiness probe's
//                            timing, a topology spread constraint on the zone key, node affinity or a node
//                            selector on the zone key, the unreachable toleration, the rolling update.
//   HorizontalPodAutoscaler  autoscaling/v2 (and v2beta2, v1): min/max replicas, the metrics drsim's metrics
//                            adapter serves (cpu Resource metrics; Pods and Object metrics by name, or renamed
//                            through metric_names), behavior.
//   Service                  which pods a service name stands for; topology-aware routing (trafficDistribution
//                            PreferClose, the topology-mode annotation) as zoneAffinity.
//   Node                     node pools: nodes per zone and instance type with their allocatable CPU, memory
//                            and pods.
// Everything else, objects and fields, is listed in the notes with its file, line and column: never dropped
// silently. What the manifests do not say (how a pod serves requests, how long a request takes, the load) is
// written as drsim's defaults, with a comment saying so. The output loads as a scenario; the importer loads it
// before returning it.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace drsim {

struct KubernetesImportOptions {
  // The cluster's zones, in order. Empty: the zones of the Node objects read.
  std::vector<std::string> zones;
  std::string region = "region-1";
  std::string scenario_name = "imported";
  // Only the objects of this namespace (an object without one is in "default"). Empty: every namespace.
  std::string namespace_name;
  // Pods and Object metric names of the manifests' HPAs -> the metrics adapter's (requests_per_second, ...).
  std::map<std::string, std::string> metric_names;
};

// A field or object the import did not model, or a value it had to convert or assume.
struct ImportNote {
  std::string file;
  int line = 0;        // 1-based; 0 when unknown
  int column = 0;      // 1-based
  std::string object;  // "Deployment frontend"
  std::string path;    // "spec.template.spec.containers[0].livenessProbe"; empty: the object
  std::string message;

  // "file:line:col: Deployment frontend: path: message"
  std::string to_string() const;
};

struct KubernetesImport {
  std::string scenario_yaml;  // a scenario file, commented with where each value came from
  std::vector<ImportNote> notes;
  std::size_t objects = 0;  // objects read
  std::size_t files = 0;
  std::size_t skipped = 0;  // objects of other namespaces than KubernetesImportOptions::namespace_name
};

// Reads every .yaml, .yml and .json file of the inputs (directories recursively, in name order). Throws
// ScenarioError (file, line, column, what was expected) on what is not a Kubernetes object, a malformed value,
// or a reference that cannot be resolved.
KubernetesImport import_kubernetes(const std::vector<std::filesystem::path>& inputs,
                                   const KubernetesImportOptions& options);

// The same from manifest text already read: (display name, text) pairs.
KubernetesImport import_kubernetes_texts(const std::vector<std::pair<std::string, std::string>>& files,
                                         const KubernetesImportOptions& options);

}  // namespace drsim

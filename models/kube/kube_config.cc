#include "models/kube/kube_config.h"

#include <set>

namespace drsim {

namespace {

std::string indexed(std::string_view list, std::size_t i) { return std::string(list) + "[" + std::to_string(i) + "]"; }

// Appends a nested config's problems under its key path.
void nest(std::vector<ConfigProblem>& out, const std::string& prefix, std::vector<ConfigProblem> problems) {
  for (ConfigProblem& p : problems) {
    p.field = p.field.empty() ? prefix : prefix + "." + p.field;
    out.push_back(std::move(p));
  }
}

void check_unique(std::vector<ConfigProblem>& out, std::set<std::string>& seen, const std::string& field,
                  const std::string& value, std::string_view what) {
  if (!seen.insert(value).second) out.push_back({field, std::string(what) + " \"" + value + "\" is listed twice"});
}

std::vector<ConfigProblem> validate_metric(const HpaMetricConfig& m) {
  std::vector<ConfigProblem> out;
  if (m.type != "Resource") {
    out.push_back({"type", "expected Resource (the metric type drsim measures), got \"" + m.type + "\""});
  }
  if (m.resource.name != "cpu") {
    out.push_back({"resource.name", "expected cpu (the resource drsim measures), got \"" + m.resource.name + "\""});
  }
  const HpaMetricTargetConfig& t = m.resource.target;
  if (t.type == "Utilization") {
    if (!t.average_utilization) out.push_back({"resource.target.averageUtilization", "type Utilization needs it"});
    if (t.average_value) out.push_back({"resource.target.averageValue", "only for type AverageValue"});
  } else if (t.type == "AverageValue") {
    if (!t.average_value) out.push_back({"resource.target.averageValue", "type AverageValue needs it"});
    if (t.average_utilization) out.push_back({"resource.target.averageUtilization", "only for type Utilization"});
  } else {
    out.push_back({"resource.target.type", "expected Utilization or AverageValue, got \"" + t.type + "\""});
  }
  return out;
}

}  // namespace

std::vector<ConfigProblem> KubernetesConfig::validate() const {
  std::vector<ConfigProblem> out;
  std::set<std::string> pools, services, hpa_names, hpa_targets;
  for (std::size_t i = 0; i < node_pools.size(); ++i) {
    const NodePoolConfig& p = node_pools[i];
    check_unique(out, pools, indexed("nodePools", i) + ".name", p.name, "node pool");
    if (p.max_nodes && *p.max_nodes < p.nodes) {
      out.push_back({indexed("nodePools", i) + ".maxNodes", "is below nodes (" + std::to_string(p.nodes) + ")"});
    }
  }
  for (std::size_t i = 0; i < deployments.size(); ++i) {
    const KubeDeploymentConfig& d = deployments[i];
    const std::string at = indexed("deployments", i);
    check_unique(out, services, at + ".service", d.service, "service");
    if (d.kind != "Deployment" && d.kind != "StatefulSet") {
      out.push_back({at + ".kind", "expected Deployment or StatefulSet, got \"" + d.kind + "\""});
    }
    nest(out, at + ".policy", d.policy.validate());
    if (d.startup) nest(out, at + ".startup", d.startup->validate());
    if (d.rolling_update.max_surge.value == 0 && d.rolling_update.max_unavailable.value == 0) {
      out.push_back({at + ".rollingUpdate",
                     "maxSurge and maxUnavailable cannot both be 0: a rollout could not "
                     "move a single pod"});
    }
  }
  for (std::size_t i = 0; i < hpas.size(); ++i) {
    const HpaConfig& h = hpas[i];
    const std::string at = indexed("hpas", i);
    check_unique(out, hpa_names, at + ".name", h.name, "HPA");
    check_unique(out, hpa_targets, at + ".target", h.target, "HPA target");
    if (!services.contains(h.target)) {
      out.push_back({at + ".target", "\"" + h.target +
                                         "\" is not a deployment's service: an HPA scales a "
                                         "deployment of spec.kubernetes.deployments"});
    }
    if (h.min_replicas > h.max_replicas) {
      out.push_back({at + ".minReplicas", "is above maxReplicas (" + std::to_string(h.max_replicas) + ")"});
    }
    if (h.metrics.empty()) out.push_back({at + ".metrics", "needs at least one metric"});
    for (std::size_t m = 0; m < h.metrics.size(); ++m)
      nest(out, at + "." + indexed("metrics", m), validate_metric(h.metrics[m]));
    if (h.behavior) nest(out, at + ".behavior", h.behavior->validate());
  }
  if (cluster_autoscaler.provisioning) {
    nest(out, "clusterAutoscaler.provisioning", cluster_autoscaler.provisioning->validate());
  }
  return out;
}

ServiceTimeConfig KubeDeploymentConfig::startup_or_default() const {
  if (startup) return *startup;
  ServiceTimeConfig c;
  c.kind = "constant";
  c.value = std::chrono::seconds(20);
  return c;
}

ServiceTimeConfig ClusterAutoscalerConfig::provisioning_or_default() const {
  if (provisioning) return *provisioning;
  ServiceTimeConfig c;
  c.kind = "lognormal";
  c.p50 = std::chrono::seconds(60);
  c.p99 = std::chrono::minutes(4);
  return c;
}

}  // namespace drsim

#include "models/kube/kube_config.h"

#include <algorithm>
#include <initializer_list>
#include <set>
#include <stdexcept>

#include "models/kube/kube_quantity.h"

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

std::vector<ConfigProblem> validate_resource(const HpaResourceMetricConfig& r) {
  std::vector<ConfigProblem> out;
  if (r.name != "cpu") {
    out.push_back({"resource.name", "expected cpu (the resource drsim measures), got \"" + r.name + "\""});
  }
  const HpaMetricTargetConfig& t = r.target;
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

std::vector<ConfigProblem> validate_metric(const HpaMetricConfig& m) {
  std::vector<ConfigProblem> out;
  // The block each type reads; the others must be absent, so that a manifest
  // that sets one type and fills another block is not silently half read.
  const std::pair<const char*, bool> blocks[] = {{"Resource", m.resource.has_value()},
                                                 {"Pods", m.pods.has_value()},
                                                 {"Object", m.object.has_value()},
                                                 {"External", m.external.has_value()}};
  bool known = false;
  for (const auto& [type, present] : blocks) {
    std::string key = type;
    key[0] = static_cast<char>(key[0] - 'A' + 'a');
    if (m.type == type) {
      known = true;
      if (!present) out.push_back({key, "type " + m.type + " needs it"});
    } else if (present) {
      out.push_back({key, "only for type " + std::string(type) + " (this metric is of type " + m.type + ")"});
    }
  }
  if (!known) {
    out.push_back({"type", "expected Resource, Pods, Object or External, got \"" + m.type + "\""});
  }
  if (m.type == "Resource" && m.resource) {
    std::vector<ConfigProblem> r = validate_resource(*m.resource);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

}  // namespace

// ---- custom and external metrics -----------------------------------------------

std::int64_t HpaQuantityTargetConfig::milli() const {
  const std::optional<std::string>& text = average() ? average_value : value;
  return text ? parse_kube_quantity(*text).milli : 0;
}

std::vector<ConfigProblem> HpaQuantityTargetConfig::check(bool average_only) const {
  std::vector<ConfigProblem> out;
  if (type != "AverageValue" && (average_only || type != "Value")) {
    out.push_back({"type", average_only ? "expected AverageValue (a Pods metric's target is per pod), got \"" + type +
                                              "\""
                                        : "expected Value or AverageValue, got \"" + type + "\""});
    return out;
  }
  const char* needed = average() ? "averageValue" : "value";
  const char* other = average() ? "value" : "averageValue";
  const std::optional<std::string>& text = average() ? average_value : value;
  if (!text) out.push_back({needed, "type " + type + " needs it"});
  if ((average() ? value : average_value).has_value()) {
    out.push_back({other, std::string("only for type ") + (average() ? "Value" : "AverageValue")});
  }
  if (text) {
    try {
      if (parse_kube_quantity(*text).milli <= 0) out.push_back({needed, "expected a quantity above 0, got " + *text});
    } catch (const std::invalid_argument& e) {
      out.push_back({needed, e.what()});
    }
  }
  return out;
}

namespace {

bool one_of(const std::string& name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The per-pod and per-service series the metrics adapter serves.
constexpr std::string_view kPodMetricNames = "requests_per_second, queue_length, in_flight or latency";
bool pod_metric_name(const std::string& name) {
  return one_of(name, {"requests_per_second", "queue_length", "in_flight", "latency"});
}

void nest_target(std::vector<ConfigProblem>& out, std::vector<ConfigProblem> problems) {
  for (ConfigProblem& p : problems) out.push_back({"target." + p.field, std::move(p.message)});
}

}  // namespace

std::vector<ConfigProblem> HpaPodsMetricConfig::validate() const {
  std::vector<ConfigProblem> out;
  if (!pod_metric_name(metric.name)) {
    out.push_back({"metric.name", "expected " + std::string(kPodMetricNames) + ", got \"" + metric.name + "\""});
  }
  if (metric.selector) out.push_back({"metric.selector", "a Pods metric is per pod of the target: no selector"});
  nest_target(out, target.check(true));
  return out;
}

std::vector<ConfigProblem> HpaObjectMetricConfig::validate() const {
  std::vector<ConfigProblem> out;
  if (described_object.kind != "Service") {
    out.push_back({"describedObject.kind",
                   "expected Service (the kind drsim's adapter describes), got \"" + described_object.kind + "\""});
  }
  if (described_object.api_version != "v1") {
    out.push_back({"describedObject.apiVersion", "expected v1 (a Service's), got \"" + described_object.api_version +
                                                     "\""});
  }
  if (!pod_metric_name(metric.name)) {
    out.push_back({"metric.name", "expected " + std::string(kPodMetricNames) + ", got \"" + metric.name + "\""});
  }
  if (metric.selector) out.push_back({"metric.selector", "a service's metric has one series: no selector"});
  nest_target(out, target.check(false));
  return out;
}

std::vector<ConfigProblem> HpaExternalMetricConfig::validate() const {
  std::vector<ConfigProblem> out;
  const HpaMatchLabelsConfig labels = metric.selector ? metric.selector->match_labels : HpaMatchLabelsConfig{};
  if (metric.name == "kafka_consumer_lag") {
    if (!labels.topic || !labels.group) {
      out.push_back({"metric.selector.matchLabels", "kafka_consumer_lag needs topic and group"});
    }
    if (labels.population) out.push_back({"metric.selector.matchLabels.population", "not a label of kafka_consumer_lag"});
  } else if (metric.name == "population_offered_rate") {
    if (!labels.population) out.push_back({"metric.selector.matchLabels", "population_offered_rate needs population"});
    if (labels.topic || labels.group) {
      out.push_back({"metric.selector.matchLabels", "topic and group are not labels of population_offered_rate"});
    }
  } else {
    out.push_back({"metric.name",
                   "expected kafka_consumer_lag or population_offered_rate, got \"" + metric.name + "\""});
  }
  nest_target(out, target.check(false));
  return out;
}

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

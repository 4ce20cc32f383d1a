#include "io/kubernetes_import.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "io/config_encode.h"
#include "io/manifest_field.h"
#include "io/scenario_loader.h"
#include "io/yaml_decode.h"
#include "io/yaml_document.h"
#include "models/kube/kube_config.h"
#include "models/kube/kube_quantity.h"
#include "models/kube/metrics_adapter.h"
#include "sim/quote.h"
#include "sim/units.h"

namespace drsim {

std::string ImportNote::to_string() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  out += ": " + object;
  if (!path.empty()) out += ": " + path;
  return out + ": " + message;
}

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool is_zone_key(std::string_view key) {
  return key == "topology.kubernetes.io/zone" || key == "failure-domain.beta.kubernetes.io/zone";
}

// What the API server writes into an object it returns (kubectl get -o yaml): bookkeeping, not intent.
const std::vector<std::string> kServerWritten = {
    "status",
    "metadata.uid",
    "metadata.resourceVersion",
    "metadata.generation",
    "metadata.creationTimestamp",
    "metadata.managedFields",
    "metadata.selfLink",
    "metadata.ownerReferences",
    "metadata.annotations",
};

// One object of the manifests, with what the importer read of it.
struct ManifestObject {
  std::string file;
  YAML::Node root;
  std::string api_version, kind, name, ns;
  std::shared_ptr<FieldLedger> ledger = std::make_shared<FieldLedger>();

  ManifestField field() const { return ManifestField(root, "", file, name.empty() ? "" : label(), ledger); }
  std::string label() const { return kind + " " + (ns == "default" ? name : ns + "/" + name); }
};

// "file:line" of a field, for the output's comments.
std::string where(const ManifestField& f) {
  if (!f.present() || f.mark().is_null()) return f.file();
  return f.file() + ":" + std::to_string(f.mark().line + 1);
}

// A comment on one line: no line breaks from a file name.
std::string comment(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

// Kubernetes' resource quantities: CPU in millicores, memory in bytes (Quantity.Value(), rounded up).
CpuQuantity cpu_of(const ManifestField& f) {
  try {
    return CpuQuantity{parse_kube_quantity(f.text()).milli};
  } catch (const std::invalid_argument& e) {
    f.fail(e.what());
  }
}

ByteSize bytes_of(const ManifestField& f) {
  try {
    const std::int64_t milli = parse_kube_quantity(f.text()).milli;
    return ByteSize{milli / 1000 + (milli % 1000 != 0 ? 1 : 0)};
  } catch (const std::invalid_argument& e) {
    f.fail(e.what());
  }
}

std::int32_t int32_of(const ManifestField& f, std::int64_t low) {
  const std::int64_t v = f.integer();
  if (v < low || v > std::numeric_limits<std::int32_t>::max()) {
    f.fail("expected an integer of at least " + std::to_string(low) + ", got " + std::to_string(v));
  }
  return static_cast<std::int32_t>(v);
}

// An IntOrString of a rolling update: "25%" or a pod count.
struct PodsOrPercent {
  bool percent = false;
  double value = 0;  // a fraction when percent, else pods
};

PodsOrPercent pods_or_percent(const ManifestField& f) {
  const std::string s = f.text();
  if (!s.empty() && s.back() == '%') {
    try {
      return {true, parse_ratio(s).value};
    } catch (const UnitError& e) {
      f.fail(e.what());
    }
  }
  const std::int64_t n = f.integer();
  if (n < 0) f.fail("expected a pod count of at least 0 or a percentage, got " + s);
  return {false, static_cast<double>(n)};
}

// drsim's rolling update is a fraction of the desired count (rounded up for the surge, down for the
// unavailable pods, as Kubernetes rounds percentages). A pod count n of `replicas` becomes the fraction in the
// middle of the interval that rounds to n at that count, so the rollout moves the same pods at the manifest's
// count.
Ratio rolling_fraction(const PodsOrPercent& v, std::int64_t replicas, bool round_up) {
  if (v.percent) return Ratio{v.value};
  if (v.value == 0 || replicas <= 0) return Ratio{0};
  const double mid = round_up ? v.value - 0.5 : v.value + 0.5;
  return Ratio{std::min(1.0, mid / static_cast<double>(replicas))};
}

struct Workload {
  const ManifestObject* object = nullptr;
  std::string service;  // the drsim service
  std::string service_from;
  std::map<std::string, std::string> pod_labels;
  std::int64_t replicas = 1;
  std::string replicas_from;
  std::optional<CpuQuantity> cpu_request, cpu_limit;
  std::string cpu_from;
  std::optional<ByteSize> memory;
  std::string memory_from;
  std::optional<ReadinessProbeConfig> probe;
  std::string probe_from;
  DeploymentPolicyConfig policy;
  std::string policy_from;
  std::optional<Duration> toleration;
  std::string toleration_from;
  std::optional<RollingUpdateConfig> rolling;
  std::string rolling_from;
  bool zone_affinity = false;
  std::string zone_affinity_from;
  std::vector<std::string> containers;  // the pod's containers' names, in order
};

struct NodePool {
  NodePoolConfig config;
  std::string from;
};

class Importer {
 public:
  explicit Importer(const KubernetesImportOptions& options) : options_(options) {}

  void read(const std::string& file, const std::string& text) {
    ++files_;
    for (const YAML::Node& doc : parse_documents(text, file)) add(file, doc, "");
  }

  KubernetesImport finish() {
    for (ManifestObject& o : objects_) {
      if (o.kind == "Node") node(o);
    }
    resolve_zones();
    for (ManifestObject& o : objects_) {
      if (o.kind == "Deployment" || o.kind == "StatefulSet") workload(o);
    }
    for (ManifestObject& o : objects_) {
      if (o.kind == "Service") service(o);
    }
    name_services();
    for (ManifestObject& o : objects_) {
      if (o.kind == "HorizontalPodAutoscaler") hpa(o);
    }
    for (ManifestObject& o : objects_) {
      if (o.kind == "PodDisruptionBudget") {
        note(o, o.field(),
             "not modelled: drsim has no voluntary disruptions (node drains, scale-downs) that a "
             "budget would limit");
        o.field().take();
      } else if (!handled(o.kind)) {
        note(o, o.field(),
             "not modelled: drsim reads Deployments, StatefulSets, Services, "
             "HorizontalPodAutoscalers and Nodes");
        o.field().take();
      }
    }
    for (const ManifestObject& o : objects_) {
      std::vector<std::string> ignored = kServerWritten;
      if (o.kind == "Node") std::erase(ignored, std::string("status"));
      for (const UnreadField& u : unread_fields(o.root, o.file, *o.ledger, ignored, walk_budget_)) {
        notes_.push_back(ImportNote{o.file, u.mark.is_null() ? 0 : u.mark.line + 1,
                                    u.mark.is_null() ? 0 : u.mark.column + 1, o.label(), u.path,
                                    "not modelled (" + u.what + ")"});
      }
    }
    // In file order, as a reader walks the manifests.
    std::stable_sort(notes_.begin(), notes_.end(), [](const ImportNote& a, const ImportNote& b) {
      return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column);
    });
    KubernetesImport out;
    out.scenario_yaml = write();
    out.notes = std::move(notes_);
    out.objects = objects_.size();
    out.files = files_;
    out.skipped = skipped_;
    // The output must load; a failure here is the importer's bug, not the user's input.
    load_scenario_text(out.scenario_yaml, {}, "the imported scenario");
    return out;
  }

 private:
  static bool handled(const std::string& kind) {
    return kind == "Deployment" || kind == "StatefulSet" || kind == "Service" || kind == "HorizontalPodAutoscaler" ||
           kind == "Node";
  }

  void add(const std::string& file, const YAML::Node& doc, const std::string& list_path) {
    if (!doc.IsMap()) {
      throw ScenarioError(diagnostic_at(
          file, doc.Mark(), list_path,
          "expected a Kubernetes object (a mapping with apiVersion and kind), got " + describe_node(doc)));
    }
    ManifestObject o{file, doc};
    const ManifestField root = o.field();
    for (const char* key : {"apiVersion", "kind"}) {
      if (!root[key].present()) {
        throw ScenarioError(diagnostic_at(file, doc.Mark(), list_path,
                                          std::string("expected a Kubernetes object, got a mapping without ") + key));
      }
    }
    o.api_version = root["apiVersion"].text();
    o.kind = root["kind"].text();
    // kubectl get -o yaml of several objects: a List of them.
    if (o.kind == "List" || (o.kind.size() > 4 && o.kind.ends_with("List") && root["items"].is_list())) {
      if (!root["items"].is_list()) {
        throw ScenarioError(diagnostic_at(file, doc.Mark(), list_path,
                                          "expected items, the list of the " + o.kind + "'s objects, got " +
                                              (root["items"].present() ? std::string("something else") : "none")));
      }
      const YAML::Node items = doc["items"];
      for (std::size_t i = 0; i < items.size(); ++i) {
        add(file, items[i], (list_path.empty() ? "" : list_path + ".") + "items[" + std::to_string(i) + "]");
      }
      return;
    }
    const ManifestField metadata = root["metadata"];
    if (!metadata["name"].present()) {
      throw ScenarioError(diagnostic_at(file, doc.Mark(), list_path, "expected metadata.name in this " + o.kind));
    }
    o.name = metadata["name"].text();
    o.ns = metadata["namespace"].optional_text().value_or("default");  // where kubectl apply puts it
    if (!options_.namespace_name.empty() && o.ns != options_.namespace_name) {
      ++skipped_;
      return;
    }
    metadata["labels"].take();
    objects_.push_back(std::move(o));
  }

  void note(const ManifestObject& o, const ManifestField& f, std::string message) {
    const bool known = f.present() && !f.mark().is_null();
    notes_.push_back(ImportNote{o.file, known ? f.mark().line + 1 : 0, known ? f.mark().column + 1 : 0, o.label(),
                                f.path(), std::move(message)});
  }

  void node(const ManifestObject& o) {
    const ManifestField root = o.field();
    std::string zone, type = "nodes";
    for (const auto& [key, value] : root["metadata"]["labels"].entries()) {
      if (is_zone_key(key)) zone = value.text();
      if (key == "node.kubernetes.io/instance-type" || key == "beta.kubernetes.io/instance-type") type = value.text();
    }
    if (zone.empty()) {
      note(o, root, "not modelled: the node has no topology.kubernetes.io/zone label");
      return;
    }
    const ManifestField allocatable = root["status"]["allocatable"];
    // Of a Node's status only what it can hold counts; the rest (conditions, images, addresses) is its state.
    for (const auto& [key, value] : root["status"].entries()) {
      if (key != "allocatable") value.take();
    }
    const std::string pool_name = zone + "-" + type;
    auto it = std::find_if(pools_.begin(), pools_.end(), [&](const NodePool& p) { return p.config.name == pool_name; });
    if (it == pools_.end()) {
      NodePool p;
      p.config.name = pool_name;
      p.config.zone = zone;
      if (allocatable["cpu"].present()) p.config.cpu = cpu_of(allocatable["cpu"]);
      if (allocatable["memory"].present()) p.config.memory = bytes_of(allocatable["memory"]);
      if (allocatable["pods"].present())
        p.config.max_pods = static_cast<std::uint32_t>(int32_of(allocatable["pods"], 1));
      p.from = "Node " + o.name + " (" + where(allocatable) + ")";
      pools_.push_back(std::move(p));
      it = std::prev(pools_.end());
    } else {
      // One pool per zone and instance type: its nodes' allocatable is the first node's.
      for (const char* key : {"cpu", "memory", "pods"}) allocatable[key].take();
    }
    ++it->config.nodes;
  }

  void resolve_zones() {
    zones_ = options_.zones;
    if (zones_.empty()) {
      for (const NodePool& p : pools_) {
        if (std::find(zones_.begin(), zones_.end(), p.config.zone) == zones_.end()) zones_.push_back(p.config.zone);
      }
      zones_from_ = "the Nodes' topology.kubernetes.io/zone labels";
    } else {
      zones_from_ = "the zones given";
    }
    if (zones_.empty()) {
      throw ScenarioError(Diagnostic{.message = "expected the cluster's zones (--zones a,b,c), got none: the "
                                                "manifests hold no Node with a topology.kubernetes.io/zone label"});
    }
    for (const NodePool& p : pools_) {
      if (std::find(zones_.begin(), zones_.end(), p.config.zone) == zones_.end()) {
        throw ScenarioError(Diagnostic{
            .file = p.from, .message = "its zone " + quote(p.config.zone) + " is not one of the zones given"});
      }
    }
  }

  // The zones a pod's node affinity or nodeSelector allows, from terms on the zone key.
  std::vector<std::string> allowed_zones(const ManifestObject& o, const ManifestField& pod) {
    std::vector<std::string> zones;
    auto zone_of = [&](const ManifestField& value) {
      const std::string z = value.text();
      if (std::find(zones_.begin(), zones_.end(), z) == zones_.end()) {
        value.fail("expected one of the cluster's zones (" + join(zones_) + ", from " + zones_from_ + "), got " +
                   quote(z));
      }
      return z;
    };
    for (const auto& [key, value] : pod["nodeSelector"].entries()) {
      if (is_zone_key(key)) zones = {zone_of(value)};
    }
    const ManifestField required = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
    const std::vector<ManifestField> terms = required["nodeSelectorTerms"].items();
    // Terms are ORed, expressions in a term ANDed: one term of zone expressions is what drsim's policy holds.
    if (terms.size() > 1) {
      note(o, required, "not modelled: " + std::to_string(terms.size()) + " node selector terms (drsim reads one)");
      required.take();
    }
    if (terms.size() == 1) {
      for (const ManifestField& e : terms[0]["matchExpressions"].items()) {
        if (!is_zone_key(e["key"].text())) continue;
        const std::string op = e["operator"].text();
        if (op != "In") {
          note(o, e, "not modelled: a zone expression with operator " + op + " (drsim reads In)");
          e.take();
          continue;
        }
        std::vector<std::string> values;
        for (const ManifestField& v : e["values"].items()) values.push_back(zone_of(v));
        zones = values;
      }
    }
    return zones;
  }

  void workload(const ManifestObject& o) {
    Workload w;
    w.object = &o;
    const ManifestField root = o.field();
    const ManifestField spec = root["spec"];
    if (spec["replicas"].present()) {
      w.replicas = int32_of(spec["replicas"], 0);
      w.replicas_from = "spec.replicas " + std::to_string(w.replicas) + " (" + where(spec["replicas"]) + ")";
    } else {
      w.replicas_from = "spec.replicas absent: 1, the API's default (" + where(spec) + ")";
    }
    spec["selector"].take();  // the pods it selects are its template's
    const ManifestField tmpl = spec["template"];
    for (const auto& [k, v] : tmpl["metadata"]["labels"].entries()) w.pod_labels[k] = v.text();
    tmpl["metadata"]["annotations"].take();
    const ManifestField pod = tmpl["spec"];

    // Resources: the pod's are its containers' summed (init containers run before and are not counted).
    std::int64_t request = 0, limit = 0, memory = 0;
    bool all_limited = true, any_request = false, any_memory = false;
    const std::vector<ManifestField> containers = pod["containers"].items();
    if (containers.empty()) {
      (pod["containers"].present() ? pod["containers"] : pod).fail("expected at least one container, got none");
    }
    for (const ManifestField& c : containers) {
      w.containers.push_back(c["name"].optional_text().value_or(""));
      const ManifestField res = c["resources"];
      if (res["requests"]["cpu"].present()) {
        request += cpu_of(res["requests"]["cpu"]).millicores;
        any_request = true;
      } else if (res["limits"]["cpu"].present()) {
        request += cpu_of(res["limits"]["cpu"]).millicores;  // the API defaults a missing request to the limit
        any_request = true;
      }
      if (res["limits"]["cpu"].present()) {
        limit += cpu_of(res["limits"]["cpu"]).millicores;
      } else {
        all_limited = false;
      }
      if (res["requests"]["memory"].present()) {
        memory += bytes_of(res["requests"]["memory"]).bytes;
        any_memory = true;
      } else if (res["limits"]["memory"].present()) {
        // The API defaults a missing request to the limit; the limit itself (the OOM kill) is not modelled.
        memory += bytes_of(res["limits"]["memory"]).bytes;
        any_memory = true;
      }
    }
    w.cpu_from = "the containers' resources (" + where(containers[0]["resources"]) + ")";
    if (any_request) w.cpu_request = CpuQuantity{request};
    if (all_limited) w.cpu_limit = CpuQuantity{limit};
    if (!all_limited && limit > 0) {
      note(o, pod["containers"],
           "a container without limits.cpu: the pod has no CFS quota (the others' limits "
           "are not modelled)");
    }
    if (any_memory) {
      w.memory = ByteSize{memory};
      w.memory_from = "the containers' requests.memory (" + where(containers[0]["resources"]) + ")";
    }

    // Readiness: the first container with a probe (the pod is Ready when all of its containers are).
    for (const ManifestField& c : containers) {
      const ManifestField p = c["readinessProbe"];
      if (!p.present()) continue;
      if (w.probe) {
        note(o, p, "not modelled: a second container's readiness probe (drsim probes a pod once)");
        continue;
      }
      ReadinessProbeConfig probe;
      if (p["initialDelaySeconds"].present()) probe.initial_delay_seconds = int32_of(p["initialDelaySeconds"], 0);
      if (p["periodSeconds"].present()) probe.period_seconds = int32_of(p["periodSeconds"], 1);
      if (p["successThreshold"].present()) probe.success_threshold = int32_of(p["successThreshold"], 1);
      if (p["failureThreshold"].present()) probe.failure_threshold = int32_of(p["failureThreshold"], 1);
      // The handler passes once the app answers: what drsim's probe asks of a started pod.
      for (const char* handler : {"httpGet", "tcpSocket", "grpc", "exec"}) p[handler].take();
      w.probe = probe;
      w.probe_from = c["name"].optional_text().value_or("a container") + "'s readinessProbe (" + where(p) + ")";
    }

    // Placement.
    const std::vector<std::string> allowed = allowed_zones(o, pod);
    bool spread = false;
    for (const ManifestField& c : pod["topologySpreadConstraints"].items()) {
      if (!is_zone_key(c["topologyKey"].text())) {
        note(o, c,
             "not modelled: a spread constraint on " + c["topologyKey"].text() +
                 " (drsim places pods per zone; within a zone, on the node pool with room)");
        c.take();
        continue;
      }
      if (spread) {
        note(o, c, "not modelled: a second constraint on the zone key");
        continue;
      }
      spread = true;
      w.policy.kind = "topologySpread";
      w.policy.max_skew = static_cast<std::uint32_t>(int32_of(c["maxSkew"], 1));
      if (c["whenUnsatisfiable"].present()) w.policy.when_unsatisfiable = c["whenUnsatisfiable"].text();
      if (c["minDomains"].present()) w.policy.min_domains = static_cast<std::uint32_t>(int32_of(c["minDomains"], 1));
      // The constraint counts the pods its selector matches: this workload's own, the case drsim models.
      bool own = true;
      for (const auto& [k, v] : c["labelSelector"]["matchLabels"].entries()) {
        const auto it = w.pod_labels.find(k);
        own = own && it != w.pod_labels.end() && it->second == v.text();
      }
      if (own && !c["labelSelector"]["matchExpressions"].present()) {
        c["labelSelector"].take();
      } else {
        note(o, c["labelSelector"],
             "not modelled: a selector other than the pods' own labels (drsim counts "
             "this workload's pods)");
      }
      w.policy_from = "topologySpreadConstraints (" + where(c) + ")";
    }
    w.policy.zones = allowed;
    if (!spread) {
      // No constraint of its own: the default scheduler's system constraint on the zone key (maxSkew 5,
      // ScheduleAnyway) spreads the pods.
      w.policy.kind = "topologySpread";
      w.policy.max_skew = 5;
      w.policy.when_unsatisfiable = "ScheduleAnyway";
      w.policy_from = "no zone constraint: the scheduler's default one (maxSkew 5, ScheduleAnyway)";
    }
    if (!allowed.empty()) w.policy_from += "; zones from the node affinity (" + where(pod["affinity"]) + ")";

    for (const ManifestField& t : pod["tolerations"].items()) {
      if (t["key"].optional_text() != "node.kubernetes.io/unreachable") continue;
      if (t["effect"].optional_text().value_or("NoExecute") != "NoExecute" || !t["tolerationSeconds"].present()) {
        continue;
      }
      t["operator"].take();
      t["effect"].take();
      w.toleration = std::chrono::seconds(int32_of(t["tolerationSeconds"], 0));
      w.toleration_from = "tolerations (" + where(t) + ")";
    }

    // Rollouts.
    const bool stateful = o.kind == "StatefulSet";
    const ManifestField strategy = stateful ? spec["updateStrategy"] : spec["strategy"];
    const std::string type = strategy["type"].optional_text().value_or("RollingUpdate");
    if (type == "RollingUpdate") {
      // Each read once, with the API's defaults: a Deployment surges and drops 25%; a StatefulSet never surges
      // and takes one pod down at a time.
      const ManifestField ru = strategy["rollingUpdate"];
      const PodsOrPercent surge = stateful                   ? PodsOrPercent{true, 0}
                                  : ru["maxSurge"].present() ? pods_or_percent(ru["maxSurge"])
                                                             : PodsOrPercent{true, 0.25};
      const PodsOrPercent unavailable = ru["maxUnavailable"].present() ? pods_or_percent(ru["maxUnavailable"])
                                        : stateful                     ? PodsOrPercent{false, 1}
                                                                       : PodsOrPercent{true, 0.25};
      const RollingUpdateConfig r{rolling_fraction(surge, w.replicas, true),
                                  rolling_fraction(unavailable, w.replicas, false)};
      const bool counts = !surge.percent || !unavailable.percent;
      if (counts) {
        note(o, ru.present() ? ru : strategy,
             "converted: pod counts as fractions of spec.replicas " + std::to_string(w.replicas) +
                 " that round to the same counts there (drsim's rolling update is a fraction of the desired "
                 "count; at another count they round differently)");
      }
      w.rolling = r;
      w.rolling_from = strategy.present() ? "the update strategy (" + where(strategy) + ")"
                                          : "no update strategy: the API's default";
    }
    if (type != "RollingUpdate") {
      note(o, strategy["type"], "not modelled: the " + type + " strategy (drsim's rollouts are rolling updates)");
    }
    if (stateful) spec["serviceName"].take();  // its governing headless Service: DNS names, not traffic
    workloads_.push_back(std::move(w));
  }

  static bool selects(const std::map<std::string, std::string>& selector,
                      const std::map<std::string, std::string>& labels) {
    if (selector.empty()) return false;
    return std::all_of(selector.begin(), selector.end(), [&](const auto& kv) {
      const auto it = labels.find(kv.first);
      return it != labels.end() && it->second == kv.second;
    });
  }

  void service(const ManifestObject& o) {
    const ManifestField spec = o.field()["spec"];
    std::map<std::string, std::string> selector;
    for (const auto& [k, v] : spec["selector"].entries()) selector[k] = v.text();
    const std::string type = spec["type"].optional_text().value_or("ClusterIP");
    // Addresses the API server assigns: how callers reach the pods, not how many or how fast.
    if (spec["clusterIP"].optional_text() != std::optional<std::string>("None")) {
      for (const char* key : {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"}) spec[key].take();
    }
    std::vector<Workload*> selected;
    for (Workload& w : workloads_) {
      if (w.object->ns == o.ns && selects(selector, w.pod_labels)) selected.push_back(&w);
    }
    if (selected.empty()) {
      note(o, spec["selector"].present() ? spec["selector"] : o.field(),
           "not modelled: it selects none of the imported workloads' pods");
      return;
    }
    if (selected.size() > 1) {
      note(o, spec["selector"],
           "selects the pods of " + std::to_string(selected.size()) +
               " workloads: drsim names the first's service after it, the others keep theirs");
    }
    bool zone_aware = spec["trafficDistribution"].optional_text() == std::optional<std::string>("PreferClose");
    std::string zone_from =
        zone_aware ? "spec.trafficDistribution PreferClose (" + where(spec["trafficDistribution"]) + ")" : "";
    for (const auto& [k, v] : o.field()["metadata"]["annotations"].entries()) {
      if ((k == "service.kubernetes.io/topology-mode" || k == "service.kubernetes.io/topology-aware-hints") &&
          (v.text() == "Auto" || v.text() == "auto")) {
        zone_aware = true;
        zone_from = k + " " + v.text() + " (" + where(v) + ")";
      }
    }
    claims_.push_back({&o, selected.front(), type, zone_aware, zone_from});
  }

  // A workload's service is named after the Service that selects it: the ClusterIP one of its own name, else
  // the first ClusterIP one, else its own name. Other Services that select it are noted.
  void name_services() {
    for (Workload& w : workloads_) {
      const ServiceClaim* chosen = nullptr;
      for (const ServiceClaim& c : claims_) {
        if (c.workload != &w || c.type == "ExternalName") continue;
        const bool cluster_ip = c.type == "ClusterIP";
        if (chosen == nullptr || (cluster_ip && c.service->name == w.object->name) ||
            (cluster_ip && chosen->type != "ClusterIP")) {
          chosen = &c;
        }
      }
      w.service = chosen ? chosen->service->name : w.object->name;
      w.service_from =
          chosen ? chosen->service->label() + " (" + where(chosen->service->field()) + ") selects " + w.object->label()
                 : w.object->label() + ": no Service selects its pods";
      for (const ServiceClaim& c : claims_) {
        if (c.workload != &w) continue;
        if (&c != chosen) {
          note(*c.service, c.service->field()["spec"]["selector"],
               "selects the pods of " + w.object->label() + ", modelled as service " + w.service +
                   ": its callers are modelled as that service's (type " + c.type + ")");
        }
        if (c.zone_aware) {
          w.zone_affinity = true;
          w.zone_affinity_from = c.zone_from;
        }
      }
    }
    std::map<std::string, const Workload*> seen;
    for (const Workload& w : workloads_) {
      const auto [first, fresh] = seen.emplace(w.service, &w);
      if (!fresh) {
        w.object->field().fail("expected one workload per service name, got a second one named " + quote(w.service) +
                               " (the first: " + first->second->object->label() + ", " +
                               where(first->second->object->field()) +
                               "); import one namespace at a time (--namespace)");
      }
    }
  }

  const Workload* workload_named(const ManifestObject& hpa, const std::string& kind, const std::string& name) const {
    for (const Workload& w : workloads_) {
      if (w.object->kind == kind && w.object->name == name && w.object->ns == hpa.ns) return &w;
    }
    return nullptr;
  }

  std::optional<std::string> metric_name(const ManifestField& name) const {
    const std::string given = name.text();
    const auto it = options_.metric_names.find(given);
    const std::string mapped = it == options_.metric_names.end() ? given : it->second;
    if (request_metric(mapped)) return mapped;
    return std::nullopt;
  }

  static HpaQuantityTargetConfig quantity_target(const ManifestField& t) {
    HpaQuantityTargetConfig out;
    out.type = t["type"].text();
    if (t["value"].present()) out.value = t["value"].text();
    if (t["averageValue"].present()) out.average_value = t["averageValue"].text();
    return out;
  }

  void hpa(const ManifestObject& o) {
    const ManifestField spec = o.field()["spec"];
    const ManifestField ref = spec["scaleTargetRef"];
    const std::string kind = ref["kind"].text();
    const Workload* w = workload_named(o, kind, ref["name"].text());
    ref["apiVersion"].take();
    if (w == nullptr) {
      ref.fail("expected a Deployment or StatefulSet of the manifests, got " + kind + " " + quote(ref["name"].text()));
    }
    HpaConfig h;
    h.name = o.name;
    h.target = w->service;
    if (spec["minReplicas"].present()) h.min_replicas = int32_of(spec["minReplicas"], 1);
    h.max_replicas = int32_of(spec["maxReplicas"], 1);
    if (o.api_version == "autoscaling/v1") {
      HpaMetricConfig m;
      m.resource = HpaResourceMetricConfig{};
      m.resource->target.type = "Utilization";
      m.resource->target.average_utilization =
          spec["targetCPUUtilizationPercentage"].present() ? int32_of(spec["targetCPUUtilizationPercentage"], 1) : 80;
      h.metrics.push_back(m);
    }
    for (const ManifestField& m : spec["metrics"].items()) {
      const std::string type = m["type"].text();
      HpaMetricConfig out;
      out.type = type;
      if (type == "Resource" || type == "ContainerResource") {
        const ManifestField r = m[type == "Resource" ? "resource" : "containerResource"];
        if (type == "ContainerResource") {
          // drsim measures a pod's CPU: a container's is the pod's when the pod has no other container.
          const std::string container = r["container"].text();
          if (w->containers.size() != 1 || w->containers[0] != container) {
            note(o, m,
                 "not modelled: the CPU of container " + quote(container) + " of a pod of " +
                     std::to_string(w->containers.size()) +
                     " containers (drsim measures a pod's CPU, not a container's); the HPA scales on the others");
            m.take();
            continue;
          }
          if (r["name"].text() == "cpu") {
            note(o, m, "read as a Resource metric: container " + quote(container) +
                           " is the pod's only one, so its CPU utilisation is the pod's");
          }
          out.type = "Resource";
        }
        if (r["name"].text() != "cpu") {
          note(o, m,
               "not modelled: a " + r["name"].text() + " metric (drsim measures CPU); the HPA scales on the others");
          m.take();
          continue;
        }
        out.resource = HpaResourceMetricConfig{};
        const ManifestField t = r["target"];
        out.resource->target.type = t["type"].text();
        if (t["averageUtilization"].present())
          out.resource->target.average_utilization = int32_of(t["averageUtilization"], 1);
        if (t["averageValue"].present()) out.resource->target.average_value = cpu_of(t["averageValue"]);
      } else if (type == "Pods" || type == "Object") {
        const ManifestField body = m[type == "Pods" ? "pods" : "object"];
        const std::optional<std::string> name = metric_name(body["metric"]["name"]);
        if (!name) {
          note(o, m,
               "not modelled: metric " + quote(body["metric"]["name"].text()) +
                   " is not one drsim's metrics adapter serves (requests_per_second, latency, queue_length, "
                   "in_flight); map it with --metric NAME=DRSIM_NAME; the HPA scales on the others");
          m.take();
          continue;
        }
        if (body["metric"]["selector"].present()) {
          note(o, body["metric"]["selector"],
               "not modelled: a selector of a per-pod series (drsim's adapter "
               "serves one series per pod)");
          body["metric"]["selector"].take();
        }
        HpaMetricIdentifierConfig id;
        id.name = *name;
        if (type == "Pods") {
          out.pods = HpaPodsMetricConfig{id, quantity_target(body["target"])};
        } else {
          const ManifestField d = body["describedObject"];
          const Workload* described = nullptr;
          for (const Workload& x : workloads_) {
            if (x.service == d["name"].text() || x.object->name == d["name"].text()) described = &x;
          }
          if (described == nullptr) {
            note(o, m,
                 "not modelled: an Object metric of " + d["kind"].text() + " " + quote(d["name"].text()) +
                     ", not a service of the manifests");
            m.take();
            continue;
          }
          d["kind"].take();
          d["apiVersion"].take();
          HpaObjectMetricConfig obj;
          obj.described_object.name = described->service;
          obj.metric = id;
          obj.target = quantity_target(body["target"]);
          out.object = obj;
        }
      } else {
        note(o, m,
             type == "External"
                 ? std::string("not modelled: an External metric (its series comes from outside the cluster; "
                               "drsim's External metrics are kafka_consumer_lag and population_offered_rate of "
                               "the scenario's own topics and populations: set it by hand once the scenario "
                               "has them)")
                 : "not modelled: a metric of type " + type +
                       " (drsim's HPA reads Resource and ContainerResource cpu, Pods, Object and External metrics)");
        m.take();
        continue;
      }
      h.metrics.push_back(out);
    }
    if (h.metrics.empty()) {
      note(o, spec, "not imported: none of its metrics is modelled");
      spec.take();
      return;
    }
    const ManifestField b = spec["behavior"];
    if (b.present()) {
      HpaBehaviorConfig behavior;
      for (const auto& [key, rules] : b.entries()) {
        HpaScalingRulesConfig* r = key == "scaleUp"     ? &behavior.scale_up
                                   : key == "scaleDown" ? &behavior.scale_down
                                                        : nullptr;
        if (r == nullptr) continue;
        if (rules["stabilizationWindowSeconds"].present()) {
          r->stabilization_window_seconds = int32_of(rules["stabilizationWindowSeconds"], 0);
        }
        if (rules["selectPolicy"].present()) r->select_policy = rules["selectPolicy"].text();
        if (rules["tolerance"].present()) {
          try {
            r->tolerance = static_cast<double>(parse_kube_quantity(rules["tolerance"].text()).milli) / 1000.0;
          } catch (const std::invalid_argument& e) {
            rules["tolerance"].fail(e.what());
          }
        }
        if (rules["policies"].present()) {
          std::vector<HpaScalingPolicyConfig> policies;
          for (const ManifestField& p : rules["policies"].items()) {
            policies.push_back({p["type"].text(), int32_of(p["value"], 1), int32_of(p["periodSeconds"], 1)});
          }
          r->policies = policies;
        }
      }
      h.behavior = behavior;
    }
    hpas_.push_back({h, o.label() + " (" + where(o.field()) + ")"});
  }

  // The pods per zone a workload starts from: spec.replicas over the zones its pods may use, as even as the
  // spread constraint keeps them, the remainder to the zones listed first.
  std::vector<ReplicasConfig> split(const Workload& w) const {
    const std::vector<std::string>& zones = w.policy.zones.empty() ? zones_ : w.policy.zones;
    std::vector<ReplicasConfig> out;
    const auto n = static_cast<std::uint32_t>(w.replicas);
    const auto k = static_cast<std::uint32_t>(zones.size());
    for (std::uint32_t i = 0; i < k; ++i) out.push_back({zones[i], n / k + (i < n % k ? 1 : 0)});
    return out;
  }

  std::string write() const {
    std::ostringstream y;
    y << "# Imported by drsim import kubernetes from " << files_ << (files_ == 1 ? " file" : " files") << " ("
      << objects_.size() << " objects); " << notes_.size()
      << " notes list what was not modelled or was converted (docs/import.md).\n"
      << "# Not in the manifests, to be set from traces (drsim import traces) or by hand: how each service's pods\n"
      << "# serve requests (server, concurrency), how long a request takes (serviceTime), the calls between\n"
      << "# services, the load and the timeline.\n";
    y << "apiVersion: drsim/v1alpha1\nkind: Scenario\nmetadata:\n  name: " << options_.scenario_name << "\n";
    y << "spec:\n  duration: 10m  # not in the manifests: how long to simulate\n";
    y << "  topology:\n    regions:\n      - name: " << options_.region << "\n        zones: [";
    for (std::size_t i = 0; i < zones_.size(); ++i) y << (i ? ", " : "") << "{name: " << zones_[i] << "}";
    y << "]  # " << comment(zones_from_) << "\n";
    y << "    serviceDefaults:\n"
      << "      serviceTime: {kind: exponential, mean: 10ms}  # not in the manifests: a placeholder, to be set\n";
    y << "    services:" << (workloads_.empty() ? " []  # the manifests hold no Deployment or StatefulSet" : "")
      << "\n";
    for (const Workload& w : workloads_) {
      y << "      - name: " << w.service << "  # " << comment(w.service_from) << "\n";
      y << "        replicas: [";
      const std::vector<ReplicasConfig> split_ = split(w);
      for (std::size_t i = 0; i < split_.size(); ++i) {
        y << (i ? ", " : "") << "{zone: " << split_[i].zone << ", replicas: " << split_[i].replicas << "}";
      }
      y << "]  # " << comment(w.replicas_from) << ", over the zones its pods may use\n";
      if (w.cpu_request || w.cpu_limit) {
        y << "        cpu: {";
        if (w.cpu_request) y << "request: " << format_cpu(*w.cpu_request);
        if (w.cpu_limit) y << (w.cpu_request ? ", " : "") << "limit: " << format_cpu(*w.cpu_limit);
        y << "}  # " << comment(w.cpu_from) << "\n";
      }
      if (w.zone_affinity) y << "        zoneAffinity: true  # " << comment(w.zone_affinity_from) << "\n";
    }
    y << "  kubernetes:" << (pools_.empty() && workloads_.empty() ? " {}" : "") << "\n";
    if (!pools_.empty()) {
      y << "    nodePools:\n";
      for (const NodePool& p : pools_) y << "      - " << encode_config(p.config) << "  # " << comment(p.from) << "\n";
    }
    if (!workloads_.empty()) y << "    deployments:\n";
    for (const Workload& w : workloads_) {
      y << "      - service: " << w.service << "  # "
        << comment(w.object->label() + " (" + where(w.object->field()) + ")") << "\n";
      y << "        kind: " << w.object->kind << "\n";
      y << "        policy: " << encode_config(w.policy) << "  # " << comment(w.policy_from) << "\n";
      if (w.memory) y << "        memory: " << format_byte_size(*w.memory) << "  # " << comment(w.memory_from) << "\n";
      if (w.probe)
        y << "        readinessProbe: " << encode_config(*w.probe) << "  # " << comment(w.probe_from) << "\n";
      if (w.rolling)
        y << "        rollingUpdate: " << encode_config(*w.rolling) << "  # " << comment(w.rolling_from) << "\n";
      if (w.toleration) {
        y << "        toleration: " << format_duration(*w.toleration) << "  # " << comment(w.toleration_from) << "\n";
      }
    }
    if (!hpas_.empty()) y << "    hpas:\n";
    for (const auto& [h, from] : hpas_) y << "      - " << encode_config(h) << "  # " << comment(from) << "\n";
    return y.str();
  }

  struct ServiceClaim {
    const ManifestObject* service;
    Workload* workload;
    std::string type;
    bool zone_aware;
    std::string zone_from;
  };

  const KubernetesImportOptions& options_;
  std::size_t files_ = 0;
  std::size_t skipped_ = 0;                      // objects of other namespaces
  std::size_t walk_budget_ = kMaxDecodedValues;  // nodes unread_fields may still walk, over all objects
  std::vector<ManifestObject> objects_;
  std::vector<Workload> workloads_;
  std::vector<ServiceClaim> claims_;
  std::vector<std::pair<HpaConfig, std::string>> hpas_;
  std::vector<NodePool> pools_;
  std::vector<std::string> zones_;
  std::string zones_from_;
  std::vector<ImportNote> notes_;
};

bool manifest_file(const std::filesystem::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

}  // namespace

KubernetesImport import_kubernetes_texts(const std::vector<std::pair<std::string, std::string>>& files,
                                         const KubernetesImportOptions& options) {
  Importer importer(options);
  for (const auto& [name, text] : files) importer.read(name, text);
  return importer.finish();
}

KubernetesImport import_kubernetes(const std::vector<std::filesystem::path>& inputs,
                                   const KubernetesImportOptions& options) {
  std::vector<std::filesystem::path> paths;
  for (const std::filesystem::path& input : inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(input, ec)) {
      std::vector<std::filesystem::path> found;
      for (auto it = std::filesystem::recursive_directory_iterator(input, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && manifest_file(it->path())) found.push_back(it->path());
      }
      if (ec)
        throw ScenarioError(
            Diagnostic{.file = input.string(), .message = "cannot read the directory: " + ec.message()});
      std::sort(found.begin(), found.end());
      if (found.empty()) {
        throw ScenarioError(Diagnostic{.file = input.string(),
                                       .message = "expected .yaml, .yml or .json manifests "
                                                  "in this directory, got none"});
      }
      paths.insert(paths.end(), found.begin(), found.end());
    } else {
      paths.push_back(input);
    }
  }
  const std::vector<std::pair<std::string, std::string>> texts = read_text_files(paths, "manifest");
  return import_kubernetes_texts(texts, options);
}

}  // namespace drsim

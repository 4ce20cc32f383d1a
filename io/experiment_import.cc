#include "io/experiment_import.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <optional>
#include <set>

#include "io/config_encode.h"
#include "io/manifest_field.h"
#include "io/scenario_loader.h"
#include "io/yaml_document.h"
#include "sim/quote.h"
#include "sim/units.h"

namespace drsim {

namespace {

// A name as a YAML flow scalar: plain when it is letters, digits and - _ . only, else double-quoted.
std::string quote_if_needed(const std::string& name) {
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
  if (plain) return name;
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// ISO 8601 durations as FIS writes them: "PT30M", "PT1H30M", "PT90S", "P1D".
std::optional<Duration> iso8601_duration(std::string_view s) {
  if (s.size() < 2 || s[0] != 'P') return std::nullopt;
  Duration total{};
  bool time = false, any = false;
  std::size_t i = 1;
  while (i < s.size()) {
    if (s[i] == 'T') {
      if (time) return std::nullopt;
      time = true;
      ++i;
      continue;
    }
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(s.data() + i, s.data() + s.size(), n);
    if (ec != std::errc{} || end == s.data() + s.size() || n < 0 || n > 1'000'000) return std::nullopt;
    const char unit = *end;
    i = static_cast<std::size_t>(end - s.data()) + 1;
    any = true;
    if (!time && unit == 'D') {
      total += std::chrono::hours(24 * n);
    } else if (time && unit == 'H') {
      total += std::chrono::hours(n);
    } else if (time && unit == 'M') {
      total += std::chrono::minutes(n);
    } else if (time && unit == 'S') {
      total += std::chrono::seconds(n);
    } else {
      return std::nullopt;
    }
  }
  if (!any) return std::nullopt;
  return total;
}

Duration fis_duration(const ManifestField& f) {
  const std::string text = f.text();
  const std::optional<Duration> d = iso8601_duration(text);
  if (!d) f.fail("expected an ISO 8601 duration such as \"PT30M\" or \"PT1H30M\", got " + quote(text));
  return *d;
}

Duration go_duration(const ManifestField& f) {
  const std::string text = f.text();
  try {
    return parse_duration(text);
  } catch (const UnitError&) {
    f.fail("expected a duration such as \"30s\" or \"5m\", got " + quote(text));
  }
}

struct Object {
  std::string file;
  YAML::Node root;
  std::shared_ptr<FieldLedger> ledger = std::make_shared<FieldLedger>();
  std::string label;
  ManifestField field() const { return ManifestField(root, "", file, label, ledger); }
};

// When a FIS action starts: after these steps end (none: at the experiment's start), then this long.
struct Start {
  std::set<std::string> after;
  Duration delay{};
};

class ExperimentImporter {
 public:
  ExperimentImporter(const Scenario& scenario, const ExperimentImportOptions& options)
      : scenario_(scenario), options_(options) {
    for (const RegionConfig& r : scenario.spec.topology.config.regions) {
      for (const ZoneConfig& z : r.zones) zones_.push_back(z.name);
    }
    for (const ActionConfig& a : scenario.spec.timeline) taken_.insert(a.name);
  }

  void read(const std::string& file, const std::string& text) {
    for (const YAML::Node& doc : parse_documents(text, file)) {
      Object o{file, doc};
      if (doc.IsMap() && doc["actions"] && doc["targets"]) {
        o.label = "experiment template";
        fis(o);
      } else if (doc.IsMap() && doc["apiVersion"] && doc["apiVersion"].IsScalar() &&
                 doc["apiVersion"].Scalar().rfind("chaos-mesh.org/", 0) == 0) {
        chaos_mesh(o);
      } else {
        throw ScenarioError(diagnostic_at(file, doc.Mark(), "",
                                          "expected an AWS FIS experiment template (targets and actions) or a Chaos "
                                          "Mesh object (apiVersion chaos-mesh.org/v1alpha1), got " +
                                              describe_node(doc)));
      }
      objects_.push_back(std::move(o));
    }
  }

  // Two faults that take one zone down at once (a FIS template's network disruption and its instance stop) are
  // one zone:fail over both: the first one's end would otherwise bring the zone back while the other lasts.
  void merge_zone_failures() {
    std::map<std::string, std::string> renamed;
    for (std::size_t i = 0; i < out_.steps.size(); ++i) {
      ActionConfig& a = out_.steps[i];
      if (a.action != "zone:fail" || !a.at) continue;
      for (std::size_t j = i + 1; j < out_.steps.size();) {
        ActionConfig& b = out_.steps[j];
        const bool same = b.action == "zone:fail" && b.at && b.target.zone == a.target.zone;
        const auto end = [](const ActionConfig& x) {
          return x.duration ? std::optional(*x.at + *x.duration) : std::nullopt;
        };
        const bool overlap = same && (!end(a) || *b.at <= *end(a)) && (!end(b) || *a.at <= *end(b));
        if (!overlap) {
          ++j;
          continue;
        }
        const Duration start = std::min(*a.at, *b.at);
        const std::optional<Duration> stop =
            end(a) && end(b) ? std::optional(std::max(*end(a), *end(b))) : std::nullopt;
        a.at = start;
        a.duration = stop ? std::optional(*stop - start) : std::nullopt;
        out_.sources[i] += "; with " + b.name + ", " + out_.sources[j];
        renamed[b.name] = a.name;
        out_.steps.erase(out_.steps.begin() + static_cast<std::ptrdiff_t>(j));
        out_.sources.erase(out_.sources.begin() + static_cast<std::ptrdiff_t>(j));
      }
    }
    for (ActionConfig& s : out_.steps) {
      for (std::string& n : s.start_after) {
        if (const auto it = renamed.find(n); it != renamed.end()) n = it->second;
      }
      std::sort(s.start_after.begin(), s.start_after.end());
      s.start_after.erase(std::unique(s.start_after.begin(), s.start_after.end()), s.start_after.end());
    }
  }

  ExperimentImport finish() {
    merge_zone_failures();
    for (const Object& o : objects_) {
      for (const UnreadField& u : unread_fields(o.root, o.file, *o.ledger, {}, budget_)) {
        out_.notes.push_back(ImportNote{o.file, u.mark.is_null() ? 0 : u.mark.line + 1,
                                        u.mark.is_null() ? 0 : u.mark.column + 1, o.label, u.path,
                                        "not modelled (" + u.what + ")"});
      }
    }
    std::stable_sort(out_.notes.begin(), out_.notes.end(), [](const ImportNote& a, const ImportNote& b) {
      return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column);
    });
    return std::move(out_);
  }

 private:
  void note(const Object& o, const ManifestField& f, std::string message) {
    const bool known = f.present() && !f.mark().is_null();
    out_.notes.push_back(ImportNote{o.file, known ? f.mark().line + 1 : 0, known ? f.mark().column + 1 : 0, o.label,
                                    f.path(), std::move(message)});
  }

  std::string zone_of(const ManifestField& f) {
    const std::string given = f.text();
    const auto it = options_.zone_names.find(given);
    const std::string zone = it == options_.zone_names.end() ? given : it->second;
    if (std::find(zones_.begin(), zones_.end(), zone) == zones_.end()) {
      std::string known;
      for (const std::string& z : zones_) known += (known.empty() ? "" : ", ") + z;
      f.fail("expected a zone of the scenario (" + known + ") or one mapped to it (--zone-map " + given +
             "=ZONE), got " + quote(given));
    }
    return zone;
  }

  bool has_service(const std::string& name) const {
    const auto& services = scenario_.spec.topology.config.services;
    return std::any_of(services.begin(), services.end(), [&](const ServiceConfig& s) { return s.name == name; });
  }

  std::vector<std::string> zones_of_service(const std::string& name) const {
    std::vector<std::string> out;
    for (const ServiceConfig& s : scenario_.spec.topology.config.services) {
      if (s.name != name) continue;
      for (const ReplicasConfig& r : s.replicas) {
        if (r.replicas > 0) out.push_back(r.zone);
      }
    }
    return out;
  }

  std::string step_name(const std::string& wanted) {
    std::string name = wanted;
    for (int i = 2; taken_.contains(name); ++i) name = wanted + "-" + std::to_string(i);
    taken_.insert(name);
    return name;
  }

  void add_step(ActionConfig step, const Start& start, const std::string& source) {
    step.name = step_name(step.name);
    if (start.after.empty()) {
      step.at = options_.start + start.delay;
    } else {
      step.start_after.assign(start.after.begin(), start.after.end());
      step.delay = start.delay;
    }
    out_.steps.push_back(std::move(step));
    out_.sources.push_back(source);
  }

  // ---- AWS FIS ----

  struct FisTarget {
    std::vector<std::string> zones;
    std::string selection = "ALL";
    std::string resource_type;
    std::vector<std::string> names;  // from the ARNs: the last path segment
    ManifestField field;
  };

  struct FisAction {
    std::string name;
    ManifestField field;
    std::vector<std::string> steps;    // what it became; empty: a wait, or not modelled
    std::optional<Duration> duration;  // how long it lasts when it is not a step (a wait)
    std::vector<std::string> start_after;
    bool resolving = false, resolved = false;
    Start start;
  };

  void fis(Object& o) {
    const ManifestField root = o.field();
    root["description"].take();
    root["roleArn"].take();
    root["tags"].take();
    if (root["stopConditions"].present()) {
      bool only_none = true;
      for (const ManifestField& c : root["stopConditions"].items()) {
        only_none = only_none && c["source"].optional_text() == std::optional<std::string>("none");
      }
      if (only_none) {
        root["stopConditions"].take();
      } else {
        note(o, root["stopConditions"],
             "not modelled: the run goes to its end (stop conditions, CloudWatch "
             "alarms, are not evaluated)");
        root["stopConditions"].take();
      }
    }
    std::map<std::string, FisTarget> targets;
    for (const auto& [name, t] : root["targets"].entries()) {
      FisTarget target{{}, "ALL", t["resourceType"].text(), {}, t};
      target.selection = t["selectionMode"].optional_text().value_or("ALL");
      for (const ManifestField& arn : t["resourceArns"].items()) {
        const std::string a = arn.text();
        const std::size_t cut = a.find_last_of("/:");
        target.names.push_back(cut == std::string::npos ? a : a.substr(cut + 1));
      }
      for (const ManifestField& filter : t["filters"].items()) {
        const std::string path = filter["path"].text();
        if (path == "Placement.AvailabilityZone" || path == "AvailabilityZone") {
          for (const ManifestField& v : filter["values"].items()) target.zones.push_back(zone_of(v));
        } else if (path == "State.Name") {
          filter.take();  // running instances: the ones a zone's failure stops
        }
      }
      for (const char* key : {"availabilityZoneIdentifier", "availabilityZoneIdentifiers"}) {
        const ManifestField p = t["parameters"][key];
        if (p.present()) target.zones.push_back(zone_of(p));
      }
      targets.emplace(name, std::move(target));
    }
    std::map<std::string, FisAction> actions;
    for (const auto& [name, a] : root["actions"].entries()) {
      FisAction action{name, a};
      for (const ManifestField& s : a["startAfter"].items()) {
        const std::string after = s.text();
        if (!root["actions"][after].present()) s.fail("expected an action of the template, got " + quote(after));
        action.start_after.push_back(after);
      }
      actions.emplace(name, std::move(action));
    }
    // Steps in the template's order of actions, each once its predecessors are resolved.
    for (const auto& [name, a] : root["actions"].entries()) resolve(o, actions, targets, actions.at(name));
  }

  // When the action ends, for the ones that start after it.
  Start end_of(const Object& o, std::map<std::string, FisAction>& actions, std::map<std::string, FisTarget>& targets,
               FisAction& a) {
    resolve(o, actions, targets, a);
    if (!a.steps.empty()) return Start{{a.steps.begin(), a.steps.end()}, Duration{}};
    Start s = a.start;
    s.delay += a.duration.value_or(Duration{});
    return s;
  }

  void resolve(const Object& o, std::map<std::string, FisAction>& actions, std::map<std::string, FisTarget>& targets,
               FisAction& a) {
    if (a.resolved) return;
    if (a.resolving) a.field["startAfter"].fail("expected actions that do not wait for each other in a cycle");
    a.resolving = true;
    bool mixed = false;
    std::optional<Duration> first_delay;
    for (const std::string& p : a.start_after) {
      const Start e = end_of(o, actions, targets, actions.at(p));
      a.start.after.insert(e.after.begin(), e.after.end());
      if (first_delay && *first_delay != e.delay) mixed = true;
      first_delay = first_delay ? std::max(*first_delay, e.delay) : e.delay;
    }
    a.start.delay = first_delay.value_or(Duration{});
    if (mixed) {
      note(o, a.field["startAfter"],
           "approximated: it waits for actions that end after different waits; it starts "
           "the longest wait after all of them");
    }
    map_fis_action(o, targets, a);
    a.resolving = false;
    a.resolved = true;
  }

  void map_fis_action(const Object& o, std::map<std::string, FisTarget>& targets, FisAction& a) {
    const ManifestField f = a.field;
    f["description"].take();
    const std::string id = f["actionId"].text();
    const ManifestField params = f["parameters"];
    auto target_of = [&](const char* key) -> FisTarget* {
      const ManifestField t = f["targets"][key];
      if (!t.present()) return nullptr;
      const std::string name = t.text();
      const auto it = targets.find(name);
      if (it == targets.end()) t.fail("expected a target of the template, got " + quote(name));
      return &it->second;
    };
    const std::string source = "FIS action " + a.name + " (" + f.file() + ":" + std::to_string(f.mark().line + 1) + ")";
    if (id == "aws:fis:wait") {
      a.duration = fis_duration(params["duration"]);
      return;
    }
    auto zone_steps = [&](FisTarget* t, const std::optional<Duration>& duration, const std::string& why) {
      if (t == nullptr || t->zones.empty()) {
        note(o, f,
             "not modelled: its targets are not the resources of a zone (filter by Placement.AvailabilityZone "
             "or give availabilityZoneIdentifier)");
        a.duration = duration;
        return;
      }
      if (t->selection != "ALL") {
        note(o, t->field["selectionMode"],
             "not modelled: " + t->selection +
                 " of a zone's resources (drsim fails "
                 "a zone whole); the action is left out");
        a.duration = duration;
        return;
      }
      for (const std::string& zone : t->zones) {
        ActionConfig step;
        step.name = a.name + (t->zones.size() > 1 ? "-" + zone : "");
        step.action = "zone:fail";
        step.target.zone = zone;
        step.duration = duration;
        add_step(step, a.start, source + ": " + why);
        a.steps.push_back(out_.steps.back().name);
      }
    };
    if (id == "aws:network:disrupt-connectivity") {
      const std::string scope = params["scope"].optional_text().value_or("all");
      const Duration d = fis_duration(params["duration"]);
      if (scope != "all") {
        note(o, params["scope"],
             "not modelled: a disruption of " + scope + " traffic only (drsim cuts a zone off whole)");
        a.duration = d;
        return;
      }
      zone_steps(target_of("Subnets"), d,
                 "its subnets lose all connectivity: zone:fail (the zone's pods cannot be reached; they are not "
                 "restarted in reality)");
      return;
    }
    if (id == "aws:ec2:stop-instances" || id == "aws:ec2:terminate-instances") {
      std::optional<Duration> d;
      if (params["startInstancesAfterDuration"].present()) d = fis_duration(params["startInstancesAfterDuration"]);
      params["completeIfInstancesTerminated"].take();
      zone_steps(target_of("Instances"), d, "every instance of the zone stops");
      return;
    }
    if (id == "aws:rds:failover-db-cluster") {
      FisTarget* t = target_of("Clusters");
      if (t == nullptr || t->names.empty()) {
        note(o, f, "not modelled: no cluster named by ARN");
        return;
      }
      for (const std::string& db : t->names) {
        const auto& dbs = scenario_.spec.topology.config.databases;
        if (std::none_of(dbs.begin(), dbs.end(), [&](const DatabaseConfig& d) { return d.name == db; })) {
          note(o, t->field["resourceArns"], "not modelled: the scenario has no database named " + quote(db));
          continue;
        }
        ActionConfig step;
        step.name = a.name + (t->names.size() > 1 ? "-" + db : "");
        step.action = "database:kill";
        step.target.database = db;
        add_step(step, a.start,
                 source +
                     ": the writer goes and the database's failover promotes a replica (database:kill; RDS "
                     "restarts the old writer as a reader, drsim keeps it down)");
        a.steps.push_back(out_.steps.back().name);
      }
      return;
    }
    if (id == "aws:eks:pod-delete") {
      FisTarget* t = target_of("Pods");
      const ManifestField p = t ? t->field["parameters"] : ManifestField(YAML::Node(), "", o.file, o.label, o.ledger);
      const std::string selector = p["selectorType"].optional_text().value_or("");
      if (t == nullptr || selector != "deploymentName") {
        note(o, f, "not modelled: pods chosen other than by deploymentName");
        return;
      }
      const std::string service = p["selectorValue"].text();
      if (!has_service(service)) {
        note(o, p["selectorValue"], "not modelled: the scenario has no service named " + quote(service));
        return;
      }
      p["clusterIdentifier"].take();
      p["namespace"].take();
      std::vector<std::string> zones = t->zones.empty() ? zones_of_service(service) : t->zones;
      for (const std::string& zone : zones) {
        ActionConfig step;
        step.name = a.name + (zones.size() > 1 ? "-" + zone : "");
        step.action = "pods:kill";
        step.target = ActionTarget{.zone = zone, .service = service};
        if (t->selection == "ALL") {
          step.percent = Ratio{1.0};
        } else if (t->selection.rfind("PERCENT(", 0) == 0) {
          step.percent = Ratio{std::stod(t->selection.substr(8)) / 100.0};
        } else {
          note(o, t->field["selectionMode"], "not modelled: " + t->selection + "; every pod of the zone is killed");
          step.percent = Ratio{1.0};
        }
        add_step(step, a.start, source + ": the pods of " + service + " in " + zone + " are deleted");
        a.steps.push_back(out_.steps.back().name);
      }
      return;
    }
    if (id == "aws:elasticache:replicationgroup-interrupt-az-power" ||
        id == "aws:elasticache:interrupt-cluster-az-power") {
      note(o, f,
           "not modelled: drsim has no ElastiCache; a zone:fail of the same zone stops what the scenario runs there");
      if (params["duration"].present()) a.duration = fis_duration(params["duration"]);
      f.take();
      return;
    }
    note(o, f, "not modelled: the action " + id + " (docs/import.md lists the ones drsim reads)");
    if (params["duration"].present()) a.duration = fis_duration(params["duration"]);
    f.take();
  }

  // ---- Chaos Mesh ----

  void chaos_mesh(Object& o) {
    // The label first, so that every message names the object.
    const YAML::Node& doc = o.root;  // const: a lookup must not add the key
    const YAML::Node kind_node = doc["kind"], metadata = doc["metadata"];
    // A missing key is an invalid node, and a key of that would throw: only a mapping is looked into.
    const YAML::Node name_node = metadata && metadata.IsMap() ? metadata["name"] : YAML::Node();
    if (kind_node && kind_node.IsScalar()) {
      o.label = kind_node.Scalar() + (name_node && name_node.IsScalar() ? " " + name_node.Scalar() : "");
    }
    const ManifestField root = o.field();
    const std::string kind = root["kind"].text();
    root["apiVersion"].take();
    const std::string name = root["metadata"]["name"].optional_text().value_or(kind);
    root["metadata"].take();
    o.label = kind + " " + name;
    if (kind != "PodChaos" && kind != "NetworkChaos") {
      note(o, root,
           "not modelled: " + kind +
               " (drsim reads PodChaos and NetworkChaos; a StressChaos needs a CPU stress drsim's pods do not model "
               "yet)");
      root.take();
      return;
    }
    const ManifestField spec = root["spec"];
    const std::string source = o.label + " (" + o.file + ":" + std::to_string(root.mark().line + 1) + ")";
    const ManifestField selector = spec["selector"];
    selector["namespaces"].take();
    std::string zone;
    for (const auto& [key, value] : selector["nodeSelectors"].entries()) {
      if (key == "topology.kubernetes.io/zone" || key == "failure-domain.beta.kubernetes.io/zone") {
        zone = zone_of(value);
      }
    }
    std::string service;
    for (const auto& [key, value] : selector["labelSelectors"].entries()) {
      if (key == "app" || key == "app.kubernetes.io/name") {
        service = value.text();
        if (!has_service(service)) {
          note(o, value, "not modelled: the scenario has no service named " + quote(service));
          root.take();
          return;
        }
      }
    }
    const std::string mode = spec["mode"].text();
    std::optional<Duration> duration;
    if (spec["duration"].present()) duration = go_duration(spec["duration"]);
    if (kind == "PodChaos") {
      const std::string action = spec["action"].text();
      if (service.empty()) {
        note(o, selector, "not modelled: pods not chosen by an app label of a scenario service");
        return;
      }
      std::vector<std::string> zones = zone.empty() ? zones_of_service(service) : std::vector<std::string>{zone};
      for (const std::string& z : zones) {
        ActionConfig step;
        step.name = name + (zones.size() > 1 ? "-" + z : "");
        step.action = "pods:kill";
        step.target = ActionTarget{.zone = z, .service = service};
        if (mode == "all") {
          step.percent = Ratio{1.0};
        } else if (mode == "one") {
          step.count = 1;
        } else if (mode == "fixed") {
          step.count = static_cast<std::uint32_t>(std::max<std::int64_t>(1, spec["value"].integer()));
        } else if (mode == "fixed-percent" || mode == "random-max-percent") {
          step.percent = Ratio{static_cast<double>(spec["value"].integer()) / 100.0};
        } else {
          spec["mode"].fail("expected one, all, fixed, fixed-percent or random-max-percent, got " + quote(mode));
        }
        add_step(step, Start{}, source + ": " + action + " of " + service + "'s pods in " + z);
      }
      if (mode != "all" && zones.size() > 1) {
        note(o, spec["mode"],
             "per zone: " + mode +
                 " of the pods of each zone (Chaos Mesh picks among all of "
                 "them)");
      }
      if (action != "pod-kill") {
        note(o, spec["action"],
             "approximated: " + action +
                 " as pods:kill (the kubelet restarts the killed "
                 "containers; a pod-failure's pods stay down for its duration in reality)");
      }
      return;
    }
    if (kind == "NetworkChaos") {
      const std::string action = spec["action"].text();
      if (action == "partition" && !zone.empty() && mode == "all" && service.empty() &&
          spec["direction"].optional_text().value_or("to") == "both" && !spec["target"].present()) {
        ActionConfig step;
        step.name = name;
        step.action = "zone:fail";
        step.target.zone = zone;
        step.duration = duration;
        add_step(step, Start{}, source + ": every pod on the zone's nodes is cut off: zone:fail");
        return;
      }
      note(o, spec,
           "not modelled: a " + action +
               " other than a partition of every pod of a zone in both "
               "directions");
      spec.take();
      return;
    }
  }

  const Scenario& scenario_;
  const ExperimentImportOptions& options_;
  std::vector<std::string> zones_;
  std::set<std::string> taken_;
  std::vector<Object> objects_;
  std::size_t budget_ = 1'000'000;
  ExperimentImport out_;
};

// The step in the scenario file's flow style, with its comment: the keys the importer sets, no defaults.
std::string step_line(const ActionConfig& step, const std::string& source, const std::string& indent) {
  std::string s = source;
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::string line = indent + "- {name: " + quote_if_needed(step.name) + ", action: " + step.action;
  if (step.at) line += ", at: " + format_duration(*step.at);
  if (!step.start_after.empty()) {
    line += ", startAfter: [";
    for (std::size_t i = 0; i < step.start_after.size(); ++i)
      line += (i ? ", " : "") + quote_if_needed(step.start_after[i]);
    line += "]";
    if (step.delay != Duration{}) line += ", delay: " + format_duration(step.delay);
  }
  if (step.duration) line += ", duration: " + format_duration(*step.duration);
  line += ", target: {";
  std::string target;
  for (const auto& [key, value] : {std::pair{"zone", &step.target.zone}, std::pair{"service", &step.target.service},
                                   std::pair{"database", &step.target.database}}) {
    if (!value->empty()) target += (target.empty() ? "" : ", ") + std::string(key) + ": " + quote_if_needed(*value);
  }
  line += target + "}";
  if (step.count) line += ", count: " + std::to_string(*step.count);
  if (step.percent) line += ", percent: " + format_ratio(*step.percent);
  return line + "}  # " + s + "\n";
}

}  // namespace

ExperimentImport import_experiment_texts(const Scenario& scenario,
                                         const std::vector<std::pair<std::string, std::string>>& files,
                                         const ExperimentImportOptions& options) {
  ExperimentImporter importer(scenario, options);
  for (const auto& [name, text] : files) importer.read(name, text);
  return importer.finish();
}

ExperimentImport import_experiment(const Scenario& scenario, const std::vector<std::filesystem::path>& files,
                                   const ExperimentImportOptions& options) {
  const std::vector<std::pair<std::string, std::string>> texts = read_text_files(files, "experiment");
  return import_experiment_texts(scenario, texts, options);
}

std::string scenario_with_steps(const std::string& scenario_text, const std::string& scenario_file,
                                const ExperimentImport& experiment) {
  const YAML::Node doc = parse_document(scenario_text, scenario_file, "Scenario");
  // The text is extended in place when spec is the last key and its timeline, if any, its last block list.
  bool in_place = false;
  std::string indent = "    ";
  bool has_timeline = false;
  if (doc.IsMap() && doc.size() > 0) {
    std::string last_key;
    YAML::Node spec;
    for (const auto& kv : doc) {
      last_key = kv.first.Scalar();
      spec.reset(kv.second);
    }
    if (last_key == "spec" && spec.IsMap() && spec.Style() == YAML::EmitterStyle::Block) {
      std::string spec_last;
      YAML::Node timeline;
      for (const auto& kv : spec) {
        spec_last = kv.first.Scalar();
        timeline.reset(kv.second);
        if (spec_last == "timeline") has_timeline = true;
      }
      if (!has_timeline) {
        in_place = true;
      } else if (spec_last == "timeline" && timeline.IsSequence() && timeline.Style() == YAML::EmitterStyle::Block &&
                 timeline.size() > 0) {
        in_place = true;
        indent = std::string(static_cast<std::size_t>(timeline.Mark().column), ' ');
      }
    }
  }
  const std::filesystem::path parent = std::filesystem::path(scenario_file).parent_path();
  const std::filesystem::path base_dir = parent.empty() ? std::filesystem::current_path() : parent;
  std::string out;
  if (in_place) {
    out = scenario_text;
    if (!out.empty() && out.back() != '\n') out += '\n';
    if (!has_timeline) out += "  timeline:\n";
    for (std::size_t i = 0; i < experiment.steps.size(); ++i) {
      out += step_line(experiment.steps[i], experiment.sources[i], indent);
    }
  } else {
    // The resolved scenario with the steps: every value written out, the file's comments lost; the steps'
    // sources go into a header instead.
    Scenario s = load_scenario_text(scenario_text, {}, scenario_file, base_dir);
    for (std::size_t i = 0; i < experiment.steps.size(); ++i) {
      std::string source = experiment.sources[i];
      std::replace(source.begin(), source.end(), '\n', ' ');
      out += "# timeline step " + experiment.steps[i].name + ": " + source + "\n";
      s.spec.timeline.push_back(experiment.steps[i]);
    }
    out += to_yaml(s);
  }
  load_scenario_text(out, {}, scenario_file, base_dir);
  return out;
}

std::string scenario_file_with_steps(const std::string& scenario_file, const ExperimentImport& experiment) {
  std::string reason;
  std::optional<std::string> text = read_document_file(scenario_file, scenario_file, reason);
  if (!text) throw ScenarioError(Diagnostic{.file = scenario_file, .message = "cannot read the scenario: " + reason});
  return scenario_with_steps(*text, scenario_file, experiment);
}

}  // namespace drsim

// The scenario reference (docs/scenario-format.md) and JSON Schema
// (docs/scenario.schema.json), generated from the same field lists, unit
// tables and action catalog that the loader uses, so they cannot drift from
// it. tests/io/scenario_docs_test.cc fails when the committed files differ.
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "io/action_parameters.h"
#include "io/json_text.h"
#include "io/scenario_loader.h"
#include "io/service_defaults.h"
#include "io/value_codecs.h"
#include "models/results/event_kind_catalog.h"
#include "sim/field_traits.h"

namespace drsim {

namespace {

// The two kinds of document and the structs that hold them.
constexpr std::string_view kScenarioKind = "Scenario";
constexpr std::string_view kTopologyKind = "Topology";

std::string anchor(std::string_view type_name) {
  std::string out;
  for (char c : type_name) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string link_to(std::string_view type_name) {
  return "[" + std::string(type_name) + "](#" + anchor(type_name) + ")";
}

std::string code(std::string_view text) { return "`" + std::string(text) + "`"; }

std::string join(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : std::string(separator)) + s;
  return out;
}

// ---- markdown --------------------------------------------------------------------

template <class T>
std::string markdown_type(unsigned flags) {
  if constexpr (IsOptional<T>::value) {
    return markdown_type<typename T::value_type>(flags);
  } else if constexpr (IsVector<T>::value) {
    return "list of " + markdown_type<typename T::value_type>(flags);
  } else if constexpr (std::is_same_v<T, TopologyRef>) {
    return "file path or " + link_to(DeploymentConfig::kTypeName);
  } else if constexpr (Described<T>) {
    return link_to(T::kTypeName);
  } else {
    std::string out(ValueCodec<T>::kName);
    if (flags & kPositive) out += ", > 0";
    if (flags & kNonNegative) out += ", >= 0";
    if (flags & kAtMostOne) out += ", <= 100%";
    return out;
  }
}

// The default column: what a missing key means.
template <class T>
std::string markdown_default(const T& value, unsigned flags) {
  if (flags & kRequired) return "**required**";
  if constexpr (IsOptional<T>::value) {
    return "unset";
  } else if constexpr (IsVector<T>::value) {
    return value.empty() ? code("[]") : "";
  } else if constexpr (Described<T>) {
    return "all defaults";
  } else if constexpr (std::is_same_v<T, TopologyRef>) {
    return "none";
  } else {
    const std::string text = ValueCodec<T>::format(value);
    return code(text.empty() ? "\"\"" : text);
  }
}

std::string table_cell(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// One section per struct, in the order a reader meets them from the top of
// a document.
class MarkdownSections {
 public:
  template <Described T>
  void add() {
    if (!seen_.insert(std::string(T::kTypeName)).second) return;
    const T defaults{};
    std::string s = "## " + std::string(T::kTypeName) + "\n\n";
    s += "| Key | Type | Default | Description |\n|---|---|---|---|\n";
    for_each_field<T>([&](const auto& f) {
      using V = FieldValue<decltype(f)>;
      s += "| " + code(f.key) + " | " + table_cell(markdown_type<V>(f.flags)) + " | " +
           table_cell(markdown_default(defaults.*f.member, f.flags)) + " | " + table_cell(f.doc) + " |\n";
    });
    if constexpr (std::is_same_v<T, DeploymentConfig>) {
      s += "| " + code(kServiceDefaultsKey) + " | mapping of [Service](#service) keys but `name` | none | " +
           table_cell(kServiceDefaultsDoc) + " |\n";
    }
    sections_.push_back(std::move(s));
    for_each_field<T>([&](const auto& f) { add_nested<FieldValue<decltype(f)>>(); });
  }

  std::string text() const { return join(sections_, "\n"); }

 private:
  template <class V>
  void add_nested() {
    using E = typename ElementOf<V>::type;
    if constexpr (std::is_same_v<E, TopologyRef>) {
      add<DeploymentConfig>();
    } else if constexpr (Described<E>) {
      add<E>();
    }
  }

  std::set<std::string> seen_;
  std::vector<std::string> sections_;
};

template <class T>
std::string quantity_row() {
  using C = ValueCodec<T>;
  std::vector<std::string> units;
  for (std::string_view u : C::units()) units.push_back(u.empty() ? std::string("none (cores)") : code(u));
  return "| " + std::string(C::kName) + " | " + (C::kCompound ? "one or more `<number><unit>`" : "`<number><unit>`") +
         " | " + join(units) + " | " + code(C::kExample) + " |\n";
}

// "`target.service`, `target.zone`": every target field the action needs.
std::string target_cell(TargetSet target) {
  std::vector<std::string> keys;
  for (TargetField f : target_fields()) {
    if (target.contains(f)) keys.push_back(code(std::string("target.") + std::string(to_string(f))));
  }
  return join(keys);
}

std::string action_catalog_markdown() {
  std::string s =
      "| Action | Target | Parameters | Takes `duration` | Role in the fault report | Description |\n"
      "|---|---|---|---|---|---|\n";
  for (const ActionSpecInfo& info : action_catalog()) {
    std::vector<std::string> params;
    for (std::string_view p : parameters_of(info)) params.push_back(code(p));
    std::string role(to_string(info.role));
    if (info.role == ActionRole::kRepair) {
      std::vector<std::string> repaired;
      for (std::string_view r : info.repairs) {
        if (!r.empty()) repaired.push_back(code(r));
      }
      role += " (ends " + join(repaired) + ")";
    }
    s += "| " + code(info.name) + " | " + target_cell(info.target) + " | " +
         (params.empty() ? std::string("none") : join(params)) + " | " + (info.reversible ? "yes" : "no") + " | " +
         role + " | " + table_cell(info.doc) + " |\n";
  }
  return s;
}

std::string event_kind_catalog_markdown() {
  std::string s =
      "| Kind | Detects a failure | Formerly | Description |\n"
      "|---|---|---|---|\n";
  for (const EventKind& kind : event_kind_catalog()) {
    s += "| " + code(kind.name()) + " | " + (kind.detects_failure() ? "yes" : "") + " | " +
         (kind.formerly().empty() ? std::string() : code(kind.formerly())) + " | " + table_cell(kind.doc()) + " |\n";
  }
  return s;
}

// ---- JSON Schema ---------------------------------------------------------------------

std::string regex_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// The parser's grammar as an ECMA-262 pattern: sign, decimal number, unit.
template <class T>
std::string quantity_pattern(unsigned flags) {
  using C = ValueCodec<T>;
  std::vector<std::string> units;
  for (std::string_view u : C::units()) units.push_back(regex_escape(u));
  const std::string sign = (flags & (kPositive | kNonNegative)) ? "\\+?" : "[+-]?";
  const std::string term = "[0-9]+(\\.[0-9]+)?(" + join(units, "|") + ")";
  return "^" + sign + (C::kCompound ? "(" + term + ")+" : term) + "$";
}

class SchemaDefs {
 public:
  template <class T>
  Json schema_of(unsigned flags) {
    if constexpr (IsOptional<T>::value) {
      return schema_of<typename T::value_type>(flags);
    } else if constexpr (IsVector<T>::value) {
      Json s = Json::object();
      s.set("type", "array");
      s.set("items", schema_of<typename T::value_type>(flags & ~kRequired));
      return s;
    } else if constexpr (std::is_same_v<T, TopologyRef>) {
      Json path = Json::object();
      path.set("type", "string");
      path.set("description", "Path of a kind: Topology file, relative to this file.");
      Json s = Json::object();
      s.set("oneOf", Json::array()).push(std::move(path));
      s.at("oneOf").push(schema_of<DeploymentConfig>(flags));
      return s;
    } else if constexpr (std::is_same_v<T, CpuQuantity>) {
      // Text ("500m", "1.5") or a bare YAML number of cores (2), as
      // Kubernetes manifests write it.
      Json text = Json::object();
      text.set("type", "string");
      text.set("pattern", quantity_pattern<T>(flags));
      Json cores = Json::object();
      cores.set("type", "number");
      cores.set(flags & kPositive ? "exclusiveMinimum" : "minimum", std::int64_t{0});
      Json s = Json::object();
      s.set("anyOf", Json::array()).push(std::move(text));
      s.at("anyOf").push(std::move(cores));
      return s;
    } else if constexpr (Described<T>) {
      define<T>();
      Json s = Json::object();
      s.set("$ref", "#/$defs/" + std::string(T::kTypeName));
      return s;
    } else {
      using C = ValueCodec<T>;
      Json s = Json::object();
      s.set("type", C::kJsonType);
      if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
        s.set("minimum", std::int64_t{(flags & kPositive) ? 1 : 0});
      } else if constexpr (std::is_integral_v<T>) {
        if (flags & kPositive) s.set("minimum", std::int64_t{1});
        if (flags & kNonNegative) s.set("minimum", std::int64_t{0});
      } else if constexpr (C::kJsonType == "string" && Signed<T>) {
        s.set("pattern", quantity_pattern<T>(flags));
      }
      return s;
    }
  }

  template <Described T>
  void define() {
    if (defined_.contains(std::string(T::kTypeName))) return;
    defined_.insert(std::string(T::kTypeName));
    // Reserve the slot now, so that a type comes before the types it uses.
    defs_.set(T::kTypeName, Json::object());
    defs_.at(T::kTypeName) = object_of<T>(true, "");
  }

  // T's keys as a JSON Schema object; `required` false and `without` a key
  // for the mappings that hold some of a type's keys (serviceDefaults).
  template <Described T>
  Json object_of(bool with_required, std::string_view without) {
    const T defaults{};
    Json properties = Json::object();
    Json required = Json::array();
    bool any_required = false;
    for_each_field<T>([&](const auto& f) {
      if (f.key == without) return;
      using V = FieldValue<decltype(f)>;
      Json p = schema_of<V>(f.flags);
      p.set("description", f.doc);
      if constexpr (Leaf<V>) {
        if (!(f.flags & kRequired)) p.set("default", default_of(defaults.*f.member));
      }
      properties.set(f.key, std::move(p));
      if (f.required() && with_required) {
        required.push(f.key);
        any_required = true;
      }
    });
    Json object = Json::object();
    object.set("type", "object");
    object.set("title", T::kTypeName);
    object.set("properties", std::move(properties));
    if (any_required) object.set("required", std::move(required));
    object.set("additionalProperties", false);
    return object;
  }

  Json& defs() { return defs_; }

 private:
  template <Leaf T>
  static Json default_of(const T& value) {
    const std::string text = ValueCodec<T>::format(value);
    if constexpr (ValueCodec<T>::kJsonType == "string") {
      return Json(text);
    } else if constexpr (std::is_same_v<T, bool>) {
      return Json(value);
    } else {
      return Json::number(text);
    }
  }

  Json defs_ = Json::object();
  std::set<std::string> defined_;
};

}  // namespace

std::string scenario_format_markdown() {
  std::string s;
  s += "# Scenario file reference\n\n";
  s += "<!-- Generated by scenario_format_markdown() in io/scenario_docs.cc from the field lists; do not edit.\n"
       "     Regenerate: DRSIM_UPDATE_GOLDEN=1 <build>/tests/io/io_test --gtest_filter='ScenarioDocs.*' -->\n\n";
  s += "A scenario file is one YAML document with a Kubernetes-style envelope: `apiVersion: " +
       std::string(Scenario::kApiVersion) + "`, `kind: " + std::string(kScenarioKind) +
       "`, `metadata` and `spec`. Its topology is written inline under `spec.topology` or kept in a separate "
       "file with `kind: " +
       std::string(kTopologyKind) +
       "` whose path (relative to the scenario file) is the value of `spec.topology`. "
       "The JSON Schema in `docs/scenario.schema.json` describes both kinds of file.\n\n";
  s += "Rules that apply everywhere:\n\n"
       "- Unknown keys, repeated keys and `key:` with no value are errors.\n"
       "- Quantities carry their unit (see [Quantities](#quantities)); a bare number where a unit belongs is an "
       "error.\n"
       "- Booleans are `true` or `false`; integers are plain decimal digits (no `1.0`, `1e3` or quotes).\n"
       "- A file is at most " +
       std::to_string(kMaxScenarioBytes >> 20) +
       " MiB of UTF-8 text.\n"
       "- Every error names `file:line:column`, the YAML path and what was expected; all problems found are "
       "reported together.\n"
       "- `--set path=value` (Python: `overrides=`) changes a value before checking: the path uses dots and "
       "`[index]` or `[name]` selectors (`spec.timeline[fail-a].at=5m`) and the value is YAML. `[*]` selects every "
       "item of a list and `[key=value]` every item whose key (dotted through mappings) holds the value, so one "
       "override reaches many services: `spec.topology.services[*].cpu.limit=500m`, "
       "`spec.topology.services[server=eventLoop].maxInFlight=256`. A selector that selects nothing is an "
       "error. Settings most services share go in `spec.topology.serviceDefaults` (see [Topology](#topology)).\n\n";

  s += "## Quantities\n\n";
  s += "A quantity is a decimal number (digits, optionally a point and more digits; a leading sign where the "
       "field allows one) immediately followed by its unit, with no space. Durations are exact to the "
       "nanosecond and may combine several units, largest first by convention: `1h30m`, `1m30.5s`.\n\n";
  s += "| Type | Written as | Units | Example |\n|---|---|---|---|\n";
  s += quantity_row<Duration>() + quantity_row<Bandwidth>() + quantity_row<Rate>() + quantity_row<Ratio>() +
       quantity_row<ByteSize>() + quantity_row<CpuQuantity>();
  s += "\nDuration units: `ns`, `us` (or `µs`), `ms`, `s`, `m` (minutes), `h`, `d` (24 h). Bandwidth units are "
       "decimal: `kbps` is 1000 bits per second and `B/s` units count bytes. Rates: `rps` per second, `rpm` per "
       "minute, `rph` per hour. Sizes: `kB`, `MB`, ... are powers of 1000 and `KiB`, `MiB`, ... powers of "
       "1024. CPU is counted as Kubernetes counts it: `500m` is 500 millicores, and a bare number (`2`, "
       "`1.5`) is cores, the one quantity written without a unit, so that resources can be pasted from a "
       "manifest.\n\n";

  s += "## CSV inputs\n\n";
  s += "A rate trace (`load: {kind: trace, file: traces/checkout.csv}`) or empirical service times "
       "(`serviceTime: {kind: empirical, file: samples.csv}`) can be read from a CSV file instead of written "
       "inline; give `file` or `points`/`samples`, not both.\n\n"
       "- The first row names the columns, in any order. A trace has `at` (time since the start, never going "
       "back; equal times make a step) and `rate` (>= 0); service times have one column, `duration` (> 0).\n"
       "- Cells carry their unit as in YAML (`90s,1200rps`; `12.5ms`), or the header names it once after an "
       "underscore and the cells are plain numbers (`at_s,rate_rps` then `90,1200`; `duration_ms` then `12.5`).\n"
       "- RFC 4180: commas between fields, optional double quotes (`\"\"` for a quote); spaces around a field "
       "and blank lines are ignored, a UTF-8 byte-order mark is skipped; at most 4 MiB.\n"
       "- Paths are relative to the file that holds `file:` (the scenario, or the topology file for its "
       "services), also when set with `--set`; scenario text from `drsim.load_text` resolves against `base_dir` "
       "(default: the current directory). The resolved scenario keeps the `file:` reference, as an absolute "
       "path.\n"
       "- A problem in the file is reported at the `file:` value with the CSV position: `s.yaml:21:15: "
       "spec.load[0].load.file: traces/checkout.csv:14:5: expected a rate with a unit, e.g. \"800rps\", got "
       "\"1200\"`.\n\n";

  MarkdownSections sections;
  sections.add<Scenario>();
  sections.add<TopologyDocument>();
  s += sections.text();

  s += "\n## Action catalog\n\n";
  s += "Each timeline action names one of these in `action`, sets the `target` fields it needs (and no others), and "
       "starts "
       "either `at` a time or after the actions in `startAfter` finish (plus `delay`). An action finishes at its "
       "end when it has a `duration`, otherwise when it starts. An action whose parameters are all optional needs "
       "at least one of them; `pods:kill` takes exactly one of `count` and `percent`. In the fault report "
       "(faults.csv), a fault gets a row with its impact, a repair ends the faults it names on the same target, "
       "and an operator action is mitigation: it gets no row and does not cut a fault's span short.\n\n";
  s += action_catalog_markdown();

  s += "\n## Event kinds\n\n";
  s += "A run's events table (`events.csv`, `Result.events()`) has one row per event: its time, the component "
       "that logged it, its `kind` and a free-text `detail`. A kind is spelled `<area>.<what>`, both in "
       "lowercase snake_case; the area says which model logs it. The timeline logs each step under its action's "
       "name (`zone:fail`, see [Action catalog](#action-catalog)) when it starts, and under the name followed by "
       "`:end` when its `duration` is over. A kind that detects a failure ends the detection time of the "
       "objectives (docs/objectives.md). Formerly: the kind's spelling before every kind followed this rule; "
       "the drill library refuses it and names the kind to use.\n\n";
  s += event_kind_catalog_markdown();
  return s;
}

std::string event_kinds_json() {
  Json kinds = Json::array();
  for (const EventKind& kind : event_kind_catalog()) {
    Json k = Json::object();
    k.set("name", kind.name());
    k.set("formerly", kind.formerly());
    k.set("detectsFailure", kind.detects_failure());
    k.set("doc", kind.doc());
    kinds.push(std::move(k));
  }
  Json root = Json::object();
  root.set("eventKinds", std::move(kinds));
  return root.dump();
}

std::string scenario_json_schema() {
  SchemaDefs defs;
  Json root = Json::object();
  root.set("$schema", "https://json-schema.org/draft/2020-12/schema");
  root.set("title", "drsim scenario or topology file");
  root.set("description",
           "Generated by scenario_json_schema() in io/scenario_docs.cc from the field lists; do not edit. "
           "Checks the shape of a file; names, references and the timeline are checked by drsim itself.");
  Json& one_of = root.set("oneOf", Json::array());
  one_of.push(defs.schema_of<Scenario>(kRequired));
  one_of.push(defs.schema_of<TopologyDocument>(kRequired));

  // What the field lists cannot say: the envelope's fixed values and the
  // catalog's action names.
  Json& d = defs.defs();
  for (const auto& [type, kind] :
       {std::pair{Scenario::kTypeName, kScenarioKind}, std::pair{TopologyDocument::kTypeName, kTopologyKind}}) {
    Json& properties = d.at(type).at("properties");
    properties.at("apiVersion").set("const", Scenario::kApiVersion);
    properties.at("kind").set("const", kind);
  }
  Json names = Json::array();
  for (const ActionSpecInfo& info : action_catalog()) names.push(info.name);
  d.at(ActionConfig::kTypeName).at("properties").at("action").set("enum", std::move(names));

  // serviceDefaults is merged into the services before decoding
  // (io/service_defaults.h), so it is no field of a type: any Service key but
  // the name, none required.
  Json service_defaults = defs.object_of<ServiceConfig>(false, "name");
  service_defaults.set("title", "ServiceDefaults");
  service_defaults.set("description", kServiceDefaultsDoc);
  d.at(DeploymentConfig::kTypeName).at("properties").set(kServiceDefaultsKey, std::move(service_defaults));
  // A service may take its required keys but the name from serviceDefaults:
  // drsim itself reports a key that neither gives.
  Json service_required = Json::array();
  service_required.push("name");
  d.at(ServiceConfig::kTypeName).set("required", std::move(service_required));

  root.set("$defs", std::move(d));
  return root.dump();
}

}  // namespace drsim

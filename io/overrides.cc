#include "io/overrides.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "sim/quote.h"
#include "io/source_map.h"
#include "io/suggest.h"
#include "io/yaml_document.h"

namespace drsim {

namespace {

// "--set <text>", naming the override in messages, with control bytes
// shown as \xNN so that a value holding a line break stays on one line.
std::string label_of(std::string_view text) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out = "--set ";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out.append("\\x").append(1, kHex[byte >> 4]).append(1, kHex[byte & 0xf]);
    } else {
      out += c;
    }
  }
  return out;
}

[[noreturn]] void bad_syntax(std::string_view text, std::string_view expected) {
  throw ScenarioError(
      Diagnostic{.file = label_of(text), .message = "expected " + std::string(expected) + ", got " + quote(text)});
}

std::vector<PathStep> parse_path(std::string_view text, std::string_view whole) {
  constexpr std::string_view kExpected =
      "path=value with a path like spec.timeline[0].at, spec.timeline[name].at, spec.topology.services[*].concurrency "
      "or spec.topology.services[server=eventLoop].maxInFlight";
  std::vector<PathStep> steps;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == '[') {
      const std::size_t close = text.find(']', pos);
      if (steps.empty() || close == std::string_view::npos || close == pos + 1) bad_syntax(whole, kExpected);
      const std::string_view inside = text.substr(pos + 1, close - pos - 1);
      PathStep step{PathStep::Kind::kName, std::string(inside), 0};
      const std::size_t eq = inside.find('=');
      if (inside == "*") {
        step.kind = PathStep::Kind::kAll;
      } else if (eq != std::string_view::npos) {
        if (eq == 0) bad_syntax(whole, "a selector [key=value] with a key before '='");
        step.kind = PathStep::Kind::kMatch;
        step.text = std::string(inside.substr(0, eq));
        step.value = std::string(inside.substr(eq + 1));
      } else if (inside.find_first_not_of("0123456789") == std::string_view::npos) {
        step.kind = PathStep::Kind::kIndex;
        if (inside.size() > 9) bad_syntax(whole, kExpected);  // no list is that long
        step.index = std::stoul(std::string(inside));
      }
      steps.push_back(std::move(step));
      pos = close + 1;
      continue;
    }
    if (!steps.empty()) {
      if (text[pos] != '.') bad_syntax(whole, kExpected);
      ++pos;
    }
    const std::size_t end = text.find_first_of(".[]", pos);
    const std::string_view key = text.substr(pos, end == std::string_view::npos ? end : end - pos);
    if (key.empty()) bad_syntax(whole, kExpected);
    steps.push_back(PathStep{PathStep::Kind::kKey, std::string(key), 0});
    pos += key.size();
  }
  if (steps.empty()) bad_syntax(whole, kExpected);
  return steps;
}

// The steps below select a child of `current` into `child` and extend
// `where`, the path followed so far as the decoder spells it; they return a
// problem, or "" when the step could be followed. Navigation uses reset(),
// never operator=, which in yaml-cpp writes through to the node navigated from.

std::string select_key(YAML::Node& current, const std::string& key, std::string& where, YAML::Node& child) {
  // A key added by an earlier step is not defined yet: it becomes a mapping.
  if (current.IsDefined() && !current.IsMap() && !current.IsNull()) {
    return "expected a mapping to select " + quote(key) + " in, got " + describe_node(current) +
           (current.IsSequence() ? " (select list items with [index] or [name])" : "");
  }
  where += (where.empty() ? "" : ".") + key;
  if (std::optional<YAML::Node> found = find_key(current, key)) {
    child.reset(*found);
  } else {
    // A key that is not there is added (yaml-cpp keeps it out of the tree
    // until a value is stored); the decoder's unknown-key check then catches
    // a misspelled one.
    child.reset(current[key]);
  }
  return "";
}

std::string select_item(const YAML::Node& current, const PathStep& step, std::string& where, YAML::Node& child) {
  const std::string selector = step.kind == PathStep::Kind::kIndex ? std::to_string(step.index) : step.text;
  if (!current.IsSequence()) return "expected a list to select [" + selector + "] in, got " + describe_node(current);
  std::optional<std::size_t> index;
  if (step.kind == PathStep::Kind::kIndex) {
    if (step.index < current.size()) index = step.index;
  } else {
    std::size_t k = 0;
    for (const YAML::Node& item : current) {
      const std::optional<YAML::Node> name = item.IsMap() ? find_key(item, "name") : std::nullopt;
      if (name && name->IsScalar() && name->Scalar() == step.text) {
        index = k;
        break;
      }
      ++k;
    }
  }
  if (!index) {
    where += "[" + selector + "]";
    if (step.kind == PathStep::Kind::kIndex) {
      return "index " + selector + " is out of range (the list has " + std::to_string(current.size()) + " items)";
    }
    std::vector<std::string> names;
    for (const YAML::Node& item : current) {
      const std::optional<YAML::Node> name = item.IsMap() ? find_key(item, "name") : std::nullopt;
      if (name && name->IsScalar()) names.push_back(name->Scalar());
    }
    return unknown_name_message("item", step.text, {names.begin(), names.end()}, "names");
  }
  where += "[" + std::to_string(*index) + "]";
  std::size_t k = 0;
  for (const YAML::Node& item : current) {
    if (k++ == *index) child.reset(item);
  }
  return "";
}

// The scalar at a dotted key of a mapping (cpu.limit, serviceTime.kind), if there is one.
std::optional<std::string> scalar_at(const YAML::Node& item, std::string_view dotted) {
  YAML::Node at;
  at.reset(item);
  std::size_t pos = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', pos);
    const std::string key(dotted.substr(pos, dot == std::string_view::npos ? dot : dot - pos));
    if (!at.IsMap()) return std::nullopt;
    const std::optional<YAML::Node> next = find_key(at, key);
    if (!next) return std::nullopt;
    at.reset(*next);
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  if (!at.IsScalar()) return std::nullopt;
  return at.Scalar();
}

// [*] and [key=value]: every item selected, with its path. A selector that selects nothing is a problem:
// a fleet-wide change that changes nothing is a mistake the user wants to hear of.
std::string select_items(const YAML::Node& current, const PathStep& step, const std::string& where,
                         std::vector<std::pair<YAML::Node, std::string>>& out) {
  const std::string selector = step.kind == PathStep::Kind::kAll ? "*" : step.text + "=" + step.value;
  if (!current.IsSequence()) return "expected a list to select [" + selector + "] in, got " + describe_node(current);
  std::vector<std::string> seen;
  std::size_t k = 0;
  for (const YAML::Node& item : current) {
    const std::optional<std::string> held =
        step.kind == PathStep::Kind::kMatch ? scalar_at(item, step.text) : std::nullopt;
    if (step.kind == PathStep::Kind::kAll || (held && *held == step.value)) {
      YAML::Node child;
      child.reset(item);
      out.emplace_back(child, where + "[" + std::to_string(k) + "]");
    } else if (held && std::find(seen.begin(), seen.end(), *held) == seen.end()) {
      seen.push_back(*held);
    }
    ++k;
  }
  if (!out.empty()) return "";
  if (step.kind == PathStep::Kind::kAll) return "the list is empty: [*] selects nothing";
  if (seen.empty()) return "no item has " + quote(step.text) + " (so none matches [" + selector + "])";
  return unknown_name_message("value of " + step.text, step.value, {seen.begin(), seen.end()}, "values");
}

// Follows the path from step `next` on, from `current` (reached as `where`), and stores the value at every
// place it leads to.
void follow(YAML::Node current, std::string where, const Override& o, std::size_t next, const YAML::Node& value,
            std::vector<OverrideOrigin>& origins, std::vector<Diagnostic>& diagnostics) {
  for (std::size_t i = next; i < o.path.size(); ++i) {
    const PathStep& step = o.path[i];
    if (step.kind == PathStep::Kind::kAll || step.kind == PathStep::Kind::kMatch) {
      std::vector<std::pair<YAML::Node, std::string>> selected;
      const std::string problem = select_items(current, step, where, selected);
      if (!problem.empty()) {
        const std::string selector = step.kind == PathStep::Kind::kAll ? "*" : step.text + "=" + step.value;
        diagnostics.push_back(Diagnostic{.file = o.label, .path = where + "[" + selector + "]", .message = problem});
        return;
      }
      // Each item gets a copy of the value: one node stored in many places would be one value, aliased.
      for (auto& [child, at] : selected) follow(child, at, o, i + 1, YAML::Clone(value), origins, diagnostics);
      return;
    }
    YAML::Node child;
    const std::string problem = step.kind == PathStep::Kind::kKey ? select_key(current, step.text, where, child)
                                                                  : select_item(current, step, where, child);
    if (!problem.empty()) {
      diagnostics.push_back(Diagnostic{.file = o.label, .path = where, .message = problem});
      return;
    }
    current.reset(child);
  }
  current = value;  // writes through: the tree's node now holds the value
  origins.push_back(OverrideOrigin{where, o.label});
}

// Follows one override's path and stores its value there (at every item a [*] or [key=value] selects).
void apply_one(YAML::Node& root, const Override& o, std::vector<OverrideOrigin>& origins,
               std::vector<Diagnostic>& diagnostics) {
  YAML::Node value;  // null for an empty value
  try {
    value = parse_value(o.value, o.label);
  } catch (const ScenarioError& e) {
    for (const Diagnostic& d : e.diagnostics()) diagnostics.push_back(d);
    return;
  }
  YAML::Node current;
  current.reset(root);
  follow(current, "", o, 0, value, origins, diagnostics);
}

// Whether path starts with the keys given.
bool starts_with_keys(const std::vector<PathStep>& path, std::initializer_list<std::string_view> keys) {
  std::size_t i = 0;
  for (std::string_view k : keys) {
    if (i == path.size()) return false;
    if (path[i].kind != PathStep::Kind::kKey || path[i].text != k) return false;
    ++i;
  }
  return true;
}

// Whether path is one of the keys' prefixes: spec or spec.topology for
// {"spec", "topology"}.
bool is_key_prefix(const std::vector<PathStep>& path, std::initializer_list<std::string_view> keys) {
  if (path.size() > keys.size()) return false;
  std::size_t i = 0;
  for (std::string_view k : keys) {
    if (i == path.size()) return true;
    if (path[i].kind != PathStep::Kind::kKey || path[i].text != k) return false;
    ++i;
  }
  return true;
}

}  // namespace

Override parse_override(std::string_view text) {
  // At the first '=' outside brackets: a [key=value] selector holds one of its own. Without such an '=', at the
  // first one, so that the path's own syntax error is the one reported.
  std::size_t eq = std::string_view::npos;
  int depth = 0;
  for (std::size_t i = 0; i < text.size() && eq == std::string_view::npos; ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && depth > 0) --depth;
    if (text[i] == '=' && depth == 0) eq = i;
  }
  if (eq == std::string_view::npos) eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) bad_syntax(text, "path=value");
  return Override{label_of(text), parse_path(text.substr(0, eq), text), std::string(text.substr(eq + 1))};
}

const std::string& origin_of(std::span<const OverrideOrigin> origins, std::string_view path,
                             const std::string& fallback) {
  for (auto it = origins.rbegin(); it != origins.rend(); ++it) {
    if (is_path_prefix(it->path, path)) return it->label;
  }
  return fallback;
}

std::vector<OverrideOrigin> apply_overrides(YAML::Node& root, std::span<const Override> overrides,
                                            std::vector<Diagnostic>& diagnostics) {
  std::vector<OverrideOrigin> origins;
  for (const Override& o : overrides) apply_one(root, o, origins, diagnostics);
  return origins;
}

ScenarioOverrides apply_scenario_overrides(YAML::Node& root, std::span<const Override> overrides,
                                           std::vector<Diagnostic>& diagnostics) {
  ScenarioOverrides out;
  for (const Override& o : overrides) {
    const std::optional<YAML::Node> spec = root.IsMap() ? find_key(root, "spec") : std::nullopt;
    const std::optional<YAML::Node> topology = spec && spec->IsMap() ? find_key(*spec, "topology") : std::nullopt;
    if (o.path.size() > 2 && starts_with_keys(o.path, {"spec", "topology"}) && topology && topology->IsScalar()) {
      Override rewritten = o;
      rewritten.path.erase(rewritten.path.begin() + 1);
      out.topology.push_back(std::move(rewritten));
      continue;
    }
    // A new spec.topology replaces the file the held-back overrides were for.
    if (is_key_prefix(o.path, {"spec", "topology"})) out.topology.clear();
    apply_one(root, o, out.origins, diagnostics);
  }
  return out;
}

}  // namespace drsim

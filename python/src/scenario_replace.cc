#include "python/src/scenario_replace.h"

#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "sim/field_traits.h"
#include "io/overrides.h"
#include "io/scenario_error.h"
#include "io/suggest.h"
#include "io/value_codecs.h"
#include "python/src/config_names.h"
#include "python/src/config_yaml.h"
#include "sim/fields.h"
#include "sim/quote.h"

namespace drsim::python {

namespace {

// ---- following the path ---------------------------------------------------

struct Change {
  std::string path;  // the override's path: YAML keys, the caller's [index] / [name] selectors
  std::string yaml;
};

struct Position {
  std::string where;          // as the decoder spells it: YAML keys, [index]
  std::string override_path;  // as the override will spell it
  bool absent = false;        // inside an optional struct that is not there
};

std::string describe_step(const PathStep& step) {
  return step.kind == PathStep::Kind::kKey
             ? "key " + quote(step.text)
             : "[" + (step.kind == PathStep::Kind::kIndex ? std::to_string(step.index) : step.text) + "]";
}

template <class V>
Change follow(const V& value, std::span<const PathStep> steps, Position at, py::handle new_value);

template <class E>
Change follow_item(const std::vector<E>& list, std::span<const PathStep> steps, Position at, py::handle new_value) {
  const PathStep& step = steps.front();
  if (step.kind == PathStep::Kind::kKey) {
    fail(at.where, "expected [index] or [name] to select an item of the list, got " + describe_step(step));
  }
  std::optional<std::size_t> index;
  std::string selector;
  if (step.kind == PathStep::Kind::kIndex) {
    selector = std::to_string(step.index);
    if (step.index >= list.size()) {
      fail(at.where + "[" + selector + "]",
           "index " + selector + " is out of range (the list has " + std::to_string(list.size()) + " items)");
    }
    index = step.index;
  } else {
    selector = step.text;
    std::vector<std::string_view> names;
    if constexpr (Described<E>) {
      for (std::size_t i = 0; i < list.size(); ++i) {
        for_each_field<E>([&](const auto& f) {
          if constexpr (std::is_same_v<FieldValue<decltype(f)>, std::string>) {
            if (f.key != "name") return;
            names.push_back(list[i].*f.member);
            if (!index && list[i].*f.member == step.text) index = i;
          }
        });
      }
    }
    if (names.empty()) fail(at.where, "the items of this list have no names; select them with [index]");
    if (!index) fail(at.where + "[" + selector + "]", unknown_name_message("item", step.text, names, "names"));
  }
  Position next{at.where + "[" + std::to_string(*index) + "]", at.override_path + "[" + selector + "]", at.absent};
  return follow(list[*index], steps.subspan(1), std::move(next), new_value);
}

template <Described T>
Change follow_field(const T& value, std::span<const PathStep> steps, const Position& at, py::handle new_value) {
  const PathStep& step = steps.front();
  if (step.kind != PathStep::Kind::kKey) {
    fail(at.where, "expected a key to select a field of " + std::string(T::kTypeName) + ", got " + describe_step(step));
  }
  const std::optional<std::size_t> index = field_index<T>(step.text);
  if (!index)
    fail(child_path(at.where, step.text), unknown_name_message("key", step.text, yaml_keys<T>(), "valid keys"));
  std::optional<Change> change;
  std::size_t i = 0;
  for_each_field<T>([&](const auto& f) {
    if (i++ != *index) return;
    using V = FieldValue<decltype(f)>;
    Position next{child_path(at.where, f.key), child_path(at.override_path, f.key), at.absent};
    if (steps.size() == 1 && new_value.is_none()) {
      if constexpr (IsOptional<V>::value) {
        if (at.where.empty()) fail(next.where, "the document's own fields cannot be unset");
        if (at.absent) fail(next.where, "nothing to unset: " + at.where + " is not there");
        // None unsets: the struct is written out again without the field.
        T without = value;
        (without.*f.member).reset();
        change = Change{at.override_path, cpp_to_yaml(without)};
        return;
      }
      fail(next.where, "expected " + expected_value<V>() + ", got None (only optional fields can be unset)");
    }
    change = follow(value.*f.member, steps.subspan(1), std::move(next), new_value);
  });
  return std::move(*change);
}

template <class V>
Change follow(const V& value, std::span<const PathStep> steps, Position at, py::handle new_value) {
  if (steps.empty()) return Change{at.override_path, python_to_yaml<V>(new_value, at.where)};
  if constexpr (IsOptional<V>::value) {
    if (value) return follow(*value, steps, std::move(at), new_value);
    // Overrides may set a key inside an optional struct that is absent: it
    // is created. Its type is what matters here.
    const typename V::value_type empty{};
    at.absent = true;
    return follow(empty, steps, std::move(at), new_value);
  } else if constexpr (IsVector<V>::value) {
    return follow_item(value, steps, std::move(at), new_value);
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    return follow(value.config, steps, std::move(at), new_value);
  } else if constexpr (Described<V>) {
    return follow_field(value, steps, at, new_value);
  } else {
    fail(at.where, "a " + std::string(ValueCodec<V>::kName) + " has no fields or items to select (" +
                       describe_step(steps.front()) + ")");
  }
}

std::vector<PathStep> parse_path(const std::string& path) {
  constexpr std::string_view kExpected = "a path like spec.load[0].load.rate or spec.timeline[fail-a].at";
  if (path.empty() || path.find('=') != std::string::npos)
    fail("", "expected " + std::string(kExpected) + ", got " + quote(path));
  try {
    return parse_override(path + "=").path;
  } catch (const ScenarioError&) {
    fail("", "expected " + std::string(kExpected) + ", got " + quote(path));
  }
}

}  // namespace

std::vector<std::string> replacement_overrides(const Scenario& scenario, const py::handle& changes) {
  if (!is_mapping(changes)) {
    throw py::type_error("changes are a mapping {path: value}, e.g. {\"spec.load[0].load.rate\": 500.0}, not " +
                         type_name(changes));
  }
  std::vector<std::string> out;
  for (const auto& item : changes.attr("items")()) {
    const py::tuple pair = py::reinterpret_borrow<py::tuple>(item);
    if (!py::isinstance<py::str>(pair[0])) {
      throw py::type_error("a path is a str such as \"spec.seed\", not " + type_name(pair[0]));
    }
    std::string path;
    try {
      path = utf8_of(pair[0]);
    } catch (const ValueMismatch& e) {
      fail("", "a path: " + e.message);
    }
    const std::vector<PathStep> steps = parse_path(path);
    const Change change = follow(scenario, std::span<const PathStep>(steps), Position{}, pair[1]);
    out.push_back(change.path + "=" + change.yaml);
  }
  return out;
}

}  // namespace drsim::python

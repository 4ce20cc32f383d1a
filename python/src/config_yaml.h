#pragma once
// Config values <-> YAML flow text, by the field lists: a C++ value as the
// resolved-scenario writer spells it (io's writer, io/config_encode.h), and a
// Python value (a leaf, a dict of fields, a config view, a list) as the text
// the scenario decoder reads for a field of type V. Shared by Scenario.replace() (python/src/scenario_replace.cc)
// and the keyword constructors of drsim.config (python/src/config_construct.cc),
// so that both accept exactly the same Python values. The conversion only
// checks Python types; the decoder then checks the values, as for a file.
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "io/config_encode.h"
#include "io/csv_inputs.h"
#include "sim/field_traits.h"
#include "io/scenario_error.h"
#include "io/suggest.h"
#include "io/value_codecs.h"
#include "python/src/bindings.h"
#include "python/src/config_leaves.h"
#include "python/src/config_names.h"
#include "python/src/config_views.h"
#include "sim/fields.h"
#include "sim/quote.h"

namespace drsim::python {

[[noreturn]] inline void fail(const std::string& where, std::string message) {
  throw ScenarioError(Diagnostic{.path = where, .message = std::move(message)});
}

inline std::string child_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

template <Described T>
std::vector<std::string_view> yaml_keys() {
  std::vector<std::string_view> keys;
  for_each_field<T>([&](const auto& f) { keys.push_back(f.key); });
  return keys;
}

// The index of T's field named `text` (YAML key or Python name).
template <Described T>
std::optional<std::size_t> field_index(std::string_view text) {
  std::optional<std::size_t> found;
  std::size_t i = 0;
  for_each_field<T>([&](const auto& f) {
    if (!found && names_field(text, f.key)) found = i;
    ++i;
  });
  return found;
}

// ---- C++ values -> YAML text ----------------------------------------------

// A value as the resolved-scenario writer spells it: a struct by io's writer
// (io/config_encode.h, absent optionals and CSV-filled values left out), a
// list or an optional around one peeled here, a leaf in its unit text.
template <class V>
std::string cpp_to_yaml(const V& value) {
  if constexpr (IsOptional<V>::value) {
    return cpp_to_yaml(*value);
  } else if constexpr (IsVector<V>::value) {
    std::string out = "[";
    for (const auto& item : value) out += (out.size() > 1 ? ", " : "") + cpp_to_yaml(item);
    return out + "]";
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    return encode_config(value.config);
  } else if constexpr (Described<V>) {
    return encode_config(value);
  } else {
    return leaf_yaml(value);
  }
}

// Whether a field holds what a CSV file filled in (io/csv_inputs.h): its
// `file:` stands for it, as in the resolved-scenario writer.
template <class T>
bool from_file(const T& value, std::string_view key) {
  if constexpr (requires { filled_from_file(value, key); }) return filled_from_file(value, key);
  return false;
}

// ---- Python values -> YAML text -------------------------------------------

// How a message names what a field of type V takes.
template <class V>
std::string expected_value() {
  if constexpr (IsOptional<V>::value) {
    return expected_value<typename V::value_type>();
  } else if constexpr (IsVector<V>::value) {
    return "a list (" + annotation<V>() + ")";
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    return "a topology file path (str), a mapping, or a drsim.config.Topology";
  } else if constexpr (Described<V>) {
    return "a mapping of " + std::string(V::kTypeName) + " fields or a drsim.config." + std::string(V::kTypeName);
  } else {
    return std::string(leaf_annotation<V>());
  }
}

template <class V>
std::string python_to_yaml(py::handle value, const std::string& where);

template <Described T>
std::string mapping_to_yaml(py::handle value, const std::string& where) {
  const std::vector<std::string_view> keys = yaml_keys<T>();
  std::vector<bool> seen(keys.size());
  std::string out = "{";
  for (const auto& item : value.attr("items")()) {
    const py::tuple pair = py::reinterpret_borrow<py::tuple>(item);
    if (!py::isinstance<py::str>(pair[0])) fail(where, "expected field names (str) as keys, got " + type_name(pair[0]));
    std::string key;
    try {
      key = utf8_of(pair[0]);
    } catch (const ValueMismatch& e) {
      fail(where, "a field name: " + e.message);
    }
    const std::optional<std::size_t> index = field_index<T>(key);
    if (!index) fail(child_path(where, key), unknown_name_message("key", key, keys, "valid keys"));
    if (seen[*index])
      fail(child_path(where, keys[*index]), "the field is given twice (by its YAML key and its Python name)");
    seen[*index] = true;
    std::size_t i = 0;
    for_each_field<T>([&](const auto& f) {
      if (i++ != *index) return;
      using V = FieldValue<decltype(f)>;
      const std::string path = child_path(where, f.key);
      if (pair[1].is_none()) {
        if constexpr (IsOptional<V>::value) return;  // absent
        fail(path, "expected " + expected_value<V>() + ", got None (only optional fields can be left out this way)");
      }
      if (out.size() > 1) out += ", ";
      out += std::string(f.key) + ": " + python_to_yaml<V>(pair[1], path);
    });
  }
  return out + "}";
}

inline bool is_mapping(py::handle value) {
  return py::isinstance(value, py::module_::import("collections.abc").attr("Mapping"));
}

template <class V>
std::string python_to_yaml(py::handle value, const std::string& where) {
  if constexpr (IsOptional<V>::value) {
    if (value.is_none()) fail(where, "expected " + expected_value<V>() + ", got None");
    return python_to_yaml<typename V::value_type>(value, where);
  } else if constexpr (IsVector<V>::value) {
    const bool iterable = py::isinstance<py::iterable>(value);
    if (!iterable || py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value) || is_mapping(value)) {
      fail(where, "expected " + expected_value<V>() + ", got " + type_name(value));
    }
    std::string out = "[";
    std::size_t i = 0;
    for (const py::handle item : value) {
      if (out.size() > 1) out += ", ";
      out += python_to_yaml<typename V::value_type>(item, where + "[" + std::to_string(i++) + "]");
    }
    return out + "]";
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    try {
      if (py::isinstance<py::str>(value)) return yaml_scalar(utf8_of(value));
      if (py::isinstance(value, py::module_::import("os").attr("PathLike"))) {
        // fsdecode gives undecodable bytes as lone surrogates, which utf8_of refuses.
        return yaml_scalar(utf8_of(py::module_::import("os").attr("fsdecode")(value)));
      }
    } catch (const ValueMismatch& e) {
      fail(where, e.message);
    }
    return python_to_yaml<DeploymentConfig>(value, where);
  } else if constexpr (Described<V>) {
    if (py::isinstance<V>(value)) return cpp_to_yaml(value.cast<const V&>());
    if (is_mapping(value)) return mapping_to_yaml<V>(value, where);
    fail(where, "expected " + expected_value<V>() + ", got " + type_name(value));
  } else {
    try {
      return leaf_to_yaml<V>(value);
    } catch (const ValueMismatch& e) {
      fail(where, e.message);
    }
  }
}

}  // namespace drsim::python

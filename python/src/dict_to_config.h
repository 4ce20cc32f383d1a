#pragma once
// A Python dict read straight into a described struct (sim/fields.h), key by
// key through its field list: for the small objects the kube functions take
// as arguments (the HPA behavior, a deployment policy, pods, metric samples,
// zones), where building YAML text for the scenario decoder
// (python/src/config_yaml.h) would be a detour. The keys are the field
// list's, so they cannot drift from the C++ struct.
//
// Unknown keys are refused with the closest valid one (a typo would
// otherwise keep a default); None leaves an optional field absent; a missing
// required key is an error. Errors name the path ("pods[0].phase: ..."): a
// value of the wrong Python type raises TypeError, a wrong value ValueError.
//
// Leaves, as python/src/config_leaves.h has them where the two overlap:
//   str, bool, integers (range-checked), float, Ratio (a fraction or "67%"),
//   Duration (seconds, a timedelta or text such as "30s"; may be negative,
//     for times before the start of the run),
//   MilliQuantity (a number in its natural unit or a Kubernetes quantity
//     such as "500m"; kept in milli-units, rounded up),
//   CpuQuantity (cores, or text such as "500m"),
//   PodPhase and ConditionStatus (their names in any case; a condition also
//     as a bool).
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <pybind11/pybind11.h>

#include "io/suggest.h"
#include "models/kube/kube_quantity.h"
#include "models/kube/kube_records.h"
#include "python/src/bindings.h"
#include "python/src/config_leaves.h"
#include "sim/config_problem.h"
#include "sim/field_traits.h"
#include "sim/fields.h"
#include "sim/quote.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim::python {

// `type`: the value's Python type is wrong (TypeError), else its value (ValueError).
[[noreturn]] inline void dict_mismatch(const std::string& path, const std::string& message, bool type) {
  const std::string text = path + ": " + message;
  if (type) throw py::type_error(text);
  throw std::invalid_argument(text);
}

// A number or a quantity string, in milli-units. Python ints go through their
// exact text, floats through their shortest text (repr), so 0.3 is 300.
inline MilliQuantity milli_quantity_from_python(py::handle value) {
  if (py::isinstance<py::str>(value)) return parse_kube_quantity(utf8_of(value));
  if (is_integer(value)) return parse_kube_quantity(py::str(value).cast<std::string>());
  if (is_real_number(value)) {
    const double v = finite_float(value, "a number");
    char buf[32];
    const auto result = std::to_chars(buf, buf + sizeof buf, v);
    return parse_kube_quantity(std::string_view(buf, static_cast<std::size_t>(result.ptr - buf)));
  }
  throw ValueMismatch{"expected a number or a quantity string such as \"500m\", got " + type_name(value)};
}

template <class T>
T leaf_from_python(py::handle value, const std::string& path) {
  try {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!py::isinstance<py::str>(value)) throw ValueMismatch{"expected a str, got " + type_name(value)};
      return utf8_of(value);
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!is_python_bool(value)) throw ValueMismatch{"expected a bool, got " + type_name(value)};
      return value.cast<bool>();
    } else if constexpr (std::is_integral_v<T>) {
      const std::int64_t v = int64_of(value, "an int");
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
        dict_mismatch(path,
                      "expected an int between " + std::to_string(std::numeric_limits<T>::min()) + " and " +
                          std::to_string(std::numeric_limits<T>::max()) + ", got " + std::to_string(v),
                      false);
      }
      return static_cast<T>(v);
    } else if constexpr (std::is_same_v<T, double>) {
      return finite_float(value, "a number");
    } else if constexpr (std::is_same_v<T, Ratio>) {
      // A fraction (0.67) or a percentage as text ("67%"), as everywhere in the Python API.
      if (py::isinstance<py::str>(value)) return parse_ratio(utf8_of(value));
      return Ratio{finite_float(value, "a fraction (0.67) or a percentage such as \"67%\"")};
    } else if constexpr (std::is_same_v<T, Duration>) {
      if (py::isinstance<py::str>(value)) return parse_duration(utf8_of(value));
      return Duration{duration_ns(value, "seconds, a timedelta or text such as \"30s\"")};
    } else if constexpr (std::is_same_v<T, MilliQuantity>) {
      return milli_quantity_from_python(value);
    } else if constexpr (std::is_same_v<T, CpuQuantity>) {
      // Cores, or text such as "500m" (an HPA's resource averageValue); read
      // through the scenario's own parser, so a value finer than a
      // millicore is refused here as in a file.
      if (py::isinstance<py::str>(value)) return parse_cpu(utf8_of(value));
      char buf[32];
      const auto result = std::to_chars(buf, buf + sizeof buf, finite_float(value, "cores or text such as \"500m\""));
      return parse_cpu(std::string_view(buf, static_cast<std::size_t>(result.ptr - buf)));
    } else if constexpr (std::is_same_v<T, PodPhase>) {
      if (!py::isinstance<py::str>(value)) throw ValueMismatch{"expected a phase as a str, got " + type_name(value)};
      return parse_pod_phase(utf8_of(value));
    } else if constexpr (std::is_same_v<T, ConditionStatus>) {
      if (is_python_bool(value)) return value.cast<bool>() ? ConditionStatus::kTrue : ConditionStatus::kFalse;
      if (!py::isinstance<py::str>(value)) {
        throw ValueMismatch{"expected True, False or \"Unknown\", got " + type_name(value)};
      }
      return parse_condition_status(utf8_of(value));
    } else {
      static_assert(!sizeof(T), "a leaf type python/src/dict_to_config.h does not convert yet");
    }
  } catch (const ValueMismatch& e) {
    dict_mismatch(path, e.message, true);
  } catch (const std::invalid_argument& e) {
    dict_mismatch(path, e.what(), false);
  }
}

template <class T>
void from_python(py::handle value, T& out, const std::string& path);

template <Described T>
void struct_from_python(py::handle value, T& out, const std::string& path) {
  if (!py::isinstance<py::dict>(value)) {
    dict_mismatch(path, "expected a dict (" + std::string(T::kTypeName) + "), got " + type_name(value), true);
  }
  std::vector<std::string_view> keys;
  for_each_field<T>([&keys](const auto& f) { keys.push_back(f.key); });
  std::vector<bool> seen(keys.size(), false);
  const auto dict = py::reinterpret_borrow<py::dict>(value);
  for (const auto& [key, item_value] : dict) {
    if (!py::isinstance<py::str>(key)) dict_mismatch(path, "keys are str, not " + type_name(key), true);
    const auto name = utf8_of(key);
    std::size_t index = 0;
    while (index < keys.size() && keys[index] != name) ++index;
    if (index == keys.size()) dict_mismatch(path, unknown_name_message("key", name, keys, "valid keys"), false);
    seen[index] = true;
    std::size_t i = 0;
    for_each_field<T>([&](const auto& f) {
      if (i++ == index) from_python(item_value, out.*f.member, path + "." + name);
    });
  }
  std::size_t i = 0;
  for_each_field<T>([&](const auto& f) {
    if (f.required() && !seen[i]) dict_mismatch(path, "missing required key " + quote(f.key), false);
    ++i;
  });
}

template <class T>
void from_python(py::handle value, T& out, const std::string& path) {
  if constexpr (IsOptional<T>::value) {
    if (value.is_none()) {
      out.reset();
      return;
    }
    typename T::value_type inner{};
    from_python(value, inner, path);
    out = std::move(inner);
  } else if constexpr (IsVector<T>::value) {
    if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value)) {
      dict_mismatch(path, "expected a list, got " + type_name(value), true);
    }
    out.clear();
    std::size_t i = 0;
    for (const py::handle element : value) {
      typename T::value_type v{};
      from_python(element, v, path + "[" + std::to_string(i++) + "]");
      out.push_back(std::move(v));
    }
  } else if constexpr (Described<T>) {
    struct_from_python(value, out, path);
  } else {
    if (value.is_none()) dict_mismatch(path, "expected a value, got None", true);
    out = leaf_from_python<T>(value, path);
  }
}

// A config's validate() problems as one ValueError, every problem on its line.
inline void raise_problems(const std::vector<ConfigProblem>& problems, const std::string& path) {
  if (problems.empty()) return;
  std::string text;
  for (const ConfigProblem& p : problems) {
    if (!text.empty()) text += "\n";
    text += path + "." + p.field + ": " + p.message;
  }
  throw std::invalid_argument(text);
}

// One T from a dict, checked by its validate() where it has one.
template <Described T>
T config_from_dict(py::handle value, const std::string& path) {
  T out;
  from_python(value, out, path);
  if constexpr (requires { out.validate(); }) raise_problems(out.validate(), path);
  return out;
}

// A list of dicts, each a T; `name` is the argument ("pods"), items are "pods[i]".
template <Described T>
std::vector<T> configs_from_list(py::handle list, const std::string& name) {
  if (!py::isinstance<py::list>(list) && !py::isinstance<py::tuple>(list)) {
    dict_mismatch(name, "expected a list, got " + type_name(list), true);
  }
  std::vector<T> out;
  std::size_t i = 0;
  for (const py::handle item : list) out.push_back(config_from_dict<T>(item, name + "[" + std::to_string(i++) + "]"));
  return out;
}

}  // namespace drsim::python

#pragma once
// Read-only Python classes for the config structs, generated from their
// field lists (sim/fields.h): the walk that the YAML decoder and writer do,
// done once more for Python. Binding a struct binds the structs its fields
// hold, so a field or a struct added to a config later appears in Python
// with no change here.
//
// A view holds a pointer into the loaded Scenario and keeps it alive (a
// value built from keywords owns its struct: python/src/config_construct.h,
// which adds the constructors, _replace() and pickling); it has
// one read-only property per field (named by python_name(), documented by
// the field's doc string), and the value protocols: repr, == and hash by
// value, _asdict(), _fields. Lists of structs are drsim.config.ConfigList
// (index or item name), lists of leaves tuples, absent optionals None; leaf
// values follow python/src/config_leaves.h.
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include <pybind11/pybind11.h>

#include "sim/field_traits.h"
#include "io/scenario.h"
#include "io/value_codecs.h"
#include "python/src/bindings.h"
#include "python/src/config_leaves.h"
#include "python/src/config_names.h"
#include "sim/fields.h"

namespace drsim::python {

// drsim.config.ConfigList(items): a read-only list whose items can also be
// looked up by name.
py::object make_config_list(py::tuple items);

// The Python type annotation of a field type: "float | None",
// "ConfigList[Region]", "tuple[str, ...]".
template <class V>
std::string annotation() {
  if constexpr (IsOptional<V>::value) {
    return annotation<typename V::value_type>() + " | None";
  } else if constexpr (IsVector<V>::value) {
    using E = typename V::value_type;
    if constexpr (Described<E>)
      return "ConfigList[" + std::string(E::kTypeName) + "]";
    else
      return "tuple[" + annotation<E>() + ", ...]";
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    return std::string(DeploymentConfig::kTypeName);
  } else if constexpr (Described<V>) {
    return std::string(V::kTypeName);
  } else {
    static_assert(Leaf<V>, "a config field type the Python bindings do not know; see python/src/config_views.h");
    return std::string(leaf_annotation<V>());
  }
}

// The unit of a field's leaves, "" when it has none.
template <class V>
constexpr std::string_view field_unit() {
  return leaf_unit<typename ElementOf<V>::type>();
}

// The docstring of a field's property: its doc, then what Python gets.
template <class Info>
std::string field_docstring(const Info& f) {
  using V = FieldValue<Info>;
  std::string doc = std::string(f.doc) + "\n\n" + annotation<V>();
  if (!field_unit<V>().empty()) doc += ", " + std::string(field_unit<V>());
  doc += ". YAML key: " + std::string(f.key);
  if (f.required()) doc += " (required)";
  return doc + ".";
}

// ---- values ---------------------------------------------------------------

// The Python value of a field: a view for a struct (kept alive through
// `owner`, the view of the struct that holds it), a converted leaf otherwise.
template <class V>
py::object to_view(const V& value, py::handle owner) {
  if constexpr (IsOptional<V>::value) {
    return value ? to_view(*value, owner) : py::none();
  } else if constexpr (IsVector<V>::value) {
    py::tuple items(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) items[i] = to_view(value[i], owner);
    if constexpr (Described<typename V::value_type>)
      return make_config_list(std::move(items));
    else
      return items;
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    return to_view(value.config, owner);
  } else if constexpr (Described<V>) {
    return py::cast(&value, py::return_value_policy::reference_internal, owner);
  } else {
    return leaf_to_python(value);
  }
}

// Plain Python data: dicts keyed by Python names, lists, leaves (_asdict()).
template <class V>
py::object to_plain(const V& value) {
  if constexpr (IsOptional<V>::value) {
    return value ? to_plain(*value) : py::none();
  } else if constexpr (IsVector<V>::value) {
    py::list items;
    for (const auto& item : value) items.append(to_plain(item));
    return items;
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    return to_plain(value.config);
  } else if constexpr (Described<V>) {
    py::dict out;
    for_each_field<V>([&](const auto& f) { out[py::str(python_name(f.key))] = to_plain(value.*f.member); });
    return out;
  } else {
    return leaf_to_python(value);
  }
}

// Equality by value, field by field.
template <class V>
bool config_equal(const V& a, const V& b) {
  if constexpr (IsOptional<V>::value) {
    if (a.has_value() != b.has_value()) return false;
    return !a || config_equal(*a, *b);
  } else if constexpr (IsVector<V>::value) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!config_equal(a[i], b[i])) return false;
    }
    return true;
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    return config_equal(a.config, b.config);
  } else if constexpr (Described<V>) {
    bool equal = true;
    for_each_field<V>([&](const auto& f) { equal = equal && config_equal(a.*f.member, b.*f.member); });
    return equal;
  } else {
    return a == b;
  }
}

// ---- classes --------------------------------------------------------------

// The classes bound so far, in binding order: _core._config_classes.
void register_config_class(py::module_& m, py::handle cls);

template <class V>
void bind_types_of(py::module_& m);

// The field properties and the value protocols of a config class.
// `value_protocols`: repr, ==, hash, copy (left out for the root Scenario,
// which has its own).
template <Described T>
void define_config_members(py::class_<T>& cls, py::module_& m, bool value_protocols) {
  py::list names;
  py::list table;
  for_each_field<T>([&](const auto& f) {
    const std::string name = python_name(f.key);
    if (py::hasattr(cls, name.c_str())) {
      throw std::logic_error("drsim._core." + std::string(T::kTypeName) + ": the field \"" + std::string(f.key) +
                             "\" becomes the attribute \"" + name + "\", which the class already has");
    }
    const auto member = f.member;
    cls.def_property_readonly(
        name.c_str(), [member](py::object self) { return to_view(self.cast<const T&>().*member, self); },
        field_docstring(f).c_str());
    names.append(name);
    using V = FieldValue<decltype(f)>;
    table.append(py::make_tuple(name, std::string(f.key), std::string(f.doc), annotation<V>(),
                                std::string(field_unit<V>()), f.required()));
  });
  cls.attr("_fields") = py::tuple(names);
  cls.attr("_field_table") = py::tuple(table);
  cls.def(
      "_asdict", [](const T& self) { return to_plain(self); },
      "The values as plain data: dicts keyed by attribute name, lists, None for absent values.");
  if (value_protocols) {
    cls.def("__repr__", [](py::object self) {
      std::string out = std::string(T::kTypeName) + "(";
      bool first = true;
      for_each_field<T>([&](const auto& f) {
        if (!first) out += ", ";
        first = false;
        out += python_name(f.key) + "=" +
               py::repr(to_view(self.cast<const T&>().*f.member, self)).template cast<std::string>();
      });
      return out + ")";
    });
    cls.def("__eq__", [](const T& self, py::object other) -> py::object {
      if (!py::isinstance<T>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      return py::bool_(config_equal(self, other.cast<const T&>()));
    });
    cls.def("__hash__", [](py::object self) {
      py::list values;
      for_each_field<T>([&](const auto& f) { values.append(to_view(self.cast<const T&>().*f.member, self)); });
      return py::hash(py::tuple(values));
    });
    // Views are immutable: a copy is the view itself.
    cls.def("__copy__", [](py::object self) { return self; });
    cls.def(
        "__deepcopy__", [](py::object self, py::handle) { return self; }, py::arg("memo"));
  }
  register_config_class(m, cls);
  for_each_field<T>([&](const auto& f) { bind_types_of<FieldValue<decltype(f)>>(m); });
}

// Binds T as drsim._core.<kTypeName>, once.
template <Described T>
void bind_config_class(py::module_& m) {
  if (py::detail::get_type_info(typeid(T)) != nullptr) return;
  const std::string name(T::kTypeName);
  if (py::hasattr(m, name.c_str())) {
    throw std::logic_error("drsim._core already has an attribute \"" + name +
                           "\"; config types (kTypeName) need "
                           "names of their own in Python");
  }
  const std::string doc = name +
                          " settings: a read-only view into a loaded scenario, or a value built with " + name +
                          "(**fields) (see __init__). Attributes follow the YAML keys in snake_case; units are "
                          "described in drsim.config.";
  py::class_<T> cls(m, name.c_str(), doc.c_str());
  define_config_members(cls, m, /*value_protocols=*/true);
}

template <class V>
void bind_types_of(py::module_& m) {
  if constexpr (IsOptional<V>::value || IsVector<V>::value) {
    bind_types_of<typename V::value_type>(m);
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    bind_config_class<DeploymentConfig>(m);
  } else if constexpr (Described<V>) {
    bind_config_class<V>(m);
  }
}

}  // namespace drsim::python

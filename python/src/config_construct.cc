#include "python/src/config_construct.h"

#include <pybind11/pybind11.h>

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <vector>

#include "io/config_decode.h"
#include "sim/field_traits.h"
#include "io/scenario.h"
#include "io/suggest.h"
#include "python/src/config_leaves.h"
#include "python/src/config_names.h"
#include "python/src/config_yaml.h"
#include "sim/fields.h"
#include "sim/units.h"

namespace drsim::python {

namespace {

// ---- what a keyword takes, for the stubs ----------------------------------

// The Python types a field's keyword accepts: wider than what the attribute
// gives back (annotation<V>() in config_views.h), as text with a unit and
// dicts for structs are accepted too.
template <class V>
std::string input_annotation() {
  if constexpr (IsOptional<V>::value) {
    return input_annotation<typename V::value_type>() + " | None";
  } else if constexpr (IsVector<V>::value) {
    return "Iterable[" + input_annotation<typename V::value_type>() + "]";
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    return "str | Topology | Mapping[str, Any]";
  } else if constexpr (Described<V>) {
    return std::string(V::kTypeName) + " | Mapping[str, Any]";
  } else if constexpr (std::is_same_v<V, Duration>) {
    return "float | str | timedelta";
  } else if constexpr (std::is_same_v<V, Rate> || std::is_same_v<V, Bandwidth> || std::is_same_v<V, Ratio> ||
                       std::is_same_v<V, CpuQuantity>) {
    return "float | str";
  } else if constexpr (std::is_same_v<V, ByteSize>) {
    return "int | str";
  } else {
    return std::string(leaf_annotation<V>());
  }
}

// ---- keywords -> fields ---------------------------------------------------

template <Described T>
std::vector<std::string> keyword_names() {
  std::vector<std::string> names;
  for_each_field<T>([&](const auto& f) { names.push_back(python_name(f.key)); });
  return names;
}

template <Described T>
std::string keyword_list() {
  std::string out;
  for (const std::string& name : keyword_names<T>()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// The value given for each field, by field index (null where none is), or
// TypeError for a keyword that names no field or a field named twice (by
// its Python name and its YAML key), as a Python signature would.
template <Described T>
std::vector<py::handle> given_fields(const py::kwargs& kwargs, const std::string& callee) {
  const std::vector<std::string> names = keyword_names<T>();
  std::vector<py::handle> given(names.size());
  for (const auto& [key, value] : kwargs) {
    std::string text;
    try {
      text = utf8_of(key);
    } catch (const ValueMismatch& e) {
      throw py::type_error(callee + ": a keyword argument: " + e.message);
    }
    const std::optional<std::size_t> index = field_index<T>(text);
    if (!index) {
      const std::vector<std::string_view> known(names.begin(), names.end());
      throw py::type_error(callee + ": " + unknown_name_message("keyword argument", text, known, "valid keywords"));
    }
    if (given[*index]) {
      throw py::type_error(callee + ": the field " + names[*index] +
                           " is given twice (by its Python name and its YAML key)");
    }
    given[*index] = value;
  }
  return given;
}

// The YAML mapping of a T: the given fields converted from Python (None
// leaves an optional one out), the others copied from `base` as the
// resolved-scenario writer spells them, or, without a base, left to the
// decoder's defaults.
template <Described T>
std::string fields_to_yaml(const T* base, const std::vector<py::handle>& given) {
  const std::string root(T::kTypeName);
  std::string out = "{";
  std::size_t i = 0;
  for_each_field<T>([&](const auto& f) {
    using V = FieldValue<decltype(f)>;
    const py::handle value = given[i++];
    std::string text;
    if (value) {
      if (value.is_none()) {
        if constexpr (IsOptional<V>::value) {
          return;
        } else {
          fail(child_path(root, f.key),
               "expected " + expected_value<V>() + ", got None (only optional fields can be left unset)");
        }
      }
      text = python_to_yaml<V>(value, child_path(root, f.key));
    } else if (base != nullptr) {
      const auto& member = base->*f.member;
      if constexpr (IsOptional<V>::value) {
        if (!member) return;
      }
      if (from_file(*base, f.key)) return;  // its `file` stands for it
      text = cpp_to_yaml(member);
    } else {
      return;
    }
    if (out.size() > 1) out += ", ";
    out += std::string(f.key) + ": " + text;
  });
  return out + "}";
}

template <Described T>
T construct(const py::args& args, const py::kwargs& kwargs) {
  const std::string callee = std::string(T::kTypeName) + "()";
  if (!args.empty()) {
    throw py::type_error(callee + " takes keyword arguments only, one per field (" + keyword_list<T>() + "); got " +
                         std::to_string(args.size()) + " positional");
  }
  const std::vector<py::handle> given = given_fields<T>(kwargs, callee);
  std::string missing;
  std::size_t i = 0;
  for_each_field<T>([&](const auto& f) {
    if (f.required() && !given[i]) missing += (missing.empty() ? "" : ", ") + python_name(f.key);
    ++i;
  });
  if (!missing.empty()) throw py::type_error(callee + " missing required keyword arguments: " + missing);
  return decode_config<T>(fields_to_yaml<T>(nullptr, given), std::string(T::kTypeName));
}

template <Described T>
T replaced(const T& self, const py::args& args, const py::kwargs& kwargs) {
  const std::string callee = std::string(T::kTypeName) + "._replace()";
  if (!args.empty()) throw py::type_error(callee + " takes keyword arguments only, one per field to change");
  return decode_config<T>(fields_to_yaml<T>(&self, given_fields<T>(kwargs, callee)), std::string(T::kTypeName));
}

// The roots are whole documents: their cross-references need a loader.
constexpr std::string_view kRootMessage =
    " is not built from keywords: load a scenario with drsim.load(path) or drsim.load_text(text), and derive "
    "others with Scenario.replace(...)";

// ---- binding --------------------------------------------------------------

template <class V>
void define_construction_of(std::set<std::type_index>& done);

template <Described T>
void define_construction(std::set<std::type_index>& done) {
  if (!done.insert(typeid(T)).second) return;
  auto cls = py::reinterpret_borrow<py::class_<T>>(py::type::of<T>());
  const std::string name(T::kTypeName);
  py::list inputs;
  for_each_field<T>([&](const auto& f) { inputs.append(input_annotation<FieldValue<decltype(f)>>()); });
  cls.attr("_field_input_types") = py::tuple(inputs);

  if constexpr (std::is_same_v<T, Scenario>) {
    // The root is drsim.Scenario's own class, with its own methods.
  } else if constexpr (std::is_same_v<T, ScenarioSpec>) {
    cls.attr("__doc__") = name + " settings of a loaded scenario (a read-only view). A " + name +
                          std::string(kRootMessage) +
                          ". Attributes follow the YAML keys in snake_case; units are described in drsim.config.";
    cls.def(py::init([name](const py::args&, const py::kwargs&) -> T {
              throw py::type_error(name + std::string(kRootMessage));
            }),
            (name + std::string(kRootMessage) + ".").c_str());
    cls.def(
        "_replace",
        [name](const T&, const py::args&, const py::kwargs&) -> T {
          throw py::type_error(name + "._replace()" + std::string(kRootMessage));
        },
        "Not available: use Scenario.replace(**fields).");
  } else {
    if (!config_decodable(typeid(T))) throw std::logic_error("drsim._core." + name + ": no standalone decoder");
    const std::string init_doc = name + "(**fields): a new " + name +
                                 " value, as a scenario file's mapping of the same fields decodes: every field "
                                 "not given takes its default, and the value is validated. Keywords: " +
                                 keyword_list<T>() +
                                 " (Python names or YAML keys). Values as for Scenario.replace(): units of "
                                 "drsim.config, scenario text such as \"5m\", dicts or values for structs, None "
                                 "leaves an optional field unset.";
    cls.def(py::init([](const py::args& args, const py::kwargs& kwargs) { return construct<T>(args, kwargs); }),
            init_doc.c_str());
    // The value each field takes when it is not given: the struct's own
    // default, which is where the decoder starts from. drsim.config shows
    // them in the constructor's inspect.signature (notebook completion).
    // A function rather than a tuple made here: a list of structs is a
    // drsim.config.ConfigList, and that module cannot be imported while
    // _core is being initialised.
    cls.def_static(
        "_field_defaults",
        [] {
          const py::object defaults = py::cast(T{}, py::return_value_policy::move);
          py::list values;
          for_each_field<T>(
              [&](const auto& f) { values.append(to_view(defaults.cast<const T&>().*f.member, defaults)); });
          return py::tuple(values);
        },
        "The value of each field when it is not given, in _fields order.");
    cls.def(
        "_replace",
        [](const T& self, const py::args& args, const py::kwargs& kwargs) { return replaced(self, args, kwargs); },
        "A new value equal to this one with the given fields changed, validated like the constructor "
        "(as namedtuple._replace).");
    // Pickled as its YAML text, which decodes back to an equal value.
    cls.def(py::pickle([](const T& self) { return py::make_tuple(cpp_to_yaml(self)); },
                       [name](const py::tuple& state) {
                         if (state.size() != 1 || !py::isinstance<py::str>(state[0]))
                           throw py::type_error("invalid pickled state for drsim.config." + name);
                         try {
                           return decode_config<T>(utf8_of(state[0]), name);
                         } catch (const ValueMismatch& e) {
                           throw py::value_error("invalid pickled state for drsim.config." + name + ": " + e.message);
                         }
                       }));
  }
  for_each_field<T>([&](const auto& f) { define_construction_of<FieldValue<decltype(f)>>(done); });
}

template <class V>
void define_construction_of(std::set<std::type_index>& done) {
  if constexpr (IsOptional<V>::value || IsVector<V>::value) {
    define_construction_of<typename V::value_type>(done);
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    define_construction<DeploymentConfig>(done);
  } else if constexpr (Described<V>) {
    define_construction<V>(done);
  }
}

}  // namespace

void bind_config_construction(py::module_&) {
  std::set<std::type_index> done;
  define_construction<Scenario>(done);
}

}  // namespace drsim::python

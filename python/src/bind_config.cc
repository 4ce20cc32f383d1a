// The whole resolved config tree of a Scenario as read-only Python views
// (python/src/config_views.h): the root _core.Scenario gets one property per
// field of io/scenario.h's Scenario, and every struct reachable from it
// becomes a class _core.<kTypeName>, constructible from keywords
// (python/src/config_construct.h). Also Scenario.replacement_overrides(),
// the typed half of drsim.Scenario.replace().
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "io/scenario.h"
#include "python/src/bindings.h"
#include "python/src/config_construct.h"
#include "python/src/config_views.h"
#include "python/src/scenario_replace.h"

namespace drsim::python {

py::object make_config_list(py::tuple items) {
  return py::module_::import("drsim.config").attr("ConfigList")(std::move(items));
}

void register_config_class(py::module_& m, py::handle cls) { m.attr("_config_classes").attr("append")(cls); }

void bind_config(py::module_& m) {
  m.attr("_config_classes") = py::list();
  auto scenario = py::reinterpret_borrow<py::class_<Scenario>>(py::type::of<Scenario>());
  define_config_members(scenario, m, /*value_protocols=*/false);
  // A tuple from here on: the set of config classes is fixed once bound.
  m.attr("_config_classes") = py::tuple(m.attr("_config_classes"));
  bind_config_construction(m);

  scenario.def(
      "replacement_overrides",
      [](const Scenario& s, const py::object& changes) { return replacement_overrides(s, changes); },
      py::arg("changes"),
      "The \"path=value\" overrides that make the typed changes {path: value}; raises drsim.ScenarioError naming "
      "the path when it leads nowhere or the value has the wrong Python type.");
}

}  // namespace drsim::python

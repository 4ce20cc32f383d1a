#pragma once
// Scenario.replace(): typed changes {path: Python value} become "path=value"
// overrides, which the loader then applies and validates exactly like --set.
// The path is followed through the resolved scenario with the field lists,
// so that the value is converted by the type of the field it lands on
// (500.0 on a rate becomes "500rps", 0.25 on a duration "250ms", a dict or
// a config view on a struct a flow mapping). None unsets an optional field:
// the struct that holds it is written out without it.
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "io/scenario.h"
#include "python/src/bindings.h"

namespace drsim::python {

// One override per change, in the mapping's order. Throws ScenarioError,
// naming the path, for a path that leads nowhere or a value of the wrong
// Python type; the loader reports everything else.
std::vector<std::string> replacement_overrides(const Scenario& scenario, const py::handle& changes);

}  // namespace drsim::python

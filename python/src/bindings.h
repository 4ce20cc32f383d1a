#pragma once
// The bind_<area>() functions that python/src/module.cc calls, one per C++
// area. Only python/src includes pybind11; nothing here leaks into the rest of
// the tree.
#include <pybind11/pybind11.h>

namespace drsim::python {

namespace py = pybind11;

// sim/errors.h, io/scenario_error.h: C++ exceptions -> drsim.errors classes.
void bind_errors(py::module_& m);
// sim/units.h: durations as text <-> integer nanoseconds.
void bind_units(py::module_& m);
// io/scenario.h, io/scenario_loader.h: loading, overrides, docs.
void bind_scenario(py::module_& m);
// io/run.h, io/result_writer.h, sim/recorder.h: running and the results.
void bind_run(py::module_& m);

}  // namespace drsim::python

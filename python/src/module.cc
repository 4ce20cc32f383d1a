// drsim._core: the compiled half of the drsim package. Each C++ area binds
// itself in its own bind_<area>.cc; the Python package (python/drsim/) wraps
// these low-level functions into the public API.
#include <pybind11/pybind11.h>

#include "python/src/bindings.h"

#ifndef DRSIM_VERSION
#define DRSIM_VERSION "0.0.0"
#endif

PYBIND11_MODULE(_core, m) {
  m.doc() = "drsim's compiled core; use the drsim package, not this module directly.";
  m.attr("__version__") = DRSIM_VERSION;
  drsim::python::bind_errors(m);
  drsim::python::bind_units(m);
  drsim::python::bind_scenario(m);
  drsim::python::bind_config(m);
  drsim::python::bind_topology(m);
  drsim::python::bind_queueing(m);
  drsim::python::bind_kube(m);
  drsim::python::bind_policy_advice(m);
  drsim::python::bind_check(m);
  drsim::python::bind_import(m);
  drsim::python::bind_run(m);
}

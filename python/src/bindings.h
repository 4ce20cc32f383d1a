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
// The resolved config tree as read-only views generated from the field lists
// (sim/fields.h), and Scenario.replace()'s typed overrides. After bind_scenario.
void bind_config(py::module_& m);
// models/topology/topology.h: RTT, routes, reachability and partitions, as
// methods of the Topology view. After bind_config.
void bind_topology(py::module_& m);
// analysis/queueing.h: Erlang B/C, M/M/c, M/M/c/K.
void bind_queueing(py::module_& m);
// analysis/n_plus_one.h: drsim check for a loaded scenario (wrapped by
// drsim/check.py).
void bind_check(py::module_& m);
// models/kube: the HPA replica calculation, behavior and normalisation, the
// zone split and the policy recommendation (wrapped by drsim/kube.py).
void bind_kube(py::module_& m);
// analysis/policy_advice: drsim recommend-policy for a loaded scenario.
void bind_policy_advice(py::module_& m);
// io/kubernetes_import.h: drsim import kubernetes (wrapped by drsim/importing.py).
void bind_import(py::module_& m);
// io/run.h, io/result_writer.h, sim/recorder.h: running and the results.
void bind_run(py::module_& m);

}  // namespace drsim::python

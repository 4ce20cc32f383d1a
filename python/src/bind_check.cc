// analysis/n_plus_one.h for Python: drsim check's N+1 capacity report for a
// loaded scenario. drsim/capacity_report.py builds its DataFrames from the JSON the
// command prints (format_report_json), so the CLI and Python cannot disagree.
#include <string>
#include <utility>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "analysis/n_plus_one.h"
#include "io/scenario.h"
#include "python/src/bindings.h"

namespace drsim::python {

void bind_check(py::module_& m) {
  m.def(
      "capacity_check",
      [](const Scenario& scenario, double utilization_target) {
        NPlusOneReport report;
        {
          py::gil_scoped_release release;
          const DeploymentConfig& deployment = scenario.spec.topology.config;
          report =
              n_plus_one(deployment, deployment.services, scenario.spec.load, utilization_target, deployment.databases,
                         scenario.spec.kubernetes.has_value());
        }
        // A pair, not a py::tuple, so that the signature (and _core.pyi) says tuple[str, str].
        return std::pair{format_report_json(report), format_report(report)};
      },
      py::arg("scenario"), py::arg("utilization_target"),
      "(json, text) of drsim check: the steady state and every single zone and region failure, in closed form.");
}

}  // namespace drsim::python

// analysis/policy_advice.h for Python: the recommend-policy command's answer
// for a loaded scenario. drsim/kube.py (recommend_policy) parses the JSON
// the command prints, so the CLI and Python cannot disagree.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "analysis/policy_advice.h"
#include "io/scenario.h"
#include "python/src/bindings.h"

namespace drsim::python {

void bind_policy_advice(py::module_& m) {
  m.def(
      "advise_policy",
      [](const Scenario& scenario, const std::string& service, const std::string& zone,
         std::optional<std::uint32_t> replicas, bool migrate) {
        PolicyAdvice advice;
        {
          py::gil_scoped_release release;
          const KubernetesConfig* kubernetes = scenario.spec.kubernetes ? &*scenario.spec.kubernetes : nullptr;
          advice = advise_policy({scenario.spec.topology.config, scenario.spec.topology.config.services, kubernetes},
                                 PolicyAdviceRequest{service, zone, replicas, migrate});
        }
        // A pair, not a py::tuple, so that the signature (and _core.pyi) says tuple[str, str].
        return std::pair{format_policy_advice_json(advice), format_policy_advice(advice)};
      },
      py::arg("scenario"), py::arg("service"), py::arg("zone"), py::arg("replicas"), py::arg("migrate"),
      "(json, text) of drsim recommend-policy for a failed zone; ValueError for unknown names.");
}

}  // namespace drsim::python

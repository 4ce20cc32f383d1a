// analysis/queueing.h: Erlang B and C and the M/M/c and M/M/c/K metrics, the
// closed forms that capacity answers come from. drsim/queueing.py checks and
// converts the arguments (units, types) and documents them; these take plain
// numbers: a rate per second, a mean service time in nanoseconds.
#include <cstddef>
#include <cstdint>
#include <optional>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "analysis/queueing.h"
#include "python/src/bindings.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim::python {
namespace {

// Durations in float seconds, as everywhere in the Python API.
py::dict metrics_dict(const QueueMetrics& q) {
  py::dict d;
  d["utilization"] = q.utilization;
  d["wait_probability"] = q.wait_probability;
  d["blocking_probability"] = q.blocking_probability;
  d["throughput"] = q.throughput_per_s;
  d["mean_wait"] = to_seconds(q.mean_wait);
  d["mean_response"] = to_seconds(q.mean_response);
  d["mean_queue_length"] = q.mean_queue_length;
  d["mean_in_system"] = q.mean_in_system;
  return d;
}

}  // namespace

void bind_queueing(py::module_& m) {
  m.def("erlang_b", &erlang_b, py::arg("servers"), py::arg("offered_load"),
        "P(all servers busy) in M/M/c/c; raises ValueError for a negative load.");
  m.def("erlang_c", &erlang_c, py::arg("servers"), py::arg("offered_load"),
        "P(an arrival waits) in M/M/c; raises ValueError unless offered_load < servers.");
  m.def(
      "mmc_metrics",
      [](double arrival_rate, std::int64_t mean_service_ns, std::size_t servers) -> std::optional<py::dict> {
        const auto q = mmc_metrics(Rate{arrival_rate}, Duration{mean_service_ns}, servers);
        if (!q) return std::nullopt;
        return metrics_dict(*q);
      },
      py::arg("arrival_rate"), py::arg("mean_service_ns"), py::arg("servers"),
      "M/M/c metrics as a dict; None when unstable.");
  m.def(
      "mmck_metrics",
      [](double arrival_rate, std::int64_t mean_service_ns, std::size_t servers, std::size_t capacity) {
        return metrics_dict(mmck_metrics(Rate{arrival_rate}, Duration{mean_service_ns}, servers, capacity));
      },
      py::arg("arrival_rate"), py::arg("mean_service_ns"), py::arg("servers"), py::arg("capacity"),
      "M/M/c/K metrics as a dict; raises ValueError unless 0 < servers <= capacity.");
}

}  // namespace drsim::python

// sim/units.h: Python hands durations over as text ("2h") or nanoseconds,
// rates as text ("800rps") or float per second.
#include <cstdint>
#include <string>

#include <pybind11/pybind11.h>

#include "python/src/bindings.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim::python {

void bind_units(py::module_& m) {
  m.def(
      "parse_duration_ns", [](const std::string& text) { return to_ns(parse_duration(text)); }, py::arg("text"),
      "Parses a duration with a unit (\"250ms\", \"1h30m\") into integer nanoseconds. Raises ValueError.");
  m.def(
      "format_duration_ns", [](std::int64_t ns) { return format_duration(Duration(ns)); }, py::arg("ns"),
      "Canonical text of a duration given in nanoseconds (\"1h30m\").");
  m.def(
      "parse_rate_per_second", [](const std::string& text) { return parse_rate(text).per_second; }, py::arg("text"),
      "Parses a rate with a unit (\"800rps\", \"1200/min\") into requests per second. Raises ValueError.");
}

}  // namespace drsim::python

#include "python/src/config_leaves.h"

#include <limits>
#include <regex>

#include "sim/quote.h"

namespace drsim::python {

namespace {

// What YAML 1.2 reads as null; everything else plain that matches
// kPlainScalar is read back as the same string.
bool reads_as_null(std::string_view text) { return text == "null" || text == "Null" || text == "NULL" || text == "~"; }

}  // namespace

std::string yaml_scalar(std::string_view text) {
  // Letters, digits and the punctuation of units and names ("28ms", "10%",
  // "1200/min", "eu-west-1a"); no ':', '#', ',', brackets or spaces, which
  // YAML gives a meaning of their own in flow collections.
  static const std::regex kPlainScalar("[A-Za-z0-9_][A-Za-z0-9_.\\-/%]*");
  if (!reads_as_null(text) && std::regex_match(text.begin(), text.end(), kPlainScalar)) return std::string(text);
  return quote(text);  // sim/quote.h escapes as a YAML double-quoted scalar does
}

std::string type_name(py::handle value) {
  if (value.is_none()) return "None";
  const std::string name = py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
  if (py::isinstance<py::str>(value) || py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    return name + " " + py::repr(value).cast<std::string>();
  }
  return name;
}

bool is_python_bool(py::handle value) {
  if (py::isinstance<py::bool_>(value)) return true;
  const py::handle type = py::type::handle_of(value);
  return py::str(type.attr("__module__")).cast<std::string>() == "numpy" &&
         py::str(type.attr("__name__")).cast<std::string>().starts_with("bool");
}

bool is_real_number(py::handle value) {
  return !is_python_bool(value) && py::isinstance(value, py::module_::import("numbers").attr("Real"));
}

bool is_integer(py::handle value) {
  return !is_python_bool(value) && py::isinstance(value, py::module_::import("numbers").attr("Integral"));
}

double finite_float(py::handle value, std::string_view expected) {
  if (!is_real_number(value)) throw ValueMismatch{"expected " + std::string(expected) + ", got " + type_name(value)};
  const double v = py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>();
  if (!std::isfinite(v)) throw ValueMismatch{"expected a finite number, got " + type_name(value)};
  return v;
}

std::int64_t int64_of(py::handle value, std::string_view expected) {
  if (!is_integer(value)) throw ValueMismatch{"expected " + std::string(expected) + ", got " + type_name(value)};
  const py::int_ number = py::module_::import("operator").attr("index")(value);
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(number.ptr(), &overflow);
  if (overflow != 0)
    throw ValueMismatch{"expected " + std::string(expected) + ", got " + type_name(number) + ", which is out of range"};
  return v;
}

std::int64_t duration_ns(py::handle value, std::string_view expected) {
  const py::object timedelta = py::module_::import("datetime").attr("timedelta");
  if (py::isinstance(value, timedelta)) {
    // Exact: a timedelta is a whole number of microseconds.
    const py::object microseconds = value.attr("__floordiv__")(timedelta(py::arg("microseconds") = 1));
    return int64_of(microseconds.attr("__mul__")(1'000), "a timedelta that fits in 292 years");
  }
  const double seconds = finite_float(value, expected);
  const double ns = std::round(seconds * 1e9);
  // 2^63 is exactly representable; anything at or beyond it does not fit.
  if (!(std::abs(ns) < 9223372036854775808.0)) {
    throw ValueMismatch{"expected " + std::string(expected) + ", got " + type_name(value) + ", which is out of range"};
  }
  return static_cast<std::int64_t>(ns);
}

}  // namespace drsim::python

#pragma once
// The leaf values of config fields in Python, one convention for every
// field (documented in python/drsim/config.py):
//
//   C++            Python                    YAML text it stands for
//   std::string    str                       "eu-west-1a"
//   bool           bool                      true
//   integers       int                       12
//   double         float                     1.5
//   Duration       float, seconds            "28ms" -> 0.028
//   Rate           float, per second         "1200/min" -> 20.0
//   Bandwidth      float, bits per second    "10Gbps" -> 1e10
//   Ratio          float, a fraction         "10%" -> 0.1
//   ByteSize       int, bytes                "64MiB" -> 67108864
//   CpuQuantity    float, cores              "500m" -> 0.5
//   other leaves   str, the canonical text   (a leaf type added later)
//
// The other way, a Python value becomes the YAML text that the scenario
// decoder reads back; the decoder, not this file, then checks it (signs,
// ranges, "at most 100%"), so replace() is validated exactly like a file.
// Quantities also take their text with a unit ("28ms"), durations a
// datetime.timedelta.
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include <pybind11/pybind11.h>

#include "io/value_codecs.h"
#include "python/src/bindings.h"
#include "sim/quote.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim::python {

// A Python value cannot stand for a field's type; the message is "expected
// ..., got ..." and the caller adds where.
struct ValueMismatch {
  std::string message;
};

// ---- C++ -> Python --------------------------------------------------------

template <Leaf T>
py::object leaf_to_python(const T& v) {
  if constexpr (std::is_same_v<T, std::string>)
    return py::str(v);
  else if constexpr (std::is_same_v<T, bool>)
    return py::bool_(v);
  else if constexpr (std::is_integral_v<T>)
    return py::int_(v);
  else if constexpr (std::is_same_v<T, double>)
    return py::float_(v);
  else if constexpr (std::is_same_v<T, Duration>)
    return py::float_(to_seconds(v));
  else if constexpr (std::is_same_v<T, Rate>)
    return py::float_(v.per_second);
  else if constexpr (std::is_same_v<T, Bandwidth>)
    return py::float_(v.bits_per_second);
  else if constexpr (std::is_same_v<T, Ratio>)
    return py::float_(v.value);
  else if constexpr (std::is_same_v<T, ByteSize>)
    return py::int_(v.bytes);
  else if constexpr (std::is_same_v<T, CpuQuantity>)
    return py::float_(v.cores());
  else
    return py::str(ValueCodec<T>::format(v));  // a leaf type this file does not know yet: its text
}

// The Python type of a leaf, as a type annotation, and its unit.
template <class T>
constexpr std::string_view leaf_annotation() {
  if constexpr (std::is_same_v<T, std::string>)
    return "str";
  else if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_integral_v<T> || std::is_same_v<T, ByteSize>)
    return "int";
  else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, Duration> || std::is_same_v<T, Rate> ||
                     std::is_same_v<T, Bandwidth> || std::is_same_v<T, Ratio> || std::is_same_v<T, CpuQuantity>)
    return "float";
  else
    return "str";
}
template <class T>
constexpr std::string_view leaf_unit() {
  if constexpr (std::is_same_v<T, Duration>)
    return "seconds";
  else if constexpr (std::is_same_v<T, Rate>)
    return "per second";
  else if constexpr (std::is_same_v<T, Bandwidth>)
    return "bits per second";
  else if constexpr (std::is_same_v<T, Ratio>)
    return "a fraction, 0.1 for 10%";
  else if constexpr (std::is_same_v<T, ByteSize>)
    return "bytes";
  else if constexpr (std::is_same_v<T, CpuQuantity>)
    return "cores";
  else
    return "";
}

// ---- Python -> YAML text --------------------------------------------------

// A scalar as YAML text: plain when it reads back as the same string (and is
// easy to read in Scenario.overrides), double-quoted otherwise.
std::string yaml_scalar(std::string_view text);

// Python's name for the type of a value, for messages: "str", "list", ...
// with the value of a str or number ("str 'abc'"; a long one is cut).
std::string type_name(py::handle value);

// The UTF-8 text of a Python str; ValueMismatch naming the first lone
// surrogate for a str that UTF-8 cannot encode ("\ud800"), where pybind11's
// cast would raise a bare RuntimeError.
std::string utf8_of(py::handle text);

bool is_python_bool(py::handle value);  // bool or numpy.bool_
bool is_real_number(py::handle value);  // numbers.Real, not a bool
bool is_integer(py::handle value);      // numbers.Integral, not a bool
// A finite float, or ValueMismatch("expected <expected>, got ...").
double finite_float(py::handle value, std::string_view expected);
// An integer that fits int64_t; ValueMismatch otherwise.
std::int64_t int64_of(py::handle value, std::string_view expected);
// Nanoseconds of a timedelta or of float seconds; ValueMismatch outside int64.
std::int64_t duration_ns(py::handle value, std::string_view expected);

// The YAML text of `value` for a leaf of type T; throws ValueMismatch.
template <Leaf T>
std::string leaf_to_yaml(py::handle value) {
  using Codec = ValueCodec<T>;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!py::isinstance<py::str>(value)) throw ValueMismatch{"expected a str, got " + type_name(value)};
    return yaml_scalar(utf8_of(value));
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!is_python_bool(value)) throw ValueMismatch{"expected a bool, got " + type_name(value)};
    return py::bool_(value.cast<py::object>()) ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    // The decoder checks the range ("expected an unsigned integer of at most ...").
    if (!is_integer(value)) throw ValueMismatch{"expected an int, got " + type_name(value)};
    const py::object number = py::module_::import("operator").attr("index")(value);
    // Far out of any field's range, and too long for Python to write as text.
    if (number.attr("bit_length")().cast<std::size_t>() > 128) {
      throw ValueMismatch{"expected an int in [" + std::to_string(std::numeric_limits<T>::min()) + ", " +
                          std::to_string(std::numeric_limits<T>::max()) + "], got " + type_name(number)};
    }
    return py::str(number).cast<std::string>();
  } else if constexpr (std::is_same_v<T, double>) {
    return Codec::format(finite_float(value, "a number"));
  } else if constexpr (std::is_same_v<T, Duration> || std::is_same_v<T, Rate> || std::is_same_v<T, Bandwidth> ||
                       std::is_same_v<T, Ratio> || std::is_same_v<T, ByteSize> || std::is_same_v<T, CpuQuantity>) {
    if (py::isinstance<py::str>(value)) return yaml_scalar(utf8_of(value));
    const std::string expected = std::string(leaf_annotation<T>()) + " (" + std::string(leaf_unit<T>()) +
                                 ") or text such as " + quote(Codec::kExample);
    if constexpr (std::is_same_v<T, Duration>) {
      return yaml_scalar(Codec::format(Duration{duration_ns(value, expected)}));
    } else if constexpr (std::is_same_v<T, ByteSize>) {
      if (!is_integer(value)) throw ValueMismatch{"expected " + expected + ", got " + type_name(value)};
      return yaml_scalar(Codec::format(ByteSize{int64_of(value, expected)}));
    } else if constexpr (std::is_same_v<T, CpuQuantity>) {
      // Cores as a bare number, which the decoder reads exactly (or refuses
      // finer than a millicore) rather than rounding here.
      return yaml_scalar(ValueCodec<double>::format(finite_float(value, expected)));
    } else {
      return yaml_scalar(Codec::format(T{finite_float(value, expected)}));
    }
  } else {
    if (!py::isinstance<py::str>(value)) {
      throw ValueMismatch{"expected " + std::string(Codec::kExpected) + " as a str, got " + type_name(value)};
    }
    return yaml_scalar(utf8_of(value));
  }
}

// The YAML text of a C++ leaf value, as the scenario writer spells it.
template <Leaf T>
std::string leaf_yaml(const T& value) {
  const std::string text = ValueCodec<T>::format(value);
  return ValueCodec<T>::kQuotable ? yaml_scalar(text) : text;
}

}  // namespace drsim::python

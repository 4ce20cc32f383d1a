#include "python/src/config_leaves.h"

#include <limits>

#include "sim/quote.h"

namespace drsim::python {

namespace {

// What YAML 1.2 reads as null; everything else for which is_plain_scalar
// holds is read back as the same string.
bool reads_as_null(std::string_view text) { return text == "null" || text == "Null" || text == "NULL" || text == "~"; }

bool is_ascii_alnum(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// Letters, digits and the punctuation of units and names ("28ms", "10%",
// "1200/min", "eu-west-1a"), starting with a letter, digit or '_'; no ':',
// '#', ',', brackets or spaces, which YAML gives a meaning of their own in
// flow collections. A loop rather than std::regex, whose matcher recurses
// once per character and overflows the stack on a long str.
bool is_plain_scalar(std::string_view text) {
  if (text.empty() || !(is_ascii_alnum(text.front()) || text.front() == '_')) return false;
  for (const char c : text.substr(1)) {
    if (!is_ascii_alnum(c) && c != '_' && c != '.' && c != '-' && c != '/' && c != '%') return false;
  }
  return true;
}

}  // namespace

std::string yaml_scalar(std::string_view text) {
  if (!reads_as_null(text) && is_plain_scalar(text)) return std::string(text);
  return quote(text);  // sim/quote.h escapes as a YAML double-quoted scalar does
}

std::string utf8_of(py::handle text) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (data != nullptr) return std::string(data, static_cast<std::size_t>(size));
  PyErr_Clear();
  // Only a lone surrogate ("\ud800", or a byte that os.fsdecode could not
  // decode) has no UTF-8 form.
  const Py_ssize_t length = PyUnicode_GetLength(text.ptr());
  for (Py_ssize_t i = 0; i < length; ++i) {
    const Py_UCS4 c = PyUnicode_ReadChar(text.ptr(), i);
    if (c >= 0xD800 && c <= 0xDFFF) {
      constexpr char kHex[] = "0123456789ABCDEF";
      std::string code = "U+";
      for (int shift = 12; shift >= 0; shift -= 4) code += kHex[(c >> shift) & 0xF];
      throw ValueMismatch{"expected text that UTF-8 can encode, got a str with a lone surrogate " + code +
                          " at index " + std::to_string(i)};
    }
  }
  PyErr_Clear();
  throw ValueMismatch{"expected text that UTF-8 can encode, got " + type_name(text)};
}

std::string type_name(py::handle value) {
  if (value.is_none()) return "None";
  const std::string name = py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
  if (py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value)) {
    // Python refuses to write an int of more than 4300 digits as text.
    const std::size_t bits = value.attr("bit_length")().cast<std::size_t>();
    if (bits > 256) return name + " of " + std::to_string(bits) + " bits";
  }
  if (py::isinstance<py::str>(value) || py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    // repr() is ASCII-safe for a str (surrogates come out escaped); a long
    // one is cut so that the message stays readable.
    constexpr std::size_t kShown = 60;
    const std::string text = py::repr(value).cast<std::string>();
    if (text.size() <= kShown + 20) return name + " " + text;
    const std::string length = py::isinstance<py::str>(value)
                                   ? std::to_string(PyUnicode_GetLength(value.ptr())) + " characters"
                                   : std::to_string(text.size()) + " digits";
    return name + " " + text.substr(0, kShown) + "... (" + length + ")";
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
  double v = 0;
  try {
    v = py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>();
  } catch (py::error_already_set& e) {
    // An int (or Fraction) beyond 1.8e308.
    if (!e.matches(PyExc_OverflowError)) throw;
    throw ValueMismatch{"expected " + std::string(expected) + ", got " + type_name(value) +
                        ", which is out of the range of a float"};
  }
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

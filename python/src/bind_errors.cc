// C++ exceptions -> Python exceptions. The classes live in drsim/errors.py
// (ScenarioError is a ValueError, SimulationError a RuntimeError); this
// translator imports them when an exception crosses the boundary. If that
// import fails for any reason the builtin base class is raised instead, so a
// C++ error always becomes a Python exception and never aborts the interpreter.
#include <exception>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <pybind11/pybind11.h>

#include "analysis/n_plus_one.h"
#include "io/scenario_error.h"
#include "python/src/bindings.h"
#include "sim/errors.h"

namespace drsim::python {
namespace {

// Raises drsim.errors.<name>(message, **kwargs), or fallback(message) when the
// class cannot be built. Leaves a Python error set in every case.
void set_python_error(const char* name, PyObject* fallback, const char* message, const py::dict& kwargs) {
  try {
    py::object cls = py::module_::import("drsim.errors").attr(name);
    py::object exc = cls(message, **kwargs);
    PyErr_SetObject(cls.ptr(), exc.ptr());
  } catch (...) {
    // The class could not be imported or constructed: the builtin base still
    // carries the message.
    PyErr_Clear();
    PyErr_SetString(fallback, message);
  }
}

void set_scenario_error(const ScenarioError& e) {
  py::dict kwargs;
  try {
    py::list diagnostics;
    for (const Diagnostic& d : e.diagnostics()) {
      py::dict item;
      item["file"] = d.file;
      item["line"] = d.line;
      item["column"] = d.column;
      item["path"] = d.path;
      item["message"] = d.message;
      diagnostics.append(std::move(item));
    }
    kwargs["diagnostics"] = std::move(diagnostics);
  } catch (...) {
    PyErr_Clear();
    kwargs = py::dict();
  }
  set_python_error("ScenarioError", PyExc_ValueError, e.what(), kwargs);
}

// Throws one C++ exception of each kind on request, so that the tests can
// check every translation end to end.
[[noreturn]] void throw_for_tests(const std::string& kind) {
  if (kind == "scenario") {
    throw ScenarioError(std::vector<Diagnostic>{
        Diagnostic{.file = "x.yaml", .line = 3, .column = 7, .path = "spec.duration", .message = "expected X, got Y"},
        Diagnostic{.file = "x.yaml", .line = 9, .column = 1, .path = "spec.seed", .message = "expected Z"},
    });
  }
  if (kind == "simulation") throw SimulationError("broken invariant");
  if (kind == "handler") throw HandlerError("at t=00:00:01, component \"c\", event \"e\"", "boom");
  if (kind == "filesystem") {
    throw std::filesystem::filesystem_error("cannot create", std::filesystem::path("/nope"),
                                            std::make_error_code(std::errc::permission_denied));
  }
  if (kind == "invalid_argument") throw std::invalid_argument("bad argument");
  if (kind == "runtime") throw std::runtime_error("plain runtime error");
  if (kind == "bad_alloc") throw std::bad_alloc();
  if (kind == "int") throw 42;
  throw std::logic_error("unknown kind \"" + kind + "\"");
}

}  // namespace

void bind_errors(py::module_& m) {
  m.def("_throw_for_tests", &throw_for_tests, py::arg("kind"), "Testing only: throws a C++ exception.");

  // Local to this module: tried before pybind11's own translators, which
  // still handle every other std::exception (RuntimeError, ValueError for
  // std::invalid_argument such as a UnitError, MemoryError, ...).
  py::register_local_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const ScenarioError& e) {
      set_scenario_error(e);
    } catch (const HandlerError& e) {
      py::dict kwargs;
      try {
        kwargs["where"] = e.where();
      } catch (...) {
        PyErr_Clear();
      }
      set_python_error("HandlerError", PyExc_RuntimeError, e.what(), kwargs);
    } catch (const SimulationError& e) {
      set_python_error("SimulationError", PyExc_RuntimeError, e.what(), py::dict());
    } catch (const CheckUnsupported& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());  // what drsim check cannot answer in closed form yet
    } catch (const std::system_error& e) {
      // A results directory that cannot be created, a file that cannot be
      // written: OSError, with the errno so that Python picks the subclass
      // (PermissionError, NotADirectoryError, ...).
      const std::error_category& category = e.code().category();
      const bool is_errno = category == std::generic_category() || category == std::system_category();
      try {
        py::tuple args = is_errno && e.code().value() != 0 ? py::make_tuple(e.code().value(), e.what())
                                                           : py::make_tuple(e.what());
        PyErr_SetObject(PyExc_OSError, args.ptr());
      } catch (...) {
        PyErr_Clear();
        PyErr_SetString(PyExc_OSError, e.what());
      }
    } catch (const std::exception&) {
      // pybind11's default translators: error_already_set restores the Python
      // error, std::invalid_argument -> ValueError, std::bad_alloc ->
      // MemoryError, any other std::exception -> RuntimeError.
      throw;
    } catch (...) {
      PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception (not derived from std::exception)");
    }
  });
}

}  // namespace drsim::python

// io/run.h, io/result_writer.h, sim/recorder.h: running a scenario and handing
// the Recorder's columns to Python as numpy arrays (no per-row Python objects).
//
// A run releases the GIL for its whole duration. Every progress check (at the
// start, then about every 250 ms of wall time, and once more at the end) it
// briefly re-acquires the GIL, calls the optional Python progress callback and
// PyErr_CheckSignals(). An exception from either
// (KeyboardInterrupt from Ctrl-C, anything a callback raises) is kept, the stop
// flag is raised so the run ends at its next check, and run() returns the
// partial result together with that exception: the drsim package raises it
// (KeyboardInterrupt as drsim.RunInterrupted carrying the result).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "io/objective_evaluation.h"
#include "io/result_writer.h"
#include "io/run.h"
#include "python/src/bindings.h"
#include "sim/recorder.h"
#include "sim/simulation.h"
#include "sim/time.h"

namespace drsim::python {
namespace {

// Takes the Python error currently set (GIL held) as a normalized exception
// instance with its traceback attached; None if no error is set.
py::object take_python_error() {
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* trace = nullptr;
  PyErr_Fetch(&type, &value, &trace);
  if (type == nullptr) return py::none();
  PyErr_NormalizeException(&type, &value, &trace);
  if (trace != nullptr && value != nullptr) PyException_SetTraceback(value, trace);
  Py_XDECREF(type);
  Py_XDECREF(trace);
  if (value == nullptr) return py::none();
  return py::reinterpret_steal<py::object>(value);
}

py::object runtime_error_instance(const char* message) {
  PyErr_SetString(PyExc_RuntimeError, message);
  return take_python_error();
}

py::dict labels_dict(const Labels& labels) {
  py::dict d;
  for (const auto& [key, value] : labels) d[py::str(key)] = value;
  return d;
}

Labels labels_from(const std::vector<std::pair<std::string, std::string>>& pairs) {
  Labels labels(pairs.begin(), pairs.end());
  std::sort(labels.begin(), labels.end());
  return labels;
}

// Dictionary-encodes a column of strings: int32 codes into a list of the
// distinct values in order of first appearance.
py::tuple encode_strings(const std::vector<std::string>& column) {
  py::array_t<std::int32_t> codes(static_cast<py::ssize_t>(column.size()));
  std::int32_t* out = codes.mutable_data();
  std::unordered_map<std::string_view, std::int32_t> index;
  std::vector<std::string_view> categories;
  for (std::size_t i = 0; i < column.size(); ++i) {
    auto [it, inserted] = index.try_emplace(column[i], static_cast<std::int32_t>(categories.size()));
    if (inserted) categories.push_back(column[i]);
    out[i] = it->second;
  }
  py::list names;
  for (std::string_view s : categories) names.append(py::str(s.data(), s.size()));
  return py::make_tuple(std::move(codes), std::move(names));
}

template <class T>
py::array_t<T> copy_array(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
  return a;
}

// The selected series' points, concatenated in selection order.
py::tuple timeseries_arrays(const RunResult& r, const std::optional<std::vector<std::size_t>>& which) {
  const auto& all = r.recorder().series_list();
  std::vector<std::size_t> selected;
  if (which) {
    selected = *which;
    for (std::size_t i : selected) {
      if (i >= all.size()) throw py::index_error("series index " + std::to_string(i) + " out of range");
    }
  } else {
    selected.resize(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) selected[i] = i;
  }
  std::size_t total = 0;
  for (std::size_t i : selected) total += all[i].t_ns.size();
  py::array_t<std::int64_t> t_ns(static_cast<py::ssize_t>(total));
  py::array_t<double> value(static_cast<py::ssize_t>(total));
  std::int64_t* t_out = t_ns.mutable_data();
  double* v_out = value.mutable_data();
  for (std::size_t i : selected) {
    const auto& s = all[i];
    const std::size_t n = std::min(s.t_ns.size(), s.value.size());
    if (n == 0) continue;
    std::memcpy(t_out, s.t_ns.data(), n * sizeof(std::int64_t));
    std::memcpy(v_out, s.value.data(), n * sizeof(double));
    t_out += n;
    v_out += n;
  }
  return py::make_tuple(std::move(t_ns), std::move(value));
}

py::list series_info(const RunResult& r) {
  py::list out;
  for (const auto& s : r.recorder().series_list()) {
    out.append(py::make_tuple(s.metric, labels_dict(s.labels), std::min(s.t_ns.size(), s.value.size())));
  }
  return out;
}

py::dict events_arrays(const RunResult& r) {
  const Recorder::Events& e = r.recorder().events();
  py::dict d;
  d["t_ns"] = copy_array(e.t_ns);
  d["component"] = encode_strings(e.component);
  d["kind"] = encode_strings(e.kind);
  d["detail"] = encode_strings(e.detail);
  return d;
}

py::list kpi_list(const RunResult& r) {
  py::list out;
  for (const auto& k : r.recorder().kpis()) out.append(py::make_tuple(k.name, labels_dict(k.labels), k.value));
  return out;
}

// Runs with the GIL released; returns (RunResult, exception or None).
py::tuple run(const Scenario& scenario, std::optional<std::uint64_t> seed, std::optional<std::int64_t> until_ns,
              const py::object& progress, bool check_signals) {
  std::atomic<bool> stop{false};
  py::object pending = py::none();  // written only with the GIL held
  const bool call_progress = !progress.is_none();

  // GIL held. Whatever goes wrong becomes `pending` (not noexcept: should
  // even that fail, an exception is better than std::terminate).
  auto poll = [&](const RunProgress* p) {
    if (!pending.is_none()) return;
    try {
      if (p != nullptr && call_progress) {
        progress(to_ns(p->now), to_ns(p->horizon), p->events, p->wall_seconds);
      }
      if (check_signals && PyErr_CheckSignals() != 0) pending = take_python_error();
    } catch (py::error_already_set& e) {
      e.restore();
      pending = take_python_error();
    } catch (const std::exception& e) {
      pending = runtime_error_instance(e.what());
    } catch (...) {
      pending = runtime_error_instance("unknown C++ exception in the progress callback");
    }
    if (!pending.is_none()) stop.store(true, std::memory_order_relaxed);
  };

  RunOptions options;
  options.seed = seed;
  if (until_ns) options.until = Duration(*until_ns);
  options.stop_flag = &stop;
  if (call_progress || check_signals) {
    options.progress = [&](const RunProgress& p) {
      if (stop.load(std::memory_order_relaxed)) return;
      try {
        py::gil_scoped_acquire gil;
        poll(&p);
      } catch (...) {
        // Acquiring the GIL cannot normally fail; if it does, the run goes on.
      }
    };
  }

  std::optional<RunResult> result;
  {
    py::gil_scoped_release release;
    result.emplace(run_scenario(scenario, options));
  }
  // A last progress call with where the run ended (a progress bar reaches its
  // end), and a Ctrl-C during the last stretch of the run reported with the
  // result rather than losing the result to a KeyboardInterrupt on return.
  const RunProgress last{result->outcome.end_time, result->horizon, result->outcome.events,
                         result->outcome.wall_seconds};
  poll(&last);
  py::object py_result = py::cast(std::move(*result), py::return_value_policy::move);
  return py::make_tuple(std::move(py_result), std::move(pending));
}

}  // namespace

void bind_run(py::module_& m) {
  py::class_<RunOutcome>(m, "RunOutcome", "How a run ended.")
      .def_property_readonly("complete", &RunOutcome::complete)
      .def_property_readonly("reason", [](const RunOutcome& o) { return std::string(to_string(o.reason)); })
      .def_property_readonly("message", [](const RunOutcome& o) { return o.message; })
      .def_property_readonly("events", [](const RunOutcome& o) { return o.events; })
      .def_property_readonly("end_ns", [](const RunOutcome& o) { return to_ns(o.end_time); })
      .def_property_readonly("wall_seconds", [](const RunOutcome& o) { return o.wall_seconds; });

  py::class_<RunResult>(m, "RunResult", "A finished run: the scenario, the outcome and the Recorder's data.")
      .def_property_readonly(
          "scenario", [](const RunResult& r) -> const Scenario& { return r.scenario; },
          py::return_value_policy::reference_internal)
      .def_property_readonly("seed", [](const RunResult& r) { return r.seed; })
      .def_property_readonly("horizon_ns", [](const RunResult& r) { return to_ns(r.horizon); })
      .def_property_readonly("outcome", [](const RunResult& r) { return r.outcome; })
      .def_property_readonly("series_count", [](const RunResult& r) { return r.recorder().series_list().size(); })
      .def_property_readonly("point_count", [](const RunResult& r) { return r.recorder().point_count(); })
      .def_property_readonly("event_count", [](const RunResult& r) { return r.recorder().events().size(); })
      .def("label_keys", [](const RunResult& r) { return r.recorder().label_keys(); },
           "Every label key used by a series or a KPI, sorted.")
      .def("series_info", &series_info, "Per series: (metric, labels, number of points).")
      .def("timeseries_arrays", &timeseries_arrays, py::arg("series") = py::none(),
           "(t_ns int64, value float64) of the selected series (default all), concatenated in order.")
      .def("events_arrays", &events_arrays,
           "Events as t_ns (int64) and, per string column, (int32 codes, distinct values).")
      .def("kpis", &kpi_list, "Per KPI: (name, labels, value).")
      .def(
          "find_kpi",
          [](const RunResult& r, const std::string& name,
             const std::vector<std::pair<std::string, std::string>>& labels) -> std::optional<double> {
            const Recorder::Kpi* k = r.recorder().find_kpi(name, labels_from(labels));
            if (k == nullptr) return std::nullopt;
            return k->value;
          },
          py::arg("name"), py::arg("labels") = std::vector<std::pair<std::string, std::string>>{})
      .def("summary", [](const RunResult& r) { return summary_text(r); }, "A short human summary.")
      .def("timeseries_csv", [](const RunResult& r) { return timeseries_csv(r.recorder()); })
      .def("events_csv", [](const RunResult& r) { return events_csv(r.recorder()); })
      .def("kpis_json", [](const RunResult& r) { return kpis_json(r); })
      .def(
          "objectives_json", [](const RunResult& r) { return objectives_json(objective_report(r)); },
          "Per-fault figures and objective verdicts (io/objective_evaluation.h), as objectives.json.")
      .def(
          "write_results",
          [](const RunResult& r, const std::string& dir) {
            py::gil_scoped_release release;
            write_results(r, std::filesystem::path(dir));
          },
          py::arg("dir"),
          "Writes timeseries.csv, events.csv, kpis.json, faults.csv, scenario.yaml, run.json and objectives.json "
          "into dir.");

  m.def("run", &run, py::arg("scenario"), py::kw_only(), py::arg("seed") = py::none(),
        py::arg("until_ns") = py::none(), py::arg("progress") = py::none(), py::arg("check_signals") = true,
        "Runs a scenario with the GIL released. Returns (RunResult, exception or None): the exception is what "
        "stopped the run early (KeyboardInterrupt, or one raised by progress(t_ns, horizon_ns, events, "
        "wall_seconds)).");
}

}  // namespace drsim::python

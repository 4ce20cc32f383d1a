// io/kubernetes_import.h for Python: drsim/importing.py (import_kubernetes) wraps it. ScenarioError becomes
// drsim.ScenarioError through bind_errors' translator, with its diagnostics.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "io/experiment_import.h"
#include "io/kubernetes_import.h"
#include "io/scenario_loader.h"
#include "io/trace_import.h"
#include "python/src/bindings.h"

namespace drsim::python {

void bind_import(py::module_& m) {
  m.def(
      "import_kubernetes",
      [](const std::vector<std::string>& paths, const std::vector<std::string>& zones, const std::string& region,
         const std::string& namespace_name, const std::string& scenario_name,
         const std::map<std::string, std::string>& metric_names) {
        KubernetesImportOptions options;
        options.zones = zones;
        options.region = region;
        options.namespace_name = namespace_name;
        options.scenario_name = scenario_name;
        options.metric_names = metric_names;
        KubernetesImport imported;
        {
          py::gil_scoped_release release;
          imported = import_kubernetes(std::vector<std::filesystem::path>(paths.begin(), paths.end()), options);
        }
        std::vector<std::tuple<std::string, int, int, std::string, std::string, std::string>> notes;
        for (const ImportNote& n : imported.notes)
          notes.emplace_back(n.file, n.line, n.column, n.object, n.path, n.message);
        return std::tuple{imported.scenario_yaml, notes, imported.objects, imported.files, imported.skipped};
      },
      py::arg("paths"), py::arg("zones"), py::arg("region"), py::arg("namespace"), py::arg("name"),
      py::arg("metric_names"),
      "(scenario YAML, notes as (file, line, column, object, path, message), objects, files, skipped) of drsim "
      "import kubernetes.");
  m.def(
      "import_experiment",
      [](const std::string& scenario_file, const std::vector<std::string>& paths,
         const std::map<std::string, std::string>& zone_names, std::int64_t start_ns) {
        ExperimentImportOptions options;
        options.zone_names = zone_names;
        options.start = Duration(start_ns);
        std::string text;
        ExperimentImport imported;
        {
          py::gil_scoped_release release;
          const Scenario scenario = load_scenario_file(scenario_file);
          imported =
              import_experiment(scenario, std::vector<std::filesystem::path>(paths.begin(), paths.end()), options);
          text = scenario_file_with_steps(scenario_file, imported);
        }
        std::vector<std::tuple<std::string, int, int, std::string, std::string, std::string>> notes;
        for (const ImportNote& n : imported.notes)
          notes.emplace_back(n.file, n.line, n.column, n.object, n.path, n.message);
        return std::tuple{text, notes, imported.steps.size()};
      },
      py::arg("scenario_file"), py::arg("paths"), py::arg("zone_names"), py::arg("start_ns"),
      "(scenario YAML with the steps, notes as (file, line, column, object, path, message), steps) of drsim import "
      "experiment.");
  m.def(
      "import_traces",
      [](const std::string& scenario_file, const std::vector<std::string>& paths, double sampling,
         std::int64_t window_ns, std::size_t max_samples, const std::map<std::string, std::string>& service_names) {
        TraceImportOptions options;
        options.workload.sampling = sampling;
        options.workload.window = Duration(window_ns);
        options.workload.max_samples = max_samples;
        options.service_names = service_names;
        TraceImport imported;
        {
          py::gil_scoped_release release;
          imported = import_traces(scenario_file, std::vector<std::filesystem::path>(paths.begin(), paths.end()),
                                   options);
        }
        std::vector<std::tuple<std::string, int, int, std::string, std::string, std::string>> notes;
        for (const ImportNote& n : imported.notes)
          notes.emplace_back(n.file, n.line, n.column, n.object, n.path, n.message);
        // The workload as rows: per operation and per call, for DataFrames.
        std::vector<std::tuple<std::string, std::string, std::uint64_t, double, std::vector<double>>> operations;
        std::vector<std::tuple<std::string, std::string, std::string, std::string, std::uint32_t, double, bool>> calls;
        for (const TracedOperation& op : imported.workload.operations) {
          std::vector<double> samples;
          samples.reserve(op.self_times.size());
          for (Duration d : op.self_times) samples.push_back(static_cast<double>(d.count()) / 1e9);
          operations.emplace_back(op.service, op.operation, op.requests,
                                  static_cast<double>(op.self_time_mean.count()) / 1e9, std::move(samples));
          for (const TracedCall& c : op.calls)
            calls.emplace_back(op.service, op.operation, c.service, c.operation, c.count, c.probability, c.parallel);
        }
        std::vector<std::tuple<std::string, std::string, std::uint64_t, std::vector<double>>> entries;
        for (const TracedEntry& e : imported.workload.entries)
          entries.emplace_back(e.service, e.operation, e.requests, e.rates);
        return std::tuple{imported.scenario_yaml,
                          notes,
                          operations,
                          calls,
                          entries,
                          static_cast<double>(imported.workload.window.count()) / 1e9,
                          imported.workload.traces,
                          imported.workload.spans};
      },
      py::arg("scenario_file"), py::arg("paths"), py::arg("sampling"), py::arg("window_ns"), py::arg("max_samples"),
      py::arg("service_names"),
      "(scenario YAML, notes, operations (service, operation, requests, mean self time s, samples s), calls (service, "
      "operation, callee, callee operation, count, probability, parallel), entries (service, operation, requests, "
      "rates per window), window s, traces, spans) of drsim import traces.");
}

}  // namespace drsim::python

// drsim import kubernetes: the scenario on stdout or in --out, the notes on stderr (one per line, then a
// count), so that `drsim import kubernetes k8s/ > scenario.yaml` keeps the two apart.
#include <cerrno>
#include <fstream>
#include <map>
#include <string>

#include "cli/commands.h"
#include "io/experiment_import.h"
#include "io/kubernetes_import.h"
#include "io/output_error.h"
#include "io/trace_import.h"
#include "io/scenario_loader.h"

namespace drsim::cli {

namespace {

void write_output(const Arguments& args, const Console& console, const std::string& text) {
  if (args.out_file.empty()) {
    std::fputs(text.c_str(), console.out);
    return;
  }
  std::ofstream out(args.out_file, std::ios::binary | std::ios::trunc);
  out << text;
  out.flush();
  if (!out)
    throw OutputError(std::error_code(errno ? errno : EIO, std::generic_category()), "cannot write", args.out_file);
}

int import_experiment_command(const Arguments& args, const Console& console) {
  const Scenario scenario = load_scenario_file(args.scenario_file);
  ExperimentImportOptions options;
  if (args.experiment_at) options.start = *args.experiment_at;
  for (const auto& [from, to] : args.zone_map) options.zone_names[from] = to;
  const std::vector<std::filesystem::path> inputs(args.inputs.begin(), args.inputs.end());
  const ExperimentImport imported = import_experiment(scenario, inputs, options);
  for (const ImportNote& n : imported.notes) std::fprintf(console.err, "%s\n", n.to_string().c_str());
  write_output(args, console, scenario_file_with_steps(args.scenario_file, imported));
  std::fprintf(console.err, "drsim import: %zu timeline steps from %zu files, %zu notes%s%s\n", imported.steps.size(),
               inputs.size(), imported.notes.size(), args.out_file.empty() ? "" : "; scenario written to ",
               args.out_file.c_str());
  return kExitOk;
}

int import_traces_command(const Arguments& args, const Console& console) {
  TraceImportOptions options;
  if (args.sampling) options.workload.sampling = *args.sampling;
  if (args.window) options.workload.window = *args.window;
  if (args.max_samples) options.workload.max_samples = *args.max_samples;
  for (const auto& [from, to] : args.service_map) options.service_names[from] = to;
  const std::vector<std::filesystem::path> inputs(args.inputs.begin(), args.inputs.end());
  const TraceImport imported = import_traces(args.scenario_file, inputs, options);
  for (const ImportNote& n : imported.notes) std::fprintf(console.err, "%s\n", n.to_string().c_str());
  write_output(args, console, imported.scenario_yaml);
  std::fprintf(console.err,
               "drsim import: %zu operations and %zu entry points from %zu traces (%zu spans) in %zu files, %zu "
               "notes%s%s\n",
               imported.workload.operations.size(), imported.workload.entries.size(), imported.workload.traces,
               imported.workload.spans, inputs.size(), imported.notes.size(),
               args.out_file.empty() ? "" : "; scenario written to ", args.out_file.c_str());
  return kExitOk;
}

}  // namespace

int import_command(const Arguments& args, const Console& console) {
  if (args.import_kind == "experiment") return import_experiment_command(args, console);
  if (args.import_kind == "traces") return import_traces_command(args, console);
  KubernetesImportOptions options;
  options.zones = args.zones;
  if (!args.region.empty()) options.region = args.region;
  if (!args.name.empty()) options.scenario_name = args.name;
  options.namespace_name = args.namespace_name;
  for (const auto& [from, to] : args.metric_names) options.metric_names[from] = to;
  const std::vector<std::filesystem::path> inputs(args.inputs.begin(), args.inputs.end());
  const KubernetesImport imported = import_kubernetes(inputs, options);
  for (const ImportNote& n : imported.notes) std::fprintf(console.err, "%s\n", n.to_string().c_str());
  write_output(args, console, imported.scenario_yaml);
  std::string skipped;
  if (imported.skipped > 0) skipped = " (" + std::to_string(imported.skipped) + " of other namespaces left out)";
  std::fprintf(console.err, "drsim import: %zu objects from %zu files%s, %zu notes%s%s\n", imported.objects,
               imported.files, skipped.c_str(), imported.notes.size(),
               args.out_file.empty() ? "" : "; scenario written to ", args.out_file.c_str());
  return kExitOk;
}

}  // namespace drsim::cli

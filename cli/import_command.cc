// drsim import kubernetes: the scenario on stdout or in --out, the notes on stderr (one per line, then a
// count), so that `drsim import kubernetes k8s/ > scenario.yaml` keeps the two apart.
#include <cerrno>
#include <fstream>
#include <map>
#include <string>

#include "cli/commands.h"
#include "io/kubernetes_import.h"
#include "io/output_error.h"

namespace drsim::cli {

int import_command(const Arguments& args, const Console& console) {
  KubernetesImportOptions options;
  options.zones = args.zones;
  if (!args.region.empty()) options.region = args.region;
  if (!args.name.empty()) options.scenario_name = args.name;
  options.namespace_name = args.namespace_name;
  for (const auto& [from, to] : args.metric_names) options.metric_names[from] = to;
  const std::vector<std::filesystem::path> inputs(args.inputs.begin(), args.inputs.end());
  const KubernetesImport imported = import_kubernetes(inputs, options);
  for (const ImportNote& n : imported.notes) std::fprintf(console.err, "%s\n", n.to_string().c_str());
  if (args.out_file.empty()) {
    std::fputs(imported.scenario_yaml.c_str(), console.out);
  } else {
    std::ofstream out(args.out_file, std::ios::binary | std::ios::trunc);
    out << imported.scenario_yaml;
    out.flush();
    if (!out)
      throw OutputError(std::error_code(errno ? errno : EIO, std::generic_category()), "cannot write", args.out_file);
  }
  std::string skipped;
  if (imported.skipped > 0) skipped = " (" + std::to_string(imported.skipped) + " of other namespaces left out)";
  std::fprintf(console.err, "drsim import: %zu objects from %zu files%s, %zu notes%s%s\n", imported.objects,
               imported.files, skipped.c_str(), imported.notes.size(),
               args.out_file.empty() ? "" : "; scenario written to ", args.out_file.c_str());
  return kExitOk;
}

}  // namespace drsim::cli

// The bytes as a manifest file -> drsim import kubernetes. Besides "no exception but ScenarioError", the
// importer promises that what it writes loads as a scenario (it loads its output before returning it; a
// ScenarioError from that load would be the importer's bug, so the output is loaded again here and must pass).
// The zones are given, so that a manifest set without Nodes imports too.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.h"
#include "io/kubernetes_import.h"
#include "io/scenario_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace drsim;
  KubernetesImportOptions options;
  options.zones = {"zone-a", "zone-b", "zone-c"};
  KubernetesImport imported;
  if (!fuzz::survives("import_kubernetes", [&] {
        imported = import_kubernetes_texts({{"manifest.yaml", std::string(fuzz::as_text(data, size))}}, options);
      })) {
    return 0;
  }
  if (!fuzz::load(imported.scenario_yaml)) {
    fuzz::report_bug("loading the imported scenario",
                     "the loader rejects the importer's output:\n" + imported.scenario_yaml);
  }
  return 0;
}

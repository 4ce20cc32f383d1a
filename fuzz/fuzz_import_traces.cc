// The bytes as a trace file (OTLP, Jaeger or Zipkin JSON) -> drsim import traces against the shipped shop
// (scenarios/online_boutique_zone_loss.yaml). Besides "no exception but ScenarioError", the importer promises that
// the scenario with the workload loads: it loads its result itself, so the result is loaded again here and must
// pass.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.h"
#include "io/scenario_loader.h"
#include "io/trace_import.h"


extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace drsim;
  TraceImportOptions options;
  options.workload.window = std::chrono::seconds(10);
  TraceImport imported;
  if (!fuzz::survives("import_traces", [&] {
        imported = import_traces_texts(fuzz::shop_scenario_text(), fuzz::shop_scenario_file(),
                                       {{"traces.json", std::string(fuzz::as_text(data, size))}}, options);
      })) {
    return 0;
  }
  if (!fuzz::load(imported.scenario_yaml)) {
    fuzz::report_bug("loading the scenario with the traces' workload", "the loader rejects it:\n" +
                                                                          imported.scenario_yaml);
  }
  return 0;
}

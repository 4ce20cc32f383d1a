// The bytes as an experiment file (AWS FIS JSON or Chaos Mesh YAML) -> drsim import experiment against the
// shipped shop (scenarios/online_boutique_zone_loss.yaml, three zones; us-east-1a is mapped to its zone-a).
// Besides "no exception but ScenarioError", the importer promises that the scenario with the steps loads: a
// ScenarioError from scenario_with_steps is fine only because it loads its result itself, so the result is
// loaded again here and must pass.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.h"
#include "io/experiment_import.h"
#include "io/scenario_loader.h"

namespace {

const drsim::Scenario& base_scenario() {
  static const drsim::Scenario scenario = drsim::load_scenario_file(drsim::fuzz::shop_scenario_file());
  return scenario;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace drsim;
  ExperimentImportOptions options;
  options.zone_names["us-east-1a"] = "zone-a";
  ExperimentImport imported;
  if (!fuzz::survives("import_experiment", [&] {
        imported = import_experiment_texts(base_scenario(),
                                           {{"experiment.json", std::string(fuzz::as_text(data, size))}}, options);
      })) {
    return 0;
  }
  std::string text;
  if (!fuzz::survives("scenario_with_steps",
                      [&] { text = scenario_with_steps(fuzz::shop_scenario_text(), fuzz::shop_scenario_file(), imported); })) {
    fuzz::report_bug("scenario_with_steps", "the steps the importer made do not load with their scenario");
  }
  if (!fuzz::load(text)) fuzz::report_bug("loading the scenario with the steps", "the loader rejects it:\n" + text);
  return 0;
}

// The bytes as a scenario file -> the loader. Besides "no exception but
// ScenarioError", the loader promises that its resolved YAML (to_yaml, what
// `drsim describe --resolved` and the Python sweeps write) loads back to the
// same scenario: the resolved text of the reloaded scenario must be the same.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.h"
#include "io/scenario_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace drsim;
  const std::optional<Scenario> scenario = fuzz::load(fuzz::as_text(data, size));
  if (!scenario) return 0;
  std::string resolved;
  fuzz::survives("to_yaml", [&] { resolved = to_yaml(*scenario); });
  const std::optional<Scenario> reloaded_scenario = fuzz::load(resolved);
  if (!reloaded_scenario) {
    fuzz::report_bug("reloading the resolved YAML", "the loader rejects its own resolved YAML:\n" + resolved);
  }
  std::string reloaded;
  fuzz::survives("to_yaml of the reloaded scenario", [&] { reloaded = to_yaml(*reloaded_scenario); });
  if (reloaded != resolved) {
    fuzz::report_bug("reloading the resolved YAML",
                     "the resolved YAML changed on reloading:\n" + resolved + "\n--- reloaded ---\n" + reloaded);
  }
  return 0;
}

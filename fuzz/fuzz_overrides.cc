// The bytes as up to four `--set path=value` overrides, one per line, applied
// to a shipped scenario (the first byte picks which: one with its topology in
// a file, so overrides also reach into that file, and ones written inline).
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

#include "fuzz/fuzz_support.h"
#include "io/scenario_loader.h"

namespace {

// Small, and together they have every kind of list a path can select into.
constexpr std::array<const char*, 4> kBaseScenarios = {
    "default.yaml",                         // topology file, timeline with startAfter
    "three_region_database_failover.yaml",  // inline topology, databases
    "kafka_second_zone_loss.yaml",          // topics
    "az_failure_hpa_trap.yaml",             // kubernetes
};

const drsim::Scenario& base_scenario(std::size_t index) {
  static const std::array<drsim::Scenario, kBaseScenarios.size()> scenarios = [] {
    std::array<drsim::Scenario, kBaseScenarios.size()> loaded;
    for (std::size_t i = 0; i < kBaseScenarios.size(); ++i) {
      loaded[i] = drsim::load_scenario_file(std::filesystem::path(DRSIM_FUZZ_BASE_DIR) / kBaseScenarios[i]);
    }
    return loaded;
  }();
  return scenarios[index];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace drsim;
  if (size == 0) return 0;
  const Scenario& base = base_scenario(data[0] % kBaseScenarios.size());
  const std::vector<std::string> overrides = fuzz::split_overrides(fuzz::as_text(data + 1, size - 1), 4);
  Scenario scenario;
  if (!fuzz::survives("with_overrides", [&] { scenario = with_overrides(base, overrides); })) return 0;
  fuzz::survives("describe", [&] { describe(scenario); });
  return 0;
}

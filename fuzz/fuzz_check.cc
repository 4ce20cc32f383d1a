// The bytes as a scenario file -> `drsim check` (the N+1 report, text and
// JSON, as check_command calls it) and `drsim describe`.
#include <cstdint>

#include "analysis/n_plus_one.h"
#include "fuzz/fuzz_support.h"
#include "io/scenario_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace drsim;
  const std::optional<Scenario> scenario = fuzz::load(fuzz::as_text(data, size));
  if (!scenario) return 0;
  fuzz::survives("describe", [&] { describe(*scenario); });
  if (!fuzz::small_enough(*scenario)) return 0;
  fuzz::survives("n_plus_one", [&] {
    const DeploymentConfig& deployment = scenario->spec.topology.config;
    NPlusOneReport report;
    try {
      report = n_plus_one(deployment, deployment.services, scenario->spec.load, 0.8, deployment.databases,
                          scenario->spec.kubernetes.has_value());
    } catch (const CheckUnsupported&) {
      return;  // said, as drsim check says it: not a bug
    }
    format_report(report);
    format_report_json(report);
  });
  return 0;
}

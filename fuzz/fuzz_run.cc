// The bytes as a scenario file -> `drsim run` for its first seconds: the
// simulation's build, the timeline's first steps, the summary and the
// objectives. The horizon and an event guard bound the work of one input.
#include <chrono>
#include <cstdint>

#include "fuzz/fuzz_support.h"
#include "io/objective_evaluation.h"
#include "io/result_writer.h"
#include "io/run.h"

namespace {

constexpr drsim::Duration kMaxHorizon = std::chrono::seconds(10);
constexpr std::uint64_t kMaxEvents = 20'000;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace drsim;
  std::optional<Scenario> scenario = fuzz::load(fuzz::as_text(data, size));
  if (!scenario || !fuzz::small_enough(*scenario)) return 0;
  GuardsConfig& guards = scenario->spec.guards;
  if (guards.max_events == 0 || guards.max_events > kMaxEvents) guards.max_events = kMaxEvents;
  guards.max_events_per_instant = std::min<std::uint64_t>(guards.max_events_per_instant, kMaxEvents);
  RunOptions options;
  options.until = std::min(scenario->spec.duration, kMaxHorizon);
  fuzz::survives("run_scenario", [&] {
    const RunResult result = run_scenario(*scenario, options);
    summary_text(result);
    if (result.outcome.complete()) objective_report(result);
  });
  return 0;
}

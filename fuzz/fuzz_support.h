#pragma once
// What the fuzz targets share: the bytes as scenario text, loaded as the CLI
// loads a file, and the CLI's contract as the oracle. A ScenarioError is bad
// input (exit 2), a normal outcome; any other exception would be exit 1,
// "internal error", so it is a finding and the target aborts for libFuzzer
// to report it.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/scenario.h"
#include "io/scenario_error.h"

namespace drsim::fuzz {

// The bytes as text; a scenario file is bytes too (the loader checks UTF-8).
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Prints what went wrong and aborts: libFuzzer saves the input as a crash.
[[noreturn]] void report_bug(std::string_view stage, std::string_view what);

// Runs step(); a ScenarioError is fine (returns false), another exception is
// reported as a bug from `stage`.
template <class Step>
bool survives(std::string_view stage, Step&& step) {
  try {
    step();
    return true;
  } catch (const ScenarioError&) {
    return false;
  } catch (const std::exception& e) {
    report_bug(stage, e.what());
  } catch (...) {
    report_bug(stage, "unknown exception");
  }
}

// load_scenario_text with file references resolved against the repository's
// scenarios/ directory (the seeds' topology and CSV files live there); none
// for bad input.
std::optional<Scenario> load(std::string_view text, const std::vector<std::string>& overrides = {});

// The shipped shop (scenarios/online_boutique_zone_loss.yaml) the import targets run against: its path and its
// text, read once.
const std::string& shop_scenario_file();
const std::string& shop_scenario_text();

// Bounds the work of one input for the targets that go past loading: a slow
// input is reported as a hang, and a big topology is slow without being
// wrong (drsim check's cost grows with zones x services).
bool small_enough(const Scenario& scenario);

// The overrides in the bytes: one per line, at most max_count (the rest is
// ignored), as `--set` gives them.
std::vector<std::string> split_overrides(std::string_view text, std::size_t max_count);

}  // namespace drsim::fuzz

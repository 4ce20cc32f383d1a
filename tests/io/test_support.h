#pragma once
// Helpers for the io tests. Every test runs from the source tree (see
// test_support.cc), so paths in expected messages read as a user running
// drsim from the repository root sees them: "tests/data/...".
#include <string>
#include <string_view>
#include <vector>

#include "io/scenario_loader.h"

namespace drsim::testing {

// The ScenarioError's message (every diagnostic, one per line) thrown by f,
// or "no error" when f returns.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

inline std::string load_error(std::string_view text, const std::vector<std::string>& overrides = {}) {
  return error_of([&] { load_scenario_text(text, overrides); });
}

// A valid scenario with two regions (eu-west-1: eu-west-1a, eu-west-1b;
// us-east-1: us-east-1a) and link eu-us, then `spec_tail` appended inside
// spec (indented two spaces). Line 15 is the first line of spec_tail.
std::string scenario_with(std::string_view spec_tail);

}  // namespace drsim::testing

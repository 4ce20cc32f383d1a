#pragma once
// Running a scenario written inline in a test, as the scenario-level tests of
// the traffic and Kubernetes models do.
#include <gtest/gtest.h>

#include <string>

#include "io/run.h"
#include "io/scenario_loader.h"

namespace drsim::test_support {

// Loads the YAML text and runs it; the run must reach its horizon.
inline RunResult run_text(const std::string& text) {
  RunResult run = run_scenario(load_scenario_text(text));
  EXPECT_EQ(run.outcome.reason, StopReason::kHorizon);
  return run;
}

}  // namespace drsim::test_support

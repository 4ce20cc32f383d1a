#pragma once
// Scenario -> built Simulation -> run. The CLI and Python both go through here.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "io/scenario.h"
#include "sim/simulation.h"

namespace drsim {

struct RunOptions {
  std::optional<std::uint64_t> seed;  // default: spec.seed
  std::optional<Duration> until;      // default: spec.duration
  const std::atomic<bool>* stop_flag = nullptr;
  std::function<void(const RunProgress&)> progress;
};

struct RunResult {
  Scenario scenario;
  std::uint64_t seed = 0;
  SimTime horizon{};
  RunOutcome outcome;
  std::unique_ptr<Simulation> simulation;  // finished; holds the Recorder

  const Recorder& recorder() const { return simulation->recorder(); }
};

// Builds the components the scenario describes, wired to its timeline. Run
// it with run_simulation_until (sim/simgrid/flow_network_component.h): in
// network-fidelity mode (spec.network.fidelity: flows) the flows progress
// only inside SimGrid's loop, which Simulation::run_until does not enter.
std::unique_ptr<Simulation> build_simulation(const Scenario& scenario, SimulationOptions options);
// Builds, runs until the horizon (or a guard), and finishes the simulation.
RunResult run_scenario(const Scenario& scenario, const RunOptions& options = {});

}  // namespace drsim

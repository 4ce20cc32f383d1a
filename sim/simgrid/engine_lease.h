#pragma once
// Process-wide ownership of SimGrid's engine.
//
// simgrid::s4u::Engine is a singleton: one per process, with global state
// (the clock, the configuration, the logging thresholds). So at most ONE
// network-fidelity simulation can run in a process at a time. A sweep that
// runs simulations in threads must run the network-fidelity ones one after
// the other, and the Python bindings must serialise them (hold a lock around
// the run, or use one process per run). A second concurrent lease throws a
// SimulationError that says so, instead of crashing inside SimGrid.
//
// Sequential use is fine: the engine is created for a run and destroyed at
// its end, and the next run creates a new one. SimGrid 3.32 does NOT reset
// its clock when a new engine is created (it keeps counting from where the
// previous engine stopped), so callers anchor drsim's time to the SimGrid
// clock they find (see clock_map.h) and never assume it starts at zero.
//
// Logging: SimGrid prints log lines (configuration changes, warnings). They
// are silenced (threshold "critical") unless debug_log is set, or the
// environment variable DRSIM_SIMGRID_LOG holds an xbt log setting such as
// "root.thres:debug".
#include <cstdint>
#include <memory>

namespace simgrid::s4u {
class Engine;
}

namespace drsim::simgrid_backend {

class EngineLease {
 public:
  // Throws SimulationError if an engine already exists in this process.
  explicit EngineLease(bool debug_log = false);
  ~EngineLease();
  EngineLease(const EngineLease&) = delete;
  EngineLease& operator=(const EngineLease&) = delete;

  simgrid::s4u::Engine& engine() { return *engine_; }

  // Number of engines created so far in this process: a simulation that
  // starts no flow leaves it unchanged.
  static std::uint64_t engines_created();
  // True while some lease holds the engine.
  static bool busy();

 private:
  std::unique_ptr<simgrid::s4u::Engine> engine_;
};

}  // namespace drsim::simgrid_backend

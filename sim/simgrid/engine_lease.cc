#include "sim/simgrid/engine_lease.h"

#include <xbt/log.h>

#include <atomic>
#include <cstdlib>
#include <simgrid/s4u/Engine.hpp>
#include <string>

#include "sim/errors.h"

namespace drsim::simgrid_backend {
namespace {

std::atomic<bool> g_busy{false};
std::atomic<std::uint64_t> g_created{0};

}  // namespace

EngineLease::EngineLease(bool debug_log) {
  bool expected = false;
  if (!g_busy.compare_exchange_strong(expected, true) || simgrid::s4u::Engine::has_instance()) {
    if (!expected) g_busy.store(false);  // we took the flag only to find an engine made by someone else
    throw SimulationError(
        "SimGrid's engine is already in use in this process: SimGrid allows one engine per process, so only one "
        "network-fidelity simulation (a scenario with bulk flows) can run at a time; run them one after the other "
        "(the Python bindings must serialise them) or in separate processes");
  }
  try {
    const char* env = std::getenv("DRSIM_SIMGRID_LOG");
    // Set before the engine exists, so that even its first lines obey it.
    if (env != nullptr && *env != '\0') {
      xbt_log_control_set(env);
    } else {
      xbt_log_control_set(debug_log ? "root.thres:info" : "root.thres:critical");
    }
    engine_ = std::make_unique<simgrid::s4u::Engine>("drsim");
    g_created.fetch_add(1);
  } catch (...) {
    g_busy.store(false);
    throw;
  }
}

EngineLease::~EngineLease() {
  engine_.reset();
  g_busy.store(false);
}

std::uint64_t EngineLease::engines_created() { return g_created.load(); }
bool EngineLease::busy() { return g_busy.load(); }

}  // namespace drsim::simgrid_backend

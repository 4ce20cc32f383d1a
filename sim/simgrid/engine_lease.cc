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
#if defined(__SANITIZE_ADDRESS__)
    // SimGrid's default contexts switch stacks by hand; AddressSanitizer
    // then misreads an exception unwinding an actor's stack as a stack
    // error (google/sanitizers#189). System threads as contexts keep every
    // stack known to it; the simulated behaviour is the same. It must be
    // given at the engine's creation.
    char name[] = "drsim";
    char factory[] = "--cfg=contexts/factory:thread";
    char* argv[] = {name, factory, nullptr};
    int argc = 2;
    engine_ = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
#else
    engine_ = std::make_unique<simgrid::s4u::Engine>("drsim");
#endif
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

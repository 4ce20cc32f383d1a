#pragma once
// A SimGridFlowNetwork owned by the Simulation it runs in, as one of its
// components, and the one entry point that runs a simulation whichever mode
// it was built in.
//
// Why a component: the network's completion events sit in the Simulation's
// queue and point to it, and the models (replication transports, transfers)
// hold references to it; owned by the Simulation, it lives exactly as long as
// they do, wherever the Simulation goes (a RunResult handed to Python).
//
// Why run_simulation_until serialises: SimGrid's engine is one per process
// (engine_lease.h). Two network-fidelity runs in threads of one process would
// make the second fail; here the second waits for the first instead. Runs
// without a FlowNetworkComponent never wait and never touch SimGrid.
#include <string_view>

#include "sim/component.h"
#include "sim/simgrid/simgrid_flow_network.h"
#include "sim/simulation.h"

namespace drsim {

class FlowNetworkComponent final : public Component {
 public:
  static constexpr std::string_view kName = "flow-network";

  FlowNetworkComponent(Simulation& sim, FlowPlatform platform, SimGridOptions options = {});

  SimGridFlowNetwork& network() { return network_; }
  const SimGridFlowNetwork& network() const { return network_; }

 private:
  SimGridFlowNetwork network_;
};

// Runs `sim` until horizon: through its FlowNetworkComponent's
// network-fidelity loop when it has one (one such run at a time per process;
// others wait), else with Simulation::run_until.
RunOutcome run_simulation_until(Simulation& sim, SimTime horizon);

}  // namespace drsim

#include "sim/simgrid/flow_network_component.h"

#include <mutex>
#include <string>
#include <utility>

namespace drsim {

FlowNetworkComponent::FlowNetworkComponent(Simulation& sim, FlowPlatform platform, SimGridOptions options)
    : Component(std::string(kName)), network_(sim, std::move(platform), options) {}

RunOutcome run_simulation_until(Simulation& sim, SimTime horizon) {
  auto* flows = sim.find<FlowNetworkComponent>(FlowNetworkComponent::kName);
  if (flows == nullptr) return sim.run_until(horizon);
  static std::mutex engine_in_use;
  const std::lock_guard<std::mutex> lock(engine_in_use);
  return flows->network().run_until(horizon);
}

}  // namespace drsim

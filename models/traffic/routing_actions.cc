#include "models/traffic/routing_actions.h"

#include <map>
#include <memory>
#include <string>

#include "sim/errors.h"

namespace drsim {

void register_routing_actions(Timeline& timeline, std::vector<ClientPopulation*> populations,
                              const Topology& topology) {
  // The weight each step replaced, to put back on undo. Steps have unique names.
  auto replaced = std::make_shared<std::map<std::string, double>>();
  timeline.on("routing:weight", [populations, &topology, replaced](const ActionConfig& a, ActionPhase phase) {
    // The loader has checked the targets; a miss here is a bug.
    GeoRouter* router = nullptr;
    for (ClientPopulation* p : populations) {
      if (p->config().name == a.target.population) router = p->router();
    }
    if (router == nullptr) {
      throw SimulationError("step \"" + a.name + "\": population \"" + a.target.population + "\" has no routing");
    }
    const auto region = topology.find_region(a.target.region);
    if (!region) throw SimulationError("step \"" + a.name + "\": unknown region \"" + a.target.region + "\"");
    if (phase == ActionPhase::kApply) {
      if (!a.weight) throw SimulationError("step \"" + a.name + "\": routing:weight needs weight");
      (*replaced)[a.name] = router->weight(*region);
      router->set_weight(*region, *a.weight);
      return;
    }
    const auto it = replaced->find(a.name);
    if (it != replaced->end()) router->set_weight(*region, it->second);
  });
}

}  // namespace drsim

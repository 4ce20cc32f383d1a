#include "models/traffic/routing_actions.h"

#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "sim/errors.h"

namespace drsim {

namespace {
std::string format_weight(double w) {
  std::ostringstream out;
  out << w;
  return out.str();
}
}  // namespace

void register_routing_actions(Timeline& timeline, std::vector<ClientPopulation*> populations,
                              const Topology& topology, RulesStoreLookup rules_store) {
  // The weight each step replaced, to put back on undo. Steps have unique names.
  auto replaced = std::make_shared<std::map<std::string, double>>();
  timeline.on("routing:weight", [populations, &topology, replaced, rules_store](const ActionConfig& a,
                                                                                ActionPhase phase) {
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
    RoutingRulesStore* store = rules_store ? rules_store(a.target.population) : nullptr;
    const RegionIndex r = *region;
    if (phase == ActionPhase::kApply) {
      if (!a.weight) throw SimulationError("step \"" + a.name + "\": routing:weight needs weight");
      const double weight = *a.weight;
      apply_routing_change(store, a.name + ": weight of " + a.target.region + " to " + format_weight(weight),
                           [router, r, weight, replaced, name = a.name] {
                             (*replaced)[name] = router->weight(r);
                             router->set_weight(r, weight);
                           });
      return;
    }
    apply_routing_change(store, a.name + " undone: weight of " + a.target.region + " restored",
                         [router, r, replaced, name = a.name] {
                           const auto it = replaced->find(name);
                           if (it != replaced->end()) router->set_weight(r, it->second);
                         });
  });
}

}  // namespace drsim

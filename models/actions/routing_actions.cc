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
                              const Topology& topology, RulesStoreLookup rules_store,
                              SchedulerLookup schedulers) {
  // The weight each step replaced, to put back on undo. Steps have unique names.
  auto replaced = std::make_shared<std::map<std::string, double>>();
  timeline.on("routing:weight", [populations, &topology, replaced, rules_store, schedulers](const ActionConfig& a,
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
    if (TrafficScheduler* scheduler = schedulers ? schedulers(a.target.population) : nullptr) {
      // The scheduler owns the weights: the edit becomes the region's planned weight.
      if (phase == ActionPhase::kApply) {
        if (!a.weight) throw SimulationError("step \"" + a.name + "\": routing:weight needs weight");
        (*replaced)[a.name] = scheduler->planned_weight(r);
        scheduler->set_planned_weight(r, *a.weight);
      } else if (const auto it = replaced->find(a.name); it != replaced->end()) {
        scheduler->set_planned_weight(r, it->second);
      }
      return;
    }
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

  timeline.on("routing:switch", [&topology, schedulers](const ActionConfig& a, ActionPhase phase) {
    // The loader has checked the targets and that the population has a scheduler; a miss here is a bug.
    TrafficScheduler* scheduler = schedulers ? schedulers(a.target.population) : nullptr;
    if (scheduler == nullptr) {
      throw SimulationError("step \"" + a.name + "\": population \"" + a.target.population +
                            "\" has no traffic scheduler");
    }
    const auto find = [&](const std::string& name) {
      const auto region = topology.find_region(name);
      if (!region) throw SimulationError("step \"" + a.name + "\": unknown region \"" + name + "\"");
      return *region;
    };
    std::vector<RegionIndex> to;
    for (const std::string& name : a.to_regions.value_or(std::vector<std::string>{})) to.push_back(find(name));
    const bool back = (phase == ActionPhase::kUndo) != a.reverse.value_or(false);
    scheduler->start_switch(a.name, find(a.target.region), std::move(to),
                            a.steps.value_or(std::vector<RoutingSwitchStep>{}), back);
  });
}

}  // namespace drsim

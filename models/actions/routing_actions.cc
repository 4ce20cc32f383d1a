// routing:weight, routing:switch and cdn:fail: the populations' geo routing,
// traffic schedulers and CDN vendors.
//
// routing:weight: an operator edits a population's geo routing (a DNS
// weighted record) by hand. Undoing it restores the weight the region had
// when the step applied. A population whose routing names a rulesStore
// changes only once the store's consensus group has committed the change
// (models/traffic/routing_rules_store.h), the undo included. A population
// with a traffic scheduler (routing.scheduler) takes the edit as its planned
// weight, so that its failovers keep it.
//
// routing:switch: the population's traffic scheduler moves a region's share
// to other regions in stages, and back on undo (models/traffic/traffic_scheduler.h).
//
// cdn:fail: a CDN vendor fails everywhere (every population's edges of that
// vendor refuse connections; their monitors move the CNAME off it). Undoing
// it brings the vendor back. A vendor failing in one geography only is a
// zone:fail of its PoP's zone.
#include <sstream>
#include <string>
#include <vector>

#include "models/actions/action_config.h"
#include "models/actions/action_context.h"
#include "models/actions/action_handlers.h"
#include "models/topology/failure_domains.h"
#include "models/traffic/cdn_edges.h"
#include "models/traffic/client_population.h"
#include "models/traffic/routing_rules_store.h"
#include "models/traffic/traffic_scheduler.h"
#include "sim/errors.h"

namespace drsim::action_handlers {

namespace {
std::string format_weight(double w) {
  std::ostringstream out;
  out << w;
  return out.str();
}

template <class Value>
Value* find_by_population(const std::map<std::string, Value*, std::less<>>& by_population, const ActionConfig& a) {
  const auto it = by_population.find(a.target.population);
  return it == by_population.end() ? nullptr : it->second;
}

RegionIndex region(const ActionContext& context, const ActionConfig& a, const std::string& name) {
  const auto r = context.domains == nullptr ? std::nullopt : context.domains->topology().find_region(name);
  if (!r) throw SimulationError("step \"" + a.name + "\": unknown region \"" + name + "\"");
  return *r;
}
}  // namespace

void routing_weight(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  // The loader has checked the targets; a miss here is a bug.
  GeoRouter* router = nullptr;
  for (ClientPopulation* p : context.populations) {
    if (p->config().name == a.target.population) router = p->router();
  }
  if (router == nullptr) {
    throw SimulationError("step \"" + a.name + "\": population \"" + a.target.population + "\" has no routing");
  }
  const RegionIndex r = region(context, a, a.target.region);
  RoutingRulesStore* store = find_by_population(context.rules_stores, a);
  auto& replaced = context.replaced_weights;
  if (TrafficScheduler* scheduler = find_by_population(context.schedulers, a)) {
    // The scheduler owns the weights: the edit becomes the region's planned weight.
    if (phase == ActionPhase::kApply) {
      if (!a.weight) throw SimulationError("step \"" + a.name + "\": routing:weight needs weight");
      replaced[a.name] = scheduler->planned_weight(r);
      scheduler->set_planned_weight(r, *a.weight);
    } else if (const auto it = replaced.find(a.name); it != replaced.end()) {
      scheduler->set_planned_weight(r, it->second);
    }
    return;
  }
  // The change may apply later (once the rules store commits it): it finds
  // the context's map then, which lives as long as the timeline.
  if (phase == ActionPhase::kApply) {
    if (!a.weight) throw SimulationError("step \"" + a.name + "\": routing:weight needs weight");
    const double weight = *a.weight;
    apply_routing_change(store, a.name + ": weight of " + a.target.region + " to " + format_weight(weight),
                         [router, r, weight, &replaced, name = a.name] {
                           replaced[name] = router->weight(r);
                           router->set_weight(r, weight);
                         });
    return;
  }
  apply_routing_change(store, a.name + " undone: weight of " + a.target.region + " restored",
                       [router, r, &replaced, name = a.name] {
                         const auto it = replaced.find(name);
                         if (it != replaced.end()) router->set_weight(r, it->second);
                       });
}

void routing_switch(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  // The loader has checked the targets and that the population has a scheduler; a miss here is a bug.
  TrafficScheduler* scheduler = find_by_population(context.schedulers, a);
  if (scheduler == nullptr) {
    throw SimulationError("step \"" + a.name + "\": population \"" + a.target.population +
                          "\" has no traffic scheduler");
  }
  std::vector<RegionIndex> to;
  for (const std::string& name : a.to_regions.value_or(std::vector<std::string>{})) {
    to.push_back(region(context, a, name));
  }
  const bool back = (phase == ActionPhase::kUndo) != a.reverse.value_or(false);
  scheduler->start_switch(a.name, region(context, a, a.target.region), std::move(to),
                          a.steps.value_or(std::vector<RoutingSwitchStep>{}), back);
}

void cdn_fail(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  // The loader has checked that some population's cdn lists the vendor.
  for (CdnEdges* cdn : context.cdns) cdn->set_vendor_down(a.target.vendor, phase == ActionPhase::kApply);
}

}  // namespace drsim::action_handlers

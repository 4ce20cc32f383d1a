#pragma once
// The timeline's routing:weight action: an operator edits a population's geo
// routing (a DNS weighted record) by hand. Undoing it restores the weight the
// region had when the step applied. A population whose routing names a
// rulesStore changes only once the store's consensus group has committed the
// change (models/traffic/routing_rules_store.h), the undo included.
// A population with a traffic scheduler (routing.scheduler) takes the edit as
// its planned weight, so that its failovers keep it.
//
// routing:switch: the population's traffic scheduler moves a region's share
// to other regions in stages, and back on undo
// (models/traffic/traffic_scheduler.h).
#include <functional>
#include <string>
#include <vector>

#include "models/timeline/timeline.h"
#include "models/topology/topology.h"
#include "models/traffic/client_population.h"
#include "models/traffic/routing_rules_store.h"
#include "models/traffic/traffic_scheduler.h"

namespace drsim {

// rules_store: the store of a population, by name (null, or an empty
// function: changes apply at once). Looked up when a step runs.
using RulesStoreLookup = std::function<RoutingRulesStore*(const std::string& population)>;
// schedulers: the traffic scheduler of a population, by name (null, or an empty function: none).
using SchedulerLookup = std::function<TrafficScheduler*(const std::string& population)>;
void register_routing_actions(Timeline& timeline, std::vector<ClientPopulation*> populations,
                              const Topology& topology, RulesStoreLookup rules_store = {},
                              SchedulerLookup schedulers = {});

}  // namespace drsim

#pragma once
// The timeline's routing:weight action: an operator edits a population's geo
// routing (a DNS weighted record) by hand. Undoing it restores the weight the
// region had when the step applied.
#include <vector>

#include "models/timeline/timeline.h"
#include "models/topology/topology.h"
#include "models/traffic/client_population.h"

namespace drsim {

void register_routing_actions(Timeline& timeline, std::vector<ClientPopulation*> populations,
                              const Topology& topology);

}  // namespace drsim

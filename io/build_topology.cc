// The topology area of the scenario (io/model_builders.h).
#include "io/model_builders.h"
#include "models/topology/failure_domains.h"
#include "models/topology/flow_platform.h"
#include "models/topology/flow_traffic.h"
#include "models/topology/flow_transfers.h"
#include "sim/errors.h"
#include "sim/quote.h"
#include "sim/simgrid/flow_network_component.h"

namespace drsim {

// The flow network of a network-fidelity run is SimGrid's flow model over the
// topology, following its failure domains (link:degrade, link:cut, zone:fail,
// region:fail reach the flows), owned by the simulation, and the component
// that records what the flows carry. In closed-form mode nothing of SimGrid
// is created.
void build_topology(const ScenarioSpec& spec, Simulation& sim, ActionContext& models) {
  FailureDomains& domains = sim.add<FailureDomains>("topology", Topology(spec.topology.config));
  models.domains = &domains;
  if (!spec.network.flows()) return;
  auto& owner =
      sim.add<FlowNetworkComponent>(sim, make_flow_platform(domains.topology(), spec.network.platform_options()));
  follow_failure_domains(domains, owner.network());
  models.flows = &sim.add<FlowTraffic>(owner.network(), domains.topology(), spec.metrics_window);
}

void build_flow_transfers(const ScenarioSpec& spec, Simulation& sim, ActionContext& models) {
  if (models.flows == nullptr) return;
  std::vector<TransferOrder> orders;
  for (const ActionConfig& a : spec.timeline) {
    if (a.action != "flow:transfer") continue;
    // The loader has checked the parameters; a miss here is a bug.
    if (!a.to || !a.size) throw SimulationError("step " + quote(a.name) + ": flow:transfer needs to and size");
    orders.push_back(TransferOrder{a.name, a.target.zone, *a.to, a.size->bytes});
  }
  models.transfers = &sim.add<FlowTransfers>(*models.flows, models.domains->topology(), orders);
}

}  // namespace drsim

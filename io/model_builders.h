#pragma once
// Internal to io/: the scenario is built area by area, one builder per model
// area (models/<area>/), each in its own file, each reading its part of the
// spec and the models of the areas below it from the registry it fills
// (ActionContext: what the timeline's actions act on). build_simulation
// (io/run.cc) calls them in order.
//
// The order is the order components join the simulation, which fixes their
// ids and so the order of same-instant events and of the recorded series:
// changing it changes outputs. It is not quite the layering order: the
// timeline joins after the services and populations (the run's first
// outputs were produced so), and services connect their calls once the
// databases exist.
#include "io/scenario.h"
#include "models/actions/action_context.h"
#include "models/actions/timeline.h"
#include "sim/simulation.h"

namespace drsim {

// models/topology: the failure domains, and in network-fidelity runs the
// flow network over them (models.flows; null in closed-form mode).
void build_topology(const ScenarioSpec& spec, Simulation& sim, ActionContext& models);
// The operator bulk copies of the timeline (flow:transfer), as flows; none
// without a flow network.
void build_flow_transfers(const ScenarioSpec& spec, Simulation& sim, ActionContext& models);

// models/service: every service, with the zones its deployment may use.
void build_services(const ScenarioSpec& spec, Simulation& sim, ActionContext& models);
// Resolves every service's calls, once the services and databases exist.
void connect_calls(ActionContext& models);

// models/traffic: the client populations and their geo routers.
void build_populations(const ScenarioSpec& spec, Simulation& sim, ActionContext& models);
// Their routing: rules stores (once the consensus groups exist), GSLB health
// checkers, traffic schedulers, CDN edges and DNS caches.
void build_routing(const ScenarioSpec& spec, Simulation& sim, ActionContext& models);

// models/actions: the timeline, which takes over the registry built so far
// and is filled in by the builders that follow (through timeline.context()).
Timeline& build_timeline(const Scenario& scenario, Simulation& sim, ActionContext models);

// models/data: databases (replicating over flows when there are flows).
void build_databases(const ScenarioSpec& spec, Simulation& sim, ActionContext& models);
void build_consensus_groups(const ScenarioSpec& spec, Simulation& sim, ActionContext& models);
// Kafka-style topics with their consumer groups, and the services that produce to them.
void build_topics(const ScenarioSpec& spec, Simulation& sim, ActionContext& models);

// models/kube: the control plane, when the scenario has one.
void build_control_plane(const ScenarioSpec& spec, Simulation& sim, ActionContext& models);

}  // namespace drsim

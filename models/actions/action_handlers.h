#pragma once
// The handlers of the action catalog (action_catalog.cc): what each timeline
// action does to the models of an ActionContext, applied at a step's start
// and undone at its end. One function per action; the catalog row names it.
// The loader has checked targets and parameters, so a target a handler cannot
// find is a bug (SimulationError), not a user's mistake.
#include "models/actions/action_catalog.h"

namespace drsim::action_handlers {

// topology_actions.cc: the failure domains and network fidelity's bulk copies.
void zone_fail(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void zone_recover(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void region_fail(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void region_recover(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void link_cut(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void link_restore(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void link_degrade(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void flow_transfer(ActionContext& context, const ActionConfig& action, ActionPhase phase);

// service_actions.cc: the services' pods and balancers.
void traffic_cut(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void service_scale(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void pods_kill(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void service_slow(ActionContext& context, const ActionConfig& action, ActionPhase phase);

// routing_actions.cc: the populations' geo routing, traffic schedulers and CDN vendors.
void routing_weight(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void routing_switch(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void cdn_fail(ActionContext& context, const ActionConfig& action, ActionPhase phase);

// kube_actions.cc: the Kubernetes control plane.
void hpa_compensate(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void deployment_compensate(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void deployment_policy(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void deployment_restart(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void deployment_scale(ActionContext& context, const ActionConfig& action, ActionPhase phase);

// database_actions.cc: the databases.
void database_kill(ActionContext& context, const ActionConfig& action, ActionPhase phase);
void database_failover(ActionContext& context, const ActionConfig& action, ActionPhase phase);

}  // namespace drsim::action_handlers

// hpa:compensate and deployment:*: the Kubernetes control plane.
#include <cstdint>
#include <optional>
#include <string>

#include "models/actions/action_config.h"
#include "models/actions/action_context.h"
#include "models/actions/action_handlers.h"
#include "models/kube/control_plane.h"
#include "sim/errors.h"
#include "sim/quote.h"

namespace drsim::action_handlers {

namespace {
KubeControlPlane& control_plane(ActionContext& context, const ActionConfig& a) {
  // The loader refuses these actions without spec.kubernetes.
  if (context.control_plane == nullptr) {
    throw SimulationError("step " + quote(a.name) + ": " + a.action + " needs spec.kubernetes");
  }
  return *context.control_plane;
}
}  // namespace

void hpa_compensate(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  control_plane(context, a)
      .set_hpa_compensation(a.target.service,
                            phase == ActionPhase::kApply ? std::optional<std::string>(a.target.zone) : std::nullopt);
}

void deployment_compensate(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  control_plane(context, a).set_replica_compensation(a.target.service, a.target.zone, phase == ActionPhase::kApply);
}

void deployment_policy(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  if (phase == ActionPhase::kApply && !a.policy) {
    throw SimulationError("step " + quote(a.name) + ": deployment:policy needs policy");
  }
  control_plane(context, a).set_policy(a.target.service, phase == ActionPhase::kApply ? a.policy : std::nullopt);
}

void deployment_restart(ActionContext& context, const ActionConfig& a, ActionPhase) {
  control_plane(context, a).restart(a.target.service);
}

void deployment_scale(ActionContext& context, const ActionConfig& a, ActionPhase) {
  if (!a.replicas) throw SimulationError("step " + quote(a.name) + ": deployment:scale needs replicas");
  control_plane(context, a).scale(a.target.service, static_cast<std::int32_t>(*a.replicas));
}

}  // namespace drsim::action_handlers

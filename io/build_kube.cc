// The Kubernetes area of the scenario (io/model_builders.h).
#include "io/model_builders.h"
#include "models/kube/control_plane.h"

namespace drsim {

void build_control_plane(const ScenarioSpec& spec, Simulation& sim, ActionContext& models) {
  if (!spec.kubernetes) return;
  models.control_plane = &sim.add<KubeControlPlane>(*spec.kubernetes, models.domains, models.services,
                                                    spec.metrics_window);
}

}  // namespace drsim

// The Kubernetes area of the scenario (io/model_builders.h).
#include "io/model_builders.h"
#include "models/kube/control_plane.h"

namespace drsim {

void build_control_plane(const ScenarioSpec& spec, Simulation& sim, ActionContext& models) {
  if (!spec.kubernetes) return;
  // What the metrics adapter can scrape for the HPAs' External metrics.
  KubeMetricSources sources{.populations = models.populations};
  // build_topics added the groups topic by topic, in the spec's order.
  std::size_t next = 0;
  for (const TopicConfig& topic : spec.topology.config.topics) {
    for (std::size_t g = 0; g < topic.consumer_groups.size(); ++g) {
      sources.consumer_groups.push_back({topic.name, models.consumer_groups.at(next++)});
    }
  }
  models.control_plane = &sim.add<KubeControlPlane>(*spec.kubernetes, models.domains, models.services,
                                                    spec.metrics_window, std::move(sources));
}

}  // namespace drsim

// The actions area of the scenario (io/model_builders.h): the timeline.
#include "io/model_builders.h"

namespace drsim {

Timeline& build_timeline(const Scenario& scenario, Simulation& sim, ActionContext models) {
  std::vector<TimelineStep> steps;
  steps.reserve(scenario.resolved_timeline.size());
  for (const ResolvedAction& r : scenario.resolved_timeline) {
    steps.push_back(TimelineStep{scenario.spec.timeline[r.index], r.start, r.end});
  }
  Timeline& timeline = sim.add<Timeline>("timeline", std::move(steps));
  timeline.context() = std::move(models);
  return timeline;
}

}  // namespace drsim

#include "io/run.h"

#include "models/service/service.h"
#include "models/timeline/timeline.h"
#include "models/topology/failure_domains.h"
#include "models/traffic/client_population.h"
#include "sim/errors.h"

namespace drsim {

std::unique_ptr<Simulation> build_simulation(const Scenario& scenario, SimulationOptions options) {
  const ScenarioSpec& spec = scenario.spec;
  auto sim = std::make_unique<Simulation>(std::move(options));
  auto& domains = sim->add<FailureDomains>("topology", Topology(spec.topology.config));

  std::vector<Service*> services;
  for (const ServiceConfig& config : spec.topology.config.services) {
    services.push_back(&sim->add<Service>(config, &domains, spec.metrics_window));
  }
  const auto find_service = [&services](std::string_view name) -> Service* {
    for (Service* s : services) {
      if (s->config().name == name) return s;
    }
    return nullptr;
  };
  for (Service* s : services) s->connect_calls(find_service);
  for (const ClientPopulationConfig& config : spec.load) {
    Service* target = nullptr;
    for (Service* s : services) {
      if (s->config().name == config.service) target = s;
    }
    if (target == nullptr) {  // the loader has checked references: a bug
      throw SimulationError("population \"" + config.name + "\": unknown service \"" + config.service + "\"");
    }
    std::optional<ZoneIndex> zone;
    if (!config.zone.empty()) zone = domains.topology().find_zone(config.zone);
    sim->add<ClientPopulation>(config, *target, zone, spec.metrics_window);
  }

  std::vector<TimelineStep> steps;
  steps.reserve(scenario.resolved_timeline.size());
  for (const ResolvedAction& r : scenario.resolved_timeline) {
    steps.push_back(TimelineStep{spec.timeline[r.index], r.start, r.end});
  }
  auto& timeline = sim->add<Timeline>("timeline", std::move(steps));
  domains.register_actions(timeline);
  register_service_actions(timeline, std::move(services));
  return sim;
}
RunResult run_scenario(const Scenario& scenario, const RunOptions& options) {
  const GuardsConfig& guards = scenario.spec.guards;
  RunResult result;
  result.scenario = scenario;
  result.seed = options.seed.value_or(scenario.spec.seed);
  result.horizon = SimTime{options.until.value_or(scenario.spec.duration)};

  SimulationOptions sim_options;
  sim_options.seed = result.seed;
  sim_options.max_events = guards.max_events;
  sim_options.max_wall_time = guards.max_wall_time;
  sim_options.max_events_per_instant = guards.max_events_per_instant;
  sim_options.stop_flag = options.stop_flag;
  sim_options.progress = options.progress;

  result.simulation = build_simulation(scenario, std::move(sim_options));
  result.outcome = result.simulation->run_until(result.horizon);
  // Components flush and write their KPIs even when a guard stopped the run:
  // a stopped run still reports what it has.
  result.simulation->finish();
  return result;
}

}  // namespace drsim

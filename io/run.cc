#include "io/run.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>

#include "io/model_builders.h"
#include "io/result_writer.h"
#include "io/run_estimate.h"
#include "io/scenario_error.h"
#include "io/value_codecs.h"
#include "models/results/fault_impact.h"
#include "models/results/zone_rollup.h"
#include "sim/simgrid/flow_network_component.h"

namespace drsim {

std::unique_ptr<Simulation> build_simulation(const Scenario& scenario, SimulationOptions options) {
  const ScenarioSpec& spec = scenario.spec;
  auto sim = std::make_unique<Simulation>(std::move(options));
  if (spec.traces.sampling.value > 0) {
    sim->spans().enable(spec.traces.sampling.value, sim->options().seed, spec.traces.max_spans);
  }
  // Area by area, in the order the components join (io/model_builders.h).
  ActionContext built;
  build_topology(spec, *sim, built);
  build_services(spec, *sim, built);
  build_populations(spec, *sim, built);
  // From here on the timeline holds the registry: what its actions act on.
  ActionContext& models = build_timeline(scenario, *sim, std::move(built)).context();
  build_flow_transfers(spec, *sim, models);
  build_databases(spec, *sim, models);
  connect_calls(models);  // once every service and database exists
  build_consensus_groups(spec, *sim, models);
  build_routing(spec, *sim, models);
  build_topics(spec, *sim, models);
  build_control_plane(spec, *sim, models);
  return sim;
}

RunResult run_scenario(const Scenario& scenario, const RunOptions& options) {
  const GuardsConfig& guards = scenario.spec.guards;
  RunResult result;
  result.scenario = scenario;
  result.seed = options.seed.value_or(scenario.spec.seed);
  result.horizon = SimTime{options.until.value_or(scenario.spec.duration)};
  // The same bound as every duration of the scenario (io/value_codecs.h).
  if (result.horizon.time_since_epoch() > kLongestScenarioTime) {
    throw ScenarioError(Diagnostic{.file = scenario.source_file,
                                   .message = "until: expected a duration of at most " +
                                              format_duration(kLongestScenarioTime) + ", got " +
                                              format_duration(result.horizon.time_since_epoch())});
  }

  SimulationOptions sim_options;
  sim_options.seed = result.seed;
  sim_options.max_events = guards.max_events;
  sim_options.max_wall_time = guards.max_wall_time;
  sim_options.max_events_per_instant = guards.max_events_per_instant;
  sim_options.max_memory_bytes = memory_limit(guards);
  sim_options.max_event_rate = static_cast<double>(guards.max_event_rate);
  // maxWallTime counts the build too: it is part of what the user waits for.
  sim_options.wall_start = std::chrono::steady_clock::now();
  sim_options.stop_flag = options.stop_flag;
  sim_options.progress = options.progress;

  // Refused before it is built when it could not fit: the pods first (building
  // them is what would run out of memory), then the series they declare.
  RunEstimate estimate = estimate_run(scenario, result.horizon);
  refuse_if_too_big(scenario, estimate, sim_options.max_memory_bytes);
  const std::uint64_t memory_limit_bytes = sim_options.max_memory_bytes;
  result.simulation = build_simulation(scenario, std::move(sim_options));
  result.simulation->initialize();  // components declare their series
  add_series(estimate, result.simulation->recorder().series_list().size());
  refuse_if_too_big(scenario, estimate, memory_limit_bytes);
  // Network-fidelity runs go through SimGrid's engine; the others never touch it.
  result.outcome = run_simulation_until(*result.simulation, result.horizon);
  // Components flush and write their KPIs even when a guard stopped the run:
  // a stopped run still reports what it has.
  result.simulation->finish();
  // Derived KPIs, from what the components recorded (a stopped run's too).
  Recorder& recorder = result.simulation->recorder();
  const FaultReport faults = fault_report(result);
  record_fault_impact(recorder, faults.impacts, faults.windows);
  record_zone_rollups(recorder, scenario.spec.topology.config);
  return result;
}

}  // namespace drsim

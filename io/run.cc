#include "io/run.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>

#include "io/result_writer.h"
#include "io/run_estimate.h"
#include "io/scenario_error.h"
#include "io/value_codecs.h"
#include "models/data/database.h"
#include "models/data/flow_replication_transport.h"
#include "models/data/kafka_consumer_group.h"
#include "models/service/kafka_producers.h"
#include "models/data/kafka_topic.h"
#include "models/data/raft_group.h"
#include "models/kube/control_plane.h"
#include "models/results/fault_impact.h"
#include "models/results/zone_rollup.h"
#include "models/service/service.h"
#include "models/actions/timeline.h"
#include "models/topology/failure_domains.h"
#include "models/topology/flow_platform.h"
#include "models/topology/flow_traffic.h"
#include "models/topology/flow_transfers.h"
#include "models/traffic/cdn_edges.h"
#include "models/traffic/client_population.h"
#include "models/traffic/dns_caches.h"
#include "models/traffic/health_checker.h"
#include "models/traffic/routing_rules_store.h"
#include "models/traffic/traffic_scheduler.h"
#include "sim/errors.h"
#include "sim/quote.h"
#include "sim/simgrid/flow_network_component.h"

namespace drsim {

namespace {
// The regions where the service has pods, in the order of its zones.
std::vector<RegionIndex> serving_regions(const Service& service, const Topology& topology) {
  std::vector<RegionIndex> regions;
  for (std::size_t z = 0; z < service.zone_count(); ++z) {
    const auto zone = topology.find_zone(service.zone_name(z));
    if (!zone) continue;
    const RegionIndex r = topology.region_of(*zone);
    if (std::find(regions.begin(), regions.end(), r) == regions.end()) regions.push_back(r);
  }
  return regions;
}

// A service a deployment runs may get pods in any zone its policy can reach:
// every zone of the regions it is deployed in, and the policy's own list.
// Zones it has no replicas in are added with none, so that the service has
// a place (and series) for them from the start.
ServiceConfig managed_zones(ServiceConfig config, const ScenarioSpec& spec) {
  if (!spec.kubernetes) return config;
  const KubeDeploymentConfig* deployment = nullptr;
  for (const KubeDeploymentConfig& d : spec.kubernetes->deployments) {
    if (d.service == config.name) deployment = &d;
  }
  if (deployment == nullptr) return config;
  std::vector<std::string> zones;
  for (const RegionConfig& region : spec.topology.config.regions) {
    const bool deployed = std::any_of(region.zones.begin(), region.zones.end(), [&](const ZoneConfig& z) {
      return std::any_of(config.replicas.begin(), config.replicas.end(),
                         [&](const ReplicasConfig& r) { return r.zone == z.name; });
    });
    if (!deployed) continue;
    for (const ZoneConfig& z : region.zones) zones.push_back(z.name);
  }
  for (const std::string& z : deployment->policy.zones) zones.push_back(z);
  for (const std::string& z : zones) {
    const bool present = std::any_of(config.replicas.begin(), config.replicas.end(),
                                     [&](const ReplicasConfig& r) { return r.zone == z; });
    if (!present) config.replicas.push_back(ReplicasConfig{z, 0});
  }
  return config;
}

// ---- network fidelity (spec.network.fidelity: flows) ----

// The flow network of a network-fidelity run: SimGrid's flow model over the
// topology, following its failure domains (link:degrade, link:cut, zone:fail,
// region:fail reach the flows), owned by the simulation; and the component
// that records what the flows carry. Null in closed-form mode: nothing of
// SimGrid is created.
FlowTraffic* build_flow_network(const ScenarioSpec& spec, Simulation& sim, FailureDomains& domains) {
  if (!spec.network.flows()) return nullptr;
  auto& owner =
      sim.add<FlowNetworkComponent>(sim, make_flow_platform(domains.topology(), spec.network.platform_options()));
  follow_failure_domains(domains, owner.network());
  return &sim.add<FlowTraffic>(owner.network(), domains.topology(), spec.metrics_window);
}

// Replication over flows: one stream per member (channel m is member m: 0 the
// first primary, then the replicas), so that each gets its flow.bytes series.
// Null (the closed-form transport) without a flow network.
std::unique_ptr<ReplicationTransport> replication_transport(FlowTraffic* flows, const FailureDomains& domains,
                                                            const DatabaseConfig& config) {
  if (flows == nullptr) return nullptr;
  std::vector<std::string> zones{config.primary_zone};
  for (const DatabaseReplicaConfig& r : config.replicas) zones.push_back(r.zone);
  std::vector<FlowNetwork*> channels;
  for (std::size_t m = 0; m < zones.size(); ++m) {
    channels.push_back(&flows->stream({{"database", config.name}, {"member", std::to_string(m)}, {"zone", zones[m]}}));
  }
  return std::make_unique<FlowReplicationTransport>(domains, std::move(channels));
}

// The operator bulk copies of the timeline (flow:transfer), as flows.
FlowTransfers* build_flow_transfers(const ScenarioSpec& spec, Simulation& sim, FlowTraffic* flows,
                                    const Topology& topology) {
  if (flows == nullptr) return nullptr;
  std::vector<TransferOrder> orders;
  for (const ActionConfig& a : spec.timeline) {
    if (a.action != "flow:transfer") continue;
    // The loader has checked the parameters; a miss here is a bug.
    if (!a.to || !a.size) throw SimulationError("step " + quote(a.name) + ": flow:transfer needs to and size");
    orders.push_back(TransferOrder{a.name, a.target.zone, *a.to, a.size->bytes});
  }
  return &sim.add<FlowTransfers>(*flows, topology, orders);
}
}  // namespace

std::unique_ptr<Simulation> build_simulation(const Scenario& scenario, SimulationOptions options) {
  const ScenarioSpec& spec = scenario.spec;
  auto sim = std::make_unique<Simulation>(std::move(options));
  auto& domains = sim->add<FailureDomains>("topology", Topology(spec.topology.config));
  FlowTraffic* flows = build_flow_network(spec, *sim, domains);

  std::vector<Service*> services;
  for (const ServiceConfig& config : spec.topology.config.services) {
    services.push_back(&sim->add<Service>(managed_zones(config, spec), &domains, spec.metrics_window));
    services.back()->record_pod_series(spec.pod_metrics);
  }
  const auto find_service = [&services](std::string_view name) -> Service* {
    for (Service* s : services) {
      if (s->config().name == name) return s;
    }
    return nullptr;
  };
  std::vector<ClientPopulation*> populations;
  for (const ClientPopulationConfig& config : spec.load) {
    Service* target = nullptr;
    for (Service* s : services) {
      if (s->config().name == config.service) target = s;
    }
    if (target == nullptr) {  // the loader has checked references: a bug
      throw SimulationError("population \"" + config.name + "\": unknown service \"" + config.service + "\"");
    }
    const Topology& topology = domains.topology();
    std::optional<ZoneIndex> zone;
    if (!config.zone.empty()) zone = topology.find_zone(config.zone);
    std::optional<GeoRouter> router;
    if (config.routing) router.emplace(*config.routing, topology, zone, serving_regions(*target, topology));
    populations.push_back(&sim->add<ClientPopulation>(config, *target, zone, spec.metrics_window, std::move(router)));
    if (!config.affinity_zone.empty()) populations.back()->set_affinity_zone(topology.find_zone(config.affinity_zone));
    // Every population records it: a latency objective without a population judges the worst one.
    if (spec.objectives.latency_p99_window) populations.back()->track_trailing_p99(*spec.objectives.latency_p99_window);
  }

  std::vector<TimelineStep> steps;
  steps.reserve(scenario.resolved_timeline.size());
  for (const ResolvedAction& r : scenario.resolved_timeline) {
    steps.push_back(TimelineStep{spec.timeline[r.index], r.start, r.end});
  }
  auto& timeline = sim->add<Timeline>("timeline", std::move(steps));
  // What the timeline's actions act on, filled in as the models are built.
  ActionContext& actions = timeline.context();
  actions.domains = &domains;
  actions.services = services;
  actions.populations = populations;
  actions.transfers = build_flow_transfers(spec, *sim, flows, domains.topology());
  std::vector<Database*> databases;
  for (const DatabaseConfig& config : spec.topology.config.databases) {
    databases.push_back(
        &sim->add<Database>(config, domains, spec.metrics_window, replication_transport(flows, domains, config)));
  }
  // Calls resolve once every service and database exists.
  const auto find_database = [&databases](std::string_view name, ZoneIndex from) -> PoolEndpoint* {
    for (Database* d : databases) {
      if (d->config().name == name) return &d->client_endpoint(from);
    }
    return nullptr;
  };
  for (Service* s : services) s->connect_calls(find_service, find_database);
  actions.databases = databases;
  std::vector<RaftGroup*> groups;
  for (const RaftConfig& config : spec.topology.config.consensus_groups) {
    groups.push_back(&sim->add<RaftGroup>(config, domains, spec.metrics_window));
  }
  for (const ClientPopulationConfig& config : spec.load) {
    if (!config.routing || config.routing->rules_store.empty()) continue;
    RaftGroup* group = nullptr;
    for (RaftGroup* g : groups) {
      if (g->config().name == config.routing->rules_store) group = g;
    }
    if (group == nullptr) {  // the loader has checked references: a bug
      throw SimulationError("population \"" + config.name + "\": unknown consensus group \"" +
                            config.routing->rules_store + "\"");
    }
    actions.rules_stores[config.name] = &sim->add<RoutingRulesStore>(config.name, *group,
                                                                config.routing->rules_retry_interval,
                                                                spec.metrics_window);
  }
  // GSLB health checks and DNS caches of the routed populations (routing.healthCheck, routing.dns), once
  // the rules stores exist: a health checker's changes go through its population's store.
  for (std::size_t i = 0; i < populations.size(); ++i) {
    const ClientPopulationConfig& config = spec.load[i];
    if (!config.routing) continue;
    GeoRouter& router = *populations[i]->router();
    const auto store = actions.rules_stores.find(config.name);
    RoutingRulesStore* rules = store == actions.rules_stores.end() ? nullptr : store->second;
    HealthChecker* checker = nullptr;
    if (config.routing->health_check) {
      const std::string& probed =
          config.routing->health_check->service.empty() ? config.service : config.routing->health_check->service;
      checker = &sim->add<HealthChecker>(config.name, *config.routing->health_check, *find_service(probed), domains,
                                         router, rules, spec.metrics_window);
    }
    // A traffic scheduler takes the health checker's decisions and owns the weights.
    if (config.routing->scheduler && checker != nullptr) {
      TrafficScheduler& scheduler = sim->add<TrafficScheduler>(config.name, *config.routing->scheduler, router,
                                                               *find_service(config.service), domains, rules,
                                                               spec.metrics_window);
      checker->hand_decisions_to([&scheduler](RegionIndex r, bool healthy) { scheduler.region_health(r, healthy); });
      populations[i]->on_routed([&scheduler](RegionIndex r) { scheduler.routed(r); });
      actions.schedulers[config.name] = &scheduler;
    }
    CdnEdges* cdn = nullptr;
    if (config.cdn) {
      const auto zone = domains.topology().find_zone(config.zone);
      if (!zone) throw SimulationError("population \"" + config.name + "\": cdn needs the population's zone");
      cdn = &sim->add<CdnEdges>(config.name, *config.cdn, domains, *zone, *find_service(config.service), &router,
                                checker, *populations[i], spec.metrics_window);
      populations[i]->use_cdn(cdn);
      actions.cdns.push_back(cdn);
    }
    if (config.routing->dns) {
      auto& dns = sim->add<DnsCaches>(config.name, *config.routing->dns, router, spec.metrics_window, &domains);
      if (cdn != nullptr) dns.set_cname_source([cdn] { return cdn->cname(); });
      populations[i]->use_dns(&dns);
    }
  }
  // Kafka-style topics, their consumer groups, and the services that produce to them.
  std::vector<KafkaTopic*> topics;
  for (const TopicConfig& config : spec.topology.config.topics) {
    KafkaTopic& topic = sim->add<KafkaTopic>(config, domains, spec.metrics_window);
    topics.push_back(&topic);
    for (const ConsumerGroupConfig& group : config.consumer_groups) {
      sim->add<KafkaConsumerGroup>(group, topic, domains, spec.metrics_window);
    }
  }
  connect_service_producers(topics, services, domains.topology());
  if (spec.kubernetes) {
    actions.control_plane = &sim->add<KubeControlPlane>(*spec.kubernetes, &domains, services, spec.metrics_window);
  }
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

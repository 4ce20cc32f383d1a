// The traffic area of the scenario (io/model_builders.h): who sends requests
// and how they find the services.
#include <algorithm>

#include "io/model_builders.h"
#include "models/data/raft_group.h"
#include "models/service/service.h"
#include "models/traffic/cdn_edges.h"
#include "models/traffic/client_population.h"
#include "models/traffic/dns_caches.h"
#include "models/traffic/health_checker.h"
#include "models/traffic/routing_rules_store.h"
#include "models/traffic/traffic_scheduler.h"
#include "sim/errors.h"

namespace drsim {

namespace {
// The loader has checked every reference: a miss here is a bug.
Service& service_named(const ActionContext& models, std::string_view name, std::string_view population) {
  for (Service* s : models.services) {
    if (s->config().name == name) return *s;
  }
  throw SimulationError("population \"" + std::string(population) + "\": unknown service \"" + std::string(name) +
                        "\"");
}

RaftGroup& group_named(const ActionContext& models, std::string_view name, std::string_view population) {
  for (RaftGroup* g : models.consensus_groups) {
    if (g->config().name == name) return *g;
  }
  throw SimulationError("population \"" + std::string(population) + "\": unknown consensus group \"" +
                        std::string(name) + "\"");
}

// The topology zones of the service's zones, in its order.
std::vector<ZoneIndex> zones_of(const Service& service, const Topology& topology) {
  std::vector<ZoneIndex> zones;
  for (std::size_t z = 0; z < service.zone_count(); ++z) {
    if (const auto zone = topology.find_zone(service.zone_name(z))) zones.push_back(*zone);
  }
  return zones;
}
}  // namespace

void build_populations(const ScenarioSpec& spec, Simulation& sim, ActionContext& models) {
  const Topology& topology = models.domains->topology();
  for (const ClientPopulationConfig& config : spec.load) {
    Service& target = service_named(models, config.service, config.name);
    std::optional<ZoneIndex> zone;
    if (!config.zone.empty()) zone = topology.find_zone(config.zone);
    std::optional<GeoRouter> router;
    if (config.routing) router.emplace(*config.routing, topology, zone, serving_regions(zones_of(target, topology), topology));
    auto& population = sim.add<ClientPopulation>(config, target, zone, spec.metrics_window, std::move(router));
    if (!config.affinity_zone.empty()) population.set_affinity_zone(topology.find_zone(config.affinity_zone));
    // Every population records it: a latency objective without a population judges the worst one.
    if (spec.objectives.latency_p99_window) population.track_trailing_p99(*spec.objectives.latency_p99_window);
    models.populations.push_back(&population);
  }
}

void build_routing(const ScenarioSpec& spec, Simulation& sim, ActionContext& models) {
  for (const ClientPopulationConfig& config : spec.load) {
    if (!config.routing || config.routing->rules_store.empty()) continue;
    RaftGroup& group = group_named(models, config.routing->rules_store, config.name);
    models.rules_stores[config.name] = &sim.add<RoutingRulesStore>(
        config.name, group, config.routing->rules_retry_interval, spec.metrics_window);
  }
  // GSLB health checks and DNS caches of the routed populations (routing.healthCheck, routing.dns), once
  // the rules stores exist: a health checker's changes go through its population's store.
  FailureDomains& domains = *models.domains;
  for (std::size_t i = 0; i < models.populations.size(); ++i) {
    const ClientPopulationConfig& config = spec.load[i];
    if (!config.routing) continue;
    ClientPopulation& population = *models.populations[i];
    GeoRouter& router = *population.router();
    const auto store = models.rules_stores.find(config.name);
    RoutingRulesStore* rules = store == models.rules_stores.end() ? nullptr : store->second;
    HealthChecker* checker = nullptr;
    if (config.routing->health_check) {
      const std::string& probed =
          config.routing->health_check->service.empty() ? config.service : config.routing->health_check->service;
      checker = &sim.add<HealthChecker>(config.name, *config.routing->health_check,
                                        service_named(models, probed, config.name), domains, router, rules,
                                        spec.metrics_window);
    }
    // A traffic scheduler takes the health checker's decisions and owns the weights.
    if (config.routing->scheduler && checker != nullptr) {
      TrafficScheduler& scheduler =
          sim.add<TrafficScheduler>(config.name, *config.routing->scheduler, router,
                                    service_named(models, config.service, config.name), domains, rules,
                                    spec.metrics_window);
      checker->hand_decisions_to(scheduler);
      population.on_routed(scheduler);
      models.schedulers[config.name] = &scheduler;
    }
    CdnEdges* cdn = nullptr;
    if (config.cdn) {
      const auto zone = domains.topology().find_zone(config.zone);
      if (!zone) throw SimulationError("population \"" + config.name + "\": cdn needs the population's zone");
      cdn = &sim.add<CdnEdges>(config.name, *config.cdn, domains, *zone,
                               service_named(models, config.service, config.name), &router, checker, population,
                               spec.metrics_window);
      population.use_cdn(cdn);
      models.cdns.push_back(cdn);
    }
    if (config.routing->dns) {
      auto& dns = sim.add<DnsCaches>(config.name, *config.routing->dns, router, spec.metrics_window, &domains);
      if (cdn != nullptr) dns.set_cname_source(*cdn);
      population.use_dns(&dns);
    }
  }
}

}  // namespace drsim

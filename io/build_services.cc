// The service area of the scenario (io/model_builders.h).
#include <algorithm>

#include "io/model_builders.h"
#include "models/data/database.h"
#include "models/service/cloud_load_balancer.h"
#include "models/service/service.h"

namespace drsim {

namespace {
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
}  // namespace

void build_services(const ScenarioSpec& spec, Simulation& sim, ActionContext& models) {
  for (const ServiceConfig& config : spec.topology.config.services) {
    Service& service = sim.add<Service>(managed_zones(config, spec), models.domains, spec.metrics_window);
    service.record_pod_series(spec.pod_metrics);
    if (config.discovery_path(spec.kubernetes.has_value()) == "loadBalancer") {
      sim.add<CloudLoadBalancer>(service, config.load_balancer.value_or(LoadBalancerConfig{}).resolved(),
                                 models.domains);
    }
    models.services.push_back(&service);
  }
}

void connect_calls(ActionContext& models) {
  const auto find_service = [&models](std::string_view name) -> Service* {
    for (Service* s : models.services) {
      if (s->config().name == name) return s;
    }
    return nullptr;
  };
  const auto find_database = [&models](std::string_view name, ZoneIndex from) -> PoolEndpoint* {
    for (Database* d : models.databases) {
      if (d->config().name == name) return &d->client_endpoint(from);
    }
    return nullptr;
  };
  for (Service* s : models.services) s->connect_calls(find_service, find_database);
}

}  // namespace drsim

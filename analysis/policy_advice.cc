#include "analysis/policy_advice.h"

#include <algorithm>

#include "models/kube/node_placement.h"

namespace drsim {

namespace {

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

std::string name_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

const ServiceConfig& find_service(const PolicyAdviceScenario& scenario, const std::string& name) {
  const auto& services = scenario.services;
  const auto it = std::find_if(services.begin(), services.end(), [&](const auto& s) { return s.name == name; });
  if (it != services.end()) return *it;
  std::vector<std::string> names;
  for (const auto& s : services) names.push_back(s.name);
  throw PolicyAdviceError("no service " + quoted(name) + " in the scenario (services: " + name_list(names) + ")");
}

const KubeDeploymentConfig& find_deployment(const PolicyAdviceScenario& scenario, const std::string& service) {
  if (!scenario.kubernetes) {
    throw PolicyAdviceError("service " + quoted(service) +
                            " has no deployment: the scenario has no spec.kubernetes section");
  }
  const auto& deployments = scenario.kubernetes->deployments;
  const auto it =
      std::find_if(deployments.begin(), deployments.end(), [&](const auto& d) { return d.service == service; });
  if (it != deployments.end()) return *it;
  std::vector<std::string> names;
  for (const auto& d : deployments) names.push_back(d.service);
  throw PolicyAdviceError("service " + quoted(service) +
                          " has no deployment in spec.kubernetes.deployments (deployed: " + name_list(names) + ")");
}

void check_zone(const PolicyAdviceScenario& scenario, const ServiceConfig& service, const std::string& zone) {
  std::vector<std::string> topology_zones;
  for (const auto& region : scenario.topology.regions) {
    for (const auto& z : region.zones) topology_zones.push_back(z.name);
  }
  if (std::find(topology_zones.begin(), topology_zones.end(), zone) == topology_zones.end()) {
    throw PolicyAdviceError("no zone " + quoted(zone) + " in the topology (zones: " + name_list(topology_zones) +
                            ")");
  }
  std::vector<std::string> service_zones;
  for (const auto& r : service.replicas) service_zones.push_back(r.zone);
  if (std::find(service_zones.begin(), service_zones.end(), zone) == service_zones.end()) {
    // The control plane only splits a deployment over its service's zones: a zone it does not list can neither
    // fail under it nor be compensated for.
    throw PolicyAdviceError("service " + quoted(service.name) + " does not run in zone " + quoted(zone) +
                            " (its zones: " + name_list(service_zones) + ")");
  }
}

Resources pod_size(const ServiceConfig& service, const KubeDeploymentConfig& deployment) {
  return Resources{service.cpu_request().millicores, deployment.memory.bytes};
}

// The child clusters at time 0: every deployment's starting pods placed as the control plane places them
// (deployments in order, each service's zones in order), so that what is left is what the scale-out can use.
ChildCluster cluster_at_start(const PolicyAdviceScenario& scenario) {
  const KubernetesConfig& kube = *scenario.kubernetes;
  std::vector<NodePool> pools;
  for (const NodePoolConfig& p : kube.node_pools) {
    pools.push_back(NodePool{.name = p.name,
                             .zone = p.zone,
                             .allocatable = Resources{p.cpu.millicores, p.memory.bytes},
                             .nodes = p.nodes,
                             .max_nodes = p.max_nodes.value_or(p.nodes),
                             .max_pods = p.max_pods});
  }
  ChildCluster cluster(std::move(pools));
  const auto has_pools = [&](const std::string& zone) {
    return std::any_of(kube.node_pools.begin(), kube.node_pools.end(), [&](const auto& p) { return p.zone == zone; });
  };
  for (const KubeDeploymentConfig& d : kube.deployments) {
    const ServiceConfig& service = find_service(scenario, d.service);
    const Resources size = pod_size(service, d);
    for (const ReplicasConfig& r : service.replicas) {
      if (!has_pools(r.zone)) continue;
      for (std::uint32_t i = 0; i < r.replicas; ++i) {
        const PlacementResult placed = cluster.place(size, r.zone);
        if (!placed.node) {
          throw PolicyAdviceError("the pods service " + quoted(d.service) + " starts with in zone " + quoted(r.zone) +
                                  " do not fit on its nodes: " + placed.reason);
        }
      }
    }
  }
  return cluster;
}

}  // namespace

PolicyAdvice advise_policy(const PolicyAdviceScenario& scenario, const PolicyAdviceRequest& request) {
  const ServiceConfig& service = find_service(scenario, request.service);
  const KubeDeploymentConfig& deployment = find_deployment(scenario, request.service);
  check_zone(scenario, service, request.failed_zone);
  const KubernetesConfig& kube = *scenario.kubernetes;

  PolicyAdvice advice;
  advice.service = request.service;
  advice.failed_zone = request.failed_zone;
  advice.migrate = request.migrate;
  advice.policy = deployment.policy;

  ChildCluster cluster = cluster_at_start(scenario);
  cluster.set_zone_failed(request.failed_zone, true);
  const Resources size = pod_size(service, deployment);
  const bool autoscaling = kube.cluster_autoscaler.enabled;
  for (const ReplicasConfig& r : service.replicas) {
    ZoneState zone{.name = r.zone, .can_take_pods = r.zone != request.failed_zone, .current = r.replicas};
    const bool pools = std::any_of(kube.node_pools.begin(), kube.node_pools.end(),
                                   [&](const auto& p) { return p.zone == r.zone; });
    if (pools) zone.free_capacity = cluster.free_pods(r.zone, size, autoscaling);
    advice.zones.push_back(std::move(zone));
    advice.replicas_now += r.replicas;
    if (r.zone == request.failed_zone) advice.failed_zone_replicas = r.replicas;
  }
  advice.needed = request.replicas.value_or(advice.replicas_now + advice.failed_zone_replicas);

  advice.current = request.migrate ? fresh_split(advice.policy, advice.zones, advice.needed)
                                   : scale_split(advice.policy, advice.zones, advice.needed);
  RecommendationRequest recommendation{.current = advice.policy,
                                       .zones = advice.zones,
                                       .needed = advice.needed,
                                       .extra = {},
                                       .migrate = request.migrate};
  advice.candidates = recommend_policies(recommendation);
  return advice;
}

}  // namespace drsim

#include "models/service/service_config.h"

namespace drsim {

std::string ServiceConfig::discovery_path(bool scenario_has_kubernetes) const {
  if (discovery != "auto") return discovery;
  if (load_balancer) return "loadBalancer";
  // A service outside Kubernetes is reached the way a cloud deployment reaches it: through a load
  // balancer that health-checks its targets. The oracle is only ever an explicit choice.
  return scenario_has_kubernetes ? "kubernetes" : "loadBalancer";
}

std::vector<ConfigProblem> ServiceConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (replicas.empty()) problems.push_back({"replicas", "needs at least one zone"});
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (replicas[j].zone == replicas[i].zone) {
        problems.push_back({"replicas[" + std::to_string(i) + "].zone", "zone \"" + replicas[i].zone +
                                                                             "\" is listed twice"});
      }
    }
  }
  if (concurrency == 0) problems.push_back({"concurrency", "must be at least 1"});
  if (balancing != "round-robin" && balancing != "least-outstanding" && balancing != "random") {
    problems.push_back(
        {"balancing", "expected round-robin, least-outstanding or random, got \"" + balancing + "\""});
  }
  if (deadlines != "ignore" && deadlines != "propagate") {
    problems.push_back({"deadlines", "expected ignore or propagate, got \"" + deadlines + "\""});
  }
  if (discovery != "auto" && discovery != "kubernetes" && discovery != "mesh" && discovery != "grpc" &&
      discovery != "loadBalancer" && discovery != "oracle") {
    problems.push_back(
        {"discovery", "expected auto, kubernetes, mesh, grpc, loadBalancer or oracle, got \"" + discovery + "\""});
  }
  if (grpc) {
    if (discovery != "grpc") problems.push_back({"grpc", "applies to discovery grpc, not " + discovery});
    for (ConfigProblem p : grpc->validate()) problems.push_back({"grpc." + p.field, p.message});
  }
  if (mesh) {
    if (discovery != "mesh") problems.push_back({"mesh", "applies to discovery mesh, not " + discovery});
    for (ConfigProblem p : mesh->validate()) problems.push_back({"mesh." + p.field, p.message});
  }
  if (load_balancer) {
    if (discovery == "kubernetes" || discovery == "oracle") {
      problems.push_back({"loadBalancer", "applies to discovery loadBalancer (or auto), not " + discovery});
    }
    for (ConfigProblem p : load_balancer->validate()) problems.push_back({"loadBalancer." + p.field, p.message});
  }
  if (zone_failure != "blackhole" && zone_failure != "refuse") {
    problems.push_back({"zoneFailure", "expected blackhole or refuse, got \"" + zone_failure + "\""});
  }
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const CallConfig& call = calls[i];
    const std::string at = "calls[" + std::to_string(i) + "]";
    if (call.count == 0) problems.push_back({at + ".count", "must be at least 1"});
    if (call.service.empty() == call.database.empty()) {
      problems.push_back({at, call.service.empty() ? "needs service or database"
                                                   : "gives both service and database: a call goes to one"});
    }
    if (!call.service.empty() && call.service == name) {
      problems.push_back({at + ".service", "a service cannot call itself"});
    }
    if (!call.service.empty() && call.pool) problems.push_back({at + ".pool", "applies to database calls only"});
    if (!call.service.empty() && call.queries != 1) {
      problems.push_back({at + ".queries", "applies to database calls only"});
    }
    if (call.queries == 0) problems.push_back({at + ".queries", "must be at least 1"});
    if (call.writes > call.queries) {
      problems.push_back({at + ".writes", "exceeds queries (" + std::to_string(call.queries) + ")"});
    }
    if (!call.service.empty() && call.writes != 0) {
      problems.push_back({at + ".writes", "applies to database calls only"});
    }
    if (call.pool) {
      for (ConfigProblem p : call.pool->validate()) problems.push_back({at + ".pool." + p.field, p.message});
      for (std::size_t j = 0; j < i; ++j) {
        if (calls[j].pool && calls[j].database == call.database) {
          problems.push_back({at + ".pool", "calls[" + std::to_string(j) + "] already sets the pool towards \"" +
                                                call.database + "\": calls to one database share the pod's pool"});
        }
      }
    }
  }
  for (ConfigProblem p : service_time.validate()) {
    p.field = "serviceTime." + p.field;
    problems.push_back(std::move(p));
  }
  const CpuQuantity request = cpu_request();
  if (request.millicores <= 0) {
    problems.push_back({"cpu.request", "must be positive: with perWorker and idle both 0 there is nothing to "
                                       "measure CPU utilisation against; give a request"});
  }
  return problems;
}

PoolConfig ServiceConfig::pool_towards(std::string_view database) const {
  PoolConfig pool;
  for (const CallConfig& call : calls) {
    if (call.database == database && call.pool) pool = *call.pool;
  }
  return pool;
}

CpuQuantity ServiceConfig::cpu_request() const {
  if (cpu.request) return *cpu.request;
  return CpuQuantity{cpu.idle.millicores + static_cast<std::int64_t>(concurrency) * cpu.per_worker.millicores};
}

}  // namespace drsim

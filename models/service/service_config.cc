#include "models/service/service_config.h"

#include <algorithm>
#include <cmath>

namespace drsim {

std::string ServiceConfig::discovery_path(bool scenario_has_kubernetes) const {
  if (discovery != "auto") return discovery;
  if (load_balancer) return "loadBalancer";
  // A service outside Kubernetes is reached the way a cloud deployment reaches it: through a load
  // balancer that health-checks its targets. The oracle is only ever an explicit choice.
  return scenario_has_kubernetes ? "kubernetes" : "loadBalancer";
}

void ServiceConfig::validate_calls(const std::vector<CallConfig>& list, const std::string& where,
                                   std::vector<ConfigProblem>& out) const {
  for (std::size_t i = 0; i < list.size(); ++i) {
    const CallConfig& call = list[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (call.count == 0) out.push_back({at + ".count", "must be at least 1"});
    if (call.service.empty() == call.database.empty()) {
      out.push_back({at, call.service.empty() ? "needs service or database"
                                                   : "gives both service and database: a call goes to one"});
    }
    if (!call.service.empty() && call.service == name) {
      out.push_back({at + ".service", "a service cannot call itself"});
    }
    if (!call.service.empty() && call.pool) out.push_back({at + ".pool", "applies to database calls only"});
    if (!call.service.empty() && call.queries != 1) {
      out.push_back({at + ".queries", "applies to database calls only"});
    }
    if (call.queries == 0) out.push_back({at + ".queries", "must be at least 1"});
    if (call.writes > call.queries) {
      out.push_back({at + ".writes", "exceeds queries (" + std::to_string(call.queries) + ")"});
    }
    if (!call.service.empty() && call.writes != 0) {
      out.push_back({at + ".writes", "applies to database calls only"});
    }
    if (call.pool) {
      for (ConfigProblem p : call.pool->validate()) out.push_back({at + ".pool." + p.field, p.message});
      for (std::size_t j = 0; j < i; ++j) {
        if (list[j].pool && list[j].database == call.database) {
          out.push_back({at + ".pool", where + "[" + std::to_string(j) + "] already sets the pool towards \"" +
                                                call.database + "\": calls to one database share the pod's pool"});
        }
      }
    }
    if (!call.database.empty() && !call.operation.empty()) {
      out.push_back({at + ".operation", "applies to service calls only"});
    }
  }
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
  if (server != "workerPool" && server != "eventLoop") {
    problems.push_back({"server", "expected workerPool or eventLoop, got \"" + server + "\""});
  }
  if (event_loop() && !max_in_flight) {
    problems.push_back({"maxInFlight", "is required with server eventLoop: how many requests a pod holds at once"});
  }
  if (event_loop() && max_in_flight && *max_in_flight == 0) {
    problems.push_back({"maxInFlight", "must be at least 1"});
  }
  if (!event_loop() && max_in_flight) {
    problems.push_back({"maxInFlight", "applies to server eventLoop only (a worker pool holds concurrency requests)"});
  }
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
  validate_calls(calls, "calls", problems);
  for (std::size_t o = 0; o < operations.size(); ++o) {
    const OperationConfig& op = operations[o];
    const std::string at = "operations[" + std::to_string(o) + "]";
    if (op.name.empty()) problems.push_back({at + ".name", "must not be empty"});
    for (std::size_t j = 0; j < o; ++j) {
      if (operations[j].name == op.name) {
        problems.push_back({at + ".name", "operation \"" + op.name + "\" is listed twice"});
      }
    }
    if (op.service_time) {
      for (ConfigProblem p : op.service_time->validate()) problems.push_back({at + ".serviceTime." + p.field, p.message});
    }
    if (op.calls) {
      validate_calls(*op.calls, at + ".calls", problems);
      // One pool per pod and database, whichever operation's calls set it.
      for (std::size_t i = 0; i < op.calls->size(); ++i) {
        const CallConfig& call = (*op.calls)[i];
        if (!call.pool) continue;
        const auto sets_it = [&](const CallConfig& other) { return other.pool && other.database == call.database; };
        bool earlier = std::any_of(calls.begin(), calls.end(), sets_it);
        for (std::size_t j = 0; j < o && !earlier; ++j) {
          if (operations[j].calls) earlier = std::any_of(operations[j].calls->begin(), operations[j].calls->end(), sets_it);
        }
        if (earlier) {
          problems.push_back({at + ".calls[" + std::to_string(i) + "].pool",
                              "another call already sets the pool towards \"" + call.database +
                                  "\": calls to one database share the pod's pool, whatever their operation"});
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
  if (cpu.limit && cpu.request && *cpu.request > *cpu.limit) {
    problems.push_back({"cpu.request", format_cpu(*cpu.request) + " exceeds cpu.limit " + format_cpu(*cpu.limit) +
                                           ": Kubernetes requires a request no larger than the limit"});
  }
  // The kernel takes cfs_period_us from 1 ms to 1 s.
  if (cpu.quota_period < std::chrono::milliseconds(1) || cpu.quota_period > std::chrono::seconds(1)) {
    problems.push_back({"cpu.quotaPeriod", "must be between 1ms and 1s (the kernel's cfs_period_us range), got " +
                                               format_duration(cpu.quota_period)});
  }
  // A request's own work runs on one thread: it cannot use more CPU time than it takes.
  const auto check_cpu_time = [&](std::size_t op, const std::string& at) {
    const std::optional<Duration> own = cpu_time_of(op);  // its own, or the service's it inherits
    if (!own) return;
    if (!service_time_of(op).validate().empty()) return;  // reported above
    const Duration mean = ServiceTimeDistribution(service_time_of(op)).mean();
    if (*own > mean) {
      const bool inherited = op > 0 && !operations[op - 1].cpu_time;
      problems.push_back({inherited ? "cpuTime" : at,
                          format_duration(*own) + " exceeds the mean service time " + format_duration(mean) +
                              (inherited ? " of operation \"" + operations[op - 1].name + "\", which inherits it" : "") +
                              ": a request's own work runs on one thread, so it uses at most 1 core"});
    }
  };
  check_cpu_time(0, "cpuTime");
  for (std::size_t o = 0; o < operations.size(); ++o) {
    check_cpu_time(o + 1, "operations[" + std::to_string(o) + "].cpuTime");
  }
  return problems;
}

PoolConfig ServiceConfig::pool_towards(std::string_view database) const {
  PoolConfig pool;
  for (std::size_t op = 0; op < operation_count(); ++op) {
    if (op > 0 && !operations[op - 1].calls) continue;  // the service's calls, already seen
    for (const CallConfig& call : calls_of(op)) {
      if (call.database == database && call.pool) pool = *call.pool;
    }
  }
  return pool;
}

std::optional<std::size_t> ServiceConfig::operation_index(std::string_view operation) const {
  if (operation.empty()) return 0;
  for (std::size_t i = 0; i < operations.size(); ++i) {
    if (operations[i].name == operation) return i + 1;
  }
  return std::nullopt;
}

const std::string& ServiceConfig::operation_name(std::size_t op) const {
  static const std::string kDefault;
  return op == 0 ? kDefault : operations.at(op - 1).name;
}

const std::vector<CallConfig>& ServiceConfig::calls_of(std::size_t op) const {
  if (op == 0 || !operations.at(op - 1).calls) return calls;
  return *operations[op - 1].calls;
}

const ServiceTimeConfig& ServiceConfig::service_time_of(std::size_t op) const {
  if (op == 0 || !operations.at(op - 1).service_time) return service_time;
  return *operations[op - 1].service_time;
}

std::optional<Duration> ServiceConfig::cpu_time_of(std::size_t op) const {
  if (op > 0 && operations.at(op - 1).cpu_time) return operations[op - 1].cpu_time;
  return cpu_time;
}

std::int64_t ServiceConfig::cpu_millicores_of(std::size_t op) const {
  const std::optional<Duration> cpu_time_here = cpu_time_of(op);
  if (!cpu_time_here) return cpu.per_worker.millicores;
  const Duration mean = ServiceTimeDistribution(service_time_of(op)).mean();
  if (mean.count() <= 0) return 1000;
  return static_cast<std::int64_t>(std::llround(1000.0 * static_cast<double>(cpu_time_here->count()) /
                                                static_cast<double>(mean.count())));
}

std::int64_t ServiceConfig::cpu_peak_millicores() const {
  std::int64_t most = 0;
  for (std::size_t op = 0; op < operation_count(); ++op) most = std::max(most, cpu_millicores_of(op));
  return cpu.idle.millicores + static_cast<std::int64_t>(concurrency) * most;
}

CpuQuantity ServiceConfig::cpu_request() const {
  if (cpu.request) return *cpu.request;
  if (cpu.limit) return *cpu.limit;  // Kubernetes defaults a missing request to the limit
  return CpuQuantity{cpu.idle.millicores + static_cast<std::int64_t>(concurrency) * cpu.per_worker.millicores};
}

}  // namespace drsim

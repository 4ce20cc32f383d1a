#pragma once
// A service as deployed: how many pods in which zones, what a pod can do at
// once (worker slots) and how much it queues, how long a request takes, how
// the in-region load balancer picks a zone and a pod, and what a caller sees
// when the pod's zone fails.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "models/data/pool_config.h"
#include "models/load/service_time.h"
#include "models/service/load_balancer_config.h"
#include "models/service/grpc_config.h"
#include "models/service/mesh_config.h"
#include "models/service/retry_policy.h"
#include "sim/fields.h"
#include "sim/units.h"

namespace drsim {

struct ReplicasConfig {
  std::string zone;
  std::uint32_t replicas = 0;

  static constexpr std::string_view kTypeName = "Replicas";
  static constexpr auto fields() {
    return std::tuple{
        field("zone", &ReplicasConfig::zone, "A zone of the topology.", kRequired),
        field("replicas", &ReplicasConfig::replicas, "Pods of the service in that zone.", kRequired),
    };
  }
};

// A call this service makes to another for every request, after its own
// work, while the worker waits (thread-per-request). Calls run in list order;
// consecutive calls marked parallel start together and are waited for
// together. A sequential call with count N is N calls one after another; a
// parallel one is N at once.
struct CallConfig {
  // One of the two: a service called over the network, or a database
  // queried through the pod's connection pool towards it.
  std::string service;
  std::uint32_t count = 1;
  bool parallel = false;
  std::optional<Duration> timeout;  // none: the worker waits as long as it takes
  RetryPolicyConfig retry;
  std::string database;
  // database calls: queries run one after another on one borrowed connection;
  // the last `writes` of them are writes (they commit on the primary).
  std::uint32_t queries = 1;
  std::uint32_t writes = 0;
  // database calls: the pod's pool towards that database (one pool per pod
  // and database; HikariCP's defaults when absent). Calls to the same
  // database share the pool, so at most one of them sets it.
  std::optional<PoolConfig> pool;
  // Last, so that the positional initialisers written before them still mean what they meant.
  // service calls: the callee's operation (ServiceConfig::operations); empty: its default one.
  std::string operation;
  // Each of the count calls is made with this probability, drawn per call and request (a cache miss, a
  // feature flag, a branch of the handler): the mean number of calls per request is count x probability.
  Ratio probability{1.0};

  static constexpr std::string_view kTypeName = "Call";
  static constexpr auto fields() {
    return std::tuple{
        field("service", &CallConfig::service, "The service called (or give database)."),
        field("database", &CallConfig::database,
              "A database (topology databases) queried through the pod's connection pool (or give service)."),
        field("operation", &CallConfig::operation,
              "service calls: the callee's operation (one of its operations); absent: its default operation "
              "(its own serviceTime and calls)."),
        field("count", &CallConfig::count, "Calls per request.", kPositive),
        field("probability", &CallConfig::probability,
              "Each of the count calls is made with this probability, drawn per call and request (a cache miss, "
              "a branch of the handler): count x probability calls per request on average (default 1).",
              kPositive | kAtMostOne),
        field("parallel", &CallConfig::parallel,
              "Start together with the neighbouring calls that are also parallel, and wait for all of them."),
        field("timeout", &CallConfig::timeout,
              "Give up on the call after this long, retries included; the request then fails with cause "
              "dependency (absent: the worker waits as long as it takes).",
              kPositive),
        field("retry", &CallConfig::retry, "How a failed call is retried (default: it is not)."),
        field("queries", &CallConfig::queries,
              "database calls: queries run one after another on one borrowed connection.", kPositive),
        field("writes", &CallConfig::writes,
              "database calls: how many of the queries (the last ones) are writes: they commit on the primary "
              "(and wait for replicas in semi-sync or sync mode), and fail without a writable primary."),
        field("pool", &CallConfig::pool,
              "database calls: each pod's connection pool towards the database (HikariCP 5.1.0 semantics and "
              "defaults). Calls to one database share the pod's pool: set it on one of them."),
    };
  }
};

// What a pod's CPU does. A request's own work uses CPU at a rate of its
// operation's cpuTime over its mean serviceTime (perWorker cores when the
// operation gives no cpuTime); a request waiting on its calls uses none
// (thread-per-request blocking I/O: it holds a worker slot but not a core),
// and a running pod uses idle cores besides. request is Kubernetes'
// requests.cpu: the denominator of CPU utilisation for the HPA, the pod's
// size on a node for the scheduler, and its weight when the pods of a full
// node share its cores. limit is limits.cpu: the kernel's CFS quota of limit
// x quotaPeriod per period (models/service/cfs_bandwidth.h); a pod that has
// used it stands still until the period ends.
struct CpuConfig {
  std::optional<CpuQuantity> request;  // absent: the limit, else idle + concurrency x perWorker
  CpuQuantity per_worker{1000};
  CpuQuantity idle{0};
  std::optional<CpuQuantity> limit;  // absent: no CFS quota
  Duration quota_period = std::chrono::milliseconds(100);

  static constexpr std::string_view kTypeName = "Cpu";
  static constexpr auto fields() {
    return std::tuple{
        field("request", &CpuConfig::request,
              "The pod's requests.cpu: what CPU utilisation is measured against, what the scheduler places, and "
              "the pod's weight when the pods of a full node share its cores (absent: the limit when one is "
              "given, as Kubernetes defaults it; else idle + concurrency x perWorker, so that 100% means every "
              "worker computing).",
              kPositive),
        field("limit", &CpuConfig::limit,
              "The pod's limits.cpu: a CFS quota of limit x quotaPeriod of CPU time per period, shared by its "
              "threads; once used up, the pod stands still until the period ends (throttled). Absent: no quota "
              "(the pod may burst up to its node's free cores).",
              kPositive),
        field("quotaPeriod", &CpuConfig::quota_period,
              "The CFS period the limit is enforced over (the kubelet's cpuCFSQuotaPeriod, 100ms by default).",
              kPositive),
        field("perWorker", &CpuConfig::per_worker,
              "Cores one worker uses while it runs a request's own work (not while it waits on calls), for the "
              "operations that give no cpuTime.",
              kNonNegative),
        field("idle", &CpuConfig::idle, "Cores a running pod uses with nothing to do.", kNonNegative),
    };
  }
};

// One operation (an endpoint, an RPC method) of a service: its own service-time distribution and its own calls,
// so that a traffic mix of operations has each operation's call graph and costs. What it leaves out is the
// service's: its serviceTime and its calls.
struct OperationConfig {
  std::string name;
  std::optional<ServiceTimeConfig> service_time;
  std::optional<std::vector<CallConfig>> calls;
  std::optional<Duration> cpu_time;

  static constexpr std::string_view kTypeName = "Operation";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &OperationConfig::name,
              "Operation name, unique in the service (what callers and populations name).", kRequired),
        field("serviceTime", &OperationConfig::service_time,
              "How long a worker takes for a request of this operation (absent: the service's serviceTime)."),
        field("cpuTime", &OperationConfig::cpu_time,
              "CPU time a request of this operation uses in its own work, on average: it computes at cpuTime / "
              "mean serviceTime cores (at most 1: one thread), and slower than serviceTime when its pod gets less "
              "CPU than that (throttled at its limit, or on a full node). Absent: the service's cpuTime, else "
              "cpu.perWorker cores.",
              kPositive),
        field("calls", &OperationConfig::calls,
              "The calls a request of this operation makes after its own work, in order (absent: the "
              "service's calls; [] for none)."),
    };
  }
};

struct ServiceConfig {
  std::string name;
  std::vector<ReplicasConfig> replicas;
  std::uint32_t concurrency = 1;  // workerPool: worker slots per pod; eventLoop: threads running handlers
  std::optional<std::uint32_t> queue_limit;  // requests waiting per pod; none: unbounded
  ServiceTimeConfig service_time;
  std::string balancing = "round-robin";  // round-robin | least-outstanding | random
  bool zone_affinity = false;
  bool region_affinity = false;
  std::string zone_failure = "blackhole";  // blackhole | refuse
  std::string discovery = "auto";          // auto | kubernetes | mesh | grpc | loadBalancer | oracle
  std::string deadlines = "ignore";        // ignore | propagate
  std::optional<LoadBalancerConfig> load_balancer;  // discovery loadBalancer: its settings
  std::optional<MeshConfig> mesh;                   // discovery mesh: its sidecars' settings
  std::optional<GrpcConfig> grpc;                   // discovery grpc: its callers' channels
  std::vector<CallConfig> calls;
  std::vector<OperationConfig> operations;
  CpuConfig cpu;
  std::optional<Duration> cpu_time;  // the default operation's (and the operations' that give none)
  // workerPool: a thread per request, held while the request's calls are out; eventLoop: requests in flight up
  // to maxInFlight, which take one of `concurrency` threads only while they compute.
  std::string server = "workerPool";
  std::optional<std::uint32_t> max_in_flight;  // eventLoop: requests a pod holds at once

  // Operation indices: 0 is the default operation (the service's own serviceTime and calls), 1 + i is
  // operations[i]. What a request of each does.
  std::size_t operation_count() const { return operations.size() + 1; }
  // The index of the operation of that name: 0 for the empty name, nullopt for an unknown one.
  std::optional<std::size_t> operation_index(std::string_view operation) const;
  // "" for the default operation.
  const std::string& operation_name(std::size_t op) const;
  // What a traced request of operation op is called in its spans: the operation's name, "default" for the
  // default operation.
  std::string_view span_name(std::size_t op) const { return op == 0 ? std::string_view("default") : operation_name(op); }
  const std::vector<CallConfig>& calls_of(std::size_t op) const;
  const ServiceTimeConfig& service_time_of(std::size_t op) const;
  // The cores a request of operation op uses while it computes: cpuTime over the mean service time, or
  // cpu.perWorker. Millicores, rounded to the nearest.
  std::int64_t cpu_millicores_of(std::size_t op) const;
  // Operation op's cpuTime, or the service's; nullopt when neither gives one.
  std::optional<Duration> cpu_time_of(std::size_t op) const;
  // The most a pod can ask for at once: idle plus every worker (worker pool) or thread (event loop) computing
  // the operation that asks for most. Above cpu_request(), its pods can burst into their node's spare cores.
  std::int64_t cpu_peak_millicores() const;

  bool event_loop() const { return server == "eventLoop"; }
  // Requests one pod holds at once, computing or waiting on calls: its worker slots.
  std::uint32_t slots_per_pod() const { return event_loop() ? max_in_flight.value_or(0) : concurrency; }
  // requests.cpu of one pod (the default when cpu.request is absent).
  CpuQuantity cpu_request() const;
  // The pool its pods hold towards `database`: the last of its calls to it
  // that sets one, HikariCP's defaults otherwise. The simulator's pods open
  // this pool, and drsim check sizes the same one.
  PoolConfig pool_towards(std::string_view database) const;
  // discovery with auto settled: kubernetes, mesh, loadBalancer or oracle, in a
  // scenario with (or without) spec.kubernetes.
  std::string discovery_path(bool scenario_has_kubernetes) const;

  static constexpr std::string_view kTypeName = "Service";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &ServiceConfig::name, "Service name, unique in the scenario.", kRequired),
        field("replicas", &ServiceConfig::replicas, "Pods per zone.", kRequired),
        field("server", &ServiceConfig::server,
              "How a pod serves requests. workerPool (thread per request, the default): a request holds one of "
              "its concurrency workers from the start of its own work until its calls are over. eventLoop (Go, "
              "Node.js, gRPC servers): a pod holds up to maxInFlight requests at once; a request computes on one of "
              "its concurrency threads (waiting in the pod's run queue, first come first served, while all are "
              "busy) and holds no thread while its calls are out."),
        field("concurrency", &ServiceConfig::concurrency,
              "workerPool: requests one pod serves at once (worker slots). eventLoop: threads running request "
              "handlers (GOMAXPROCS, 1 for Node.js).",
              kPositive),
        field("maxInFlight", &ServiceConfig::max_in_flight,
              "eventLoop (required): requests one pod holds at once, computing, waiting for a thread or waiting "
              "on calls (a server's concurrent-request limit); more wait in the pod's queue (queueLimit).",
              kPositive),
        field("queueLimit", &ServiceConfig::queue_limit,
              "Requests one pod holds waiting for a worker; more are rejected. Absent: unbounded; 0: no "
              "waiting room (a pure loss system)."),
        field("serviceTime", &ServiceConfig::service_time,
              "How long a worker takes per request (of the default operation, and of the operations that set "
              "none).",
              kRequired),
        field("balancing", &ServiceConfig::balancing,
              "How the zone and the pod are picked: round-robin (smooth weighted across zones), "
              "least-outstanding (pod with the fewest requests), or random (weighted draw, as kube-proxy's "
              "iptables mode)."),
        field("zoneAffinity", &ServiceConfig::zone_affinity,
              "Serve a caller in its own zone while that zone has an idle worker; spill over otherwise."),
        field("regionAffinity", &ServiceConfig::region_affinity,
              "Serve a caller from its own region while a zone there has an idle worker; spill over to the other "
              "regions otherwise. On the services of a call chain it keeps a request's later hops in the region it "
              "entered (unit-based call-chain affinity)."),
        field("zoneFailure", &ServiceConfig::zone_failure,
              "What callers see when a pod's zone fails: blackhole (no answer, they time out) or refuse "
              "(connections reset at once)."),
        field("discovery", &ServiceConfig::discovery,
              "How callers learn that a pod can no longer take work. kubernetes: through EndpointSlices, which "
              "follow readiness probes and the node lifecycle controller, as kube-proxy programs them "
              "(spec.kubernetes.nodeLifecycle, spec.kubernetes.kubeProxy); a pod of a failed zone gets requests "
              "until then. mesh: the calling services' sidecar proxies (Envoy, as Istio configures it; settings "
              "in mesh): the same endpoints, pushed by istiod, and each sidecar's own outlier detection, "
              "locality failover, panic threshold, timeouts and optional active health checks; callers that "
              "are not services (populations) go through kube-proxy. Needs spec.kubernetes. grpc: the calling services' gRPC "
              "channels (settings in grpc): long-lived connections to pods behind the Service's virtual IP or its "
              "headless DNS, which learn of a dead pod only when a connection breaks (a reset, an unanswered "
              "keepalive ping, TCP giving up) and of new pods only when they re-resolve; populations go through "
              "kube-proxy. Needs spec.kubernetes. loadBalancer: a cloud load balancer's target health checks and its DNS answer of "
              "nodes per zone (loadBalancer); a failed zone's pods get requests until they fail enough checks, "
              "and its node until callers' cached answers expire. oracle: callers stop using a pod the instant "
              "it or its zone dies, a shortcut for comparisons with closed forms that no real system has. auto: "
              "loadBalancer when the service has a loadBalancer block, else kubernetes in a scenario with "
              "spec.kubernetes, else loadBalancer (drsim describe and every run's events say which)."),
        field("deadlines", &ServiceConfig::deadlines,
              "What the service does with its callers' deadlines (a request's deadline is when its caller "
              "gives up: the population's timeout, a call's timeout, or the deadline it was given, the "
              "earlier). ignore (the default, as a plain HTTP service): a caller's timeout ends only the "
              "caller's wait, and the service goes on with work nobody waits for. propagate (gRPC style): a "
              "request still queued at its deadline is dropped when a worker comes to it, one in service is "
              "cancelled at its deadline (its calls under way too, and the worker freed), and its calls carry "
              "the remaining time to their callees; the caller hears DEADLINE_EXCEEDED (a timeout)."),
        field("loadBalancer", &ServiceConfig::load_balancer,
              "The cloud load balancer in front of the service, for discovery loadBalancer (default: an AWS "
              "Application Load Balancer with its documented defaults)."),
        field("mesh", &ServiceConfig::mesh,
              "The sidecars' settings towards the service, for discovery mesh (default: Envoy's documented "
              "defaults, with Istio's locality failover and leastRequest)."),
        field("grpc", &ServiceConfig::grpc,
              "The gRPC channels its calling services hold, for discovery grpc (default: gRPC's documented "
              "defaults: the Service's virtual IP, pick_first, no keepalive)."),
        field("calls", &ServiceConfig::calls,
              "Services called for every request after the service's own work, in order (the default "
              "operation's, and the operations' that set none)."),
        field("operations", &ServiceConfig::operations,
              "The service's operations (endpoints, RPC methods), each with its own service time and calls: "
              "callers name one (calls[].operation, populations' operations); what an operation leaves out is "
              "the service's serviceTime and calls, which are also the default operation's."),
        field("cpu", &ServiceConfig::cpu,
              "CPU a pod requests (what the HPA measures and the scheduler places), its limit, and what it uses."),
        field("cpuTime", &ServiceConfig::cpu_time,
              "CPU time a request uses in its own work, on average (the default operation's, and the operations' "
              "that give none): it computes at cpuTime / mean serviceTime cores (at most 1), and takes longer "
              "than its serviceTime when its pod gets less CPU than that. Absent: cpu.perWorker cores.",
              kPositive),
    };
  }

  std::vector<ConfigProblem> validate() const;

 private:
  // The problems of one list of calls (the service's, or an operation's), keyed under `where`.
  void validate_calls(const std::vector<CallConfig>& list, const std::string& where,
                      std::vector<ConfigProblem>& out) const;
};

}  // namespace drsim

#pragma once
// Internal to models/service/: a Service's outbound calls. Once a request's
// own work is done, its worker runs the service's calls (config().calls) as
// steps: the calls of one step go out at once, the next step starts when
// every call of this one is over, and a failed call ends the request as
// kDependencyFailed after its step. Each call has its timeout, retry policy
// and retry budget; a database call goes through the pod's connection pool
// towards that database (one per pod and database, open while the pod runs).
//
// Call records are pooled and reused, so a call allocates nothing; the token
// of an attempt is (generation << 32) | record, and a late answer to an
// attempt given up on finds another generation and is ignored.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/data/connection_pool.h"
#include "models/metrics/windowed_metrics.h"
#include "models/service/envoy_cluster.h"
#include "models/service/grpc_channel.h"
#include "models/service/job.h"
#include "models/service/pod_set.h"
#include "models/service/retry_budget.h"
#include "models/service/retry_policy.h"
#include "models/service/service_config.h"
#include "sim/rng.h"

namespace drsim {

class Service;
class Simulation;

class CallClient {
 public:
  // What the client needs from the service whose pods make the calls.
  class Owner {
   public:
    // The request in (pod, slot) has no calls left: outcome is kServed, or
    // kDependencyFailed when a call failed for good.
    virtual void calls_over(std::size_t pod, std::size_t slot, ServeOutcome outcome) = 0;

   protected:
    ~Owner() = default;
  };
  // The endpoint a pod in a topology zone connects to for a database; null
  // for an unknown database.
  using FindDatabase = std::function<PoolEndpoint*(std::string_view database, ZoneIndex from)>;
  using FindService = std::function<Service*(std::string_view)>;

  // `caller` answers for the calls (callees report to it, pools to `querier`);
  // both are the owning service.
  CallClient(const ServiceConfig& config, PodSet& pods, Owner& owner, JobOwner& caller, QueryClient& querier);

  // Resolves the services and databases the calls name. Throws
  // SimulationError for an unknown name, or a database call from a zone
  // outside the topology.
  void connect(const FindService& find_service, const FindDatabase& find_database);
  // Scheduling goes through the host component (its id tags the events) and
  // its random stream; the pools' series are declared per service zone.
  void attach(Simulation& sim, std::uint32_t host, RngStream& rng, WindowedMetrics& metrics);

  // The job in (pod, slot) has done its own work: its calls begin.
  void begin(std::size_t pod, std::size_t slot);
  // The answer to an attempt: nullopt for a success.
  void answer(std::uint64_t token, std::optional<AttemptFailure> failure);
  // A callee's answer to an attempt. Through a sidecar, a refused or timed-out connection is the sidecar's
  // 503 to the caller (a dependency failure); otherwise as attempt_failure(outcome).
  void served(std::uint64_t token, ServeOutcome outcome);
  // How long the attempt, lost on its way, waits before its connection gives up: a sidecar opening a
  // connection gives up after its connectTimeout, anything else when the kernel does.
  Duration unacknowledged_give_up(std::uint64_t token, bool new_connection);
  // Ejections by the pods' sidecars so far towards the n-th meshed service the calls name (meshed_callees()).
  std::uint64_t mesh_ejections(std::size_t n) const;
  const std::vector<Service*>& meshed_callees() const { return meshed_; }
  // The pod's sidecar towards the n-th meshed callee; null before it first ran.
  const EnvoyCluster* sidecar(std::size_t pod, std::size_t n) const;
  // The same for the services called over gRPC channels (discovery grpc).
  const std::vector<Service*>& grpc_callees() const { return grpc_; }
  std::uint64_t grpc_breaks(std::size_t n) const;
  // Ends the slot's calls under way (the slot is being freed).
  void drop(WorkerSlot& slot);
  // How a database query's result counts for the call's retry policy.
  static std::optional<AttemptFailure> failure_of(const QueryResult& result);

  // Opens the pod's pools while it runs (zone up, present, not crashed) and
  // closes them when it stops; creates them on first need. Its sidecars run
  // while the pod runs (a crashed application container leaves its sidecar up).
  void sync_pools(std::size_t pod);
  // A pod's pool towards the n-th database the calls name (in order of
  // first mention); null while the pod is not running.
  const ConnectionPool* pod_pool(std::size_t pod, std::size_t database) const;
  // What the client holds per pod before its pools open (see Service::memory_per_pod).
  static std::uint64_t memory_per_pod();

 private:
  struct CallRecord {
    std::uint32_t pod = 0, slot = 0;
    std::uint32_t edge = 0;     // index in edges_
    Service* callee = nullptr;  // null: a database call (CallEdge::database)
    std::uint32_t generation = 0;
    std::uint32_t attempt = 0;
    bool attempt_outstanding = false;
    EventId timeout;        // the whole call
    EventId attempt_timer;  // the attempt's timeout, or the backoff wait
    // When the caller gives up on the call: its timeout, and with deadlines propagating the calling
    // request's own deadline, the earlier. Every attempt carries it (gRPC's grpc-timeout).
    SimTime deadline = kSimTimeMax;
    // Through a sidecar: the host it picked for the attempt under way, and its route timeout.
    std::uint32_t host = kNoCall;
    EventId route_timer;
    std::uint32_t prev = kNoCall, next = kNoCall;  // the slot's calls; next is also the free list
    std::uint32_t span = 0;  // its CLIENT span when the calling request is traced (0: not traced)
  };
  // Per entry of the calls of every operation: its retry policy and budget.
  struct CallEdge {
    RetryPolicy retry;
    std::optional<RetryBudget> budget;
    std::optional<Duration> timeout;
    std::uint32_t database = kNoCall;  // database calls: index in database_uses_
    std::uint32_t queries = 1;
    std::uint32_t writes = 0;
    std::uint32_t sidecar = kNoCall;  // calls to a meshed service: index in meshed_
    std::uint32_t channel = kNoCall;  // calls over gRPC channels: index in grpc_
    std::uint16_t operation = 0;      // service calls: the callee's operation index
    double probability = 1.0;         // each call is made with it
    std::uint32_t span_name = 0;      // traced calls' CLIENT span name (interned at attach from span_names_)
  };
  // A database the calls name: the pods' pool settings towards it, and its
  // endpoint from each of the service's zones.
  struct DatabaseUse {
    std::string name;
    PoolConfig pool;
    std::vector<PoolEndpoint*> endpoint;                // per service zone
    std::vector<std::unique_ptr<PoolMetrics>> metrics;  // per service zone, from attach
  };
  struct StepCall {
    Service* callee = nullptr;
    std::uint32_t edge = 0;
  };
  struct PodPools {
    std::vector<std::unique_ptr<ConnectionPool>> pools;  // one per DatabaseUse
    bool open = false;
  };

  std::uint32_t connect_database(const CallConfig& call, const FindDatabase& find_database);
  // One operation's calls: their edges, and the steps they make.
  void connect_calls(const std::vector<CallConfig>& calls, std::vector<std::vector<StepCall>>& steps,
                     const FindService& find_service, const FindDatabase& find_database);
  void start_step(std::size_t pod, std::size_t slot);
  void end_step(std::size_t pod, std::size_t slot);
  std::uint32_t new_call(std::size_t pod, std::size_t slot, std::uint32_t edge, Service* callee);
  void send_attempt(std::uint32_t call);
  void attempt_failed(std::uint32_t call, AttemptFailure failure);
  // The call is over: it succeeded or it failed for good.
  void call_done(std::uint32_t call, bool ok);
  void free_call(std::uint32_t call);
  // The pod's sidecar towards meshed_[n], created and started on first need.
  EnvoyCluster& sidecar_of(std::size_t pod, std::size_t n);
  void sync_sidecars(std::size_t pod);
  // The pod's channel towards grpc_[n], created and started on first need.
  GrpcChannel& channel_of(std::size_t pod, std::size_t n);
  // A connection of the pod's channel towards grpc_[n] broke: the calls under way on it fail (UNAVAILABLE).
  void connection_broken(std::size_t pod, std::size_t n, std::size_t host);
  // An attempt sent to a host its sidecar or gRPC channel picked is over: the sidecar or the channel hears how
  // it ended, and the sidecar's route timer stops.
  void end_attempt_on_host(CallRecord& r, EnvoyCluster::Result result);
  // The sidecar's route timeout fired before the host answered: 504.
  void route_timed_out(std::uint32_t call);
  SimTime now() const;

  const ServiceConfig& config_;
  bool propagate_deadlines_;  // deadlines: propagate, settled once rather than compared per call
  PodSet& pods_;
  Owner& owner_;
  JobOwner& caller_;
  QueryClient& querier_;
  Simulation* sim_ = nullptr;
  std::uint32_t host_ = 0;
  RngStream* rng_ = nullptr;
  std::vector<std::vector<std::vector<StepCall>>> steps_;  // [operation][step]: the calls of each step
  std::vector<CallEdge> edges_;
  std::vector<std::string> span_names_;  // per edge: the callee's operation (or the database) as spans name it
  std::uint32_t span_caller_ = 0;        // the caller's name in spans (interned at attach)
  std::vector<DatabaseUse> database_uses_;
  std::vector<CallRecord> records_;
  std::uint32_t free_record_ = kNoCall;
  std::vector<PodPools> pod_pools_;  // by pod id, grown as pods first run
  std::vector<Service*> meshed_;     // the meshed services the calls name, in order of first mention
  std::vector<std::unique_ptr<EnvoyCluster>> sidecars_;  // [pod * meshed_.size() + n], created as pods first run
  std::vector<Service*> grpc_;                            // the services called over gRPC channels
  std::vector<std::unique_ptr<GrpcChannel>> channels_;    // [pod * grpc_.size() + n]
};

}  // namespace drsim

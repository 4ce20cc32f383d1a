#pragma once
// A service deployed in zones: pods with worker slots and a bounded FIFO
// queue each, an in-region load balancer that picks a zone (smooth weighted
// round-robin over up pods x the zone's cut ratio, optionally preferring the
// caller's zone) and a pod (round-robin or least-outstanding), or both at
// random in proportion to the same weights (balancing: random), and the
// service-time distribution. It reacts to zone failures (FailureDomains):
// a failed zone's pods stop; what they held is black-holed or refused.
//
// Recorded per window, labelled service and zone: service.arrivals,
// service.waited (arrivals that found every worker busy), service.rejected,
// service.completed, service.response_{p50,p90,p99,mean}_s (queue + service),
// service.region_crossings (label service only: requests and calls that came
// from a caller zone in another region; with regionAffinity a caller's own
// region serves it while a zone there has an idle worker),
// zone.utilization (busy workers / workers of up pods),
// service.queue_length and service.pods (pods taking new work),
// service.cpu_cores (cores used by the zone's pods, see CpuConfig) and
// service.cpu_utilization (those cores / requests.cpu of the serving pods:
// ready, or finishing their work).
// With record_pod_series, per pod as well (labels service, zone, pod):
// pod.utilization (busy workers / concurrency) and pod.cpu_cores. KPIs per
// zone at stop: utilization mean and peak, overload seconds (time with
// requests queued), rejected.
//
// CPU and per-pod use are kept as exact integrals (worker-nanoseconds) that
// advance when a pod's counts change, so the hot path pays an add and a
// multiply; the window series are their differences, taken once per window.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/data/connection_pool.h"
#include "models/metrics/windowed_metrics.h"
#include "models/service/job.h"
#include "models/service/service_config.h"
#include "models/load/service_time.h"
#include "models/topology/failure_domains.h"
#include "models/service/retry_budget.h"
#include "models/service/retry_policy.h"
#include "sim/component.h"

namespace drsim {

class Service : public Component, public JobOwner, public QueryClient {
 public:
  // `domains` may be null for a service outside any topology (unit tests):
  // its zones are then named by the config alone and never fail.
  Service(ServiceConfig config, FailureDomains* domains, Duration metrics_window = std::chrono::seconds(1));

  const ServiceConfig& config() const { return config_; }
  std::size_t zone_count() const { return zones_.size(); }
  const std::string& zone_name(std::size_t z) const { return zones_[z].name; }

  // Hands a job to the service. Returns nullopt when accepted (the owner
  // hears later, or never if black-holed), or the outcome of an immediate
  // failure. caller_zone is a topology zone index, for zone affinity.
  // region, when given, confines the balancer to the service's zones in that
  // region (geo routing chose it). preferred_zone, when given, replaces
  // caller_zone for zone affinity only: traffic coloured for a zone by a
  // gateway, sent by clients that do not sit in it.
  std::optional<ServeOutcome> submit(Job job, std::optional<ZoneIndex> caller_zone = std::nullopt,
                                     std::optional<RegionIndex> region = std::nullopt,
                                     std::optional<ZoneIndex> preferred_zone = std::nullopt);

  // Operator action traffic:cut: the zone's share is route weight x ratio.
  void set_cut_ratio(std::size_t zone, double ratio);
  // Gray failure service:slow: service times are multiplied by factor (> 0),
  // for requests that start service from now on.
  void set_slowdown(double factor);
  // Operator action service:scale: the zone gets n pods taking work. New pods
  // are ready at once (pod start-up delays belong to the Kubernetes model, a
  // later issue). Removed pods are the idle ones first; a busy one stops taking
  // new work (terminating), finishes what it holds in service and in queue,
  // and then goes.
  void set_replicas(std::size_t zone, std::uint32_t n);
  // Fault pods:kill: the zone's first n pods taking work (fewer if it has
  // fewer) die; their requests are refused at once (a killed process resets
  // its connections). Without a control plane the pods are gone; with one
  // (on_pod_killed) their containers crash and it restarts them. Returns how
  // many were killed.
  std::uint32_t kill_pods(std::size_t zone, std::uint32_t n);

  // The service's zone of that name, if it has pods there by configuration.
  std::optional<std::size_t> find_zone(std::string_view name) const;
  // Pods that take new work (present, not terminating), whether or not their zone is up.
  std::uint32_t pods(std::size_t zone) const;

  // The endpoint a pod in a topology zone connects to for a database; null
  // for an unknown database.
  using FindDatabase = std::function<PoolEndpoint*(std::string_view database, ZoneIndex from)>;
  // Resolves the services and databases named in config().calls; the builder
  // calls it once every service and database exists. Throws SimulationError
  // for an unknown name, or a database call from a zone outside the topology.
  void connect_calls(const std::function<Service*(std::string_view)>& find_service,
                     const FindDatabase& find_database = {});
  // Answers to this service's own calls.
  void on_served(std::uint64_t token, ServeOutcome outcome) override;
  // Answers to its database calls (from the pods' connection pools).
  void on_query_done(std::uint64_t token, const QueryResult& result) override;
  // A pod's pool towards the n-th database its calls name (in order of first
  // mention); null while the pod is not running.
  const ConnectionPool* pod_pool(std::size_t pod, std::size_t database) const;

  std::uint32_t busy_workers(std::size_t zone) const;
  std::size_t queued(std::size_t zone) const;

  // ---- pods run by a control plane (the Kubernetes model) ----
  // A new pod in the zone; an unready one takes no work until
  // set_pod_ready(pod, true) (its readiness probe passed). Returns its id.
  std::size_t start_pod(std::size_t zone, bool ready);
  // Endpoints follow readiness: an unready pod gets no new work but
  // finishes what it holds.
  void set_pod_ready(std::size_t pod, bool ready);
  // Graceful deletion: no new work; it finishes what it holds, then goes.
  void remove_pod(std::size_t pod);
  // Sudden death: what it holds is refused at once.
  void kill_pod(std::size_t pod);
  bool pod_present(std::size_t pod) const { return pods_[pod].present; }
  bool pod_ready(std::size_t pod) const { return pods_[pod].ready; }
  bool pod_terminating(std::size_t pod) const { return pods_[pod].terminating; }
  // With a listener (a control plane), pods:kill crashes a pod's container
  // instead of removing the pod: it stays listed (requests reaching it are
  // refused) until the control plane marks it unready, and restart_pod
  // brings the container back. The listener hears of every crash.
  void on_pod_killed(std::function<void(std::size_t pod)> listener) { pod_killed_ = std::move(listener); }
  void restart_pod(std::size_t pod);
  // Hears of every request this service finishes (served or failed on a
  // dependency), with the service zone that finished it: what asynchronous
  // work driven by the requests (a producer's messages) follows. Each call
  // adds a listener; they hear in the order they were added.
  using RequestDoneListener = std::function<void(std::size_t zone, ServeOutcome outcome)>;
  void on_request_done(RequestDoneListener listener) { request_done_.push_back(std::move(listener)); }
  bool pod_crashed(std::size_t pod) const { return pods_[pod].crashed; }

  // Every pod the service ever had, removed ones included: pod ids are
  // indices below pod_total() and are never reused.
  std::size_t pod_total() const { return pods_.size(); }
  std::size_t pod_zone(std::size_t pod) const { return pods_[pod].zone; }
  const std::string& pod_name(std::size_t pod) const { return pods_[pod].name; }
  // A pod's use since it was added, up to now: worker-time busy (in service
  // or waiting on calls), worker-time computing (its own work: what uses
  // CPU) and time running (present, zone up). A metrics pipeline samples
  // these and takes differences, as Kubernetes' does with cumulative CPU.
  struct PodUsage {
    Duration busy{};
    Duration computing{};
    Duration running{};
  };
  PodUsage pod_usage(std::size_t pod) const;
  // CPU time the pod has used up to now, in core-seconds (see CpuConfig).
  double pod_cpu_core_seconds(std::size_t pod) const;
  // Also write per-pod series (pod.utilization, pod.cpu_cores); call before
  // the run starts. Off by default: a series per pod per window adds up.
  void record_pod_series(bool on) { record_pod_series_ = on; }
  // What one pod of a service so configured holds in memory before any
  // request arrives (its worker slots grow with concurrency): for the
  // estimate a run is refused on before it is built (io/run_estimate.h).
  static std::uint64_t memory_per_pod(const ServiceConfig& config);

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  static constexpr std::uint32_t kNotRecorded = 0xFFFFFFFFu;
  static constexpr std::uint32_t kNoCall = 0xFFFFFFFFu;
  struct Pod {
    std::size_t zone = 0;
    bool up = true;            // its zone is up
    bool present = true;       // false once removed by scaling down or killed
    bool terminating = false;  // scaled down while busy: no new work
    bool ready = true;         // passes its readiness probe: endpoints list it
    bool crashed = false;      // its container died (pods:kill under a control plane): requests are refused
    bool routable() const { return up && present && !terminating && ready; }
    // Counted in utilisation's denominator: running and either taking work
    // or finishing what it holds.
    bool serving() const { return up && present && (ready || terminating); }
    std::uint32_t busy = 0;
    JobQueue queue;
    // One per worker slot: the job's own work, then its calls.
    struct Slot {
      bool occupied = false;
      bool failed = false;
      EventId work;                  // pending while the job's own work runs
      std::uint32_t generation = 0;  // bumped when freed: late call answers are ignored
      std::uint32_t step = 0;        // the call step under way
      std::uint32_t outstanding = 0; // calls of that step not answered yet
      Job job;                       // the job in service (arrived: when it reached the service)
      std::uint32_t first_call = kNoCall;  // its calls under way (a list through CallRecord::next)
      bool sending = false;                // its step's calls are being sent: the step cannot end yet
    };
    std::vector<Slot> slots;
    // Bit i % 64 of word i / 64 is set while slot i is free, so a job finds
    // the lowest free slot without walking the slots (see take_slot).
    std::vector<std::uint64_t> free_slots;
    std::uint32_t outstanding() const { return busy + static_cast<std::uint32_t>(queue.size()); }
    bool running() const { return up && present; }
    std::string name;  // <service>-<zone>-<n>
    // Use integrals (worker-ns, exact), advanced to usage_since_ns by accrue().
    std::uint32_t computing = 0;  // slots running their job's own work
    std::int64_t usage_since_ns = 0;
    std::int64_t busy_ns = 0, computing_ns = 0, running_ns = 0, serving_ns = 0;
    // Their values at the start of the current window, and whether the pod
    // was present then (a pod removed during a window still gets its point).
    std::int64_t busy_ns_mark = 0, computing_ns_mark = 0, running_ns_mark = 0, serving_ns_mark = 0;
    bool present_at_mark = false;
    bool has_series = false;
    SeriesId utilization_series, cpu_series;
    // One per database the calls name (DatabaseUse), created when the pod
    // first runs; open while it runs (see sync_pools).
    std::vector<std::unique_ptr<ConnectionPool>> pools;
    bool pools_open = false;
  };
  struct Zone {
    std::string name;
    std::optional<ZoneIndex> topology_zone;
    std::optional<RegionIndex> region;  // of topology_zone
    std::vector<std::size_t> pods;  // present pods (retire_pod takes gone ones out)
    std::uint32_t pods_created = 0;  // for pod names
    // Kept in step with every pod change (change_pod), so that routing and
    // the gauges never count pods per request.
    std::uint32_t routable_pods = 0;          // taking new work: the zone's routing weight
    std::uint32_t live_pods = 0;              // up and present, terminating included
    std::uint32_t idle_routable_workers = 0;  // free worker slots of routable pods (zone affinity)
    double cut_ratio = 1.0;
    double swrr_current = 0;  // smooth weighted round-robin state
    std::size_t next_pod = 0;
    // Accounting
    std::uint32_t busy = 0;
    std::size_t queued = 0;
    SimTime overload_since = kSimTimeMax;  // kSimTimeMax: not overloaded now
    Duration overload{};
    CounterId arrivals, waited, rejected, completed;
    LatencyId response;
    GaugeId utilization, queue_length, pod_count;
    SeriesId cpu_cores, cpu_utilization;
    // What queue_length and pod_count were last set to (see update_gauges).
    std::size_t queued_recorded = kNotRecorded;
    std::uint32_t pods_recorded = kNotRecorded;
  };

  std::optional<std::size_t> pick_zone(std::optional<ZoneIndex> caller_zone, std::optional<RegionIndex> region);
  // The job reaches zone z: a pod takes it, queues it or rejects it.
  std::optional<ServeOutcome> deliver(std::size_t z, Job job);
  // The answer travels back to the caller's zone, if it can.
  void respond(const Job& job, std::size_t from_zone, ServeOutcome outcome);
  // One-way delay between the caller and a zone of this service; nullopt
  // when unreachable, zero when either end is outside the topology.
  std::optional<Duration> network_delay(std::uint32_t caller_zone, std::size_t z, bool towards_service);
  std::optional<std::size_t> pick_pod(Zone& zone);
  std::size_t add_pod(std::size_t zone, bool ready);
  // The pod is gone for good: out of its zone's counts and list.
  void retire_pod(std::size_t pod);
  // Every change to a pod's up, present, terminating or busy goes through
  // here: change(pod) runs between taking the pod out of its zone's counts
  // and putting it back in.
  template <class Change>
  void change_pod(std::size_t pod, Change&& change);
  // Before attach (pods built by the constructor) there is no clock: 0.
  bool attached() const { return metrics_.has_value(); }
  std::int64_t clock_ns() const { return attached() ? to_ns(now()) : 0; }
  // Advances the pod's use integrals to now, before its counts change.
  void accrue(Pod& pod, std::int64_t now_ns);
  // Writes the window [mark, now) of the CPU and per-pod series, and moves
  // the marks to now.
  void write_usage_window();
  void usage_tick();
  void declare_pod_series(Pod& pod);
  // Adds (sign +1) or removes (sign -1) the pod's share of its zone's counts.
  void count_pod(const Pod& pod, int sign);
  // Ends the pod's jobs in service and in queue; adds them to refused when
  // they are to be refused rather than black-holed.
  void drop_work(std::size_t pod, bool refuse, std::vector<std::pair<JobOwner*, std::uint64_t>>& refused);
  // The lowest free slot, now occupied; the pod must have one.
  std::size_t take_slot(Pod& pod);
  // Frees the slot; its generation moves on so late call answers are ignored.
  void release_slot(Pod& pod, std::size_t slot);
  void begin_service(std::size_t pod, Job job);
  void work_done(std::size_t pod, std::size_t slot);
  void start_step(std::size_t pod, std::size_t slot);
  // One call of a step, with its own timeout and retries. Records are pooled
  // and reused, so a call allocates nothing; the token of an attempt is
  // (generation << 32) | record, and a late answer to an attempt given up on
  // finds another generation and is ignored.
  struct CallRecord {
    std::uint32_t pod = 0, slot = 0;
    std::uint32_t edge = 0;  // index in config().calls
    Service* callee = nullptr;  // null: a database call (CallEdge::database)
    std::uint32_t generation = 0;
    std::uint32_t attempt = 0;
    bool attempt_outstanding = false;
    EventId timeout;        // the whole call
    EventId attempt_timer;  // the attempt's timeout, or the backoff wait
    std::uint32_t prev = kNoCall, next = kNoCall;  // the slot's calls; next is also the free list
  };
  // Per entry of config().calls: its retry policy and budget.
  struct CallEdge {
    RetryPolicy retry;
    std::optional<RetryBudget> budget;
    std::optional<Duration> timeout;
    std::uint32_t database = kNoCall;  // database calls: index in database_uses_
    std::uint32_t queries = 1;
    std::uint32_t writes = 0;
  };
  // A database the calls name: the pods' pool settings towards it, and its
  // endpoint from each of the service's zones.
  struct DatabaseUse {
    std::string name;
    PoolConfig pool;
    std::vector<PoolEndpoint*> endpoint;              // per service zone
    std::vector<std::unique_ptr<PoolMetrics>> metrics;  // per service zone, from attach
  };
  // Opens the pod's pools while it runs (zone up, present, not crashed) and
  // closes them when it stops; creates them on first need.
  void sync_pools(std::size_t pod);
  // The DatabaseUse of a database call (found or added); its endpoints.
  std::uint32_t connect_database(const CallConfig& call, const FindDatabase& find_database);
  // The answer to a call attempt: nullopt for a success.
  void answer_call(std::uint64_t token, std::optional<AttemptFailure> failure);
  std::uint32_t new_call(std::size_t pod, std::size_t slot, std::uint32_t edge, Service* callee);
  void send_attempt(std::uint32_t call);
  void attempt_failed(std::uint32_t call, AttemptFailure failure);
  // The call is over: it succeeded or it failed for good.
  void call_done(std::uint32_t call, bool ok);
  void free_call(std::uint32_t call);
  // Ends the slot's calls under way (the slot is being freed).
  void drop_calls(Pod::Slot& slot);
  void end_step(std::size_t pod, std::size_t slot);
  void finish(std::size_t pod, std::size_t slot, ServeOutcome outcome);
  void on_topology_change();
  void update_gauges(std::size_t zone);

  ServiceConfig config_;
  FailureDomains* domains_;
  CounterId region_crossings_;
  ServiceTimeDistribution service_time_;
  std::vector<Zone> zones_;
  // This service's zone in each topology zone (validation allows one at
  // most), for zone affinity; kNoZone where it has none.
  static constexpr std::size_t kNoZone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> zone_in_topology_zone_;
  std::vector<Pod> pods_;
  // Calls, as steps: the calls of one step run at once.
  struct StepCall {
    Service* callee = nullptr;
    std::uint32_t edge = 0;
  };
  std::vector<std::vector<StepCall>> call_steps_;
  std::vector<CallEdge> call_edges_;
  std::vector<DatabaseUse> database_uses_;
  std::vector<CallRecord> call_records_;
  std::uint32_t free_call_ = kNoCall;
  std::optional<WindowedMetrics> metrics_;
  Duration metrics_window_;
  double slowdown_ = 1.0;
  bool refuse_on_failure_ = false;
  bool least_outstanding_ = false;
  bool random_ = false;  // zone and pod drawn at random (kube-proxy's iptables mode)
  bool record_pod_series_ = false;
  std::function<void(std::size_t)> pod_killed_;
  std::vector<RequestDoneListener> request_done_;
  std::int64_t usage_mark_ns_ = 0;  // start of the window the usage series have not written yet
  double per_worker_cores_ = 0, idle_cores_ = 0, request_cores_ = 0;
};

}  // namespace drsim

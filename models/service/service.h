#pragma once
// A service deployed in zones: pods with worker slots and a bounded FIFO
// queue each, behind an in-region load balancer, with a service-time
// distribution and outbound calls to services and databases. It reacts to
// zone failures (FailureDomains): a failed zone's pods stop; what they held
// is black-holed or refused.
//
// Service is the component that moves a request through four parts, each
// with one job (models/service/):
//   PodSet        pods and zones: lifecycle, worker slots, queues, counts;
//   ZoneBalancer  which zone and which pod a request goes to;
//   CallClient    the request's calls: steps, timeouts, retries, budgets,
//                 one connection pool per (pod, database);
//   UsageMeter    what is recorded: per-window series, CPU use, KPIs (the
//                 list of metrics is in usage_meter.h).
// A request: submit -> ZoneBalancer picks a zone -> network delay -> deliver
// (ZoneBalancer picks a pod; a worker slot or the queue) -> its own work ->
// CallClient runs its calls -> finish -> the answer travels back.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/data/connection_pool.h"
#include "models/load/service_time.h"
#include "models/service/call_client.h"
#include "models/service/entry_nodes.h"
#include "models/service/job.h"
#include "models/service/node_cpu.h"
#include "models/service/pod_cpu_clock.h"
#include "models/service/pod_set.h"
#include "models/service/service_config.h"
#include "models/service/usage_meter.h"
#include "models/service/zone_balancer.h"
#include "models/topology/failure_domains.h"
#include "sim/component.h"

namespace drsim {

class Service : public Component,
                public JobOwner,
                public QueryClient,
                public NodeCpu::Listener,
                private CallClient::Owner {
 public:
  // `domains` may be null for a service outside any topology (unit tests):
  // its zones are then named by the config alone and never fail.
  Service(ServiceConfig config, FailureDomains* domains, Duration metrics_window = std::chrono::seconds(1));

  const ServiceConfig& config() const { return config_; }
  std::size_t zone_count() const { return pods_.zones().size(); }
  const std::string& zone_name(std::size_t z) const { return pods_.zone(z).name; }
  // The topology zone and region of the service's zone z (none outside a topology).
  std::optional<ZoneIndex> topology_zone(std::size_t z) const { return pods_.zone(z).topology_zone; }
  std::optional<RegionIndex> zone_region(std::size_t z) const { return pods_.zone(z).region; }

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
  using FindService = CallClient::FindService;
  using FindDatabase = CallClient::FindDatabase;
  // Resolves the services and databases named in config().calls; the builder
  // calls it once every service and database exists. Throws SimulationError
  // for an unknown name, or a database call from a zone outside the topology.
  void connect_calls(const FindService& find_service, const FindDatabase& find_database = {});
  // Answers to this service's own calls.
  void on_served(std::uint64_t token, ServeOutcome outcome) override;
  // How long one of its calls lost on the way waits before its connection gives up (its sidecar's connect
  // timeout, or the kernel's).
  Duration unacknowledged_give_up(std::uint64_t token, bool new_connection) override;
  // Answers to its database calls (from the pods' connection pools).
  void on_query_done(std::uint64_t token, const QueryResult& result) override;
  // A pod's pool towards the n-th database its calls name (in order of first
  // mention); null while the pod is not running.
  const ConnectionPool* pod_pool(std::size_t pod, std::size_t database) const;

  std::uint32_t busy_workers(std::size_t zone) const;
  std::size_t queued(std::size_t zone) const;

  // ---- how callers learn of pod changes (ServiceConfig::discovery) ----
  // From now on callers see the pods through kube-proxy: a readiness change
  // reaches the balancer at kube-proxy's next sync (at once when it has not
  // synced for min_sync_period, else min_sync_period after the last sync),
  // and a pod's zone failing changes nothing by itself: the node lifecycle
  // controller marks its pods unready. Without this call the callers' view
  // is the oracle: a pod leaves it the instant it or its zone dies. The
  // control plane calls it for the services whose discovery is kubernetes.
  void use_kube_proxy(Duration min_sync_period);
  bool uses_kube_proxy() const { return kube_proxy_min_sync_.has_value(); }
  // In the callers' view of the endpoints.
  bool pod_listed(std::size_t pod) const { return pods_.pod(pod).listed; }
  // Listed, present and not terminating: a caller may pick it.
  bool pod_routable(std::size_t pod) const { return pods_.pod(pod).routable(); }
  // Moves on whenever a pod joins or leaves the routable set: what a sidecar's host lists are checked against.
  std::uint64_t endpoints_version() const { return endpoints_version_; }

  // ---- sidecars (ServiceConfig::discovery mesh) ----
  // The endpoints follow readiness as with kube-proxy, pushed to the sidecars by istiod `debounce` after a
  // change; callers that are not services (populations) reach the service through kube-proxy's view of them.
  // The control plane calls it for the services whose discovery is mesh.
  void use_mesh_endpoints(Duration debounce);
  // A request a caller's sidecar sends to the pod it picked (models/service/envoy_cluster.h): it crosses the
  // network to that pod as submit's do. A pod that is gone answers with a reset if its zone is up.
  std::optional<ServeOutcome> submit_to_pod(Job job, std::optional<ZoneIndex> caller_zone, std::size_t pod);
  // What an active health check of the pod from a caller in zone `from` finds: after a round trip, passed
  // (it answers ready) or failed (it refuses or is not ready); nothing at all (after nullopt) when the pod's
  // zone is down or the path is cut, so the check times out.
  struct ProbeAnswer {
    bool passed = false;
    std::optional<Duration> after;
  };
  // connect_only: a TCP connection's answer, which a running pod gives whether or not it is ready.
  ProbeAnswer probe_pod(std::optional<ZoneIndex> from, std::size_t pod, bool connect_only = false);
  // The pod kube-proxy sends a new connection from a caller in that zone to, by the service's balancing over
  // the listed pods (discovery grpc's channels behind the virtual IP); nullopt when none is listed.
  std::optional<std::size_t> pick_endpoint(std::optional<ZoneIndex> caller_zone);

  // ---- a cloud load balancer in front (ServiceConfig::discovery loadBalancer) ----
  // From now on the balancer decides what callers see: the targets it has
  // found healthy (set_pod_listed), through the node a request enters
  // (nodes.pick_entry). The starting pods are registered healthy; a pod
  // added later gets traffic once the balancer's checks pass. When no target
  // is healthy the balancer sends to all of them (fail open).
  // What a caller hears of a request lost behind the balancer follows its
  // settings: an alb answers 502/504 for its targets, a dead node or an nlb's
  // dead target lets the caller's connect time out.
  void use_load_balancer(EntryNodes& nodes, const LoadBalancerSettings& settings);
  bool uses_load_balancer() const { return view_ == EndpointView::kLoadBalancer; }
  void set_pod_listed(std::size_t pod, bool listed);
  // What a health check of the pod finds: it is there, its zone is up, its
  // process answers and it is ready.
  bool answers_health_check(std::size_t pod) const {
    const ServicePod& p = pods_.pod(pod);
    return p.present && p.up && p.ready && !p.crashed;
  }
  // Hears of every pod added after the run started (a target to register).
  void on_pod_added(std::function<void(std::size_t pod)> listener) { pod_added_ = std::move(listener); }

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
  bool pod_present(std::size_t pod) const { return pods_.pod(pod).present; }
  bool pod_ready(std::size_t pod) const { return pods_.pod(pod).ready; }
  bool pod_terminating(std::size_t pod) const { return pods_.pod(pod).terminating; }
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
  bool pod_crashed(std::size_t pod) const { return pods_.pod(pod).crashed; }

  // ---- CPU shared with the other pods of a node (the Kubernetes model's nodes) ----
  // From now on the service's pods may run on shared nodes: their own work follows the CPU their node
  // gives them (models/service/node_cpu.h). Call before the run's first request.
  void share_node_cpu();
  // The pod runs on that node (share_node_cpu first): it asks the node for its CPU from now on, until it
  // goes.
  void place_on_node(std::size_t pod, NodeCpu& node);
  // Its node's share of it changed: its requests' own work speeds up or slows down.
  void cpu_share_changed(std::size_t pod) override;
  // The millicores a pod of this service runs at now (what its node and its limit let it have of what it
  // asks for).
  std::int64_t pod_cpu_rate(std::size_t pod) const { return pods_.pod(pod).cpu_rate; }

  // Every pod the service ever had, removed ones included: pod ids are
  // indices below pod_total() and are never reused.
  std::size_t pod_total() const { return pods_.pods().size(); }
  std::size_t pod_zone(std::size_t pod) const { return pods_.pod(pod).zone; }
  const std::string& pod_name(std::size_t pod) const { return pods_.pod(pod).name; }
  // A pod's use since it was added, up to now: worker-time busy (in service
  // or waiting on calls), worker-time computing (its own work: what uses
  // CPU) and time running (present, zone up). A metrics pipeline samples
  // these and takes differences, as Kubernetes' does with cumulative CPU.
  using PodUsage = UsageMeter::PodUsage;
  PodUsage pod_usage(std::size_t pod) const;
  // CPU time the pod has used up to now, in core-seconds (see CpuConfig).
  double pod_cpu_core_seconds(std::size_t pod) const;
  // A pod's request counters, as its app exports them to a metrics pipeline
  // (kube's metrics adapter): requests finished and the sum of their
  // response times since it was added; requests waiting in its queue and
  // worker slots busy (in service or waiting on calls) now.
  std::uint64_t pod_completed(std::size_t pod) const { return pods_.pod(pod).completed; }
  std::int64_t pod_response_ns(std::size_t pod) const { return pods_.pod(pod).response_ns; }
  std::size_t pod_queued(std::size_t pod) const { return pods_.pod(pod).queue.size(); }
  std::uint32_t pod_busy(std::size_t pod) const { return pods_.pod(pod).busy; }
  // Also write per-pod series (pod.utilization, pod.cpu_cores); call before
  // the run starts. Off by default: a series per pod per window adds up.
  void record_pod_series(bool on) { meter_.record_pod_series(on); }
  // What one pod of a service so configured holds in memory before any
  // request arrives (its worker slots grow with concurrency): for the
  // estimate a run is refused on before it is built (io/run_estimate.h).
  static std::uint64_t memory_per_pod(const ServiceConfig& config);

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  static constexpr std::uint32_t kAnyPod = 0xFFFFFFFFu;
  // The caller's region, when it sits in the topology.
  std::optional<RegionIndex> region_of_caller(std::optional<ZoneIndex> caller_zone) const;
  // The job, its caller_zone set, crosses the network to zone z, for the pod given (a sidecar's pick) or for
  // one the zone's balancer picks on arrival (kAnyPod).
  std::optional<ServeOutcome> send(Job job, std::size_t z, std::uint32_t pod,
                                   std::optional<RegionIndex> caller_region);
  // The job reaches zone z: a pod takes it (the one given, or the balancer's pick), queues it or rejects it.
  std::optional<ServeOutcome> deliver(std::size_t z, Job job, std::uint32_t pod = kAnyPod);
  // The answer travels back to the caller's zone, if it can.
  void respond(const Job& job, std::size_t from_zone, ServeOutcome outcome);
  // One-way delay between the caller and a zone of this service; nullopt
  // when unreachable, zero when either end is outside the topology.
  std::optional<Duration> network_delay(std::uint32_t caller_zone, std::size_t z, bool towards_service);
  // Whether one of the service's zones lies in region r.
  bool serves_region(RegionIndex r) const;
  std::size_t add_pod(std::size_t zone, bool ready);
  // The pod is gone for good: out of its zone's counts, list and pools.
  void retire_pod(std::size_t pod);
  template <class Change>
  void change_pod(std::size_t pod, Change&& change) {
    const bool routable = pods_.pod(pod).routable();
    pods_.change(pod, clock_ns(), std::forward<Change>(change));
    if (pods_.pod(pod).routable() != routable) ++endpoints_version_;
  }
  // The same for a change of the pod's work only (busy, computing, its queue), which never changes whether
  // callers may pick it: the hot path skips the endpoints check.
  template <class Change>
  void change_pod_work(std::size_t pod, Change&& change) {
    pods_.change_work(pod, clock_ns(), std::forward<Change>(change));
  }
  // Before attach (pods built by the constructor) there is no clock: 0.
  bool attached() const { return meter_.attached(); }
  std::int64_t clock_ns() const { return attached() ? to_ns(now()) : 0; }
  void usage_tick();
  // Ends the pod's jobs in service and in queue; adds them to refused when
  // they are to be refused rather than black-holed.
  void drop_work(std::size_t pod, bool refuse, std::vector<std::pair<JobOwner*, std::uint64_t>>& refused);
  // Frees the slot and its calls.
  void release_slot(ServicePod& pod, std::size_t slot);
  void begin_service(std::size_t pod, Job job);
  // The request in the slot starts its own work (its thread or worker is counted already).
  void start_work(std::size_t pod, std::size_t slot);
  // Event loop: a thread stopped computing; the next request of the run queue takes it.
  void thread_freed(std::size_t pod);
  // A job in service reached its deadline (deadlines propagate): its work and calls stop, the worker is freed.
  void deadline_passed(std::size_t pod, std::size_t slot);
  void work_done(std::size_t pod, std::size_t slot);
  // Pods whose CPU can be held back (PodSet::cpu_held): after the pod's CPU demand or running state changed,
  // or its clock's own next change came, its clock is retuned; when its speed changed, the ends of its
  // requests' own work move with it. Inline: most services' CPU is never held, and the hot path pays a test.
  void retune_cpu(std::size_t pod) {
    if (pods_.cpu_held()) retune_held_cpu(pod);
  }
  void retune_held_cpu(std::size_t pod);
  // Every present pod's clock accounted up to now (for the window's and the run's throttling figures).
  void bring_cpu_clocks_to_now();
  // The CFS bandwidth a new pod starts with (its limit), if any.
  std::optional<CfsBandwidth> new_pod_quota() const;
  void calls_over(std::size_t pod, std::size_t slot, ServeOutcome outcome) override;
  void finish(std::size_t pod, std::size_t slot, ServeOutcome outcome);
  void on_topology_change();
  // A request lost behind the load balancer: at a dead node (at_target false), at a dead target, or held by
  // a target whose zone died (held). Schedules what the caller hears, if anything ever answers.
  void lost_behind_balancer(JobOwner* owner, std::uint64_t token, bool at_target, bool held);
  // A request swallowed on its way (a dead zone, a cut path) with no balancer to answer for it: nothing
  // acknowledges it, so the caller's side gives up when it decides (JobOwner::unacknowledged_give_up: a
  // sidecar's connect timeout, a gRPC channel's TCP give-up, else the kernel's Linux defaults). A caller's own
  // shorter timeout ends it first; this only bounds the wait of a caller that has none.
  void unacknowledged(const Job& job);
  void update_gauges(std::size_t zone) { meter_.update_gauges(zone, now()); }
  // What the oracle lists: a pod that is up and ready.
  bool oracle() const { return view_ == EndpointView::kOracle; }
  // Through kube-proxy: the pod's readiness reaches the callers at the next sync.
  void queue_endpoint_sync(std::size_t pod);
  void sync_endpoints();

  ServiceConfig config_;
  FailureDomains* domains_;
  std::vector<ServiceTimeDistribution> service_times_;  // by operation index
  std::vector<std::uint32_t> cpu_millicores_;           // by operation index: what its own work asks for
  // Traced requests' spans: the service's name and its operations' (by index), interned at attach.
  std::uint32_t span_service_ = 0;
  std::vector<std::uint32_t> span_operations_;
  std::vector<std::optional<PodCpuClock>> cpu_clocks_;  // by pod, for pods whose CPU can be held back
  struct NodeSeat {
    NodeCpu* node = nullptr;
    std::size_t member = 0;
  };
  std::vector<NodeSeat> node_seats_;  // by pod, for pods on a shared node
  PodSet pods_;
  ZoneBalancer balancer_;
  CallClient calls_;
  UsageMeter meter_;
  double slowdown_ = 1.0;
  bool refuse_on_failure_ = false;
  bool honours_deadlines_ = false;  // deadlines: propagate
  bool event_loop_ = false;         // server: eventLoop
  std::uint64_t deadline_drops_ = 0, deadline_cancels_ = 0;
  std::function<void(std::size_t)> pod_killed_;
  // Who decides what the callers see (ServicePod::listed).
  enum class EndpointView { kOracle, kKubeProxy, kLoadBalancer };
  EndpointView view_ = EndpointView::kOracle;
  EntryNodes* entry_nodes_ = nullptr;  // kLoadBalancer
  std::optional<LoadBalancerSettings> load_balancer_;
  std::function<void(std::size_t)> pod_added_;
  std::optional<Duration> kube_proxy_min_sync_;  // kKubeProxy
  Duration endpoint_push_delay_ = Duration::zero();  // istiod's debounce, for a meshed service
  bool meshed_ = false;
  std::uint64_t endpoints_version_ = 0;
  std::optional<SimTime> last_endpoint_sync_;
  bool endpoint_sync_scheduled_ = false;
  std::vector<std::size_t> unsynced_pods_;  // readiness changed since kube-proxy's last sync
  std::vector<RequestDoneListener> request_done_;
  // Requests on their way to a zone (submit), and the records free for reuse.
  struct InTransit {
    Job job;
    std::uint32_t zone = 0;
    std::uint32_t pod = kAnyPod;
  };
  std::vector<InTransit> in_transit_;
  std::vector<std::uint32_t> free_transit_;
};

}  // namespace drsim

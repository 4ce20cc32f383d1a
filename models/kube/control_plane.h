#pragma once
// The Kubernetes control plane on the event timeline: the controllers whose
// interplay makes the zone-failure chain reaction of docs/sources.md section 1.
//
//   deployment + ReplicaSet   spec.replicas split across zones by the parent
//                             scheduler (zone_split.h) under the deployment's
//                             policy; pods created or deleted per zone to
//                             match, a rollout bounded by maxSurge and
//                             maxUnavailable after a policy change
//   child scheduler           pods bound to nodes (node_placement.h), or left
//                             Pending with kube-scheduler's reason
//   kubelet                   a bound pod's container starts after the
//                             deployment's startup time; it is Ready at the
//                             first readiness probe after that
//   node lifecycle            a failed zone's nodes go NotReady after the
//                             monitor grace period (their pods unready) and
//                             their pods are evicted after the toleration
//                             (the cluster's, or the deployment's own); a
//                             ReplicaSet replaces them at once where the
//                             policy lets the scheduler put them
//                             (eviction_placement.h), a StatefulSet only
//                             once the zone is back and they are gone; the
//                             pods of services without a deployment are
//                             replaced evenly over their other zones that
//                             are up
//   metrics-server            each running pod's cumulative CPU read every
//                             resolution; the rate between two readings is
//                             its sample; a failed zone's pods have none
//   metrics adapter           Prometheus and prometheus-adapter: every
//                             interval, the pods' request counters, the
//                             services' totals, Kafka consumer lag and the
//                             populations' offered requests
//                             (metrics_adapter.h), for the HPAs' Pods,
//                             Object and External metrics; nothing while its
//                             zone is down
//   HPA controller            every sync period (hpa_controller.h)
//   cluster autoscaler        nodes added for pods pending for lack of room,
//                             after a provisioning delay, up to the stock
//
// The services' own model (Service) serves the traffic: the control plane
// starts its pods unready, makes them ready, and removes them. Operator
// actions: HPA compensation, replica compensation, policy change, scaling.
//
// Recorded per window: deployment.replicas, deployment.ready,
// deployment.pending (pods not on a node), deployment.unplaced (replicas the
// policy could not put in any zone) per service; deployment.zone_target and
// deployment.zone_ready per service and zone; hpa.desired_replicas,
// hpa.utilization (of the pods it trusts, as its status shows) and
// hpa.all_pods_utilization (usage over every listed pod's request) per HPA;
// cluster.nodes per zone with node pools.
// Events: the deployment.*, pod.*, node.* and hpa.* kinds
// (models/kube/kube_event_kinds.h).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/kube/hpa_controller.h"
#include "models/kube/kube_config.h"
#include "models/kube/metrics_adapter.h"
#include "models/kube/node_placement.h"
#include "models/load/service_time.h"
#include "models/metrics/windowed_metrics.h"
#include "models/service/service.h"
#include "models/topology/failure_domains.h"
#include "sim/component.h"

namespace drsim {

class ClientPopulation;
class KafkaConsumerGroup;

// What the metrics adapter can scrape besides the services: the sources of
// the HPAs' External metrics.
struct KubeMetricSources {
  std::vector<ClientPopulation*> populations;
  struct Group {
    std::string topic;
    KafkaConsumerGroup* group = nullptr;
  };
  std::vector<Group> consumer_groups;
};

class KubeControlPlane : public Component {
 public:
  // Every deployment's service must be among services; domains may be null
  // (no zone ever fails). The HPAs' Object and External metrics must name
  // services, populations and consumer groups given here.
  KubeControlPlane(KubernetesConfig config, FailureDomains* domains, std::vector<Service*> services,
                   Duration metrics_window = std::chrono::seconds(1), KubeMetricSources sources = {});

  // ---- operator actions (each has an undo) ----
  // HPA compensation: the HPA of the service's deployment computes from the
  // other zones' pods only, and keeps the zone's replicas on top. nullopt
  // cancels it.
  void set_hpa_compensation(std::string_view service, std::optional<std::string> zone);
  // Manual compensation: spec.replicas += the zone's replicas now; off takes
  // them back.
  void set_replica_compensation(std::string_view service, std::string_view zone, bool on);
  // A new policy (migration, degradation): the split is computed afresh and
  // a rollout moves the pods. nullopt restores the declared policy.
  void set_policy(std::string_view service, std::optional<DeploymentPolicyConfig> policy);
  // `kubectl rollout restart`: every pod replaced by a new one, within
  // maxSurge and maxUnavailable.
  void restart(std::string_view service);
  // spec.replicas, as `kubectl scale` (an HPA will correct it on its next sync).
  void scale(std::string_view service, std::int32_t replicas);

  // ---- read-outs ----
  std::int32_t replicas(std::string_view service) const;
  std::uint32_t zone_target(std::string_view service, std::string_view zone) const;
  std::uint32_t pods_in_zone(std::string_view service, std::string_view zone) const;
  std::uint32_t ready_in_zone(std::string_view service, std::string_view zone) const;
  std::uint32_t pending(std::string_view service) const;   // pods not on a node
  std::uint32_t unplaced(std::string_view service) const;  // replicas the policy could not place
  std::uint32_t nodes_in_zone(std::string_view zone) const;

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Pod {
    std::uint32_t deployment = 0;
    std::uint32_t zone = 0;  // the service's zone index
    std::string name;
    SimTime created{};
    std::uint32_t revision = 0;  // the deployment's revision it was made for
    bool bound = false;          // on a node (or in a zone without node pools)
    std::optional<std::size_t> node;
    std::size_t service_pod = 0;  // valid once bound
    SimTime start_time{};
    bool ready = false;
    // Marked for deletion on an unreachable node: a StatefulSet's evicted pod, which stays Terminating (and
    // unreplaced) until its kubelet is back to confirm it is gone.
    bool terminating = false;
    SimTime ready_transition{};
    EventId ready_event;
    EventId probe_failed_event;  // the failureThreshold-th failed probe after a crash
    EventId restart_event;       // the kubelet restarting a crashed container
    std::uint32_t restarts = 0;  // for the crash-loop back-off
    std::string pending_reason;
    // metrics-server: the last reading of cumulative CPU and the sample
    // from the last two.
    double cpu_read = 0;
    std::optional<SimTime> read_at;
    std::optional<PodMetric> sample;
    // The metrics adapter's series of the pod's request counters.
    RequestSeries requests;
  };
  struct ZoneGauges {
    GaugeId target, ready;
  };
  struct Deployment {
    KubeDeploymentConfig config;
    Service* service = nullptr;
    ServiceTimeDistribution startup;
    Resources pod_size;
    std::int64_t cpu_request_milli = 0;
    DeploymentPolicyConfig policy;
    std::int32_t replicas = 0;
    std::vector<std::uint32_t> targets;   // per service zone
    std::vector<std::string> zone_names;  // per service zone
    std::vector<std::optional<ZoneIndex>> zone_topology;  // per service zone: looked up once, not per pod
    std::uint32_t unplaced = 0;
    std::string unplaced_reason;
    bool rolling = false;  // a rollout is moving pods to a new split or revision
    std::uint32_t revision = 0;
    std::vector<std::size_t> pods;  // indices into pods_, alive ones
    std::optional<std::size_t> hpa;
    std::optional<std::uint32_t> hpa_compensation_zone;
    std::int32_t hpa_compensation_kept = 0;  // the zone's replicas when compensation began
    std::vector<std::pair<std::uint32_t, std::int32_t>> replica_compensation;  // zone, replicas added
    std::uint32_t pods_created = 0;
    GaugeId g_replicas, g_ready, g_pending, g_unplaced;
    std::vector<ZoneGauges> zone_gauges;
    std::vector<std::string> zone_pending_reason;  // last logged, per zone (to log changes only)
  };
  struct Hpa {
    HpaController controller;
    std::size_t deployment = 0;
    GaugeId g_desired, g_utilization, g_all_pods;
    std::uint32_t rescales = 0;
    std::int32_t max_desired = 0;
  };
  struct ZoneWatch {
    bool down = false;
    EventId unready_event, ready_event;
    std::vector<EventId> evict_events;  // one per distinct toleration
  };

  Deployment& deployment(std::string_view service);
  const Deployment& deployment(std::string_view service) const;
  std::uint32_t zone_index(const Deployment& d, std::string_view zone) const;
  std::optional<ZoneIndex> topology_zone(std::string_view zone) const;
  bool zone_up(std::string_view zone) const;
  bool zone_up(const Deployment& d, std::uint32_t zone) const;
  bool has_pools(std::string_view zone) const;

  // The parent scheduler's view of the deployment's zones.
  std::vector<ZoneState> zone_states(const Deployment& d) const;
  void apply_split(Deployment& d, const ZoneSplit& split);
  void set_replicas(std::size_t d, std::int32_t replicas);
  // The ReplicaSet controller: pods per zone towards the targets.
  void reconcile(std::size_t d);
  void create_pod(std::size_t d, std::uint32_t zone);
  // When a pod bound now, whose app answers at app_up, passes its first readiness probe (and successThreshold
  // - 1 more).
  SimTime ready_at(SimTime app_up, const ReadinessProbeConfig& probe) const;
  void delete_pod(std::size_t pod);
  // The pods in the order the ReplicaSet deletes them: unbound, then
  // unready, then the newest.
  std::vector<std::size_t> deletion_order(std::vector<std::size_t> pods) const;
  std::vector<std::size_t> current_pods_in(const Deployment& d, std::uint32_t zone) const;
  // The child scheduler: binds what can be bound.
  void schedule_pending();
  bool try_bind(std::size_t pod);
  void became_ready(std::size_t pod);
  void set_ready(Pod& pod, bool ready);

  // pods:kill crashed a managed pod's container: the kubelet restarts it
  // after the crash-loop back-off; probes fail meanwhile.
  void pod_killed(std::size_t deployment, std::size_t service_pod);
  void on_topology_change();
  // When the node lifecycle controller marks a zone that went silent at
  // `failed` NotReady (NodeLifecycleConfig).
  SimTime not_ready_time(ZoneIndex zone, SimTime failed) const;
  void mark_zone_unready(ZoneIndex zone);
  // The pods of the services without a deployment in the zone: unready with
  // their node, ready again at their first probe after it is back.
  void set_unmanaged_ready(ZoneIndex zone, bool ready);
  // The pods' tolerationSeconds for the unreachable taint.
  Duration toleration_of(const Deployment& d) const;
  // Taint-based eviction of the zone's pods whose toleration is `toleration`: the deployments' (each
  // controller's rule) and, with the cluster's default toleration, the services' without a deployment.
  void evict_zone(ZoneIndex zone, Duration toleration);
  void evict_deployment(std::size_t d, ZoneIndex zone);
  void evict_unmanaged(ZoneIndex zone);
  // Starts `count` replacement pods of the unmanaged service, one at a time in its zone that is up with the
  // fewest pods; those no zone can take wait for one to come back.
  void replace_unmanaged(std::size_t service, std::uint32_t count);
  // The zone is back: its kubelets confirm that the pods marked for deletion are gone (StatefulSets then
  // replace them), and unmanaged replacements that had no zone to go to start.
  void zone_back(ZoneIndex zone);

  void scrape();
  // The metrics adapter's scrape, and the reading of one HPA metric from it.
  void scrape_adapter();
  HpaMetricReading adapter_reading(const HpaMetricConfig& metric, const Deployment& d,
                                   std::optional<std::uint32_t> excluded_zone) const;
  void sync_hpas();
  void autoscale_nodes();
  HpaSyncInput hpa_input(const Deployment& d, std::optional<std::uint32_t> excluded_zone) const;
  void update_gauges(std::size_t d);

  KubernetesConfig config_;
  FailureDomains* domains_;
  std::vector<Service*> services_;
  Duration metrics_window_;
  std::optional<ChildCluster> cluster_;  // absent without node pools
  // The nodes' cores as their pods share them (by node index), when some pod can burst above its request.
  bool node_cpu_shared_ = false;
  std::vector<std::unique_ptr<NodeCpu>> node_cpus_;
  NodeCpu& node_cpu(std::size_t node);
  std::vector<Deployment> deployments_;
  std::vector<Hpa> hpas_;
  std::vector<Pod> pods_;
  std::vector<ZoneWatch> zone_watch_;  // per topology zone
  std::vector<Duration> lease_phase_;  // per topology zone: when its kubelets renew, modulo the interval
  std::vector<Service*> unmanaged_;    // services without a deployment: their pods still live on the nodes
  std::vector<std::uint32_t> unmanaged_waiting_;  // per unmanaged service: replacements no zone could take yet
  ServiceTimeDistribution unmanaged_startup_;     // theirs: the deployment defaults (constant 20 s)
  std::vector<std::pair<Service*, std::size_t>> unmanaged_starting_;  // replacements not yet ready
  std::optional<ServiceTimeDistribution> provisioning_;
  std::vector<std::uint32_t> nodes_coming_;  // per node pool: ordered, not yet Ready
  std::optional<WindowedMetrics> metrics_;
  std::vector<std::pair<std::string, GaugeId>> node_gauges_;  // per zone with pools
  // The metrics adapter: scheduled only when an HPA has a Pods, Object or
  // External metric, so CPU-only clusters run as before.
  bool adapter_needed_ = false;
  bool adapter_up_ = true;
  struct ServiceSeries {
    Service* service = nullptr;
    RequestSeries series;
  };
  struct PopulationSeries {
    ClientPopulation* population = nullptr;
    CounterRate offered;
  };
  struct GroupSeries {
    KubeMetricSources::Group source;
    std::optional<std::int64_t> lag_milli;
    SimTime read_at{};
  };
  std::vector<ServiceSeries> service_series_;  // the services Object metrics describe
  std::vector<PopulationSeries> population_series_;
  std::vector<GroupSeries> group_series_;
};

}  // namespace drsim

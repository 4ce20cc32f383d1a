#pragma once
// The Kubernetes control plane of a scenario (spec.kubernetes): node pools
// per zone, deployments that manage services' pods under a zone policy, and
// HorizontalPodAutoscalers, with the controllers' settings. Kubernetes
// objects keep the API's key names where a user would paste them (the HPA's
// metrics and behavior, the readiness probe, minReplicas/maxReplicas);
// controller flags are durations in drsim's spelling.
//
// A service named by a deployment is managed: its pods are created, started,
// probed, evicted and recreated by the control plane, and the service's
// `replicas` are the assignment the run starts from (those pods run and are
// ready at time 0).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "models/kube/hpa_behavior_config.h"
#include "models/kube/zone_split.h"
#include "models/load/service_time.h"
#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

struct NodePoolConfig {
  std::string name;
  std::string zone;
  CpuQuantity cpu{4000};                                   // allocatable per node
  ByteSize memory{std::int64_t{16} * 1024 * 1024 * 1024};  // allocatable per node
  std::uint32_t nodes = 0;
  std::optional<std::uint32_t> max_nodes;  // absent: the pool cannot grow
  std::uint32_t max_pods = 110;

  static constexpr std::string_view kTypeName = "NodePool";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &NodePoolConfig::name, "Pool name, unique in the scenario.", kRequired),
        field("zone", &NodePoolConfig::zone, "The zone its nodes are in.", kRequired),
        field("cpu", &NodePoolConfig::cpu, "Allocatable CPU per node.", kPositive),
        field("memory", &NodePoolConfig::memory, "Allocatable memory per node.", kPositive),
        field("nodes", &NodePoolConfig::nodes, "Nodes at the start of the run."),
        field("maxNodes", &NodePoolConfig::max_nodes,
              "Most nodes the cloud can supply to the cluster autoscaler (stock runs short when a whole zone's "
              "workload moves at once); absent: the pool does not grow."),
        field("maxPods", &NodePoolConfig::max_pods, "Pods per node (the kubelet's limit).", kPositive),
    };
  }
};

// The pod's readiness probe, in the API's keys.
struct ReadinessProbeConfig {
  std::int32_t initial_delay_seconds = 0;
  std::int32_t period_seconds = 10;
  std::int32_t success_threshold = 1;
  std::int32_t failure_threshold = 3;

  static constexpr std::string_view kTypeName = "ReadinessProbe";
  static constexpr auto fields() {
    return std::tuple{
        field("initialDelaySeconds", &ReadinessProbeConfig::initial_delay_seconds,
              "Seconds after the container starts before the first probe.", kNonNegative),
        field("periodSeconds", &ReadinessProbeConfig::period_seconds, "Seconds between probes.", kPositive),
        field("successThreshold", &ReadinessProbeConfig::success_threshold,
              "Consecutive successes before an unready pod is Ready again.", kPositive),
        field("failureThreshold", &ReadinessProbeConfig::failure_threshold,
              "Consecutive failures before a Ready pod is unready (its container crashed: pods:kill).", kPositive),
    };
  }
};

struct RollingUpdateConfig {
  Ratio max_surge{0.25};
  Ratio max_unavailable{0.25};

  static constexpr std::string_view kTypeName = "RollingUpdate";
  static constexpr auto fields() {
    return std::tuple{
        field("maxSurge", &RollingUpdateConfig::max_surge,
              "Pods above the desired count a rollout may create (of the desired count, rounded up).", kNonNegative),
        field("maxUnavailable", &RollingUpdateConfig::max_unavailable,
              "Pods below the desired count that may be unready during a rollout (rounded down).", kNonNegative),
    };
  }
};

struct KubeDeploymentConfig {
  std::string service;
  // The controller behind the pods, for what it does with an evicted pod: a
  // Deployment's ReplicaSet replaces it once it is marked for deletion, a
  // StatefulSet only once it is gone (docs/kubernetes.md).
  std::string kind = "Deployment";  // Deployment | StatefulSet
  DeploymentPolicyConfig policy;
  ByteSize memory{std::int64_t{256} * 1024 * 1024};  // requests.memory of a pod
  // Container start: image pull and the app's own start. Optional rather
  // than defaulted in place, so that a distribution given in the file is
  // taken whole (not merged field by field into the default's).
  std::optional<ServiceTimeConfig> startup;
  ReadinessProbeConfig readiness_probe;
  RollingUpdateConfig rolling_update;
  // The pods' tolerationSeconds for the unreachable taint; absent: the
  // cluster's default (NodeLifecycleConfig::toleration).
  std::optional<Duration> toleration;

  bool stateful_set() const { return kind == "StatefulSet"; }
  // startup, or constant 20s.
  ServiceTimeConfig startup_or_default() const;

  static constexpr std::string_view kTypeName = "Deployment";
  static constexpr auto fields() {
    return std::tuple{
        field("service", &KubeDeploymentConfig::service,
              "The service whose pods this deployment runs; its replicas are where the run starts.", kRequired),
        field("kind", &KubeDeploymentConfig::kind,
              "Deployment (its ReplicaSet replaces an evicted pod as soon as the pod is marked for deletion) or "
              "StatefulSet (a pod is replaced only once it is gone, which a lost zone's kubelet cannot confirm: "
              "no replacement until the zone is back)."),
        field("policy", &KubeDeploymentConfig::policy, "How the parent scheduler splits the replicas across zones."),
        field("memory", &KubeDeploymentConfig::memory,
              "requests.memory of a pod (its CPU request is the "
              "service's cpu.request).",
              kPositive),
        field("startup", &KubeDeploymentConfig::startup,
              "Time from a pod's binding to a node until its app answers probes (image pull, start-up): a "
              "distribution like serviceTime (default: constant 20s)."),
        field("readinessProbe", &KubeDeploymentConfig::readiness_probe,
              "When the kubelet probes a starting pod; it is Ready at the first passing probe."),
        field("rollingUpdate", &KubeDeploymentConfig::rolling_update, "How fast a policy change moves pods."),
        field("toleration", &KubeDeploymentConfig::toleration,
              "tolerationSeconds of the pods' toleration for the unreachable taint: how long after their node "
              "is NotReady they are evicted (absent: nodeLifecycle.toleration).",
              kNonNegative),
    };
  }
};

// autoscaling/v2 MetricTarget, for resource metrics.
struct HpaMetricTargetConfig {
  std::string type = "Utilization";  // Utilization | AverageValue
  std::optional<std::int32_t> average_utilization;
  std::optional<CpuQuantity> average_value;

  static constexpr std::string_view kTypeName = "HpaMetricTarget";
  static constexpr auto fields() {
    return std::tuple{
        field("type", &HpaMetricTargetConfig::type, "Utilization (percent of requests) or AverageValue."),
        field("averageUtilization", &HpaMetricTargetConfig::average_utilization,
              "type Utilization: the target percent of the pods' requests.", kPositive),
        field("averageValue", &HpaMetricTargetConfig::average_value, "type AverageValue: the target usage per pod.",
              kPositive),
    };
  }
};

struct HpaResourceMetricConfig {
  std::string name = "cpu";
  HpaMetricTargetConfig target;

  static constexpr std::string_view kTypeName = "HpaResourceMetric";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &HpaResourceMetricConfig::name, "The resource: cpu (the one drsim measures)."),
        field("target", &HpaResourceMetricConfig::target, "The target value.", kRequired),
    };
  }
};

// autoscaling/v2 MetricTarget for the Pods, Object and External metrics: a
// plain Kubernetes quantity ("100", "500m", "2k"), kept as its text so that
// it reads as in a manifest, and checked with parse_kube_quantity
// (kube_quantity.h) when the scenario is validated.
struct HpaQuantityTargetConfig {
  std::string type = "AverageValue";  // Value | AverageValue
  std::optional<std::string> value;
  std::optional<std::string> average_value;

  // The target in milli-units (Quantity.MilliValue()) of whichever of value
  // and averageValue the type names; the config must have validated.
  std::int64_t milli() const;
  bool average() const { return type == "AverageValue"; }
  // Problems under "type", "value" and "averageValue"; Pods metrics take
  // AverageValue only (as the API server's validation).
  std::vector<ConfigProblem> check(bool average_only) const;

  static constexpr std::string_view kTypeName = "HpaQuantityTarget";
  static constexpr auto fields() {
    return std::tuple{
        field("type", &HpaQuantityTargetConfig::type,
              "Value (the metric's value as a whole) or AverageValue (the value divided by the pods)."),
        field("value", &HpaQuantityTargetConfig::value, "type Value: the target, a quantity (\"100\", \"500m\")."),
        field("averageValue", &HpaQuantityTargetConfig::average_value,
              "type AverageValue: the target per pod, a quantity (\"100\", \"500m\")."),
    };
  }
};

// LabelSelector.matchLabels, with the labels drsim's metric sources carry
// (docs/kubernetes.md): an External metric's series is picked by them.
struct HpaMatchLabelsConfig {
  std::optional<std::string> topic;
  std::optional<std::string> group;
  std::optional<std::string> population;

  static constexpr std::string_view kTypeName = "HpaMatchLabels";
  static constexpr auto fields() {
    return std::tuple{
        field("topic", &HpaMatchLabelsConfig::topic, "kafka_consumer_lag: the topic (spec.topology.topics)."),
        field("group", &HpaMatchLabelsConfig::group, "kafka_consumer_lag: the consumer group of that topic."),
        field("population", &HpaMatchLabelsConfig::population,
              "population_offered_rate: the client population (of spec.load)."),
    };
  }
};

struct HpaLabelSelectorConfig {
  HpaMatchLabelsConfig match_labels;

  static constexpr std::string_view kTypeName = "HpaLabelSelector";
  static constexpr auto fields() {
    return std::tuple{
        field("matchLabels", &HpaLabelSelectorConfig::match_labels, "The labels the series must carry."),
    };
  }
};

// autoscaling/v2 MetricIdentifier.
struct HpaMetricIdentifierConfig {
  std::string name;
  std::optional<HpaLabelSelectorConfig> selector;

  static constexpr std::string_view kTypeName = "HpaMetricIdentifier";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &HpaMetricIdentifierConfig::name,
              "The metric's name, one of those drsim's metrics adapter serves (docs/kubernetes.md).", kRequired),
        field("selector", &HpaMetricIdentifierConfig::selector, "External metrics: which series."),
    };
  }
};

// autoscaling/v2 PodsMetricSource: a value per pod, averaged over the pods.
struct HpaPodsMetricConfig {
  HpaMetricIdentifierConfig metric;
  HpaQuantityTargetConfig target;

  std::vector<ConfigProblem> validate() const;
  static constexpr std::string_view kTypeName = "HpaPodsMetric";
  static constexpr auto fields() {
    return std::tuple{
        field("metric", &HpaPodsMetricConfig::metric,
              "requests_per_second, queue_length, in_flight or latency (docs/kubernetes.md).", kRequired),
        field("target", &HpaPodsMetricConfig::target, "type AverageValue: the target per pod.", kRequired),
    };
  }
};

// autoscaling/v2 CrossVersionObjectReference: the object an Object metric
// describes. drsim's adapter describes services.
struct HpaObjectReferenceConfig {
  std::string kind = "Service";
  std::string name;
  std::string api_version = "v1";

  static constexpr std::string_view kTypeName = "HpaObjectReference";
  static constexpr auto fields() {
    return std::tuple{
        field("kind", &HpaObjectReferenceConfig::kind, "Service (the kind drsim's adapter describes)."),
        field("name", &HpaObjectReferenceConfig::name, "The service, any of the scenario's.", kRequired),
        field("apiVersion", &HpaObjectReferenceConfig::api_version, "v1."),
    };
  }
};

// autoscaling/v2 ObjectMetricSource: one value that describes an object.
struct HpaObjectMetricConfig {
  HpaObjectReferenceConfig described_object;
  HpaMetricIdentifierConfig metric;
  HpaQuantityTargetConfig target;

  std::vector<ConfigProblem> validate() const;
  static constexpr std::string_view kTypeName = "HpaObjectMetric";
  static constexpr auto fields() {
    return std::tuple{
        field("describedObject", &HpaObjectMetricConfig::described_object, "The service the metric describes.",
              kRequired),
        field("metric", &HpaObjectMetricConfig::metric,
              "requests_per_second, queue_length, in_flight or latency of the whole service.", kRequired),
        field("target", &HpaObjectMetricConfig::target,
              "Value (for the service's value) or AverageValue (for it divided by the target's pods).", kRequired),
    };
  }
};

// autoscaling/v2 ExternalMetricSource: a value from outside the cluster.
struct HpaExternalMetricConfig {
  HpaMetricIdentifierConfig metric;
  HpaQuantityTargetConfig target;

  std::vector<ConfigProblem> validate() const;
  static constexpr std::string_view kTypeName = "HpaExternalMetric";
  static constexpr auto fields() {
    return std::tuple{
        field("metric", &HpaExternalMetricConfig::metric,
              "kafka_consumer_lag (selector topic and group) or population_offered_rate (selector population).",
              kRequired),
        field("target", &HpaExternalMetricConfig::target,
              "Value (for the value) or AverageValue (for it divided by the target's pods).", kRequired),
    };
  }
};

// autoscaling/v2 MetricSpec: the block named by the type is the one read.
struct HpaMetricConfig {
  std::string type = "Resource";
  std::optional<HpaResourceMetricConfig> resource;
  std::optional<HpaPodsMetricConfig> pods;
  std::optional<HpaObjectMetricConfig> object;
  std::optional<HpaExternalMetricConfig> external;

  static constexpr std::string_view kTypeName = "HpaMetric";
  static constexpr auto fields() {
    return std::tuple{
        field("type", &HpaMetricConfig::type,
              "Resource (pod CPU through metrics-server), Pods, Object or External (through the metrics "
              "adapter: metricsAdapter)."),
        field("resource", &HpaMetricConfig::resource, "type Resource: the resource metric and its target."),
        field("pods", &HpaMetricConfig::pods, "type Pods: a per-pod metric and its target per pod."),
        field("object", &HpaMetricConfig::object, "type Object: a metric of a service and its target."),
        field("external", &HpaMetricConfig::external, "type External: a metric from outside and its target."),
    };
  }
};

struct HpaConfig {
  std::string name;
  std::string target;  // the deployment's service
  std::int32_t min_replicas = 1;
  std::int32_t max_replicas = 0;
  std::vector<HpaMetricConfig> metrics;
  std::optional<HpaBehaviorConfig> behavior;

  static constexpr std::string_view kTypeName = "Hpa";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &HpaConfig::name, "HPA name, unique in the scenario.", kRequired),
        field("target", &HpaConfig::target, "The service of the deployment it scales.", kRequired),
        field("minReplicas", &HpaConfig::min_replicas, "Fewest replicas.", kPositive),
        field("maxReplicas", &HpaConfig::max_replicas, "Most replicas.", kRequired | kPositive),
        field("metrics", &HpaConfig::metrics, "What it scales on (autoscaling/v2 MetricSpec).", kRequired),
        field("behavior", &HpaConfig::behavior,
              "Scale-up and scale-down rules (autoscaling/v2); absent: the controller's legacy path."),
    };
  }
};

// kube-controller-manager's --horizontal-pod-autoscaler-* flags.
struct HpaControllerConfig {
  Duration sync_period = std::chrono::seconds(15);
  double tolerance = 0.1;
  Duration cpu_initialization_period = std::chrono::minutes(5);
  Duration initial_readiness_delay = std::chrono::seconds(30);
  Duration downscale_stabilization = std::chrono::minutes(5);

  static constexpr std::string_view kTypeName = "HpaController";
  static constexpr auto fields() {
    return std::tuple{
        field("syncPeriod", &HpaControllerConfig::sync_period, "How often every HPA is reconciled.", kPositive),
        field("tolerance", &HpaControllerConfig::tolerance,
              "No change while current/target usage is within 1 +- tolerance.", kNonNegative),
        field("cpuInitializationPeriod", &HpaControllerConfig::cpu_initialization_period,
              "A pod's CPU sample is not trusted this long after it starts unless it has been ready a whole "
              "window.",
              kNonNegative),
        field("initialReadinessDelay", &HpaControllerConfig::initial_readiness_delay,
              "An unready pod that has never been ready is ignored this long after its start.", kNonNegative),
        field("downscaleStabilization", &HpaControllerConfig::downscale_stabilization,
              "Legacy path (no behavior): the highest recommendation of this window is used.", kNonNegative),
    };
  }
};

// metrics-server: every `resolution` it reads each running pod's cumulative
// CPU from its kubelet; a pod's usage is the rate between its last two
// readings. A pod it cannot reach (its zone is down) has no fresh sample.
struct MetricsServerConfig {
  Duration resolution = std::chrono::seconds(15);

  static constexpr std::string_view kTypeName = "MetricsServer";
  static constexpr auto fields() {
    return std::tuple{
        field("resolution", &MetricsServerConfig::resolution,
              "Scrape interval; a sample's window is the time between two scrapes.", kPositive),
    };
  }
};

// The custom and external metrics pipeline (Prometheus and its adapter):
// every `interval` it scrapes each pod's request counters, the services'
// totals, the Kafka consumer groups' lag and the populations' offered
// requests; a rate is the difference between its last two scrapes. The HPA
// reads its last answer, so a custom metric is up to `interval` old on top
// of the rate's own window. It runs in `zone`: while that zone is down,
// every Pods, Object and External metric is unavailable.
struct MetricsAdapterConfig {
  Duration interval = std::chrono::seconds(30);
  std::optional<std::string> zone;

  static constexpr std::string_view kTypeName = "MetricsAdapter";
  static constexpr auto fields() {
    return std::tuple{
        field("interval", &MetricsAdapterConfig::interval,
              "Scrape interval (a common Prometheus scrape_interval); a rate's window is the time between two "
              "scrapes.",
              kPositive),
        field("zone", &MetricsAdapterConfig::zone,
              "The zone Prometheus and the adapter run in; absent: they never fail."),
    };
  }
};

// The node lifecycle controller and the taint-based eviction of pods.
//
// A kubelet renews its node's Lease every leaseRenewInterval; the controller
// looks every monitorPeriod and notes the time it first saw each renewal. A
// node whose last renewal it saw more than monitorGracePeriod ago is marked
// NotReady (status Unknown) at that look, and its pods unready. So a zone
// that fails at t is noticed between t + grace - renew and t + grace + 2 x
// monitorPeriod, at a time set by where the renewals and the looks fall.
struct NodeLifecycleConfig {
  Duration monitor_grace_period = std::chrono::seconds(50);
  Duration monitor_period = std::chrono::seconds(5);
  Duration lease_renew_interval = std::chrono::seconds(10);
  Duration toleration = std::chrono::seconds(300);

  static constexpr std::string_view kTypeName = "NodeLifecycle";
  static constexpr auto fields() {
    return std::tuple{
        field("monitorGracePeriod", &NodeLifecycleConfig::monitor_grace_period,
              "kube-controller-manager --node-monitor-grace-period: how long after the last Lease renewal it "
              "saw the controller marks a silent node NotReady and its pods unready (50 s since Kubernetes "
              "1.32, 40 s before).",
              kNonNegative),
        field("monitorPeriod", &NodeLifecycleConfig::monitor_period,
              "kube-controller-manager --node-monitor-period: how often the controller looks at the nodes' "
              "Leases.",
              kPositive),
        field("leaseRenewInterval", &NodeLifecycleConfig::lease_renew_interval,
              "How often a kubelet renews its node's Lease: a quarter of its leaseDurationSeconds (40 s).", kPositive),
        field("toleration", &NodeLifecycleConfig::toleration,
              "tolerationSeconds of the unreachable taint for pods that set none (the DefaultTolerationSeconds "
              "admission plugin's 300 s): pods of a NotReady node are evicted after it and replaced where the "
              "scheduler can put them (docs/kubernetes.md); a deployment's toleration overrides it.",
              kNonNegative),
    };
  }
};

// kube-proxy, which programs each node's rules from the EndpointSlices: the
// path by which a service's callers learn that a pod became unready.
struct KubeProxyConfig {
  Duration min_sync_period = std::chrono::seconds(1);

  static constexpr std::string_view kTypeName = "KubeProxy";
  static constexpr auto fields() {
    return std::tuple{
        field("minSyncPeriod", &KubeProxyConfig::min_sync_period,
              "iptables.minSyncPeriod: the least time between two programmings of the rules; a change heard "
              "sooner waits for it (1 s by default).",
              kNonNegative),
    };
  }
};

struct ClusterAutoscalerConfig {
  bool enabled = false;
  Duration scan_interval = std::chrono::seconds(10);
  std::optional<ServiceTimeConfig> provisioning;  // from the decision to a Ready node

  // provisioning, or lognormal with p50 60s and p99 4m.
  ServiceTimeConfig provisioning_or_default() const;

  static constexpr std::string_view kTypeName = "ClusterAutoscaler";
  static constexpr auto fields() {
    return std::tuple{
        field("enabled", &ClusterAutoscalerConfig::enabled, "Add nodes for pods that pend for lack of room."),
        field("scanInterval", &ClusterAutoscalerConfig::scan_interval, "How often it looks at pending pods.",
              kPositive),
        field("provisioning", &ClusterAutoscalerConfig::provisioning,
              "Time from its decision to a Ready node: a distribution like serviceTime (default lognormal, "
              "p50 60s, p99 4m: Karpenter-fast to ASG-slow)."),
    };
  }
};

struct KubernetesConfig {
  std::vector<NodePoolConfig> node_pools;
  std::vector<KubeDeploymentConfig> deployments;
  std::vector<HpaConfig> hpas;
  HpaControllerConfig hpa_controller;
  MetricsServerConfig metrics_server;
  MetricsAdapterConfig metrics_adapter;
  NodeLifecycleConfig node_lifecycle;
  KubeProxyConfig kube_proxy;
  ClusterAutoscalerConfig cluster_autoscaler;

  static constexpr std::string_view kTypeName = "Kubernetes";
  static constexpr auto fields() {
    return std::tuple{
        field("nodePools", &KubernetesConfig::node_pools,
              "Nodes per zone. A zone without a pool has room for any number of pods."),
        field("deployments", &KubernetesConfig::deployments, "Services whose pods the control plane runs."),
        field("hpas", &KubernetesConfig::hpas, "HorizontalPodAutoscalers."),
        field("hpaController", &KubernetesConfig::hpa_controller, "The HPA controller's settings."),
        field("metricsServer", &KubernetesConfig::metrics_server, "How pod CPU is sampled."),
        field("metricsAdapter", &KubernetesConfig::metrics_adapter,
              "How the HPAs' Pods, Object and External metrics are scraped."),
        field("nodeLifecycle", &KubernetesConfig::node_lifecycle,
              "How a failed zone's nodes and pods are noticed and evicted."),
        field("kubeProxy", &KubernetesConfig::kube_proxy,
              "How the services' callers learn of endpoint changes (services with discovery kubernetes)."),
        field("clusterAutoscaler", &KubernetesConfig::cluster_autoscaler, "Adding nodes for pending pods."),
    };
  }

  bool empty() const { return deployments.empty() && hpas.empty() && node_pools.empty(); }
  // Problems within this section; names of services and zones are checked
  // against the topology by the scenario loader.
  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim

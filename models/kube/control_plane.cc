#include "models/kube/control_plane.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "models/kube/eviction_placement.h"
#include "models/data/kafka_consumer_group.h"
#include "models/kube/kube_event_kinds.h"
#include "models/traffic/client_population.h"
#include "sim/errors.h"
#include "sim/quote.h"
#include "sim/simulation.h"

namespace drsim {

namespace {

ServiceTimeDistribution startup_of(const KubeDeploymentConfig& d) {
  return ServiceTimeDistribution(d.startup_or_default());
}

}  // namespace

KubeControlPlane::KubeControlPlane(KubernetesConfig config, FailureDomains* domains, std::vector<Service*> services,
                                   Duration metrics_window, KubeMetricSources sources)
    : Component("kubernetes"),
      config_(std::move(config)),
      domains_(domains),
      services_(std::move(services)),
      metrics_window_(metrics_window),
      unmanaged_startup_(startup_of(KubeDeploymentConfig{})) {
  if (!config_.node_pools.empty()) {
    std::vector<NodePool> pools;
    for (const NodePoolConfig& p : config_.node_pools) {
      pools.push_back(NodePool{.name = p.name,
                               .zone = p.zone,
                               .allocatable = Resources{p.cpu.millicores, p.memory.bytes},
                               .nodes = p.nodes,
                               .max_nodes = p.max_nodes.value_or(p.nodes),
                               .max_pods = p.max_pods});
    }
    cluster_.emplace(std::move(pools));
    nodes_coming_.assign(config_.node_pools.size(), 0);
  }
  if (config_.cluster_autoscaler.enabled) provisioning_.emplace(config_.cluster_autoscaler.provisioning_or_default());
  for (const KubeDeploymentConfig& dc : config_.deployments) {
    Service* service = nullptr;
    for (Service* s : services_) {
      if (s->config().name == dc.service) service = s;
    }
    if (service == nullptr) throw SimulationError("kubernetes: no service " + quote(dc.service) + " to deploy");
    Deployment d{.config = dc, .service = service, .startup = startup_of(dc)};
    d.cpu_request_milli = service->config().cpu_request().millicores;
    d.pod_size = Resources{d.cpu_request_milli, dc.memory.bytes};
    d.policy = dc.policy;
    for (std::size_t z = 0; z < service->zone_count(); ++z) {
      d.zone_names.push_back(service->zone_name(z));
      d.zone_topology.push_back(topology_zone(service->zone_name(z)));
      d.targets.push_back(service->pods(z));
      d.replicas += static_cast<std::int32_t>(service->pods(z));
    }
    d.zone_pending_reason.assign(d.zone_names.size(), "");
    deployments_.push_back(std::move(d));
  }
  for (const HpaConfig& hc : config_.hpas) {
    std::size_t target = deployments_.size();
    for (std::size_t i = 0; i < deployments_.size(); ++i) {
      if (deployments_[i].config.service == hc.target) target = i;
    }
    if (target == deployments_.size()) {
      throw SimulationError("kubernetes: HPA " + quote(hc.name) + " targets " + quote(hc.target) +
                            ", which no deployment runs");
    }
    deployments_[target].hpa = hpas_.size();
    hpas_.push_back(Hpa{.controller = HpaController(hc, config_.hpa_controller), .deployment = target});
  }
  for (Service* s : services_) {
    // Every service of the cluster is a Kubernetes Service unless it opts out (oracle) or sits behind a
    // cloud load balancer of its own; a meshed one's endpoints reach its callers' sidecars through istiod.
    const std::string path = s->config().discovery_path(true);
    if (path == "kubernetes" || path == "grpc") s->use_kube_proxy(config_.kube_proxy.min_sync_period);
    if (path == "mesh") s->use_mesh_endpoints(s->config().mesh.value_or(MeshConfig{}).eds_debounce);
    const bool managed = std::any_of(deployments_.begin(), deployments_.end(),
                                     [s](const Deployment& d) { return d.service == s; });
    if (!managed) unmanaged_.push_back(s);
  }
  unmanaged_waiting_.assign(unmanaged_.size(), 0);
  // The metrics adapter's series: those the HPAs' metrics name, and only those.
  for (const HpaConfig& hc : config_.hpas) {
    for (const HpaMetricConfig& m : hc.metrics) {
      if (m.type == "Resource") continue;
      adapter_needed_ = true;
      if (m.type == "Object" && m.object) {
        const std::string& name = m.object->described_object.name;
        const auto s = std::find_if(services_.begin(), services_.end(),
                                    [&](Service* x) { return x->config().name == name; });
        if (s == services_.end()) {
          throw SimulationError("kubernetes: HPA " + quote(hc.name) + " has an Object metric of service " + quote(name) +
                                ", which the scenario does not have");
        }
        const bool seen = std::any_of(service_series_.begin(), service_series_.end(),
                                      [&](const ServiceSeries& x) { return x.service == *s; });
        if (!seen) service_series_.push_back(ServiceSeries{.service = *s});
      }
      if (m.type != "External" || !m.external || !m.external->metric.selector) continue;
      const HpaMatchLabelsConfig& labels = m.external->metric.selector->match_labels;
      if (labels.population) {
        const auto p = std::find_if(sources.populations.begin(), sources.populations.end(),
                                    [&](ClientPopulation* x) { return x->config().name == *labels.population; });
        if (p == sources.populations.end()) {
          throw SimulationError("kubernetes: HPA " + quote(hc.name) + " reads population " +
                                quote(*labels.population) + ", which the scenario does not have");
        }
        const bool seen = std::any_of(population_series_.begin(), population_series_.end(),
                                      [&](const PopulationSeries& x) { return x.population == *p; });
        if (!seen) population_series_.push_back(PopulationSeries{.population = *p});
      }
      if (labels.topic && labels.group) {
        const auto g = std::find_if(sources.consumer_groups.begin(), sources.consumer_groups.end(),
                                    [&](const KubeMetricSources::Group& x) {
                                      return x.topic == *labels.topic && x.group->config().name == *labels.group;
                                    });
        if (g == sources.consumer_groups.end()) {
          throw SimulationError("kubernetes: HPA " + quote(hc.name) + " reads the lag of group " +
                                quote(*labels.group) + " of topic " + quote(*labels.topic) +
                                ", which the scenario does not have");
        }
        const bool seen = std::any_of(group_series_.begin(), group_series_.end(), [&](const GroupSeries& x) {
          return x.source.group == g->group;
        });
        if (!seen) group_series_.push_back(GroupSeries{.source = *g});
      }
    }
  }
}

// ---- lookups -------------------------------------------------------------------

KubeControlPlane::Deployment& KubeControlPlane::deployment(std::string_view service) {
  for (Deployment& d : deployments_) {
    if (d.config.service == service) return d;
  }
  throw SimulationError("kubernetes: no deployment runs service " + quote(service));
}

const KubeControlPlane::Deployment& KubeControlPlane::deployment(std::string_view service) const {
  return const_cast<KubeControlPlane*>(this)->deployment(service);
}

std::uint32_t KubeControlPlane::zone_index(const Deployment& d, std::string_view zone) const {
  for (std::uint32_t z = 0; z < d.zone_names.size(); ++z) {
    if (d.zone_names[z] == zone) return z;
  }
  throw SimulationError("kubernetes: service " + quote(d.config.service) + " has no zone " + quote(zone));
}

std::optional<ZoneIndex> KubeControlPlane::topology_zone(std::string_view zone) const {
  if (domains_ == nullptr) return std::nullopt;
  return domains_->topology().find_zone(zone);
}

bool KubeControlPlane::zone_up(std::string_view zone) const {
  const auto z = topology_zone(zone);
  return !z || domains_->zone_up(*z);
}

bool KubeControlPlane::zone_up(const Deployment& d, std::uint32_t zone) const {
  const std::optional<ZoneIndex> z = d.zone_topology[zone];
  return !z || domains_->zone_up(*z);
}

bool KubeControlPlane::has_pools(std::string_view zone) const {
  return std::any_of(config_.node_pools.begin(), config_.node_pools.end(),
                     [&](const NodePoolConfig& p) { return p.zone == zone; });
}

// ---- lifecycle -----------------------------------------------------------------

void KubeControlPlane::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  for (Deployment& d : deployments_) {
    const Labels labels{{"service", d.config.service}};
    d.g_replicas = metrics_->gauge("deployment.replicas", labels);
    d.g_ready = metrics_->gauge("deployment.ready", labels);
    d.g_pending = metrics_->gauge("deployment.pending", labels);
    d.g_unplaced = metrics_->gauge("deployment.unplaced", labels);
    for (const std::string& zone : d.zone_names) {
      const Labels zl{{"service", d.config.service}, {"zone", zone}};
      d.zone_gauges.push_back(
          ZoneGauges{metrics_->gauge("deployment.zone_target", zl), metrics_->gauge("deployment.zone_ready", zl)});
    }
  }
  for (Hpa& h : hpas_) {
    const Labels labels{{"hpa", h.controller.config().name}};
    h.g_desired = metrics_->gauge("hpa.desired_replicas", labels);
    h.g_utilization = metrics_->gauge("hpa.utilization", labels);
    h.g_all_pods = metrics_->gauge("hpa.all_pods_utilization", labels);
  }
  for (const NodePoolConfig& p : config_.node_pools) {
    const bool seen =
        std::any_of(node_gauges_.begin(), node_gauges_.end(), [&](const auto& g) { return g.first == p.zone; });
    if (!seen) node_gauges_.emplace_back(p.zone, metrics_->gauge("cluster.nodes", {{"zone", p.zone}}));
  }
  for (std::size_t di = 0; di < deployments_.size(); ++di) {
    deployments_[di].service->on_pod_killed([this, di](std::size_t service_pod) { pod_killed(di, service_pod); });
  }
  if (domains_ != nullptr) {
    zone_watch_.assign(domains_->topology().zone_count(), ZoneWatch{});
    domains_->on_change([this] { on_topology_change(); });
  }
}

// ---- node lifecycle --------------------------------------------------------------

namespace {

// The largest multiple of `step` at or below t (t may be negative).
std::int64_t floor_to(std::int64_t t, std::int64_t step) {
  const std::int64_t q = t / step;
  return (t % step != 0 && t < 0 ? q - 1 : q) * step;
}

}  // namespace

SimTime KubeControlPlane::not_ready_time(ZoneIndex zone, SimTime failed) const {
  const NodeLifecycleConfig& nl = config_.node_lifecycle;
  const std::int64_t renew = to_ns(nl.lease_renew_interval);
  const std::int64_t period = to_ns(nl.monitor_period);
  const std::int64_t phase = to_ns(lease_phase_[zone]);
  // The kubelet's last renewal of the Lease, at phase + k x renew, before the zone went silent.
  const std::int64_t renewed = phase + floor_to(to_ns(failed) - phase, renew);
  // The controller notes a renewal at its first look at or after it (looks at k x period) ...
  const std::int64_t seen = -floor_to(-renewed, period);
  // ... and marks the node at its first look more than the grace period after that.
  std::int64_t marked = floor_to(seen + to_ns(nl.monitor_grace_period), period) + period;
  // A grace period shorter than the renew interval: not before the failure's next look.
  if (marked <= to_ns(failed)) marked = floor_to(to_ns(failed), period) + period;
  return at(Duration{marked});
}

NodeCpu& KubeControlPlane::node_cpu(std::size_t node) {
  // Nodes the cluster autoscaler added since are seated as their first pods come.
  while (node_cpus_.size() <= node) {
    const std::size_t n = node_cpus_.size();
    const NodePool& pool = cluster_->pools()[cluster_->nodes()[n].pool];
    node_cpus_.push_back(std::make_unique<NodeCpu>(pool.name + "-" + std::to_string(n), pool.allocatable.cpu_millis));
  }
  return *node_cpus_[node];
}

void KubeControlPlane::start() {
  // Where each zone's kubelets renew their Leases within the renew interval: nothing ties them to the run's start.
  if (domains_ != nullptr) {
    const auto renew = static_cast<double>(to_ns(config_.node_lifecycle.lease_renew_interval));
    for (std::size_t z = 0; z < zone_watch_.size(); ++z) {
      lease_phase_.push_back(Duration{static_cast<std::int64_t>(rng().uniform() * renew)});
    }
  }
  // Pods that can ask for more CPU than they request burst into their nodes' spare cores, and slow each other
  // once a node is full: then every pod on a node asks it for its CPU. Without such pods no node can fill (the
  // scheduler placed no more requests on a node than it has), and nothing is shared.
  if (cluster_) {
    for (const Deployment& d : deployments_) {
      if (d.service->config().cpu_peak_millicores() > d.cpu_request_milli) node_cpu_shared_ = true;
    }
  }
  if (node_cpu_shared_) {
    for (Deployment& d : deployments_) d.service->share_node_cpu();
  }
  // The services' pods at time 0 are the deployments' running pods: bound
  // (on nodes, if the zone has pools), started and ready since the start.
  for (std::size_t di = 0; di < deployments_.size(); ++di) {
    Deployment& d = deployments_[di];
    for (std::size_t sp = 0; sp < d.service->pod_total(); ++sp) {
      if (!d.service->pod_present(sp)) continue;
      const auto z = static_cast<std::uint32_t>(d.service->pod_zone(sp));
      Pod pod{.deployment = static_cast<std::uint32_t>(di), .zone = z, .name = d.service->pod_name(sp)};
      pod.bound = true;
      pod.service_pod = sp;
      pod.ready = true;
      if (cluster_ && has_pools(d.zone_names[z])) {
        const PlacementResult placed = cluster_->place(d.pod_size, d.zone_names[z]);
        if (!placed.node) {
          throw SimulationError("kubernetes: the pods service " + quote(d.config.service) + " starts with in zone " +
                                quote(d.zone_names[z]) + " do not fit on its nodes: " + placed.reason);
        }
        pod.node = placed.node;
        if (node_cpu_shared_) d.service->place_on_node(sp, node_cpu(*placed.node));
      }
      d.pods.push_back(pods_.size());
      pods_.push_back(std::move(pod));
      ++d.pods_created;
    }
    update_gauges(di);
  }
  for (const auto& [zone, gauge] : node_gauges_) metrics_->set(gauge, now(), nodes_in_zone(zone));
  if (domains_ != nullptr) on_topology_change();
  // metrics-server reads at once (a baseline) and every resolution after.
  schedule_at(now(), "kubernetes.scrape", [this] { scrape(); });
  if (adapter_needed_) schedule_at(now(), "kubernetes.metrics_adapter", [this] { scrape_adapter(); });
  if (!hpas_.empty()) {
    schedule_after(config_.hpa_controller.sync_period, "kubernetes.hpa_sync", [this] { sync_hpas(); });
  }
  if (provisioning_) {
    schedule_after(config_.cluster_autoscaler.scan_interval, "kubernetes.cluster_autoscaler",
                   [this] { autoscale_nodes(); });
  }
}

void KubeControlPlane::stop() {
  metrics_->finish(now());
  for (const Deployment& d : deployments_) {
    const Labels labels{{"service", d.config.service}};
    recorder().kpi("deployment.replicas_final", labels, d.replicas);
    recorder().kpi("deployment.unplaced_peak", labels, metrics_->gauge_max(d.g_unplaced));
    recorder().kpi("deployment.pending_peak", labels, metrics_->gauge_max(d.g_pending));
  }
  for (const Hpa& h : hpas_) {
    const Labels labels{{"hpa", h.controller.config().name}};
    recorder().kpi("hpa.rescales", labels, h.rescales);
    recorder().kpi("hpa.desired_peak", labels, metrics_->gauge_max(h.g_desired));
  }
}

// ---- the parent scheduler and the ReplicaSet ------------------------------------

std::vector<ZoneState> KubeControlPlane::zone_states(const Deployment& d) const {
  std::vector<ZoneState> zones;
  for (std::uint32_t z = 0; z < d.zone_names.size(); ++z) {
    ZoneState s{.name = d.zone_names[z], .can_take_pods = zone_up(d, z), .current = d.targets[z]};
    if (cluster_ && has_pools(d.zone_names[z])) {
      // Room on the nodes (and those the autoscaler may still add), less
      // what this deployment's unbound pods there will take.
      std::uint32_t room = cluster_->free_pods(d.zone_names[z], d.pod_size, provisioning_.has_value());
      for (std::size_t p : d.pods) {
        if (pods_[p].zone == z && !pods_[p].bound && room > 0) --room;
      }
      s.free_capacity = room;
    }
    zones.push_back(std::move(s));
  }
  return zones;
}

void KubeControlPlane::apply_split(Deployment& d, const ZoneSplit& split) {
  for (std::size_t z = 0; z < d.targets.size(); ++z) d.targets[z] = split.targets[z].replicas;
  const bool changed = split.pending != d.unplaced || split.reason != d.unplaced_reason;
  d.unplaced = split.pending;
  d.unplaced_reason = split.reason;
  if (changed && d.unplaced > 0) {
    log_event(event_kinds::deployment::kUnplaced, d.config.service + ": " + std::to_string(d.unplaced) + " of " +
                                                      std::to_string(d.replicas) +
                                                      " replicas cannot be placed: " + d.unplaced_reason);
  }
}

void KubeControlPlane::set_replicas(std::size_t di, std::int32_t replicas) {
  Deployment& d = deployments_[di];
  d.replicas = std::max(replicas, 0);
  apply_split(d, scale_split(d.policy, zone_states(d), static_cast<std::uint32_t>(d.replicas)));
  reconcile(di);
}

std::vector<std::size_t> KubeControlPlane::deletion_order(std::vector<std::size_t> pods) const {
  // The ReplicaSet controller's preference: unscheduled before scheduled,
  // not ready before ready, newer before older.
  std::stable_sort(pods.begin(), pods.end(), [this](std::size_t a, std::size_t b) {
    const Pod& pa = pods_[a];
    const Pod& pb = pods_[b];
    if (pa.bound != pb.bound) return !pa.bound;
    if (pa.ready != pb.ready) return !pa.ready;
    return pa.created > pb.created;
  });
  return pods;
}

std::vector<std::size_t> KubeControlPlane::current_pods_in(const Deployment& d, std::uint32_t zone) const {
  std::vector<std::size_t> pods;
  for (std::size_t p : d.pods) {
    if (pods_[p].zone == zone && pods_[p].revision == d.revision) pods.push_back(p);
  }
  return pods;
}

void KubeControlPlane::reconcile(std::size_t di) {
  Deployment& d = deployments_[di];
  const std::size_t zones = d.targets.size();
  std::vector<std::uint32_t> count(zones, 0);  // pods of the current revision per zone
  std::vector<std::size_t> old;                // pods of an earlier revision (a restart)
  std::uint32_t ready = 0;
  for (std::size_t p : d.pods) {
    if (pods_[p].revision == d.revision) {
      ++count[pods_[p].zone];
    } else {
      old.push_back(p);
    }
    if (pods_[p].ready) ++ready;
  }
  auto total = static_cast<std::uint32_t>(d.pods.size());
  std::uint32_t deficit = 0, surplus = 0;
  for (std::size_t z = 0; z < zones; ++z) {
    if (count[z] < d.targets[z]) deficit += d.targets[z] - count[z];
    if (count[z] > d.targets[z]) surplus += count[z] - d.targets[z];
  }
  if (deficit == 0 && surplus == 0 && old.empty()) {
    d.rolling = false;
  } else if (!d.rolling) {
    // A scale: the ReplicaSet creates and deletes at once.
    for (std::uint32_t z = 0; z < zones; ++z) {
      while (count[z] < d.targets[z]) {
        create_pod(di, z);
        ++count[z];
      }
      if (count[z] > d.targets[z]) {
        const std::vector<std::size_t> order = deletion_order(current_pods_in(d, z));
        for (std::size_t i = 0; i < count[z] - d.targets[z]; ++i) delete_pod(order[i]);
        count[z] = d.targets[z];
      }
    }
  } else {
    // A rollout (a new split or a new revision): at most replicas +
    // maxSurge pods, and at least replicas - maxUnavailable ready ones, as
    // the deployment controller keeps them. Pods that are not ready can
    // always go; ready ones wait for new pods to become ready.
    const double n = d.replicas;
    const auto max_total = static_cast<std::uint32_t>(n + std::ceil(d.config.rolling_update.max_surge.value * n));
    const double min_ready_d = n - std::floor(d.config.rolling_update.max_unavailable.value * n);
    const std::uint32_t min_ready = min_ready_d > 0 ? static_cast<std::uint32_t>(min_ready_d) : 0;
    // Only ready pods free room for a surge: a pod still starting counts.
    auto remove_if_allowed = [&](std::size_t p) {
      if (pods_[p].ready) {
        if (ready <= min_ready) return false;
        --ready;
      }
      delete_pod(p);
      --total;
      return true;
    };
    for (std::uint32_t z = 0; z < zones; ++z) {
      if (count[z] <= d.targets[z]) continue;
      for (std::size_t p : deletion_order(current_pods_in(d, z))) {
        if (count[z] <= d.targets[z] || !remove_if_allowed(p)) break;
        --count[z];
      }
    }
    for (std::size_t p : deletion_order(old)) {
      if (!remove_if_allowed(p)) break;
    }
    for (std::uint32_t z = 0; z < zones; ++z) {
      while (count[z] < d.targets[z] && total < max_total) {
        create_pod(di, z);
        ++count[z];
        ++total;
      }
    }
  }
  schedule_pending();
  update_gauges(di);
}

void KubeControlPlane::create_pod(std::size_t di, std::uint32_t zone) {
  Deployment& d = deployments_[di];
  Pod pod{.deployment = static_cast<std::uint32_t>(di), .zone = zone};
  pod.name = d.config.service + "-" + d.zone_names[zone] + "-k" + std::to_string(d.pods_created++);
  pod.created = now();
  pod.revision = d.revision;
  d.pods.push_back(pods_.size());
  pods_.push_back(std::move(pod));
}

void KubeControlPlane::delete_pod(std::size_t p) {
  Pod& pod = pods_[p];
  Deployment& d = deployments_[pod.deployment];
  cancel(pod.ready_event);
  cancel(pod.probe_failed_event);
  cancel(pod.restart_event);
  if (pod.bound) {
    d.service->remove_pod(pod.service_pod);  // graceful: it finishes what it holds
    if (pod.node) cluster_->remove(*pod.node, d.pod_size);
  }
  d.pods.erase(std::find(d.pods.begin(), d.pods.end(), p));
}

// ---- the child scheduler and the kubelet ------------------------------------------

void KubeControlPlane::schedule_pending() {
  for (std::size_t di = 0; di < deployments_.size(); ++di) {
    Deployment& d = deployments_[di];
    // Most calls find nothing to bind: no allocation for them.
    const bool any_pending =
        std::any_of(d.pods.begin(), d.pods.end(), [this](std::size_t p) { return !pods_[p].bound; });
    if (!any_pending) {
      for (std::string& reason : d.zone_pending_reason) reason.clear();
      continue;
    }
    bool bound_any = false;
    std::vector<std::string> reasons(d.zone_names.size());
    for (std::size_t p : d.pods) {
      if (pods_[p].bound) continue;
      if (try_bind(p)) {
        bound_any = true;
      } else {
        reasons[pods_[p].zone] = pods_[p].pending_reason;
      }
    }
    for (std::size_t z = 0; z < reasons.size(); ++z) {
      if (reasons[z] != d.zone_pending_reason[z] && !reasons[z].empty()) {
        log_event(event_kinds::pod::kPending, d.config.service + " in " + d.zone_names[z] + ": " + reasons[z]);
      }
      d.zone_pending_reason[z] = reasons[z];
    }
    if (bound_any) update_gauges(di);
  }
}

bool KubeControlPlane::try_bind(std::size_t p) {
  Pod& pod = pods_[p];
  Deployment& d = deployments_[pod.deployment];
  const std::string& zone = d.zone_names[pod.zone];
  if (cluster_ && has_pools(zone)) {
    const PlacementResult placed = cluster_->place(d.pod_size, zone);
    if (!placed.node) {
      pod.pending_reason = placed.reason;
      return false;
    }
    pod.node = placed.node;
  } else if (!zone_up(zone)) {
    pod.pending_reason = "zone " + zone + " is down";
    return false;
  }
  pod.bound = true;
  pod.pending_reason.clear();
  pod.start_time = now();
  pod.service_pod = d.service->start_pod(pod.zone, false);
  if (pod.node && node_cpu_shared_) d.service->place_on_node(pod.service_pod, node_cpu(*pod.node));
  // The app answers after its startup time; the kubelet probes from
  // initialDelaySeconds on, every periodSeconds: Ready at the first probe
  // that finds it up (and successThreshold - 1 more).
  const SimTime app_up = now() + d.startup.sample(rng());
  pod.ready_event =
      schedule_at(ready_at(app_up, d.config.readiness_probe), "kubernetes.pod_ready", [this, p] { became_ready(p); });
  return true;
}

SimTime KubeControlPlane::ready_at(SimTime app_up, const ReadinessProbeConfig& probe) const {
  const SimTime first_probe = now() + std::chrono::seconds(probe.initial_delay_seconds);
  const Duration period = std::chrono::seconds(probe.period_seconds);
  SimTime ready = first_probe;
  if (app_up > first_probe) {
    const std::int64_t k = ((app_up - first_probe).count() + period.count() - 1) / period.count();
    ready = first_probe + k * period;
  }
  return ready + (probe.success_threshold - 1) * period;
}

void KubeControlPlane::set_ready(Pod& pod, bool ready) {
  if (pod.ready == ready) return;
  pod.ready = ready;
  pod.ready_transition = now();
  deployments_[pod.deployment].service->set_pod_ready(pod.service_pod, ready);
}

void KubeControlPlane::became_ready(std::size_t p) {
  Pod& pod = pods_[p];
  pod.ready_event = EventId{};
  if (!zone_up(deployments_[pod.deployment], pod.zone)) return;  // its node went silent meanwhile
  set_ready(pod, true);
  reconcile(pod.deployment);  // a rollout may go on
}

void KubeControlPlane::pod_killed(std::size_t di, std::size_t service_pod) {
  Deployment& d = deployments_[di];
  const auto it = std::find_if(d.pods.begin(), d.pods.end(),
                               [&](std::size_t p) { return pods_[p].bound && pods_[p].service_pod == service_pod; });
  if (it == d.pods.end()) return;
  const std::size_t p = *it;
  Pod& pod = pods_[p];
  cancel(pod.ready_event);
  cancel(pod.probe_failed_event);
  cancel(pod.restart_event);
  // The kubelet restarts the container after the crash-loop back-off
  // (10 s, doubling per restart, at most 5 min); the app is up a start-up
  // time later.
  const Duration backoff = std::min<Duration>(
      std::chrono::seconds(10) * (std::int64_t{1} << std::min(pod.restarts, 5u)), std::chrono::minutes(5));
  ++pod.restarts;
  const SimTime restart_at = now() + backoff;
  const SimTime app_up = restart_at + d.startup.sample(rng());
  // Probes keep their schedule (from the pod's start); those before the app
  // is up fail. failureThreshold failures in a row make the pod unready;
  // then successThreshold successes make it ready again.
  const ReadinessProbeConfig& probe = d.config.readiness_probe;
  const Duration period = std::chrono::seconds(probe.period_seconds);
  const SimTime first = pod.start_time + std::chrono::seconds(probe.initial_delay_seconds);
  auto next_probe_at_or_after = [&](SimTime t) {
    if (t <= first) return first;
    const std::int64_t k = ((t - first).count() + period.count() - 1) / period.count();
    return first + k * period;
  };
  const SimTime next = next_probe_at_or_after(now());
  const SimTime fails_at = next + (probe.failure_threshold - 1) * period;
  SimTime ready_at = next_probe_at_or_after(app_up);
  if (pod.ready && fails_at < app_up) {
    pod.probe_failed_event = schedule_at(fails_at, "kubernetes.probe_failed", [this, p] {
      Pod& failed = pods_[p];
      failed.probe_failed_event = EventId{};
      set_ready(failed, false);
      update_gauges(failed.deployment);
    });
  }
  if (!pod.ready || fails_at < app_up) ready_at += (probe.success_threshold - 1) * period;
  pod.restart_event = schedule_at(restart_at, "kubernetes.container_restart", [this, p] {
    Pod& restarted = pods_[p];
    restarted.restart_event = EventId{};
    deployments_[restarted.deployment].service->restart_pod(restarted.service_pod);
  });
  pod.ready_event = schedule_at(ready_at, "kubernetes.pod_ready", [this, p] { became_ready(p); });
  log_event(event_kinds::pod::kCrashed,
            pod.name + ": container killed; restarted after " + format_seconds(backoff) + " s (restart " +
                std::to_string(pod.restarts) + ")" +
                (pod.ready && fails_at < app_up ? ", unready at " + format_seconds(fails_at) + " s after " +
                                                      std::to_string(probe.failure_threshold) + " failed probes"
                                                : ""));
}

// ---- node lifecycle ----------------------------------------------------------------

void KubeControlPlane::on_topology_change() {
  const Topology& topology = domains_->topology();
  for (ZoneIndex z = 0; z < zone_watch_.size(); ++z) {
    ZoneWatch& w = zone_watch_[z];
    const bool down = !domains_->zone_up(z);
    if (down == w.down) continue;
    w.down = down;
    const std::string& name = topology.zone_name(z);
    if (cluster_) cluster_->set_zone_failed(name, down);
    if (down) {
      cancel(w.ready_event);
      const SimTime not_ready = not_ready_time(z, now());
      w.unready_event = schedule_at(not_ready, "kubernetes.node_not_ready", [this, z] { mark_zone_unready(z); });
      // The unreachable taint goes on with NotReady; tolerationSeconds count from it. One eviction per
      // distinct toleration, the cluster's default first (the pods of services without a deployment use it).
      std::vector<Duration> tolerations{config_.node_lifecycle.toleration};
      for (const Deployment& d : deployments_) {
        const Duration t = toleration_of(d);
        if (std::find(tolerations.begin(), tolerations.end(), t) == tolerations.end()) tolerations.push_back(t);
      }
      w.evict_events.clear();
      for (const Duration t : tolerations) {
        w.evict_events.push_back(schedule_at(not_ready + t, "kubernetes.evict", [this, z, t] { evict_zone(z, t); }));
      }
      continue;
    }
    cancel(w.unready_event);
    for (EventId& e : w.evict_events) cancel(e);
    w.evict_events.clear();
    // The pods of services without a deployment pass their next readiness probe.
    const Duration default_probe = std::chrono::seconds(ReadinessProbeConfig{}.period_seconds);
    w.ready_event = schedule_after(default_probe, "kubernetes.pods_ready", [this, z] { set_unmanaged_ready(z, true); });
    // Back: its pods pass their next probe, the scheduler may use it again.
    for (const Deployment& d : deployments_) {
      const Duration period = std::chrono::seconds(d.config.readiness_probe.period_seconds);
      for (std::size_t p : d.pods) {
        Pod& pod = pods_[p];
        if (!pod.bound || pod.ready || pod.terminating || d.zone_topology[pod.zone] != z) continue;
        cancel(pod.ready_event);
        pod.ready_event = schedule_after(period, "kubernetes.pod_ready", [this, p] { became_ready(p); });
      }
    }
    zone_back(z);
    schedule_pending();
  }
}

void KubeControlPlane::mark_zone_unready(ZoneIndex z) {
  const std::string& name = domains_->topology().zone_name(z);
  log_event(event_kinds::node::kNotReady,
            "zone " + name + ": nodes NotReady after the monitor grace period; their pods unready");
  for (std::size_t di = 0; di < deployments_.size(); ++di) {
    Deployment& d = deployments_[di];
    for (std::size_t p : d.pods) {
      Pod& pod = pods_[p];
      if (!pod.bound || d.zone_names[pod.zone] != name) continue;
      cancel(pod.ready_event);
      cancel(pod.probe_failed_event);
      set_ready(pod, false);
    }
    update_gauges(di);
  }
  set_unmanaged_ready(z, false);
}

void KubeControlPlane::set_unmanaged_ready(ZoneIndex z, bool ready) {
  if (ready && !domains_->zone_up(z)) return;
  const std::string& name = domains_->topology().zone_name(z);
  for (Service* s : unmanaged_) {
    const auto zone = s->find_zone(name);
    if (!zone) continue;
    for (std::size_t p = 0; p < s->pod_total(); ++p) {
      if (!s->pod_present(p) || s->pod_zone(p) != *zone) continue;
      // A replacement still starting is ready at its own first probe.
      if (ready && std::find(unmanaged_starting_.begin(), unmanaged_starting_.end(), std::pair{s, p}) !=
                       unmanaged_starting_.end()) {
        continue;
      }
      s->set_pod_ready(p, ready);
    }
  }
}

Duration KubeControlPlane::toleration_of(const Deployment& d) const {
  return d.config.toleration.value_or(config_.node_lifecycle.toleration);
}

namespace {

// "2 in zone-b, 1 in zone-c": where the replicas added to each zone went.
std::string where_added(const std::vector<std::string>& zones, const std::vector<std::uint32_t>& before,
                        const std::vector<std::uint32_t>& after) {
  std::string out;
  for (std::size_t z = 0; z < zones.size(); ++z) {
    if (after[z] <= before[z]) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(after[z] - before[z]) + " in " + zones[z];
  }
  return out;
}

}  // namespace

void KubeControlPlane::evict_zone(ZoneIndex z, Duration toleration) {
  for (std::size_t di = 0; di < deployments_.size(); ++di) {
    if (toleration_of(deployments_[di]) == toleration) evict_deployment(di, z);
  }
  if (toleration == config_.node_lifecycle.toleration) evict_unmanaged(z);
}

void KubeControlPlane::evict_deployment(std::size_t di, ZoneIndex z) {
  Deployment& d = deployments_[di];
  std::vector<std::size_t> evicted;
  for (std::size_t p : d.pods) {
    const Pod& pod = pods_[p];
    if (pod.bound && !pod.terminating && d.zone_topology[pod.zone] == z) evicted.push_back(p);
  }
  if (evicted.empty()) return;
  const std::uint32_t lost = pods_[evicted.front()].zone;
  const std::string& name = d.zone_names[lost];
  const std::string head = d.config.service + ": " + std::to_string(evicted.size()) + " pods of zone " + name +
                           " evicted after the unreachable toleration (" + format_seconds(toleration_of(d)) + " s)";
  if (d.config.stateful_set()) {
    // Marked for deletion, but the kubelet that would confirm it is unreachable: the pods stay Terminating,
    // and the StatefulSet creates no pod with their identity until they are gone.
    for (std::size_t p : evicted) pods_[p].terminating = true;
    log_event(event_kinds::pod::kEvicted, head +
                                              "; a StatefulSet replaces a pod only once it is gone: they stay "
                                              "Terminating, unreplaced, until zone " +
                                              name + " is back");
    update_gauges(di);
    return;
  }
  // A ReplicaSet does not count a pod marked for deletion: its replacement is created at once.
  for (std::size_t p : evicted) delete_pod(p);
  const std::vector<std::uint32_t> before = d.targets;
  const EvictionPlacement placed =
      place_evicted(d.policy, zone_states(d), lost, static_cast<std::uint32_t>(d.replicas));
  std::vector<std::uint32_t> after(before.size());
  for (std::size_t i = 0; i < after.size(); ++i) after[i] = placed.split.targets[i].replicas;
  std::string where = where_added(d.zone_names, before, after);
  where = where.empty() ? "" : "; replacements " + where;
  if (placed.kept > 0) {
    where += "; " + std::to_string(placed.kept) + " recreated in zone " + name + ", Pending until it is back (" +
             placed.why_kept + ")";
  }
  log_event(event_kinds::pod::kEvicted, head + where);
  // An unchanged assignment (pinned, or nothing could move) keeps the deployment's unplaced replicas and
  // their reason as they were.
  if (after != before) apply_split(d, placed.split);
  reconcile(di);
}

void KubeControlPlane::evict_unmanaged(ZoneIndex z) {
  const std::string& name = domains_->topology().zone_name(z);
  for (std::size_t si = 0; si < unmanaged_.size(); ++si) {
    Service* s = unmanaged_[si];
    const auto zone = s->find_zone(name);
    if (!zone) continue;
    std::uint32_t evicted = 0;
    for (std::size_t p = 0; p < s->pod_total(); ++p) {
      if (!s->pod_present(p) || s->pod_terminating(p) || s->pod_zone(p) != *zone) continue;
      s->remove_pod(p);
      ++evicted;
    }
    if (evicted == 0) continue;
    std::vector<std::uint32_t> before(s->zone_count());
    for (std::size_t i = 0; i < before.size(); ++i) before[i] = s->pods(i);
    replace_unmanaged(si, evicted);
    std::vector<std::string> zones(s->zone_count());
    std::vector<std::uint32_t> after(s->zone_count());
    for (std::size_t i = 0; i < zones.size(); ++i) {
      zones[i] = s->zone_name(i);
      after[i] = s->pods(i);
    }
    const std::string where = where_added(zones, before, after);
    log_event(event_kinds::pod::kEvicted,
              s->config().name + ": " + std::to_string(evicted) + " pods of zone " + name +
                  " evicted after the unreachable toleration (" + format_seconds(config_.node_lifecycle.toleration) +
                  " s); no deployment describes their ReplicaSet: replacements spread evenly over its zones that "
                  "are up" +
                  (where.empty() ? "" : ", " + where) +
                  (unmanaged_waiting_[si] > 0
                       ? "; " + std::to_string(unmanaged_waiting_[si]) + " wait for one of its zones to be back"
                       : ""));
  }
}

void KubeControlPlane::replace_unmanaged(std::size_t si, std::uint32_t count) {
  Service* s = unmanaged_[si];
  const KubeDeploymentConfig defaults;
  for (std::uint32_t k = 0; k < count; ++k) {
    // The default scheduler's soft zone spreading: the zone (up) with the fewest of the service's pods, the
    // first in the service's order on a tie.
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < s->zone_count(); ++i) {
      if (!zone_up(s->zone_name(i))) continue;
      if (!best || s->pods(i) < s->pods(*best)) best = i;
    }
    if (!best) {
      unmanaged_waiting_[si] += count - k;
      return;
    }
    const std::size_t sp = s->start_pod(*best, false);
    unmanaged_starting_.emplace_back(s, sp);
    const SimTime app_up = now() + unmanaged_startup_.sample(rng());
    schedule_at(ready_at(app_up, defaults.readiness_probe), "kubernetes.pod_ready", [this, s, sp] {
      std::erase(unmanaged_starting_, std::pair{s, sp});
      // Its zone may have failed meanwhile: it is then ready at its first probe after the zone is back.
      if (s->pod_present(sp) && zone_up(s->zone_name(s->pod_zone(sp)))) s->set_pod_ready(sp, true);
    });
  }
}

void KubeControlPlane::zone_back(ZoneIndex z) {
  for (std::size_t di = 0; di < deployments_.size(); ++di) {
    Deployment& d = deployments_[di];
    std::vector<std::size_t> gone;
    for (std::size_t p : d.pods) {
      if (pods_[p].terminating && d.zone_topology[pods_[p].zone] == z) gone.push_back(p);
    }
    if (gone.empty()) continue;
    log_event(event_kinds::pod::kTerminated,
              d.config.service + ": " + std::to_string(gone.size()) + " Terminating pods of zone " +
                  d.zone_names[pods_[gone.front()].zone] +
                  " are gone, their kubelets back; the StatefulSet recreates them there");
    for (std::size_t p : gone) delete_pod(p);
    // The targets are unchanged: a StatefulSet's pod keeps its identity (and, usually, a volume of its zone).
    reconcile(di);
  }
  for (std::size_t si = 0; si < unmanaged_.size(); ++si) {
    const std::uint32_t waiting = std::exchange(unmanaged_waiting_[si], 0);
    if (waiting > 0) replace_unmanaged(si, waiting);
  }
}

// ---- metrics-server, HPA, cluster autoscaler -------------------------------------------

void KubeControlPlane::scrape() {
  const SimTime t = now();
  for (Deployment& d : deployments_) {
    for (std::size_t p : d.pods) {
      Pod& pod = pods_[p];
      if (!pod.bound) continue;
      if (!zone_up(d, pod.zone)) {
        // The kubelet does not answer: metrics-server has nothing fresh.
        pod.sample.reset();
        pod.read_at.reset();
        continue;
      }
      const double cpu = d.service->pod_cpu_core_seconds(pod.service_pod);
      if (pod.read_at && t > *pod.read_at) {
        const Duration window = t - *pod.read_at;
        const double cores = (cpu - pod.cpu_read) / to_seconds(window);
        pod.sample = PodMetric{.pod = pod.name,
                               .value_milli = static_cast<std::int64_t>(std::llround(cores * 1000.0)),
                               .timestamp = t,
                               .window = window};
      }
      pod.cpu_read = cpu;
      pod.read_at = t;
    }
  }
  schedule_after(config_.metrics_server.resolution, "kubernetes.scrape", [this] { scrape(); });
}

void KubeControlPlane::scrape_adapter() {
  const SimTime t = now();
  adapter_up_ = !config_.metrics_adapter.zone || zone_up(*config_.metrics_adapter.zone);
  if (!adapter_up_) {
    // Prometheus is gone with its zone: what it scraped is gone too, and a
    // rate needs two scrapes once it is back.
    for (Pod& pod : pods_) pod.requests.lose();
    for (ServiceSeries& s : service_series_) s.series.lose();
    for (PopulationSeries& p : population_series_) p.offered.lose();
    for (GroupSeries& g : group_series_) g.lag_milli.reset();
  } else {
    for (Deployment& d : deployments_) {
      for (std::size_t p : d.pods) {
        Pod& pod = pods_[p];
        // A pod it cannot reach (not on a node, its zone down, its container crashed) has no fresh sample.
        if (!pod.bound || !zone_up(d, pod.zone) || d.service->pod_crashed(pod.service_pod)) {
          pod.requests.lose();
          continue;
        }
        const std::size_t sp = pod.service_pod;
        pod.requests.read(RequestCounters{d.service->pod_completed(sp), d.service->pod_response_ns(sp),
                                          d.service->pod_queued(sp), d.service->pod_busy(sp)},
                          t);
      }
    }
    for (ServiceSeries& s : service_series_) {
      // The service's series summed over its pods (a pod of a dead zone adds nothing new).
      RequestCounters sum;
      for (std::size_t sp = 0; sp < s.service->pod_total(); ++sp) {
        sum.completed += s.service->pod_completed(sp);
        sum.response_ns += s.service->pod_response_ns(sp);
        if (!s.service->pod_present(sp)) continue;
        sum.queued += s.service->pod_queued(sp);
        sum.busy += s.service->pod_busy(sp);
      }
      s.series.read(sum, t);
    }
    for (PopulationSeries& p : population_series_) p.offered.read(p.population->offered(), t);
    for (GroupSeries& g : group_series_) {
      g.lag_milli = static_cast<std::int64_t>(g.source.group->lag_messages()) * 1000;
      g.read_at = t;
    }
  }
  schedule_after(config_.metrics_adapter.interval, "kubernetes.metrics_adapter", [this] { scrape_adapter(); });
}

HpaMetricReading KubeControlPlane::adapter_reading(const HpaMetricConfig& metric, const Deployment& d,
                                                   std::optional<std::uint32_t> excluded_zone) const {
  // The API call fails at once while the adapter's zone is down; what it had scraped is dropped at its next scrape.
  if (!adapter_up_ || (config_.metrics_adapter.zone && !zone_up(*config_.metrics_adapter.zone))) {
    return HpaMetricReading::failure("the metrics adapter is down with zone " + *config_.metrics_adapter.zone);
  }
  HpaMetricReading r;
  if (metric.type == "Pods" && metric.pods) {
    const std::optional<RequestMetric> m = request_metric(metric.pods->metric.name);
    for (std::size_t p : d.pods) {
      const Pod& pod = pods_[p];
      if (!m || (excluded_zone && pod.zone == *excluded_zone)) continue;
      if (const auto v = pod.requests.value_milli(*m)) {
        r.pods.push_back(PodMetric{.pod = pod.name,
                                   .value_milli = *v,
                                   .timestamp = pod.requests.timestamp(),
                                   .window = pod.requests.window()});
      }
    }
    if (r.pods.empty()) r.error = "unable to get metric " + metric.pods->metric.name + ": no pod has a value yet";
  } else if (metric.type == "Object" && metric.object) {
    const std::optional<RequestMetric> m = request_metric(metric.object->metric.name);
    for (const ServiceSeries& s : service_series_) {
      if (s.service->config().name != metric.object->described_object.name || !m) continue;
      r.value_milli = s.series.value_milli(*m);
      r.timestamp = s.series.timestamp();
    }
    if (!r.value_milli) r.error = "unable to get metric " + metric.object->metric.name + ": no value yet";
  } else if (metric.type == "External" && metric.external && metric.external->metric.selector) {
    const HpaMatchLabelsConfig& labels = metric.external->metric.selector->match_labels;
    for (const PopulationSeries& p : population_series_) {
      if (!labels.population || p.population->config().name != *labels.population) continue;
      if (const auto v = p.offered.value_milli()) r.values_milli.push_back(*v);
      r.timestamp = p.offered.timestamp();
    }
    for (const GroupSeries& g : group_series_) {
      if (!labels.topic || !labels.group || g.source.topic != *labels.topic ||
          g.source.group->config().name != *labels.group || !g.lag_milli) {
        continue;
      }
      r.values_milli.push_back(*g.lag_milli);
      r.timestamp = g.read_at;
    }
    if (r.values_milli.empty()) r.error = "unable to get external metric " + metric.external->metric.name + ": no value yet";
  } else {
    r.error = "the metrics adapter does not serve this " + metric.type + " metric";
  }
  return r;
}

HpaSyncInput KubeControlPlane::hpa_input(const Deployment& d, std::optional<std::uint32_t> excluded_zone) const {
  HpaSyncInput in;
  in.now = now();
  in.current_replicas = d.replicas;
  if (excluded_zone) in.replicas_set_aside = d.hpa_compensation_kept;
  for (std::size_t p : d.pods) {
    const Pod& pod = pods_[p];
    if (excluded_zone && pod.zone == *excluded_zone) continue;
    PodInfo info;
    info.name = pod.name;
    info.phase = pod.bound ? PodPhase::kRunning : PodPhase::kPending;
    info.deleting = pod.terminating;  // the HPA ignores a pod marked for deletion
    info.ready = PodReadyCondition{pod.ready ? ConditionStatus::kTrue : ConditionStatus::kFalse, pod.ready_transition};
    if (pod.bound) info.start_time = pod.start_time;
    info.containers.push_back(
        ContainerSpec{.name = "main", .requests = ResourceRequests{d.cpu_request_milli, d.config.memory.bytes * 1000}});
    in.pods.push_back(std::move(info));
    if (pod.sample) in.cpu.push_back(*pod.sample);
  }
  const Hpa& h = hpas_[*d.hpa];
  for (const HpaMetricConfig& m : h.controller.config().metrics) {
    in.readings.push_back(m.type == "Resource" ? HpaMetricReading{} : adapter_reading(m, d, excluded_zone));
  }
  return in;
}

void KubeControlPlane::sync_hpas() {
  for (Hpa& h : hpas_) {
    Deployment& d = deployments_[h.deployment];
    const std::optional<std::uint32_t> excluded = d.hpa_compensation_zone;
    const HpaSyncResult r = h.controller.sync(hpa_input(d, excluded));
    if (r.utilization) metrics_->set(h.g_utilization, now(), *r.utilization);
    if (r.all_pods_utilization) metrics_->set(h.g_all_pods, now(), *r.all_pods_utilization);
    const std::int32_t desired = r.desired_replicas;
    metrics_->set(h.g_desired, now(), desired);
    h.max_desired = std::max(h.max_desired, desired);
    if (r.rescale && desired != d.replicas) {
      ++h.rescales;
      log_event(event_kinds::hpa::kRescale,
                h.controller.config().name + ": " + std::to_string(d.replicas) + " -> " + std::to_string(desired) +
                    " (" + r.message + (excluded ? ", compensating zone " + d.zone_names[*excluded] : "") + ")");
      set_replicas(h.deployment, desired);
    }
  }
  schedule_after(config_.hpa_controller.sync_period, "kubernetes.hpa_sync", [this] { sync_hpas(); });
}

void KubeControlPlane::autoscale_nodes() {
  // Per zone with pools: pods pending for lack of room (not for a failed
  // zone) ask for nodes, unless nodes ordered earlier are still coming (the
  // autoscaler counts those as room already).
  std::vector<std::string> zones;
  for (const NodePoolConfig& pool : config_.node_pools) {
    if (std::find(zones.begin(), zones.end(), pool.zone) == zones.end()) zones.push_back(pool.zone);
  }
  for (const std::string& zone : zones) {
    if (!zone_up(zone)) continue;
    bool coming = false;
    for (std::size_t i = 0; i < config_.node_pools.size(); ++i) {
      if (config_.node_pools[i].zone == zone && nodes_coming_[i] > 0) coming = true;
    }
    if (coming) continue;
    std::vector<Resources> pending;
    for (const Deployment& d : deployments_) {
      for (std::size_t p : d.pods) {
        if (!pods_[p].bound && d.zone_names[pods_[p].zone] == zone) pending.push_back(d.pod_size);
      }
    }
    if (pending.empty()) continue;
    const ScaleUpEstimate estimate = cluster_->estimate_scale_up(zone, pending);
    for (const PoolScaleUp& up : estimate.pools) {
      if (up.nodes_to_add == 0) continue;
      nodes_coming_[up.pool] += up.nodes_to_add;
      log_event(event_kinds::node::kScaleUp, "pool " + up.name + " in " + zone + ": " +
                                                 std::to_string(up.nodes_to_add) + " nodes ordered for " +
                                                 std::to_string(pending.size()) + " pending pods");
      const Duration delay = provisioning_->sample(rng());
      const std::size_t pool = up.pool;
      const std::uint32_t count = up.nodes_to_add;
      schedule_after(delay, "kubernetes.node_ready", [this, pool, count] {
        nodes_coming_[pool] -= count;
        const std::uint32_t added = cluster_->add_nodes(pool, count);
        const std::string& zone_name = config_.node_pools[pool].zone;
        log_event(event_kinds::node::kAdded,
                  "pool " + config_.node_pools[pool].name + ": " + std::to_string(added) + " nodes Ready");
        for (const auto& [z, gauge] : node_gauges_) {
          if (z == zone_name) metrics_->set(gauge, now(), nodes_in_zone(z));
        }
        schedule_pending();
      });
    }
    if (estimate.still_pending > 0 && !estimate.reason.empty()) {
      log_event(event_kinds::node::kScaleUpShort, "zone " + zone + ": " + estimate.reason);
    }
  }
  schedule_after(config_.cluster_autoscaler.scan_interval, "kubernetes.cluster_autoscaler",
                 [this] { autoscale_nodes(); });
}

void KubeControlPlane::update_gauges(std::size_t di) {
  Deployment& d = deployments_[di];
  const SimTime t = now();
  std::uint32_t ready = 0, pending = 0;
  std::vector<std::uint32_t> zone_ready(d.zone_names.size(), 0);
  for (std::size_t p : d.pods) {
    if (pods_[p].ready) {
      ++ready;
      ++zone_ready[pods_[p].zone];
    }
    if (!pods_[p].bound) ++pending;
  }
  metrics_->set(d.g_replicas, t, d.replicas);
  metrics_->set(d.g_ready, t, ready);
  metrics_->set(d.g_pending, t, pending);
  metrics_->set(d.g_unplaced, t, d.unplaced);
  for (std::size_t z = 0; z < d.zone_names.size(); ++z) {
    metrics_->set(d.zone_gauges[z].target, t, d.targets[z]);
    metrics_->set(d.zone_gauges[z].ready, t, zone_ready[z]);
  }
}

// ---- operator actions ------------------------------------------------------------------

void KubeControlPlane::set_hpa_compensation(std::string_view service, std::optional<std::string> zone) {
  Deployment& d = deployment(service);
  if (!d.hpa) throw SimulationError("kubernetes: no HPA scales " + quote(service) + " to compensate");
  d.hpa_compensation_zone = zone ? std::optional<std::uint32_t>(zone_index(d, *zone)) : std::nullopt;
  d.hpa_compensation_kept = zone ? static_cast<std::int32_t>(d.targets[*d.hpa_compensation_zone]) : 0;
  log_event(event_kinds::hpa::kCompensation, std::string(service) + (zone ? ": computed without zone " + *zone +
                                                                                ", whose replicas "
                                                                                "are kept on top"
                                                                          : ": cancelled"));
}

void KubeControlPlane::set_replica_compensation(std::string_view service, std::string_view zone, bool on) {
  Deployment& d = deployment(service);
  const std::uint32_t z = zone_index(d, zone);
  const auto di = static_cast<std::size_t>(&d - deployments_.data());
  auto it = std::find_if(d.replica_compensation.begin(), d.replica_compensation.end(),
                         [z](const auto& c) { return c.first == z; });
  if (on && it == d.replica_compensation.end()) {
    const auto extra = static_cast<std::int32_t>(d.targets[z]);
    d.replica_compensation.emplace_back(z, extra);
    log_event(event_kinds::deployment::kCompensation, std::string(service) + ": replicas " +
                                                          std::to_string(d.replicas) + " + " + std::to_string(extra) +
                                                          " of zone " + std::string(zone));
    set_replicas(di, d.replicas + extra);
  } else if (!on && it != d.replica_compensation.end()) {
    const std::int32_t extra = it->second;
    d.replica_compensation.erase(it);
    log_event(event_kinds::deployment::kCompensation, std::string(service) + ": cancelled, replicas " +
                                                          std::to_string(d.replicas) + " - " + std::to_string(extra));
    set_replicas(di, d.replicas - extra);
  }
}

void KubeControlPlane::set_policy(std::string_view service, std::optional<DeploymentPolicyConfig> policy) {
  Deployment& d = deployment(service);
  const auto di = static_cast<std::size_t>(&d - deployments_.data());
  d.policy = policy ? *policy : d.config.policy;
  log_event(event_kinds::deployment::kPolicy, std::string(service) + ": policy " + d.policy.kind +
                                                  (policy ? " (changed)" : " (restored)") +
                                                  "; rollout to a fresh split");
  apply_split(d, fresh_split(d.policy, zone_states(d), static_cast<std::uint32_t>(d.replicas)));
  d.rolling = true;
  reconcile(di);
}

void KubeControlPlane::restart(std::string_view service) {
  Deployment& d = deployment(service);
  ++d.revision;
  d.rolling = true;
  log_event(event_kinds::deployment::kRestart, std::string(service) + ": revision " + std::to_string(d.revision) +
                                                   ", every pod replaced within maxSurge and maxUnavailable");
  reconcile(static_cast<std::size_t>(&d - deployments_.data()));
}

void KubeControlPlane::scale(std::string_view service, std::int32_t replicas) {
  Deployment& d = deployment(service);
  set_replicas(static_cast<std::size_t>(&d - deployments_.data()), replicas);
}

// ---- read-outs ---------------------------------------------------------------------

std::int32_t KubeControlPlane::replicas(std::string_view service) const { return deployment(service).replicas; }

std::uint32_t KubeControlPlane::zone_target(std::string_view service, std::string_view zone) const {
  const Deployment& d = deployment(service);
  return d.targets[zone_index(d, zone)];
}

std::uint32_t KubeControlPlane::pods_in_zone(std::string_view service, std::string_view zone) const {
  const Deployment& d = deployment(service);
  const std::uint32_t z = zone_index(d, zone);
  return static_cast<std::uint32_t>(
      std::count_if(d.pods.begin(), d.pods.end(), [&](std::size_t p) { return pods_[p].zone == z; }));
}

std::uint32_t KubeControlPlane::ready_in_zone(std::string_view service, std::string_view zone) const {
  const Deployment& d = deployment(service);
  const std::uint32_t z = zone_index(d, zone);
  return static_cast<std::uint32_t>(
      std::count_if(d.pods.begin(), d.pods.end(), [&](std::size_t p) { return pods_[p].zone == z && pods_[p].ready; }));
}

std::uint32_t KubeControlPlane::pending(std::string_view service) const {
  const Deployment& d = deployment(service);
  return static_cast<std::uint32_t>(
      std::count_if(d.pods.begin(), d.pods.end(), [&](std::size_t p) { return !pods_[p].bound; }));
}

std::uint32_t KubeControlPlane::unplaced(std::string_view service) const { return deployment(service).unplaced; }

std::uint32_t KubeControlPlane::nodes_in_zone(std::string_view zone) const {
  if (!cluster_) return 0;
  std::uint32_t n = 0;
  for (const NodePool& pool : cluster_->pools()) {
    if (pool.zone == zone) n += pool.nodes;
  }
  return n;
}

}  // namespace drsim

#include "models/service/service.h"

#include <algorithm>
#include <cmath>

#include "models/data/tcp_config.h"
#include "models/service/service_event_kinds.h"
#include "models/topology/network_model.h"
#include "sim/errors.h"
#include "sim/simulation.h"
#include "sim/units.h"

namespace drsim {

namespace {
ServiceConfig checked(ServiceConfig config) {
  const auto problems = config.validate();
  if (!problems.empty()) {
    throw SimulationError("service \"" + config.name + "\": " + problems.front().field + ": " +
                          problems.front().message);
  }
  return config;
}
// One distribution per operation, by operation index.
std::vector<ServiceTimeDistribution> service_times_of(const ServiceConfig& config) {
  std::vector<ServiceTimeDistribution> out;
  out.reserve(config.operation_count());
  for (std::size_t op = 0; op < config.operation_count(); ++op) out.emplace_back(config.service_time_of(op));
  return out;
}
std::vector<std::uint32_t> cpu_millicores_of(const ServiceConfig& config) {
  std::vector<std::uint32_t> out;
  for (std::size_t op = 0; op < config.operation_count(); ++op) {
    out.push_back(static_cast<std::uint32_t>(config.cpu_millicores_of(op)));
  }
  return out;
}
}  // namespace

Service::Service(ServiceConfig config, FailureDomains* domains, Duration metrics_window)
    : Component("service/" + config.name),
      config_(checked(std::move(config))),
      domains_(domains),
      service_times_(service_times_of(config_)),
      cpu_millicores_(cpu_millicores_of(config_)),
      pods_(config_, domains_),
      balancer_(config_, pods_),
      calls_(config_, pods_, *this, *this, *this),
      meter_(config_, pods_, metrics_window),
      refuse_on_failure_(config_.zone_failure == "refuse"),
      honours_deadlines_(config_.deadlines == "propagate"),
      event_loop_(config_.event_loop()) {
  meter_.use_cpu_clocks(cpu_clocks_);
  for (std::size_t z = 0; z < config_.replicas.size(); ++z) {
    for (std::uint32_t i = 0; i < config_.replicas[z].replicas; ++i) add_pod(z, true);
  }
}

std::size_t Service::add_pod(std::size_t z, bool ready) {
  // A pod added while its zone is down waits for the zone like the others.
  const std::optional<ZoneIndex> where = pods_.zone(z).topology_zone;
  const bool up = domains_ == nullptr || !where || domains_->zone_up(*where);
  // The oracle lists a pod the moment it can take work. kube-proxy and a
  // load balancer list the pods of the starting state at once; kube-proxy
  // lists a later one at its next sync, a balancer once its checks pass.
  bool listed = up && ready;
  if (!oracle()) listed = ready && !attached();
  const std::size_t p = pods_.add(z, ready, up, listed, clock_ns());
  if (pods_.cpu_held()) {
    cpu_clocks_.resize(p + 1);
    cpu_clocks_[p].emplace(new_pod_quota(), clock_ns());
    retune_cpu(p);
  }
  ++endpoints_version_;
  if (view_ == EndpointView::kKubeProxy && ready && !listed) queue_endpoint_sync(p);
  if (meter_.records_pod_series() && attached()) meter_.declare_pod_series(pods_.pod(p));
  calls_.sync_pools(p);
  if (pod_added_ && attached()) pod_added_(p);
  return p;
}

std::optional<CfsBandwidth> Service::new_pod_quota() const {
  if (!config_.cpu.limit) return std::nullopt;
  // The cgroup's period timer starts with the container.
  return CfsBandwidth(config_.cpu.limit->millicores, to_ns(config_.cpu.quota_period), clock_ns());
}

void Service::retune_held_cpu(std::size_t p) {
  ServicePod& pod = pods_.pod(p);
  PodCpuClock& clock = *cpu_clocks_[p];
  const std::int64_t t = clock_ns();
  pod.accrue(t);  // the CPU used so far, at the rate it ran at
  const NodeSeat seat = p < node_seats_.size() ? node_seats_[p] : NodeSeat{};
  std::optional<std::int64_t> available;
  if (seat.node != nullptr && seat.node->share(seat.member) != NodeCpu::kUnlimited) {
    available = seat.node->share(seat.member);
  }
  const std::int64_t ask = pods_.cpu_ask(pod);
  const bool speed_changed = clock.retune(t, ask, available);
  pod.cpu_rate = clock.rate();
  if (!attached()) return;  // nothing computes before the run starts
  if (speed_changed) {
    for (std::size_t slot = 0; slot < pod.slots.size(); ++slot) {
      WorkerSlot& s = pod.slots[slot];
      if (!s.in_work) continue;
      cancel(s.work);
      s.work = EventId{};
      if (const auto at = clock.when(s.work_end, t)) {
        s.work = schedule_at(SimTime{Duration{*at}}, "service.work_done", [this, p, slot] { work_done(p, slot); });
      }
    }
  }
  cancel(clock.event);
  clock.event = EventId{};
  if (const auto at = clock.next_change(t)) {
    clock.event = schedule_at(SimTime{Duration{*at}}, "service.cpu_quota", [this, p] {
      cpu_clocks_[p]->event = EventId{};
      retune_cpu(p);
    });
  }
  // Last: the node may retune other pods, and this one again, at once. A throttled pod asks for nothing.
  if (seat.node != nullptr) seat.node->set_ask(seat.member, clock.throttled() || !pod.present ? 0 : ask);
}

void Service::share_node_cpu() {
  for (const ServicePod& pod : pods_.pods()) {
    if (pod.computing > 0) {
      throw SimulationError("service \"" + config_.name + "\": share_node_cpu before its pods compute");
    }
  }
  if (!pods_.cpu_held()) {
    pods_.hold_cpu();
    cpu_clocks_.resize(pod_total());
    for (std::size_t p = 0; p < pod_total(); ++p) {
      cpu_clocks_[p].emplace(new_pod_quota(), clock_ns());
      retune_cpu(p);
    }
  }
}

void Service::place_on_node(std::size_t p, NodeCpu& node) {
  if (!pods_.cpu_held()) throw SimulationError("service \"" + config_.name + "\": place_on_node before share_node_cpu");
  if (node_seats_.size() <= p) node_seats_.resize(p + 1);
  node_seats_[p] = NodeSeat{&node, node.join(*this, p, config_.cpu_request().millicores)};
  retune_cpu(p);
}

void Service::cpu_share_changed(std::size_t p) { retune_cpu(p); }

void Service::retire_pod(std::size_t p) {
  const auto position = pods_.retire(p, clock_ns());
  retune_cpu(p);  // it asks its node for nothing from now on
  if (p < node_seats_.size() && node_seats_[p].node != nullptr) {
    node_seats_[p].node->leave(node_seats_[p].member);
    node_seats_[p] = NodeSeat{};
  }
  ++endpoints_version_;
  calls_.sync_pools(p);
  if (position) balancer_.forget(pods_.pod(p).zone, *position);
}

std::size_t Service::start_pod(std::size_t z, bool ready) {
  if (z >= zone_count()) throw SimulationError("service \"" + config_.name + "\": no zone " + std::to_string(z));
  const std::size_t p = add_pod(z, ready);
  update_gauges(z);
  return p;
}

void Service::set_pod_ready(std::size_t p, bool ready) {
  ServicePod& pod = pods_.pods().at(p);
  if (pod.ready == ready || !pod.present) return;
  const bool oracle_view = oracle();
  change_pod(p, [ready, oracle_view](ServicePod& changed) {
    changed.ready = ready;
    if (oracle_view) changed.listed = changed.up && ready;
  });
  // A balancer's health checks find the change at their own pace.
  if (view_ == EndpointView::kKubeProxy) queue_endpoint_sync(p);
  update_gauges(pod.zone);
}

void Service::use_load_balancer(EntryNodes& nodes, const LoadBalancerSettings& settings) {
  if (attached()) throw SimulationError("service \"" + config_.name + "\": use_load_balancer before the run starts");
  view_ = EndpointView::kLoadBalancer;
  entry_nodes_ = &nodes;
  load_balancer_ = settings;
  balancer_.fail_open(true);
  for (std::size_t p = 0; p < pod_total(); ++p) {
    change_pod(p, [](ServicePod& pod) { pod.listed = pod.ready; });
  }
}

void Service::set_pod_listed(std::size_t p, bool listed) {
  ServicePod& pod = pods_.pods().at(p);
  if (pod.listed == listed || !pod.present) return;
  change_pod(p, [listed](ServicePod& changed) { changed.listed = listed; });
  update_gauges(pod.zone);
}

void Service::use_kube_proxy(Duration min_sync_period) {
  if (attached()) throw SimulationError("service \"" + config_.name + "\": use_kube_proxy before the run starts");
  view_ = EndpointView::kKubeProxy;
  kube_proxy_min_sync_ = min_sync_period;
  for (std::size_t p = 0; p < pod_total(); ++p) {
    change_pod(p, [](ServicePod& pod) { pod.listed = pod.ready; });
  }
}

void Service::use_mesh_endpoints(Duration debounce) {
  use_kube_proxy(Duration::zero());
  endpoint_push_delay_ = debounce;
  meshed_ = true;
}

void Service::queue_endpoint_sync(std::size_t p) {
  unsynced_pods_.push_back(p);
  if (endpoint_sync_scheduled_) return;
  endpoint_sync_scheduled_ = true;
  // kube-proxy applies what it has heard at once, unless it synced less than
  // minSyncPeriod ago: then when that period is up (its rate limiter).
  // istiod pushes its debounce after the first change it hears of; changes
  // heard meanwhile go in the same push.
  SimTime at = now() + endpoint_push_delay_;
  if (last_endpoint_sync_) at = std::max(at, *last_endpoint_sync_ + *kube_proxy_min_sync_);
  schedule_at(at, "service.endpoints_sync", [this] { sync_endpoints(); });
}

void Service::sync_endpoints() {
  endpoint_sync_scheduled_ = false;
  last_endpoint_sync_ = now();
  std::uint32_t added = 0, removed = 0;
  std::vector<std::size_t> zones;
  for (const std::size_t p : unsynced_pods_) {
    ServicePod& pod = pods_.pod(p);
    // What the API server says now: a pod that went ready and back is no change.
    if (!pod.present || pod.listed == pod.ready) continue;
    const bool listed = pod.ready;
    change_pod(p, [listed](ServicePod& changed) { changed.listed = listed; });
    ++(listed ? added : removed);
    zones.push_back(pod.zone);
  }
  unsynced_pods_.clear();
  std::sort(zones.begin(), zones.end());
  zones.erase(std::unique(zones.begin(), zones.end()), zones.end());
  for (const std::size_t z : zones) update_gauges(z);
  if (added + removed > 0) {
    log_event(event_kinds::endpoints::kUpdated, config_.name + ": kube-proxy synced, " + std::to_string(added) +
                                                    " pods added, " + std::to_string(removed) + " removed");
  }
}

void Service::remove_pod(std::size_t p) {
  ServicePod& pod = pods_.pods().at(p);
  if (!pod.present || pod.terminating) return;
  if (pod.outstanding() == 0 || !pod.up) {
    // Nothing to finish (a pod of a failed zone has lost what it held).
    retire_pod(p);
  } else {
    change_pod(p, [](ServicePod& leaving) { leaving.terminating = true; });
  }
  update_gauges(pod.zone);
}

void Service::restart_pod(std::size_t p) {
  pods_.pods().at(p).crashed = false;
  calls_.sync_pools(p);
}

void Service::kill_pod(std::size_t p) {
  ServicePod& pod = pods_.pods().at(p);
  if (!pod.present) return;
  std::vector<std::pair<JobOwner*, std::uint64_t>> refused;
  drop_work(p, true, refused);
  retire_pod(p);
  update_gauges(pod.zone);
  for (const auto& [owner, token] : refused) owner->on_served(token, ServeOutcome::kRefused);
}

void Service::attach() {
  meter_.attach(recorder());
  calls_.attach(sim(), id(), rng(), meter_.metrics());
  span_service_ = sim().spans().intern(config_.name);
  span_operations_.clear();
  for (std::size_t op = 0; op < config_.operation_count(); ++op)
    span_operations_.push_back(sim().spans().intern(config_.span_name(op)));
  meter_.declare_pod_series();
  if (domains_ != nullptr) domains_->on_change([this] { on_topology_change(); });
}

void Service::start() {
  // Which path tells this service's callers that a pod died: part of every run's record, so that no figure
  // rests on the oracle without saying so.
  if (oracle()) {
    log_event(event_kinds::discovery::kPath,
              config_.name + ": oracle (callers stop using a pod the instant it or its zone dies; no detection "
                             "delay is modelled)");
  } else if (view_ == EndpointView::kLoadBalancer) {
    log_event(event_kinds::discovery::kPath,
              config_.name + ": loadBalancer (the balancer's target health checks, and its DNS answer of nodes per "
                             "zone as callers cache it; settings in lb.settings)");
  } else if (config_.discovery == "grpc") {
    log_event(event_kinds::discovery::kPath,
              config_.name + ": grpc (its callers' channels: long-lived connections that break on a reset, an "
                             "unanswered keepalive ping or TCP's give-up, re-resolved only then; populations through "
                             "kube-proxy with minSyncPeriod " + format_duration(*kube_proxy_min_sync_) + ")");
  } else if (meshed_) {
    log_event(event_kinds::discovery::kPath,
              config_.name + ": mesh (its callers' sidecars: readiness and the node lifecycle controller, pushed by "
                             "istiod after " + format_duration(endpoint_push_delay_) +
                             ", then each sidecar's outlier detection and locality failover; populations through "
                             "kube-proxy)");
  } else {
    log_event(event_kinds::discovery::kPath,
              config_.name + ": kubernetes (readiness and the node lifecycle controller, then kube-proxy with "
                             "minSyncPeriod " + format_duration(*kube_proxy_min_sync_) + ")");
  }
  if (domains_ != nullptr) on_topology_change();
  for (std::size_t p = 0; p < pod_total(); ++p) calls_.sync_pools(p);
  for (std::size_t z = 0; z < zone_count(); ++z) update_gauges(z);
  meter_.start(now());
  // The usage series are written once per window boundary, in step with the
  // other windowed series (a point is stamped at its window's start).
  schedule_at(meter_.next_window(now()), "service.usage_window", [this] { usage_tick(); });
}

void Service::bring_cpu_clocks_to_now() {
  if (!pods_.cpu_held()) return;
  for (std::size_t p = 0; p < pod_total(); ++p) {
    if (pods_.pod(p).present) retune_cpu(p);
  }
}

void Service::usage_tick() {
  bring_cpu_clocks_to_now();  // the throttling counters the window reads
  meter_.write_window(now());
  schedule_after(meter_.window(), "service.usage_window", [this] { usage_tick(); });
}

Service::PodUsage Service::pod_usage(std::size_t p) const { return meter_.pod_usage(p, clock_ns()); }

double Service::pod_cpu_core_seconds(std::size_t p) const { return meter_.pod_cpu_core_seconds(p, clock_ns()); }

std::uint32_t Service::pods(std::size_t zone) const { return pods_.taking_work(zone); }

std::optional<std::size_t> Service::find_zone(std::string_view name) const { return pods_.find_zone(name); }

void Service::set_slowdown(double factor) {
  if (!(factor > 0)) throw SimulationError("slowdown factor must be positive");
  slowdown_ = factor;
}

void Service::set_replicas(std::size_t z, std::uint32_t n) {
  if (z >= zone_count()) throw SimulationError("service \"" + config_.name + "\": no zone " + std::to_string(z));
  std::uint32_t current = pods(z);
  // Pod start-up (image pull, readiness probe) is the Kubernetes model's
  // business: without one, a new pod is ready at once.
  for (; current < n; ++current) add_pod(z, true);
  if (current > n) {
    std::uint32_t excess = current - n;
    const std::vector<std::size_t> members = pods_.zone(z).pods;
    // Idle pods go first, newest first; then busy ones stop taking work and
    // leave once they have finished what they hold.
    for (int pass = 0; pass < 2 && excess > 0; ++pass) {
      for (auto it = members.rbegin(); it != members.rend() && excess > 0; ++it) {
        const ServicePod& pod = pods_.pod(*it);
        if (!pod.present || pod.terminating) continue;
        const bool idle = pod.outstanding() == 0;
        if (pass == 0 && !idle) continue;
        if (idle) {
          retire_pod(*it);
        } else {
          change_pod(*it, [](ServicePod& leaving) { leaving.terminating = true; });
        }
        --excess;
      }
    }
  }
  update_gauges(z);
}

std::uint32_t Service::kill_pods(std::size_t z, std::uint32_t n) {
  if (z >= zone_count()) throw SimulationError("service \"" + config_.name + "\": no zone " + std::to_string(z));
  std::vector<std::pair<JobOwner*, std::uint64_t>> refused;
  std::vector<std::size_t> victims;
  for (std::size_t p : pods_.zone(z).pods) {
    if (victims.size() == n) break;
    const ServicePod& pod = pods_.pod(p);
    if (!pod.present || pod.terminating || pod.crashed) continue;
    victims.push_back(p);
  }
  for (std::size_t p : victims) {
    drop_work(p, true, refused);
    if (pod_killed_) {
      // A control plane runs this pod: its container died, the pod object
      // stays. The endpoints still list it until its readiness probe fails,
      // so what reaches it meanwhile is refused; the kubelet restarts it.
      pods_.pod(p).crashed = true;
      calls_.sync_pools(p);
    } else {
      retire_pod(p);
    }
  }
  const auto killed = static_cast<std::uint32_t>(victims.size());
  update_gauges(z);
  // The control plane hears before the callers, so that a replacement can
  // be on its way when they retry.
  if (pod_killed_) {
    for (std::size_t p : victims) pod_killed_(p);
  }
  // Owners hear after the state is consistent: they may submit again at once.
  for (const auto& [owner, token] : refused) owner->on_served(token, ServeOutcome::kRefused);
  return killed;
}

void Service::drop_work(std::size_t p, bool refuse, std::vector<std::pair<JobOwner*, std::uint64_t>>& refused) {
  ServicePod& pod = pods_.pod(p);
  ServiceZone& zone = pods_.zone(pod.zone);
  for (std::size_t slot = 0; slot < pod.slots.size(); ++slot) {
    const WorkerSlot& s = pod.slots[slot];
    if (!s.occupied) continue;
    cancel(s.work);  // no-op when the job is waiting on its calls
    if (refuse) refused.emplace_back(s.job.owner, s.job.token);
    release_slot(pod, slot);
  }
  zone.busy -= event_loop_ ? pod.computing : pod.busy;
  pod.run_queue.clear();
  change_pod_work(p, [](ServicePod& emptied) {
    emptied.busy = 0;
    emptied.computing = 0;
    emptied.cpu_demand = 0;
  });
  retune_cpu(p);
  if (refuse) {
    for (std::size_t i = 0; i < pod.queue.size(); ++i) refused.emplace_back(pod.queue[i].owner, pod.queue[i].token);
  }
  zone.queued -= pod.queue.size();
  pod.queue.clear();
}

std::uint32_t Service::busy_workers(std::size_t zone) const { return pods_.zone(zone).busy; }
std::size_t Service::queued(std::size_t zone) const { return pods_.zone(zone).queued; }

void Service::set_cut_ratio(std::size_t zone, double ratio) { balancer_.set_cut_ratio(zone, ratio); }

std::optional<Duration> Service::network_delay(std::uint32_t caller_zone, std::size_t z, bool towards_service) {
  const auto& target = pods_.zone(z).topology_zone;
  if (domains_ == nullptr || caller_zone == kNoCallerZone || !target) return Duration::zero();
  const ZoneIndex caller = caller_zone;
  // sample_delay rather than sample_one_way: no std::optional crosses the
  // call (see NetworkModel::sample_delay), only this function's own result.
  const NetworkModel& network = domains_->network();
  const Duration delay = towards_service ? network.sample_delay(caller, *target, rng())
                                         : network.sample_delay(*target, caller, rng());
  if (delay == NetworkModel::kUndelivered) return std::nullopt;
  return delay;
}

bool Service::serves_region(RegionIndex r) const {
  for (const ServiceZone& zone : pods_.zones()) {
    if (zone.region == r) return true;
  }
  return false;
}

// The balancer decides at send time, as a client-side balancer does; the
// request then crosses the network to the chosen zone.
std::optional<ServeOutcome> Service::submit(Job job, std::optional<ZoneIndex> caller_zone,
                                            std::optional<RegionIndex> region, std::optional<ZoneIndex> preferred_zone) {
  // A coloured request (preferred_zone) is served as if it came from that zone.
  const std::optional<ZoneIndex> home = preferred_zone ? preferred_zone : caller_zone;
  const std::optional<RegionIndex> caller_region = region_of_caller(home);
  // Region affinity: stay in the caller's region while one of its zones has an idle worker.
  if (!region) region = balancer_.home_region(caller_region);
  // Zone affinity keeps the request in the caller's own zone, through that zone's node when behind a balancer.
  std::optional<std::size_t> z = balancer_.local_zone(home, region);
  if (!z && entry_nodes_ != nullptr) {
    // Behind a load balancer the request first reaches one of its nodes, at an address the caller resolved.
    // The balancer is regional: without a region chosen, a caller uses its own region's when there is one.
    if (!region && caller_region && serves_region(*caller_region)) region = caller_region;
    if (const auto entry = entry_nodes_->pick_entry(region)) {
      if (!entry->alive) {
        // The node's zone is down: the connection goes nowhere (or is reset), and the request counts as
        // that zone's traffic, as a request sent to a pod there does.
        if (attached() && !job.probe) meter_.arrived(entry->zone, now());
        if (refuse_on_failure_) return ServeOutcome::kRefused;
        lost_behind_balancer(job.owner, job.token, false, false);
        return std::nullopt;
      }
      region = pods_.zone(entry->zone).region;
      if (entry_nodes_->zonal()) z = entry->zone;
    }
  }
  if (!z) z = balancer_.pick_zone(home, region, rng());
  if (!z) return ServeOutcome::kNoTarget;
  job.caller_zone = caller_zone ? static_cast<std::uint32_t>(*caller_zone) : kNoCallerZone;
  return send(job, *z, kAnyPod, caller_region);
}

std::optional<ServeOutcome> Service::submit_to_pod(Job job, std::optional<ZoneIndex> caller_zone, std::size_t pod) {
  job.caller_zone = caller_zone ? static_cast<std::uint32_t>(*caller_zone) : kNoCallerZone;
  return send(job, pods_.pod(pod).zone, static_cast<std::uint32_t>(pod), region_of_caller(caller_zone));
}

std::optional<RegionIndex> Service::region_of_caller(std::optional<ZoneIndex> caller_zone) const {
  if (!caller_zone || domains_ == nullptr || *caller_zone >= domains_->topology().zone_count()) return std::nullopt;
  return domains_->topology().region_of(*caller_zone);
}

std::optional<ServeOutcome> Service::send(Job job, std::size_t z, std::uint32_t pod,
                                          std::optional<RegionIndex> caller_region) {
  if (job.operation >= service_times_.size()) [[unlikely]] {
    throw SimulationError("service \"" + config_.name + "\" has no operation " + std::to_string(job.operation));
  }
  const std::optional<RegionIndex>& served_in = pods_.zone(z).region;
  if (caller_region && served_in && *served_in != *caller_region && attached()) meter_.crossed_region(now());
  auto delay = network_delay(job.caller_zone, z, true);
  // Connection set-up: each round trip samples both ways, so jitter and loss
  // hit the handshake packets as they hit the request.
  for (std::uint8_t k = 0; delay && k < job.setup_round_trips; ++k) {
    const auto there = network_delay(job.caller_zone, z, true);
    const auto back = network_delay(job.caller_zone, z, false);
    delay = there && back ? std::optional<Duration>(*delay + *there + *back) : std::nullopt;
  }
  if (!delay) {
    // Unreachable: the request is lost and the caller's timeout ends it. Sent to a zone that is down, it
    // still counts as that zone's traffic: what tells when callers stopped sending there.
    const std::optional<ZoneIndex>& target = pods_.zone(z).topology_zone;
    const bool zone_down = target && !domains_->zone_up(*target);
    if (zone_down && !job.probe) meter_.arrived(z, now());
    // Behind a balancer a live node took the connection and answers for a dead target; a path cut between
    // the caller and the balancer leaves the caller's connect unanswered.
    if (load_balancer_) {
      lost_behind_balancer(job.owner, job.token, zone_down, false);
    } else {
      unacknowledged(job);
    }
    return std::nullopt;
  }
  if (*delay == Duration::zero()) return deliver(z, job, pod);
  // The job waits in a pooled record while it crosses the network: an event's callable holds an index, not
  // the job (it would not fit the event queue's inline slot).
  std::uint32_t record;
  if (free_transit_.empty()) {
    record = static_cast<std::uint32_t>(in_transit_.size());
    in_transit_.push_back({job, static_cast<std::uint32_t>(z), pod});
  } else {
    record = free_transit_.back();
    free_transit_.pop_back();
    in_transit_[record] = {job, static_cast<std::uint32_t>(z), pod};
  }
  schedule_after(*delay, "service.request_arrives", [this, record] {
    const InTransit arrived = in_transit_[record];
    free_transit_.push_back(record);
    if (const auto failure = deliver(arrived.zone, arrived.job, arrived.pod)) {
      respond(arrived.job, arrived.zone, *failure);
    }
  });
  return std::nullopt;
}

void Service::respond(const Job& job, std::size_t from_zone, ServeOutcome outcome) {
  const auto delay = network_delay(job.caller_zone, from_zone, false);
  if (!delay) return;  // the answer cannot get back: the caller times out
  if (*delay == Duration::zero()) {
    job.owner->on_served(job.token, outcome);
    return;
  }
  schedule_after(*delay, "service.response_arrives",
                 [owner = job.owner, token = job.token, outcome] { owner->on_served(token, outcome); });
}

std::optional<ServeOutcome> Service::deliver(std::size_t z, Job job, std::uint32_t chosen) {
  // Sent to a dead target: a balancer in front answers by its rules; otherwise refused, or a black hole
  // (accepted by nobody, answered never).
  const auto lost_at_target = [&]() -> std::optional<ServeOutcome> {
    if (load_balancer_) {
      lost_behind_balancer(job.owner, job.token, true, false);
      return std::nullopt;
    }
    if (refuse_on_failure_) return ServeOutcome::kRefused;
    unacknowledged(job);
    return std::nullopt;
  };
  std::optional<std::size_t> p;
  if (chosen == kAnyPod) {
    p = balancer_.pick_pod(z, rng());
    // Every pod of the zone went down while the request was on its way.
    if (!p) return lost_at_target();
  } else {
    // Sent to a pod's address: once the pod is gone its node resets the connection, if the node is up.
    if (!pods_.pod(chosen).present) {
      if (pods_.pod(chosen).up) return ServeOutcome::kRefused;
      return lost_at_target();
    }
    p = chosen;
  }
  ServicePod& pod = pods_.pod(*p);
  const SimTime t = now();
  if (pod.up || !job.probe) meter_.arrived(z, t);
  if (!pod.up) [[unlikely]] {
    // Still listed (kube-proxy or the balancer has not found out yet) but its zone is gone: sent to the zone,
    // served by nobody.
    return lost_at_target();
  }
  job.arrived = t;
  if (pod.crashed) [[unlikely]] {
    return ServeOutcome::kRefused;  // nothing listens: the connection is reset
  }
  if (honours_deadlines_ && job.deadline <= t) [[unlikely]] {
    ++deadline_drops_;  // its caller gave up on the way: gRPC answers DEADLINE_EXCEEDED without running it
    return ServeOutcome::kDeadlineExceeded;
  }
  if (pod.busy < pods_.slots_per_pod()) {
    begin_service(*p, job);
  } else {
    if (config_.queue_limit && pod.queue.size() >= *config_.queue_limit) {
      meter_.rejected(z, t);
      return ServeOutcome::kRejected;
    }
    meter_.waited(z, t);
    pod.queue.push_back(job);
    ++pods_.zone(z).queued;
  }
  update_gauges(z);
  return std::nullopt;
}

void Service::release_slot(ServicePod& pod, std::size_t slot) {
  WorkerSlot& s = pod.slots[slot];
  cancel(s.deadline);
  s.deadline = EventId{};
  calls_.drop(s);
  if (s.span != 0) {
    // finish has ended it with its outcome; a request dropped with its pod ends here, failed.
    sim().spans().end_span(s.span, now(), true);
    s.span = 0;
  }
  pods_.release_slot(pod, slot);
}

void Service::begin_service(std::size_t p, Job job) {
  ServicePod& pod = pods_.pod(p);
  const std::size_t slot = pods_.take_slot(pod);
  WorkerSlot& s = pod.slots[slot];
  s.job = job;
  s.span = job.trace_parent == 0 ? 0
                                 : sim().spans().start_span(job.trace_parent, SpanRecorder::Kind::kServer,
                                                            span_service_, span_operations_[job.operation], now());
  if (event_loop_ && pod.computing >= config_.concurrency) {
    // Every thread is computing: the request waits in the run queue, holding its place in flight.
    change_pod_work(p, [](ServicePod& taken) { ++taken.busy; });
    s.waiting_for_thread = true;
    pod.run_queue.push_back({static_cast<std::uint32_t>(slot), s.generation});
  } else {
    const std::uint32_t cpu = cpu_millicores_[job.operation];
    change_pod_work(p, [cpu](ServicePod& taken) {
      ++taken.busy;
      ++taken.computing;
      taken.cpu_demand += cpu;
    });
    ++pods_.zone(pod.zone).busy;
    start_work(p, slot);
  }
  if (honours_deadlines_ && job.deadline != kSimTimeMax) {
    pod.slots[slot].deadline =
        schedule_at(job.deadline, "service.deadline", [this, p, slot] { deadline_passed(p, slot); });
  }
}

void Service::start_work(std::size_t p, std::size_t slot) {
  WorkerSlot& s = pods_.pod(p).slots[slot];
  Duration d = service_times_[s.job.operation].sample(rng());
  if (slowdown_ != 1.0) d = Duration{static_cast<std::int64_t>(static_cast<double>(d.count()) * slowdown_)};
  s.cpu_millicores = cpu_millicores_[s.job.operation];
  if (!pods_.cpu_held()) {
    s.in_work = true;
    s.work = schedule_after(d, "service.work_done", [this, p, slot] { work_done(p, slot); });
    return;
  }
  // Its demand is counted already: the pod's clock learns of it before this request's end is placed on it.
  retune_cpu(p);
  const PodCpuClock& clock = *cpu_clocks_[p];
  const std::int64_t t = clock_ns();
  s.in_work = true;
  s.work_end = clock.progress(t) + static_cast<double>(d.count());
  if (const auto at = clock.when(s.work_end, t)) {
    s.work = schedule_at(SimTime{Duration{*at}}, "service.work_done", [this, p, slot] { work_done(p, slot); });
  }
}

void Service::thread_freed(std::size_t p) {
  ServicePod& pod = pods_.pod(p);
  --pods_.zone(pod.zone).busy;
  while (!pod.run_queue.empty()) {
    const RunQueueEntry next = pod.run_queue.front();
    pod.run_queue.pop_front();
    WorkerSlot& s = pod.slots[next.slot];
    if (s.generation != next.generation || !s.waiting_for_thread) continue;  // it ended while it waited
    s.waiting_for_thread = false;
    const std::uint32_t cpu = cpu_millicores_[s.job.operation];
    change_pod_work(p, [cpu](ServicePod& taken) {
      ++taken.computing;
      taken.cpu_demand += cpu;
    });
    ++pods_.zone(pod.zone).busy;
    start_work(p, next.slot);
    break;
  }
  update_gauges(pod.zone);  // utilisation follows the threads computing
}

void Service::deadline_passed(std::size_t p, std::size_t slot) {
  ServicePod& pod = pods_.pod(p);
  WorkerSlot& s = pod.slots[slot];
  s.deadline = EventId{};
  ++deadline_cancels_;
  if (s.in_work) {
    // Still running its own work: the handler returns when its context is cancelled.
    cancel(s.work);
    s.work = EventId{};
    s.in_work = false;
    const std::uint32_t cpu = s.cpu_millicores;
    change_pod_work(p, [cpu](ServicePod& stopped) {
      --stopped.computing;
      stopped.cpu_demand -= cpu;
    });
    retune_cpu(p);
    if (event_loop_) thread_freed(p);
  }
  s.waiting_for_thread = false;  // its run-queue entry is stale from now on
  finish(p, slot, ServeOutcome::kDeadlineExceeded);  // its calls under way are dropped with the slot
}

void Service::connect_calls(const FindService& find_service, const FindDatabase& find_database) {
  calls_.connect(find_service, find_database);
}

const ConnectionPool* Service::pod_pool(std::size_t pod, std::size_t database) const {
  return calls_.pod_pool(pod, database);
}

void Service::on_served(std::uint64_t token, ServeOutcome outcome) { calls_.served(token, outcome); }

Duration Service::unacknowledged_give_up(std::uint64_t token, bool new_connection) {
  return calls_.unacknowledged_give_up(token, new_connection);
}

Service::ProbeAnswer Service::probe_pod(std::optional<ZoneIndex> from, std::size_t p, bool connect_only) {
  const ServicePod& pod = pods_.pod(p);
  const std::uint32_t caller = from ? static_cast<std::uint32_t>(*from) : kNoCallerZone;
  const auto there = network_delay(caller, pod.zone, true);
  const auto back = network_delay(caller, pod.zone, false);
  if (!there || !back || !pod.up) return {};  // nothing answers: the check times out
  const bool accepts = connect_only ? pod.present && !pod.crashed : answers_health_check(p);
  return {accepts, *there + *back};
}

std::optional<std::size_t> Service::pick_endpoint(std::optional<ZoneIndex> caller_zone) {
  const std::optional<RegionIndex> region = balancer_.home_region(region_of_caller(caller_zone));
  std::optional<std::size_t> z = balancer_.local_zone(caller_zone, region);
  if (!z) z = balancer_.pick_zone(caller_zone, region, rng());
  if (!z) return std::nullopt;
  return balancer_.pick_pod(*z, rng());
}

void Service::on_query_done(std::uint64_t token, const QueryResult& result) {
  calls_.answer(token, CallClient::failure_of(result));
}

void Service::work_done(std::size_t p, std::size_t slot) {
  ServicePod& pod = pods_.pod(p);
  WorkerSlot& s = pod.slots[slot];
  const std::uint32_t cpu = s.cpu_millicores;
  change_pod_work(p, [cpu](ServicePod& done) {
    --done.computing;  // the worker now waits on its calls, or ends
    done.cpu_demand -= cpu;
  });
  s.work = EventId{};
  s.in_work = false;
  retune_cpu(p);
  // An event loop's thread goes to the next request waiting for one, before this request's calls can
  // bring new work in.
  if (event_loop_) thread_freed(p);
  calls_.begin(p, slot);
}

void Service::calls_over(std::size_t p, std::size_t slot, ServeOutcome outcome) { finish(p, slot, outcome); }

void Service::finish(std::size_t p, std::size_t slot, ServeOutcome outcome) {
  ServicePod& pod = pods_.pod(p);
  ServiceZone& zone = pods_.zone(pod.zone);
  const Job job = pod.slots[slot].job;
  if (pod.slots[slot].span != 0) sim().spans().end_span(pod.slots[slot].span, now(), outcome != ServeOutcome::kServed);
  release_slot(pod, slot);
  change_pod_work(p, [](ServicePod& freed) { --freed.busy; });
  if (!event_loop_) --zone.busy;  // an event loop's thread was freed when the request's own work ended
  const SimTime t = now();
  meter_.completed(pod.zone, t, t - job.arrived);
  ++pod.completed;
  pod.response_ns += to_ns(t - job.arrived);
  // Queued jobs whose callers have given up are answered, not run, when deadlines are honoured. They are
  // answered once the pod's state is settled: an answer may bring new work here.
  std::vector<Job> expired;
  while (honours_deadlines_ && !pod.queue.empty() && pod.queue.front().deadline <= t) {
    expired.push_back(pod.queue.front());
    pod.queue.pop_front();
    --zone.queued;
    ++deadline_drops_;
  }
  if (!pod.queue.empty()) {
    const Job next = pod.queue.front();
    pod.queue.pop_front();
    --zone.queued;
    begin_service(p, next);
  } else if (pod.terminating && pod.busy == 0) {
    retire_pod(p);  // scaled down: it has finished its work and goes
  }
  update_gauges(pod.zone);
  for (const RequestDoneListener& listener : request_done_) listener(pod.zone, outcome);
  respond(job, pod.zone, outcome);
  for (const Job& gone : expired) respond(gone, pod.zone, ServeOutcome::kDeadlineExceeded);
}

void Service::on_topology_change() {
  std::vector<std::pair<JobOwner*, std::uint64_t>> refused;
  for (std::size_t p = 0; p < pod_total(); ++p) {
    ServicePod& pod = pods_.pod(p);
    const ServiceZone& zone = pods_.zone(pod.zone);
    const bool up = !zone.topology_zone || domains_->zone_up(*zone.topology_zone);
    if (up == pod.up) continue;
    const bool oracle_view = oracle();
    change_pod(p, [up, oracle_view](ServicePod& changed) {
      changed.up = up;
      if (oracle_view) changed.listed = up && changed.ready;
    });
    retune_cpu(p);  // its idle CPU comes and goes with its zone
    calls_.sync_pools(p);
    if (up || !pod.present) continue;
    // The pod's zone failed: its queue and the jobs in service are gone. A
    // black hole tells nobody; a refusal resets every connection at once; a
    // balancer in front answers by its own rules. A terminating pod has
    // nothing left to finish: it is gone.
    drop_work(p, refuse_on_failure_ || load_balancer_.has_value(), refused);
    if (pod.terminating) retire_pod(p);
  }
  for (std::size_t z = 0; z < zone_count(); ++z) update_gauges(z);
  // Owners hear after the state is consistent: they may submit again at once.
  for (const auto& [owner, token] : refused) {
    if (load_balancer_) {
      lost_behind_balancer(owner, token, true, true);
    } else {
      owner->on_served(token, ServeOutcome::kRefused);
    }
  }
}

void Service::lost_behind_balancer(JobOwner* owner, std::uint64_t token, bool at_target, bool held) {
  const LoadBalancerSettings& lb = *load_balancer_;
  Duration after = Duration::zero();
  ServeOutcome outcome = ServeOutcome::kRefused;
  if (at_target && lb.proxy) {
    // An alb ends the caller's connection itself: 502 for a target that resets, 504 for one that never
    // accepts (connect timeout) or stops answering (idle timeout).
    outcome = ServeOutcome::kGatewayError;
    if (!refuse_on_failure_) after = held ? lb.idle_timeout : lb.target_connect_timeout;
  } else if (held) {
    // Passed through (nlb): a reset reaches the caller, silence does not.
    if (!refuse_on_failure_) return;
  } else if (!refuse_on_failure_) {
    // The caller's SYNs go unanswered until its operating system gives up.
    outcome = ServeOutcome::kConnectTimeout;
    after = lb.client_connect_timeout;
  }
  // Always through the queue: the caller hears after this call returns, as over a network.
  schedule_after(after, "service.balancer_answer", [owner, token, outcome] { owner->on_served(token, outcome); });
}

void Service::unacknowledged(const Job& job) {
  const Duration after = job.owner->unacknowledged_give_up(job.token, job.setup_round_trips > 0);
  schedule_after(after, "service.tcp_give_up", [owner = job.owner, token = job.token] {
    owner->on_served(token, ServeOutcome::kConnectTimeout);
  });
}

void Service::stop() {
  bring_cpu_clocks_to_now();
  meter_.finish(now());
  if (honours_deadlines_) {
    const Labels labels{{"service", config_.name}};
    recorder().kpi("service.deadline_drops", labels, static_cast<double>(deadline_drops_));
    recorder().kpi("service.deadline_cancels", labels, static_cast<double>(deadline_cancels_));
  }
  // What this service's sidecars ejected, per meshed service it calls.
  for (std::size_t n = 0; n < calls_.meshed_callees().size(); ++n) {
    recorder().kpi("mesh.ejections", {{"service", config_.name}, {"upstream", calls_.meshed_callees()[n]->config().name}},
                   static_cast<double>(calls_.mesh_ejections(n)));
  }
  // Connections its gRPC channels lost, per service called over them.
  for (std::size_t n = 0; n < calls_.grpc_callees().size(); ++n) {
    recorder().kpi("grpc.connection_breaks",
                   {{"service", config_.name}, {"upstream", calls_.grpc_callees()[n]->config().name}},
                   static_cast<double>(calls_.grpc_breaks(n)));
  }
}

std::uint64_t Service::memory_per_pod(const ServiceConfig& config) {
  return PodSet::memory_per_pod(config) + CallClient::memory_per_pod();
}

}  // namespace drsim

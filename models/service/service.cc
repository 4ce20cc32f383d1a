#include "models/service/service.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "models/topology/network_model.h"
#include "sim/errors.h"
#include "sim/simulation.h"

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
}  // namespace

Service::Service(ServiceConfig config, FailureDomains* domains, Duration metrics_window)
    : Component("service/" + config.name),
      config_(checked(std::move(config))),
      domains_(domains),
      service_time_(config_.service_time),
      metrics_window_(metrics_window),
      refuse_on_failure_(config_.zone_failure == "refuse"),
      least_outstanding_(config_.balancing == "least-outstanding"),
      random_(config_.balancing == "random"),
      per_worker_cores_(config_.cpu.per_worker.cores()),
      idle_cores_(config_.cpu.idle.cores()),
      request_cores_(config_.cpu_request().cores()) {
  for (const ReplicasConfig& r : config_.replicas) {
    Zone zone;
    zone.name = r.zone;
    if (domains_ != nullptr) {
      zone.topology_zone = domains_->topology().find_zone(r.zone);
      if (zone.topology_zone) zone.region = domains_->topology().region_of(*zone.topology_zone);
      if (!zone.topology_zone) {
        throw SimulationError("service \"" + config_.name + "\": unknown zone \"" + r.zone + "\"");
      }
    }
    zones_.push_back(std::move(zone));
    for (std::uint32_t i = 0; i < r.replicas; ++i) add_pod(zones_.size() - 1, true);
  }
  if (domains_ != nullptr) {
    zone_in_topology_zone_.assign(domains_->topology().zone_count(), kNoZone);
    for (std::size_t z = 0; z < zones_.size(); ++z) zone_in_topology_zone_[*zones_[z].topology_zone] = z;
  }
}

// Inline: a request changes a pod's busy count twice per service it visits.
inline void Service::count_pod(const Pod& pod, int sign) {
  Zone& zone = zones_[pod.zone];
  const auto add = [sign](std::uint32_t& count, std::uint32_t n) { count = sign > 0 ? count + n : count - n; };
  if (pod.routable()) {
    add(zone.routable_pods, 1);
    add(zone.idle_routable_workers, config_.concurrency - pod.busy);
  }
  if (pod.serving()) add(zone.live_pods, 1);
}

inline void Service::accrue(Pod& pod, std::int64_t now_ns) {
  const std::int64_t dt = now_ns - pod.usage_since_ns;
  if (dt == 0) return;
  pod.busy_ns += static_cast<std::int64_t>(pod.busy) * dt;
  pod.computing_ns += static_cast<std::int64_t>(pod.computing) * dt;
  if (pod.running()) pod.running_ns += dt;
  if (pod.serving()) pod.serving_ns += dt;
  pod.usage_since_ns = now_ns;
}

template <class Change>
inline void Service::change_pod(std::size_t p, Change&& change) {
  Pod& pod = pods_[p];
  accrue(pod, clock_ns());
  count_pod(pod, -1);
  change(pod);
  count_pod(pod, +1);
}

void Service::retire_pod(std::size_t p) {
  change_pod(p, [](Pod& gone) { gone.present = false; });
  sync_pools(p);
  // Out of the zone's list, so that balancing never walks pods long gone
  // (a control plane churns through many in a long run).
  Zone& zone = zones_[pods_[p].zone];
  const auto it = std::find(zone.pods.begin(), zone.pods.end(), p);
  if (it == zone.pods.end()) return;
  const auto i = static_cast<std::size_t>(it - zone.pods.begin());
  zone.pods.erase(it);
  if (zone.next_pod > i) --zone.next_pod;
  if (zone.next_pod >= zone.pods.size()) zone.next_pod = 0;
}

std::size_t Service::start_pod(std::size_t z, bool ready) {
  if (z >= zones_.size()) throw SimulationError("service \"" + config_.name + "\": no zone " + std::to_string(z));
  const std::size_t p = add_pod(z, ready);
  update_gauges(z);
  return p;
}

void Service::set_pod_ready(std::size_t p, bool ready) {
  Pod& pod = pods_.at(p);
  if (pod.ready == ready || !pod.present) return;
  change_pod(p, [ready](Pod& changed) { changed.ready = ready; });
  update_gauges(pod.zone);
}

void Service::remove_pod(std::size_t p) {
  Pod& pod = pods_.at(p);
  if (!pod.present || pod.terminating) return;
  if (pod.outstanding() == 0 || !pod.up) {
    // Nothing to finish (a pod of a failed zone has lost what it held).
    retire_pod(p);
  } else {
    change_pod(p, [](Pod& leaving) { leaving.terminating = true; });
  }
  update_gauges(pod.zone);
}

void Service::restart_pod(std::size_t p) {
  pods_.at(p).crashed = false;
  sync_pools(p);
}

void Service::kill_pod(std::size_t p) {
  Pod& pod = pods_.at(p);
  if (!pod.present) return;
  std::vector<std::pair<JobOwner*, std::uint64_t>> refused;
  drop_work(p, true, refused);
  retire_pod(p);
  update_gauges(pod.zone);
  for (const auto& [owner, token] : refused) owner->on_served(token, ServeOutcome::kRefused);
}

std::size_t Service::add_pod(std::size_t z, bool ready) {
  const std::size_t p = pods_.size();
  Pod pod;
  pod.zone = z;
  pod.ready = ready;
  pod.slots.assign(config_.concurrency, Pod::Slot{});
  pod.free_slots.assign((config_.concurrency + 63) / 64, ~std::uint64_t{0});
  if (config_.concurrency % 64 != 0) pod.free_slots.back() = (std::uint64_t{1} << (config_.concurrency % 64)) - 1;
  // A pod added while its zone is down waits for the zone like the others.
  const std::optional<ZoneIndex> where = zones_[z].topology_zone;
  pod.up = domains_ == nullptr || !where || domains_->zone_up(*where);
  pod.name = config_.name + "-" + zones_[z].name + "-" + std::to_string(zones_[z].pods_created++);
  pod.usage_since_ns = clock_ns();
  pod.present_at_mark = true;
  pods_.push_back(std::move(pod));
  zones_[z].pods.push_back(p);
  if (record_pod_series_ && attached()) declare_pod_series(pods_[p]);
  count_pod(pods_[p], +1);
  sync_pools(p);
  return p;
}

void Service::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  region_crossings_ = metrics_->counter("service.region_crossings", {{"service", config_.name}});
  for (Zone& z : zones_) {
    const Labels labels{{"service", config_.name}, {"zone", z.name}};
    z.arrivals = metrics_->counter("service.arrivals", labels);
    z.waited = metrics_->counter("service.waited", labels);
    z.rejected = metrics_->counter("service.rejected", labels);
    z.completed = metrics_->counter("service.completed", labels);
    z.response = metrics_->latency("service.response", labels);
    z.utilization = metrics_->gauge("zone.utilization", labels);
    z.queue_length = metrics_->gauge("service.queue_length", labels);
    z.pod_count = metrics_->gauge("service.pods", labels);
    z.cpu_cores = recorder().series("service.cpu_cores", labels);
    z.cpu_utilization = recorder().series("service.cpu_utilization", labels);
  }
  for (DatabaseUse& use : database_uses_) {
    use.metrics.clear();
    for (const Zone& z : zones_) {
      use.metrics.push_back(std::make_unique<PoolMetrics>(
          *metrics_, Labels{{"service", config_.name}, {"zone", z.name}, {"database", use.name}}));
    }
  }
  if (record_pod_series_) {
    for (Pod& pod : pods_) declare_pod_series(pod);
  }
  if (domains_ != nullptr) domains_->on_change([this] { on_topology_change(); });
}

void Service::start() {
  if (domains_ != nullptr) on_topology_change();
  for (std::size_t p = 0; p < pods_.size(); ++p) sync_pools(p);
  for (std::size_t z = 0; z < zones_.size(); ++z) update_gauges(z);
  usage_mark_ns_ = to_ns(now());
  // The usage series are written once per window boundary, in step with the
  // other windowed series (a point is stamped at its window's start).
  const std::int64_t w = to_ns(metrics_window_);
  const std::int64_t next = (usage_mark_ns_ / w + 1) * w;
  schedule_at(SimTime{Duration{next}}, "service.usage_window", [this] { usage_tick(); });
}

void Service::usage_tick() {
  write_usage_window();
  schedule_after(metrics_window_, "service.usage_window", [this] { usage_tick(); });
}

void Service::declare_pod_series(Pod& pod) {
  const Labels labels{{"service", config_.name}, {"zone", zones_[pod.zone].name}, {"pod", pod.name}};
  pod.utilization_series = recorder().series("pod.utilization", labels);
  pod.cpu_series = recorder().series("pod.cpu_cores", labels);
  pod.has_series = true;
}

void Service::write_usage_window() {
  const std::int64_t t = to_ns(now());
  const std::int64_t length = t - usage_mark_ns_;
  if (length <= 0) return;
  // Windows are [k w, (k+1) w) from the start of the run; the point is
  // stamped at the window's start, like WindowedMetrics'.
  const std::int64_t w = to_ns(metrics_window_);
  const SimTime stamp{Duration{usage_mark_ns_ / w * w}};
  const double span = static_cast<double>(length);
  std::vector<double> zone_core_ns(zones_.size(), 0.0), zone_serving_ns(zones_.size(), 0.0);
  for (Pod& pod : pods_) {
    accrue(pod, t);
    const std::int64_t busy = pod.busy_ns - pod.busy_ns_mark;
    const std::int64_t computing = pod.computing_ns - pod.computing_ns_mark;
    const std::int64_t running = pod.running_ns - pod.running_ns_mark;
    const double core_ns =
        per_worker_cores_ * static_cast<double>(computing) + idle_cores_ * static_cast<double>(running);
    zone_core_ns[pod.zone] += core_ns;
    zone_serving_ns[pod.zone] += static_cast<double>(pod.serving_ns - pod.serving_ns_mark);
    if (pod.has_series && (pod.present || pod.present_at_mark)) {
      recorder().record(pod.utilization_series, stamp,
                        static_cast<double>(busy) / (span * static_cast<double>(config_.concurrency)));
      recorder().record(pod.cpu_series, stamp, core_ns / span);
    }
    pod.busy_ns_mark = pod.busy_ns;
    pod.computing_ns_mark = pod.computing_ns;
    pod.running_ns_mark = pod.running_ns;
    pod.serving_ns_mark = pod.serving_ns;
    pod.present_at_mark = pod.present;
  }
  for (std::size_t z = 0; z < zones_.size(); ++z) {
    recorder().record(zones_[z].cpu_cores, stamp, zone_core_ns[z] / span);
    // Of the pods that served (ready, or finishing their work): a pod still
    // starting uses its idle CPU but is not part of the zone's capacity.
    const double requested = request_cores_ * zone_serving_ns[z];
    recorder().record(zones_[z].cpu_utilization, stamp, requested > 0 ? zone_core_ns[z] / requested : 0.0);
  }
  usage_mark_ns_ = t;
}

Service::PodUsage Service::pod_usage(std::size_t p) const {
  const Pod& pod = pods_[p];
  const std::int64_t dt = clock_ns() - pod.usage_since_ns;
  return PodUsage{
      .busy = Duration{pod.busy_ns + static_cast<std::int64_t>(pod.busy) * dt},
      .computing = Duration{pod.computing_ns + static_cast<std::int64_t>(pod.computing) * dt},
      .running = Duration{pod.running_ns + (pod.running() ? dt : 0)},
  };
}

double Service::pod_cpu_core_seconds(std::size_t p) const {
  const PodUsage u = pod_usage(p);
  return per_worker_cores_ * to_seconds(u.computing) + idle_cores_ * to_seconds(u.running);
}

std::uint32_t Service::pods(std::size_t zone) const {
  const Zone& z = zones_[zone];
  return static_cast<std::uint32_t>(std::count_if(z.pods.begin(), z.pods.end(), [&](std::size_t p) {
    return pods_[p].present && !pods_[p].terminating;
  }));
}

std::optional<std::size_t> Service::find_zone(std::string_view name) const {
  for (std::size_t z = 0; z < zones_.size(); ++z) {
    if (zones_[z].name == name) return z;
  }
  return std::nullopt;
}

void Service::set_slowdown(double factor) {
  if (!(factor > 0)) throw SimulationError("slowdown factor must be positive");
  slowdown_ = factor;
}

void Service::set_replicas(std::size_t z, std::uint32_t n) {
  if (z >= zones_.size()) throw SimulationError("service \"" + config_.name + "\": no zone " + std::to_string(z));
  std::uint32_t current = pods(z);
  // Pod start-up (image pull, readiness probe) is the Kubernetes model's
  // business, a later issue: here a new pod is ready at once.
  for (; current < n; ++current) add_pod(z, true);
  if (current > n) {
    std::uint32_t excess = current - n;
    const std::vector<std::size_t> members = zones_[z].pods;
    // Idle pods go first, newest first; then busy ones stop taking work and
    // leave once they have finished what they hold.
    for (int pass = 0; pass < 2 && excess > 0; ++pass) {
      for (auto it = members.rbegin(); it != members.rend() && excess > 0; ++it) {
        const Pod& pod = pods_[*it];
        if (!pod.present || pod.terminating) continue;
        const bool idle = pod.outstanding() == 0;
        if (pass == 0 && !idle) continue;
        if (idle) {
          retire_pod(*it);
        } else {
          change_pod(*it, [](Pod& leaving) { leaving.terminating = true; });
        }
        --excess;
      }
    }
  }
  update_gauges(z);
}

std::uint32_t Service::kill_pods(std::size_t z, std::uint32_t n) {
  if (z >= zones_.size()) throw SimulationError("service \"" + config_.name + "\": no zone " + std::to_string(z));
  std::vector<std::pair<JobOwner*, std::uint64_t>> refused;
  std::vector<std::size_t> victims;
  for (std::size_t p : zones_[z].pods) {
    if (victims.size() == n) break;
    const Pod& pod = pods_[p];
    if (!pod.present || pod.terminating || pod.crashed) continue;
    victims.push_back(p);
  }
  for (std::size_t p : victims) {
    drop_work(p, true, refused);
    if (pod_killed_) {
      // A control plane runs this pod: its container died, the pod object
      // stays. The endpoints still list it until its readiness probe fails,
      // so what reaches it meanwhile is refused; the kubelet restarts it.
      pods_[p].crashed = true;
      sync_pools(p);
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
  Pod& pod = pods_[p];
  Zone& zone = zones_[pod.zone];
  for (std::size_t slot = 0; slot < pod.slots.size(); ++slot) {
    const Pod::Slot& s = pod.slots[slot];
    if (!s.occupied) continue;
    cancel(s.work);  // no-op when the job is waiting on its calls
    if (refuse) refused.emplace_back(s.job.owner, s.job.token);
    release_slot(pod, slot);
  }
  zone.busy -= pod.busy;
  change_pod(p, [](Pod& emptied) {
    emptied.busy = 0;
    emptied.computing = 0;
  });
  if (refuse) {
    for (std::size_t i = 0; i < pod.queue.size(); ++i) refused.emplace_back(pod.queue[i].owner, pod.queue[i].token);
  }
  zone.queued -= pod.queue.size();
  pod.queue.clear();
}

std::uint32_t Service::busy_workers(std::size_t zone) const { return zones_[zone].busy; }
std::size_t Service::queued(std::size_t zone) const { return zones_[zone].queued; }

void Service::set_cut_ratio(std::size_t zone, double ratio) {
  if (ratio < 0 || ratio > 1) throw SimulationError("cut ratio outside [0, 1]");
  zones_[zone].cut_ratio = ratio;
}

// Smooth weighted round-robin (as in nginx): deterministic, and it spreads a
// zone's turns evenly instead of bunching them. Weight = up pods x cut ratio.
std::optional<std::size_t> Service::pick_zone(std::optional<ZoneIndex> caller_zone,
                                              std::optional<RegionIndex> region) {
  // Geo routing confines the pick to one region: the others weigh nothing.
  auto weight_of = [region](const Zone& zone) {
    if (region && zone.region != region) return 0.0;
    return zone.routable_pods * zone.cut_ratio;
  };
  if (config_.zone_affinity && caller_zone && *caller_zone < zone_in_topology_zone_.size()) {
    const std::size_t z = zone_in_topology_zone_[*caller_zone];
    if (z != kNoZone && weight_of(zones_[z]) > 0 && zones_[z].idle_routable_workers > 0) {
      return z;  // an idle worker at home: stay local
    }
  }
  if (random_) {
    // Weighted random: the split of a Poisson stream stays Poisson.
    double total = 0;
    for (const Zone& zone : zones_) total += weight_of(zone);
    if (total <= 0) return std::nullopt;
    double draw = rng().uniform() * total;
    std::optional<std::size_t> last;
    for (std::size_t z = 0; z < zones_.size(); ++z) {
      const double weight = weight_of(zones_[z]);
      if (weight <= 0) continue;
      last = z;
      if (draw < weight) return z;
      draw -= weight;
    }
    return last;  // rounding at the top end
  }
  double total = 0;
  std::optional<std::size_t> best;
  for (std::size_t z = 0; z < zones_.size(); ++z) {
    Zone& zone = zones_[z];
    const double weight = weight_of(zone);
    if (weight <= 0) continue;
    zone.swrr_current += weight;
    total += weight;
    if (!best || zone.swrr_current > zones_[*best].swrr_current) best = z;
  }
  if (best) zones_[*best].swrr_current -= total;
  return best;
}

std::optional<std::size_t> Service::pick_pod(Zone& zone) {
  std::optional<std::size_t> best;
  const std::size_t n = zone.pods.size();
  if (random_) {
    const std::uint32_t routable = zone.routable_pods;
    if (routable == 0) return std::nullopt;
    std::uint64_t k = rng().below(routable);
    for (std::size_t p : zone.pods) {
      if (pods_[p].routable() && k-- == 0) return p;
    }
    return std::nullopt;
  }
  // From next_pod round the ring; next_pod < n, so wrapping is one subtraction
  // (no division per pod looked at).
  std::size_t i = zone.next_pod;
  for (std::size_t k = 0; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
    const std::size_t p = zone.pods[i];
    const Pod& pod = pods_[p];
    if (!pod.routable()) continue;
    if (!least_outstanding_) {
      zone.next_pod = i + 1 == n ? 0 : i + 1;
      return p;
    }
    if (!best || pod.outstanding() < pods_[*best].outstanding()) best = p;
  }
  if (best) zone.next_pod = zone.next_pod + 1 == n ? 0 : zone.next_pod + 1;  // rotate ties
  return best;
}

std::optional<Duration> Service::network_delay(std::uint32_t caller_zone, std::size_t z, bool towards_service) {
  const auto& target = zones_[z].topology_zone;
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

// The balancer decides at send time, as a client-side balancer does; the
// request then crosses the network to the chosen zone.
std::optional<ServeOutcome> Service::submit(Job job, std::optional<ZoneIndex> caller_zone,
                                            std::optional<RegionIndex> region, std::optional<ZoneIndex> preferred_zone) {
  // A coloured request (preferred_zone) is served as if it came from that zone.
  const std::optional<ZoneIndex> home = preferred_zone ? preferred_zone : caller_zone;
  std::optional<RegionIndex> caller_region;
  if (home && domains_ != nullptr && *home < domains_->topology().zone_count()) {
    caller_region = domains_->topology().region_of(*home);
  }
  // Region affinity: stay in the caller's region while one of its zones has an idle worker.
  if (config_.region_affinity && caller_region && !region) {
    const bool idle_here = std::any_of(zones_.begin(), zones_.end(), [&](const Zone& zone) {
      return zone.region == caller_region && zone.routable_pods * zone.cut_ratio > 0 && zone.idle_routable_workers > 0;
    });
    if (idle_here) region = caller_region;
  }
  const auto z = pick_zone(home, region);
  if (!z) return ServeOutcome::kNoTarget;
  if (caller_region && zones_[*z].region && *zones_[*z].region != *caller_region && attached()) {
    metrics_->add(region_crossings_, now());
  }
  job.caller_zone = caller_zone ? static_cast<std::uint32_t>(*caller_zone) : kNoCallerZone;
  auto delay = network_delay(job.caller_zone, *z, true);
  // Connection set-up: each round trip samples both ways, so jitter and loss
  // hit the handshake packets as they hit the request.
  for (std::uint8_t k = 0; delay && k < job.setup_round_trips; ++k) {
    const auto there = network_delay(job.caller_zone, *z, true);
    const auto back = network_delay(job.caller_zone, *z, false);
    delay = there && back ? std::optional<Duration>(*delay + *there + *back) : std::nullopt;
  }
  if (!delay) return std::nullopt;  // unreachable: the request is lost; the caller's timeout ends it
  if (*delay == Duration::zero()) return deliver(*z, job);
  const std::size_t zone = *z;
  schedule_after(*delay, "service.request_arrives", [this, zone, job] {
    if (const auto failure = deliver(zone, job)) respond(job, zone, *failure);
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
  schedule_after(*delay, "service.response_arrives", [job, outcome] { job.owner->on_served(job.token, outcome); });
}

std::optional<ServeOutcome> Service::deliver(std::size_t z, Job job) {
  Zone& zone = zones_[z];
  const auto p = pick_pod(zone);
  if (!p) {
    // Every pod of the zone went down while the request was on its way.
    if (refuse_on_failure_) return ServeOutcome::kRefused;
    return std::nullopt;  // black hole: accepted by nobody, answered never
  }
  Pod& pod = pods_[*p];
  const SimTime t = now();
  metrics_->add(zone.arrivals, t);
  job.arrived = t;
  if (pod.crashed) [[unlikely]] {
    return ServeOutcome::kRefused;  // nothing listens: the connection is reset
  }
  if (pod.busy < config_.concurrency) {
    begin_service(*p, job);
  } else {
    if (config_.queue_limit && pod.queue.size() >= *config_.queue_limit) {
      metrics_->add(zone.rejected, t);
      return ServeOutcome::kRejected;
    }
    metrics_->add(zone.waited, t);
    pod.queue.push_back(job);
    ++zone.queued;
  }
  update_gauges(z);
  return std::nullopt;
}

std::size_t Service::take_slot(Pod& pod) {
  std::size_t word = 0;
  while (pod.free_slots[word] == 0) ++word;
  std::uint64_t& bits = pod.free_slots[word];
  const std::size_t slot = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
  bits &= bits - 1;  // clears the lowest set bit: that slot
  pod.slots[slot].occupied = true;
  return slot;
}

void Service::release_slot(Pod& pod, std::size_t slot) {
  Pod::Slot& s = pod.slots[slot];
  drop_calls(s);
  s = Pod::Slot{.generation = s.generation + 1};
  pod.free_slots[slot / 64] |= std::uint64_t{1} << (slot % 64);
}

void Service::begin_service(std::size_t p, Job job) {
  Pod& pod = pods_[p];
  const std::size_t slot = take_slot(pod);
  change_pod(p, [](Pod& taken) {
    ++taken.busy;
    ++taken.computing;
  });
  ++zones_[pod.zone].busy;
  Duration d = service_time_.sample(rng());
  if (slowdown_ != 1.0) d = Duration{static_cast<std::int64_t>(static_cast<double>(d.count()) * slowdown_)};
  Pod::Slot& s = pod.slots[slot];
  s.job = job;
  s.work = schedule_after(d, "service.work_done", [this, p, slot] { work_done(p, slot); });
}

void Service::connect_calls(const std::function<Service*(std::string_view)>& find_service,
                            const FindDatabase& find_database) {
  call_steps_.clear();
  call_edges_.clear();
  database_uses_.clear();
  bool previous_parallel = false;
  for (std::uint32_t edge = 0; edge < config_.calls.size(); ++edge) {
    const CallConfig& call = config_.calls[edge];
    Service* callee = nullptr;
    std::uint32_t database = kNoCall;
    if (!call.database.empty()) {
      database = connect_database(call, find_database);
    } else {
      callee = find_service(call.service);
      if (callee == nullptr) {
        throw SimulationError("service \"" + config_.name + "\" calls unknown service \"" + call.service + "\"");
      }
    }
    call_edges_.push_back(CallEdge{RetryPolicy(call.retry),
                                   call.retry.budget ? std::optional<RetryBudget>(*call.retry.budget) : std::nullopt,
                                   call.timeout, database, call.queries, call.writes});
    if (call.parallel) {
      if (!previous_parallel) call_steps_.emplace_back();
      for (std::uint32_t i = 0; i < call.count; ++i) call_steps_.back().push_back({callee, edge});
    } else {
      for (std::uint32_t i = 0; i < call.count; ++i) call_steps_.push_back({StepCall{callee, edge}});
    }
    previous_parallel = call.parallel;
  }
}

std::uint32_t Service::connect_database(const CallConfig& call, const FindDatabase& find_database) {
  for (std::uint32_t u = 0; u < database_uses_.size(); ++u) {
    if (database_uses_[u].name != call.database) continue;
    if (call.pool) database_uses_[u].pool = *call.pool;
    return u;
  }
  DatabaseUse use;
  use.name = call.database;
  if (call.pool) use.pool = *call.pool;
  for (const Zone& zone : zones_) {
    if (!zone.topology_zone || !find_database) {
      throw SimulationError("service \"" + config_.name + "\" queries database \"" + call.database +
                            "\" from zone \"" + zone.name + "\", which is not in the topology");
    }
    PoolEndpoint* endpoint = find_database(call.database, *zone.topology_zone);
    if (endpoint == nullptr) {
      throw SimulationError("service \"" + config_.name + "\" queries unknown database \"" + call.database + "\"");
    }
    use.endpoint.push_back(endpoint);
  }
  database_uses_.push_back(std::move(use));
  return static_cast<std::uint32_t>(database_uses_.size() - 1);
}

const ConnectionPool* Service::pod_pool(std::size_t pod, std::size_t database) const {
  const Pod& p = pods_.at(pod);
  if (!p.pools_open || database >= p.pools.size()) return nullptr;
  return p.pools[database].get();
}

void Service::sync_pools(std::size_t p) {
  if (database_uses_.empty() || !attached()) return;
  Pod& pod = pods_[p];
  const bool run = pod.running() && !pod.crashed;
  if (run == pod.pools_open) return;
  pod.pools_open = run;
  if (!run) {
    for (auto& pool : pod.pools) pool->shutdown();  // the process is gone: its sessions with it
    return;
  }
  if (pod.pools.empty()) {
    const Zone& zone = zones_[pod.zone];
    for (DatabaseUse& use : database_uses_) {
      pod.pools.push_back(std::make_unique<ConnectionPool>(sim(), id(), pod.name + "/" + use.name, use.pool,
                                                           *use.endpoint[pod.zone], *zone.topology_zone,
                                                           use.metrics[pod.zone].get()));
    }
  }
  for (auto& pool : pod.pools) pool->start();
}

void Service::work_done(std::size_t p, std::size_t slot) {
  Pod& pod = pods_[p];
  accrue(pod, to_ns(now()));
  --pod.computing;  // the worker now waits on its calls, or ends
  Pod::Slot& s = pod.slots[slot];
  s.work = EventId{};
  s.step = 0;
  start_step(p, slot);
}

void Service::start_step(std::size_t p, std::size_t slot) {
  Pod::Slot& s = pods_[p].slots[slot];
  if (s.step == call_steps_.size()) {
    finish(p, slot, s.failed ? ServeOutcome::kDependencyFailed : ServeOutcome::kServed);
    return;
  }
  const auto& step = call_steps_[s.step];
  s.outstanding = static_cast<std::uint32_t>(step.size());
  s.failed = false;
  // While the step's calls are being sent, a call that ends at once only
  // counts itself off: the step cannot end (and the slot be reused) half-sent.
  s.sending = true;
  for (const StepCall& c : step) send_attempt(new_call(p, slot, c.edge, c.callee));
  pods_[p].slots[slot].sending = false;
  if (pods_[p].slots[slot].outstanding == 0) end_step(p, slot);
}

void Service::end_step(std::size_t p, std::size_t slot) {
  Pod::Slot& s = pods_[p].slots[slot];
  if (s.failed) {
    finish(p, slot, ServeOutcome::kDependencyFailed);
    return;
  }
  ++s.step;
  start_step(p, slot);
}

std::uint32_t Service::new_call(std::size_t p, std::size_t slot, std::uint32_t edge, Service* callee) {
  std::uint32_t c = free_call_;
  if (c == kNoCall) {
    c = static_cast<std::uint32_t>(call_records_.size());
    call_records_.emplace_back();
  } else {
    free_call_ = call_records_[c].next;
  }
  CallRecord& r = call_records_[c];
  Pod::Slot& s = pods_[p].slots[slot];
  r.pod = static_cast<std::uint32_t>(p);
  r.slot = static_cast<std::uint32_t>(slot);
  r.edge = edge;
  r.callee = callee;
  r.attempt = 0;
  r.attempt_outstanding = false;
  r.attempt_timer = EventId{};
  r.timeout = EventId{};
  r.prev = kNoCall;
  r.next = s.first_call;
  if (s.first_call != kNoCall) call_records_[s.first_call].prev = c;
  s.first_call = c;
  CallEdge& e = call_edges_[edge];
  if (e.budget) e.budget->deposit(now());
  if (e.timeout) {
    r.timeout = schedule_after(*e.timeout, "service.call_timeout", [this, c] {
      call_records_[c].timeout = EventId{};
      call_done(c, false);
    });
  }
  return c;
}

void Service::send_attempt(std::uint32_t c) {
  CallRecord& r = call_records_[c];
  ++r.generation;
  ++r.attempt;
  r.attempt_outstanding = true;
  r.attempt_timer = EventId{};
  const std::uint64_t token = (static_cast<std::uint64_t>(r.generation) << 32) | c;
  const CallEdge& e = call_edges_[r.edge];
  if (e.retry.per_try_timeout()) {
    r.attempt_timer = schedule_after(*e.retry.per_try_timeout(), "service.call_attempt_timeout", [this, c] {
      CallRecord& timed_out = call_records_[c];
      timed_out.attempt_timer = EventId{};
      timed_out.attempt_outstanding = false;
      ++timed_out.generation;  // its late answer is ignored; the callee still does the work
      attempt_failed(c, AttemptFailure::kTimeout);
    });
  }
  if (r.callee == nullptr) {
    // A database call: the pod's pool borrows, queries and reports back
    // (never from inside execute). The pod runs: it holds this call's job.
    pods_[r.pod].pools[e.database]->execute(*this, token, e.queries, e.writes);
    return;
  }
  const Job call{this, token, now()};
  Service* callee = r.callee;
  if (const auto failure = callee->submit(call, zones_[pods_[r.pod].zone].topology_zone)) on_served(token, *failure);
}

void Service::on_served(std::uint64_t token, ServeOutcome outcome) { answer_call(token, attempt_failure(outcome)); }

void Service::on_query_done(std::uint64_t token, const QueryResult& result) {
  std::optional<AttemptFailure> failure;
  if (result.outcome == QueryOutcome::kServerError) {
    failure = AttemptFailure::kDependency;  // the database answered with an error (a 5xx of its own)
  } else if (result.outcome == QueryOutcome::kPoolTimeout) {
    failure = AttemptFailure::kTimeout;  // SQLTransientConnectionException after connectionTimeout
  } else if (result.outcome == QueryOutcome::kConnectionError) {
    switch (result.error) {
      case TcpError::kConnectRefused:
      case TcpError::kReset:
        failure = AttemptFailure::kRefused;
        break;
      case TcpError::kTooManyConnections:
        failure = AttemptFailure::kRejected;
        break;
      default:
        failure = AttemptFailure::kTimeout;  // socket, retransmission, keepalive or connect timeouts
        break;
    }
  }
  answer_call(token, failure);
}

void Service::answer_call(std::uint64_t token, std::optional<AttemptFailure> failure) {
  const auto c = static_cast<std::uint32_t>(token & 0xFFFFFFFFu);
  const auto generation = static_cast<std::uint32_t>(token >> 32);
  if (c >= call_records_.size()) return;
  CallRecord& r = call_records_[c];
  if (!r.attempt_outstanding || r.generation != generation) return;  // an attempt given up on, or a freed call
  r.attempt_outstanding = false;
  cancel(r.attempt_timer);
  r.attempt_timer = EventId{};
  if (!failure) {
    call_done(c, true);
    return;
  }
  attempt_failed(c, *failure);
}

void Service::attempt_failed(std::uint32_t c, AttemptFailure failure) {
  CallRecord& r = call_records_[c];
  CallEdge& e = call_edges_[r.edge];
  if (r.attempt >= e.retry.attempts() || !e.retry.retries(failure) || (e.budget && !e.budget->try_withdraw(now()))) {
    call_done(c, false);
    return;
  }
  const Duration wait = e.retry.backoff(r.attempt, rng());
  if (wait == Duration::zero()) {
    send_attempt(c);
    return;
  }
  r.attempt_timer = schedule_after(wait, "service.call_backoff", [this, c] { send_attempt(c); });
}

void Service::call_done(std::uint32_t c, bool ok) {
  const std::size_t p = call_records_[c].pod;
  const std::size_t slot = call_records_[c].slot;
  free_call(c);
  Pod::Slot& s = pods_[p].slots[slot];
  if (!ok) s.failed = true;
  if (--s.outstanding > 0 || s.sending) return;
  end_step(p, slot);
}

void Service::free_call(std::uint32_t c) {
  CallRecord& r = call_records_[c];
  cancel(r.timeout);
  cancel(r.attempt_timer);
  r.timeout = EventId{};
  r.attempt_timer = EventId{};
  r.attempt_outstanding = false;
  ++r.generation;  // answers still on their way are ignored
  Pod::Slot& s = pods_[r.pod].slots[r.slot];
  if (r.prev != kNoCall) {
    call_records_[r.prev].next = r.next;
  } else {
    s.first_call = r.next;
  }
  if (r.next != kNoCall) call_records_[r.next].prev = r.prev;
  r.prev = kNoCall;
  r.next = free_call_;
  free_call_ = c;
}

void Service::drop_calls(Pod::Slot& slot) {
  while (slot.first_call != kNoCall) free_call(slot.first_call);
}

void Service::finish(std::size_t p, std::size_t slot, ServeOutcome outcome) {
  Pod& pod = pods_[p];
  Zone& zone = zones_[pod.zone];
  const Job job = pod.slots[slot].job;
  release_slot(pod, slot);
  change_pod(p, [](Pod& freed) { --freed.busy; });
  --zone.busy;
  const SimTime t = now();
  metrics_->add(zone.completed, t);
  metrics_->observe(zone.response, t, t - job.arrived);
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
}

void Service::update_gauges(std::size_t z) {
  Zone& zone = zones_[z];
  const SimTime t = now();
  // Workers of running pods (terminating included) are utilisation's denominator.
  const std::uint32_t workers = zone.live_pods * config_.concurrency;
  metrics_->set(zone.utilization, t, workers == 0 ? 0.0 : static_cast<double>(zone.busy) / workers);
  // Queue length and pod count change far less often than utilisation, and
  // are set only when they change. Skipping a set() that repeats the held
  // value leaves their time-weighted means the same to the bit: whole numbers
  // times whole nanoseconds, and sums of those, are exact in a double while a
  // window's integral stays below 2^53 (a queue of 2,500 held through a whole
  // 1 h window, of 9 million through a 1 s window).
  if (zone.queued != zone.queued_recorded) {
    metrics_->set(zone.queue_length, t, static_cast<double>(zone.queued));
    zone.queued_recorded = zone.queued;
  }
  if (zone.routable_pods != zone.pods_recorded) {
    metrics_->set(zone.pod_count, t, static_cast<double>(zone.routable_pods));
    zone.pods_recorded = zone.routable_pods;
  }
  // Overload: requests are waiting for a worker.
  const bool overloaded = zone.queued > 0;
  if (overloaded && zone.overload_since == kSimTimeMax) zone.overload_since = t;
  if (!overloaded && zone.overload_since != kSimTimeMax) {
    zone.overload += t - zone.overload_since;
    zone.overload_since = kSimTimeMax;
  }
}

void Service::on_topology_change() {
  std::vector<std::pair<JobOwner*, std::uint64_t>> refused;
  for (std::size_t p = 0; p < pods_.size(); ++p) {
    Pod& pod = pods_[p];
    const Zone& zone = zones_[pod.zone];
    const bool up = !zone.topology_zone || domains_->zone_up(*zone.topology_zone);
    if (up == pod.up) continue;
    change_pod(p, [up](Pod& changed) { changed.up = up; });
    sync_pools(p);
    if (up || !pod.present) continue;
    // The pod's zone failed: its queue and the jobs in service are gone. A
    // black hole tells nobody; a refusal resets every connection at once. A
    // terminating pod has nothing left to finish: it is gone.
    drop_work(p, refuse_on_failure_, refused);
    if (pod.terminating) retire_pod(p);
  }
  for (std::size_t z = 0; z < zones_.size(); ++z) update_gauges(z);
  // Owners hear after the state is consistent: they may submit again at once.
  for (const auto& [owner, token] : refused) owner->on_served(token, ServeOutcome::kRefused);
}

void Service::stop() {
  const SimTime t = now();
  for (std::size_t z = 0; z < zones_.size(); ++z) {
    Zone& zone = zones_[z];
    if (zone.overload_since != kSimTimeMax) {
      zone.overload += t - zone.overload_since;
      zone.overload_since = t;
    }
  }
  metrics_->finish(t);
  write_usage_window();  // the last, partial window
  for (const Zone& zone : zones_) {
    const Labels labels{{"service", config_.name}, {"zone", zone.name}};
    recorder().kpi("zone.utilization_mean", labels, metrics_->gauge_mean(zone.utilization));
    recorder().kpi("zone.utilization_peak", labels, metrics_->gauge_max(zone.utilization));
    recorder().kpi("zone.overload_s", labels, to_seconds(zone.overload));
    recorder().kpi("service.rejected", labels, metrics_->total(zone.rejected));
  }
}

std::uint64_t Service::memory_per_pod(const ServiceConfig& config) {
  const std::uint64_t workers = config.concurrency;
  return sizeof(Pod) + workers * sizeof(Pod::Slot) + (workers + 63) / 64 * sizeof(std::uint64_t);
}

}  // namespace drsim

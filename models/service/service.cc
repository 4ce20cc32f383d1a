#include "models/service/service.h"

#include <algorithm>
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
      random_(config_.balancing == "random") {
  for (const ReplicasConfig& r : config_.replicas) {
    Zone zone;
    zone.name = r.zone;
    if (domains_ != nullptr) {
      zone.topology_zone = domains_->topology().find_zone(r.zone);
      if (!zone.topology_zone) {
        throw SimulationError("service \"" + config_.name + "\": unknown zone \"" + r.zone + "\"");
      }
    }
    zones_.push_back(std::move(zone));
    for (std::uint32_t i = 0; i < r.replicas; ++i) add_pod(zones_.size() - 1);
  }
}

std::size_t Service::add_pod(std::size_t z) {
  const std::size_t p = pods_.size();
  Pod pod;
  pod.zone = z;
  pod.slots.assign(config_.concurrency, Pod::Slot{});
  // A pod added while its zone is down waits for the zone like the others.
  const std::optional<ZoneIndex> where = zones_[z].topology_zone;
  pod.up = domains_ == nullptr || !where || domains_->zone_up(*where);
  pods_.push_back(std::move(pod));
  in_service_.emplace_back(config_.concurrency);
  zones_[z].pods.push_back(p);
  return p;
}

void Service::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
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
  }
  if (domains_ != nullptr) domains_->on_change([this] { on_topology_change(); });
}

void Service::start() {
  if (domains_ != nullptr) on_topology_change();
  for (std::size_t z = 0; z < zones_.size(); ++z) update_gauges(z);
}

std::uint32_t Service::up_pods(const Zone& zone) const {
  return static_cast<std::uint32_t>(
      std::count_if(zone.pods.begin(), zone.pods.end(), [&](std::size_t p) { return pods_[p].routable(); }));
}

std::uint32_t Service::live_workers(const Zone& zone) const {
  const auto live = std::count_if(zone.pods.begin(), zone.pods.end(),
                                  [&](std::size_t p) { return pods_[p].up && pods_[p].present; });
  return static_cast<std::uint32_t>(live) * config_.concurrency;
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
  for (; current < n; ++current) add_pod(z);
  if (current > n) {
    std::uint32_t excess = current - n;
    const std::vector<std::size_t> members = zones_[z].pods;
    // Idle pods go first, newest first; then busy ones stop taking work and
    // leave once they have finished what they hold.
    for (int pass = 0; pass < 2 && excess > 0; ++pass) {
      for (auto it = members.rbegin(); it != members.rend() && excess > 0; ++it) {
        Pod& pod = pods_[*it];
        if (!pod.present || pod.terminating) continue;
        const bool idle = pod.outstanding() == 0;
        if (pass == 0 && !idle) continue;
        if (idle) {
          pod.present = false;
        } else {
          pod.terminating = true;
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
  std::uint32_t killed = 0;
  for (std::size_t p : zones_[z].pods) {
    if (killed == n) break;
    Pod& pod = pods_[p];
    if (!pod.present || pod.terminating) continue;
    drop_work(p, true, refused);
    pod.present = false;
    ++killed;
  }
  update_gauges(z);
  // Owners hear after the state is consistent: they may submit again at once.
  for (const auto& [owner, token] : refused) owner->on_served(token, ServeOutcome::kRefused);
  return killed;
}

void Service::drop_work(std::size_t p, bool refuse, std::vector<std::pair<JobOwner*, std::uint64_t>>& refused) {
  Pod& pod = pods_[p];
  Zone& zone = zones_[pod.zone];
  for (std::size_t slot = 0; slot < pod.slots.size(); ++slot) {
    Pod::Slot& s = pod.slots[slot];
    if (!s.occupied) continue;
    cancel(s.work);  // no-op when the job is waiting on its calls
    s = Pod::Slot{.generation = s.generation + 1};
    if (refuse) refused.emplace_back(in_service_[p][slot].owner, in_service_[p][slot].token);
  }
  zone.busy -= pod.busy;
  pod.busy = 0;
  if (refuse) {
    for (const Job& job : pod.queue) refused.emplace_back(job.owner, job.token);
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
std::optional<std::size_t> Service::pick_zone(std::optional<ZoneIndex> caller_zone) {
  if (config_.zone_affinity && caller_zone) {
    for (std::size_t z = 0; z < zones_.size(); ++z) {
      Zone& zone = zones_[z];
      if (zone.topology_zone != caller_zone || zone.cut_ratio <= 0) continue;
      const bool idle_worker = std::any_of(zone.pods.begin(), zone.pods.end(), [&](std::size_t p) {
        return pods_[p].routable() && pods_[p].busy < config_.concurrency;
      });
      if (idle_worker) return z;  // an idle worker at home: stay local
    }
  }
  if (random_) {
    // Weighted random: the split of a Poisson stream stays Poisson.
    double total = 0;
    for (const Zone& zone : zones_) total += up_pods(zone) * zone.cut_ratio;
    if (total <= 0) return std::nullopt;
    double draw = rng().uniform() * total;
    std::optional<std::size_t> last;
    for (std::size_t z = 0; z < zones_.size(); ++z) {
      const double weight = up_pods(zones_[z]) * zones_[z].cut_ratio;
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
    const double weight = up_pods(zone) * zone.cut_ratio;
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
    const std::uint32_t routable = up_pods(zone);
    if (routable == 0) return std::nullopt;
    std::uint64_t k = rng().below(routable);
    for (std::size_t p : zone.pods) {
      if (pods_[p].routable() && k-- == 0) return p;
    }
    return std::nullopt;
  }
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t p = zone.pods[(zone.next_pod + k) % n];
    const Pod& pod = pods_[p];
    if (!pod.routable()) continue;
    if (!least_outstanding_) {
      zone.next_pod = (zone.next_pod + k + 1) % n;
      return p;
    }
    if (!best || pod.outstanding() < pods_[*best].outstanding()) best = p;
  }
  if (best) zone.next_pod = (zone.next_pod + 1) % n;  // rotate ties
  return best;
}

std::optional<Duration> Service::network_delay(std::uint32_t caller_zone, std::size_t z, bool towards_service) {
  const auto& target = zones_[z].topology_zone;
  if (domains_ == nullptr || caller_zone == kNoCallerZone || !target) return Duration::zero();
  const ZoneIndex caller = caller_zone;
  return towards_service ? domains_->network().sample_one_way(caller, *target, rng())
                         : domains_->network().sample_one_way(*target, caller, rng());
}

// The balancer decides at send time, as a client-side balancer does; the
// request then crosses the network to the chosen zone.
std::optional<ServeOutcome> Service::submit(Job job, std::optional<ZoneIndex> caller_zone) {
  const auto z = pick_zone(caller_zone);
  if (!z) return ServeOutcome::kNoTarget;
  job.caller_zone = caller_zone ? static_cast<std::uint32_t>(*caller_zone) : kNoCallerZone;
  const auto delay = network_delay(job.caller_zone, *z, true);
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

void Service::begin_service(std::size_t p, Job job) {
  Pod& pod = pods_[p];
  std::size_t slot = 0;
  while (pod.slots[slot].occupied) ++slot;  // concurrency is small: a scan is cheapest
  ++pod.busy;
  ++zones_[pod.zone].busy;
  in_service_[p][slot] = job;
  Duration d = service_time_.sample(rng());
  if (slowdown_ != 1.0) d = Duration{static_cast<std::int64_t>(static_cast<double>(d.count()) * slowdown_)};
  Pod::Slot& s = pod.slots[slot];
  s.occupied = true;
  s.work = schedule_after(d, "service.work_done", [this, p, slot] { work_done(p, slot); });
}

void Service::connect_calls(const std::function<Service*(std::string_view)>& find_service) {
  call_steps_.clear();
  bool previous_parallel = false;
  for (const CallConfig& call : config_.calls) {
    Service* callee = find_service(call.service);
    if (callee == nullptr) {
      throw SimulationError("service \"" + config_.name + "\" calls unknown service \"" + call.service + "\"");
    }
    if (call.parallel) {
      if (!previous_parallel) call_steps_.emplace_back();
      for (std::uint32_t i = 0; i < call.count; ++i) call_steps_.back().push_back(callee);
    } else {
      for (std::uint32_t i = 0; i < call.count; ++i) call_steps_.push_back({callee});
    }
    previous_parallel = call.parallel;
  }
}

// Tokens for this service's own calls: pod (32 bits) | slot (8) | generation (24).
namespace {
std::uint64_t call_token(std::size_t pod, std::size_t slot, std::uint32_t generation) {
  return (static_cast<std::uint64_t>(pod) << 32) | (static_cast<std::uint64_t>(slot) << 24) | (generation & 0xFFFFFFu);
}
}  // namespace

void Service::work_done(std::size_t p, std::size_t slot) {
  Pod::Slot& s = pods_[p].slots[slot];
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
  const auto& caller_zone = zones_[pods_[p].zone].topology_zone;
  const std::uint32_t generation = s.generation;
  s.outstanding = static_cast<std::uint32_t>(step.size());
  s.failed = false;
  // A call that fails at once is counted off here rather than through
  // on_served, so the step cannot end while its calls are still being sent,
  // and nothing is allocated per request.
  for (Service* callee : step) {
    const Job call{this, call_token(p, slot, generation), now()};
    if (callee->submit(call, caller_zone)) {
      s.failed = true;
      --s.outstanding;
    }
  }
  if (s.outstanding > 0) return;
  if (s.failed) {
    finish(p, slot, ServeOutcome::kDependencyFailed);
    return;
  }
  ++s.step;
  start_step(p, slot);
}

void Service::on_served(std::uint64_t token, ServeOutcome outcome) {
  const auto p = static_cast<std::size_t>(token >> 32);
  const auto slot = static_cast<std::size_t>((token >> 24) & 0xFFu);
  const auto generation = static_cast<std::uint32_t>(token & 0xFFFFFFu);
  if (p >= pods_.size() || slot >= pods_[p].slots.size()) return;
  Pod::Slot& s = pods_[p].slots[slot];
  if (!s.occupied || (s.generation & 0xFFFFFFu) != generation || s.outstanding == 0) return;  // stale
  if (outcome != ServeOutcome::kServed) s.failed = true;
  if (--s.outstanding > 0) return;
  if (s.failed) {
    finish(p, slot, ServeOutcome::kDependencyFailed);
    return;
  }
  ++s.step;
  start_step(p, slot);
}

void Service::finish(std::size_t p, std::size_t slot, ServeOutcome outcome) {
  Pod& pod = pods_[p];
  Zone& zone = zones_[pod.zone];
  const Job job = in_service_[p][slot];
  Pod::Slot& s = pod.slots[slot];
  s = Pod::Slot{.generation = s.generation + 1};
  --pod.busy;
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
    pod.present = false;  // scaled down: it has finished its work and goes
  }
  update_gauges(pod.zone);
  respond(job, pod.zone, outcome);
}

void Service::update_gauges(std::size_t z) {
  Zone& zone = zones_[z];
  const SimTime t = now();
  const std::uint32_t workers = live_workers(zone);
  metrics_->set(zone.utilization, t, workers == 0 ? 0.0 : static_cast<double>(zone.busy) / workers);
  metrics_->set(zone.queue_length, t, static_cast<double>(zone.queued));
  metrics_->set(zone.pod_count, t, static_cast<double>(up_pods(zone)));
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
    pod.up = up;
    if (up || !pod.present) continue;
    // The pod's zone failed: its queue and the jobs in service are gone. A
    // black hole tells nobody; a refusal resets every connection at once. A
    // terminating pod has nothing left to finish: it is gone.
    drop_work(p, refuse_on_failure_, refused);
    if (pod.terminating) pod.present = false;
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
  for (const Zone& zone : zones_) {
    const Labels labels{{"service", config_.name}, {"zone", zone.name}};
    recorder().kpi("zone.utilization_mean", labels, metrics_->gauge_mean(zone.utilization));
    recorder().kpi("zone.utilization_peak", labels, metrics_->gauge_max(zone.utilization));
    recorder().kpi("zone.overload_s", labels, to_seconds(zone.overload));
    recorder().kpi("service.rejected", labels, metrics_->total(zone.rejected));
  }
}

void register_service_actions(Timeline& timeline, std::vector<Service*> services) {
  // The loader has checked that targets exist; a miss here is a bug.
  auto service = [services](const ActionConfig& a) -> Service& {
    for (Service* s : services) {
      if (s->config().name == a.target.service) return *s;
    }
    throw SimulationError("unknown service \"" + a.target.service + "\" in step \"" + a.name + "\"");
  };
  auto zone = [](Service& s, const ActionConfig& a) {
    if (auto z = s.find_zone(a.target.zone)) return *z;
    throw SimulationError("service \"" + s.config().name + "\" has no pods in zone \"" + a.target.zone +
                          "\" (step \"" + a.name + "\")");
  };
  auto required = [](const auto& value, const ActionConfig& a, const char* key) {
    if (!value) throw SimulationError("step \"" + a.name + "\": " + a.action + " needs " + key);
    return *value;
  };
  timeline.on("traffic:cut", [=](const ActionConfig& a, ActionPhase phase) {
    Service& s = service(a);
    s.set_cut_ratio(zone(s, a), phase == ActionPhase::kApply ? required(a.ratio, a, "ratio").value : 1.0);
  });
  timeline.on("service:scale", [=](const ActionConfig& a, ActionPhase) {
    Service& s = service(a);
    s.set_replicas(zone(s, a), required(a.replicas, a, "replicas"));
  });
  timeline.on("pods:kill", [=](const ActionConfig& a, ActionPhase) {
    Service& s = service(a);
    const std::size_t z = zone(s, a);
    std::uint32_t n = 0;
    if (a.count) {
      n = *a.count;
    } else {
      const double share = required(a.percent, a, "count or percent").value;
      n = static_cast<std::uint32_t>(std::floor(share * s.pods(z)));
      if (share > 0 && n == 0) n = 1;
    }
    s.kill_pods(z, n);
  });
  timeline.on("service:slow", [=](const ActionConfig& a, ActionPhase phase) {
    service(a).set_slowdown(phase == ActionPhase::kApply ? required(a.factor, a, "factor") : 1.0);
  });
}

}  // namespace drsim

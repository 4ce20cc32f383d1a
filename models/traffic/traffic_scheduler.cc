#include "models/traffic/traffic_scheduler.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "models/service/service.h"
#include "models/traffic/traffic_event_kinds.h"
#include "sim/errors.h"
#include "sim/simulation.h"

namespace drsim {

namespace {
std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
  return buf;
}
}  // namespace

TrafficScheduler::TrafficScheduler(std::string label, TrafficSchedulerConfig config, GeoRouter& router,
                                   const Service& entry, FailureDomains& domains, RoutingRulesStore* store,
                                   Duration metrics_window)
    : Component("scheduler/" + label),
      label_(std::move(label)),
      config_(std::move(config)),
      router_(router),
      entry_(entry),
      domains_(domains),
      store_(store),
      metrics_window_(metrics_window),
      mean_service_time_(ServiceTimeDistribution(entry.config().service_time).mean()) {
  if (const auto problems = config_.validate(); !problems.empty()) {
    throw SimulationError("traffic scheduler of \"" + label_ + "\": " + problems.front().field + ": " +
                          problems.front().message);
  }
  for (RegionIndex r : router_.regions()) regions_.push_back(Region{.region = r, .configured = router_.weight(r)});
  // The router applies shares from now on (the same split as the configured weights), before any DNS cache
  // copies it.
  submitted_ = planned_shares();
  for (std::size_t i = 0; i < regions_.size(); ++i) router_.set_weight(regions_[i].region, submitted_[i]);
}

void TrafficScheduler::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  const std::vector<double> shares = planned_shares();
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    const Labels labels{{"population", label_}, {"region", domains_.topology().region_name(regions_[i].region)}};
    regions_[i].weight = metrics_->gauge("routing.weight", labels, shares[i]);
    regions_[i].requests = metrics_->counter("routing.requests", labels);
  }
}

std::size_t TrafficScheduler::index_of(RegionIndex region) const {
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    if (regions_[i].region == region) return i;
  }
  throw SimulationError("traffic scheduler of \"" + label_ + "\": region " +
                        domains_.topology().region_name(region) + " is not routed");
}

void TrafficScheduler::routed(RegionIndex region) {
  for (Region& r : regions_) {
    if (r.region == region) metrics_->add(r.requests, now());
  }
}

double TrafficScheduler::capacity(RegionIndex region) const {
  const Topology& topology = domains_.topology();
  double pods = 0;
  for (std::size_t z = 0; z < entry_.zone_count(); ++z) {
    const auto zone = topology.find_zone(entry_.zone_name(z));
    if (!zone || topology.region_of(*zone) != region || !domains_.zone_up(*zone)) continue;
    pods += entry_.pods(z);
  }
  return pods * entry_.config().concurrency / to_seconds(mean_service_time_);
}

void TrafficScheduler::spread(double amount, const std::vector<std::size_t>& receivers,
                              const std::vector<double>& base, std::vector<double>& out) const {
  if (receivers.empty() || amount <= 0) return;
  std::vector<double> part(receivers.size(), 1.0);  // even
  if (config_.spread == "capacity") {
    for (std::size_t k = 0; k < receivers.size(); ++k) part[k] = capacity(regions_[receivers[k]].region);
  } else if (config_.spread == "weight") {
    for (std::size_t k = 0; k < receivers.size(); ++k) part[k] = base[receivers[k]];
  }
  double total = std::accumulate(part.begin(), part.end(), 0.0);
  if (total <= 0) {  // no capacity or no share anywhere: equal parts rather than nowhere
    std::fill(part.begin(), part.end(), 1.0);
    total = static_cast<double>(part.size());
  }
  for (std::size_t k = 0; k < receivers.size(); ++k) out[receivers[k]] += amount * part[k] / total;
}

std::vector<double> TrafficScheduler::planned_shares() const {
  std::vector<double> shares(regions_.size(), 0);
  double total = 0;
  for (const Region& r : regions_) total += r.configured;
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    // Route 53's rule: all-zero weights answer every record alike.
    shares[i] = total > 0 ? regions_[i].configured / total : 1.0 / static_cast<double>(regions_.size());
  }
  for (const Switch& s : switches_) {
    const std::size_t from = index_of(s.from);
    const double moved = shares[from] * s.share;
    if (moved <= 0) continue;
    const std::vector<double> base = shares;
    shares[from] -= moved;
    std::vector<std::size_t> to;
    for (RegionIndex r : s.to) to.push_back(index_of(r));
    spread(moved, to, base, shares);
  }
  return shares;
}

std::vector<double> TrafficScheduler::target_shares() const {
  std::vector<double> shares = planned_shares();
  std::vector<std::size_t> healthy;
  double lost = 0;
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    if (regions_[i].healthy) {
      healthy.push_back(i);
    } else {
      lost += shares[i];
    }
  }
  if (healthy.empty()) return shares;  // fail open: every region keeps its planned share
  // A healthy region drained on purpose (planned share 0: routing:weight 0, a full switch) takes nothing,
  // unless every healthy region is drained.
  std::vector<std::size_t> receivers;
  for (std::size_t i : healthy) {
    if (shares[i] > 0) receivers.push_back(i);
  }
  if (receivers.empty()) receivers = healthy;
  const std::vector<double> base = shares;
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    if (!regions_[i].healthy) shares[i] = 0;
  }
  spread(lost, receivers, base, shares);
  return shares;
}

std::string TrafficScheduler::shares_text(const std::vector<double>& shares) const {
  std::string out;
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    if (!out.empty()) out += ", ";
    out += domains_.topology().region_name(regions_[i].region) + " " + percent(shares[i]);
  }
  return out;
}

void TrafficScheduler::reconcile(const std::string& why) {
  const std::vector<double> shares = target_shares();
  if (shares == submitted_) return;
  submitted_ = shares;
  GeoRouter* router = &router_;
  std::vector<RegionIndex> order;
  std::vector<GaugeId> gauges;
  for (const Region& r : regions_) {
    order.push_back(r.region);
    gauges.push_back(r.weight);
  }
  apply_routing_change(store_, why + ": " + shares_text(shares), [this, router, order, gauges, shares] {
    for (std::size_t i = 0; i < order.size(); ++i) {
      router->set_weight(order[i], shares[i]);
      metrics_->set(gauges[i], now(), shares[i]);
    }
  });
}

void TrafficScheduler::region_health(RegionIndex region, bool healthy) {
  Region& r = regions_[index_of(region)];
  if (r.healthy == healthy) return;
  r.healthy = healthy;
  const std::string name = domains_.topology().region_name(region);
  const std::vector<double> shares = target_shares();
  if (!healthy) {
    ++failovers_;
    log_event(event_kinds::scheduler::kFailover,
              name + " unreachable: weight 0, spread " + config_.spread + ": " + shares_text(shares));
  } else {
    log_event(event_kinds::scheduler::kRestore, name + " reachable again: " + shares_text(shares));
  }
  reconcile(std::string(healthy ? "restore " : "failover ") + name);
}

void TrafficScheduler::set_planned_weight(RegionIndex region, double weight) {
  if (!(weight >= 0)) throw SimulationError("routing: weight must be non-negative");
  regions_[index_of(region)].configured = weight;
  reconcile("weight of " + domains_.topology().region_name(region));
}

double TrafficScheduler::planned_weight(RegionIndex region) const { return regions_[index_of(region)].configured; }

void TrafficScheduler::set_switch_share(std::size_t index, double share) {
  Switch& s = switches_[index];
  s.share = share;
  std::string to;
  for (RegionIndex r : s.to) to += (to.empty() ? "" : "+") + domains_.topology().region_name(r);
  const std::string what = s.name + ": " + percent(share) + " of " + domains_.topology().region_name(s.from) +
                           "'s share moved to " + to;
  log_event(event_kinds::scheduler::kSwitchStep, what);
  reconcile(what);
}

void TrafficScheduler::start_switch(const std::string& name, RegionIndex from, std::vector<RegionIndex> to,
                                    std::vector<RoutingSwitchStep> steps, bool back) {
  index_of(from);
  for (RegionIndex r : to) index_of(r);
  if (steps.empty()) steps = default_switch_steps();
  // The switch of that step; a stand-alone switch-back (reverse: true) takes back the latest switch out of
  // the same region.
  std::optional<std::size_t> index;
  for (std::size_t k = 0; k < switches_.size(); ++k) {
    if (switches_[k].name == name) index = k;
  }
  if (!index && back) {
    for (std::size_t k = switches_.size(); k-- > 0;) {
      if (switches_[k].from == from) {
        index = k;
        break;
      }
    }
  }
  if (!index) {
    switches_.push_back(Switch{.name = name, .from = from, .to = std::move(to)});
    index = switches_.size() - 1;
  }
  const std::size_t k = *index;
  Switch& s = switches_[k];
  for (EventId id : s.pending) cancel(id);
  s.pending.clear();
  const std::size_t n = steps.size();
  if (!back) {
    for (const RoutingSwitchStep& step : steps) {
      const double share = step.share.value;
      s.pending.push_back(
          schedule_after(step.after, "scheduler.switch_step", [this, k, share] { set_switch_share(k, share); }));
    }
    return;
  }
  // Switch-back: the stages in reverse order, the gaps between them reversed:
  // stage j comes at a[n-1] - a[n-1-j] and leaves the share of stage n-2-j (0 at the end).
  // A stand-alone switch-back (reverse: true) starts from the full switch.
  if (s.share == 0) s.share = steps.back().share.value;
  const Duration last = steps.back().after;
  for (std::size_t j = 0; j < n; ++j) {
    const double share = j + 2 <= n ? steps[n - 2 - j].share.value : 0.0;
    s.pending.push_back(schedule_after(last - steps[n - 1 - j].after, "scheduler.switch_step",
                                       [this, k, share] { set_switch_share(k, share); }));
  }
}

void TrafficScheduler::stop() {
  metrics_->finish(now());
  recorder().kpi("routing.failovers", {{"population", label_}}, failovers_);
}

}  // namespace drsim

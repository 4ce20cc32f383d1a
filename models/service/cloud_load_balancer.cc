#include "models/service/cloud_load_balancer.h"

#include <algorithm>

#include "models/service/service.h"
#include "models/service/service_event_kinds.h"
#include "sim/errors.h"
#include "sim/simulation.h"
#include "sim/units.h"

namespace drsim {

CloudLoadBalancer::CloudLoadBalancer(Service& service, const LoadBalancerSettings& settings, FailureDomains* domains)
    : Component("lb/" + service.config().name),
      service_(service),
      settings_(settings),
      domains_(domains),
      nodes_(service.zone_count()),
      spans_regions_(spans_regions()) {
  if (settings_.timeout >= settings_.interval) {
    throw SimulationError("load balancer of \"" + service.config().name + "\": timeout must be less than interval");
  }
  service_.use_load_balancer(*this, settings_);
}

void CloudLoadBalancer::attach() {
  service_.on_pod_added([this](std::size_t pod) {
    // A new target starts unhealthy and is checked from its registration on.
    register_target(pod, false, Duration::zero());
  });
  if (domains_ != nullptr) domains_->on_change([this] { on_topology_change(); });
}

void CloudLoadBalancer::start() {
  log_event(event_kinds::lb::kSettings,
            service_.config().name + ": " + (settings_.cross_zone ? "cross-zone" : "zonal") + " load balancer, " +
                "target checks every " + format_duration(settings_.interval) + " (timeout " +
                format_duration(settings_.timeout) + ", unhealthy after " +
                std::to_string(settings_.unhealthy_threshold) + ", healthy after " +
                std::to_string(settings_.healthy_threshold) + "), node checks every " +
                format_duration(settings_.node_check_interval) + " (" +
                std::to_string(settings_.node_failure_threshold) + " to change), DNS TTL " +
                format_duration(settings_.dns_ttl));
  // The starting state is a steady one: every target registered and healthy, each checked at its own phase.
  for (std::size_t p = 0; p < service_.pod_total(); ++p) {
    if (!service_.pod_present(p)) continue;
    register_target(p, true, Duration{static_cast<std::int64_t>(rng().uniform() * settings_.interval.count())});
  }
  for (std::size_t z = 0; z < nodes_.size(); ++z) {
    const auto phase = Duration{static_cast<std::int64_t>(rng().uniform() * settings_.node_check_interval.count())};
    schedule_after(phase, "lb.node_check", [this, z] { check_node(z); });
  }
  on_topology_change();
}

void CloudLoadBalancer::register_target(std::size_t pod, bool healthy, Duration first_check) {
  if (targets_.size() <= pod) targets_.resize(pod + 1);
  Target& t = targets_[pod];
  t.registered = true;
  t.healthy = healthy;
  t.streak = 0;
  service_.set_pod_listed(pod, healthy);
  schedule_after(first_check, "lb.target_check", [this, pod] { check_target(pod); });
}

void CloudLoadBalancer::check_target(std::size_t pod) {
  // A target that is gone is deregistered: no more checks.
  if (!service_.pod_present(pod)) {
    targets_[pod].registered = false;
    return;
  }
  if (service_.answers_health_check(pod)) {
    target_result(pod, true);  // an answer takes well under a millisecond: no wait is modelled
  } else {
    schedule_after(settings_.timeout, "lb.target_check_timeout", [this, pod] { target_result(pod, false); });
  }
  schedule_after(settings_.interval, "lb.target_check", [this, pod] { check_target(pod); });
}

void CloudLoadBalancer::target_result(std::size_t pod, bool passed) {
  Target& t = targets_[pod];
  if (!service_.pod_present(pod)) return;
  if (passed == t.healthy) {
    t.streak = 0;
    return;
  }
  ++t.streak;
  const std::uint32_t needed = passed ? settings_.healthy_threshold : settings_.unhealthy_threshold;
  if (t.streak < needed) return;
  t.healthy = passed;
  t.streak = 0;
  service_.set_pod_listed(pod, passed);
  if (!passed) ++marked_unhealthy_;
  const std::size_t z = service_.pod_zone(pod);
  log_event(passed ? event_kinds::lb::kTargetHealthy : event_kinds::lb::kTargetUnhealthy,
            service_.config().name + ": " + service_.pod_name(pod) + " " +
                (passed ? "passed " + std::to_string(settings_.healthy_threshold)
                        : "failed " + std::to_string(settings_.unhealthy_threshold)) +
                " checks in a row (" + zone_label(z) + ")");
  if (!settings_.cross_zone) update_answer(z);
}

void CloudLoadBalancer::check_node(std::size_t z) {
  Node& node = nodes_[z];
  const bool passed = node.alive;
  const auto apply = [this, z, passed] {
    Node& n = nodes_[z];
    if (passed == n.check_healthy) {
      n.streak = 0;
      return;
    }
    if (++n.streak < settings_.node_failure_threshold) return;
    n.check_healthy = passed;
    n.streak = 0;
    update_answer(z);
  };
  if (passed) {
    apply();
  } else {
    schedule_after(kNodeCheckTimeout, "lb.node_check_timeout", apply);
  }
  schedule_after(settings_.node_check_interval, "lb.node_check", [this, z] { check_node(z); });
}

void CloudLoadBalancer::update_answer(std::size_t z) {
  Node& node = nodes_[z];
  bool answer = node.check_healthy;
  if (answer && !settings_.cross_zone) {
    // Zonal DNS failover: a zone without a healthy target leaves the answer.
    bool any = false;
    for (std::size_t p = 0; p < targets_.size() && !any; ++p) {
      any = targets_[p].registered && targets_[p].healthy && service_.pod_present(p) && service_.pod_zone(p) == z;
    }
    answer = any;
  }
  if (answer == node.answered) return;
  node.answered = answer;
  const SimTime t = now();
  // Only the last change before the oldest answer a caller may hold matters.
  auto& changes = node.changes;
  while (changes.size() >= 2 && changes[1].first <= t - settings_.dns_ttl) changes.erase(changes.begin());
  changes.emplace_back(t, answer);
  if (!answer) ++node_removals_;
  log_event(answer ? event_kinds::lb::kNodeRestored : event_kinds::lb::kNodeRemoved,
            service_.config().name + ": node in " + zone_label(z) + (answer ? " back in" : " out of") +
                " the DNS answer (TTL " + format_duration(settings_.dns_ttl) + ")");
  refresh_risk();
}

bool CloudLoadBalancer::answered_at(const Node& node, SimTime t) const {
  bool answered = true;  // answered from the start until its first change
  for (const auto& [at, value] : node.changes) {
    if (at > t) break;
    answered = value;
  }
  return answered;
}

void CloudLoadBalancer::on_topology_change() {
  if (domains_ == nullptr) return;
  for (std::size_t z = 0; z < nodes_.size(); ++z) {
    const std::optional<ZoneIndex> where = service_.topology_zone(z);
    nodes_[z].alive = !where || domains_->zone_up(*where);
  }
  refresh_risk();
}

void CloudLoadBalancer::refresh_risk() {
  dead_node_answered_ = false;
  for (const Node& node : nodes_) {
    if (node.alive) continue;
    if (node.answered) dead_node_answered_ = true;
    if (!node.changes.empty() && !node.changes.back().second) {
      risk_until_ = std::max(risk_until_, node.changes.back().first + settings_.dns_ttl);
    }
  }
}

std::optional<EntryNodes::Entry> CloudLoadBalancer::pick_entry(std::optional<RegionIndex> region) {
  // With crossZone on, which live node of a region a request enters changes nothing: draw only while a
  // caller may hold the address of a dead one, or to pick the region of a service in several.
  if (settings_.cross_zone && !dead_node_answered_ && now() >= risk_until_ && (region || !spans_regions_)) {
    return std::nullopt;
  }
  // The caller resolved at an instant spread evenly over the last TTL: it holds that instant's answer.
  const SimTime resolved = now() - Duration{static_cast<std::int64_t>(rng().uniform() * settings_.dns_ttl.count())};
  scratch_.clear();
  for (std::size_t z = 0; z < nodes_.size(); ++z) {
    if (region && service_.zone_region(z) != region) continue;
    if (answered_at(nodes_[z], resolved)) scratch_.push_back(z);
  }
  if (scratch_.empty()) {
    // No node answered: the DNS answers with all of them, as Route 53 does when every record is unhealthy.
    for (std::size_t z = 0; z < nodes_.size(); ++z) {
      if (!region || service_.zone_region(z) == region) scratch_.push_back(z);
    }
  }
  if (scratch_.empty()) return std::nullopt;
  const std::size_t z = scratch_[rng().below(scratch_.size())];
  return Entry{z, nodes_[z].alive};
}

bool CloudLoadBalancer::spans_regions() const {
  for (std::size_t z = 1; z < service_.zone_count(); ++z) {
    if (service_.zone_region(z) != service_.zone_region(0)) return true;
  }
  return false;
}

std::string CloudLoadBalancer::zone_label(std::size_t z) const { return "zone " + service_.zone_name(z); }

void CloudLoadBalancer::stop() {
  const Labels labels{{"service", service_.config().name}};
  recorder().kpi("lb.targets_marked_unhealthy", labels, marked_unhealthy_);
  recorder().kpi("lb.node_removals", labels, node_removals_);
}

}  // namespace drsim

#include "models/traffic/routing_rules_store.h"

#include <algorithm>

#include "models/traffic/traffic_event_kinds.h"
#include "sim/simulation.h"

namespace drsim {

namespace {
std::string seconds(Duration d) { return format_seconds(d) + "s"; }
}  // namespace

RoutingRulesStore::RoutingRulesStore(std::string label, RaftGroup& group, Duration retry_interval,
                                     Duration metrics_window)
    : Component("routing-rules/" + label),
      label_(std::move(label)),
      group_(group),
      retry_interval_(retry_interval),
      metrics_window_(metrics_window) {}

void RoutingRulesStore::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  g_pending_ = metrics_->gauge("routing.pending_changes", {{"population", label_}});
}

void RoutingRulesStore::stop() {
  metrics_->finish(now());
  const Labels labels{{"population", label_}};
  recorder().kpi("routing.changes", labels, applied_);
  recorder().kpi("routing.changes_delayed", labels, delayed_);
  Duration worst{};
  for (Duration d : delays_) worst = std::max(worst, d);
  recorder().kpi("routing.max_change_delay_seconds", labels, to_seconds(worst));
}

void RoutingRulesStore::submit(std::string description, std::function<void()> apply) {
  // Behind a change that is waiting for a leader, this one waits too.
  const bool behind_waiting = !queue_.empty() && queue_.front().waited;
  if (behind_waiting) {
    log_event(event_kinds::routing_rules::kChangeDelayed,
              description + ": queued behind a change waiting for a leader of " + group_.config().name);
  }
  queue_.push_back(Change{std::move(description), std::move(apply), now(), behind_waiting});
  metrics_->set(g_pending_, now(), static_cast<double>(queue_.size()));
  if (queue_.size() == 1) propose_head();
}

void RoutingRulesStore::propose_head() {
  if (queue_.empty()) return;
  Change& head = queue_.front();
  const std::optional<Duration> latency = group_.propose();
  if (!latency) {
    if (!head.waited) {
      head.waited = true;
      log_event(event_kinds::routing_rules::kChangeDelayed,
                head.description + ": consensus group " + group_.config().name + " has no leader; retrying every " +
                    seconds(retry_interval_));
    }
    next_ = schedule_after(retry_interval_, "routing.retry", [this] { propose_head(); });
    return;
  }
  next_ = schedule_after(*latency, "routing.commit", [this] {
    Change change = std::move(queue_.front());
    queue_.pop_front();
    change.apply();
    const Duration delay = now() - change.made;
    delays_.push_back(delay);
    ++applied_;
    if (change.waited) ++delayed_;
    metrics_->set(g_pending_, now(), static_cast<double>(queue_.size()));
    log_event(event_kinds::routing_rules::kChangeApplied,
              change.description + ", " + seconds(delay) + " after it was made");
    propose_head();
  });
}

void apply_routing_change(RoutingRulesStore* store, std::string description, std::function<void()> change) {
  if (store == nullptr) {
    change();
    return;
  }
  store->submit(std::move(description), std::move(change));
}

}  // namespace drsim

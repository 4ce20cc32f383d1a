#pragma once
// Routing rules kept in a consensus group, as a global traffic scheduler
// keeps them (docs/sources.md section 5: "Global traffic scheduler (Raft-replicated
// routing rules)"): a routing change (a routing:weight step, a health
// checker's "weight 0" of issue 6) takes effect only once the group has
// committed it.
//
//   commit   the change is proposed to the group (RaftGroup::propose) and
//            applied one commit latency later (the leader's quorum round
//            trip)
//   no quorum  the group has no leader: the proposal fails, and the change is
//            proposed again every retryInterval (the client's retry) until
//            a leader exists. A control plane without quorum freezes routing
//   order    changes apply in the order they were made: one proposal at a
//            time, as they would follow one another in the group's log
//
// Recorded per window (label population): routing.pending_changes. KPIs:
// routing.changes (applied), routing.changes_delayed (waited for a leader,
// themselves or queued behind one that did),
// routing.max_change_delay_seconds (made -> applied, worst). Events: the
// routing_rules.* kinds (models/traffic/traffic_event_kinds.h); a change is
// delayed once, at its first failed proposal.
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/data/raft_group.h"
#include "models/metrics/windowed_metrics.h"
#include "sim/component.h"

namespace drsim {

class RoutingRulesStore : public Component {
 public:
  // label: what the rules route (the population's name), for series and events.
  RoutingRulesStore(std::string label, RaftGroup& group, Duration retry_interval,
                    Duration metrics_window = std::chrono::seconds(1));

  // A routing change: `apply` runs once the group has committed it.
  void submit(std::string description, std::function<void()> apply);

  const RaftGroup& group() const { return group_; }
  std::size_t pending() const { return queue_.size(); }
  std::uint32_t applied() const { return applied_; }
  std::uint32_t delayed() const { return delayed_; }
  // Made -> applied, per applied change.
  const std::vector<Duration>& delays() const { return delays_; }

 protected:
  void attach() override;
  void stop() override;

 private:
  struct Change {
    std::string description;
    std::function<void()> apply;
    SimTime made{};
    bool waited = false;
  };
  void propose_head();

  std::string label_;
  RaftGroup& group_;
  Duration retry_interval_;
  Duration metrics_window_;
  std::deque<Change> queue_;
  EventId next_;  // the head's commit, or its retry
  std::uint32_t applied_ = 0, delayed_ = 0;
  std::vector<Duration> delays_;
  std::optional<WindowedMetrics> metrics_;
  GaugeId g_pending_;
};

// A change to a population's routing: through its rules store when it has
// one (store not null), at once otherwise. What routing:weight uses, and
// what a health checker changing weights or availability should use.
void apply_routing_change(RoutingRulesStore* store, std::string description, std::function<void()> change);

}  // namespace drsim

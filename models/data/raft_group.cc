#include "models/data/raft_group.h"

#include <algorithm>

#include "models/data/data_event_kinds.h"
#include "models/topology/network_model.h"
#include "sim/errors.h"
#include "sim/quote.h"
#include "sim/simulation.h"

namespace drsim {

RaftGroup::RaftGroup(RaftConfig config, FailureDomains& domains, Duration metrics_window)
    : Component("raft/" + config.name), config_(std::move(config)), domains_(domains), metrics_window_(metrics_window) {
  if (auto problems = config_.validate(); !problems.empty()) {
    throw SimulationError("consensus group " + quote(config_.name) + ": " + problems[0].field + " " +
                          problems[0].message);
  }
  for (const auto& mc : config_.members) {
    auto z = domains_.topology().find_zone(mc.zone);
    if (!z) throw SimulationError("consensus group " + quote(config_.name) + ": unknown zone " + quote(mc.zone));
    members_.push_back(Member{*z, mc.zone, {}});
  }
}

std::string RaftGroup::leader_zone() const { return leader_ ? members_[*leader_].zone_name : std::string(); }

Duration RaftGroup::unavailable() const {
  return unavailable_ + (unavailable_since_ ? now() - *unavailable_since_ : Duration::zero());
}

// ---- topology questions ----

std::vector<std::size_t> RaftGroup::partition_of(std::size_t m) const {
  std::vector<std::size_t> out;
  if (!up(m)) return out;
  const NetworkModel& net = domains_.network();
  for (std::size_t p = 0; p < members_.size(); ++p) {
    if (p == m || net.path(members_[m].zone, members_[p].zone).reachable) out.push_back(p);
  }
  return out;
}

std::optional<std::vector<std::size_t>> RaftGroup::majority_partition() const {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    auto part = partition_of(m);
    if (part.size() >= config_.majority()) return part;
  }
  return std::nullopt;
}

std::optional<Duration> RaftGroup::quorum_round_trip(std::size_t from, const std::vector<std::size_t>& peers) const {
  const std::size_t others = config_.majority() - 1;
  if (others == 0) return Duration::zero();
  const NetworkModel& net = domains_.network();
  std::vector<Duration> rtts;
  for (std::size_t p : peers) {
    if (p == from) continue;
    const NetworkPath& path = net.path(members_[from].zone, members_[p].zone);
    if (members_[from].zone == members_[p].zone) {
      rtts.push_back(Duration::zero());
    } else if (path.reachable) {
      rtts.push_back(2 * path.one_way);
    }
  }
  if (rtts.size() < others) return std::nullopt;
  std::nth_element(rtts.begin(), rtts.begin() + static_cast<std::ptrdiff_t>(others - 1), rtts.end());
  return rtts[others - 1];
}

namespace {
int rank_of(const RaftConfig& c, const Topology& topo, ZoneIndex zone) {
  if (!c.preferred_zone.empty() && topo.zone_name(zone) == c.preferred_zone) return 2;
  if (!c.preferred_region.empty() && topo.region_name(topo.region_of(zone)) == c.preferred_region) return 1;
  return 0;
}
}  // namespace

bool RaftGroup::preferred(std::size_t m) const { return rank_of(config_, domains_.topology(), members_[m].zone) > 0; }

// ---- lifecycle ----

void RaftGroup::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  const Labels labels{{"group", config_.name}};
  g_quorum_ = metrics_->gauge("raft.has_quorum", labels);
  g_term_ = metrics_->gauge("raft.term", labels);
  c_commits_ = metrics_->counter("raft.commits", labels);
  c_failed_ = metrics_->counter("raft.failed_proposals", labels);
  l_commit_ = metrics_->latency("raft.commit_latency", labels);
  for (std::size_t m = 0; m < members_.size(); ++m) {
    members_[m].g_leader = metrics_->gauge(
        "raft.leader", {{"group", config_.name}, {"member", std::to_string(m)}, {"zone", members_[m].zone_name}});
  }
  domains_.on_change([this] { on_change(); });
}

void RaftGroup::start() {
  // The group starts with a leader (the best-placed member), as after its bootstrap.
  std::optional<std::size_t> first;
  int best = -1;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const int r = rank_of(config_, domains_.topology(), members_[m].zone);
    if (up(m) && partition_of(m).size() >= config_.majority() && r > best) {
      best = r;
      first = m;
    }
  }
  started_ = true;
  if (first) {
    leader_ = first;
    term_ = 1;
    metrics_->set(g_quorum_, now(), 1);
    metrics_->set(g_term_, now(), 1);
    set_leader_gauges();
  } else {
    unavailable_since_ = now();
  }
  on_change();
  if (config_.proposal_rate.per_second > 0) builtin_propose();
}

void RaftGroup::stop() {
  metrics_->finish(now());
  const Labels labels{{"group", config_.name}};
  recorder().kpi("raft.unavailable_seconds", labels, to_seconds(unavailable()));
  recorder().kpi("raft.elections", labels, elections_);
  recorder().kpi("raft.leader_transfers", labels, transfers_);
  Duration worst{};
  for (Duration d : election_times_) worst = std::max(worst, d);
  recorder().kpi("raft.max_election_seconds", labels, to_seconds(worst));
}

void RaftGroup::builtin_propose() {
  propose();
  const auto interval = Duration{static_cast<std::int64_t>(1e9 / config_.proposal_rate.per_second)};
  schedule_after(interval, "raft.propose", [this] { builtin_propose(); });
}

std::optional<Duration> RaftGroup::propose() {
  std::optional<Duration> rtt;
  if (leader_) rtt = quorum_round_trip(*leader_, partition_of(*leader_));
  if (!rtt) {
    metrics_->add(c_failed_, now());
    return std::nullopt;
  }
  metrics_->add(c_commits_, now());
  metrics_->observe(l_commit_, now(), *rtt);
  return rtt;
}

// ---- leadership ----

void RaftGroup::on_change() {
  if (!started_) return;  // FailureDomains may announce its initial state before this group starts
  if (leader_) {
    if (!up(*leader_)) {
      lose_leader("its zone is down");
    } else if (partition_of(*leader_).size() < config_.majority()) {
      lose_leader("it cannot reach a majority (CheckQuorum)");
    } else {
      consider_transfer();
      return;
    }
    return;
  }
  // No leader: keep a campaign under way if its candidate still can win.
  if (candidate_ && sim().is_pending(election_event_) && partition_of(*candidate_).size() >= config_.majority()) {
    return;
  }
  schedule_election(now());
}

void RaftGroup::lose_leader(const std::string& why) {
  log_event(event_kinds::raft::kLeaderLost, "member " + std::to_string(*leader_) + " (" + members_[*leader_].zone_name +
                                                "), term " + std::to_string(term_) + ": " + why);
  leader_.reset();
  lost_at_ = now();
  unavailable_since_ = now();
  cancel(transfer_event_);
  metrics_->set(g_quorum_, now(), 0);
  set_leader_gauges();
  // The followers last heard the leader at its last heartbeat.
  const std::int64_t h = to_ns(config_.heartbeat_interval);
  schedule_election(SimTime{Duration{to_ns(now()) / h * h}});
}

void RaftGroup::schedule_election(SimTime heard_until) {
  cancel(election_event_);
  candidate_.reset();
  auto part = majority_partition();
  if (!part) {
    log_event(event_kinds::raft::kNoQuorum, "no partition holds " + std::to_string(config_.majority()) + " of " +
                                                std::to_string(members_.size()) + " members: no leader, no commits");
    return;
  }
  const double t = to_seconds(config_.election_timeout);
  SimTime best = kSimTimeMax;
  for (std::size_t m : *part) {
    const SimTime deadline = heard_until + Duration{static_cast<std::int64_t>(rng().uniform(t, 2 * t) * 1e9)};
    if (deadline < best) {
      best = deadline;
      candidate_ = m;
    }
  }
  election_event_ = schedule_at(std::max(best, now()), "raft.campaign", [this] { campaign(*candidate_); });
}

void RaftGroup::campaign(std::size_t c) {
  const auto peers = partition_of(c);
  if (peers.size() < config_.majority()) {
    schedule_election(now());
    return;
  }
  ++term_;
  metrics_->set(g_term_, now(), static_cast<double>(term_));
  log_event(event_kinds::raft::kCampaign,
            "member " + std::to_string(c) + " (" + members_[c].zone_name + ") for term " + std::to_string(term_));
  const Duration votes = quorum_round_trip(c, peers).value_or(Duration::zero());
  election_event_ = schedule_after(votes, "raft.elected", [this, c] {
    if (partition_of(c).size() < config_.majority()) {
      schedule_election(now());
      return;
    }
    become_leader(c);
  });
}

void RaftGroup::become_leader(std::size_t m) {
  const bool was_leaderless = !leader_;
  leader_ = m;
  candidate_.reset();
  leader_changes_.push_back(now());
  if (was_leaderless) {
    ++elections_;
    election_times_.push_back(now() - lost_at_);
    if (unavailable_since_) unavailable_ += now() - *unavailable_since_;
    unavailable_since_.reset();
  }
  metrics_->set(g_quorum_, now(), 1);
  metrics_->set(g_term_, now(), static_cast<double>(term_));
  set_leader_gauges();
  log_event(event_kinds::raft::kLeaderElected,
            "member " + std::to_string(m) + " (" + members_[m].zone_name + ") leads term " + std::to_string(term_) +
                (was_leaderless ? ", " + format_seconds(now() - lost_at_) + "s after the leader was lost" : ""));
  consider_transfer();
}

void RaftGroup::consider_transfer() {
  if (!leader_ || (config_.preferred_zone.empty() && config_.preferred_region.empty())) return;
  const Topology& topo = domains_.topology();
  const int current = rank_of(config_, topo, members_[*leader_].zone);
  bool better = false;
  for (std::size_t p : partition_of(*leader_)) better |= rank_of(config_, topo, members_[p].zone) > current;
  if (!better) {
    cancel(transfer_event_);
    return;
  }
  if (sim().is_pending(transfer_event_)) return;
  transfer_event_ = schedule_after(config_.leader_transfer_delay, "raft.transfer", [this] { transfer(); });
}

void RaftGroup::transfer() {
  if (!leader_) return;
  const Topology& topo = domains_.topology();
  const std::size_t from = *leader_;
  const auto peers = partition_of(from);
  std::optional<std::size_t> target;
  int best = rank_of(config_, topo, members_[from].zone);
  for (std::size_t p : peers) {
    const int r = rank_of(config_, topo, members_[p].zone);
    if (r > best) {
      best = r;
      target = p;
    }
  }
  if (!target) return;
  // TimeoutNow reaches the target, which campaigns at once and wins a majority's votes.
  const Duration notify = domains_.network().path(members_[from].zone, members_[*target].zone).one_way;
  const Duration votes = quorum_round_trip(*target, partition_of(*target)).value_or(Duration::zero());
  const std::size_t to = *target;
  transfer_event_ = schedule_after(notify + votes, "raft.transferred", [this, from, to] {
    if (leader_ != from || !up(to) || partition_of(to).size() < config_.majority()) return;
    ++term_;
    ++transfers_;
    log_event(event_kinds::raft::kLeadershipTransfer, "leadership from member " + std::to_string(from) + " (" +
                                                          members_[from].zone_name + ") to member " +
                                                          std::to_string(to) + " (" + members_[to].zone_name + ")");
    become_leader(to);
  });
}

void RaftGroup::set_leader_gauges() {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    metrics_->set(members_[m].g_leader, now(), leader_ == m ? 1 : 0);
  }
}

}  // namespace drsim

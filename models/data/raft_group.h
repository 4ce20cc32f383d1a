#pragma once
// A Raft (or ZAB) consensus group on the event timeline: who leads, and
// whether the group can commit at all, as zones fail and links are cut.
//
//   leader lost   its zone fails, or it can no longer reach a majority (it
//                 steps down, as etcd's CheckQuorum; it cannot commit from
//                 that instant)
//   election      the followers' last heartbeat came at the last multiple of
//                 heartbeatInterval; each up member of the partition holding
//                 a majority draws a timeout in [T, 2T]; the first to expire
//                 campaigns (term + 1) and wins once a majority's votes are
//                 back: the (majority - 1)-th smallest round trip to the
//                 other members of its partition. No partition with a
//                 majority: no leader, no commits, until the topology changes
//   preference    with a preferred zone/region, a healthy leader elsewhere
//                 hands over (TimeoutNow) leaderTransferDelay after a
//                 preferred member is available in its partition, as TiDB's
//                 placement driver moves leaders back
//   commit        a proposal commits one quorum round trip after it reaches
//                 the leader; fails at once without a leader
//
// Messages take the topology's one-way delays (half the RTT of the shortest
// route that is up); partitions are the topology's connected components.
//
// Recorded per window (label group; member and zone per member):
// raft.has_quorum (0/1), raft.term, raft.leader per member (0/1),
// raft.commits, raft.failed_proposals, raft.commit_latency_*. KPIs:
// raft.unavailable_seconds, raft.elections, raft.leader_transfers,
// raft.max_election_seconds (leader lost -> new leader).
// Events: the raft.* kinds (models/data/data_event_kinds.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/data/raft_config.h"
#include "models/metrics/windowed_metrics.h"
#include "models/topology/failure_domains.h"
#include "sim/component.h"

namespace drsim {

class RaftGroup : public Component {
 public:
  RaftGroup(RaftConfig config, FailureDomains& domains, Duration metrics_window = std::chrono::seconds(1));

  // A client's proposal: its commit latency, or nullopt when the group has
  // no leader (the request fails).
  std::optional<Duration> propose();

  const RaftConfig& config() const { return config_; }
  std::optional<std::size_t> leader() const { return leader_; }
  // The leader's zone name; empty without a leader.
  std::string leader_zone() const;
  std::uint64_t term() const { return term_; }
  bool has_quorum() const { return leader_.has_value(); }
  std::uint32_t elections() const { return elections_; }
  std::uint32_t transfers() const { return transfers_; }
  Duration unavailable() const;
  // Every election's time from losing a leader to the next one.
  const std::vector<Duration>& election_times() const { return election_times_; }
  const std::vector<SimTime>& leader_changes() const { return leader_changes_; }

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Member {
    ZoneIndex zone = 0;
    std::string zone_name;
    GaugeId g_leader;
  };

  bool up(std::size_t m) const { return domains_.zone_up(members_[m].zone); }
  // The up members in m's partition (m included).
  std::vector<std::size_t> partition_of(std::size_t m) const;
  // The members of a partition holding a majority, if any.
  std::optional<std::vector<std::size_t>> majority_partition() const;
  // Time for `from` to hear from a majority (itself included) among peers.
  std::optional<Duration> quorum_round_trip(std::size_t from, const std::vector<std::size_t>& peers) const;
  bool preferred(std::size_t m) const;

  void on_change();
  void lose_leader(const std::string& why);
  void schedule_election(SimTime heard_until);
  void campaign(std::size_t candidate);
  void become_leader(std::size_t m);
  void consider_transfer();
  void transfer();
  void set_leader_gauges();
  void builtin_propose();

  RaftConfig config_;
  FailureDomains& domains_;
  Duration metrics_window_;
  std::vector<Member> members_;
  bool started_ = false;
  std::optional<std::size_t> leader_;
  std::uint64_t term_ = 0;
  std::optional<std::size_t> candidate_;
  EventId election_event_, transfer_event_;
  SimTime lost_at_{};
  std::optional<SimTime> unavailable_since_;
  Duration unavailable_{};
  std::uint32_t elections_ = 0, transfers_ = 0;
  std::vector<Duration> election_times_;
  std::vector<SimTime> leader_changes_;

  std::optional<WindowedMetrics> metrics_;
  GaugeId g_quorum_, g_term_;
  CounterId c_commits_, c_failed_;
  LatencyId l_commit_;
};

}  // namespace drsim

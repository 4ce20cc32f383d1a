#pragma once
// A consensus group (spec.consensusGroups[]): Raft or ZAB members placed in
// zones (a zone may hold several: ZooKeeper's 2N:2N:1 is [a, a, b, b, c]),
// its timers and where its leader should be. RaftGroup runs it.
//
// Defaults and where they come from:
//   electionTimeout 1s      etcd --election-timeout = 1000 ms (followers
//                           wait a random time in [T, 2T], as etcd's
//                           randomized election timeout)
//   heartbeatInterval 100ms etcd --heartbeat-interval = 100 ms
//   leaderTransferDelay 10s an assumption: a placement driver (TiDB PD)
//                           moves leaders back on its next scheduling round
//                           after it sees the preferred store healthy
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

struct RaftMemberConfig {
  std::string zone;

  static constexpr std::string_view kTypeName = "RaftMember";
  static constexpr auto fields() {
    return std::tuple{field("zone", &RaftMemberConfig::zone, "The zone this member runs in.", kRequired)};
  }
};

struct RaftConfig {
  std::string name;
  std::vector<RaftMemberConfig> members;
  Duration election_timeout = std::chrono::milliseconds(1000);
  Duration heartbeat_interval = std::chrono::milliseconds(100);
  // Leader preference, as a placement driver's leader rules: the leader is
  // moved to a member here whenever one is up and in the leader's partition.
  std::string preferred_zone;
  std::string preferred_region;
  Duration leader_transfer_delay = std::chrono::seconds(10);
  // Built-in proposals (tests, or a group no service drives); 0: none.
  Rate proposal_rate{0};

  std::size_t majority() const { return members.size() / 2 + 1; }

  static constexpr std::string_view kTypeName = "ConsensusGroup";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &RaftConfig::name, "Group name, unique in the scenario.", kRequired),
        field("members", &RaftConfig::members, "The voting members and their zones.", kRequired),
        field("electionTimeout", &RaftConfig::election_timeout,
              "A follower without heartbeats campaigns after a random time in [T, 2T] (etcd: 1000 ms).", kPositive),
        field("heartbeatInterval", &RaftConfig::heartbeat_interval,
              "Time between the leader's heartbeats (etcd: 100 ms).", kPositive),
        field("preferredZone", &RaftConfig::preferred_zone, "Keep the leader in this zone when possible."),
        field("preferredRegion", &RaftConfig::preferred_region,
              "Keep the leader in this region when possible (after preferredZone)."),
        field("leaderTransferDelay", &RaftConfig::leader_transfer_delay,
              "From a preferred member being available to the leader moving there.", kNonNegative),
        field("proposalRate", &RaftConfig::proposal_rate, "Built-in proposals per second (0: none).", kNonNegative),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim

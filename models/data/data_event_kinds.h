#pragma once
// The event kinds of the data tier's models (sim/event_kind.h): a Raft group,
// a database, a Kafka topic and its consumer groups. Listed once more at the
// end, for the catalog (models/results/event_kind_catalog.h).
#include "sim/event_kind.h"

namespace drsim::event_kinds {

namespace raft {  // models/data/raft_group.h
inline constexpr EventKind kCampaign{
    "raft.campaign", "A member's election timer fired: it starts a term and asks for votes.", {.formerly = "campaign"}};
inline constexpr EventKind kLeaderElected{
    "raft.leader_elected", "A member won its election and leads the new term.", {.formerly = "elected"}};
inline constexpr EventKind kLeaderLost{
    "raft.leader_lost", "The leader is down or cut off from a majority: no leader.", {.formerly = "leader-lost"}};
inline constexpr EventKind kNoQuorum{"raft.no_quorum",
                                     "No partition of the members holds a majority: no election can succeed.",
                                     {.formerly = "no-quorum"}};
inline constexpr EventKind kLeadershipTransfer{"raft.leadership_transfer",
                                               "The leader handed leadership to another member (a new term).",
                                               {.formerly = "transfer"}};
}  // namespace raft

namespace database {  // models/data/database.h
inline constexpr EventKind kSemiSyncOn{"database.semi_sync_on",
                                       "A replica caught up: commits wait for its acknowledgement again.",
                                       {.formerly = "semi-sync-on"}};
inline constexpr EventKind kSemiSyncOff{
    "database.semi_sync_off",
    "No replica acknowledged within the timeout: commits fall back to asynchronous.",
    {.formerly = "semi-sync-off"}};
inline constexpr EventKind kReplicaDisconnected{"database.replica_disconnected",
                                                "A replica lost its replication stream (down or cut off).",
                                                {.formerly = "replica-disconnected"}};
inline constexpr EventKind kReplicaConnected{
    "database.replica_connected",
    "A replica reconnected, up to date or catching up on the writes it missed.",
    {.formerly = "replica-connected"}};
inline constexpr EventKind kPrimaryFailed{"database.primary_failed",
                                          "The primary stopped answering; detection follows after the health checks.",
                                          {.formerly = "primary-failed"}};
inline constexpr EventKind kPrimaryRecovered{"database.primary_recovered",
                                             "The failed primary answered again before its failure was detected.",
                                             {.formerly = "primary-recovered"}};
inline constexpr EventKind kSelfFenced{
    "database.self_fenced",
    "The primary's lease ran out without a majority of the members reachable (leaseTimeout): it stops "
    "acknowledging writes until it renews the lease or a replica is promoted."};
inline constexpr EventKind kLeaseRenewed{
    "database.lease_renewed",
    "A self-fenced primary reached a majority again and took its lease back: it takes writes again."};
inline constexpr EventKind kFailureDetected{
    "database.failure_detected",
    "The primary's failure was detected, by the health checks or by an operator's database:failover.",
    {.formerly = "detected", .detects_failure = true}};
inline constexpr EventKind kFailoverIgnored{"database.failover_ignored",
                                            "A database:failover found the primary healthy and did nothing.",
                                            {.formerly = "failover-ignored"}};
inline constexpr EventKind kPromotionBlocked{"database.promotion_blocked",
                                             "Failover found no reachable replica to promote; it waits for one.",
                                             {.formerly = "promotion-blocked"}};
inline constexpr EventKind kPromoted{
    "database.promoted", "A replica was promoted to primary.", {.formerly = "promoted"}};
inline constexpr EventKind kSwitched{
    "database.switched", "Clients reach the new primary: the failover is complete.", {.formerly = "switched"}};
inline constexpr EventKind kKilled{
    "database.killed", "A database:kill action stopped the primary.", {.formerly = "killed"}};
}  // namespace database

namespace kafka {  // models/data/kafka_topic.h
inline constexpr EventKind kBrokerDown{"kafka.broker_down",
                                       "A broker stopped; the controller fences it when its session expires.",
                                       {.formerly = "broker-down"}};
inline constexpr EventKind kBrokerReturned{"kafka.broker_returned",
                                           "A broker is back, before it was fenced or unfenced after it.",
                                           {.formerly = "broker-returned"}};
inline constexpr EventKind kBrokerLost{"kafka.broker_lost",
                                       "The controller fenced a broker whose session expired: its partitions move.",
                                       {.formerly = "broker-lost"}};
inline constexpr EventKind kIsrExpand{
    "kafka.isr_expand", "A replica caught up and rejoined its partition's ISR.", {.formerly = "isr-expand"}};
inline constexpr EventKind kIsrShrink{
    "kafka.isr_shrink", "A replica fell behind or was lost: it left the ISR.", {.formerly = "isr-shrink"}};
inline constexpr EventKind kPartitionOffline{"kafka.partition_offline",
                                             "A partition lost its leader and no ISR member can take over.",
                                             {.formerly = "partition-offline"}};
inline constexpr EventKind kUncleanElection{"kafka.unclean_election",
                                            "An out-of-sync replica became leader: acknowledged writes may be lost.",
                                            {.formerly = "unclean-election"}};
inline constexpr EventKind kLeaderElected{"kafka.leader_elected",
                                          "A partition has a new leader (after a failure, or its preferred replica).",
                                          {.formerly = "leader-elected"}};
}  // namespace kafka

namespace consumer_group {  // models/data/kafka_consumer_group.h
inline constexpr EventKind kMemberDown{"consumer_group.member_down",
                                       "A consumer stopped; the group notices when its session expires.",
                                       {.formerly = "member-down"}};
inline constexpr EventKind kMemberReturned{
    "consumer_group.member_returned", "A consumer is back and rejoins the group.", {.formerly = "member-returned"}};
inline constexpr EventKind kMemberLost{
    "consumer_group.member_lost", "A consumer's session expired: it leaves the group.", {.formerly = "member-lost"}};
inline constexpr EventKind kRebalance{
    "consumer_group.rebalance", "The group started a rebalance: consumption pauses.", {.formerly = "rebalance"}};
inline constexpr EventKind kAssigned{"consumer_group.assigned",
                                     "A rebalance finished: partitions are assigned and consumption resumes.",
                                     {.formerly = "assigned"}};
}  // namespace consumer_group

inline constexpr EventKind kDataEventKinds[] = {
    raft::kCampaign,
    raft::kLeaderElected,
    raft::kLeaderLost,
    raft::kNoQuorum,
    raft::kLeadershipTransfer,
    database::kSemiSyncOn,
    database::kSemiSyncOff,
    database::kReplicaDisconnected,
    database::kReplicaConnected,
    database::kPrimaryFailed,
    database::kPrimaryRecovered,
    database::kSelfFenced,
    database::kLeaseRenewed,
    database::kFailureDetected,
    database::kFailoverIgnored,
    database::kPromotionBlocked,
    database::kPromoted,
    database::kSwitched,
    database::kKilled,
    kafka::kBrokerDown,
    kafka::kBrokerReturned,
    kafka::kBrokerLost,
    kafka::kIsrExpand,
    kafka::kIsrShrink,
    kafka::kPartitionOffline,
    kafka::kUncleanElection,
    kafka::kLeaderElected,
    consumer_group::kMemberDown,
    consumer_group::kMemberReturned,
    consumer_group::kMemberLost,
    consumer_group::kRebalance,
    consumer_group::kAssigned,
};

}  // namespace drsim::event_kinds

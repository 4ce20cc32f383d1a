#pragma once
// A Kafka-style topic (spec.topology.topics[]): partitions replicated over
// brokers placed in zones, in-sync replicas, leader election, the producers
// that write to it and the consumer groups that read it. KafkaTopic and
// KafkaConsumerGroup run it.
//
// Semantics and defaults follow Apache Kafka 3.6 in KRaft mode; the config
// names in brackets are Kafka's own:
//   replicationFactor 1        [default.replication.factor] = 1
//   minInsyncReplicas 1        [min.insync.replicas] = 1
//   acks all                   [acks] = all (the producer default since 3.0)
//   replicaLagTimeMax 30s      [replica.lag.time.max.ms] = 30000
//   uncleanLeaderElection no   [unclean.leader.election.enable] = false
//   brokerSessionTimeout 9s    [broker.session.timeout.ms] = 9000 (KRaft: the
//                              controller fences a broker whose heartbeats
//                              stop for this long)
//   brokerHeartbeatInterval 2s [broker.heartbeat.interval.ms] = 2000
//   replicaFetchMaxBytes 1MiB  [replica.fetch.max.bytes] = 1048576
//   autoLeaderRebalance yes    [auto.leader.rebalance.enable] = true
//   leaderImbalanceCheckInterval 300s [leader.imbalance.check.interval.seconds]
//   leaderImbalancePerBroker 10%      [leader.imbalance.per.broker.percentage]
//   messageSize 1KiB           an assumption (what a record costs on the wire)
// Consumer groups:
//   maxPollRecords 500         [max.poll.records] = 500
//   fetchMaxWait 500ms         [fetch.max.wait.ms] = 500 (with fetch.min.bytes 1)
//   sessionTimeout 45s         [session.timeout.ms] = 45000 (since 3.0)
//   heartbeatInterval 3s       [heartbeat.interval.ms] = 3000
//   autoCommitInterval 5s      [auto.commit.interval.ms] = 5000
//   assignor range             [partition.assignment.strategy] = RangeAssignor first
//   recordProcessingTime, batchProcessingTime: the application's own costs
//   (per record, and per non-empty poll: a bulk write downstream), 0 by
//   default.
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

struct BrokerConfig {
  std::string zone;

  static constexpr std::string_view kTypeName = "Broker";
  static constexpr auto fields() {
    return std::tuple{field("zone", &BrokerConfig::zone, "The zone (Kafka's broker.rack) this broker runs in.",
                            kRequired)};
  }
};

// Who writes: the requests a service finishes, or a fixed rate from a zone.
struct TopicProducerConfig {
  std::string service;
  std::uint32_t messages_per_request = 1;
  std::string zone;
  Rate rate{0};

  static constexpr std::string_view kTypeName = "TopicProducer";
  static constexpr auto fields() {
    return std::tuple{
        field("service", &TopicProducerConfig::service,
              "Produce for every request this service serves, from the zone of the pod that served it."),
        field("messagesPerRequest", &TopicProducerConfig::messages_per_request,
              "Messages produced per served request (with service).", kPositive),
        field("zone", &TopicProducerConfig::zone, "A fixed-rate producer's zone (without service)."),
        field("rate", &TopicProducerConfig::rate, "A fixed-rate producer's messages per second, evenly spaced.",
              kNonNegative),
    };
  }
};

struct ConsumerInstancesConfig {
  std::string zone;
  std::uint32_t count = 1;

  static constexpr std::string_view kTypeName = "ConsumerInstances";
  static constexpr auto fields() {
    return std::tuple{
        field("zone", &ConsumerInstancesConfig::zone, "The zone these consumer instances run in.", kRequired),
        field("count", &ConsumerInstancesConfig::count, "Consumer instances (group members) in the zone.",
              kPositive),
    };
  }
};

struct ConsumerGroupConfig {
  std::string name;
  std::vector<ConsumerInstancesConfig> instances;
  std::string assignor = "range";  // range | roundrobin
  std::uint32_t max_poll_records = 500;
  Duration fetch_max_wait = std::chrono::milliseconds(500);
  Duration record_processing_time{};
  Duration batch_processing_time{};
  Duration session_timeout = std::chrono::seconds(45);
  Duration heartbeat_interval = std::chrono::seconds(3);
  Duration auto_commit_interval = std::chrono::seconds(5);

  static constexpr std::string_view kTypeName = "ConsumerGroup";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &ConsumerGroupConfig::name, "Group name (group.id), unique within the topic.", kRequired),
        field("instances", &ConsumerGroupConfig::instances, "The group's members, by zone.", kRequired),
        field("assignor", &ConsumerGroupConfig::assignor,
              "range (contiguous partition ranges per member, Kafka's default) or roundrobin."),
        field("maxPollRecords", &ConsumerGroupConfig::max_poll_records,
              "Records one poll returns at most (max.poll.records, 500).", kPositive),
        field("fetchMaxWait", &ConsumerGroupConfig::fetch_max_wait,
              "An empty poll waits this long for data (fetch.max.wait.ms, 500 ms); data arriving ends it.",
              kPositive),
        field("recordProcessingTime", &ConsumerGroupConfig::record_processing_time,
              "The application's time per record of a batch.", kNonNegative),
        field("batchProcessingTime", &ConsumerGroupConfig::batch_processing_time,
              "The application's fixed time per non-empty batch (a bulk write downstream, a synchronous commit).",
              kNonNegative),
        field("sessionTimeout", &ConsumerGroupConfig::session_timeout,
              "A member whose heartbeats stop this long is removed and the group rebalances (session.timeout.ms, "
              "45 s).",
              kPositive),
        field("heartbeatInterval", &ConsumerGroupConfig::heartbeat_interval,
              "Time between a member's heartbeats (heartbeat.interval.ms, 3 s).", kPositive),
        field("autoCommitInterval", &ConsumerGroupConfig::auto_commit_interval,
              "A poll commits the positions when this long has passed since the last commit "
              "(auto.commit.interval.ms, 5 s).",
              kPositive),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

struct TopicConfig {
  std::string name;
  std::uint32_t partitions = 1;
  std::vector<BrokerConfig> brokers;
  std::uint32_t replication_factor = 1;
  std::uint32_t min_insync_replicas = 1;
  std::string acks = "all";  // all | 1
  Duration replica_lag_time_max = std::chrono::seconds(30);
  bool unclean_leader_election = false;
  Duration broker_session_timeout = std::chrono::seconds(9);
  Duration broker_heartbeat_interval = std::chrono::seconds(2);
  ByteSize message_size{1024};
  ByteSize replica_fetch_max_bytes{1024 * 1024};
  bool auto_leader_rebalance = true;
  Duration leader_imbalance_check_interval = std::chrono::seconds(300);
  Ratio leader_imbalance_per_broker{0.10};
  std::vector<TopicProducerConfig> producers;
  std::vector<ConsumerGroupConfig> consumer_groups;

  bool acks_all() const { return acks == "all"; }

  static constexpr std::string_view kTypeName = "Topic";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &TopicConfig::name, "Topic name, unique in the scenario.", kRequired),
        field("partitions", &TopicConfig::partitions, "Number of partitions.", kPositive),
        field("brokers", &TopicConfig::brokers,
              "The brokers that hold the topic, each in a zone (its rack); broker ids are list positions.",
              kRequired),
        field("replicationFactor", &TopicConfig::replication_factor,
              "Replicas per partition, assigned round-robin over the brokers alternated by zone, as Kafka's "
              "rack-aware assignment (default.replication.factor, 1).",
              kPositive),
        field("minInsyncReplicas", &TopicConfig::min_insync_replicas,
              "acks=all produces fail while a partition's ISR is smaller (min.insync.replicas, 1).", kPositive),
        field("acks", &TopicConfig::acks,
              "all (a produce needs minInsyncReplicas in the ISR; Kafka's default since 3.0) or 1 (the leader "
              "alone)."),
        field("replicaLagTimeMax", &TopicConfig::replica_lag_time_max,
              "A follower not caught up for this long leaves the ISR (replica.lag.time.max.ms, 30 s).", kPositive),
        field("uncleanLeaderElection", &TopicConfig::unclean_leader_election,
              "Elect an out-of-sync replica when no ISR member is alive, losing what it lacks "
              "(unclean.leader.election.enable, false)."),
        field("brokerSessionTimeout", &TopicConfig::broker_session_timeout,
              "The KRaft controller fences a broker whose heartbeats stop this long, and moves its leaderships "
              "(broker.session.timeout.ms, 9 s).",
              kPositive),
        field("brokerHeartbeatInterval", &TopicConfig::broker_heartbeat_interval,
              "Time between a broker's heartbeats to the controller (broker.heartbeat.interval.ms, 2 s).",
              kPositive),
        field("messageSize", &TopicConfig::message_size, "Bytes per message (for followers catching up).",
              kPositive),
        field("replicaFetchMaxBytes", &TopicConfig::replica_fetch_max_bytes,
              "Bytes a follower fetches per round trip while catching up (replica.fetch.max.bytes, 1 MiB).",
              kPositive),
        field("autoLeaderRebalance", &TopicConfig::auto_leader_rebalance,
              "Move leadership back to the preferred replicas (auto.leader.rebalance.enable, true)."),
        field("leaderImbalanceCheckInterval", &TopicConfig::leader_imbalance_check_interval,
              "How often the controller checks leader imbalance (leader.imbalance.check.interval.seconds, 300).",
              kPositive),
        field("leaderImbalancePerBroker", &TopicConfig::leader_imbalance_per_broker,
              "A broker not leading more than this share of its preferred partitions gets them back "
              "(leader.imbalance.per.broker.percentage, 10%).",
              kNonNegative | kAtMostOne),
        field("producers", &TopicConfig::producers, "Who writes to the topic."),
        field("consumerGroups", &TopicConfig::consumer_groups, "Who reads it."),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim

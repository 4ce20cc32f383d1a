#include "models/data/topic_config.h"

namespace drsim {

std::vector<ConfigProblem> ConsumerGroupConfig::validate() const {
  std::vector<ConfigProblem> out;
  if (instances.empty()) out.push_back({"instances", "a consumer group needs at least one instance"});
  if (assignor != "range" && assignor != "roundrobin") {
    out.push_back({"assignor", "expected range or roundrobin, got \"" + assignor + "\""});
  }
  if (max_poll_records == 0) out.push_back({"maxPollRecords", "must be positive"});
  if (fetch_max_wait <= Duration::zero()) out.push_back({"fetchMaxWait", "must be positive"});
  if (heartbeat_interval >= session_timeout) {
    out.push_back({"heartbeatInterval", "must be below sessionTimeout, or every member's session expires"});
  }
  if (auto_commit_interval <= Duration::zero()) out.push_back({"autoCommitInterval", "must be positive"});
  return out;
}

std::vector<ConfigProblem> TopicConfig::validate() const {
  std::vector<ConfigProblem> out;
  if (partitions == 0) out.push_back({"partitions", "must be positive"});
  if (brokers.empty()) out.push_back({"brokers", "a topic needs at least one broker"});
  if (replication_factor == 0) out.push_back({"replicationFactor", "must be positive"});
  if (replication_factor > brokers.size()) {
    out.push_back({"replicationFactor", "is above the number of brokers (" + std::to_string(brokers.size()) + ")"});
  }
  if (min_insync_replicas == 0) out.push_back({"minInsyncReplicas", "must be positive"});
  if (acks != "all" && acks != "1") out.push_back({"acks", "expected all or 1, got \"" + acks + "\""});
  if (acks_all() && min_insync_replicas > replication_factor) {
    out.push_back({"minInsyncReplicas", "is above replicationFactor: every acks=all produce would fail"});
  }
  if (broker_heartbeat_interval >= broker_session_timeout) {
    out.push_back({"brokerHeartbeatInterval", "must be below brokerSessionTimeout, or every broker is fenced"});
  }
  if (message_size.bytes <= 0) out.push_back({"messageSize", "must be positive"});
  if (replica_fetch_max_bytes.bytes <= 0) out.push_back({"replicaFetchMaxBytes", "must be positive"});
  for (std::size_t i = 0; i < producers.size(); ++i) {
    const TopicProducerConfig& p = producers[i];
    const std::string f = "producers[" + std::to_string(i) + "]";
    if (p.service.empty() == p.zone.empty()) {
      out.push_back({f, "give either service (produce per served request) or zone and rate (a fixed rate)"});
    } else if (!p.zone.empty() && p.rate.per_second <= 0) {
      out.push_back({f + ".rate", "a fixed-rate producer needs a positive rate"});
    }
  }
  for (std::size_t i = 0; i < consumer_groups.size(); ++i) {
    for (ConfigProblem& p : consumer_groups[i].validate()) {
      out.push_back({"consumerGroups[" + std::to_string(i) + "]." + p.field, p.message});
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (consumer_groups[j].name == consumer_groups[i].name) {
        out.push_back({"consumerGroups[" + std::to_string(i) + "].name",
                       "duplicate consumer group \"" + consumer_groups[i].name + "\""});
      }
    }
  }
  return out;
}

}  // namespace drsim

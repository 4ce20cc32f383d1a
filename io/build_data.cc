// The data area of the scenario (io/model_builders.h): databases, consensus
// groups and Kafka-style topics.
#include "io/model_builders.h"
#include "models/data/database.h"
#include "models/data/flow_replication_transport.h"
#include "models/data/kafka_consumer_group.h"
#include "models/data/kafka_topic.h"
#include "models/data/raft_group.h"
#include "models/service/kafka_producers.h"
#include "models/topology/flow_traffic.h"

namespace drsim {

namespace {
// Replication over flows: one stream per member (channel m is member m: 0 the
// first primary, then the replicas), so that each gets its flow.bytes series.
// Null (the closed-form transport) without a flow network.
std::unique_ptr<ReplicationTransport> replication_transport(FlowTraffic* flows, const FailureDomains& domains,
                                                            const DatabaseConfig& config) {
  if (flows == nullptr) return nullptr;
  std::vector<std::string> zones{config.primary_zone};
  for (const DatabaseReplicaConfig& r : config.replicas) zones.push_back(r.zone);
  std::vector<FlowNetwork*> channels;
  for (std::size_t m = 0; m < zones.size(); ++m) {
    channels.push_back(&flows->stream({{"database", config.name}, {"member", std::to_string(m)}, {"zone", zones[m]}}));
  }
  return std::make_unique<FlowReplicationTransport>(domains, std::move(channels));
}
}  // namespace

void build_databases(const ScenarioSpec& spec, Simulation& sim, ActionContext& models) {
  FailureDomains& domains = *models.domains;
  for (const DatabaseConfig& config : spec.topology.config.databases) {
    models.databases.push_back(&sim.add<Database>(config, domains, spec.metrics_window,
                                                  replication_transport(models.flows, domains, config)));
  }
}

void build_consensus_groups(const ScenarioSpec& spec, Simulation& sim, ActionContext& models) {
  for (const RaftConfig& config : spec.topology.config.consensus_groups) {
    models.consensus_groups.push_back(&sim.add<RaftGroup>(config, *models.domains, spec.metrics_window));
  }
}

void build_topics(const ScenarioSpec& spec, Simulation& sim, ActionContext& models) {
  for (const TopicConfig& config : spec.topology.config.topics) {
    KafkaTopic& topic = sim.add<KafkaTopic>(config, *models.domains, spec.metrics_window);
    models.topics.push_back(&topic);
    for (const ConsumerGroupConfig& group : config.consumer_groups) {
      models.consumer_groups.push_back(&sim.add<KafkaConsumerGroup>(group, topic, *models.domains, spec.metrics_window));
    }
  }
  connect_service_producers(models.topics, models.services, models.domains->topology());
}

}  // namespace drsim

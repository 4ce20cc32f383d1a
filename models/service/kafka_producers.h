#pragma once
// Service producers of Kafka-style topics (topics[].producers[] with a
// service): every request the service serves produces messagesPerRequest
// messages from the zone of the pod that served it, so the produced traffic
// per zone follows the service's request traffic per zone.
#include <vector>

#include "models/data/kafka_topic.h"
#include "models/service/service.h"
#include "models/topology/topology.h"

namespace drsim {

// Declares the services' zones as producer zones of their topics and
// subscribes to the services' finished requests (one listener per service,
// shared by every topic it produces to). Call before the run starts.
// Throws SimulationError for an unknown service.
void connect_service_producers(const std::vector<KafkaTopic*>& topics, const std::vector<Service*>& services,
                               const Topology& topology);

}  // namespace drsim

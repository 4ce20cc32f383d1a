#include "models/service/kafka_producers.h"

#include <memory>

#include "sim/errors.h"
#include "sim/quote.h"

namespace drsim {

void connect_service_producers(const std::vector<KafkaTopic*>& topics, const std::vector<Service*>& services,
                               const Topology& topology) {
  struct Target {
    KafkaTopic* topic = nullptr;
    std::uint32_t messages = 1;
  };
  for (Service* service : services) {
    auto targets = std::make_shared<std::vector<Target>>();
    for (KafkaTopic* topic : topics) {
      for (const TopicProducerConfig& p : topic->config().producers) {
        if (p.service == service->config().name) targets->push_back(Target{topic, p.messages_per_request});
      }
    }
    if (targets->empty()) continue;
    // The service's zone indices, as topology zones.
    std::vector<ZoneIndex> zones;
    for (std::size_t z = 0; z < service->zone_count(); ++z) {
      const auto zone = topology.find_zone(service->zone_name(z));
      if (!zone) throw SimulationError("service " + quote(service->config().name) + ": unknown zone " +
                                       quote(service->zone_name(z)));
      zones.push_back(*zone);
      for (const Target& t : *targets) t.topic->add_producer_zone(*zone);
    }
    service->on_request_done([targets, zones](std::size_t z, ServeOutcome outcome) {
      if (outcome != ServeOutcome::kServed) return;
      for (const Target& t : *targets) {
        for (std::uint32_t i = 0; i < t.messages; ++i) t.topic->produce(zones[z]);
      }
    });
  }
  for (KafkaTopic* topic : topics) {
    for (const TopicProducerConfig& p : topic->config().producers) {
      if (p.service.empty()) continue;
      bool found = false;
      for (Service* s : services) found |= s->config().name == p.service;
      if (!found) {
        throw SimulationError("topic " + quote(topic->config().name) + ": unknown producer service " + quote(p.service));
      }
    }
  }
}

}  // namespace drsim

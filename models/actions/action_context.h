#pragma once
// What the actions of a timeline act on: the models of the run. The scenario
// builders fill it in as they build them, area by area (io/model_builders.h),
// and read the models of lower areas from it; the handlers of the
// action catalog (action_handlers.h) read it when a step runs, so a model
// built after the timeline (a rules store, a traffic scheduler) is found as
// long as it exists by then. The simulation owns the models: these are
// pointers, null or absent where the scenario has none.
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace drsim {

class CdnEdges;
class ClientPopulation;
class Database;
class FailureDomains;
class FlowTraffic;
class FlowTransfers;
class KafkaConsumerGroup;
class KafkaTopic;
class KubeControlPlane;
class RaftGroup;
class RoutingRulesStore;
class Service;
class TrafficScheduler;

struct ActionContext {
  FailureDomains* domains = nullptr;
  // Network fidelity (spec.network.fidelity: flows) only: the flows and the bulk copies.
  FlowTraffic* flows = nullptr;
  FlowTransfers* transfers = nullptr;
  std::vector<Service*> services;
  std::vector<ClientPopulation*> populations;
  std::vector<Database*> databases;
  std::vector<RaftGroup*> consensus_groups;
  std::vector<KafkaTopic*> topics;
  std::vector<KafkaConsumerGroup*> consumer_groups;  // in the order of the topics and their groups
  std::vector<CdnEdges*> cdns;
  KubeControlPlane* control_plane = nullptr;
  // By population name: the store of routing.rulesStore, the scheduler of routing.scheduler.
  std::map<std::string, RoutingRulesStore*, std::less<>> rules_stores;
  std::map<std::string, TrafficScheduler*, std::less<>> schedulers;
  // What routing:weight replaced, by step name (steps have unique names): what its undo restores.
  std::map<std::string, double, std::less<>> replaced_weights;
};

}  // namespace drsim

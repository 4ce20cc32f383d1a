#include "models/results/event_kind_catalog.h"

#include <iterator>
#include <vector>

#include "models/actions/action_catalog.h"
#include "models/data/data_event_kinds.h"
#include "models/kube/kube_event_kinds.h"
#include "models/service/service_event_kinds.h"
#include "models/topology/topology_event_kinds.h"
#include "models/traffic/traffic_event_kinds.h"

namespace drsim {

std::span<const EventKind> event_kind_catalog() {
  static const std::vector<EventKind> all = [] {
    std::vector<EventKind> kinds;
    for (std::span<const EventKind> area : {std::span<const EventKind>(event_kinds::kDataEventKinds),
                                            std::span<const EventKind>(event_kinds::kTopologyEventKinds),
                                            std::span<const EventKind>(event_kinds::kServiceEventKinds),
                                            std::span<const EventKind>(event_kinds::kTrafficEventKinds),
                                            std::span<const EventKind>(event_kinds::kKubeEventKinds)}) {
      kinds.insert(kinds.end(), area.begin(), area.end());
    }
    return kinds;
  }();
  return all;
}

const EventKind* find_event_kind(std::string_view name) {
  for (const EventKind& kind : event_kind_catalog()) {
    if (kind.name() == name) return &kind;
  }
  return nullptr;
}

const EventKind* find_event_kind_formerly(std::string_view old_name) {
  if (old_name.empty()) return nullptr;
  for (const EventKind& kind : event_kind_catalog()) {
    if (kind.formerly() == old_name) return &kind;
  }
  return nullptr;
}

bool is_timeline_event_kind(std::string_view name) {
  constexpr std::string_view kEnd = ":end";
  if (find_action(name) != nullptr) return true;
  if (!name.ends_with(kEnd)) return false;
  const ActionSpecInfo* action = find_action(name.substr(0, name.size() - kEnd.size()));
  return action != nullptr && action->reversible;
}

}  // namespace drsim

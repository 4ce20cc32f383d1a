#pragma once
// The event kinds of the topology's models (sim/event_kind.h): bulk transfers
// over the network's flows. Listed once more at the end, for the catalog
// (models/results/event_kind_catalog.h).
#include "sim/event_kind.h"

namespace drsim::event_kinds {

namespace transfer {  // models/topology/flow_transfers.h
inline constexpr EventKind kStarted{
    "transfer.started", "A bulk transfer started sending over its path.", {.formerly = "transfer-started"}};
inline constexpr EventKind kCompleted{
    "transfer.completed", "A bulk transfer delivered all its bytes.", {.formerly = "transfer-completed"}};
inline constexpr EventKind kFailed{
    "transfer.failed", "A bulk transfer stopped before the end (its path was lost).", {.formerly = "transfer-failed"}};
}  // namespace transfer

inline constexpr EventKind kTopologyEventKinds[] = {transfer::kStarted, transfer::kCompleted, transfer::kFailed};

}  // namespace drsim::event_kinds

#pragma once
// The event kinds of the services (sim/event_kind.h). Listed once more at the
// end, for the catalog (models/results/event_kind_catalog.h).
#include "sim/event_kind.h"

namespace drsim::event_kinds {

namespace endpoints {  // models/service/service.h, services whose callers see the pods through kube-proxy
inline constexpr EventKind kUpdated{
    "endpoints.updated",
    "kube-proxy programmed a service's changed endpoints: from now on callers use (or stop using) those pods."};
}  // namespace endpoints

namespace discovery {  // models/service/service.h, at the start of every run
inline constexpr EventKind kPath{"discovery.path",
                                 "How a service's callers learn that a pod died (ServiceConfig::discovery), per service."};
}  // namespace discovery

inline constexpr EventKind kServiceEventKinds[] = {endpoints::kUpdated, discovery::kPath};

}  // namespace drsim::event_kinds

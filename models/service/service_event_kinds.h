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

namespace lb {  // models/service/cloud_load_balancer.h, services behind a cloud load balancer
inline constexpr EventKind kSettings{"lb.settings",
                                     "The settings of the load balancer in front of a service, at the start of the run."};
inline constexpr EventKind kTargetUnhealthy{
    "lb.target_unhealthy", "A target failed unhealthyThreshold health checks in a row: the balancer stops sending to it."};
inline constexpr EventKind kTargetHealthy{
    "lb.target_healthy",
    "A target passed healthyThreshold health checks in a row: the balancer sends to it (again, or for the first time)."};
inline constexpr EventKind kNodeRemoved{
    "lb.node_removed",
    "The balancer's DNS stopped answering with a zone's node address; callers holding it keep using it until their "
    "TTL runs out."};
inline constexpr EventKind kNodeRestored{"lb.node_restored",
                                         "The balancer's DNS answers with a zone's node address again."};
}  // namespace lb

inline constexpr EventKind kServiceEventKinds[] = {endpoints::kUpdated,   discovery::kPath,  lb::kSettings,
                                                   lb::kTargetUnhealthy,  lb::kTargetHealthy, lb::kNodeRemoved,
                                                   lb::kNodeRestored};

}  // namespace drsim::event_kinds

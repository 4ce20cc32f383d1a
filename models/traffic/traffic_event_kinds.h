#pragma once
// The event kinds of the traffic models (sim/event_kind.h): GSLB health
// checks, traffic schedulers, routing rules stores and CDN edges. Listed once
// more at the end, for the catalog (models/results/event_kind_catalog.h).
#include "sim/event_kind.h"

namespace drsim::event_kinds {

namespace gslb {  // models/traffic/health_checker.h
inline constexpr EventKind kRegionHealthy{"gslb.region_healthy",
                                          "A region's health checks pass again: the router sends it traffic.",
                                          {.formerly = "region-healthy"}};
inline constexpr EventKind kRegionUnhealthy{"gslb.region_unhealthy",
                                            "A region failed its health checks: the router stops sending it traffic.",
                                            {.formerly = "region-unhealthy", .detects_failure = true}};
}  // namespace gslb

namespace scheduler {  // models/traffic/traffic_scheduler.h
inline constexpr EventKind kFailover{"scheduler.failover",
                                     "A region became unreachable: weight 0, its share spread over the others.",
                                     {.formerly = "scheduler-failover", .detects_failure = true}};
inline constexpr EventKind kRestore{"scheduler.restore",
                                    "A region is reachable again: its configured weight is back.",
                                    {.formerly = "scheduler-restore"}};
inline constexpr EventKind kSwitchStep{"scheduler.switch_step",
                                       "A stage of a routing:switch moved a share of a region's traffic.",
                                       {.formerly = "switch-step"}};
}  // namespace scheduler

namespace routing_rules {  // models/traffic/routing_rules_store.h
inline constexpr EventKind kChangeDelayed{
    "routing_rules.change_delayed",
    "A routing change waits: its consensus group has no leader, or one ahead waits.",
    {.formerly = "routing-change-delayed"}};
inline constexpr EventKind kChangeApplied{"routing_rules.change_applied",
                                          "A routing change was committed and applied.",
                                          {.formerly = "routing-change-applied", .detects_failure = true}};
}  // namespace routing_rules

namespace cdn {  // models/traffic/cdn_edges.h
inline constexpr EventKind kVendorHealthy{
    "cdn.vendor_healthy", "A CDN vendor's health checks pass again.", {.formerly = "cdn-vendor-healthy"}};
inline constexpr EventKind kVendorUnhealthy{"cdn.vendor_unhealthy",
                                            "A CDN vendor failed its health checks.",
                                            {.formerly = "cdn-vendor-unhealthy", .detects_failure = true}};
inline constexpr EventKind kCnameSwitch{
    "cdn.cname_switch", "The CNAME moved to another (healthy) CDN vendor.", {.formerly = "cdn-switch"}};
inline constexpr EventKind kBackupOrigin{"cdn.backup_origin",
                                         "A vendor's origin pulls go to the static backup (every origin region "
                                         "unhealthy), or come back.",
                                         {.formerly = "cdn-backup"}};
}  // namespace cdn

inline constexpr EventKind kTrafficEventKinds[] = {
    gslb::kRegionHealthy,
    gslb::kRegionUnhealthy,
    scheduler::kFailover,
    scheduler::kRestore,
    scheduler::kSwitchStep,
    routing_rules::kChangeDelayed,
    routing_rules::kChangeApplied,
    cdn::kVendorHealthy,
    cdn::kVendorUnhealthy,
    cdn::kCnameSwitch,
    cdn::kBackupOrigin,
};

}  // namespace drsim::event_kinds

// Every kind a run logs is in the event kind catalog
// (models/results/event_kind_catalog.h) or is a timeline step's action: the
// scenarios below log kinds of every area (data, topology, traffic, kube).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "models/results/event_kind_catalog.h"

namespace drsim {
namespace {

TEST(LoggedEventKinds, EveryKindARunLogsIsInTheCatalog) {
  std::set<std::string> logged;
  for (const char* file : {
           "scenarios/same_city_kafka_az_loss.yaml",         // kafka, consumer_group
           "scenarios/routing_rules_quorum_loss.yaml",       // raft, routing_rules
           "scenarios/website_dns_cdn.yaml",                 // cdn, gslb
           "scenarios/three_region_unit.yaml",               // scheduler
           "scenarios/replication_under_bulk_copy.yaml",     // transfer, database
           "scenarios/three_region_database_failover.yaml",  // database
           "scenarios/az_failure_hpa_trap.yaml",             // pod, node
           "scenarios/appfabric_az_failure.yaml",            // deployment, hpa
           "scenarios/az_failure_eviction.yaml",             // pod.evicted, pod.terminated
           "scenarios/load_balancer_zone_loss.yaml",         // lb
       }) {
    const RunResult run = run_scenario(load_scenario_file(file));
    for (const std::string& kind : run.recorder().events().kind) {
      EXPECT_TRUE(find_event_kind(kind) != nullptr || is_timeline_event_kind(kind))
          << file << " logs \"" << kind << "\", which is in no catalog";
      logged.insert(kind);
    }
  }
  // The runs reach every area, so a kind logged outside its area's header would show.
  std::set<std::string> areas_logged;
  std::set<std::string> areas;
  for (const EventKind& kind : event_kind_catalog()) {
    const std::string area(kind.name().substr(0, kind.name().find('.')));
    areas.insert(area);
    if (logged.contains(std::string(kind.name()))) areas_logged.insert(area);
  }
  EXPECT_EQ(areas_logged, areas);
}

}  // namespace
}  // namespace drsim

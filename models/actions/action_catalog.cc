#include "models/actions/action_catalog.h"

#include <array>

#include "models/actions/action_handlers.h"

namespace drsim {

namespace {
using enum TargetField;
using enum ActionRole;
constexpr std::array kCatalog{
    ActionSpecInfo{.name = "zone:fail",
                   .target = kZone,
                   .reversible = true,
                   .role = kFault,
                   .stops_zones = true,
                   .handler = &action_handlers::zone_fail,
                   .doc = "The zone goes down: everything in it stops. With a duration, it recovers after it."},
    ActionSpecInfo{.name = "zone:recover",
                   .target = kZone,
                   .role = kRepair,
                   .repairs = {"zone:fail"},
                   .handler = &action_handlers::zone_recover,
                   .doc = "The zone comes back up."},
    ActionSpecInfo{.name = "region:fail",
                   .target = kRegion,
                   .reversible = true,
                   .role = kFault,
                   .stops_zones = true,
                   .handler = &action_handlers::region_fail,
                   .doc = "Every zone of the region goes down. With a duration, they recover after it."},
    ActionSpecInfo{.name = "region:recover",
                   .target = kRegion,
                   .role = kRepair,
                   .repairs = {"region:fail"},
                   .handler = &action_handlers::region_recover,
                   .doc = "Every zone of the region comes back up."},
    ActionSpecInfo{.name = "link:cut",
                   .target = kLink,
                   .reversible = true,
                   .role = kFault,
                   .handler = &action_handlers::link_cut,
                   .doc = "The link carries nothing. With a duration, it is restored after it."},
    ActionSpecInfo{.name = "link:restore",
                   .target = kLink,
                   .role = kRepair,
                   .repairs = {"link:cut", "link:degrade"},
                   .handler = &action_handlers::link_restore,
                   .doc = "The link is back to its configured state (undoes link:cut and link:degrade)."},
    ActionSpecInfo{.name = "link:degrade",
                   .target = kLink,
                   .params = {"latency", "loss", "bandwidth"},
                   .needs_a_parameter = true,
                   .reversible = true,
                   .role = kFault,
                   .handler = &action_handlers::link_degrade,
                   .doc = "The link gets slower, lossy or narrower (at least one parameter). With a duration, it is "
                          "restored after it."},
    ActionSpecInfo{.name = "traffic:cut",
                   .target = kService | kZone,
                   .params = {"ratio"},
                   .required_params = {"ratio"},
                   .reversible = true,
                   .role = kOperator,
                   .handler = &action_handlers::traffic_cut,
                   .doc = "The zone's share of the service's traffic becomes its route weight x ratio (e.g. 1% for a "
                          "service-discovery cut, 50% then 0% for a load-balancer drain). With a duration, it is back "
                          "to 100% after it."},
    ActionSpecInfo{.name = "service:scale",
                   .target = kService | kZone,
                   .params = {"replicas"},
                   .required_params = {"replicas"},
                   .role = kOperator,
                   .handler = &action_handlers::service_scale,
                   .doc = "The zone's pod count becomes `replicas`: new pods are ready at once; removed pods finish "
                          "their in-service and queued work first, taking no new work."},
    ActionSpecInfo{.name = "pods:kill",
                   .target = kService | kZone,
                   .params = {"count", "percent"},
                   .exactly_one_parameter = true,
                   .role = kFault,
                   .handler = &action_handlers::pods_kill,
                   .doc = "Kills `count` pods, or `percent` of them (rounded down, at least one), in the zone: their "
                          "requests are refused at once. Killed pods are not recreated."},
    ActionSpecInfo{.name = "service:slow",
                   .target = kService,
                   .params = {"factor"},
                   .required_params = {"factor"},
                   .reversible = true,
                   .role = kFault,
                   .handler = &action_handlers::service_slow,
                   .doc = "A gray failure: the service's service times are multiplied by `factor`. With a duration, "
                          "they are back to normal after it."},
    ActionSpecInfo{.name = "routing:weight",
                   .target = kPopulation | kRegion,
                   .params = {"weight"},
                   .required_params = {"weight"},
                   .reversible = true,
                   .role = kOperator,
                   .handler = &action_handlers::routing_weight,
                   .doc = "An operator edits the population's geo routing (a DNS weighted record): the region's weight "
                          "becomes `weight` (0 drains it while another region has weight). With a duration, the "
                          "weight it had is restored after it."},
    ActionSpecInfo{.name = "routing:switch",
                   .target = kPopulation | kRegion,
                   .params = {"toRegions", "steps", "reverse"},
                   .required_params = {"toRegions"},
                   .reversible = true,
                   .role = kFault,
                   .planned = true,
                   .handler = &action_handlers::routing_switch,
                   .doc =
                       "A planned switch-over by the population's traffic scheduler (routing.scheduler): the region's "
                       "share moves to `toRegions` in stages (`steps`; default 10% at once, 50% after 2m, 100% after "
                       "3m), each through the routing rules store. With a duration (or reverse: true), the switch-back "
                       "runs the stages in reverse order."},
    ActionSpecInfo{.name = "hpa:compensate",
                   .target = kService | kZone,
                   .reversible = true,
                   .role = kOperator,
                   .handler = &action_handlers::hpa_compensate,
                   .doc =
                       "HPA compensation for a failed zone: the service's HPA computes its desired replicas from the "
                       "other zones' pods only, and keeps the zone's replicas on top. With a duration (or undone), it "
                       "computes over every pod again: cancel it only once traffic is back, or the zone's idle pods "
                       "drag the average down."},
    ActionSpecInfo{.name = "deployment:compensate",
                   .target = kService | kZone,
                   .reversible = true,
                   .role = kOperator,
                   .handler = &action_handlers::deployment_compensate,
                   .doc =
                       "Manual capacity compensation: the deployment's replicas grow by the zone's replicas (7 + 2 = "
                       "9). With a duration, they are taken back after it."},
    ActionSpecInfo{.name = "deployment:policy",
                   .target = kService,
                   .params = {"policy"},
                   .required_params = {"policy"},
                   .reversible = true,
                   .role = kOperator,
                   .handler = &action_handlers::deployment_policy,
                   .doc =
                       "Migration or policy degradation: the deployment's zone policy becomes `policy`; the split is "
                       "computed afresh and a rolling update moves the pods. With a duration, the declared policy is "
                       "restored after it (which moves them again)."},
    ActionSpecInfo{.name = "deployment:restart",
                   .target = kService,
                   .role = kOperator,
                   .handler = &action_handlers::deployment_restart,
                   .doc =
                       "A rolling update (`kubectl rollout restart`): every pod of the deployment is replaced by a new "
                       "one, at most maxSurge above and maxUnavailable below its replicas."},
    ActionSpecInfo{.name = "deployment:scale",
                   .target = kService,
                   .params = {"replicas"},
                   .required_params = {"replicas"},
                   .role = kOperator,
                   .handler = &action_handlers::deployment_scale,
                   .doc = "The deployment's spec.replicas becomes `replicas`, split across zones by its policy (an HPA "
                          "corrects it on its next sync)."},
    ActionSpecInfo{.name = "database:kill",
                   .target = kDatabase,
                   .reversible = true,
                   .role = kFault,
                   .handler = &action_handlers::database_kill,
                   .doc = "The database's primary dies (its zone stays up): health checks notice, and an automatic "
                          "failover promotes a replica. With a duration, the killed member restarts after it."},
    ActionSpecInfo{.name = "database:failover",
                   .target = kDatabase,
                   .role = kOperator,
                   .handler = &action_handlers::database_failover,
                   .doc = "An operator promotes a replica of a database whose primary is lost (failover: manual)."},
    ActionSpecInfo{
        .name = "cdn:fail",
        .target = kVendor,
        .reversible = true,
        .role = kFault,
        .handler = &action_handlers::cdn_fail,
        .doc = "The CDN vendor fails everywhere: its edges refuse connections in every geography, and the "
               "populations' monitors move their CNAME off it (a failure in one geography is a zone:fail of its "
               "PoP's zone). With a duration, it is back after it."},
    ActionSpecInfo{.name = "flow:transfer",
                   .target = kZone,
                   .params = {"to", "size"},
                   .required_params = {"to", "size"},
                   .role = kFault,
                   .handler = &action_handlers::flow_transfer,
                   .doc =
                       "An operator's bulk copy (a backup restored elsewhere, a snapshot to re-seed a replica) of "
                       "`size` bytes from the target zone to zone `to`: one flow through SimGrid that shares the links "
                       "with replication (spec.network.fidelity: flows only). It fails if a link on its route or "
                       "either zone goes down."},
};

constexpr std::array kTargetFields{TargetField::kService, TargetField::kZone,       TargetField::kRegion,
                                   TargetField::kLink,    TargetField::kPopulation, TargetField::kDatabase,
                                   TargetField::kVendor};
}  // namespace

std::span<const ActionSpecInfo> action_catalog() { return kCatalog; }

const ActionSpecInfo* find_action(std::string_view name) {
  for (const ActionSpecInfo& info : kCatalog) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string_view to_string(TargetField field) {
  switch (field) {
    case TargetField::kZone:
      return "zone";
    case TargetField::kRegion:
      return "region";
    case TargetField::kLink:
      return "link";
    case TargetField::kService:
      return "service";
    case TargetField::kPopulation:
      return "population";
    case TargetField::kDatabase:
      return "database";
    case TargetField::kVendor:
      return "vendor";
  }
  return "?";
}

std::span<const TargetField> target_fields() { return kTargetFields; }

std::string_view to_string(ActionRole role) {
  switch (role) {
    case ActionRole::kFault:
      return "fault";
    case ActionRole::kRepair:
      return "repair";
    case ActionRole::kOperator:
      return "operator action";
  }
  return "?";
}

std::string to_string(TargetSet set, std::string_view conjunction) {
  std::string out;
  for (TargetField f : kTargetFields) {
    if (set.contains(f)) out += (out.empty() ? "" : std::string(conjunction)) + std::string(to_string(f));
  }
  return out;
}

}  // namespace drsim

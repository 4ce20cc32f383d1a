#include "models/timeline/action_catalog.h"

#include <array>

namespace drsim {

namespace {
using enum TargetField;
constexpr std::array kCatalog{
    ActionSpecInfo{"zone:fail", kZone, {}, {}, false, true,
                   "The zone goes down: everything in it stops. With a duration, it recovers after it."},
    ActionSpecInfo{"zone:recover", kZone, {}, {}, false, false, "The zone comes back up."},
    ActionSpecInfo{"region:fail", kRegion, {}, {}, false, true,
                   "Every zone of the region goes down. With a duration, they recover after it."},
    ActionSpecInfo{"region:recover", kRegion, {}, {}, false, false, "Every zone of the region comes back up."},
    ActionSpecInfo{"link:cut", kLink, {}, {}, false, true,
                   "The link carries nothing. With a duration, it is restored after it."},
    ActionSpecInfo{"link:restore", kLink, {}, {}, false, false,
                   "The link is back to its configured state (undoes link:cut and link:degrade)."},
    ActionSpecInfo{"link:degrade", kLink, {"latency", "loss", "bandwidth"}, {}, true, true,
                   "The link gets slower, lossy or narrower (at least one parameter). With a duration, it is "
                   "restored after it."},
    ActionSpecInfo{"traffic:cut", kService | kZone, {"ratio"}, {"ratio"}, false, true,
                   "The zone's share of the service's traffic becomes its route weight x ratio (e.g. 1% for a "
                   "service-discovery cut, 50% then 0% for a load-balancer drain). With a duration, it is back "
                   "to 100% after it."},
    ActionSpecInfo{"service:scale", kService | kZone, {"replicas"}, {"replicas"}, false, false,
                   "The zone's pod count becomes `replicas`: new pods are ready at once; removed pods finish "
                   "their in-service and queued work first, taking no new work."},
    ActionSpecInfo{"pods:kill", kService | kZone, {"count", "percent"}, {}, false, false,
                   "Kills `count` pods, or `percent` of them (rounded down, at least one), in the zone: their "
                   "requests are refused at once. Killed pods are not recreated.",
                   true},
    ActionSpecInfo{"service:slow", kService, {"factor"}, {"factor"}, false, true,
                   "A gray failure: the service's service times are multiplied by `factor`. With a duration, "
                   "they are back to normal after it."},
    ActionSpecInfo{"routing:weight", kPopulation | kRegion, {"weight"}, {"weight"}, false, true,
                   "An operator edits the population's geo routing (a DNS weighted record): the region's weight "
                   "becomes `weight` (0 drains it while another region has weight). With a duration, the "
                   "weight it had is restored after it."},
    ActionSpecInfo{"routing:switch", kPopulation | kRegion, {"toRegions", "steps", "reverse"}, {"toRegions"}, false,
                   true,
                   "A planned switch-over by the population's traffic scheduler (routing.scheduler): the region's "
                   "share moves to `toRegions` in stages (`steps`; default 10% at once, 50% after 2m, 100% after "
                   "3m), each through the routing rules store. With a duration (or reverse: true), the switch-back "
                   "runs the stages in reverse order."},
    ActionSpecInfo{"hpa:compensate", kService | kZone, {}, {}, false, true,
                   "HPA compensation for a failed zone: the service's HPA computes its desired replicas from the "
                   "other zones' pods only, and keeps the zone's replicas on top. With a duration (or undone), it "
                   "computes over every pod again: cancel it only once traffic is back, or the zone's idle pods "
                   "drag the average down."},
    ActionSpecInfo{"deployment:compensate", kService | kZone, {}, {}, false, true,
                   "Manual capacity compensation: the deployment's replicas grow by the zone's replicas (7 + 2 = "
                   "9). With a duration, they are taken back after it."},
    ActionSpecInfo{"deployment:policy", kService, {"policy"}, {"policy"}, false, true,
                   "Migration or policy degradation: the deployment's zone policy becomes `policy`; the split is "
                   "computed afresh and a rolling update moves the pods. With a duration, the declared policy is "
                   "restored after it (which moves them again)."},
    ActionSpecInfo{"deployment:restart", kService, {}, {}, false, false,
                   "A rolling update (`kubectl rollout restart`): every pod of the deployment is replaced by a new "
                   "one, at most maxSurge above and maxUnavailable below its replicas."},
    ActionSpecInfo{"deployment:scale", kService, {"replicas"}, {"replicas"}, false, false,
                   "The deployment's spec.replicas becomes `replicas`, split across zones by its policy (an HPA "
                   "corrects it on its next sync)."},
    ActionSpecInfo{"database:kill", kDatabase, {}, {}, false, true,
                   "The database's primary dies (its zone stays up): health checks notice, and an automatic "
                   "failover promotes a replica. With a duration, the killed member restarts after it."},
    ActionSpecInfo{"database:failover", kDatabase, {}, {}, false, false,
                   "An operator promotes a replica of a database whose primary is lost (failover: manual)."},
    ActionSpecInfo{"cdn:fail", kVendor, {}, {}, false, true,
                   "The CDN vendor fails everywhere: its edges refuse connections in every geography, and the "
                   "populations' monitors move their CNAME off it (a failure in one geography is a zone:fail of its "
                   "PoP's zone). With a duration, it is back after it."},
    ActionSpecInfo{"flow:transfer", kZone, {"to", "size"}, {"to", "size"}, false, false,
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
    case TargetField::kZone: return "zone";
    case TargetField::kRegion: return "region";
    case TargetField::kLink: return "link";
    case TargetField::kService: return "service";
    case TargetField::kPopulation: return "population";
    case TargetField::kDatabase: return "database";
    case TargetField::kVendor: return "vendor";
  }
  return "?";
}

std::span<const TargetField> target_fields() { return kTargetFields; }

std::string to_string(TargetSet set, std::string_view conjunction) {
  std::string out;
  for (TargetField f : kTargetFields) {
    if (set.contains(f)) out += (out.empty() ? "" : std::string(conjunction)) + std::string(to_string(f));
  }
  return out;
}

}  // namespace drsim

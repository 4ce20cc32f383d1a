#include "models/service/pod_set.h"

#include <algorithm>
#include <bit>

#include "sim/errors.h"

namespace drsim {

PodSet::PodSet(const ServiceConfig& config, const FailureDomains* domains)
    : service_name_(config.name),
      concurrency_(config.concurrency),
      slots_per_pod_(config.slots_per_pod()),
      idle_millicores_(config.cpu.idle.millicores),
      cpu_held_(config.cpu.limit.has_value()) {
  for (const ReplicasConfig& r : config.replicas) {
    ServiceZone zone;
    zone.name = r.zone;
    if (domains != nullptr) {
      zone.topology_zone = domains->topology().find_zone(r.zone);
      if (!zone.topology_zone) {
        throw SimulationError("service \"" + config.name + "\": unknown zone \"" + r.zone + "\"");
      }
      zone.region = domains->topology().region_of(*zone.topology_zone);
    }
    zones_.push_back(std::move(zone));
  }
  if (domains != nullptr) {
    zone_in_topology_zone_.assign(domains->topology().zone_count(), kNoZone);
    for (std::size_t z = 0; z < zones_.size(); ++z) zone_in_topology_zone_[*zones_[z].topology_zone] = z;
  }
}

std::optional<std::size_t> PodSet::find_zone(std::string_view name) const {
  for (std::size_t z = 0; z < zones_.size(); ++z) {
    if (zones_[z].name == name) return z;
  }
  return std::nullopt;
}

std::uint32_t PodSet::taking_work(std::size_t zone) const {
  const ServiceZone& z = zones_[zone];
  return static_cast<std::uint32_t>(std::count_if(z.pods.begin(), z.pods.end(), [&](std::size_t p) {
    return pods_[p].present && !pods_[p].terminating;
  }));
}

std::size_t PodSet::add(std::size_t z, bool ready, bool up, bool listed, std::int64_t now_ns) {
  const std::size_t p = pods_.size();
  ServicePod pod;
  pod.zone = z;
  pod.ready = ready;
  pod.up = up;
  pod.listed = listed;
  pod.slots.assign(slots_per_pod_, WorkerSlot{});
  pod.free_slots.assign((slots_per_pod_ + 63) / 64, ~std::uint64_t{0});
  if (slots_per_pod_ % 64 != 0) pod.free_slots.back() = (std::uint64_t{1} << (slots_per_pod_ % 64)) - 1;
  pod.name = service_name_ + "-" + zones_[z].name + "-" + std::to_string(zones_[z].pods_created++);
  pod.usage_since_ns = now_ns;
  pod.present_at_mark = true;
  refresh_cpu_rate(pod);
  pods_.push_back(std::move(pod));
  zones_[z].pods.push_back(p);
  count(pods_[p], +1);
  return p;
}

std::optional<std::size_t> PodSet::retire(std::size_t p, std::int64_t now_ns) {
  change(p, now_ns, [](ServicePod& gone) { gone.present = false; });
  // Out of the zone's list, so that balancing never walks pods long gone
  // (a control plane churns through many in a long run).
  ServiceZone& zone = zones_[pods_[p].zone];
  const auto it = std::find(zone.pods.begin(), zone.pods.end(), p);
  if (it == zone.pods.end()) return std::nullopt;
  const auto position = static_cast<std::size_t>(it - zone.pods.begin());
  zone.pods.erase(it);
  return position;
}

std::size_t PodSet::take_slot(ServicePod& pod) {
  std::size_t word = 0;
  while (pod.free_slots[word] == 0) ++word;
  std::uint64_t& bits = pod.free_slots[word];
  const std::size_t slot = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
  bits &= bits - 1;  // clears the lowest set bit: that slot
  pod.slots[slot].occupied = true;
  return slot;
}

void PodSet::release_slot(ServicePod& pod, std::size_t slot) {
  WorkerSlot& s = pod.slots[slot];
  s = WorkerSlot{.generation = s.generation + 1};
  pod.free_slots[slot / 64] |= std::uint64_t{1} << (slot % 64);
}

std::uint64_t PodSet::memory_per_pod(const ServiceConfig& config) {
  const std::uint64_t workers = config.slots_per_pod();
  return sizeof(ServicePod) + workers * sizeof(WorkerSlot) + (workers + 63) / 64 * sizeof(std::uint64_t);
}

}  // namespace drsim

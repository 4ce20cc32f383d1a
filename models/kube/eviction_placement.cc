#include "models/kube/eviction_placement.h"

#include <algorithm>
#include <vector>

namespace drsim {

bool policy_pins_pods_to_zones(const DeploymentPolicyConfig& policy) {
  if (policy.kind == "equal") return true;
  if (policy.kind == "spread") return !policy.extend && !policy.zones.empty();
  return false;
}

namespace {

std::uint32_t assigned(std::span<const ZoneState> zones) {
  std::uint32_t n = 0;
  for (const ZoneState& z : zones) n += z.current;
  return n;
}

// The assignment as it is: every replica stays where it was, the lost zone's Pending there.
EvictionPlacement kept_as_is(std::span<const ZoneState> zones, std::size_t lost, std::uint32_t desired,
                             std::string why) {
  EvictionPlacement out;
  for (const ZoneState& z : zones) out.split.targets.push_back({z.name, z.current});
  const std::uint32_t placed = assigned(zones);
  out.split.pending = desired > placed ? desired - placed : 0;
  out.kept = zones[lost].current;
  if (out.kept > 0) out.why_kept = std::move(why);
  return out;
}

}  // namespace

EvictionPlacement place_evicted(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones,
                                std::size_t lost, std::uint32_t desired) {
  if (policy_pins_pods_to_zones(policy)) {
    return kept_as_is(zones, lost, desired,
                      policy.kind == "equal"
                          ? "policy equal pins pods to their zones"
                          : "policy spread over listed zones without extend pins pods to their zones");
  }
  // The evicted pods are terminating: they hold no place in the split any more, and the lost zone takes none.
  std::vector<ZoneState> after(zones.begin(), zones.end());
  const std::uint32_t held = after[lost].current;
  after[lost].current = 0;
  after[lost].can_take_pods = false;
  const ZoneSplit split = scale_split(policy, after, desired);
  if (split.failed) {
    EvictionPlacement kept = kept_as_is(zones, lost, desired, split.reason);
    kept.split.failed = true;
    return kept;
  }
  // Of the replicas the split could not place, those that were in no zone before the eviction (a scale-out
  // left short) stay in none, the deployment's unplaced; the rest are the lost zone's, which stay assigned to
  // it, Pending there.
  const std::uint32_t before = assigned(zones);
  const std::uint32_t unplaced_before = desired > before ? desired - before : 0;
  EvictionPlacement out;
  out.split = split;
  out.split.pending = std::min(split.pending, unplaced_before);
  out.kept = std::min(split.pending - out.split.pending, held);
  out.split.targets[lost].replicas += out.kept;
  if (out.split.pending == 0) out.split.reason.clear();
  if (out.kept > 0) out.why_kept = split.reason;
  return out;
}

}  // namespace drsim

#include "models/service/zone_balancer.h"

#include <algorithm>

#include "sim/errors.h"

namespace drsim {

ZoneBalancer::ZoneBalancer(const ServiceConfig& config, const PodSet& pods)
    : pods_(pods),
      turns_(pods.zones().size()),
      zone_affinity_(config.zone_affinity),
      region_affinity_(config.region_affinity),
      least_outstanding_(config.balancing == "least-outstanding"),
      random_(config.balancing == "random") {}

std::optional<RegionIndex> ZoneBalancer::home_region(std::optional<RegionIndex> caller_region) const {
  if (!region_affinity_ || !caller_region) return std::nullopt;
  for (std::size_t z = 0; z < turns_.size(); ++z) {
    const ServiceZone& zone = pods_.zone(z);
    if (zone.region == caller_region && weight(z) > 0 && zone.idle_routable_workers > 0) return caller_region;
  }
  return std::nullopt;
}

// Smooth weighted round-robin (as in nginx): deterministic, and it spreads a
// zone's turns evenly instead of bunching them. Weight = routable pods x cut ratio.
std::optional<std::size_t> ZoneBalancer::local_zone(std::optional<ZoneIndex> home_zone,
                                                    std::optional<RegionIndex> region) const {
  if (!zone_affinity_ || !home_zone) return std::nullopt;
  const auto z = pods_.zone_in_topology_zone(*home_zone);
  // Geo routing confines the pick to one region: a home elsewhere does not count.
  if (!z || (region && pods_.zone(*z).region != region)) return std::nullopt;
  if (weight(*z) > 0 && pods_.zone(*z).idle_routable_workers > 0) return z;  // an idle worker at home: stay local
  return std::nullopt;
}

std::optional<std::size_t> ZoneBalancer::pick_zone(std::optional<ZoneIndex> home_zone,
                                                   std::optional<RegionIndex> region, RngStream& rng) {
  if (const auto z = local_zone(home_zone, region)) return z;
  if (const auto z = draw_zone(region, rng, false)) return z;
  // Fail open: with no healthy target in scope a load balancer sends to all of them.
  if (fail_open_) return draw_zone(region, rng, true);
  return std::nullopt;
}

std::optional<std::size_t> ZoneBalancer::draw_zone(std::optional<RegionIndex> region, RngStream& rng,
                                                   bool every_target) {
  const auto weight_in_region = [&](std::size_t z) {
    if (region && pods_.zone(z).region != region) return 0.0;
    if (every_target) return zone_weight(pods_.taking_work(z), turns_[z].cut_ratio);
    return weight(z);
  };
  const std::size_t n = turns_.size();
  if (random_) {
    // Weighted random: the split of a Poisson stream stays Poisson.
    double total = 0;
    for (std::size_t z = 0; z < n; ++z) total += weight_in_region(z);
    if (total <= 0) return std::nullopt;
    double draw = rng.uniform() * total;
    std::optional<std::size_t> last;
    for (std::size_t z = 0; z < n; ++z) {
      const double w = weight_in_region(z);
      if (w <= 0) continue;
      last = z;
      if (draw < w) return z;
      draw -= w;
    }
    return last;  // rounding at the top end
  }
  double total = 0;
  std::optional<std::size_t> best;
  for (std::size_t z = 0; z < n; ++z) {
    const double w = weight_in_region(z);
    if (w <= 0) continue;
    turns_[z].swrr_current += w;
    total += w;
    if (!best || turns_[z].swrr_current > turns_[*best].swrr_current) best = z;
  }
  if (best) turns_[*best].swrr_current -= total;
  return best;
}

std::optional<std::size_t> ZoneBalancer::pick_pod(std::size_t z, RngStream& rng) {
  const ServiceZone& zone = pods_.zone(z);
  const std::size_t n = zone.pods.size();
  if (random_ && (zone.routable_pods > 0 || !fail_open_)) {
    const std::uint32_t routable = zone.routable_pods;
    if (routable == 0) return std::nullopt;
    std::uint64_t k = rng.below(routable);
    for (std::size_t p : zone.pods) {
      if (pods_.pod(p).routable() && k-- == 0) return p;
    }
    return std::nullopt;
  }
  // From next_pod round the ring; next_pod < n, so wrapping is one subtraction
  // (no division per pod looked at).
  std::size_t& next = turns_[z].next_pod;
  std::optional<std::size_t> best;
  std::size_t i = next;
  for (std::size_t k = 0; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
    const std::size_t p = zone.pods[i];
    const ServicePod& pod = pods_.pod(p);
    if (!pod.routable()) continue;
    if (!least_outstanding_) {
      next = i + 1 == n ? 0 : i + 1;
      return p;
    }
    if (!best || pod.outstanding() < pods_.pod(*best).outstanding()) best = p;
  }
  if (best) next = next + 1 == n ? 0 : next + 1;  // rotate ties
  if (!best && fail_open_) {
    // No healthy target in the zone: a failing-open balancer sends to one that is there anyway.
    for (std::size_t k = 0; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
      const ServicePod& pod = pods_.pod(zone.pods[i]);
      if (!pod.present || pod.terminating) continue;
      next = i + 1 == n ? 0 : i + 1;
      return zone.pods[i];
    }
  }
  return best;
}

void ZoneBalancer::set_cut_ratio(std::size_t z, double ratio) {
  if (ratio < 0 || ratio > 1) throw SimulationError("cut ratio outside [0, 1]");
  turns_[z].cut_ratio = ratio;
}

void ZoneBalancer::forget(std::size_t z, std::size_t position) {
  std::size_t& next = turns_[z].next_pod;
  if (next > position) --next;
  if (next >= pods_.zone(z).pods.size()) next = 0;
}

}  // namespace drsim

#pragma once
// Internal to models/service/: a Service's in-region load balancer. It picks
// a zone by smooth weighted round-robin over routable pods x the zone's cut
// ratio (optionally preferring the caller's zone or region), then a pod in it
// by round-robin or least-outstanding; or both at random in proportion to the
// same weights (balancing: random, kube-proxy's iptables mode).
//
// It sees the pods the way endpoints do: PodSet's routable counts, which
// follow readiness and zone state. This is the seam where endpoint discovery
// and health checking plug in: what the balancer believes is routable is
// whatever PodSet says, and nothing else.
#include <cstddef>
#include <optional>
#include <vector>

#include "models/service/pod_set.h"
#include "models/service/service_config.h"
#include "models/service/zone_weight.h"
#include "sim/rng.h"

namespace drsim {

class ZoneBalancer {
 public:
  ZoneBalancer(const ServiceConfig& config, const PodSet& pods);

  // Region affinity: the caller's region while one of the service's zones
  // there has an idle worker; otherwise nullopt (any region).
  std::optional<RegionIndex> home_region(std::optional<RegionIndex> caller_region) const;
  // A zone with routable pods and a share of traffic; nullopt when none.
  // region, when given, confines the pick to the zones of that region.
  // home_zone is the caller's topology zone, for zone affinity.
  std::optional<std::size_t> pick_zone(std::optional<ZoneIndex> home_zone, std::optional<RegionIndex> region,
                                       RngStream& rng);
  // Zone affinity: the caller's own zone while it has an idle worker (and
  // lies in the region, when given); nullopt otherwise.
  std::optional<std::size_t> local_zone(std::optional<ZoneIndex> home_zone, std::optional<RegionIndex> region) const;
  // A routable pod of zone z; nullopt when it has none.
  std::optional<std::size_t> pick_pod(std::size_t z, RngStream& rng);

  // Operator action traffic:cut: the zone's weight is multiplied by ratio.
  void set_cut_ratio(std::size_t z, double ratio);
  // A pod left zone z's list from position: the round-robin keeps its place.
  void forget(std::size_t z, std::size_t position);
  // A load balancer in front fails open: with no routable pod in scope it
  // picks among every pod that is there (present, not terminating).
  void fail_open(bool on) { fail_open_ = on; }

 private:
  struct ZoneTurn {
    double cut_ratio = 1.0;
    double swrr_current = 0;  // smooth weighted round-robin state
    std::size_t next_pod = 0;
  };
  // One draw of a zone by weight; every_target: by pods there, routable or not.
  std::optional<std::size_t> draw_zone(std::optional<RegionIndex> region, RngStream& rng, bool every_target);
  double weight(std::size_t z) const { return zone_weight(pods_.zone(z).routable_pods, turns_[z].cut_ratio); }

  const PodSet& pods_;
  std::vector<ZoneTurn> turns_;
  bool zone_affinity_ = false;
  bool region_affinity_ = false;
  bool least_outstanding_ = false;
  bool random_ = false;
  bool fail_open_ = false;
};

}  // namespace drsim

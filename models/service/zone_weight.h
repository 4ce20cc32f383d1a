#pragma once
// One rule for the simulator and `drsim check`: a zone's share of a
// service's traffic. ZoneBalancer draws zones by these weights (smooth
// weighted round-robin, or at random); analysis/zone_routing.h takes the
// long-run shares they give.
#include <cstdint>

namespace drsim {

// Routable pods (up, ready, taking work) times the zone's cut ratio
// (traffic:cut; 1 when nothing is cut).
inline double zone_weight(std::uint32_t routable_pods, double cut_ratio = 1.0) { return routable_pods * cut_ratio; }

}  // namespace drsim

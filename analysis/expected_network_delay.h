#pragma once
// The mean of the delay that models/topology/network_model.cc samples for
// one message between two zones: half the route's round trip, the jitter
// (normal, floored at half the base delay, so its mean is slightly above the
// base), and the TCP retransmission delay that the route's packet loss adds
// (NetworkModel::expected_loss_delay). Links are taken as configured: the
// N+1 cases fail zones and regions, not links.
#include <optional>

#include "models/topology/topology.h"
#include "sim/time.h"

namespace drsim {

// nullopt when `to` is unreachable from `from` (or either is down).
std::optional<Duration> expected_one_way_delay(const Topology& topology, const TopologyState& state, ZoneIndex from,
                                               ZoneIndex to);

// There and back: what a call pays on top of the callee's response.
std::optional<Duration> expected_round_trip(const Topology& topology, const TopologyState& state, ZoneIndex from,
                                            ZoneIndex to);

}  // namespace drsim

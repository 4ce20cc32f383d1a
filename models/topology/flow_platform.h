#pragma once
// The flow platform of a topology, and the link that keeps it in step with
// the failure domains. Plain data in, plain data out: nothing here includes
// SimGrid; sim/simgrid turns the FlowPlatform into a SimGrid platform.
//
// Numbering (what models pass to FlowNetwork):
//   host z          = zone z;
//   link l          = topology link l (l < topology.link_count()): latency
//                     rtt / 2 one way, the link's bandwidth;
//   link L + z      = zone z's access link to its region's backbone
//                     (L = link_count()): latency interZoneRtt / 4 one way,
//                     so that two zones of a region are interZoneRtt apart
//                     round trip, as in Topology; bandwidth from the options
//                     (topologies do not give one).
// Routes follow Topology::route over the nominal state (shortest round-trip
// time), so SimGrid and drsim agree on paths: access(a), the inter-region
// links in order, access(b). Routes are fixed: SimGrid does not re-route a
// flow when a link on its path is cut; the flow fails instead (see
// sim/flow_network.h). Jitter and loss are not modelled by flows.
#include <cstddef>

#include "models/topology/topology.h"
#include "sim/flow_network.h"
#include "sim/units.h"

namespace drsim {

class FailureDomains;

struct FlowPlatformOptions {
  // Capacity of a zone's access link to its region's backbone.
  Bandwidth zone_link_bandwidth{100e9};
  std::int64_t tcp_window_bytes = 4194304;  // see FlowPlatform
  FlowModel model = FlowModel::kLv08;       // see FlowPlatform
};

FlowPlatform make_flow_platform(const Topology& topology, const FlowPlatformOptions& options = {});

// Index of zone z's access link in the flow platform.
inline std::size_t zone_access_link(const Topology& topology, ZoneIndex z) { return topology.link_count() + z; }

// Applies every change of the failure domains to the network, at the time of
// the change: link up/down, bandwidth and latency (degradations included),
// zone up/down (a zone is down when it or its region has failed).
void follow_failure_domains(FailureDomains& domains, FlowNetwork& network);

}  // namespace drsim

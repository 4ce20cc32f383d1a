#pragma once
// Builds a SimGrid platform from drsim's plain FlowPlatform description:
// one full netzone with one host per FlowPlatform host, one link per
// FlowLinkSpec (bandwidth in bytes/s, one-way latency in seconds, SHARED
// sharing: both directions share the capacity), and the given routes
// (symmetrical). Hosts without a route between them cannot exchange flows.
//
// The network model is FlowPlatform::model: LV08 (SimGrid's default: latency
// x 13.01, bandwidth x 0.97, sharing weight S = 20537 bytes) or CM02 (no
// factors, S = 0); the TCP window (network/TCP-gamma) is
// FlowPlatform::tcp_window_bytes. SimGrid's other defaults apply.
//
// Must be called while an EngineLease is held and before the engine runs.
#include <vector>

#include "sim/flow_network.h"

namespace simgrid::s4u {
class Host;
class Link;
}  // namespace simgrid::s4u

namespace drsim::simgrid_backend {

struct BuiltPlatform {
  std::vector<simgrid::s4u::Host*> hosts;
  std::vector<simgrid::s4u::Link*> links;
  simgrid::s4u::Host* driver = nullptr;  // runs the drsim event loop; joined to nothing
};

BuiltPlatform build_platform(const FlowPlatform& platform);

// SimGrid units.
inline double bytes_per_second(Bandwidth b) { return b.bits_per_second / 8.0; }

}  // namespace drsim::simgrid_backend

#pragma once
// Shared by the SimGrid tests: a two-region topology (r1: zone a, r2: zone
// b, one 28 ms / 1 Gbps link, 1 ms inter-zone RTT) and a one-flow runner.
//
// Route a -> b: access(a) 0.25 ms + link 14 ms + access(b) 0.25 ms one way
// (L = 14.5 ms); the 1 Gbps link (125 MB/s) is the bottleneck, below the TCP
// window bound 4 MiB / (2 L) = 144.6 MB/s.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "models/topology/flow_platform.h"
#include "models/topology/topology.h"
#include "sim/simgrid/simgrid_flow_network.h"
#include "sim/simulation.h"

namespace drsim::testing {

inline TopologyConfig two_region_config(Bandwidth link_bandwidth = Bandwidth{1e9}) {
  using namespace std::chrono_literals;
  TopologyConfig config;
  config.regions = {RegionConfig{"r1", {ZoneConfig{"a"}}, 1ms}, RegionConfig{"r2", {ZoneConfig{"b"}}, 1ms}};
  config.links = {LinkConfig{"r1-r2", {"r1", "r2"}, 28ms, 0ms, link_bandwidth, Ratio{0}}};
  return config;
}

inline FlowPlatform two_region_platform(Bandwidth link_bandwidth = Bandwidth{1e9}) {
  return make_flow_platform(Topology(two_region_config(link_bandwidth)));
}

// The closed form of SimGrid 3.32's default (LV08) model for one flow alone
// on its route: 13.01 x latency, then size / (0.97 x min(bottleneck / 1.05,
// window / (2 x latency))). The 1.05 is network/crosstraffic (on by default):
// a flow also loads its reverse route with 5% of its rate (the ACKs), and our
// links are SHARED, so the reverse route is the same links.
inline constexpr double kLatencyFactor = 13.01;
inline constexpr double kBandwidthFactor = 0.97;
inline constexpr double kCrossTraffic = 1.05;
inline double lv08_rate(double latency_s, double bottleneck_bytes_per_s, double window = 4194304) {
  return kBandwidthFactor * std::min(bottleneck_bytes_per_s / kCrossTraffic, window / (2 * latency_s));
}
inline double lv08_seconds(double latency_s, double bottleneck_bytes_per_s, double bytes, double window = 4194304) {
  return kLatencyFactor * latency_s + bytes / lv08_rate(latency_s, bottleneck_bytes_per_s, window);
}

// Runs one flow from host 0 to host 1 started at `start` and returns its outcome.
inline FlowOutcome run_one_flow(const FlowPlatform& platform, std::int64_t bytes, SimTime start = kSimStart) {
  Simulation sim;
  SimGridFlowNetwork net(sim, platform);
  std::optional<FlowOutcome> result;
  sim.schedule_at(start, [&] { net.start_flow(0, 1, bytes, [&](const FlowOutcome& o) { result = o; }); });
  net.run_until(start + std::chrono::seconds(600));
  return result.value();
}

}  // namespace drsim::testing

#pragma once
// spec.network: how the network between zones is modelled in a run.
//
//   fidelity: closed-form  (the default) delays are the route's round-trip
//                          times and replication streams are FIFOs drained at
//                          a constant bandwidth (models/data/replication.h).
//                          SimGrid is never started.
//   fidelity: flows        network-fidelity mode: replication streams, the
//                          re-sync of a replica that comes back and operator
//                          bulk copies (flow:transfer) are flows of bytes
//                          through SimGrid's flow-level model over the
//                          topology's links (one host per zone), sharing the
//                          links' bandwidth; link:degrade, link:cut,
//                          zone:fail and region:fail reach the flows
//                          (docs/data.md, "Bulk flows through SimGrid").
//
// flowModel picks SimGrid's network model (sim/flow_network.h, FlowModel):
// CM02 by default, because the flows of a scenario are mostly replication
// batches over established connections, which pay one route latency per
// batch; LV08 (SimGrid's own default) multiplies every flow's latency by
// 13.01 for the slow start of a new connection, which would make every batch
// of a long-lived stream pay it again.
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "models/topology/flow_platform.h"
#include "sim/fields.h"
#include "sim/units.h"

namespace drsim {

struct FlowNetworkConfig {
  std::string fidelity = "closed-form";  // closed-form | flows
  std::string flow_model = "CM02";       // CM02 | LV08
  // Topologies give no bandwidth inside a region: a zone's link to its
  // region's backbone, which every flow from or to the zone crosses.
  Bandwidth zone_link_bandwidth{100e9};
  ByteSize tcp_window{4194304};  // SimGrid's network/TCP-gamma default

  bool flows() const { return fidelity == "flows"; }
  FlowPlatformOptions platform_options() const;

  static constexpr std::string_view kTypeName = "Network";
  static constexpr auto fields() {
    return std::tuple{
        field("fidelity", &FlowNetworkConfig::fidelity,
              "closed-form (delays from round-trip times, replication as FIFO streams at a fixed bandwidth; "
              "SimGrid is not started) or flows (replication, re-sync and flow:transfer copies are flows "
              "through SimGrid's flow-level model over the topology's links, sharing their bandwidth)."),
        field("flowModel", &FlowNetworkConfig::flow_model,
              "flows: SimGrid's network model. CM02 (one route latency per flow, max-min sharing: streams "
              "over established connections) or LV08 (SimGrid's default: latency x 13.01 and bandwidth x "
              "0.97, for transfers that each open a new connection)."),
        field("zoneLinkBandwidth", &FlowNetworkConfig::zone_link_bandwidth,
              "flows: capacity of each zone's link to its region's backbone, crossed by every flow from or "
              "to the zone.",
              kPositive),
        field("tcpWindow", &FlowNetworkConfig::tcp_window,
              "flows: largest TCP window; one flow goes no faster than tcpWindow / round-trip time (SimGrid's "
              "network/TCP-gamma, 4 MiB).",
              kPositive),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim

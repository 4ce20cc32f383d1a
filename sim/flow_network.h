#pragma once
// Bulk flows (replication streams, re-sync, backlog catch-up) as seen by the
// models: a transfer of some bytes from one host to another that completes
// when a flow-level network model says so. The models only see this
// interface; the implementation (sim/simgrid/simgrid_flow_network.h) runs
// SimGrid's flow-level model, so models/ never includes SimGrid headers.
//
// Why plain indices and plain descriptions here: sim/ must not depend on
// models/, yet the platform comes from models/topology. So the platform is
// described with plain data (FlowPlatform: hosts, links, routes) and
// models/topology/flow_platform.h converts a Topology into it, keeping the
// numbering: host i is zone i, link l < topology.link_count() is topology
// link l (the zones' access links follow).
//
// Failure semantics: a flow whose route crosses a link that goes down, or
// whose source or destination host goes down, FAILS at that instant (its
// callback runs with completed == false and the bytes still to send); it
// does not stall. A model that wants to resume re-starts a flow for the
// remaining bytes after recovery (a re-sync), which is what replication does.
// A flow started over a route that is already down fails at once.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

using FlowId = std::uint64_t;

struct FlowOutcome {
  FlowId id = 0;
  bool completed = false;  // false: failed (link or host down) or cancelled
  SimTime started{};
  SimTime finished{};                // when completed or failed
  std::int64_t bytes = 0;            // requested size
  std::int64_t bytes_remaining = 0;  // 0 when completed
};

// One network link of the flow platform.
struct FlowLinkSpec {
  std::string name;
  Bandwidth bandwidth{};
  Duration latency{};  // one way (drsim topologies give round-trip times: latency = rtt / 2)
};

// The links crossed from host `from` to host `to`, in order; the same links
// are used in the other direction.
struct FlowRouteSpec {
  std::size_t from = 0;
  std::size_t to = 0;
  std::vector<std::size_t> links;
};

// SimGrid's flow-level network model (its network/model setting).
//   kLv08  SimGrid's default: a flow pays 13.01 x the route latency and gets
//          0.97 x its bandwidth share, factors fitted (Velho and Legrand) on
//          transfers that each open a new TCP connection, so slow start is
//          in the latency. Right for one-off transfers of fresh connections.
//   kCm02  no corrective factors: a flow pays the route latency once and
//          gets its max-min share (still capped by the TCP window and with
//          the 5% of ACK traffic on the reverse route). Right for streams
//          over an established connection (replication), whose congestion
//          window is already open.
enum class FlowModel { kLv08, kCm02 };

struct FlowPlatform {
  std::vector<std::string> hosts;
  std::vector<FlowLinkSpec> links;
  std::vector<FlowRouteSpec> routes;
  // Largest TCP window in bytes: a single flow never goes faster than
  // window / (2 * one-way latency), as a real TCP stream over a long RTT.
  // 4 MiB is SimGrid's default (network/TCP-gamma); 0 removes the cap.
  std::int64_t tcp_window_bytes = 4194304;
  FlowModel model = FlowModel::kLv08;
};

class FlowNetwork {
 public:
  using Done = std::function<void(const FlowOutcome&)>;
  virtual ~FlowNetwork() = default;

  // Starts sending `bytes` from host `from` to host `to` now. `done` runs as
  // an ordinary event when the flow completes or fails (never synchronously
  // inside start_flow). A flow from a host to itself completes at once.
  virtual FlowId start_flow(std::size_t from, std::size_t to, std::int64_t bytes, Done done) = 0;
  // Stops a flow; its callback runs now with completed == false. False if not open.
  virtual bool cancel_flow(FlowId id) = 0;
  // Bytes an open flow has still to deliver, now (its size until its latency
  // is paid); 0 for a flow that is not open.
  virtual std::int64_t bytes_remaining(FlowId id) const = 0;

  // Changes applied from the timeline (link:degrade, link:cut, zone:fail...).
  // Setting a value equal to the current one does nothing.
  virtual void set_link_bandwidth(std::size_t link, Bandwidth bandwidth) = 0;
  virtual void set_link_latency(std::size_t link, Duration one_way) = 0;
  virtual void set_link_up(std::size_t link, bool up) = 0;
  virtual void set_host_up(std::size_t host, bool up) = 0;

  virtual std::size_t open_flows() const = 0;
};

}  // namespace drsim

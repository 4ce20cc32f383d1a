#pragma once
// Replication over a flow-level network (network-fidelity mode): each
// channel's bytes cross the topology as flows of a FlowNetwork (SimGrid's
// flow model in sim/simgrid), sharing the links with every other flow, so a
// busy or degraded link slows replication and lag grows.
//
// A replication stream sends what has accumulated:
//   - at most one flow per channel is in flight;
//   - a write sent while the channel is idle starts a flow of its bytes;
//   - writes sent while a flow is in flight are batched; when the flow
//     completes, the batch leaves as the next flow;
//   - each write is delivered at the completion of the flow that carried it,
//     in order (FIFO per channel).
// So the network sees a handful of flows per round trip, not one per write
// (thousands per second), and the batches grow by themselves when the stream
// gets less bandwidth: what accumulates during one flow is the next one.
//
// Every batch pays the route latency once (a flow is latency, then bytes at
// its share), as a stop-and-wait stream. Writes wait for the flow in flight
// before they leave, so a write is delivered up to one batch cycle later
// than over a pipelined stream (FifoReplicationTransport, which pays the
// latency once per write and queues only on bandwidth): a write committed
// just after a batch left waits for it, then crosses. For a stream using a
// fraction rho of its bandwidth the batch cycle is latency / (1 - rho).
//
// Failures: send() fails (returns false) when the replica's zone cannot be
// reached (the failure domains' view, as FifoReplicationTransport) or the
// channel was lost and not reset since. A flow that fails in flight (a link
// on its route, or an end, went down; routes are fixed, see
// models/topology/flow_platform.h) loses the channel: what it carried and
// the batch waiting behind it are dropped, and report_lost() tells the owner,
// which disconnects the replica and resets the channel; the Database re-syncs
// it in one catch-up batch (one big flow) when it is back. reset() cancels the
// flow in flight; completions of flows from before a reset are dropped.
//
// Hosts are zones (host z = topology zone z, models/topology/flow_platform.h).
#include <cstdint>
#include <optional>
#include <vector>

#include "models/data/replication.h"
#include "models/topology/failure_domains.h"
#include "sim/flow_network.h"

namespace drsim {

class FlowReplicationTransport : public ReplicationTransport {
 public:
  // Every channel's flows go to `network`.
  FlowReplicationTransport(const FailureDomains& domains, FlowNetwork& network);
  // Channel c's flows go to channels[c] (e.g. FlowTraffic streams, one per
  // replica, so that each stream gets its own series).
  FlowReplicationTransport(const FailureDomains& domains, std::vector<FlowNetwork*> channels);

  bool send(std::size_t channel, ZoneIndex from, ZoneIndex to, std::int64_t bytes, SimTime now,
            Delivered delivered) override;
  void reset(std::size_t channel) override;

  // Bytes sent on the channel and not yet delivered: the flow in flight and
  // the batch waiting behind it.
  std::int64_t bytes_in_flight(std::size_t channel) const;
  // Flows started so far on the channel.
  std::uint64_t flows_started(std::size_t channel) const;

 private:
  struct Batch {
    std::int64_t bytes = 0;
    std::vector<Delivered> deliveries;  // in send order
  };
  struct Channel {
    ZoneIndex from = 0, to = 0;
    std::optional<FlowId> flow;    // the flow in flight
    Batch carried;                 // what it carries
    Batch waiting;                 // what the next flow will carry
    std::uint64_t generation = 0;  // bumped by reset(): stale completions are dropped
    bool lost = false;
    std::uint64_t flows = 0;
  };

  Channel& channel(std::size_t c);
  FlowNetwork& network(std::size_t c);
  void launch(std::size_t c);
  void flow_done(std::size_t c, std::uint64_t generation, const FlowOutcome& outcome);

  const FailureDomains& domains_;
  FlowNetwork* shared_ = nullptr;
  std::vector<FlowNetwork*> per_channel_;
  std::vector<Channel> channels_;
};

}  // namespace drsim

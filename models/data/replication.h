#pragma once
// How a database's replication stream crosses the network. The Database asks
// a ReplicationTransport to carry each shipped write (or a catch-up batch)
// from the primary's zone to a replica's; the transport says when the last
// byte arrives. One channel per primary -> replica stream, FIFO within it.
//
// FifoReplicationTransport is the closed-form model: a channel is a FIFO of
// bytes drained at a constant bandwidth, then the one-way latency of the
// route (half the RTT over the shortest path that is up). A write of s bytes
// sent at t leaves the FIFO at max(t, previous departure) + 8 s / B and
// arrives one way later. A flow-level network (SimGrid, sharing the links
// between flows) implements the same interface and calls `delivered` later,
// at the completion of its flow (flow_replication_transport.h).
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "models/topology/failure_domains.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

class ReplicationTransport {
 public:
  // Called with the time the last byte reaches the replica: at once (with a
  // future time) by a closed-form transport, or at that time by a simulated
  // one. Not called for what a reset() discarded.
  using Delivered = std::function<void(SimTime arrival)>;

  virtual ~ReplicationTransport() = default;
  // Starts carrying bytes; false (and no delivery) when `to` cannot be
  // reached from `from` now.
  virtual bool send(std::size_t channel, ZoneIndex from, ZoneIndex to, std::int64_t bytes, SimTime now,
                    Delivered delivered) = 0;
  // Discards what the channel holds (a cut link, a failed end): the stream
  // restarts empty.
  virtual void reset(std::size_t channel) = 0;
  // The topology changed: routes and bandwidths may differ.
  virtual void refresh() {}

  // A channel the transport lost by itself, after send() had accepted its
  // bytes: a flow failed because a link on its route or one of its ends went
  // down. The owner treats it as send() returning false (the replica is
  // unreachable: what was in flight is lost) and reset()s it. The closed-form
  // transport decides reachability in send() and never calls it.
  using Lost = std::function<void(std::size_t channel)>;
  void on_lost(Lost lost) { lost_ = std::move(lost); }

 protected:
  void report_lost(std::size_t channel) {
    if (lost_) lost_(channel);
  }

 private:
  Lost lost_;
};

class FifoReplicationTransport : public ReplicationTransport {
 public:
  // bandwidth: each channel's capacity; nullopt: the narrowest link on the
  // route times share (no limit between zones of one region, which have no
  // link in the topology).
  FifoReplicationTransport(const FailureDomains& domains, std::optional<Bandwidth> bandwidth, double share = 1.0);

  bool send(std::size_t channel, ZoneIndex from, ZoneIndex to, std::int64_t bytes, SimTime now,
            Delivered delivered) override;
  void reset(std::size_t channel) override;
  void refresh() override { route_bandwidth_.clear(); }

  // When the channel's FIFO will have sent everything queued so far.
  SimTime drained_at(std::size_t channel) const;
  // The capacity used between two zones, bits per second; 0 means unlimited.
  double bandwidth_bps(ZoneIndex from, ZoneIndex to) const;

 private:
  const FailureDomains& domains_;
  std::optional<Bandwidth> bandwidth_;
  double share_;
  std::vector<SimTime> free_at_;                                // per channel: when its FIFO is empty
  mutable std::vector<std::optional<double>> route_bandwidth_;  // zones x zones, cleared by refresh()
};

}  // namespace drsim

#include "models/data/flow_replication_transport.h"

#include <string>
#include <utility>

#include "models/topology/network_model.h"
#include "sim/errors.h"

namespace drsim {

FlowReplicationTransport::FlowReplicationTransport(const FailureDomains& domains, FlowNetwork& network)
    : domains_(domains), shared_(&network) {}

FlowReplicationTransport::FlowReplicationTransport(const FailureDomains& domains, std::vector<FlowNetwork*> channels)
    : domains_(domains), per_channel_(std::move(channels)) {}

FlowReplicationTransport::Channel& FlowReplicationTransport::channel(std::size_t c) {
  if (channels_.size() <= c) channels_.resize(c + 1);
  return channels_[c];
}

FlowNetwork& FlowReplicationTransport::network(std::size_t c) {
  if (shared_ != nullptr) return *shared_;
  if (c >= per_channel_.size() || per_channel_[c] == nullptr) {
    throw SimulationError("flow replication: no network for channel " + std::to_string(c));
  }
  return *per_channel_[c];
}

bool FlowReplicationTransport::send(std::size_t c, ZoneIndex from, ZoneIndex to, std::int64_t bytes, SimTime,
                                    Delivered delivered) {
  if (!domains_.network().path(from, to).reachable) return false;
  Channel& ch = channel(c);
  if (ch.lost) return false;
  if (ch.flow && (ch.from != from || ch.to != to)) {
    // The owner resets a channel before it changes ends (a promotion); a bug otherwise.
    throw SimulationError("flow replication: channel " + std::to_string(c) + " changed ends without a reset");
  }
  ch.from = from;
  ch.to = to;
  ch.waiting.bytes += bytes;
  ch.waiting.deliveries.push_back(std::move(delivered));
  if (!ch.flow) launch(c);
  return true;
}

// The waiting batch leaves as one flow.
void FlowReplicationTransport::launch(std::size_t c) {
  Channel& ch = channels_[c];
  ch.carried = std::move(ch.waiting);
  ch.waiting = Batch{};
  ++ch.flows;
  const std::uint64_t generation = ch.generation;
  ch.flow = network(c).start_flow(ch.from, ch.to, ch.carried.bytes,
                                  [this, c, generation](const FlowOutcome& o) { flow_done(c, generation, o); });
}

void FlowReplicationTransport::flow_done(std::size_t c, std::uint64_t generation, const FlowOutcome& outcome) {
  Channel& ch = channels_[c];
  if (generation != ch.generation) return;  // a flow the channel's reset cancelled
  ch.flow.reset();
  Batch carried = std::move(ch.carried);
  ch.carried = Batch{};
  if (!outcome.completed) {
    // Lost in flight, and what waits behind it will not follow.
    ch.waiting = Batch{};
    ch.lost = true;
    report_lost(c);
    return;
  }
  // The next batch leaves now; then this one's writes are delivered, in order.
  if (!ch.waiting.deliveries.empty()) launch(c);
  for (Delivered& d : carried.deliveries) {
    if (generation != channels_[c].generation) return;  // a delivery reset the channel
    d(outcome.finished);
  }
}

void FlowReplicationTransport::reset(std::size_t c) {
  Channel& ch = channel(c);
  ++ch.generation;
  if (ch.flow) network(c).cancel_flow(*ch.flow);
  ch.flow.reset();
  ch.carried = Batch{};
  ch.waiting = Batch{};
  ch.lost = false;
}

std::int64_t FlowReplicationTransport::bytes_in_flight(std::size_t c) const {
  if (c >= channels_.size()) return 0;
  return channels_[c].carried.bytes + channels_[c].waiting.bytes;
}

std::uint64_t FlowReplicationTransport::flows_started(std::size_t c) const {
  return c < channels_.size() ? channels_[c].flows : 0;
}

}  // namespace drsim

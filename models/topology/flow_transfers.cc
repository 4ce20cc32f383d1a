#include "models/topology/flow_transfers.h"

#include <cstdio>

#include "models/topology/topology_event_kinds.h"
#include "sim/errors.h"
#include "sim/quote.h"
#include "sim/simulation.h"
#include "sim/units.h"

namespace drsim {

namespace {

ZoneIndex zone_of(const Topology& topology, const TransferOrder& order, const std::string& name) {
  if (auto z = topology.find_zone(name)) return *z;
  throw SimulationError("step " + quote(order.name) + ": unknown zone " + quote(name));
}

std::string mbps(double bytes, Duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f Mbit/s", d > Duration::zero() ? bytes * 8 / to_seconds(d) / 1e6 : 0.0);
  return text;
}

}  // namespace

FlowTransfers::FlowTransfers(FlowTraffic& traffic, const Topology& topology, const std::vector<TransferOrder>& orders)
    : Component("flow-transfers"), traffic_(traffic), topology_(topology) {
  for (const TransferOrder& order : orders) {
    Transfer t;
    t.name = order.name;
    t.from = zone_of(topology_, order, order.from_zone);
    t.to = zone_of(topology_, order, order.to_zone);
    t.bytes = order.bytes;
    t.stream = &traffic_.stream({{"transfer", order.name}});
    transfers_.push_back(std::move(t));
  }
}

void FlowTransfers::start_transfer(std::string_view name) {
  for (std::size_t i = 0; i < transfers_.size(); ++i) {
    Transfer& t = transfers_[i];
    if (t.name != name) continue;
    t.started = now();
    log_event(event_kinds::transfer::kStarted, t.name + ": " + format_byte_size(ByteSize{t.bytes}) + " from " +
                                                   topology_.zone_name(t.from) + " to " + topology_.zone_name(t.to));
    t.flow = t.stream->start_flow(t.from, t.to, t.bytes, [this, i](const FlowOutcome& o) { done(i, o); });
    return;
  }
  throw SimulationError("step " + quote(name) + ": not a flow:transfer step this component was given");
}

void FlowTransfers::done(std::size_t i, const FlowOutcome& outcome) {
  Transfer& t = transfers_[i];
  t.finished = now();
  t.completed = outcome.completed;
  t.bytes_sent = outcome.bytes - outcome.bytes_remaining;
  const Duration took = now() - *t.started;
  if (outcome.completed) {
    log_event(event_kinds::transfer::kCompleted, t.name + ": " + format_byte_size(ByteSize{t.bytes}) + " in " +
                                                     format_seconds(took) + "s (" +
                                                     mbps(static_cast<double>(t.bytes), took) + ")");
  } else {
    log_event(event_kinds::transfer::kFailed, t.name + ": " + std::to_string(t.bytes_sent) + " of " +
                                                  std::to_string(t.bytes) + " bytes sent in " + format_seconds(took) +
                                                  "s; a link on its route or one of its zones went down");
  }
}

void FlowTransfers::stop() {
  for (Transfer& t : transfers_) {
    const Labels labels{{"transfer", t.name}};
    // Still running at the end of the run: what it has sent so far.
    if (t.started && !t.finished) t.bytes_sent = t.bytes - t.stream->bytes_remaining(t.flow);
    recorder().kpi("transfer.completed", labels, t.completed ? 1 : 0);
    recorder().kpi("transfer.bytes_sent", labels, static_cast<double>(t.bytes_sent));
    if (t.completed) recorder().kpi("transfer.seconds", labels, to_seconds(*t.finished - *t.started));
  }
}

}  // namespace drsim

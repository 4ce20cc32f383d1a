#pragma once
// Operator bulk copies between zones (the flow:transfer action): a backup
// restored in another region, a snapshot shipped to re-seed a replica. Each
// is one flow of `size` bytes from the target zone to zone `to`, through the
// flow network (network-fidelity mode), so it shares the links with the
// replication streams and slows them while it runs.
//
// A transfer ends when its last byte arrives, or fails when a link on its
// route or one of its zones goes down (it is not resumed; a step after the
// recovery can start it again).
//
// Series: the flow.bytes and flow.open of its stream (FlowTraffic, labels
// transfer = the step's name). Events: the transfer.* kinds
// (models/topology/topology_event_kinds.h); a completed one's detail has its
// duration and mean throughput, a failed one's what was sent. KPIs per transfer (label transfer): transfer.completed (0/1),
// transfer.bytes_sent, and transfer.seconds (start to last byte) for a
// completed one.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/topology/flow_traffic.h"
#include "models/topology/topology.h"
#include "sim/component.h"

namespace drsim {

// One bulk copy a timeline step will start: the step's name, its zones, its size.
struct TransferOrder {
  std::string name;
  std::string from_zone, to_zone;
  std::int64_t bytes = 0;
};

class FlowTransfers : public Component {
 public:
  // orders: the timeline's flow:transfer steps (each gets its stream now, so
  // that its series start with the run). Throws SimulationError for an
  // unknown zone.
  FlowTransfers(FlowTraffic& traffic, const Topology& topology, const std::vector<TransferOrder>& orders);

  // Starts the transfer of the step of that name (one of those given at construction).
  void start_transfer(std::string_view name);

  struct Transfer {
    std::string name;
    ZoneIndex from = 0, to = 0;
    std::int64_t bytes = 0;
    FlowNetwork* stream = nullptr;
    FlowId flow = 0;
    std::optional<SimTime> started, finished;
    bool completed = false;
    std::int64_t bytes_sent = 0;
  };
  const std::vector<Transfer>& transfers() const { return transfers_; }

 protected:
  void stop() override;

 private:
  void done(std::size_t t, const FlowOutcome& outcome);

  FlowTraffic& traffic_;
  const Topology& topology_;
  std::vector<Transfer> transfers_;
};

}  // namespace drsim

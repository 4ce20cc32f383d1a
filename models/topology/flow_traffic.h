#pragma once
// The flows of a network-fidelity run as the Recorder sees them: how many
// bytes each stream (a replication stream, a bulk transfer) and each
// topology link carried, window by window, so that the competition between
// flows on a link is visible.
//
// Models start their flows through a stream of FlowTraffic: a FlowNetwork
// that forwards to the real one (sim/simgrid) and counts what its flows
// carry. The models keep seeing the plain FlowNetwork interface and never
// touch metrics for it.
//
// Counting is by progress: at the last nanosecond of every metrics window
// while flows are open, FlowTraffic asks the network how many bytes each open
// flow has left, and counts what each moved since it last looked; when a flow
// concludes, what it moved since. Bytes moved during a window are counted in
// that window (a 50 GiB copy shows its throughput, not one lump at its end).
// A flow's bytes count on every topology link of its route (the route of
// make_flow_platform: Topology::route over the nominal state); the zones'
// access links are not recorded.
//
// Recorded per window:
//   flow.bytes       bytes the stream's flows moved (labels: the stream's)
//   flow.open        gauge: the stream's open flows
//   link.flow_bytes  bytes moved over the link by every flow crossing it
//                    (label link)
//   link.flows       gauge: open flows crossing the link
// Divide a window's bytes by the window for a throughput.
// KPIs per stream: flow.flows_started, flow.flows_completed (the others
// failed or were cancelled), flow.bytes_total.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "models/metrics/windowed_metrics.h"
#include "models/topology/topology.h"
#include "sim/component.h"
#include "sim/flow_network.h"

namespace drsim {

class FlowTraffic : public Component {
 public:
  // network: the real one; topology: the one the network's platform was
  // made from (make_flow_platform), for the routes.
  FlowTraffic(FlowNetwork& network, const Topology& topology, Duration metrics_window = std::chrono::seconds(1));
  ~FlowTraffic() override;

  // A FlowNetwork whose flows are counted under `labels` (e.g. {transfer:
  // backup}). Declare streams before the run starts; the reference stays
  // valid as long as this component. Link and host changes made through a
  // stream change the whole network.
  FlowNetwork& stream(Labels labels);

  FlowNetwork& network() { return network_; }
  // Bytes a stream's flows have moved so far (as last counted).
  std::int64_t bytes_moved(std::size_t stream) const { return streams_[stream].moved; }
  std::size_t stream_count() const { return streams_.size(); }

 protected:
  void attach() override;
  void stop() override;

 private:
  class Stream;
  struct StreamState {
    Labels labels;
    std::unique_ptr<Stream> view;
    std::size_t open = 0;
    std::uint64_t started = 0, completed = 0;
    std::int64_t moved = 0;
    CounterId c_bytes;
    GaugeId g_open;
  };
  struct OpenFlow {
    std::size_t stream = 0;
    const std::vector<LinkIndex>* links = nullptr;
    std::int64_t bytes = 0;
    std::int64_t counted = 0;  // bytes moved already counted
  };

  // Not start(): that name is Component::start, which this would hide (clang's -Woverloaded-virtual).
  FlowId start_flow(std::size_t stream, std::size_t from, std::size_t to, std::int64_t bytes, FlowNetwork::Done done);
  void count(OpenFlow& flow, std::int64_t remaining);
  void opened(const OpenFlow& flow, int delta);
  void arm_sample();
  void sample();
  const std::vector<LinkIndex>& route_links(std::size_t from, std::size_t to);

  FlowNetwork& network_;
  const Topology& topology_;
  Duration window_;
  std::deque<StreamState> streams_;
  std::map<FlowId, OpenFlow> open_;                            // ordered: deterministic sampling
  std::vector<std::optional<std::vector<LinkIndex>>> routes_;  // zones x zones, topology links of each route
  std::optional<WindowedMetrics> metrics_;
  std::vector<CounterId> c_link_bytes_;
  std::vector<GaugeId> g_link_flows_;
  std::vector<std::size_t> link_open_;
  bool sample_armed_ = false;
};

}  // namespace drsim

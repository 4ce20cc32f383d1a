#include "models/topology/flow_traffic.h"

#include <utility>

#include "sim/errors.h"
#include "sim/simulation.h"

namespace drsim {

// What a model holds: the network, with its flows counted under one stream.
class FlowTraffic::Stream final : public FlowNetwork {
 public:
  Stream(FlowTraffic& traffic, std::size_t index) : traffic_(traffic), index_(index) {}

  FlowId start_flow(std::size_t from, std::size_t to, std::int64_t bytes, Done done) override {
    return traffic_.start_flow(index_, from, to, bytes, std::move(done));
  }
  bool cancel_flow(FlowId id) override { return traffic_.network_.cancel_flow(id); }
  std::int64_t bytes_remaining(FlowId id) const override { return traffic_.network_.bytes_remaining(id); }
  void set_link_bandwidth(std::size_t link, Bandwidth bandwidth) override {
    traffic_.network_.set_link_bandwidth(link, bandwidth);
  }
  void set_link_latency(std::size_t link, Duration one_way) override {
    traffic_.network_.set_link_latency(link, one_way);
  }
  void set_link_up(std::size_t link, bool up) override { traffic_.network_.set_link_up(link, up); }
  void set_host_up(std::size_t host, bool up) override { traffic_.network_.set_host_up(host, up); }
  std::size_t open_flows() const override { return traffic_.streams_[index_].open; }

 private:
  FlowTraffic& traffic_;
  std::size_t index_;
};

FlowTraffic::FlowTraffic(FlowNetwork& network, const Topology& topology, Duration metrics_window)
    : Component("flow-traffic"), network_(network), topology_(topology), window_(metrics_window) {
  routes_.resize(topology_.zone_count() * topology_.zone_count());
  link_open_.assign(topology_.link_count(), 0);
}

FlowTraffic::~FlowTraffic() = default;

FlowNetwork& FlowTraffic::stream(Labels labels) {
  StreamState& s = streams_.emplace_back();
  s.labels = std::move(labels);
  s.view = std::make_unique<Stream>(*this, streams_.size() - 1);
  return *s.view;
}

void FlowTraffic::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = window_});
  for (StreamState& s : streams_) {
    s.c_bytes = metrics_->counter("flow.bytes", s.labels);
    s.g_open = metrics_->gauge("flow.open", s.labels);
  }
  for (LinkIndex l = 0; l < topology_.link_count(); ++l) {
    const Labels labels{{"link", topology_.link_name(l)}};
    c_link_bytes_.push_back(metrics_->counter("link.flow_bytes", labels));
    g_link_flows_.push_back(metrics_->gauge("link.flows", labels));
  }
}

void FlowTraffic::stop() {
  // What open flows moved up to the end of the run.
  for (auto& [id, flow] : open_) count(flow, network_.bytes_remaining(id));
  metrics_->finish(now());
  for (const StreamState& s : streams_) {
    recorder().kpi("flow.flows_started", s.labels, static_cast<double>(s.started));
    recorder().kpi("flow.flows_completed", s.labels, static_cast<double>(s.completed));
    recorder().kpi("flow.bytes_total", s.labels, static_cast<double>(s.moved));
  }
}

const std::vector<LinkIndex>& FlowTraffic::route_links(std::size_t from, std::size_t to) {
  std::optional<std::vector<LinkIndex>>& cached = routes_[from * topology_.zone_count() + to];
  if (!cached) {
    const auto route = topology_.route(from, to, topology_.nominal_state());
    cached = route ? route->links : std::vector<LinkIndex>{};
  }
  return *cached;
}

FlowId FlowTraffic::start_flow(std::size_t stream, std::size_t from, std::size_t to, std::int64_t bytes,
                               FlowNetwork::Done done) {
  if (from >= topology_.zone_count() || to >= topology_.zone_count()) {
    throw SimulationError("flow traffic: a flow between unknown zones");
  }
  const FlowId id = network_.start_flow(from, to, bytes, [this, done = std::move(done)](const FlowOutcome& outcome) {
    if (auto it = open_.find(outcome.id); it != open_.end()) {
      OpenFlow& flow = it->second;
      count(flow, outcome.bytes_remaining);
      if (outcome.completed) ++streams_[flow.stream].completed;
      opened(flow, -1);
      open_.erase(it);
    }
    if (done) done(outcome);
  });
  OpenFlow flow{stream, &route_links(from, to), bytes, 0};
  ++streams_[stream].started;
  opened(flow, +1);
  open_.emplace(id, flow);
  arm_sample();
  return id;
}

void FlowTraffic::count(OpenFlow& flow, std::int64_t remaining) {
  const std::int64_t moved = flow.bytes - remaining - flow.counted;
  if (moved <= 0) return;
  flow.counted += moved;
  streams_[flow.stream].moved += moved;
  const auto n = static_cast<double>(moved);
  metrics_->add(streams_[flow.stream].c_bytes, now(), n);
  for (LinkIndex l : *flow.links) metrics_->add(c_link_bytes_[l], now(), n);
}

void FlowTraffic::opened(const OpenFlow& flow, int delta) {
  StreamState& s = streams_[flow.stream];
  s.open = static_cast<std::size_t>(static_cast<long long>(s.open) + delta);
  metrics_->set(s.g_open, now(), static_cast<double>(s.open));
  for (LinkIndex l : *flow.links) {
    link_open_[l] = static_cast<std::size_t>(static_cast<long long>(link_open_[l]) + delta);
    metrics_->set(g_link_flows_[l], now(), static_cast<double>(link_open_[l]));
  }
}

// At the last nanosecond of a window, so that what was moved up to it counts
// in it: the current window's, or the next one's when called at that
// nanosecond (by sample() itself).
void FlowTraffic::arm_sample() {
  if (sample_armed_) return;
  const std::int64_t w = to_ns(window_);
  const SimTime at{Duration{((to_ns(now()) + 1) / w + 1) * w - 1}};
  schedule_at(at, "flow-traffic.sample", [this] { sample(); });
  sample_armed_ = true;
}

void FlowTraffic::sample() {
  sample_armed_ = false;
  for (auto& [id, flow] : open_) count(flow, network_.bytes_remaining(id));
  if (!open_.empty()) arm_sample();
}

}  // namespace drsim

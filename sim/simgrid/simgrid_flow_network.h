#pragma once
// The FlowNetwork backed by SimGrid's flow-level network model, and the
// network-fidelity event loop that goes with it.
//
// How the loop interleaves (drsim owns the clock; see docs/architecture.md,
// "Who owns the clock (SimGrid)"): run_until() drives the Simulation with
// step(), one simulated instant at a time, with the same guards as
// Simulation::run_until (maxEvents, maxWallTime, event storm, stop flag,
// progress). As long as no flow has been started it never touches SimGrid.
// When the first flow starts, it creates SimGrid's engine, builds the
// platform from the FlowPlatform (with the link changes applied so far) and
// continues the loop inside one SimGrid actor: before each instant it waits
// on the open flows with Comm::wait_any_for(flows, next_event_time - now).
// A flow that completes first becomes an event at SimGrid's clock, converted
// to integer nanoseconds by rounding to the nearest (clock_map.h) and clamped
// to [now, next event time]; an event at the same nanosecond as earlier
// scheduled events runs after them. Otherwise the next instant's events run.
// Flows start (Comm::sendto_async) at the end of the instant in which a
// handler asked for them; no simulated time passes in between.
//
// At the horizon the engine is torn down (releasing SimGrid's process-wide
// singleton, engine_lease.h). Flows still open stay open: a later
// run_until() restarts them for their remaining bytes in a new engine, which
// makes them pay the route latency once more; run once to the horizon for
// exact flow timings.
//
// The network must outlive the Simulation's run (completion events point to
// it). One SimGridFlowNetwork per Simulation.
#include <cstdint>
#include <memory>

#include "sim/flow_network.h"
#include "sim/simulation.h"

namespace drsim {

struct SimGridOptions {
  // Let SimGrid print its log lines (silenced otherwise; see engine_lease.h).
  bool debug_log = false;
};

class SimGridFlowNetwork final : public FlowNetwork {
 public:
  SimGridFlowNetwork(Simulation& sim, FlowPlatform platform, SimGridOptions options = {});
  ~SimGridFlowNetwork() override;
  SimGridFlowNetwork(const SimGridFlowNetwork&) = delete;
  SimGridFlowNetwork& operator=(const SimGridFlowNetwork&) = delete;

  // The network-fidelity counterpart of Simulation::run_until. Throws
  // SimulationError if another network-fidelity run holds SimGrid's engine.
  RunOutcome run_until(SimTime horizon);

  // Whether this network has ever created a SimGrid engine.
  bool engine_started() const;
  // Engines created in this process so far (all networks).
  static std::uint64_t engines_created();

  FlowId start_flow(std::size_t from, std::size_t to, std::int64_t bytes, Done done) override;
  bool cancel_flow(FlowId id) override;
  std::int64_t bytes_remaining(FlowId id) const override;
  void set_link_bandwidth(std::size_t link, Bandwidth bandwidth) override;
  void set_link_latency(std::size_t link, Duration one_way) override;
  void set_link_up(std::size_t link, bool up) override;
  void set_host_up(std::size_t host, bool up) override;
  std::size_t open_flows() const override;

  const FlowPlatform& platform() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace drsim

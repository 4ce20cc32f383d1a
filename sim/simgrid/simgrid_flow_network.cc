#include "sim/simgrid/simgrid_flow_network.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <map>
#include <optional>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/errors.h"
#include "sim/run_guards.h"
#include "sim/simgrid/clock_map.h"
#include "sim/simgrid/engine_lease.h"
#include "sim/simgrid/platform_builder.h"

namespace drsim {

namespace sg4 = simgrid::s4u;
using simgrid_backend::BuiltPlatform;
using simgrid_backend::ClockMap;
using simgrid_backend::EngineLease;

namespace {

constexpr int kNoRoute = -1;

struct Flow {
  std::size_t from = 0;
  std::size_t to = 0;
  std::int64_t bytes = 0;    // requested
  std::int64_t to_send = 0;  // bytes the next launch sends (less than bytes after a restart)
  SimTime started{};
  FlowNetwork::Done done;
  sg4::CommPtr comm;  // set while launched in the current engine
};

// A flow that has finished or failed, waiting for its callback event.
struct Concluded {
  FlowOutcome outcome;
  FlowNetwork::Done done;
};


// What one run_until call tracks across instants.
struct LoopState {
  SimTime horizon{};
  std::optional<RunGuards> guards;  // the wall clock, memory, event rate, stop flag, progress
  std::uint64_t events_before = 0;
  std::optional<SimTime> instant;  // the last instant events ran at
  std::uint64_t events_at_instant = 0;
  RunOutcome outcome;
};

}  // namespace

struct SimGridFlowNetwork::Impl {
  Impl(Simulation& s, FlowPlatform p, SimGridOptions o) : sim(s), platform(std::move(p)), options(o) {}

  Simulation& sim;
  FlowPlatform platform;
  SimGridOptions options;
  std::vector<int> route_of;  // host_count^2, index into platform.routes
  std::vector<bool> link_up;
  std::vector<bool> host_up;

  FlowId next_id = 1;
  std::map<FlowId, Flow> open;  // started, not concluded (ordered: deterministic failure order)
  std::vector<FlowId> pending;  // open flows waiting to be launched in the engine
  std::vector<FlowId> active;   // launched, parallel to comms
  std::vector<sg4::CommPtr> comms;
  std::map<FlowId, Concluded> concluded;

  std::optional<EngineLease> lease;
  BuiltPlatform built;
  ClockMap clock;
  bool in_actor = false;
  bool running = false;
  bool ever_started = false;

  std::size_t hosts() const { return platform.hosts.size(); }
  int route(std::size_t a, std::size_t b) const { return route_of[a * hosts() + b]; }

  bool route_up(const Flow& f) const {
    if (!host_up[f.from] || !host_up[f.to]) return false;
    if (f.from == f.to) return true;
    for (std::size_t l : platform.routes[static_cast<std::size_t>(route(f.from, f.to))].links) {
      if (!link_up[l]) return false;
    }
    return true;
  }
  bool crosses(const Flow& f, std::size_t link) const {
    if (f.from == f.to) return false;
    const auto& links = platform.routes[static_cast<std::size_t>(route(f.from, f.to))].links;
    return std::find(links.begin(), links.end(), link) != links.end();
  }

  // Takes a flow out of the open set and schedules its callback at `at`.
  void conclude(FlowId id, bool completed, SimTime at, std::int64_t remaining) {
    auto it = open.find(id);
    Flow flow = std::move(it->second);
    open.erase(it);
    pending.erase(std::remove(pending.begin(), pending.end(), id), pending.end());
    if (flow.comm) {
      const auto pos = std::find(active.begin(), active.end(), id) - active.begin();
      active.erase(active.begin() + pos);
      comms.erase(comms.begin() + pos);
    }
    FlowOutcome outcome{id, completed, flow.started, at, flow.bytes, remaining};
    concluded.emplace(id, Concluded{outcome, std::move(flow.done)});
    sim.schedule_at(
        at, [this, id] { deliver(id); }, EventTag{kNoComponent, "flow-done"});
  }
  void deliver(FlowId id) {
    auto it = concluded.find(id);
    Concluded c = std::move(it->second);
    concluded.erase(it);
    c.outcome.finished = sim.now();
    if (c.done) c.done(c.outcome);
  }
  // Stops a flow now, for a failure or a cancellation.
  void fail(FlowId id) {
    Flow& flow = open.at(id);
    std::int64_t remaining = flow.to_send;
    if (flow.comm) {
      remaining = std::llround(flow.comm->get_remaining());
      flow.comm->cancel();
    }
    conclude(id, false, sim.now(), remaining);
  }
  template <class Pred>
  void fail_where(Pred pred) {
    std::vector<FlowId> doomed;
    for (const auto& [id, flow] : open) {
      if (pred(flow)) doomed.push_back(id);
    }
    for (FlowId id : doomed) fail(id);
  }

  // ---- inside the SimGrid actor ----

  void launch_pending() {
    for (FlowId id : pending) {
      Flow& flow = open.at(id);
      // With no flow open the SimGrid clock has not followed drsim's: re-anchor.
      if (comms.empty()) clock.anchor(sg4::Engine::get_clock(), sim.now());
      flow.comm = sg4::Comm::sendto_async(built.hosts[flow.from], built.hosts[flow.to],
                                          static_cast<std::uint64_t>(flow.to_send));
      active.push_back(id);
      comms.push_back(flow.comm);
    }
    pending.clear();
  }

  void actor_loop(LoopState& st) {
    while (true) {
      launch_pending();
      const auto next = sim.next_event_time();
      const bool has_event = next && *next <= st.horizon;
      const SimTime target = has_event ? *next : st.horizon;
      if (!comms.empty()) {
        const double timeout = clock.to_simgrid(target) - sg4::Engine::get_clock();
        const ssize_t i = timeout > 0 ? sg4::Comm::wait_any_for(comms, timeout) : sg4::Comm::test_any(comms);
        if (i >= 0) {
          const SimTime at = std::clamp(clock.to_drsim(sg4::Engine::get_clock()), sim.now(), target);
          conclude(active[static_cast<std::size_t>(i)], true, at, 0);
          continue;
        }
      }
      if (!has_event) return;
      if (!run_instant(st)) return;
    }
  }

  // At the horizon: the engine goes away, open flows wait for the next run
  // with what they still have to send.
  void park_open_flows() {
    for (std::size_t i = 0; i < active.size(); ++i) {
      Flow& flow = open.at(active[i]);
      flow.to_send = std::llround(flow.comm->get_remaining());
      flow.comm->cancel();
      flow.comm = nullptr;
      pending.push_back(active[i]);
    }
    active.clear();
    comms.clear();
  }

  // ---- the loop, with Simulation::run_until's guards ----

  void stop(LoopState& st, StopReason reason, std::string message) {
    st.outcome.reason = reason;
    st.outcome.message = std::move(message);
  }

  // Runs every event of the next instant. False when a guard stopped the run.
  bool run_instant(LoopState& st) {
    const SimulationOptions& o = sim.options();
    const SimTime t = *sim.next_event_time();
    if (st.instant != t) {
      st.instant = t;
      st.events_at_instant = 0;
    }
    while (true) {
      if (st.guards->stop_before_event(sim.now(), sim.events_run(), st.outcome)) return false;
      if (o.max_events != 0 && sim.events_run() >= o.max_events) {
        stop(st, StopReason::kMaxEvents,
             "guard maxEvents (" + std::to_string(o.max_events) + ") stopped the run at t=" + format_clock(sim.now()));
        return false;
      }
      if (o.max_events_per_instant != 0 && st.events_at_instant >= o.max_events_per_instant) {
        stop(st, StopReason::kEventStorm,
             "event storm: " + std::to_string(st.events_at_instant) + " events at t=" + format_clock(t) +
                 " without time advancing (guard maxEventsPerInstant)");
        return false;
      }
      sim.step();
      ++st.events_at_instant;
      const auto next = sim.next_event_time();
      if (!next || *next != t) return true;
    }
  }
};

SimGridFlowNetwork::SimGridFlowNetwork(Simulation& sim, FlowPlatform platform, SimGridOptions options)
    : impl_(std::make_unique<Impl>(sim, std::move(platform), options)) {
  Impl& m = *impl_;
  const std::size_t n = m.hosts();
  m.route_of.assign(n * n, kNoRoute);
  for (std::size_t r = 0; r < m.platform.routes.size(); ++r) {
    const FlowRouteSpec& route = m.platform.routes[r];
    if (route.from >= n || route.to >= n) throw SimulationError("flow platform: a route joins an unknown host");
    for (std::size_t l : route.links) {
      if (l >= m.platform.links.size()) throw SimulationError("flow platform: a route crosses an unknown link");
    }
    m.route_of[route.from * n + route.to] = static_cast<int>(r);
    m.route_of[route.to * n + route.from] = static_cast<int>(r);
  }
  m.link_up.assign(m.platform.links.size(), true);
  m.host_up.assign(n, true);
}

SimGridFlowNetwork::~SimGridFlowNetwork() = default;

const FlowPlatform& SimGridFlowNetwork::platform() const { return impl_->platform; }
bool SimGridFlowNetwork::engine_started() const { return impl_->ever_started; }
std::uint64_t SimGridFlowNetwork::engines_created() { return EngineLease::engines_created(); }
std::size_t SimGridFlowNetwork::open_flows() const { return impl_->open.size(); }

FlowId SimGridFlowNetwork::start_flow(std::size_t from, std::size_t to, std::int64_t bytes, Done done) {
  Impl& m = *impl_;
  if (from >= m.hosts() || to >= m.hosts()) throw SimulationError("start_flow: unknown host index");
  if (bytes < 0) throw SimulationError("start_flow: negative size");
  if (from != to && m.route(from, to) == kNoRoute) {
    throw SimulationError("start_flow: no route from host \"" + m.platform.hosts[from] + "\" to \"" +
                          m.platform.hosts[to] + "\"");
  }
  const FlowId id = m.next_id++;
  Flow& flow = m.open[id];
  flow.from = from;
  flow.to = to;
  flow.bytes = bytes;
  flow.to_send = bytes;
  flow.started = m.sim.now();
  flow.done = std::move(done);
  if (!m.route_up(flow)) {
    m.conclude(id, false, m.sim.now(), bytes);
  } else if (from == to) {
    m.conclude(id, true, m.sim.now(), 0);
  } else {
    m.pending.push_back(id);
  }
  return id;
}

bool SimGridFlowNetwork::cancel_flow(FlowId id) {
  if (!impl_->open.contains(id)) return false;
  impl_->fail(id);
  return true;
}

std::int64_t SimGridFlowNetwork::bytes_remaining(FlowId id) const {
  const auto it = impl_->open.find(id);
  if (it == impl_->open.end()) return 0;
  const Flow& flow = it->second;
  // Launched flows live in the running engine (handlers run inside its actor).
  return flow.comm ? std::llround(flow.comm->get_remaining()) : flow.to_send;
}

void SimGridFlowNetwork::set_link_bandwidth(std::size_t link, Bandwidth bandwidth) {
  Impl& m = *impl_;
  FlowLinkSpec& spec = m.platform.links.at(link);
  if (spec.bandwidth == bandwidth) return;
  if (!(bandwidth.bits_per_second > 0)) throw SimulationError("set_link_bandwidth: bandwidth must be positive");
  spec.bandwidth = bandwidth;
  if (m.lease) m.built.links[link]->set_bandwidth(simgrid_backend::bytes_per_second(bandwidth));
}

void SimGridFlowNetwork::set_link_latency(std::size_t link, Duration one_way) {
  Impl& m = *impl_;
  FlowLinkSpec& spec = m.platform.links.at(link);
  if (spec.latency == one_way) return;
  spec.latency = one_way;
  if (m.lease) m.built.links[link]->set_latency(to_seconds(one_way));
}

void SimGridFlowNetwork::set_link_up(std::size_t link, bool up) {
  Impl& m = *impl_;
  if (m.link_up.at(link) == up) return;
  m.link_up[link] = up;
  if (!up) m.fail_where([&](const Flow& f) { return m.crosses(f, link); });
}

void SimGridFlowNetwork::set_host_up(std::size_t host, bool up) {
  Impl& m = *impl_;
  if (m.host_up.at(host) == up) return;
  m.host_up[host] = up;
  if (!up) m.fail_where([&](const Flow& f) { return f.from == host || f.to == host; });
}

RunOutcome SimGridFlowNetwork::run_until(SimTime horizon) {
  Impl& m = *impl_;
  Simulation& sim = m.sim;
  if (m.running) throw SimulationError("SimGridFlowNetwork::run_until re-entered from an event handler");
  if (sim.finished()) throw SimulationError("run_until() after finish()");
  if (horizon < sim.now()) {
    throw SimulationError("run_until(" + format_clock(horizon) + ") is before now (" + format_clock(sim.now()) + ")");
  }
  m.running = true;
  struct Running {
    bool& flag;
    ~Running() { flag = false; }
  } running{m.running};
  sim.initialize();

  LoopState st;
  st.horizon = horizon;
  st.events_before = sim.events_run();
  st.guards.emplace(sim.options(), horizon, st.events_before);

  // Without flows: plain drsim, no SimGrid.
  bool stopped = false;
  while (m.pending.empty()) {
    const auto next = sim.next_event_time();
    if (!next || *next > horizon) break;
    if (!m.run_instant(st)) {
      stopped = true;
      break;
    }
  }
  // A flow was started: the rest of the run goes inside one SimGrid actor.
  if (!stopped && !m.pending.empty()) {
    m.lease.emplace(m.options.debug_log);
    m.ever_started = true;
    std::exception_ptr error;
    try {
      m.built = simgrid_backend::build_platform(m.platform);
      sg4::Actor::create("drsim-loop", m.built.driver, [&] {
        m.in_actor = true;
        try {
          m.actor_loop(st);
        } catch (...) {
          error = std::current_exception();
        }
        m.park_open_flows();
        m.in_actor = false;
      });
      m.lease->engine().run();
    } catch (...) {
      if (!error) error = std::current_exception();
    }
    m.built = BuiltPlatform{};
    m.lease.reset();
    if (error) std::rethrow_exception(error);
  }

  if (st.outcome.complete()) sim.run_until(horizon);  // nothing is left at or before horizon: moves the clock
  st.outcome.end_time = sim.now();
  st.outcome.events = sim.events_run() - st.events_before;
  st.outcome.wall_seconds = st.guards->wall_seconds();
  return st.outcome;
}

}  // namespace drsim

#include "sim/simulation.h"

#include <chrono>
#include <exception>

#include "sim/run_guards.h"

namespace drsim {

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::kHorizon: return "horizon";
    case StopReason::kMaxEvents: return "max_events";
    case StopReason::kMaxWallTime: return "max_wall_time";
    case StopReason::kEventStorm: return "event_storm";
    case StopReason::kInterrupted: return "interrupted";
    case StopReason::kMaxMemory: return "max_memory";
  }
  return "unknown";
}

void Component::log_event(const EventKind& kind, std::string_view detail) {
  sim_->recorder().event(sim_->now(), name_, kind, detail);
}

Simulation::Simulation(SimulationOptions options) : options_(std::move(options)) {}

// Components are destroyed before the queue so that a handler's captured
// state never outlives what it points to.
Simulation::~Simulation() {
  queue_.clear();
  components_.clear();
}

void Simulation::adopt(std::unique_ptr<Component> component) {
  if (initialized_) {
    throw SimulationError("component \"" + component->name() +
                          "\" added after the run started: configuration is sealed at start");
  }
  if (find(component->name()) != nullptr) {
    throw SimulationError("two components named \"" + component->name() + "\"");
  }
  component->id_ = static_cast<std::uint32_t>(components_.size());
  component->sim_ = this;
  components_.push_back(std::move(component));
}

Component* Simulation::find(std::string_view name) const {
  for (const auto& c : components_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

void Simulation::initialize() {
  if (initialized_) return;
  initialized_ = true;
  // All components attach before any starts, so that start() may rely on
  // every peer having declared its metrics.
  for (auto& c : components_) c->attach();
  for (auto& c : components_) c->start();
}

void Simulation::finish() {
  if (finished_) return;
  initialize();
  finished_ = true;
  for (auto& c : components_) c->stop();
}

std::string Simulation::describe(EventTag tag) const {
  std::string where = "at t=" + format_clock(now_) + " (" + std::to_string(to_ns(now_)) + " ns)";
  if (tag.component != kNoComponent && tag.component < components_.size()) {
    where += ", component \"" + components_[tag.component]->name() + "\"";
  }
  where += ", event \"" + std::string(tag.label != nullptr ? tag.label : "?") + "\"";
  return where;
}

void Simulation::throw_past(SimTime t, EventTag tag) const {
  throw SimulationError(describe(tag) + ": scheduled in the past, for t=" + format_clock(t));
}

void Simulation::rethrow_from_handler(SimTime /*t*/, EventTag tag) const {
  try {
    throw;
  } catch (const HandlerError&) {
    throw;  // already carries where it happened
  } catch (const std::exception& e) {
    throw HandlerError(describe(tag), e.what());
  } catch (...) {
    throw HandlerError(describe(tag), "unknown exception");
  }
}

void Simulation::run_one() {
  EventQueue::Popped event = queue_.pop();
  if (event.time != now_) {
    now_ = event.time;
    events_at_instant_ = 0;
  }
  ++events_at_instant_;
  ++events_run_;
  try {
    event.handler();
  } catch (...) {
    rethrow_from_handler(event.time, event.tag);
  }
}

bool Simulation::step() {
  if (finished_) throw SimulationError("step() after finish()");
  initialize();
  if (queue_.empty()) return false;
  run_one();
  return true;
}

RunOutcome Simulation::run_until(SimTime horizon) {
  if (finished_) throw SimulationError("run_until() after finish()");
  if (horizon < now_) {
    throw SimulationError("run_until(" + format_clock(horizon) + ") is before now (" + format_clock(now_) + ")");
  }
  initialize();
  const std::uint64_t events_before = events_run_;
  RunGuards guards(options_, horizon, events_before);
  RunOutcome outcome;
  auto stop = [&](StopReason reason, std::string message) {
    outcome.reason = reason;
    outcome.message = std::move(message);
  };

  while (true) {
    if (queue_.empty() || queue_.top_time() > horizon) {
      now_ = horizon;
      break;
    }
    if (guards.stop_before_event(now_, events_run_, outcome)) break;
    if (options_.max_events != 0 && events_run_ >= options_.max_events) {
      stop(StopReason::kMaxEvents, "guard maxEvents (" + std::to_string(options_.max_events) +
                                       ") stopped the run at t=" + format_clock(now_));
      break;
    }
    if (options_.max_events_per_instant != 0 && events_at_instant_ >= options_.max_events_per_instant &&
        queue_.top_time() == now_) {
      stop(StopReason::kEventStorm, "event storm: " + std::to_string(events_at_instant_) +
                                        " events at t=" + format_clock(now_) +
                                        " without time advancing (guard maxEventsPerInstant)");
      break;
    }
    run_one();
  }
  outcome.end_time = now_;
  outcome.events = events_run_ - events_before;
  outcome.wall_seconds = guards.wall_seconds();
  return outcome;
}

}  // namespace drsim

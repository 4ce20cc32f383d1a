#pragma once
// A Component is one modelled thing (a zone tracker, a service, an HPA).
// Lifecycle: configured (constructed with its Config) -> attach (declare
// metrics, find peers) -> start (schedule first events) -> handle events ->
// stop (flush, final KPIs). Configuration is sealed once the run starts: the
// Simulation refuses new components after that.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "sim/event_kind.h"
#include "sim/event_queue.h"
#include "sim/recorder.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace drsim {

class Simulation;

class Component {
 public:
  explicit Component(std::string name) : name_(std::move(name)) {}
  virtual ~Component() = default;
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  const std::string& name() const { return name_; }
  std::uint32_t id() const { return id_; }

 protected:
  virtual void attach() {}
  virtual void start() {}
  virtual void stop() {}

  Simulation& sim() const { return *sim_; }
  SimTime now() const;
  Recorder& recorder() const;
  // This component's own random stream, derived from (run seed, name).
  RngStream& rng();

  template <class F>
  EventId schedule_at(SimTime t, const char* label, F&& handler, int priority = 0);
  template <class F>
  EventId schedule_after(Duration delay, const char* label, F&& handler, int priority = 0);
  bool cancel(EventId id);

  // Records an event in the run's events table under this component's name;
  // the kind is a constant of the component's area (sim/event_kind.h).
  void log_event(const EventKind& kind, std::string_view detail);

 private:
  friend class Simulation;
  std::string name_;
  std::uint32_t id_ = kNoComponent;
  Simulation* sim_ = nullptr;
  std::optional<RngStream> rng_;
};

}  // namespace drsim

#pragma once
// A Simulation instance owns the clock, the event queue, the RNG streams, the
// Recorder and the components. It is never global: a sweep runs many in
// threads of one process.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sim/component.h"
#include "sim/errors.h"
#include "sim/event_queue.h"
#include "sim/recorder.h"
#include "sim/span_recorder.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace drsim {

struct RunProgress {
  SimTime now;
  SimTime horizon;
  std::uint64_t events;
  double wall_seconds;
};

// Guards stop a run that would never end. Zero means "no limit".
struct SimulationOptions {
  std::uint64_t seed = 1;
  std::uint64_t max_events = 0;
  Duration max_wall_time{0};
  // Events allowed at one simulated instant before the run is declared an
  // event storm (a zero-delay loop never advances time).
  std::uint64_t max_events_per_instant = 10'000'000;
  // The process's resident memory above which the run stops (0: no limit).
  std::uint64_t max_memory_bytes = 0;
  // Events per simulated second above which the run is declared an event
  // storm even though time creeps forward (0: no limit); judged over windows
  // of a million events (sim/run_guards.h).
  double max_event_rate = 0;
  std::uint64_t event_rate_window = 1'000'000;  // events per judgement of the rate
  // Where maxWallTime counts from (default: the start of run_until), so that
  // building the simulation counts too.
  std::optional<std::chrono::steady_clock::time_point> wall_start;
  // Set from another thread (a signal handler, Python's Ctrl-C) to stop the run.
  const std::atomic<bool>* stop_flag = nullptr;
  // Called about every progress_interval of wall time while running.
  std::function<void(const RunProgress&)> progress;
  Duration progress_interval = std::chrono::milliseconds(250);
};

enum class StopReason {
  kHorizon,       // reached the requested time: the run is complete
  kMaxEvents,     // guard: too many events
  kMaxWallTime,   // guard: too long in wall-clock time
  kEventStorm,    // guard: too many events without time advancing, or per simulated second
  kMaxMemory,     // guard: the process holds more memory than allowed
  kInterrupted,   // the stop flag was raised
};
const char* to_string(StopReason reason);

struct RunOutcome {
  StopReason reason = StopReason::kHorizon;
  SimTime end_time{};
  std::uint64_t events = 0;       // events run by this call
  double wall_seconds = 0;
  std::string message;            // human explanation when not complete
  bool complete() const { return reason == StopReason::kHorizon; }
};

class Simulation {
 public:
  explicit Simulation(SimulationOptions options = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Creates a component and takes ownership. Only before the run starts.
  template <class T, class... Args>
  T& add(Args&&... args) {
    static_assert(std::is_base_of_v<Component, T>);
    auto owned = std::make_unique<T>(std::forward<Args>(args)...);
    T& ref = *owned;
    adopt(std::move(owned));
    return ref;
  }
  // The component with this name, or nullptr.
  Component* find(std::string_view name) const;
  template <class T>
  T* find(std::string_view name) const {
    return dynamic_cast<T*>(find(name));
  }
  const std::vector<std::unique_ptr<Component>>& components() const { return components_; }

  SimTime now() const { return now_; }
  std::uint64_t seed() const { return options_.seed; }
  std::uint64_t events_run() const { return events_run_; }
  std::size_t pending_events() const { return queue_.size(); }

  template <class F>
  EventId schedule_at(SimTime t, F&& handler, EventTag tag = {}, int priority = 0) {
    if (t < now_) throw_past(t, tag);
    return queue_.push(t, priority, tag, std::forward<F>(handler));
  }
  template <class F>
  EventId schedule_after(Duration delay, F&& handler, EventTag tag = {}, int priority = 0) {
    return schedule_at(now_ + delay, std::forward<F>(handler), tag, priority);
  }
  bool cancel(EventId id) { return queue_.cancel(id); }
  bool is_pending(EventId id) const { return queue_.is_pending(id); }
  // Time of the earliest pending event, or nullopt when none is pending. For
  // drivers that run the loop themselves with step() (sim/simgrid waits on
  // open flows up to this time); run_until never calls it.
  std::optional<SimTime> next_event_time() {
    if (queue_.empty()) return std::nullopt;
    return queue_.top_time();
  }

  // Attaches then starts every component (once). run_until calls it.
  void initialize();
  // Runs the next event, if any. Returns false when nothing is pending.
  bool step();
  // Runs every event at or before horizon, unless a guard stops it first.
  // Can be called again with a later horizon to continue.
  RunOutcome run_until(SimTime horizon);
  RunOutcome run_for(Duration d) { return run_until(now_ + d); }
  // Stops every component (once): they flush and write final KPIs.
  void finish();
  bool finished() const { return finished_; }

  Recorder& recorder() { return recorder_; }
  const Recorder& recorder() const { return recorder_; }
  // The sampled requests' spans (off unless enabled: io/run.cc enables them for spec.traces).
  SpanRecorder& spans() { return spans_; }
  const SpanRecorder& spans() const { return spans_; }
  RngStream rng_stream(std::string_view name) const { return RngStream(options_.seed, name); }
  const SimulationOptions& options() const { return options_; }

 private:
  void adopt(std::unique_ptr<Component> component);
  [[noreturn]] void throw_past(SimTime t, EventTag tag) const;
  [[noreturn]] void rethrow_from_handler(SimTime t, EventTag tag) const;
  std::string describe(EventTag tag) const;
  void run_one();

  SimulationOptions options_;
  EventQueue queue_;
  Recorder recorder_;
  SpanRecorder spans_;
  std::vector<std::unique_ptr<Component>> components_;
  SimTime now_{};
  std::uint64_t events_run_ = 0;
  std::uint64_t events_at_instant_ = 0;
  bool initialized_ = false;
  bool finished_ = false;
};

// ---- Component helpers (here because they need Simulation) ----

inline SimTime Component::now() const { return sim_->now(); }
inline Recorder& Component::recorder() const { return sim_->recorder(); }
// Inline: models draw several numbers per request.
inline RngStream& Component::rng() {
  if (!rng_) rng_.emplace(sim_->rng_stream(name_));
  return *rng_;
}

template <class F>
EventId Component::schedule_at(SimTime t, const char* label, F&& handler, int priority) {
  return sim_->schedule_at(t, std::forward<F>(handler), EventTag{id_, label}, priority);
}
template <class F>
EventId Component::schedule_after(Duration delay, const char* label, F&& handler, int priority) {
  return sim_->schedule_after(delay, std::forward<F>(handler), EventTag{id_, label}, priority);
}
inline bool Component::cancel(EventId id) { return sim_->cancel(id); }

}  // namespace drsim

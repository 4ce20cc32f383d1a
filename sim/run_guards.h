#pragma once
// RunGuards: the guards of one run_until call, shared by Simulation's own
// loop and SimGrid's (sim/simgrid): the stop flag, maxWallTime, maxMemory,
// the event rate, and progress reports. maxEvents and maxEventsPerInstant
// are counted per event by the loops themselves.
//
// Looking at the wall clock or the process's memory on every event would cost
// more than the event. The guards look every `batch` events, and the batch
// adapts so that a look happens about every millisecond of wall time
// whatever an event costs: with events of 100 ns it is thousands of events,
// with events that each flush a large metrics window it is one. A guard then
// stops within a few milliseconds of its limit, not within 4096 events.
#include <chrono>
#include <cstdint>
#include <string>

#include "sim/time.h"

namespace drsim {

struct SimulationOptions;
struct RunOutcome;

// "18.8 GiB", "300.0 MiB", "1.0 KiB": memory in messages.
std::string format_memory(double bytes);
// The resident memory of this process, in bytes (0 where it cannot be read).
std::uint64_t resident_memory_bytes();
// The memory this process may use: physical memory, or its cgroup's limit
// when that is lower (0 where neither can be read).
std::uint64_t available_memory_bytes();

class RunGuards {
 public:
  using WallClock = std::chrono::steady_clock;

  RunGuards(const SimulationOptions& options, SimTime horizon, std::uint64_t events_before);

  // Before each event: true when a guard stops the run (outcome says which
  // and why). Cheap: most calls only count down.
  bool stop_before_event(SimTime now, std::uint64_t events_run, RunOutcome& outcome) {
    if (--until_look_ != 0) return false;
    return look(now, events_run, outcome);
  }
  double wall_seconds() const;

 private:
  bool look(SimTime now, std::uint64_t events_run, RunOutcome& outcome);
  bool event_rate_exceeded(SimTime now, std::uint64_t events_run, RunOutcome& outcome);

  const SimulationOptions& options_;
  SimTime horizon_;
  std::uint64_t events_before_;
  WallClock::time_point wall_start_;
  WallClock::time_point last_look_;
  WallClock::time_point next_progress_;
  WallClock::time_point next_memory_look_;
  std::uint64_t batch_ = 1;
  std::uint64_t until_look_ = 1;
  // The event-rate window: events and simulated time since its start.
  std::uint64_t rate_window_events_ = 0;
  SimTime rate_window_time_{};
};

}  // namespace drsim

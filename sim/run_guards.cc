#include "sim/run_guards.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "sim/simulation.h"

namespace drsim {

namespace {

// A look every kLookEvery of wall time; the batch between looks doubles or
// halves to keep to it, up to kMaxBatch events.
constexpr auto kLookEvery = std::chrono::milliseconds(1);
constexpr std::uint64_t kMaxBatch = 4096;
// Reading /proc costs a few microseconds: at most one read per kMemoryEvery.
constexpr auto kMemoryEvery = std::chrono::milliseconds(10);

std::uint64_t read_number(const char* path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (!(in >> value)) return 0;  // "max" (no limit) or no such file
  return value;
}

}  // namespace

std::string format_memory(double bytes) {
  const char* unit = "GiB";
  double value = bytes / (1024.0 * 1024.0 * 1024.0);
  if (value < 1) unit = "MiB", value *= 1024;
  if (value < 1) unit = "KiB", value *= 1024;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f %s", value, unit);
  return buf;
}

std::uint64_t resident_memory_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::uint64_t available_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  std::uint64_t out = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
  // A container's limit (cgroup v2, then v1) when it is lower than the machine's memory.
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const std::uint64_t limit = read_number(path);
    if (limit > 0 && (out == 0 || limit < out)) out = limit;
  }
  return out;
}

RunGuards::RunGuards(const SimulationOptions& options, SimTime horizon, std::uint64_t events_before)
    : options_(options),
      horizon_(horizon),
      events_before_(events_before),
      wall_start_(options.wall_start.value_or(WallClock::now())),
      last_look_(WallClock::now()),
      next_progress_(last_look_),
      next_memory_look_(last_look_),
      rate_window_events_(events_before) {}

double RunGuards::wall_seconds() const { return std::chrono::duration<double>(WallClock::now() - wall_start_).count(); }

bool RunGuards::look(SimTime now, std::uint64_t events_run, RunOutcome& outcome) {
  const auto wall_now = WallClock::now();
  // Adapt the batch to what the last one cost.
  const auto since_last = wall_now - last_look_;
  last_look_ = wall_now;
  if (since_last > 2 * kLookEvery) {
    batch_ = std::max<std::uint64_t>(1, batch_ / 2);
  } else if (since_last < kLookEvery / 2) {
    batch_ = std::min(kMaxBatch, batch_ * 2);
  }
  until_look_ = batch_;

  auto stop = [&](StopReason reason, std::string message) {
    outcome.reason = reason;
    outcome.message = std::move(message);
    return true;
  };
  if (options_.stop_flag != nullptr && options_.stop_flag->load(std::memory_order_relaxed)) {
    return stop(StopReason::kInterrupted, "run interrupted at t=" + format_clock(now));
  }
  if (options_.max_wall_time > Duration::zero() && wall_now - wall_start_ >= options_.max_wall_time) {
    return stop(StopReason::kMaxWallTime, "guard maxWallTime (" + format_seconds(options_.max_wall_time) +
                                              " s) stopped the run at t=" + format_clock(now));
  }
  if (options_.max_memory_bytes > 0 && wall_now >= next_memory_look_) {
    next_memory_look_ = wall_now + kMemoryEvery;
    const std::uint64_t resident = resident_memory_bytes();
    if (resident > options_.max_memory_bytes) {
      return stop(StopReason::kMaxMemory, "guard maxMemory (" +
                                              format_memory(static_cast<double>(options_.max_memory_bytes)) +
                                              ") stopped the run at t=" + format_clock(now) + ": the process holds " +
                                              format_memory(static_cast<double>(resident)));
    }
  }
  if (event_rate_exceeded(now, events_run, outcome)) return true;
  if (options_.progress && wall_now >= next_progress_) {
    options_.progress(RunProgress{now, horizon_, events_run - events_before_, wall_seconds()});
    next_progress_ = wall_now + options_.progress_interval;
  }
  return false;
}

bool RunGuards::event_rate_exceeded(SimTime now, std::uint64_t events_run, RunOutcome& outcome) {
  if (options_.max_event_rate <= 0) return false;
  const std::uint64_t events = events_run - rate_window_events_;
  // Judged over many events (options_.event_rate_window, a million by
  // default), so that a legitimate burst, every pod of a zone restarting at
  // once, does not count as a storm.
  if (events < std::max<std::uint64_t>(1, options_.event_rate_window)) return false;
  const Duration simulated = now - rate_window_time_;
  rate_window_events_ = events_run;
  rate_window_time_ = now;
  // No time at all is maxEventsPerInstant's to judge.
  if (simulated <= Duration::zero()) return false;
  const double rate = static_cast<double>(events) / to_seconds(simulated);
  if (rate <= options_.max_event_rate) return false;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", rate);
  outcome.reason = StopReason::kEventStorm;
  outcome.message = "event storm: " + std::to_string(events) + " events in " + format_seconds(simulated) +
                    " s of simulated time before t=" + format_clock(now) + " (" + buf +
                    " per simulated second, above guard maxEventRate)";
  return true;
}

}  // namespace drsim

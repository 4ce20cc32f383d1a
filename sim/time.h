#pragma once
// Simulated time: integer nanoseconds. A bare double holding seconds is a bug;
// convert only at the edges (SimGrid, Python's t_s, CSV output).
#include <chrono>
#include <cstdint>
#include <string>

namespace drsim {

using Duration = std::chrono::duration<std::int64_t, std::nano>;

// The simulation's own clock: time points are offsets from the start of a run.
struct SimClock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = Duration;
  using time_point = std::chrono::time_point<SimClock, Duration>;
  static constexpr bool is_steady = true;
};
using SimTime = SimClock::time_point;

inline constexpr SimTime kSimStart{};
inline constexpr SimTime kSimTimeMax{Duration::max()};

constexpr std::int64_t to_ns(Duration d) { return d.count(); }
constexpr std::int64_t to_ns(SimTime t) { return t.time_since_epoch().count(); }
constexpr double to_seconds(Duration d) { return std::chrono::duration<double>(d).count(); }
constexpr double to_seconds(SimTime t) { return to_seconds(t.time_since_epoch()); }
constexpr SimTime at(Duration since_start) { return SimTime{since_start}; }

// "01:02:03.250" (hours may exceed 24); for summaries and messages.
std::string format_clock(SimTime t);
// Exact decimal seconds without trailing zeros: 1500ms -> "1.5", 3s -> "3".
// Used by the CSV writers so that outputs are byte-identical across platforms.
std::string format_seconds(Duration d);
inline std::string format_seconds(SimTime t) { return format_seconds(t.time_since_epoch()); }

}  // namespace drsim

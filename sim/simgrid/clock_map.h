#pragma once
// Converts between SimGrid's clock (double seconds) and drsim's SimTime
// (integer nanoseconds) around an anchor: SimGrid time s0 is drsim time t0.
//
// The anchor is re-taken whenever no flow is open (the SimGrid clock does not
// move while drsim runs events without flows, and a new engine does not
// start at zero), so the conversion only spans the life of a burst of flows.
//
// Rounding: a SimGrid instant s maps to t0 + round-to-nearest((s - s0) * 1e9)
// nanoseconds (std::llround: halves away from zero). Nearest, not ceiling:
// SimGrid's own arithmetic leaves errors of a few ulps (0.8 s can come out as
// 0.8000000000000002), and a ceiling would turn them into a spurious extra
// nanosecond. The error is at most 0.5 ns plus the ulp of s, which stays
// below 1 ns while the process's SimGrid clock is below ~2^22 s (48 days of
// simulated time summed over every network-fidelity run of the process).
#include <cmath>
#include <cstdint>

#include "sim/time.h"

namespace drsim::simgrid_backend {

class ClockMap {
 public:
  void anchor(double simgrid_seconds, SimTime drsim_time) {
    s0_ = simgrid_seconds;
    t0_ = drsim_time;
  }
  SimTime to_drsim(double simgrid_seconds) const { return t0_ + Duration{std::llround((simgrid_seconds - s0_) * 1e9)}; }
  double to_simgrid(SimTime t) const { return s0_ + static_cast<double>(to_ns(t - t0_)) * 1e-9; }

 private:
  double s0_ = 0;
  SimTime t0_{};
};

}  // namespace drsim::simgrid_backend

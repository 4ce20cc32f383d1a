#pragma once
// Open-loop arrivals following a RateProfile. Poisson (the default): a
// non-homogeneous Poisson process sampled by inversion of the cumulative rate
// -- draw E ~ Exp(1), the next arrival is the t' with Lambda(t, t') = E; exact
// per linear piece, bracketed Newton for the diurnal sinusoid. Deterministic:
// arrivals one unit of cumulative rate apart (evenly spaced 1/rate at a
// constant rate), for tests and smooth "closed" load shapes.
//
// Times are integer ns: each interval is rounded to the nearest ns, and the
// next arrival is always strictly after t (at least 1 ns later), so callers
// always make progress. Spans of zero rate carry no arrivals; when the rate
// stays zero for good, next_after returns kSimTimeMax ("never").
#include <string_view>
#include <utility>
#include <vector>

#include "models/load/rate_profile.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace drsim {

enum class ArrivalMode { kPoisson, kDeterministic };

// "poisson" | "deterministic"; throws SimulationError otherwise.
ArrivalMode parse_arrival_mode(std::string_view text);

class ArrivalProcess {
 public:
  explicit ArrivalProcess(RateProfile profile, ArrivalMode mode = ArrivalMode::kPoisson)
      : profile_(std::move(profile)), mode_(mode) {}

  // The next arrival strictly after t, or kSimTimeMax. Poisson draws one
  // Exp(1) from rng; deterministic draws nothing.
  SimTime next_after(SimTime t, RngStream& rng) const;

  // Every arrival in (from, until], walking next_after from `from`.
  std::vector<SimTime> arrivals_between(SimTime from, SimTime until, RngStream& rng) const;

  const RateProfile& profile() const { return profile_; }
  ArrivalMode mode() const { return mode_; }

 private:
  RateProfile profile_;
  ArrivalMode mode_;
};

}  // namespace drsim

#include "models/load/arrival_process.h"

#include <string>

#include "sim/errors.h"

namespace drsim {

ArrivalMode parse_arrival_mode(std::string_view text) {
  if (text == "poisson") return ArrivalMode::kPoisson;
  if (text == "deterministic") return ArrivalMode::kDeterministic;
  throw SimulationError("expected an arrival mode, one of poisson, deterministic, got \"" + std::string(text) +
                        "\"");
}

SimTime ArrivalProcess::next_after(SimTime t, RngStream& rng) const {
  const double mass = mode_ == ArrivalMode::kPoisson ? rng.exponential(1.0) : 1.0;
  return profile_.invert(t, mass);
}

std::vector<SimTime> ArrivalProcess::arrivals_between(SimTime from, SimTime until, RngStream& rng) const {
  std::vector<SimTime> out;
  for (SimTime t = next_after(from, rng); t <= until && t != kSimTimeMax; t = next_after(t, rng)) {
    out.push_back(t);
  }
  return out;
}

}  // namespace drsim

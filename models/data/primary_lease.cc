#include "models/data/primary_lease.h"

#include <algorithm>

namespace drsim {

PrimaryLease::PrimaryLease(Duration timeout, Duration renew_interval, Duration phase, SimTime acquired)
    : timeout_(timeout), renew_interval_(renew_interval), phase_(phase), renewed_(acquired), quorum_since_(acquired) {}

void PrimaryLease::acquire(SimTime t) {
  renewed_ = t;
  quorum_since_ = t;
}

SimTime PrimaryLease::last_tick(SimTime t) const {
  const std::int64_t now = to_ns(t);
  const std::int64_t phase = to_ns(phase_);
  const std::int64_t interval = to_ns(renew_interval_);
  if (now < phase) return kSimStart;
  return SimTime{Duration{phase + (now - phase) / interval * interval}};
}

SimTime PrimaryLease::lose_quorum(SimTime t) {
  const SimTime tick = last_tick(t);
  if (tick >= quorum_since_) renewed_ = std::max(renewed_, tick);
  return renewed_ + timeout_;
}

void PrimaryLease::regain_quorum(SimTime t) { quorum_since_ = t; }

SimTime PrimaryLease::next_renewal(SimTime t) const {
  const std::int64_t now = to_ns(t);
  const std::int64_t phase = to_ns(phase_);
  const std::int64_t interval = to_ns(renew_interval_);
  if (now <= phase) return SimTime{phase_};
  const std::int64_t k = (now - phase + interval - 1) / interval;
  return SimTime{Duration{phase + k * interval}};
}

}  // namespace drsim

#include "models/data/primary_lease.h"

#include <algorithm>

namespace drsim {

PrimaryLease::PrimaryLease(Duration timeout, Duration renew_interval, Duration phase)
    : timeout_(timeout), renew_interval_(renew_interval), phase_(phase) {}

SimTime PrimaryLease::expiry_after_loss(SimTime lost_at) const {
  const std::int64_t t = to_ns(lost_at);
  const std::int64_t phase = to_ns(phase_);
  const std::int64_t interval = to_ns(renew_interval_);
  std::int64_t last = 0;  // the lease taken at the start
  if (t >= phase) last = phase + (t - phase) / interval * interval;
  return SimTime{Duration{last} + timeout_};
}

SimTime PrimaryLease::next_renewal(SimTime t) const {
  const std::int64_t now = to_ns(t);
  const std::int64_t phase = to_ns(phase_);
  const std::int64_t interval = to_ns(renew_interval_);
  if (now <= phase) return SimTime{phase_};
  const std::int64_t k = (now - phase + interval - 1) / interval;
  return SimTime{Duration{phase + k * interval}};
}

}  // namespace drsim

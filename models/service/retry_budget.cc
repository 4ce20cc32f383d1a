#include "models/service/retry_budget.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace drsim {

RetryBudget::RetryBudget(const RetryBudgetConfig& config)
    : deposit_per_attempt_(std::llround(config.ratio.value * kScale)),
      reserve_(std::llround(config.min_per_second * to_seconds(config.window) * kScale)),
      slice_width_(std::max(Duration{1}, config.window / kSlices)) {}

void RetryBudget::advance(SimTime t) {
  const std::int64_t slice = t.time_since_epoch() / slice_width_;
  if (slice <= current_slice_) return;
  // Clear the slices between the old newest and the new one (all of them if
  // more than a whole window went by).
  const std::int64_t stale = std::min<std::int64_t>(slice - current_slice_, kSlices);
  for (std::int64_t k = 1; k <= stale; ++k) slices_[(current_slice_ + k) % kSlices] = 0;
  current_slice_ = slice;
}

std::int64_t RetryBudget::net() const { return std::accumulate(slices_.begin(), slices_.end(), std::int64_t{0}); }

void RetryBudget::deposit(SimTime t) {
  advance(t);
  slices_[current_slice_ % kSlices] += deposit_per_attempt_;
}

bool RetryBudget::try_withdraw(SimTime t) {
  advance(t);
  if (net() + reserve_ < kScale) return false;
  slices_[current_slice_ % kSlices] -= kScale;
  return true;
}

double RetryBudget::balance(SimTime t) {
  advance(t);
  return static_cast<double>(net() + reserve_) / kScale;
}

}  // namespace drsim

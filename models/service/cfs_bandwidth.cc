#include "models/service/cfs_bandwidth.h"

#include <algorithm>

#include "sim/errors.h"

namespace drsim {

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }
}  // namespace

CfsBandwidth::CfsBandwidth(std::int64_t limit_millicores, std::int64_t period_ns, std::int64_t phase_ns)
    : quota_(limit_millicores * period_ns), period_ns_(period_ns), phase_ns_(phase_ns), since_ns_(phase_ns) {
  if (limit_millicores <= 0 || period_ns <= 0) throw SimulationError("CFS bandwidth: limit and period must be positive");
}

std::int64_t CfsBandwidth::period_end(std::int64_t t) const {
  return phase_ns_ + ((t - phase_ns_) / period_ns_ + 1) * period_ns_;
}

void CfsBandwidth::advance(std::int64_t now_ns, std::int64_t rate) {
  while (since_ns_ < now_ns) {
    const std::int64_t end = period_end(since_ns_);
    const bool at_boundary = since_ns_ == end - period_ns_;
    if (at_boundary && !throttled_ && rate * period_ns_ <= quota_) {
      // Whole periods at a rate that cannot use up a quota: counted, not walked (an idle hour is one step).
      const std::int64_t whole = (now_ns - since_ns_) / period_ns_;
      if (rate > 0) periods_ += static_cast<std::uint64_t>(whole);
      since_ns_ += whole * period_ns_;
      if (since_ns_ == now_ns) break;
    }
    const std::int64_t until = std::min(now_ns, period_end(since_ns_));
    account(until, rate);
    if (until == period_end(until - 1)) {
      // The period ends: the quota refills and throttled threads run again.
      used_ = 0;
      throttled_ = false;
      period_counted_ = false;
    }
  }
  // The quota ran out exactly now, inside a period: the threads stop from now.
  if (!throttled_ && used_ >= quota_) {
    throttled_ = true;
    ++throttled_periods_;
  }
}

void CfsBandwidth::account(std::int64_t until, std::int64_t rate) {
  const std::int64_t dt = until - since_ns_;
  if (dt <= 0) return;
  if ((rate > 0 || throttled_) && !period_counted_) {
    ++periods_;
    period_counted_ = true;
  }
  if (throttled_) {
    throttled_ns_ += dt;
  } else if (rate > 0) {
    const std::int64_t to_exhaust = ceil_div(quota_ - used_, rate);
    if (to_exhaust < dt) {
      used_ = quota_;
      throttled_ = true;
      ++throttled_periods_;
      throttled_ns_ += dt - to_exhaust;
    } else {
      used_ = std::min(quota_, used_ + rate * dt);
    }
  }
  since_ns_ = until;
}

std::optional<std::int64_t> CfsBandwidth::next_change(std::int64_t now_ns, std::int64_t rate) const {
  const std::int64_t end = period_end(now_ns);
  if (throttled_) return end;
  if (rate <= 0) return std::nullopt;
  const std::int64_t exhausted = now_ns + std::max<std::int64_t>(1, ceil_div(quota_ - used_, rate));
  if (exhausted < end) return exhausted;
  // Not in this period; in the next ones only if the rate is above the limit.
  if (rate * period_ns_ > quota_) return end + ceil_div(quota_, rate);
  return std::nullopt;
}

}  // namespace drsim

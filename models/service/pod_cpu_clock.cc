#include "models/service/pod_cpu_clock.h"

#include <algorithm>
#include <cmath>

namespace drsim {

PodCpuClock::PodCpuClock(std::optional<CfsBandwidth> quota, std::int64_t now_ns)
    : quota_(std::move(quota)), since_ns_(now_ns) {}

bool PodCpuClock::retune(std::int64_t now_ns, std::int64_t ask, std::optional<std::int64_t> available) {
  progress_ = progress(now_ns);
  since_ns_ = now_ns;
  if (quota_) quota_->advance(now_ns, unthrottled_);
  ask_ = ask;
  unthrottled_ = available ? std::min(ask, *available) : ask;
  rate_ = throttled() ? 0 : unthrottled_;
  const double before = speed_;
  // With nothing asked for, the next request starts at what the pod can give it.
  if (throttled()) {
    speed_ = 0;
  } else if (ask_ > 0) {
    speed_ = static_cast<double>(rate_) / static_cast<double>(ask_);
  } else {
    speed_ = 1;
  }
  return speed_ != before;
}

std::optional<std::int64_t> PodCpuClock::when(double end, std::int64_t now_ns) const {
  const double left = std::max(0.0, end - progress(now_ns));
  // Work that is done by now ends now, even as the pod stops (the quota running out at its last instant).
  if (left <= 1e-3) return now_ns;
  if (speed_ <= 0) return std::nullopt;
  // Progress is a double of up to ~1e14 ns: a work end read back at full speed may come out a few
  // thousandths of a ns off, which must not move it by a whole ns.
  return now_ns + static_cast<std::int64_t>(std::ceil(left / speed_ - 1e-3));
}

std::optional<std::int64_t> PodCpuClock::next_change(std::int64_t now_ns) const {
  if (!quota_) return std::nullopt;
  return quota_->next_change(now_ns, unthrottled_);
}

}  // namespace drsim

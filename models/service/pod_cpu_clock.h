#pragma once
// Internal to models/service/: the CPU clock of a pod whose CPU can be held
// back, by its limit (CFS quota) or by a full node it shares. Its requests'
// own work advances on this clock: at full speed while the pod runs at what
// it asks for, slower while its node gives it less, not at all while it is
// throttled. A request's own work interleaves its CPU with the rest of its
// handler finely, so all of it stretches with the pod's CPU share.
//
// Progress is kept in full-speed nanoseconds: a request whose own work takes
// d at full speed and starts at progress P ends at progress P + d, whatever
// the pod's speed does in between; when(end) turns that into a time at the
// current speed. The clock is pure arithmetic: Service schedules the events
// (a request's end, the quota running out, a throttled period ending) at the
// times it gives.
#include <cstdint>
#include <optional>

#include "models/service/cfs_bandwidth.h"
#include "sim/event_queue.h"

namespace drsim {

class PodCpuClock {
 public:
  // quota: the pod's CFS bandwidth, when it has a limit.
  PodCpuClock(std::optional<CfsBandwidth> quota, std::int64_t now_ns);

  // From now on the pod asks for `ask` millicores (idle plus its computing
  // requests) and its node can give it at most `available` (nullopt: all it
  // asks). Accounts for the time since the last call at the old rate first.
  // Returns whether the speed of its requests changed.
  bool retune(std::int64_t now_ns, std::int64_t ask, std::optional<std::int64_t> available);
  // Progress of its requests' own work at now, in full-speed ns.
  double progress(std::int64_t now_ns) const { return progress_ + speed_ * static_cast<double>(now_ns - since_ns_); }
  // Full-speed ns per ns: 0 while throttled, the share it is given of what it asks for otherwise.
  double speed() const { return speed_; }
  // Millicores it runs at now.
  std::int64_t rate() const { return rate_; }
  // When a request's own work ending at progress `end` ends, at the present speed; nullopt while the pod
  // stands still.
  std::optional<std::int64_t> when(double end, std::int64_t now_ns) const;
  // When the clock changes by itself next: the quota runs out, or a throttled period ends.
  std::optional<std::int64_t> next_change(std::int64_t now_ns) const;
  const CfsBandwidth* quota() const { return quota_ ? &*quota_ : nullptr; }
  bool throttled() const { return quota_ && quota_->throttled(); }

  EventId event;  // Service's event at next_change

 private:
  std::optional<CfsBandwidth> quota_;
  std::int64_t since_ns_;
  double progress_ = 0;
  double speed_ = 1;
  std::int64_t ask_ = 0;
  std::int64_t unthrottled_ = 0;  // what it runs at while not throttled: min(ask, available)
  std::int64_t rate_ = 0;
};

}  // namespace drsim

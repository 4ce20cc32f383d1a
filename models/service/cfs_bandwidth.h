#pragma once
// CFS bandwidth control of one container, as the kernel applies a CPU limit
// (cpu.cfs_quota_us over cpu.cfs_period_us; Kubernetes sets quota = limit x
// period, period 100 ms by default): in each period the container's threads
// may use `quota` of CPU time between them, at whatever rate they run; once
// it is used up, all of them stop until the period ends and the quota
// refills. A container of 4 busy threads with a 1-core limit runs 25 ms and
// then stands still for 75 ms of every 100 ms: a limit is not a slower CPU
// but a stall, and latency shows it.
//
// Pure arithmetic on integers (CPU in millicore-nanoseconds, time in ns), no
// events: the caller says what rate the container ran at since the last
// call, and asks when the state next changes (the quota runs out, or a
// throttled period ends) to schedule its own event there. Periods are
// [phase + k period, phase + (k+1) period): the cgroup's period timer starts
// with the container.
//
// Counters follow the kernel's cpu.stat: nr_periods counts the periods in
// which the container ran (or was throttled), nr_throttled those in which it
// was throttled, throttled_time the time it stood still.
#include <cstdint>
#include <optional>

namespace drsim {

class CfsBandwidth {
 public:
  // limit_millicores x period is the quota; both must be positive.
  CfsBandwidth(std::int64_t limit_millicores, std::int64_t period_ns, std::int64_t phase_ns);

  // Accounts for [last call, now) at `rate_millicores`, the rate the
  // container's threads would run at while not throttled (what they ask
  // for: their demand, after the node's share). Crosses period boundaries
  // and quota exhaustion exactly, wherever they fall in the interval.
  void advance(std::int64_t now_ns, std::int64_t rate_millicores);
  // Out of quota: its threads stand still until the period ends.
  bool throttled() const { return throttled_; }
  // The next instant after now_ns at which, running at rate_millicores from
  // now on, the state changes: the quota runs out, or a throttled period
  // ends. nullopt: never, at that rate (it cannot use up a period's quota).
  std::optional<std::int64_t> next_change(std::int64_t now_ns, std::int64_t rate_millicores) const;

  std::int64_t quota() const { return quota_; }  // millicore-ns per period
  std::int64_t period_ns() const { return period_ns_; }
  // CPU used in the current period, millicore-ns.
  std::int64_t used() const { return used_; }
  std::uint64_t periods() const { return periods_; }
  std::uint64_t throttled_periods() const { return throttled_periods_; }
  std::int64_t throttled_ns() const { return throttled_ns_; }

 private:
  // The end of the period that holds t.
  std::int64_t period_end(std::int64_t t) const;
  // [since_, until), all inside one period, at rate.
  void account(std::int64_t until, std::int64_t rate);

  std::int64_t quota_;
  std::int64_t period_ns_;
  std::int64_t phase_ns_;
  std::int64_t since_ns_;
  std::int64_t used_ = 0;
  bool throttled_ = false;
  bool period_counted_ = false;  // the current period is in periods_ already
  std::uint64_t periods_ = 0;
  std::uint64_t throttled_periods_ = 0;
  std::int64_t throttled_ns_ = 0;
};

}  // namespace drsim

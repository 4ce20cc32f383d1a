// The guards that need more than a count: an event storm whose time creeps
// forward, the process's memory, and a wall-clock limit met even when each
// event is slow (they used to be looked at every 4096 events only).
#include "sim/run_guards.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "sim/simulation.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Runs body, then schedules itself again after period, for ever.
class Repeater : public Component {
 public:
  Repeater(
      std::string name, Duration period, std::function<void()> body = [] {})
      : Component(std::move(name)), period_(period), body_(std::move(body)) {}
  std::uint64_t runs = 0;

 protected:
  void start() override { again(); }

 private:
  void again() {
    schedule_after(period_, "repeat", [this] {
      ++runs;
      body_();
      again();
    });
  }
  Duration period_;
  std::function<void()> body_;
};

TEST(RunGuards, EventRateCatchesAStormWhoseTimeCreepsForward) {
  SimulationOptions options;
  options.max_event_rate = 1e8;
  options.event_rate_window = 10'000;
  Simulation sim(options);
  // One event per nanosecond: 10^9 per simulated second. maxEventsPerInstant
  // never fires, as time advances at every event.
  Repeater& storm = sim.add<Repeater>("creeper", 1ns);
  const RunOutcome out = sim.run_until(at(1h));
  EXPECT_EQ(out.reason, StopReason::kEventStorm);
  EXPECT_TRUE(Contains(out.message, "maxEventRate")) << out.message;
  EXPECT_TRUE(Contains(out.message, "1e+09 per simulated second")) << out.message;
  // Judged once a window is full, within a batch of looks (at most 4096 events).
  EXPECT_GE(storm.runs, 10'000u);
  EXPECT_LE(storm.runs, 10'000u + 4096u);
}

TEST(RunGuards, EventRateBelowTheLimitRunsToTheEnd) {
  SimulationOptions options;
  options.max_event_rate = 1e8;
  options.event_rate_window = 10'000;
  Simulation sim(options);
  Repeater& busy = sim.add<Repeater>("busy", 100ns);  // 10^7 per simulated second
  const RunOutcome out = sim.run_until(at(10ms));
  EXPECT_TRUE(out.complete()) << out.message;
  EXPECT_EQ(busy.runs, 100'000u);
}

TEST(RunGuards, MaxWallTimeStopsWithinAFewSlowEvents) {
  SimulationOptions options;
  options.max_wall_time = 100ms;
  Simulation sim(options);
  // Each event takes at least 20 ms of wall time: the old cadence (a look
  // every 4096 events) would have run for 80 s.
  Repeater& slow = sim.add<Repeater>("slow", 1s, [] { std::this_thread::sleep_for(20ms); });
  const RunOutcome out = sim.run_until(at(1h));
  EXPECT_EQ(out.reason, StopReason::kMaxWallTime);
  // 100 ms of 20 ms events is at most 5; the batch between looks only ever
  // shrinks here, so at most a couple more run before the look that stops
  // it. No lower bound: on a loaded machine every sleep (and the set-up
  // before the first event) lasts longer, so fewer run; the wall clock can
  // only make this test's count smaller, never larger.
  EXPECT_GE(slow.runs, 1u);
  EXPECT_LE(slow.runs, 8u);
}

TEST(RunGuards, MaxMemoryStopsARunThatKeepsGrowing) {
  SimulationOptions options;
  const std::uint64_t resident = resident_memory_bytes();
  ASSERT_GT(resident, 0u) << "/proc/self/statm is not readable here";
  options.max_memory_bytes = resident + (64u << 20);
  Simulation sim(options);
  std::vector<std::vector<char>> held;
  // 1 MiB more, touched, at every simulated second.
  sim.add<Repeater>("leaky", 1s, [&] { held.emplace_back(1u << 20, 'x'); });
  const RunOutcome out = sim.run_until(at(1h));
  EXPECT_EQ(out.reason, StopReason::kMaxMemory);
  EXPECT_STREQ(to_string(out.reason), "max_memory");
  EXPECT_TRUE(Contains(out.message, "maxMemory")) << out.message;
  // Stopped near the limit (64 MiB more), not thousands of MiB later.
  EXPECT_GE(held.size(), 32u);
  EXPECT_LE(held.size(), 256u);
}

TEST(RunGuards, AvailableMemoryIsKnown) {
  EXPECT_GT(available_memory_bytes(), 0u);
  EXPECT_GT(resident_memory_bytes(), 0u);
  EXPECT_LT(resident_memory_bytes(), available_memory_bytes());
}

}  // namespace
}  // namespace drsim

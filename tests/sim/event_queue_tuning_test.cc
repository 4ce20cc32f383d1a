// The event queue's width feedback and in-place handlers: the calendar
// narrows its buckets when insertions walk crowded ones (the shape of a
// request simulation), leaves Brown's width alone for the hold model, keeps
// popping in (time, priority, sequence) order across the rebuilds this
// causes, and builds handlers straight into their slots without leaking a
// slot when building one throws.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/event_queue.h"
#include "sim/rng.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

SimTime ns(std::int64_t n) { return SimTime{Duration{n}}; }
Duration exp_ns(RngStream& rng, double mean_ns) {
  return Duration{static_cast<std::int64_t>(rng.exponential(mean_ns)) + 1};
}

// Requests in flight, as drsim's models make them: each sets a timeout far
// ahead, then goes through a few short steps (service, network) close
// together, and cancels its timeout when done; a new request takes its place.
// Pops run in order; returns the number of events popped.
struct RequestWorkload {
  static constexpr int kSteps = 4;
  struct Request {
    EventId timeout;
    int steps_left = 0;
  };
  EventQueue q;
  RngStream rng{11, "requests"};
  std::vector<Request> requests;
  std::int64_t last_time = 0;
  std::uint64_t popped = 0;
  bool in_order = true;

  explicit RequestWorkload(int in_flight) : requests(static_cast<std::size_t>(in_flight)) {
    for (std::size_t r = 0; r < requests.size(); ++r) start(r, 0);
  }
  void start(std::size_t r, std::int64_t now) {
    requests[r].steps_left = kSteps;
    requests[r].timeout = q.push(ns(now + 2'000'000'000), 0, {}, [] {});
    step(r, now);
  }
  void step(std::size_t r, std::int64_t now) {
    const SimTime at = ns(now) + exp_ns(rng, 4e6);  // ~4 ms steps
    q.push(at, 0, {}, [this, r, at] {
      if (--requests[r].steps_left > 0) {
        step(r, to_ns(at));
      } else {
        q.cancel(requests[r].timeout);
        start(r, to_ns(at));
      }
    });
  }
  void run(std::uint64_t pops) {
    for (std::uint64_t i = 0; i < pops; ++i) {
      auto e = q.pop();
      if (to_ns(e.time) < last_time) in_order = false;
      last_time = to_ns(e.time);
      ++popped;
      e.handler();
    }
  }
};

TEST(EventQueueTuning, NarrowsCrowdedBucketsOfARequestWorkload) {
  RequestWorkload w(1000);
  w.run(20'000);  // less than one tuning period: Brown's estimate as it stands
  const Duration estimated = w.q.bucket_width();
  w.run(2'000'000);  // ~30 tuning periods
  EXPECT_TRUE(w.in_order);
  // The steps crowd the near future, so with Brown's width an insertion
  // walks past entries of its bucket; feedback narrows the buckets (3.4x
  // here; the hold model below stays put).
  EXPECT_LE(w.q.bucket_width() * 2, estimated) << "estimated " << estimated.count() << " ns, now "
                                                << w.q.bucket_width().count() << " ns";
  EXPECT_EQ(w.q.size(), 2000u);  // every request: its timeout and its current step
}

// The hold model: N events pending, pop the earliest, push one at its time +
// Exp(1 s). Events are spread evenly and Brown's width (2x the mean gap,
// 2 x 1 s / N) already balances walking and scanning: feedback leaves it.
TEST(EventQueueTuning, LeavesBrownsWidthForTheHoldModel) {
  constexpr int kPending = 10'000;
  EventQueue q;
  RngStream rng(5, "hold");
  for (int i = 0; i < kPending; ++i) q.push(ns(0) + exp_ns(rng, 1e9), 0, {}, [] {});
  std::int64_t last = 0;
  for (int i = 0; i < 1'000'000; ++i) {  // ~15 tuning periods
    auto e = q.pop();
    ASSERT_GE(to_ns(e.time), last);
    last = to_ns(e.time);
    q.push(e.time + exp_ns(rng, 1e9), 0, {}, [] {});
  }
  const double mean_gap_ns = 1e9 / kPending;
  EXPECT_GE(q.bucket_width().count(), 1.0 * mean_gap_ns);
  EXPECT_LE(q.bucket_width().count(), 4.0 * mean_gap_ns);
}

// Through rebuilds caused by tuning, same-time events keep their priority
// and insertion order.
TEST(EventQueueTuning, TiesKeepTheirOrderAcrossRetuning) {
  RequestWorkload w(500);
  std::vector<int> log;
  w.run(100'000);
  const std::int64_t t = w.last_time + 3'000'000;
  for (int i = 0; i < 50; ++i) {
    w.q.push(ns(t), (i % 3) - 1, {}, [&log, i] { log.push_back(i); });
  }
  w.run(1'000'000);
  ASSERT_EQ(log.size(), 50u);
  std::vector<int> expected;
  for (int priority : {-1, 0, 1}) {
    for (int i = 0; i < 50; ++i) {
      if ((i % 3) - 1 == priority) expected.push_back(i);
    }
  }
  EXPECT_EQ(log, expected);
  EXPECT_TRUE(w.in_order);
}

// A callable whose copy throws: push() rethrows and the queue is as before.
struct ThrowsOnCopy {
  bool* ran;
  bool throw_on_copy;
  ThrowsOnCopy(bool* r, bool t) : ran(r), throw_on_copy(t) {}
  ThrowsOnCopy(const ThrowsOnCopy& o) : ran(o.ran), throw_on_copy(o.throw_on_copy) {
    if (throw_on_copy) throw std::runtime_error("copy failed");
  }
  ThrowsOnCopy(ThrowsOnCopy&&) noexcept = default;
  void operator()() const { *ran = true; }
};

TEST(EventQueueTuning, AHandlerThatThrowsWhileBeingBuiltLeavesTheQueueAsItWas) {
  EventQueue q;
  bool first_ran = false, failed_ran = false, last_ran = false;
  const EventId first = q.push(ns(10), 0, {}, [&first_ran] { first_ran = true; });
  const ThrowsOnCopy bad(&failed_ran, true);
  EXPECT_THROW(q.push(ns(5), 0, {}, bad), std::runtime_error);  // an lvalue: copied into the slot
  EXPECT_EQ(q.size(), 1u);
  EXPECT_TRUE(q.is_pending(first));
  const ThrowsOnCopy good(&last_ran, false);
  const EventId last = q.push(ns(20), 0, {}, good);
  EXPECT_TRUE(q.is_pending(last));
  EXPECT_EQ(q.size(), 2u);
  auto a = q.pop();
  EXPECT_EQ(to_ns(a.time), 10);
  a.handler();
  auto b = q.pop();
  EXPECT_EQ(to_ns(b.time), 20);
  b.handler();
  EXPECT_TRUE(first_ran);
  EXPECT_FALSE(failed_ran);
  EXPECT_TRUE(last_ran);
  EXPECT_TRUE(q.empty());
}

// A Handler (not a bare callable) is moved into the slot as before.
TEST(EventQueueTuning, AcceptsAReadyMadeHandler) {
  EventQueue q;
  int runs = 0;
  EventQueue::Handler h([&runs] { ++runs; });
  q.push(ns(1), 0, {}, std::move(h));
  EXPECT_FALSE(static_cast<bool>(h));  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  q.pop().handler();
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace drsim

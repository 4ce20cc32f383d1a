#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sim/errors.h"
#include "sim/rng.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

SimTime ns(std::int64_t n) { return SimTime{Duration{n}}; }

// Pushes a handler that appends `value` to `log` when run.
EventId push_logging(EventQueue& q, SimTime t, int priority, std::vector<int>& log, int value) {
  return q.push(t, priority, EventTag{static_cast<std::uint32_t>(value), "log"}, [&log, value] { log.push_back(value); });
}

// Pops everything, running each handler; returns the popped times.
std::vector<std::int64_t> drain(EventQueue& q) {
  std::vector<std::int64_t> times;
  while (!q.empty()) {
    auto e = q.pop();
    times.push_back(to_ns(e.time));
    e.handler();
  }
  return times;
}

// Counts constructions and destructions, so that tests can see a handler's
// captured state destroyed exactly once.
struct Counted {
  static inline int constructed = 0;
  static inline int destroyed = 0;
  static void reset_counts() { constructed = destroyed = 0; }
  static int alive() { return constructed - destroyed; }

  int* runs;
  explicit Counted(int* r) : runs(r) { ++constructed; }
  Counted(const Counted& o) : runs(o.runs) { ++constructed; }
  Counted(Counted&& o) noexcept : runs(o.runs) { ++constructed; }
  Counted& operator=(const Counted&) = delete;
  ~Counted() { ++destroyed; }
  void operator()() const { ++*runs; }
};

// ---------------------------------------------------------------- ordering

TEST(EventQueue, StartsEmpty) {
  EventQueue q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  EXPECT_GE(q.bucket_count(), 1u);
  EXPECT_GT(q.bucket_width(), Duration::zero());
}

TEST(EventQueue, OrdersByTime) {
  EventQueue q;
  std::vector<int> log;
  push_logging(q, at(30ms), 0, log, 3);
  push_logging(q, at(10ms), 0, log, 1);
  push_logging(q, at(20ms), 0, log, 2);
  push_logging(q, at(5s), 0, log, 5);
  push_logging(q, at(0ns), 0, log, 0);
  EXPECT_EQ(q.size(), 5u);
  EXPECT_EQ(drain(q), (std::vector<std::int64_t>{0, 10'000'000, 20'000'000, 30'000'000, 5'000'000'000}));
  EXPECT_EQ(log, (std::vector<int>{0, 1, 2, 3, 5}));
}

TEST(EventQueue, SameTimeOrdersByPriorityLowerFirst) {
  EventQueue q;
  std::vector<int> log;
  push_logging(q, at(1s), 5, log, 5);
  push_logging(q, at(1s), -3, log, -3);
  push_logging(q, at(1s), EventQueue::kMaxPriority, log, 127);
  push_logging(q, at(1s), 0, log, 0);
  push_logging(q, at(1s), EventQueue::kMinPriority, log, -128);
  drain(q);
  EXPECT_EQ(log, (std::vector<int>{-128, -3, 0, 5, 127}));
}

TEST(EventQueue, TimeBeatsPriority) {
  EventQueue q;
  std::vector<int> log;
  push_logging(q, at(2s), -100, log, 2);
  push_logging(q, at(1s), 100, log, 1);
  drain(q);
  EXPECT_EQ(log, (std::vector<int>{1, 2}));
}

TEST(EventQueue, SameTimeAndPriorityIsFifo) {
  EventQueue q;
  std::vector<int> log;
  for (int i = 0; i < 1000; ++i) push_logging(q, at(7s), i % 3, log, i);
  drain(q);
  ASSERT_EQ(log.size(), 1000u);
  // Priority 0 first (in insertion order), then 1, then 2.
  std::vector<int> expected;
  for (int p = 0; p < 3; ++p) {
    for (int i = p; i < 1000; i += 3) expected.push_back(i);
  }
  EXPECT_EQ(log, expected);
}

TEST(EventQueue, PopReturnsTimeAndTag) {
  EventQueue q;
  q.push(at(3s), 0, EventTag{7, "tick"}, [] {});
  q.push(at(1s), 0, EventTag{}, [] {});
  auto first = q.pop();
  EXPECT_EQ(first.time, at(1s));
  EXPECT_EQ(first.tag.component, kNoComponent);
  EXPECT_STREQ(first.tag.label, "event");
  auto second = q.pop();
  EXPECT_EQ(second.time, at(3s));
  EXPECT_EQ(second.tag.component, 7u);
  EXPECT_STREQ(second.tag.label, "tick");
  EXPECT_TRUE(static_cast<bool>(second.handler));
}

TEST(EventQueue, TopTimeDoesNotRemove) {
  EventQueue q;
  q.push(at(2s), 0, {}, [] {});
  q.push(at(1s), 0, {}, [] {});
  EXPECT_EQ(q.top_time(), at(1s));
  EXPECT_EQ(q.top_time(), at(1s));
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(q.pop().time, at(1s));
  EXPECT_EQ(q.top_time(), at(2s));
}

TEST(EventQueue, HandlersRunWithTheirCaptures) {
  EventQueue q;
  int sum = 0;
  for (int i = 1; i <= 10; ++i) q.push(at(Duration{i}), 0, {}, [&sum, i] { sum += i; });
  drain(q);
  EXPECT_EQ(sum, 55);
}

// ---------------------------------------------------------------- bounds

TEST(EventQueue, RejectsNegativeTime) {
  EventQueue q;
  EXPECT_THROW(q.push(ns(-1), 0, {}, [] {}), SimulationError);
  EXPECT_THROW(q.push(SimTime{Duration::min()}, 0, {}, [] {}), SimulationError);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, RejectsTimeBeyondMax) {
  EventQueue q;
  EXPECT_THROW(q.push(ns(EventQueue::kMaxTimeNs + 1), 0, {}, [] {}), SimulationError);
  EXPECT_THROW(q.push(SimTime{Duration::max()}, 0, {}, [] {}), SimulationError);
  EXPECT_TRUE(q.empty());
  // The bounds themselves are accepted.
  q.push(ns(EventQueue::kMaxTimeNs), 0, {}, [] {});
  q.push(ns(0), 0, {}, [] {});
  EXPECT_EQ(drain(q), (std::vector<std::int64_t>{0, EventQueue::kMaxTimeNs}));
}

TEST(EventQueue, RejectsPriorityOutOfRange) {
  EventQueue q;
  EXPECT_THROW(q.push(at(1s), EventQueue::kMinPriority - 1, {}, [] {}), SimulationError);
  EXPECT_THROW(q.push(at(1s), EventQueue::kMaxPriority + 1, {}, [] {}), SimulationError);
  EXPECT_THROW(q.push(at(1s), 1'000'000, {}, [] {}), SimulationError);
  EXPECT_TRUE(q.empty());
  q.push(at(1s), EventQueue::kMinPriority, {}, [] {});
  q.push(at(1s), EventQueue::kMaxPriority, {}, [] {});
  EXPECT_EQ(q.size(), 2u);
}

TEST(EventQueue, RejectedPushLeavesHandlerUntouched) {
  EventQueue q;
  auto token = std::make_shared<int>(0);
  EventQueue::Handler h([token] {});
  EXPECT_THROW(q.push(ns(-5), 0, {}, std::move(h)), SimulationError);
  EXPECT_TRUE(static_cast<bool>(h));  // not consumed by the failed push
  EXPECT_EQ(token.use_count(), 2);
}

TEST(EventQueue, ErrorMessagesSayWhatWasWrong) {
  EventQueue q;
  try {
    q.push(at(1s), 300, {}, [] {});
    FAIL() << "expected SimulationError";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("300"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- cancel

TEST(EventQueue, CancelPending) {
  EventQueue q;
  std::vector<int> log;
  push_logging(q, at(1s), 0, log, 1);
  EventId id = push_logging(q, at(2s), 0, log, 2);
  push_logging(q, at(3s), 0, log, 3);
  EXPECT_TRUE(id.valid());
  EXPECT_TRUE(q.is_pending(id));
  EXPECT_TRUE(q.cancel(id));
  EXPECT_FALSE(q.is_pending(id));
  EXPECT_EQ(q.size(), 2u);
  drain(q);
  EXPECT_EQ(log, (std::vector<int>{1, 3}));
}

TEST(EventQueue, DoubleCancelIsFalse) {
  EventQueue q;
  EventId id = q.push(at(1s), 0, {}, [] {});
  EXPECT_TRUE(q.cancel(id));
  EXPECT_FALSE(q.cancel(id));
  EXPECT_FALSE(q.is_pending(id));
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, CancelNullAndForeignIdsIsFalse) {
  EventQueue q;
  q.push(at(1s), 0, {}, [] {});
  EXPECT_FALSE(q.cancel(EventId{}));
  EXPECT_FALSE(q.is_pending(EventId{}));
  EXPECT_FALSE(q.cancel(EventId{(std::uint64_t{1} << 32) | 12345}));  // slot that never existed
  EXPECT_FALSE(q.cancel(EventId{~std::uint64_t{0}}));
  EXPECT_EQ(q.size(), 1u);
}

TEST(EventQueue, CancelAfterPopIsFalse) {
  EventQueue q;
  EventId id = q.push(at(1s), 0, {}, [] {});
  q.pop();
  EXPECT_FALSE(q.is_pending(id));
  EXPECT_FALSE(q.cancel(id));
}

TEST(EventQueue, OldIdNeverCancelsReusedSlot) {
  EventQueue q;
  std::vector<int> log;
  EventId old_id = push_logging(q, at(1s), 0, log, 1);
  q.pop();
  // The freed slot is reused by the next push, with a new generation.
  EventId new_id = push_logging(q, at(2s), 0, log, 2);
  EXPECT_NE(old_id, new_id);
  EXPECT_EQ(old_id.value & 0xFFFFFFFFu, new_id.value & 0xFFFFFFFFu) << "expected the slot to be reused";
  EXPECT_FALSE(q.is_pending(old_id));
  EXPECT_FALSE(q.cancel(old_id));
  EXPECT_TRUE(q.is_pending(new_id));
  EXPECT_EQ(q.size(), 1u);

  // Same through cancel: the cancelled id stays dead after reuse.
  EXPECT_TRUE(q.cancel(new_id));
  EventId third = push_logging(q, at(3s), 0, log, 3);
  EXPECT_FALSE(q.cancel(new_id));
  EXPECT_FALSE(q.cancel(old_id));
  EXPECT_TRUE(q.is_pending(third));
  drain(q);
  EXPECT_EQ(log, (std::vector<int>{3}));
}

TEST(EventQueue, ManyReusesOfOneSlotKeepIdsDistinct) {
  EventQueue q;
  std::set<std::uint64_t> seen;
  std::vector<EventId> ids;
  for (int i = 0; i < 10'000; ++i) {
    EventId id = q.push(at(Duration{i}), 0, {}, [] {});
    EXPECT_TRUE(seen.insert(id.value).second);
    ids.push_back(id);
    if (i % 2 == 0) q.pop(); else q.cancel(id);
  }
  EXPECT_TRUE(q.empty());
  for (EventId id : ids) EXPECT_FALSE(q.cancel(id));
}

TEST(EventQueue, CancelCurrentMinimumAfterTopTime) {
  EventQueue q;
  std::vector<int> log;
  EventId a = push_logging(q, at(1s), 0, log, 1);
  push_logging(q, at(2s), 0, log, 2);
  push_logging(q, at(2s), 0, log, 3);
  EXPECT_EQ(q.top_time(), at(1s));
  EXPECT_TRUE(q.cancel(a));
  EXPECT_EQ(q.top_time(), at(2s));
  auto e = q.pop();
  e.handler();
  EXPECT_EQ(e.time, at(2s));
  EXPECT_EQ(log, (std::vector<int>{2}));
  EXPECT_EQ(q.top_time(), at(2s));
}

TEST(EventQueue, CancelEverythingThenReuse) {
  EventQueue q;
  std::vector<EventId> ids;
  for (int i = 0; i < 5000; ++i) ids.push_back(q.push(at(Duration{i * 1000}), 0, {}, [] {}));
  const std::size_t grown = q.bucket_count();
  EXPECT_GT(grown, 16u);
  for (EventId id : ids) EXPECT_TRUE(q.cancel(id));
  EXPECT_TRUE(q.empty());
  EXPECT_LT(q.bucket_count(), grown);  // shrank on the way down
  std::vector<int> log;
  push_logging(q, at(3s), 0, log, 3);
  push_logging(q, at(1s), 0, log, 1);
  drain(q);
  EXPECT_EQ(log, (std::vector<int>{1, 3}));
}

// Cancelling an event whose handler's destructor cancels another one.
TEST(EventQueue, HandlerDestructorMayCancelAnotherEvent) {
  struct CancelOnDestroy {
    EventQueue* q;
    EventId other;
    bool armed = true;
    CancelOnDestroy(EventQueue* queue, EventId id) : q(queue), other(id) {}
    CancelOnDestroy(CancelOnDestroy&& o) noexcept : q(o.q), other(o.other), armed(o.armed) { o.armed = false; }
    ~CancelOnDestroy() {
      if (armed) q->cancel(other);
    }
    void operator()() const {}
  };
  EventQueue q;
  EventId b = q.push(at(2s), 0, {}, [] {});
  EventId a = q.push(at(1s), 0, {}, CancelOnDestroy(&q, b));
  EXPECT_TRUE(q.cancel(a));
  EXPECT_FALSE(q.is_pending(b));
  EXPECT_TRUE(q.empty());

  // And during clear(): every event is already gone when the destructors run.
  EventId d = q.push(at(4s), 0, {}, [] {});
  q.push(at(3s), 0, {}, CancelOnDestroy(&q, d));
  q.clear();
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.is_pending(d));
  q.push(at(5s), 0, {}, [] {});
  EXPECT_EQ(drain(q), (std::vector<std::int64_t>{5'000'000'000}));
}

// A handler whose destructor schedules more events (enough to reallocate the
// queue's storage) while the queue is cancelling or clearing it.
struct PushOnDestroy {
  EventQueue* q;
  int count;
  bool armed = true;
  PushOnDestroy(EventQueue* queue, int n) : q(queue), count(n) {}
  PushOnDestroy(PushOnDestroy&& o) noexcept : q(o.q), count(o.count), armed(o.armed) { o.armed = false; }
  ~PushOnDestroy() {
    if (!armed) return;
    for (int i = 0; i < count; ++i) q->push(at(Duration{100 + i}), 0, {}, [] {});
  }
  void operator()() const {}
};

TEST(EventQueue, HandlerDestructorMayPushDuringCancel) {
  EventQueue q;
  EventId a = q.push(at(1s), 0, {}, PushOnDestroy(&q, 5000));
  EXPECT_TRUE(q.cancel(a));
  EXPECT_EQ(q.size(), 5000u);
  auto times = drain(q);
  ASSERT_EQ(times.size(), 5000u);
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
}

TEST(EventQueue, HandlerDestructorMayPushDuringClear) {
  EventQueue q;
  for (int i = 0; i < 10; ++i) q.push(at(Duration{i}), 0, {}, [] {});
  q.push(at(1s), 0, {}, PushOnDestroy(&q, 3000));
  q.clear();
  // The events pushed by the destructor were scheduled after the clear: they stay.
  EXPECT_EQ(q.size(), 3000u);
  auto times = drain(q);
  ASSERT_EQ(times.size(), 3000u);
  EXPECT_EQ(times.front(), 100);
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
}

// ---------------------------------------------------------------- handler lifetime

TEST(EventQueue, HandlerDestroyedOnCancel) {
  EventQueue q;
  auto token = std::make_shared<int>(0);
  EventId id = q.push(at(1s), 0, {}, [token] {});
  EXPECT_EQ(token.use_count(), 2);
  q.cancel(id);
  EXPECT_EQ(token.use_count(), 1);
}

TEST(EventQueue, HandlerDestroyedAfterPopAndRun) {
  EventQueue q;
  auto token = std::make_shared<int>(0);
  q.push(at(1s), 0, {}, [token] { ++*token; });
  {
    auto e = q.pop();
    EXPECT_EQ(token.use_count(), 2);  // moved into the popped event, not copied
    e.handler();
    EXPECT_EQ(*token, 1);
  }
  EXPECT_EQ(token.use_count(), 1);
}

TEST(EventQueue, HandlersDestroyedOnClear) {
  EventQueue q;
  auto token = std::make_shared<int>(0);
  std::vector<EventId> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(q.push(at(Duration{i}), 0, {}, [token] {}));
  EXPECT_EQ(token.use_count(), 101);
  q.clear();
  EXPECT_EQ(token.use_count(), 1);
  EXPECT_TRUE(q.empty());
  for (EventId id : ids) EXPECT_FALSE(q.cancel(id));
  // Usable after clear, in order.
  std::vector<int> log;
  push_logging(q, at(2s), 0, log, 2);
  push_logging(q, at(1s), 0, log, 1);
  drain(q);
  EXPECT_EQ(log, (std::vector<int>{1, 2}));
}

TEST(EventQueue, HandlersDestroyedWithQueue) {
  auto token = std::make_shared<int>(0);
  {
    EventQueue q;
    for (int i = 0; i < 100; ++i) q.push(at(Duration{i}), 0, {}, [token] {});
    q.pop();  // popped and dropped without running
    EXPECT_EQ(token.use_count(), 100);
  }
  EXPECT_EQ(token.use_count(), 1);
}

TEST(EventQueue, EachHandlerDestroyedExactlyOnce) {
  Counted::reset_counts();
  int runs = 0;
  {
    EventQueue q;
    std::vector<EventId> ids;
    for (int i = 0; i < 3000; ++i) ids.push_back(q.push(at(Duration{(i * 7919) % 3001}), 0, {}, Counted(&runs)));
    for (int i = 0; i < 3000; i += 3) q.cancel(ids[i]);
    for (int i = 0; i < 1000; ++i) {
      auto e = q.pop();
      e.handler();
    }
    EXPECT_EQ(Counted::alive(), 1000);
    q.clear();
    EXPECT_EQ(Counted::alive(), 0);
    for (int i = 0; i < 50; ++i) q.push(at(Duration{i}), 0, {}, Counted(&runs));
    EXPECT_EQ(Counted::alive(), 50);
  }
  EXPECT_EQ(Counted::alive(), 0);
  EXPECT_EQ(runs, 1000);
}

// ---------------------------------------------------------------- calendar mechanics

TEST(EventQueue, GrowsAndShrinksAndKeepsOrder) {
  EventQueue q;
  RngStream rng(7, "grow");
  const std::size_t initial = q.bucket_count();
  std::vector<std::int64_t> times;
  for (int i = 0; i < 20'000; ++i) {
    const auto t = static_cast<std::int64_t>(rng.exponential(1e9));
    times.push_back(t);
    q.push(ns(t), 0, {}, [] {});
  }
  const std::size_t grown = q.bucket_count();
  EXPECT_GT(grown, initial);
  EXPECT_GE(2 * grown, q.size());  // at most two events per bucket on average
  std::sort(times.begin(), times.end());
  std::vector<std::int64_t> popped;
  for (int i = 0; i < 19'990; ++i) popped.push_back(to_ns(q.pop().time));
  EXPECT_LT(q.bucket_count(), grown / 8);
  auto rest = drain(q);
  popped.insert(popped.end(), rest.begin(), rest.end());
  EXPECT_EQ(popped, times);
}

TEST(EventQueue, SparseEventsAfterDenseOnesReestimateWidth) {
  EventQueue q;
  // Nanosecond-spaced events: the width shrinks to nanoseconds.
  for (int i = 0; i < 4000; ++i) q.push(ns(i), 0, {}, [] {});
  for (int i = 0; i < 3990; ++i) EXPECT_EQ(q.pop().time, ns(i));
  EXPECT_LT(q.bucket_width(), 1us);
  // Then events hours apart: no event within a year of buckets, so the
  // minimum is found by a direct search and the width is re-estimated.
  const std::int64_t hour = 3'600'000'000'000;
  for (int h = 5; h >= 1; --h) q.push(ns(h * hour), 0, {}, [] {});
  for (int i = 3990; i < 4000; ++i) EXPECT_EQ(q.pop().time, ns(i));
  for (int h = 1; h <= 5; ++h) EXPECT_EQ(q.pop().time, ns(h * hour));
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, DirectSearchWidensBuckets) {
  EventQueue q;
  for (int i = 0; i < 200; ++i) q.push(ns(i), 0, {}, [] {});
  for (int i = 0; i < 200; ++i) q.pop();
  const Duration narrow = q.bucket_width();
  const std::int64_t hour = 3'600'000'000'000;
  for (int h = 1; h <= 50; ++h) q.push(ns(h * hour), 0, {}, [] {});
  EXPECT_EQ(q.top_time(), ns(hour));
  EXPECT_GT(q.bucket_width(), narrow);
  EXPECT_GT(q.bucket_width(), 1s);
  for (int h = 1; h <= 50; ++h) EXPECT_EQ(q.pop().time, ns(h * hour));
}

TEST(EventQueue, PushEarlierThanPeekedMinimum) {
  // top_time() may move the scan window ahead of the last popped time; an
  // event pushed between the two must still come out first.
  for (std::int64_t gap : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{1'000'000}, std::int64_t{3'600'000'000'000}}) {
    SCOPED_TRACE(gap);
    EventQueue q;
    for (int i = 0; i < 100; ++i) q.push(ns(i * gap), 0, {}, [] {});
    for (int i = 0; i < 50; ++i) q.pop();
    const std::int64_t now = 49 * gap;
    q.push(ns(now + 1000 * gap), 0, {}, [] {});
    for (int i = 50; i < 100; ++i) q.pop();  // last popped: 99 * gap; the far event is left
    EXPECT_EQ(q.top_time(), ns(now + 1000 * gap));
    // Not earlier than the last popped time (99 * gap), but earlier than the peeked minimum.
    q.push(ns(99 * gap), 0, {}, [] {});
    q.push(ns(99 * gap + gap / 2 + 1), 0, {}, [] {});
    EXPECT_EQ(q.top_time(), ns(99 * gap));
    EXPECT_EQ(q.pop().time, ns(99 * gap));
    EXPECT_EQ(q.pop().time, ns(99 * gap + gap / 2 + 1));
    EXPECT_EQ(q.pop().time, ns(now + 1000 * gap));
    EXPECT_TRUE(q.empty());
  }
}

TEST(EventQueue, PushEarlierThanPeekedMinimumInSameYear) {
  EventQueue q;
  for (int i = 0; i < 1000; ++i) q.push(at(Duration{i * 1'000'000}), 0, {}, [] {});
  for (int i = 0; i < 500; ++i) q.pop();
  // Peek moves the window to 500 ms; push 499.5 ms (after the last popped, 499 ms).
  EXPECT_EQ(q.top_time(), at(500ms));
  q.push(at(499'500us), 0, {}, [] {});
  EXPECT_EQ(q.top_time(), at(499'500us));
  EXPECT_EQ(q.pop().time, at(499'500us));
  EXPECT_EQ(q.pop().time, at(500ms));
}

TEST(EventQueue, AllEventsAtOneInstant) {
  EventQueue q;
  std::vector<int> log;
  for (int i = 0; i < 5000; ++i) push_logging(q, at(1h), 0, log, i);
  EXPECT_EQ(q.top_time(), at(1h));
  drain(q);
  ASSERT_EQ(log.size(), 5000u);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(log[static_cast<std::size_t>(i)], i);
}

// Many events at one instant occupying shuffled slots (the free list after
// random cancels): every rebuild must stay O(n log n). Linking them one by one
// in slot order was quadratic (14 s for 80k events); this runs in milliseconds.
TEST(EventQueue, SameInstantEventsInShuffledSlotsRebuildQuickly) {
  constexpr int kN = 100'000;
  EventQueue q;
  RngStream rng(5, "shuffle");
  std::vector<EventId> ids;
  for (int i = 0; i < kN; ++i) ids.push_back(q.push(ns(static_cast<std::int64_t>(rng.below(1'000'000'000))), 0, {}, [] {}));
  for (int i = kN - 1; i > 0; --i) std::swap(ids[static_cast<std::size_t>(i)], ids[rng.below(static_cast<std::uint64_t>(i) + 1)]);
  for (EventId id : ids) ASSERT_TRUE(q.cancel(id));
  std::vector<int> log;
  log.reserve(kN);
  for (int i = 0; i < kN; ++i) push_logging(q, at(1000h), 0, log, i);
  // An earlier event that falls into the same (huge) bucket, a year earlier:
  // inserted at the head without walking the bucket.
  const Duration year = q.bucket_width() * static_cast<std::int64_t>(q.bucket_count());
  ASSERT_LT(year, 1000h);
  push_logging(q, at(1000h) - year, 0, log, -1);
  drain(q);
  ASSERT_EQ(log.size(), static_cast<std::size_t>(kN) + 1);
  EXPECT_EQ(log[0], -1);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(log[static_cast<std::size_t>(i) + 1], i);
}

TEST(EventQueue, ExtremeTimesTogether) {
  EventQueue q;
  const std::int64_t max = EventQueue::kMaxTimeNs;
  std::vector<std::int64_t> times = {0, 1, 2, max - 2, max - 1, max, max / 2, max / 3, 1'000'000'000};
  for (auto t : times) q.push(ns(t), 0, {}, [] {});
  std::sort(times.begin(), times.end());
  EXPECT_EQ(drain(q), times);
  // Again, interleaved with pushes close to the last popped time.
  for (auto t : {max, std::int64_t{0}}) q.push(ns(t), 0, {}, [] {});
  EXPECT_EQ(q.pop().time, ns(0));
  q.push(ns(5), 0, {}, [] {});
  EXPECT_EQ(q.pop().time, ns(5));
  EXPECT_EQ(q.pop().time, ns(max));
}

TEST(EventQueue, ClearResetsEverything) {
  EventQueue q;
  for (int i = 0; i < 10'000; ++i) q.push(at(Duration{i * 1000}), 0, {}, [] {});
  EXPECT_EQ(q.top_time(), at(0ns));
  q.clear();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  // Earlier and later times than before are both fine after clear().
  std::vector<int> log;
  push_logging(q, at(1h), 0, log, 3);
  push_logging(q, at(5ns), 0, log, 1);
  push_logging(q, at(5ns), -1, log, 0);
  push_logging(q, at(1s), 0, log, 2);
  drain(q);
  EXPECT_EQ(log, (std::vector<int>{0, 1, 2, 3}));
  q.clear();  // clear of an empty queue
  EXPECT_TRUE(q.empty());
}

// ---------------------------------------------------------------- differential

// The reference: a std::set ordered by (time, priority, seq). The queue must
// agree with it after every operation.
enum class Dist { kExponential, kSameTime, kBimodal, kSparse, kMonotoneBursts, kArbitrary };

const char* dist_name(Dist d) {
  switch (d) {
    case Dist::kExponential: return "Exponential";
    case Dist::kSameTime: return "SameTime";
    case Dist::kBimodal: return "Bimodal";
    case Dist::kSparse: return "Sparse";
    case Dist::kMonotoneBursts: return "MonotoneBursts";
    case Dist::kArbitrary: return "Arbitrary";
  }
  return "?";
}

class Differential {
 public:
  Differential(Dist dist, std::uint64_t seed) : dist_(dist), rng_(seed, dist_name(dist)) {}

  void push_one() {
    std::int64_t t = next_time();
    const int priority = static_cast<int>(rng_.below(5)) - 2;
    push_at(t, priority, false);
    if (dist_ == Dist::kBimodal && rng_.bernoulli(0.8)) {
      // A far-future timeout, usually cancelled before it fires.
      const std::int64_t timeout = now_ + 30'000'000'000 + static_cast<std::int64_t>(rng_.below(1'000'000));
      push_at(timeout, 0, true);
    }
  }

  void pop_one() {
    ASSERT_EQ(q_.empty(), ref_.empty());
    if (ref_.empty()) return;
    const auto expected = *ref_.begin();
    auto e = q_.pop();
    ASSERT_EQ(to_ns(e.time), std::get<0>(expected));
    const std::uint64_t seq = std::get<2>(expected);
    ASSERT_EQ(e.tag.component, static_cast<std::uint32_t>(seq));
    last_run_ = ~std::uint64_t{0};
    e.handler();
    ASSERT_EQ(last_run_, seq);
    forget(seq);
    ASSERT_GE(std::get<0>(expected), now_ - (dist_ == Dist::kArbitrary ? kInf : 0));
    now_ = std::max(now_, std::get<0>(expected));
    ++pops_;
  }

  void cancel_one() {
    if (rng_.bernoulli(0.1) && !stale_.empty()) {
      const EventId id = stale_[rng_.below(stale_.size())];
      ASSERT_FALSE(q_.is_pending(id));
      ASSERT_FALSE(q_.cancel(id));
      return;
    }
    if (pending_.empty()) return;
    std::uint64_t seq;
    if (dist_ == Dist::kBimodal && !timeouts_.empty() && rng_.bernoulli(0.9)) {
      seq = timeouts_[rng_.below(timeouts_.size())];
    } else {
      seq = pending_[rng_.below(pending_.size())];
    }
    const Entry& entry = entries_.at(seq);
    ASSERT_TRUE(q_.is_pending(entry.id));
    ASSERT_TRUE(q_.cancel(entry.id));
    ASSERT_FALSE(q_.is_pending(entry.id));
    forget(seq);
    ++cancels_;
  }

  void check_top() {
    ASSERT_EQ(q_.empty(), ref_.empty());
    ASSERT_EQ(q_.size(), ref_.size());
    if (ref_.empty()) return;
    ASSERT_EQ(to_ns(q_.top_time()), std::get<0>(*ref_.begin()));
  }

  // Runs `ops` random operations with the given weights.
  void run(int ops, double w_push, double w_pop, double w_cancel, double w_top) {
    const double total = w_push + w_pop + w_cancel + w_top;
    for (int i = 0; i < ops; ++i) {
      const double u = rng_.uniform() * total;
      if (u < w_push) {
        push_one();
      } else if (u < w_push + w_pop) {
        pop_one();
      } else if (u < w_push + w_pop + w_cancel) {
        cancel_one();
      } else {
        check_top();
      }
      if (::testing::Test::HasFatalFailure()) return;
      min_buckets_ = std::min(min_buckets_, q_.bucket_count());
      max_buckets_ = std::max(max_buckets_, q_.bucket_count());
    }
  }

  void drain_all() {
    while (!ref_.empty()) {
      if (rng_.bernoulli(0.2)) check_top();
      pop_one();
      if (::testing::Test::HasFatalFailure()) return;
    }
    ASSERT_TRUE(q_.empty());
    for (int i = 0; i < 100 && i < static_cast<int>(stale_.size()); ++i) ASSERT_FALSE(q_.cancel(stale_[i]));
  }

  std::size_t size() const { return ref_.size(); }
  std::size_t max_buckets() const { return max_buckets_; }
  std::size_t min_buckets() const { return min_buckets_; }
  std::size_t bucket_count() const { return q_.bucket_count(); }
  long pops() const { return pops_; }
  long cancels() const { return cancels_; }

 private:
  static constexpr std::int64_t kInf = std::int64_t{1} << 62;
  struct Entry {
    EventId id;
    std::int64_t time;
    int priority;
    std::size_t pos;  // in pending_
    std::size_t timeout_pos;  // in timeouts_, or npos
  };
  static constexpr std::size_t npos = ~std::size_t{0};

  std::int64_t next_time() {
    switch (dist_) {
      case Dist::kExponential:
        return now_ + static_cast<std::int64_t>(rng_.exponential(1e9));
      case Dist::kSameTime:
        // Everything at the current instant; the instant moves on rarely.
        if (rng_.bernoulli(0.001)) return now_ + 1'000'000;
        return now_;
      case Dist::kBimodal:
        return now_ + static_cast<std::int64_t>(rng_.exponential(1e6));
      case Dist::kSparse:
        if (rng_.bernoulli(0.02)) return now_ + 3'600'000'000'000 * (1 + static_cast<std::int64_t>(rng_.below(5)));
        return now_ + static_cast<std::int64_t>(rng_.below(10));
      case Dist::kMonotoneBursts:
        if (burst_left_ == 0) {
          burst_left_ = 1 + static_cast<int>(rng_.below(500));
          burst_time_ = now_ + static_cast<std::int64_t>(rng_.below(1'000'000'000));
        }
        --burst_left_;
        burst_time_ = std::max(burst_time_, now_) + static_cast<std::int64_t>(rng_.below(3));
        return std::min(burst_time_, EventQueue::kMaxTimeNs);
      case Dist::kArbitrary:
        // Anywhere, including before the last popped time, and up to the maximum.
        if (rng_.bernoulli(0.01)) return EventQueue::kMaxTimeNs - static_cast<std::int64_t>(rng_.below(1000));
        return static_cast<std::int64_t>(rng_.below(1'000'000'000'000));
    }
    return now_;
  }

  void push_at(std::int64_t t, int priority, bool timeout) {
    const std::uint64_t seq = next_seq_++;
    const EventId id =
        q_.push(ns(t), priority, EventTag{static_cast<std::uint32_t>(seq), "diff"}, [this, seq] { last_run_ = seq; });
    ref_.emplace(t, priority, seq);
    Entry entry{id, t, priority, pending_.size(), npos};
    pending_.push_back(seq);
    if (timeout) {
      entry.timeout_pos = timeouts_.size();
      timeouts_.push_back(seq);
    }
    entries_.emplace(seq, entry);
  }

  void forget(std::uint64_t seq) {
    auto it = entries_.find(seq);
    ASSERT_NE(it, entries_.end());
    const Entry entry = it->second;
    ASSERT_EQ(ref_.erase(std::make_tuple(entry.time, entry.priority, seq)), 1u);
    swap_remove(pending_, entry.pos, [&](std::uint64_t moved, std::size_t pos) { entries_.at(moved).pos = pos; });
    if (entry.timeout_pos != npos) {
      swap_remove(timeouts_, entry.timeout_pos,
                  [&](std::uint64_t moved, std::size_t pos) { entries_.at(moved).timeout_pos = pos; });
    }
    if (stale_.size() < 10'000) stale_.push_back(entry.id);
    entries_.erase(it);
  }

  template <class Fix>
  static void swap_remove(std::vector<std::uint64_t>& v, std::size_t pos, Fix fix) {
    if (pos + 1 != v.size()) {
      v[pos] = v.back();
      fix(v[pos], pos);
    }
    v.pop_back();
  }

  Dist dist_;
  RngStream rng_;
  EventQueue q_;
  std::set<std::tuple<std::int64_t, int, std::uint64_t>> ref_;
  std::unordered_map<std::uint64_t, Entry> entries_;
  std::vector<std::uint64_t> pending_;
  std::vector<std::uint64_t> timeouts_;
  std::vector<EventId> stale_;
  std::uint64_t next_seq_ = 0;
  std::uint64_t last_run_ = 0;
  std::int64_t now_ = 0;
  int burst_left_ = 0;
  std::int64_t burst_time_ = 0;
  std::size_t min_buckets_ = ~std::size_t{0};
  std::size_t max_buckets_ = 0;
  long pops_ = 0;
  long cancels_ = 0;
};

class EventQueueDifferential : public ::testing::TestWithParam<Dist> {};

TEST_P(EventQueueDifferential, AgreesWithReferenceModel) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    Differential d(GetParam(), seed);
    // Grow (rebuilds upward), steady state, drain (rebuilds downward), regrow, drain.
    d.run(30'000, 0.6, 0.2, 0.1, 0.1);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    const std::size_t peak_buckets = d.bucket_count();
    d.run(30'000, 0.35, 0.35, 0.1, 0.2);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    d.run(40'000, 0.15, 0.6, 0.15, 0.1);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    EXPECT_LT(d.min_buckets(), peak_buckets);
    d.run(20'000, 0.7, 0.2, 0.05, 0.05);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    d.drain_all();
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    EXPECT_GT(d.max_buckets(), 16u);
    EXPECT_GT(d.pops(), 10'000);
    EXPECT_GT(d.cancels(), 1'000);
  }
}

INSTANTIATE_TEST_SUITE_P(Distributions, EventQueueDifferential,
                         ::testing::Values(Dist::kExponential, Dist::kSameTime, Dist::kBimodal, Dist::kSparse,
                                           Dist::kMonotoneBursts, Dist::kArbitrary),
                         [](const ::testing::TestParamInfo<Dist>& p) { return std::string(dist_name(p.param)); });

// The hold model itself (pop one, push one later), long enough for the width
// to settle, checked against the reference order.
TEST(EventQueue, HoldModelMatchesSortedOrder) {
  EventQueue q;
  RngStream rng(99, "hold");
  std::multiset<std::int64_t> ref;
  for (int i = 0; i < 10'000; ++i) {
    const auto t = static_cast<std::int64_t>(rng.exponential(1e9));
    q.push(ns(t), 0, {}, [] {});
    ref.insert(t);
  }
  for (int i = 0; i < 200'000; ++i) {
    const std::int64_t t = to_ns(q.pop().time);
    ASSERT_EQ(t, *ref.begin());
    ref.erase(ref.begin());
    const std::int64_t next = t + static_cast<std::int64_t>(rng.exponential(1e9));
    q.push(ns(next), 0, {}, [] {});
    ref.insert(next);
  }
  EXPECT_EQ(q.size(), 10'000u);
}

}  // namespace
}  // namespace drsim

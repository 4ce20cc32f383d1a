#pragma once
// The pending-event set: a calendar queue (R. Brown, CACM 1988) ordered by
// (time, priority, insertion sequence). Ties therefore resolve the same way
// on every run and never depend on pointers or hashing.
//
// Why a calendar queue: in the hold benchmark (bench/event_queue_bench.cc) a
// binary or 4-ary heap of 1e5 entries spills out of L2 and pays a cache miss
// per level of sift-down (~110 ns per hold here), while a calendar queue with
// a tuned bucket width touches one bucket head and one slot: amortised O(1).
//
// The bucket width is estimated from the earliest events at every resize
// and then corrected by feedback (as in Tan and Thng's SNOOPy calendar
// queue): the queue counts the steps that insertions walk inside buckets and
// the empty buckets that pops pass over, and halves or doubles its width
// when one clearly outweighs the other. Brown's estimate (a small multiple
// of the mean gap between the earliest events) suits events spread evenly,
// as in the hold model; in a request simulation the pending events crowd
// the near future (service times, network hops) while timeouts sit far
// ahead: in bench/scenario_bench.cc the estimate came out 8x too wide
// (109 us; feedback settles at 14 us) and insertions walked two entries per
// push (0.16 after feedback).
//
// Events live in slots of two parallel arrays: small nodes with the time,
// key and bucket links, and payloads with the handler (InlineFunction, stored
// inline, no heap allocation), tag and generation. The calendar only walks
// nodes, so many more of them stay in cache. Buckets are doubly linked, so
// cancel() unlinks at once: true O(1) cancellation with no dead entries left
// to skip or compact. A handler is always destroyed after the queue's own
// bookkeeping, so its destructor may cancel or schedule events.
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "sim/inline_function.h"
#include "sim/time.h"

namespace drsim {

// Names an event for cancellation. Stale ids (already run or cancelled, slot
// reused) are recognised by their generation and ignored.
struct EventId {
  std::uint64_t value = 0;  // slot (low 32 bits) | generation (high 32 bits); 0 = none
  constexpr bool valid() const { return value != 0; }
  friend constexpr bool operator==(EventId, EventId) = default;
};

inline constexpr std::uint32_t kNoComponent = 0xFFFFFFFFu;

// Who scheduled an event and why: carried for error messages, never for ordering.
struct EventTag {
  std::uint32_t component = kNoComponent;
  const char* label = "event";  // must point at static storage (a string literal)
};

class EventQueue {
 public:
  static constexpr std::size_t kHandlerCapacity = 48;
  using Handler = InlineFunction<void(), kHandlerCapacity>;
  static constexpr int kMinPriority = -128;
  static constexpr int kMaxPriority = 127;
  // Latest time an event may be scheduled at (~146 years): keeps bucket
  // arithmetic far from overflow.
  static constexpr std::int64_t kMaxTimeNs = std::int64_t{1} << 62;

  EventQueue();
  // Destroys the pending handlers (see clear()).
  ~EventQueue();
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  // Lower priority values run first among events at the same time. The
  // handler is a Handler or any callable that fits one; a callable is built
  // straight into the event's slot.
  template <class F>
  EventId push(SimTime time, int priority, EventTag tag, F&& handler) {
    const std::uint32_t index = claim_slot(time, priority, tag);
    Handler& slot = payloads_[index].handler;
    if constexpr (std::is_same_v<std::decay_t<F>, Handler>) {
      slot = std::forward<F>(handler);
    } else if constexpr (std::is_nothrow_constructible_v<std::decay_t<F>, F&&>) {
      slot.emplace(std::forward<F>(handler));
    } else {
      try {
        slot.emplace(std::forward<F>(handler));
      } catch (...) {
        release_claim(index);
        throw;
      }
    }
    return enqueue(index);
  }
  // Returns true if the event was pending and is now cancelled.
  bool cancel(EventId id);
  bool is_pending(EventId id) const;

  bool empty() const { return live_ == 0; }
  std::size_t size() const { return live_; }
  std::size_t bucket_count() const { return buckets_.size(); }
  Duration bucket_width() const { return Duration{width_}; }

  // Time of the earliest event. Requires !empty().
  SimTime top_time() { return SimTime{Duration{nodes_[locate_min()].time}}; }

  struct Popped {
    SimTime time;
    EventTag tag;
    Handler handler;
  };
  // Removes and returns the earliest event. Requires !empty().
  Popped pop();

  // Cancels every pending event. Handlers are destroyed after the queue is
  // already empty, so a handler's destructor may safely cancel or schedule.
  void clear();

 private:
  static constexpr std::uint32_t kNil = 0xFFFFFFFFu;
  static constexpr std::int64_t kFreeTime = -1;  // Node::time of a free slot
  // An event lives in slot i of two parallel arrays. The Node holds what the
  // calendar walks (24 bytes: at 1e6 pending the nodes are a quarter of the
  // memory of whole slots, so far more of them stay in cache); the Payload
  // holds what is touched once on push and once on pop or cancel.
  struct Node {
    std::int64_t time = kFreeTime;
    std::uint64_t key = 0;  // priority (8 bits) | insertion sequence (56 bits)
    std::uint32_t next = kNil;  // next in the bucket, or next free slot
    std::uint32_t prev = kNil;  // previous in the bucket; meaningless for a bucket's head
  };
  struct Payload {
    Handler handler;
    const char* label = nullptr;
    std::uint32_t component = kNoComponent;
    std::uint32_t generation = 0;  // odd while pending, even while free
  };
  // Head and tail side by side: one cache line serves both ends of a bucket.
  struct Bucket {
    std::uint32_t head = kNil;
    std::uint32_t tail = kNil;
  };

  bool before(std::uint32_t a, std::uint32_t b) const {
    const Node& x = nodes_[a];
    const Node& y = nodes_[b];
    return x.time < y.time || (x.time == y.time && x.key < y.key);
  }
  // The width is a power of two, so these shift rather than divide: a
  // 64-bit division sat on the critical path of every insertion.
  std::size_t bucket_of(std::int64_t t) const { return static_cast<std::size_t>(t >> width_shift_) & mask_; }
  std::int64_t window_end(std::int64_t t) const { return ((t >> width_shift_) + 1) << width_shift_; }
  static std::uint32_t index_of(EventId id) { return static_cast<std::uint32_t>(id.value & 0xFFFFFFFFu); }

  // push() in three steps around building the handler: claim_slot checks
  // the time and priority (throwing before anything changes) and fills in a
  // free slot; enqueue links it into the calendar; release_claim gives the
  // slot back if building the handler threw.
  std::uint32_t claim_slot(SimTime time, int priority, EventTag tag);
  EventId enqueue(std::uint32_t index);
  void release_claim(std::uint32_t index);
  std::uint32_t locate_min();
  void link(std::uint32_t index);
  void unlink(std::uint32_t index);
  std::uint32_t allocate_slot();
  void free_slot(std::uint32_t index);
  void maybe_shrink() {
    if (live_ < buckets_.size() / 4 && buckets_.size() > kMinBuckets) rebuild(buckets_.size() / 2);
  }
  void rebuild(std::size_t bucket_count);
  std::int64_t estimate_width() const;
  // Every kTunePeriod pops: compares the walking and scanning counted since
  // the last look and rescales the width if they are out of balance.
  void tune_width();

  static constexpr std::size_t kMinBuckets = 16;

  std::vector<Node> nodes_;
  std::vector<Payload> payloads_;
  std::uint32_t free_head_ = kNil;
  std::vector<Bucket> buckets_;
  std::size_t mask_ = 0;
  std::int64_t width_ = std::int64_t{1} << 20;  // ns, a power of two; re-estimated at every rebuild
  int width_shift_ = 20;                         // width_ == 1 << width_shift_
  // Feedback on the width: estimates are multiplied by width_scale_, which
  // tune_width() halves or doubles from what it counts.
  double width_scale_ = 1.0;
  std::uint64_t walk_steps_ = 0;    // bucket entries passed by insertions since the last tune
  std::uint64_t pushes_ = 0;        // insertions since the last tune
  std::uint64_t scanned_ = 0;       // buckets passed over by pops since the last tune
  std::uint32_t pops_to_tune_ = 0;  // pops left before the next tune
  // Scan position: bucket cur_ covers [top_ - width_, top_) in the current
  // "year". Invariant: no pending event is earlier than top_ - width_.
  std::size_t cur_ = 0;
  std::int64_t top_ = 0;
  std::uint32_t min_cache_ = kNil;  // the earliest slot (the head of bucket cur_), when known
  std::size_t live_ = 0;
  std::uint64_t next_seq_ = 0;
};

}  // namespace drsim

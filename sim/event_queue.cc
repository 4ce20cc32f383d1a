#include "sim/event_queue.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <utility>

#include "sim/errors.h"

namespace drsim {

namespace {
// Bucket width = kWidthFactor x the mean gap between the earliest events.
// Brown uses 3; with 24-byte nodes, 2 measured best (1, 1.5, 2, 3 tried;
// bench/README.md), together with growing at one event per bucket.
constexpr double kWidthFactor = 2.0;
// Width feedback (tune_width): every kTunePeriod pops, halve the width when
// insertions walked more than kMaxWalk entries per push while pops scanned
// fewer than kScanAfterHalving buckets each; double it when pops scanned
// more than kMaxScan buckets each while insertions walked fewer than
// kWalkAfterDoubling. A walk step is a dependent load and an unpredictable
// branch; a scanned bucket is a sequential 8-byte read: so walking is held
// lower than scanning. In the hold model (bench/event_queue_bench.cc) Brown's
// width gives 0.2 steps per push and 0.5 buckets per pop, inside both
// limits, so it is left alone; the gaps between the limits keep a halving
// (which about halves walks and doubles scans) from being undone.
constexpr std::uint32_t kTunePeriod = 1 << 16;
constexpr double kMaxWalk = 0.5;
constexpr double kScanAfterHalving = 1.0;
constexpr double kMaxScan = 4.0;
constexpr double kWalkAfterDoubling = 0.125;
constexpr double kMinWidthScale = 1.0 / 64;
constexpr double kMaxWidthScale = 64;
constexpr std::uint64_t kSeqBits = 56;
constexpr std::uint64_t kSeqMask = (std::uint64_t{1} << kSeqBits) - 1;

inline void prefetch(const void* p) { __builtin_prefetch(p, 0, 3); }
}  // namespace

EventQueue::EventQueue() : pops_to_tune_(kTunePeriod) {
  buckets_.assign(kMinBuckets, Bucket{});
  mask_ = kMinBuckets - 1;
  top_ = width_;
}

EventQueue::~EventQueue() { clear(); }

inline std::uint32_t EventQueue::allocate_slot() {
  if (free_head_ != kNil) {
    const std::uint32_t index = free_head_;
    free_head_ = nodes_[index].next;
    return index;
  }
  if (nodes_.size() >= kNil - 1) throw SimulationError("event queue full: 4 billion events pending");
  nodes_.emplace_back();
  try {
    payloads_.emplace_back();
  } catch (...) {
    nodes_.pop_back();
    throw;
  }
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

// The payload's handler must already be empty (moved out).
void EventQueue::free_slot(std::uint32_t index) {
  ++payloads_[index].generation;  // even: free; ids of the old event no longer match
  Node& n = nodes_[index];
  n.time = kFreeTime;
  n.next = free_head_;
  free_head_ = index;
}

// Inserts a node into its bucket's sorted list. New events are usually the
// latest in their bucket (same-time events arrive in sequence order) or the
// earliest (the rest belong to later years), so both ends are tried first.
void EventQueue::link(std::uint32_t index) {
  Node& n = nodes_[index];
  Bucket& b = buckets_[bucket_of(n.time)];
  std::uint32_t after = b.tail;
  if (after != kNil && before(index, after)) {
    if (before(index, b.head)) {
      // Earlier than the whole bucket (often: the bucket holds later "years").
      after = kNil;
    } else {
      // Somewhere inside: walk back from the tail. The head is not after the
      // new node, so the walk stops at the head at the latest and never
      // follows the head's prev (which pop leaves stale).
      do {
        after = nodes_[after].prev;
        ++walk_steps_;
      } while (before(index, after));
    }
  }
  n.prev = after;
  if (after == kNil) {
    n.next = b.head;
    b.head = index;
  } else {
    n.next = nodes_[after].next;
    nodes_[after].next = index;
  }
  if (n.next == kNil) {
    b.tail = index;
  } else {
    nodes_[n.next].prev = index;
  }
}

void EventQueue::unlink(std::uint32_t index) {
  const Node& n = nodes_[index];
  Bucket& b = buckets_[bucket_of(n.time)];
  if (b.head == index) {
    b.head = n.next;  // n.prev is stale for a head: not followed
  } else {
    nodes_[n.prev].next = n.next;
  }
  if (n.next == kNil) {
    b.tail = b.head == kNil ? kNil : n.prev;
  } else {
    nodes_[n.next].prev = n.prev;  // stale if n was the head, which is allowed
  }
}

std::uint32_t EventQueue::claim_slot(SimTime time, int priority, EventTag tag) {
  const std::int64_t t = to_ns(time);
  if (t < 0 || t > kMaxTimeNs) throw SimulationError("event time " + format_clock(time) + " out of range");
  if (priority < kMinPriority || priority > kMaxPriority) {
    throw SimulationError("event priority " + std::to_string(priority) + " outside [-128, 127]");
  }
  const std::uint32_t index = allocate_slot();
  Node& n = nodes_[index];
  n.time = t;
  n.key = (static_cast<std::uint64_t>(priority - kMinPriority) << kSeqBits) | (next_seq_++ & kSeqMask);
  Payload& p = payloads_[index];
  p.label = tag.label;
  p.component = tag.component;
  ++p.generation;  // odd: pending
  return index;
}

void EventQueue::release_claim(std::uint32_t index) {
  payloads_[index].handler.reset();
  free_slot(index);
}

EventId EventQueue::enqueue(std::uint32_t index) {
  const std::int64_t t = nodes_[index].time;
  const std::uint32_t generation = payloads_[index].generation;
  link(index);
  ++live_;
  ++pushes_;

  // An event earlier than the scan window would be passed over: move the
  // window back to it. (Times never precede the simulation clock, but a peek
  // with top_time() may have moved the window ahead of the clock.)
  if (t < top_ - width_) {
    cur_ = bucket_of(t);
    top_ = window_end(t);
  }
  if (min_cache_ != kNil && before(index, min_cache_)) min_cache_ = index;
  if (live_ > buckets_.size()) rebuild(buckets_.size() * 2);  // at most ~1 event per bucket
  return EventId{(static_cast<std::uint64_t>(generation) << 32) | index};
}

bool EventQueue::is_pending(EventId id) const {
  const std::uint32_t index = index_of(id);
  const auto generation = static_cast<std::uint32_t>(id.value >> 32);
  return (generation & 1) != 0 && index < payloads_.size() && payloads_[index].generation == generation;
}

bool EventQueue::cancel(EventId id) {
  if (!is_pending(id)) return false;
  const std::uint32_t index = index_of(id);
  unlink(index);
  // Taken out before the slot is freed and destroyed only when the queue is
  // consistent again: the handler's destructor may use the queue.
  Handler doomed = std::move(payloads_[index].handler);
  free_slot(index);
  if (min_cache_ == index) min_cache_ = kNil;
  --live_;
  maybe_shrink();
  return true;
}

std::uint32_t EventQueue::locate_min() {
  if (min_cache_ != kNil) return min_cache_;
  // One "year": walk the buckets from the scan position; the first bucket
  // whose head falls inside its current window holds the minimum.
  for (std::size_t scanned = 0; scanned <= mask_; ++scanned) {
    const std::uint32_t h = buckets_[cur_].head;
    if (h != kNil && nodes_[h].time < top_) {
      prefetch(&payloads_[h]);  // its handler is what the caller wants next
      return min_cache_ = h;
    }
    cur_ = (cur_ + 1) & mask_;
    top_ += width_;
    ++scanned_;
  }
  // Nothing within a year: the events are sparse for this width. Re-estimate
  // the width (rebuild), which also puts the scan position at the earliest event.
  rebuild(buckets_.size());
  return locate_min();
}

EventQueue::Popped EventQueue::pop() {
  const std::uint32_t index = locate_min();
  min_cache_ = kNil;
  // The minimum is the head of bucket cur_. Its successor's prev is left
  // stale (a head's prev is never read), which saves touching its node.
  Node& n = nodes_[index];
  Bucket& b = buckets_[cur_];
  b.head = n.next;
  if (n.next == kNil) {
    b.tail = kNil;
  } else {
    // Often the next minimum (same window): start loading it while the
    // caller runs this event's handler.
    prefetch(&nodes_[n.next]);
    prefetch(&payloads_[n.next]);
  }
  Payload& p = payloads_[index];
  Popped out{SimTime{Duration{n.time}}, EventTag{p.component, p.label}, std::move(p.handler)};
  free_slot(index);
  --live_;
  maybe_shrink();
  if (--pops_to_tune_ == 0) tune_width();
  return out;
}

void EventQueue::tune_width() {
  // Per push and per pop: a period that starts by filling the queue has
  // many more pushes than pops.
  const double walk = pushes_ == 0 ? 0.0 : static_cast<double>(walk_steps_) / static_cast<double>(pushes_);
  const double scan = static_cast<double>(scanned_) / kTunePeriod;
  walk_steps_ = pushes_ = scanned_ = 0;
  pops_to_tune_ = kTunePeriod;
  if (walk > kMaxWalk && scan < kScanAfterHalving && width_scale_ > kMinWidthScale) {
    width_scale_ /= 2;
    rebuild(buckets_.size());
  } else if (scan > kMaxScan && walk < kWalkAfterDoubling && width_scale_ < kMaxWidthScale) {
    width_scale_ *= 2;
    rebuild(buckets_.size());
  }
}

// Brown's heuristic: the bucket width is a small multiple of the mean gap
// between the earliest events, ignoring gaps more than twice the mean.
std::int64_t EventQueue::estimate_width() const {
  // 32 gaps (Brown's 25) gave widths that varied run to run by 2x and hold
  // costs by 50%; a larger sample of the earliest events is steadier.
  constexpr std::size_t kSample = 1024;
  std::vector<std::int64_t> times;
  times.reserve(live_);
  for (const Node& n : nodes_) {
    if (n.time != kFreeTime) times.push_back(n.time);
  }
  if (times.size() < 2) return width_;
  const std::size_t k = std::min(kSample, times.size());
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(k - 1), times.end());
  std::sort(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(k));
  double sum = 0;
  for (std::size_t i = 1; i < k; ++i) sum += static_cast<double>(times[i] - times[i - 1]);
  const double mean = sum / static_cast<double>(k - 1);
  double kept_sum = 0;
  std::size_t kept = 0;
  for (std::size_t i = 1; i < k; ++i) {
    const auto gap = static_cast<double>(times[i] - times[i - 1]);
    if (gap <= 2 * mean) {
      kept_sum += gap;
      ++kept;
    }
  }
  if (kept == 0 || kept_sum <= 0) return width_;  // all simultaneous: keep the old width
  const double width = kWidthFactor * width_scale_ * kept_sum / static_cast<double>(kept);
  // The nearest power of two (in ratio): 1.4 to 2.8 times the mean gap
  // before feedback, inside the range where Brown's factor hardly matters.
  const int shift = static_cast<int>(std::lround(std::log2(std::max(width, 1.0))));
  return std::int64_t{1} << std::clamp(shift, 0, 60);  // 2^60 = kMaxTimeNs / 4
}

// A bucket sort: count the pending events per new bucket, place them in
// bucket order, sort each bucket's (usually one or two) events, and chain
// them. O(n) for spread-out events, O(n log n) when many share a bucket; never
// the O(n^2) of linking them one by one in an arbitrary order.
void EventQueue::rebuild(std::size_t bucket_count) {
  bucket_count = std::max(bucket_count, kMinBuckets);
  width_ = estimate_width();
  width_shift_ = std::countr_zero(static_cast<std::uint64_t>(width_));
  mask_ = bucket_count - 1;
  min_cache_ = kNil;

  struct Item {
    std::uint32_t bucket;
    std::uint32_t index;
  };
  std::vector<Item> items;
  items.reserve(live_);
  std::vector<std::uint32_t> start(bucket_count + 1, 0);
  std::int64_t earliest = kMaxTimeNs;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const std::int64_t t = nodes_[i].time;
    if (t == kFreeTime) continue;
    const auto b = static_cast<std::uint32_t>(bucket_of(t));
    items.push_back(Item{b, static_cast<std::uint32_t>(i)});
    ++start[b + 1];
    earliest = std::min(earliest, t);
  }
  for (std::size_t b = 0; b < bucket_count; ++b) start[b + 1] += start[b];
  std::vector<std::uint32_t> order(items.size());
  {
    std::vector<std::uint32_t> cursor(start.begin(), start.end() - 1);
    for (const Item& item : items) order[cursor[item.bucket]++] = item.index;
  }

  buckets_.assign(bucket_count, Bucket{});
  for (std::size_t b = 0; b < bucket_count; ++b) {
    const auto first = order.begin() + start[b];
    const auto last = order.begin() + start[b + 1];
    if (first == last) continue;
    if (last - first > 1) std::sort(first, last, [this](std::uint32_t x, std::uint32_t y) { return before(x, y); });
    std::uint32_t prev = kNil;
    for (auto it = first; it != last; ++it) {
      Node& n = nodes_[*it];
      n.prev = prev;
      if (prev != kNil) nodes_[prev].next = *it;
      prev = *it;
    }
    nodes_[prev].next = kNil;
    buckets_[b] = Bucket{*first, prev};
  }

  if (live_ == 0) earliest = 0;
  cur_ = bucket_of(earliest);
  top_ = window_end(earliest);
}

void EventQueue::clear() {
  // Empty the queue first, then destroy the handlers: a handler's destructor
  // then sees a consistent (empty) queue and may cancel or schedule.
  std::vector<Handler> doomed;
  doomed.reserve(live_);
  for (std::size_t i = 0; i < payloads_.size(); ++i) {
    if ((payloads_[i].generation & 1) != 0) {
      doomed.push_back(std::move(payloads_[i].handler));
      free_slot(static_cast<std::uint32_t>(i));
    }
  }
  buckets_.assign(kMinBuckets, Bucket{});
  mask_ = kMinBuckets - 1;
  cur_ = 0;
  top_ = width_;
  min_cache_ = kNil;
  live_ = 0;
}

}  // namespace drsim

#include "sim/event_queue.h"

#include <algorithm>

#include "sim/errors.h"

namespace drsim {

namespace {
constexpr std::size_t kMinBuckets = 16;
// Brown's factor; 1.5 and 2 were measured too and were no better (bench/README.md).
constexpr double kWidthFactor = 3.0;
constexpr std::uint64_t kSeqBits = 56;
constexpr std::uint64_t kSeqMask = (std::uint64_t{1} << kSeqBits) - 1;
}  // namespace

EventQueue::EventQueue() {
  buckets_.assign(kMinBuckets, Bucket{});
  mask_ = kMinBuckets - 1;
  top_ = width_;
}

std::uint32_t EventQueue::allocate_slot() {
  if (free_head_ != kNil) {
    const std::uint32_t index = free_head_;
    free_head_ = slots_[index].next;
    return index;
  }
  if (slots_.size() >= kNil - 1) throw SimulationError("event queue full: 4 billion events pending");
  slots_.emplace_back();
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

void EventQueue::free_slot(std::uint32_t index) {
  Slot& slot = slots_[index];
  slot.state = SlotState::kFree;
  ++slot.generation;
  if (slot.generation == 0) slot.generation = 1;  // 0 would make a null id
  slot.next = free_head_;
  free_head_ = index;
}

// Inserts a slot into its bucket's sorted list. New events are usually the
// latest in their bucket (same-time events arrive in sequence order), so the
// walk starts from the tail and is O(1) in the common case.
void EventQueue::link(std::uint32_t index) {
  const std::size_t b = bucket_of(slots_[index].time);
  std::uint32_t after = buckets_[b].tail;
  while (after != kNil && before(index, after)) after = slots_[after].prev;
  Slot& s = slots_[index];
  s.prev = after;
  if (after == kNil) {
    s.next = buckets_[b].head;
    buckets_[b].head = index;
  } else {
    s.next = slots_[after].next;
    slots_[after].next = index;
  }
  if (s.next == kNil) {
    buckets_[b].tail = index;
  } else {
    slots_[s.next].prev = index;
  }
}

void EventQueue::unlink(std::uint32_t index) {
  const Slot& s = slots_[index];
  const std::size_t b = bucket_of(s.time);
  if (s.prev == kNil) buckets_[b].head = s.next; else slots_[s.prev].next = s.next;
  if (s.next == kNil) buckets_[b].tail = s.prev; else slots_[s.next].prev = s.prev;
}

EventId EventQueue::push(SimTime time, int priority, EventTag tag, Handler&& handler) {
  const std::int64_t t = to_ns(time);
  if (t < 0 || t > kMaxTimeNs) throw SimulationError("event time " + format_clock(time) + " out of range");
  if (priority < kMinPriority || priority > kMaxPriority) {
    throw SimulationError("event priority " + std::to_string(priority) + " outside [-128, 127]");
  }
  const std::uint32_t index = allocate_slot();
  Slot& slot = slots_[index];
  slot.time = t;
  slot.key = (static_cast<std::uint64_t>(priority - kMinPriority) << kSeqBits) | (next_seq_++ & kSeqMask);
  slot.handler = std::move(handler);
  slot.label = tag.label;
  slot.component = tag.component;
  slot.state = SlotState::kPending;
  link(index);
  ++live_;

  // An event earlier than the scan window would be passed over: move the
  // window back to it. (Times never precede the simulation clock, but a peek
  // with top_time() may have moved the window ahead of the clock.)
  if (t < top_ - width_) {
    cur_ = bucket_of(t);
    top_ = window_end(t);
  }
  if (min_cache_ != kNil && before(index, min_cache_)) min_cache_ = index;
  if (live_ > 2 * buckets_.size()) rebuild(buckets_.size() * 2);
  return EventId{(static_cast<std::uint64_t>(slot.generation) << 32) | index};
}

bool EventQueue::is_pending(EventId id) const {
  if (!id.valid()) return false;
  const auto index = static_cast<std::uint32_t>(id.value & 0xFFFFFFFFu);
  const auto generation = static_cast<std::uint32_t>(id.value >> 32);
  if (index >= slots_.size()) return false;
  const Slot& slot = slots_[index];
  return slot.generation == generation && slot.state == SlotState::kPending;
}

bool EventQueue::cancel(EventId id) {
  if (!is_pending(id)) return false;
  const auto index = static_cast<std::uint32_t>(id.value & 0xFFFFFFFFu);
  unlink(index);
  slots_[index].handler.reset();
  free_slot(index);
  if (min_cache_ == index) min_cache_ = kNil;
  --live_;
  if (live_ < buckets_.size() / 4 && buckets_.size() > kMinBuckets) rebuild(buckets_.size() / 2);
  return true;
}

std::uint32_t EventQueue::locate_min() {
  if (min_cache_ != kNil) return min_cache_;
  // One "year": walk the buckets from the scan position; the first bucket
  // whose head falls inside its current window holds the minimum.
  for (std::size_t scanned = 0; scanned <= mask_; ++scanned) {
    const std::uint32_t h = buckets_[cur_].head;
    if (h != kNil && slots_[h].time < top_) return min_cache_ = h;
    cur_ = (cur_ + 1) & mask_;
    top_ += width_;
  }
  // Nothing within a year: the events are sparse for this width. Find the
  // minimum directly, and re-estimate the width so that it does not recur.
  std::uint32_t best = kNil;
  for (const Bucket& b : buckets_) {
    if (b.head != kNil && (best == kNil || before(b.head, best))) best = b.head;
  }
  const std::int64_t t = slots_[best].time;
  rebuild(buckets_.size());
  cur_ = bucket_of(t);
  top_ = window_end(t);
  return locate_min();
}

EventQueue::Popped EventQueue::pop() {
  const std::uint32_t index = locate_min();
  min_cache_ = kNil;
  // The minimum is the head of bucket cur_.
  Slot& s = slots_[index];
  buckets_[cur_].head = s.next;
  if (s.next == kNil) buckets_[cur_].tail = kNil; else slots_[s.next].prev = kNil;
  Popped out{SimTime{Duration{s.time}}, EventTag{s.component, s.label}, std::move(s.handler)};
  free_slot(index);
  --live_;
  if (live_ < buckets_.size() / 4 && buckets_.size() > kMinBuckets) rebuild(buckets_.size() / 2);
  return out;
}

// Brown's heuristic: the bucket width is about three times the mean gap
// between the earliest events, ignoring gaps more than twice the mean.
std::int64_t EventQueue::estimate_width(const std::vector<std::uint32_t>& nodes) const {
  // 32 gaps (Brown's 25) gave widths that varied run to run by 2x and hold
  // costs by 50%; a larger sample of the earliest events is steadier.
  constexpr std::size_t kSample = 1024;
  if (nodes.size() < 2) return width_;
  std::vector<std::int64_t> times;
  times.reserve(nodes.size());
  for (std::uint32_t n : nodes) times.push_back(slots_[n].time);
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
  const double width = kWidthFactor * kept_sum / static_cast<double>(kept);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(width), 1, kMaxTimeNs / 4);
}

void EventQueue::rebuild(std::size_t bucket_count) {
  bucket_count = std::max(bucket_count, kMinBuckets);
  std::vector<std::uint32_t> nodes;
  nodes.reserve(live_);
  for (const Bucket& b : buckets_) {
    for (std::uint32_t n = b.head; n != kNil; n = slots_[n].next) nodes.push_back(n);
  }
  width_ = estimate_width(nodes);
  buckets_.assign(bucket_count, Bucket{});
  mask_ = bucket_count - 1;
  std::int64_t earliest = kMaxTimeNs;
  for (std::uint32_t n : nodes) {
    link(n);
    earliest = std::min(earliest, slots_[n].time);
  }
  if (nodes.empty()) earliest = 0;
  cur_ = bucket_of(earliest);
  top_ = window_end(earliest);
  min_cache_ = kNil;
}

void EventQueue::clear() {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].state == SlotState::kPending) {
      slots_[i].handler.reset();
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

#pragma once
// A first-in first-out queue in a ring buffer that doubles when full and
// never shrinks. Once a queue has been as long as it gets, queuing allocates
// nothing (std::deque allocates and frees a block every few entries as a
// queue fills and drains), and its memory is bounded by the longest the
// queue has been, not by the entries it has seen. A pod's waiting jobs and
// an event loop's run queue are such queues.
#include <cstddef>
#include <vector>

namespace drsim {

template <class T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // Slots allocated (for memory tests): 0 or a power of two.
  std::size_t capacity() const { return slots_.size(); }

  void push_back(const T& item) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = item;
    ++size_;
  }
  // Requires !empty().
  const T& front() const { return slots_[head_]; }
  // Requires !empty().
  void pop_front() {
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }
  // Forgets the entries, keeps the storage.
  void clear() {
    head_ = 0;
    size_ = 0;
  }
  // The i-th entry from the front, i < size().
  const T& operator[](std::size_t i) const { return slots_[(head_ + i) & (slots_.size() - 1)]; }

 private:
  void grow() {
    constexpr std::size_t kFirstCapacity = 8;
    std::vector<T> grown(slots_.empty() ? kFirstCapacity : 2 * slots_.size());
    for (std::size_t i = 0; i < size_; ++i) grown[i] = (*this)[i];
    slots_.swap(grown);
    head_ = 0;
  }

  std::vector<T> slots_;  // size 0 or a power of two, so wrapping is a mask
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace drsim

#pragma once
// Counts the program's allocations, so that a benchmark can show what a run
// allocates (nothing per request, on the hot path). It replaces the global
// operator new and delete: include it in exactly one file of a program.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace drsim::bench {
inline std::atomic<std::uint64_t> allocations{0};
inline std::uint64_t allocations_so_far() { return allocations.load(std::memory_order_relaxed); }
}  // namespace drsim::bench

// Every allocation of the program goes through these (the array and sized
// forms call them).
void* operator new(std::size_t size) {
  drsim::bench::allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// GCC pairs the new-expressions it sees with these deletes and warns that
// free() does not match operator new; here operator new is malloc.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

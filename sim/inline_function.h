#pragma once
// A move-only, type-erased callable stored inline in a fixed buffer. The event
// queue keeps one per pending event, so scheduling never touches the heap: a
// callable that does not fit is a compile error, not a silent allocation.
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace drsim {

template <class Signature, std::size_t Capacity>
class InlineFunction;

template <class R, class... Args, std::size_t Capacity>
class InlineFunction<R(Args...), Capacity> {
 public:
  InlineFunction() noexcept = default;

  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, InlineFunction> && std::is_invocable_r_v<R, D&, Args...>>>
  InlineFunction(F&& f) noexcept(std::is_nothrow_constructible_v<D, F&&>) {  // NOLINT: implicit by design
    emplace(std::forward<F>(f));
  }

  // Destroys the held callable, if any, and builds f's in place: no
  // temporary InlineFunction to move from (the event queue builds handlers
  // straight into its slots). If building f throws, *this is left empty.
  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, InlineFunction> && std::is_invocable_r_v<R, D&, Args...>>>
  void emplace(F&& f) noexcept(std::is_nothrow_constructible_v<D, F&&>) {
    static_assert(sizeof(D) <= Capacity,
                  "callable too large for an event: capture a pointer or an index instead of objects");
    static_assert(alignof(D) <= alignof(std::max_align_t), "over-aligned callable");
    static_assert(std::is_nothrow_move_constructible_v<D>, "event callables must be nothrow-movable");
    reset();
    ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
    invoke_ = [](void* p, Args... args) -> R { return (*static_cast<D*>(p))(std::forward<Args>(args)...); };
    if constexpr (!std::is_trivially_copyable_v<D>) {
      manage_ = [](void* dst, void* src) noexcept {
        if (dst != nullptr) ::new (dst) D(std::move(*static_cast<D*>(src)));
        static_cast<D*>(src)->~D();
      };
    }
  }

  InlineFunction(InlineFunction&& other) noexcept { take(other); }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { reset(); }

  explicit operator bool() const noexcept { return invoke_ != nullptr; }

  R operator()(Args... args) { return invoke_(storage_, std::forward<Args>(args)...); }

  void reset() noexcept {
    if (manage_ != nullptr) manage_(nullptr, storage_);
    invoke_ = nullptr;
    manage_ = nullptr;
  }

 private:
  void take(InlineFunction& other) noexcept {
    if (other.manage_ != nullptr) {
      other.manage_(storage_, other.storage_);
    } else if (other.invoke_ != nullptr) {
      __builtin_memcpy(storage_, other.storage_, Capacity);
    }
    invoke_ = other.invoke_;
    manage_ = other.manage_;
    other.invoke_ = nullptr;
    other.manage_ = nullptr;
  }

  using Invoke = R (*)(void*, Args...);
  using Manage = void (*)(void* dst, void* src) noexcept;  // move into dst (if any), destroy src

  alignas(std::max_align_t) unsigned char storage_[Capacity];
  Invoke invoke_ = nullptr;
  Manage manage_ = nullptr;
};

}  // namespace drsim

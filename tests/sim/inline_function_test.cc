#include "sim/inline_function.h"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace drsim {
namespace {

using Fn = InlineFunction<void(), 48>;
using IntFn = InlineFunction<int(int), 32>;

// Counts live instances: constructions (including moves) minus destructions.
struct Tracker {
  static inline int live = 0;
  static inline int moves = 0;
  static void reset() { live = moves = 0; }

  int* calls;
  bool moved_from = false;
  explicit Tracker(int* c) : calls(c) { ++live; }
  Tracker(Tracker&& o) noexcept : calls(o.calls) {
    o.moved_from = true;
    ++live;
    ++moves;
  }
  Tracker(const Tracker&) = delete;
  Tracker& operator=(const Tracker&) = delete;
  ~Tracker() { --live; }
  void operator()() {
    EXPECT_FALSE(moved_from) << "called through a moved-from copy";
    ++*calls;
  }
};

static_assert(!std::is_copy_constructible_v<Fn>);
static_assert(!std::is_copy_assignable_v<Fn>);
static_assert(std::is_nothrow_move_constructible_v<Fn>);
static_assert(std::is_nothrow_move_assignable_v<Fn>);

TEST(InlineFunction, DefaultIsEmpty) {
  Fn f;
  EXPECT_FALSE(static_cast<bool>(f));
  f.reset();  // resetting an empty function is fine
  EXPECT_FALSE(static_cast<bool>(f));
}

TEST(InlineFunction, CallsTriviallyCopyableCallable) {
  int x = 0;
  Fn f([&x] { x += 2; });
  ASSERT_TRUE(static_cast<bool>(f));
  f();
  f();
  EXPECT_EQ(x, 4);
}

TEST(InlineFunction, PassesArgumentsAndReturnsValues) {
  IntFn twice([](int v) { return 2 * v; });
  EXPECT_EQ(twice(21), 42);
  const int offset = 5;
  IntFn add([offset](int v) { return v + offset; });
  EXPECT_EQ(add(1), 6);

  InlineFunction<std::string(std::string), 16> shout([](std::string s) { return s + "!"; });
  EXPECT_EQ(shout("hi"), "hi!");
  // Move-only argument types are forwarded.
  InlineFunction<int(std::unique_ptr<int>), 16> take([](std::unique_ptr<int> p) { return *p; });
  EXPECT_EQ(take(std::make_unique<int>(9)), 9);
}

TEST(InlineFunction, AcceptsFunctionPointers) {
  static int hits = 0;
  struct Local {
    static void bump() { ++hits; }
  };
  Fn f(&Local::bump);
  f();
  EXPECT_EQ(hits, 1);
}

TEST(InlineFunction, CallableMayFillTheWholeBuffer) {
  int seen = 0;
  struct Big {
    std::array<char, 40> data;
    int* out;
    void operator()() const { *out = data[39]; }
  };
  static_assert(sizeof(Big) == 48);
  Big big{};
  big.data[39] = 7;
  big.out = &seen;
  Fn f(big);
  Fn g(std::move(f));
  g();
  EXPECT_EQ(seen, 7);
}

TEST(InlineFunction, CallableIsMutable) {
  int observed = 0;
  Fn f([n = 0, &observed]() mutable { observed = ++n; });
  f();
  f();
  f();
  EXPECT_EQ(observed, 3);
}

TEST(InlineFunction, MoveConstructionTransfersTrivialCallable) {
  int x = 0;
  Fn a([&x] { ++x; });
  Fn b(std::move(a));
  EXPECT_FALSE(static_cast<bool>(a));  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  ASSERT_TRUE(static_cast<bool>(b));
  b();
  EXPECT_EQ(x, 1);
}

TEST(InlineFunction, MoveConstructionTransfersNonTrivialCallable) {
  auto token = std::make_shared<int>(0);
  Fn a([token] { ++*token; });
  EXPECT_EQ(token.use_count(), 2);
  Fn b(std::move(a));
  EXPECT_EQ(token.use_count(), 2);  // moved, not copied; the source was destroyed
  EXPECT_FALSE(static_cast<bool>(a));  // NOLINT(bugprone-use-after-move)
  b();
  EXPECT_EQ(*token, 1);
}

TEST(InlineFunction, MoveAssignmentDestroysOldTarget) {
  auto old_token = std::make_shared<int>(0);
  auto new_token = std::make_shared<int>(0);
  Fn a([old_token] {});
  Fn b([new_token] { ++*new_token; });
  a = std::move(b);
  EXPECT_EQ(old_token.use_count(), 1);
  EXPECT_EQ(new_token.use_count(), 2);
  EXPECT_FALSE(static_cast<bool>(b));  // NOLINT(bugprone-use-after-move)
  a();
  EXPECT_EQ(*new_token, 1);

  // Assigning an empty function empties the target.
  a = Fn();
  EXPECT_FALSE(static_cast<bool>(a));
  EXPECT_EQ(new_token.use_count(), 1);
}

TEST(InlineFunction, MoveAssignmentBetweenTrivialAndNonTrivial) {
  auto token = std::make_shared<int>(0);
  int x = 0;
  Fn trivial([&x] { ++x; });
  Fn nontrivial([token] {});
  trivial = std::move(nontrivial);
  EXPECT_EQ(token.use_count(), 2);
  Fn other([&x] { x += 10; });
  trivial = std::move(other);
  EXPECT_EQ(token.use_count(), 1);
  trivial();
  EXPECT_EQ(x, 10);
}

TEST(InlineFunction, SelfMoveAssignmentKeepsTarget) {
  auto token = std::make_shared<int>(0);
  Fn f([token] { ++*token; });
  Fn& same = f;
  f = std::move(same);
  ASSERT_TRUE(static_cast<bool>(f));
  f();
  EXPECT_EQ(*token, 1);
  EXPECT_EQ(token.use_count(), 2);
}

TEST(InlineFunction, ResetDestroysCallable) {
  auto token = std::make_shared<int>(0);
  Fn f([token] {});
  EXPECT_EQ(token.use_count(), 2);
  f.reset();
  EXPECT_FALSE(static_cast<bool>(f));
  EXPECT_EQ(token.use_count(), 1);
  f.reset();  // twice is harmless
  EXPECT_EQ(token.use_count(), 1);
}

TEST(InlineFunction, DestructorDestroysCallable) {
  auto token = std::make_shared<int>(0);
  {
    Fn f([token] {});
    EXPECT_EQ(token.use_count(), 2);
  }
  EXPECT_EQ(token.use_count(), 1);
}

TEST(InlineFunction, EveryInstanceDestroyedExactlyOnce) {
  Tracker::reset();
  int calls = 0;
  {
    Fn a{Tracker(&calls)};
    EXPECT_EQ(Tracker::live, 1);  // the temporary is gone; one lives in a
    Fn b(std::move(a));
    EXPECT_EQ(Tracker::live, 1);
    Fn c;
    c = std::move(b);
    EXPECT_EQ(Tracker::live, 1);
    c();
    EXPECT_EQ(calls, 1);
    Fn d{Tracker(&calls)};
    EXPECT_EQ(Tracker::live, 2);
    c = std::move(d);  // destroys c's old target
    EXPECT_EQ(Tracker::live, 1);
    c.reset();
    EXPECT_EQ(Tracker::live, 0);
    Fn e{Tracker(&calls)};
    EXPECT_EQ(Tracker::live, 1);
  }
  EXPECT_EQ(Tracker::live, 0);
  EXPECT_GT(Tracker::moves, 0);
}

TEST(InlineFunction, ManyMovesInAVector) {
  Tracker::reset();
  int calls = 0;
  {
    std::vector<Fn> fns;
    for (int i = 0; i < 100; ++i) fns.emplace_back(Tracker(&calls));  // reallocations move them
    EXPECT_EQ(Tracker::live, 100);
    for (auto& f : fns) f();
    EXPECT_EQ(calls, 100);
    fns.erase(fns.begin(), fns.begin() + 50);
    EXPECT_EQ(Tracker::live, 50);
  }
  EXPECT_EQ(Tracker::live, 0);
}

// emplace builds the callable in place: the old one is destroyed once, the
// new one is neither copied nor moved.
TEST(InlineFunction, EmplaceReplacesInPlace) {
  Tracker::reset();
  int first = 0, second = 0;
  {
    Fn f{Tracker(&first)};
    const int moves_before = Tracker::moves;
    f.emplace(Tracker(&second));  // one move: from the argument into the storage
    EXPECT_EQ(Tracker::live, 1);
    EXPECT_EQ(Tracker::moves, moves_before + 1);
    f();
    EXPECT_EQ(first, 0);
    EXPECT_EQ(second, 1);
  }
  EXPECT_EQ(Tracker::live, 0);
}

struct ThrowingCopy {
  ThrowingCopy() = default;
  ThrowingCopy(const ThrowingCopy&) { throw std::runtime_error("no copy"); }
  ThrowingCopy(ThrowingCopy&&) noexcept = default;
  void operator()() const {}
};

TEST(InlineFunction, EmplaceThatThrowsLeavesItEmpty) {
  Tracker::reset();
  int calls = 0;
  Fn f{Tracker(&calls)};
  const ThrowingCopy source;
  EXPECT_THROW(f.emplace(source), std::runtime_error);
  EXPECT_FALSE(static_cast<bool>(f));
  EXPECT_EQ(Tracker::live, 0);  // the old callable was destroyed, once
}

}  // namespace
}  // namespace drsim

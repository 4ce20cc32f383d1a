// The retry budget against Finagle's semantics: deposits per first attempt,
// a reserve, and forgetting after the window.
#include "models/service/retry_budget.h"

#include <gtest/gtest.h>

namespace drsim {
namespace {

using namespace std::chrono_literals;

RetryBudgetConfig budget(double ratio, double min_per_second, Duration window = 10s) {
  RetryBudgetConfig c;
  c.ratio = Ratio{ratio};
  c.min_per_second = min_per_second;
  c.window = window;
  return c;
}

TEST(RetryBudget, ReserveAloneAllowsMinPerSecondTimesWindow) {
  RetryBudget b(budget(0.2, 1, 10s));
  int allowed = 0;
  while (b.try_withdraw(SimTime{1s}) && allowed < 100) ++allowed;
  EXPECT_EQ(allowed, 10);  // 1 per second x 10 s
}

TEST(RetryBudget, TwentyPercentOfFirstAttemptsWithoutReserve) {
  RetryBudget b(budget(0.2, 0));
  for (int i = 0; i < 1000; ++i) b.deposit(SimTime{2s});
  int allowed = 0;
  while (b.try_withdraw(SimTime{2s}) && allowed < 1000) ++allowed;
  EXPECT_EQ(allowed, 200);
  EXPECT_DOUBLE_EQ(b.balance(SimTime{2s}), 0.0);
}

TEST(RetryBudget, NoTokenWithoutDepositsOrReserve) {
  RetryBudget b(budget(0.5, 0));
  EXPECT_FALSE(b.try_withdraw(SimTime{0s}));
  b.deposit(SimTime{0s});
  EXPECT_FALSE(b.try_withdraw(SimTime{0s}));  // half a token
  b.deposit(SimTime{0s});
  EXPECT_TRUE(b.try_withdraw(SimTime{0s}));
}

TEST(RetryBudget, DepositsAreForgottenAfterTheWindow) {
  RetryBudget b(budget(1.0, 0, 10s));
  for (int i = 0; i < 50; ++i) b.deposit(SimTime{0s});
  EXPECT_DOUBLE_EQ(b.balance(SimTime{9s}), 50.0);
  EXPECT_DOUBLE_EQ(b.balance(SimTime{10s}), 0.0);  // the slice of t = 0 fell out
  EXPECT_FALSE(b.try_withdraw(SimTime{10s}));
}

TEST(RetryBudget, WithdrawalsAreForgottenToo) {
  RetryBudget b(budget(0.0, 1, 10s));  // reserve of 10
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(b.try_withdraw(SimTime{0s}));
  EXPECT_FALSE(b.try_withdraw(SimTime{5s}));
  EXPECT_TRUE(b.try_withdraw(SimTime{10s}));  // the withdrawals of t = 0 expired
}

TEST(RetryBudget, ALongGapForgetsEverything) {
  RetryBudget b(budget(1.0, 0, 10s));
  for (int i = 0; i < 5; ++i) b.deposit(SimTime{3s});
  EXPECT_DOUBLE_EQ(b.balance(SimTime{1000s}), 0.0);
  b.deposit(SimTime{1000s});
  EXPECT_DOUBLE_EQ(b.balance(SimTime{1000s}), 1.0);
}

}  // namespace
}  // namespace drsim

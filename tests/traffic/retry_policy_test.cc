// Backoff with full jitter and the retryOn set.
#include "models/service/retry_policy.h"

#include <gtest/gtest.h>

#include <cmath>

namespace drsim {
namespace {

using namespace std::chrono_literals;

TEST(RetryPolicy, FullJitterStaysUnderTheDoublingCeilingAndItsMeanIsHalfOfIt) {
  RetryPolicyConfig c;
  c.attempts = 5;
  c.backoff.base = 100ms;
  c.backoff.max = 1s;
  const RetryPolicy policy(c);
  RngStream rng(7, "test");
  const Duration ceilings[] = {100ms, 200ms, 400ms, 800ms, 1s, 1s};
  for (std::uint32_t retry = 1; retry <= 6; ++retry) {
    const Duration ceiling = ceilings[retry - 1];
    double sum = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
      const Duration d = policy.backoff(retry, rng);
      ASSERT_GE(d, Duration::zero());
      ASSERT_LT(d, ceiling);
      sum += to_seconds(d);
    }
    // Uniform on [0, ceiling): mean ceiling / 2, standard error ceiling / sqrt(12 n).
    EXPECT_NEAR(sum / n, to_seconds(ceiling) / 2, 4 * to_seconds(ceiling) / std::sqrt(12.0 * n)) << retry;
  }
}

TEST(RetryPolicy, DefaultMaxIsTenTimesBase) {
  RetryPolicyConfig c;
  c.backoff.base = 25ms;
  const RetryPolicy policy(c);
  RngStream rng(1, "test");
  Duration largest{};
  for (int i = 0; i < 5000; ++i) largest = std::max(largest, policy.backoff(30, rng));
  EXPECT_LT(largest, 250ms);
  EXPECT_GT(largest, 240ms);
}

TEST(RetryPolicy, RetryOnSelectsFailures) {
  RetryPolicyConfig c;
  c.retry_on = {"refused", "timeout"};
  const RetryPolicy policy(c);
  EXPECT_TRUE(policy.retries(AttemptFailure::kRefused));
  EXPECT_TRUE(policy.retries(AttemptFailure::kTimeout));
  EXPECT_FALSE(policy.retries(AttemptFailure::kRejected));
  EXPECT_FALSE(policy.retries(AttemptFailure::kDependency));
}

TEST(RetryPolicy, ValidationNamesTheBadEntry) {
  RetryPolicyConfig c;
  c.retry_on = {"timeout", "5xx"};
  c.backoff.base = 100ms;
  c.backoff.max = 10ms;
  const auto problems = c.validate();
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].field, "retryOn[1]");
  EXPECT_EQ(problems[1].field, "backoff.max");
}

TEST(RetryPolicy, OutcomesMapToFailures) {
  EXPECT_FALSE(attempt_failure(ServeOutcome::kServed));
  EXPECT_EQ(attempt_failure(ServeOutcome::kRefused), AttemptFailure::kRefused);
  EXPECT_EQ(attempt_failure(ServeOutcome::kDependencyFailed), AttemptFailure::kDependency);
  EXPECT_STREQ(to_string(AttemptFailure::kNoTarget), "no_target");
}

}  // namespace
}  // namespace drsim

#pragma once
// How a caller (a client population, or a service calling another) retries a
// failed attempt: how many attempts in all, a timeout per attempt, which
// failures are worth another try, exponential backoff with full jitter
// between attempts (AWS Architecture Blog, "Exponential Backoff And Jitter":
// sleep = uniform(0, min(max, base x 2^retry))), and an optional retry
// budget. Defaults follow Envoy's retry policy (base 25 ms, max 10 x base).
//
// A retried attempt does not cancel the one before it on the server: a pod
// that already took the request still serves it and its answer is ignored.
// That is how retries amplify load on a struggling service, and why budgets
// exist.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "models/service/job.h"
#include "models/service/retry_budget.h"
#include "sim/fields.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace drsim {

// Why an attempt failed, as a caller sees it.
enum class AttemptFailure : std::uint8_t {
  kTimeout,     // the per-attempt timeout fired
  kRejected,    // a full queue said no
  kNoTarget,    // no pod to send it to
  kRefused,     // connection reset
  kDependency,  // the service's own call failed (a 5xx)
  kCount,
};
const char* to_string(AttemptFailure failure);
std::optional<AttemptFailure> attempt_failure_from_string(std::string_view name);
// kServed maps to nothing: it is not a failure.
std::optional<AttemptFailure> attempt_failure(ServeOutcome outcome);

struct BackoffConfig {
  Duration base = std::chrono::milliseconds(25);
  std::optional<Duration> max;  // default 10 x base

  static constexpr std::string_view kTypeName = "Backoff";
  static constexpr auto fields() {
    return std::tuple{
        field("base", &BackoffConfig::base, "Ceiling of the first wait; it doubles with every retry.",
              kNonNegative),
        field("max", &BackoffConfig::max, "Largest ceiling (default 10 x base).", kNonNegative),
    };
  }
};

struct RetryPolicyConfig {
  std::uint32_t attempts = 1;  // in all, the first included: 1 means no retries
  std::optional<Duration> per_try_timeout;
  BackoffConfig backoff;
  std::vector<std::string> retry_on = {"timeout", "rejected", "no_target", "refused", "dependency"};
  std::optional<RetryBudgetConfig> budget;

  static constexpr std::string_view kTypeName = "RetryPolicy";
  static constexpr auto fields() {
    return std::tuple{
        field("attempts", &RetryPolicyConfig::attempts, "Attempts in all, the first included (1: no retries).",
              kPositive),
        field("perTryTimeout", &RetryPolicyConfig::per_try_timeout,
              "Give up on one attempt after this long and retry (if attempts remain).", kPositive),
        field("backoff", &RetryPolicyConfig::backoff,
              "Wait before a retry: uniform between 0 and min(max, base x 2^(retry - 1)) (full jitter)."),
        field("retryOn", &RetryPolicyConfig::retry_on,
              "Failures worth another attempt: timeout (per try), rejected, no_target, refused, dependency."),
        field("budget", &RetryPolicyConfig::budget,
              "Cap retries at a share of first attempts (absent: every failure may use all its attempts)."),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

// The policy, resolved for use on the hot path.
class RetryPolicy {
 public:
  explicit RetryPolicy(const RetryPolicyConfig& config);

  std::uint32_t attempts() const { return attempts_; }
  const std::optional<Duration>& per_try_timeout() const { return per_try_timeout_; }
  bool retries(AttemptFailure failure) const { return (retry_on_ >> static_cast<unsigned>(failure)) & 1u; }
  // The wait before retry number `retry` (1 for the first retry).
  Duration backoff(std::uint32_t retry, RngStream& rng) const;

 private:
  std::uint32_t attempts_;
  std::optional<Duration> per_try_timeout_;
  Duration base_;
  Duration max_;
  std::uint32_t retry_on_ = 0;  // bit per AttemptFailure
};

}  // namespace drsim

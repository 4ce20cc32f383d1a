#include "models/service/retry_policy.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/errors.h"

namespace drsim {

namespace {
constexpr std::array<const char*, static_cast<std::size_t>(AttemptFailure::kCount)> kFailureNames{
    "timeout", "rejected", "no_target", "refused", "dependency"};
}  // namespace

const char* to_string(AttemptFailure failure) {
  const auto i = static_cast<std::size_t>(failure);
  return i < kFailureNames.size() ? kFailureNames[i] : "unknown";
}

std::optional<AttemptFailure> attempt_failure_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kFailureNames.size(); ++i) {
    if (name == kFailureNames[i]) return static_cast<AttemptFailure>(i);
  }
  return std::nullopt;
}

std::optional<AttemptFailure> attempt_failure(ServeOutcome outcome) {
  switch (outcome) {
    case ServeOutcome::kServed: return std::nullopt;
    case ServeOutcome::kRejected: return AttemptFailure::kRejected;
    case ServeOutcome::kNoTarget: return AttemptFailure::kNoTarget;
    case ServeOutcome::kRefused: return AttemptFailure::kRefused;
    case ServeOutcome::kDependencyFailed: return AttemptFailure::kDependency;
    // A balancer's 502/504 is a 5xx to the caller; a connect that timed out is a timeout.
    case ServeOutcome::kGatewayError: return AttemptFailure::kDependency;
    case ServeOutcome::kConnectTimeout: return AttemptFailure::kTimeout;
    case ServeOutcome::kDeadlineExceeded: return AttemptFailure::kTimeout;
  }
  return std::nullopt;
}

std::vector<ConfigProblem> RetryPolicyConfig::validate() const {
  std::vector<ConfigProblem> problems;
  for (std::size_t i = 0; i < retry_on.size(); ++i) {
    if (!attempt_failure_from_string(retry_on[i])) {
      problems.push_back({"retryOn[" + std::to_string(i) + "]",
                          "expected one of timeout, rejected, no_target, refused, dependency, got \"" +
                              retry_on[i] + "\""});
    }
  }
  if (backoff.max && *backoff.max < backoff.base) {
    problems.push_back({"backoff.max", "expected a duration of at least backoff.base"});
  }
  return problems;
}

RetryPolicy::RetryPolicy(const RetryPolicyConfig& config)
    : attempts_(config.attempts),
      per_try_timeout_(config.per_try_timeout),
      base_(config.backoff.base),
      max_(config.backoff.max.value_or(config.backoff.base * 10)) {
  for (const std::string& name : config.retry_on) {
    const auto failure = attempt_failure_from_string(name);
    if (!failure) throw SimulationError("retryOn: unknown failure \"" + name + "\"");
    retry_on_ |= 1u << static_cast<unsigned>(*failure);
  }
}

Duration RetryPolicy::backoff(std::uint32_t retry, RngStream& rng) const {
  if (base_ <= Duration::zero()) return Duration::zero();
  // base x 2^(retry - 1), saturating at max without overflowing.
  Duration ceiling = base_;
  for (std::uint32_t k = 1; k < retry && ceiling < max_; ++k) ceiling *= 2;
  ceiling = std::min(ceiling, max_);
  return Duration{static_cast<std::int64_t>(std::floor(rng.uniform() * static_cast<double>(ceiling.count())))};
}

}  // namespace drsim

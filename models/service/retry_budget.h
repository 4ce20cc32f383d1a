#pragma once
// A retry budget, as Finagle's RetryBudget: every first attempt deposits
// `ratio` of a token, every retry withdraws a whole one, and deposits and
// withdrawals are forgotten after `window` (a leaky bucket of ten slices), so
// retries stay a bounded share of recent traffic however many attempts a
// policy allows. A reserve of `min_per_second` x window tokens lets a quiet
// client retry at all. Without a budget a retry storm multiplies the load on
// a struggling service by the attempt count; with one it is capped at
// (1 + ratio).
//
// Tokens are counted in thousandths, exactly, so the budget is deterministic
// and does not drift.
#include <array>
#include <cstdint>
#include <string_view>
#include <tuple>

#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

struct RetryBudgetConfig {
  Ratio ratio{0.2};          // retries allowed per first attempt
  double min_per_second = 10;  // reserve for low traffic
  Duration window = std::chrono::seconds(10);

  static constexpr std::string_view kTypeName = "RetryBudget";
  static constexpr auto fields() {
    return std::tuple{
        field("ratio", &RetryBudgetConfig::ratio,
              "Retries allowed as a share of first attempts over the window (Finagle's percentCanRetry).",
              kNonNegative),
        field("minPerSecond", &RetryBudgetConfig::min_per_second,
              "Retries always allowed per second of the window, however little traffic there is.",
              kNonNegative),
        field("window", &RetryBudgetConfig::window, "How long deposits and withdrawals are remembered.",
              kPositive),
    };
  }
};

class RetryBudget {
 public:
  explicit RetryBudget(const RetryBudgetConfig& config);

  // A first attempt was sent at t.
  void deposit(SimTime t);
  // A retry wants to go at t: true (and one token is spent) if the budget allows.
  bool try_withdraw(SimTime t);
  // Tokens available at t, in whole tokens (for tests and reports).
  double balance(SimTime t);

 private:
  static constexpr int kSlices = 10;
  static constexpr std::int64_t kScale = 1000;  // thousandths of a token

  // Moves the window to t, forgetting slices that fell out of it.
  void advance(SimTime t);
  std::int64_t net() const;

  std::int64_t deposit_per_attempt_;
  std::int64_t reserve_;
  Duration slice_width_;
  std::array<std::int64_t, kSlices> slices_{};
  std::int64_t current_slice_ = 0;  // index (time / slice width) of the newest slice
};

}  // namespace drsim

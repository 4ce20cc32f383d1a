// Checked against published tables and textbook examples, not against our
// own algebra: Erlang B table values, and the worked M/M/c examples of
// Kleinrock / Gross & Harris.
#include "analysis/queueing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace drsim {
namespace {

using namespace std::chrono_literals;

TEST(ErlangB, MatchesPublishedTableValues) {
  // Standard Erlang B table: offered load giving a blocking probability.
  // c = 10 at 1% blocking: 4.461 Erlangs; c = 5 at 1%: 1.361; c = 20 at 1%: 12.031.
  EXPECT_NEAR(erlang_b(10, 4.461), 0.01, 2e-5);
  EXPECT_NEAR(erlang_b(5, 1.361), 0.01, 2e-5);
  EXPECT_NEAR(erlang_b(20, 12.031), 0.01, 2e-5);
  // c = 1: B = a / (1 + a).
  EXPECT_DOUBLE_EQ(erlang_b(1, 3.0), 0.75);
  EXPECT_DOUBLE_EQ(erlang_b(0, 3.0), 1.0);
}

TEST(ErlangB, StaysFiniteForLargeSystems) {
  const double b = erlang_b(5000, 4800);
  EXPECT_GT(b, 0);
  EXPECT_LT(b, 0.01);
}

TEST(ErlangC, SingleServerIsRho) {
  // M/M/1: P(wait) = rho.
  EXPECT_NEAR(erlang_c(1, 0.7), 0.7, 1e-12);
}

TEST(ErlangC, TwoServerClosedForm) {
  // M/M/2: P(wait) = 2 rho^2 / (1 + rho), rho = a / 2.
  const double a = 1.5, rho = a / 2;
  EXPECT_NEAR(erlang_c(2, a), 2 * rho * rho / (1 + rho), 1e-12);
}

TEST(ErlangC, RejectsUnstableLoad) { EXPECT_THROW(erlang_c(4, 4.0), std::invalid_argument); }

TEST(MmcMetrics, MM1TextbookExample) {
  // lambda = 8/s, mean service 100 ms (mu = 10/s): rho 0.8, W = 1/(mu - lambda) = 500 ms,
  // Wq = rho/(mu - lambda) = 400 ms, L = 4, Lq = 3.2.
  const auto m = mmc_metrics(Rate{8}, 100ms, 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_DOUBLE_EQ(m->utilization, 0.8);
  EXPECT_EQ(m->mean_response, 500ms);
  EXPECT_EQ(m->mean_wait, 400ms);
  EXPECT_NEAR(m->mean_in_system, 4.0, 1e-9);
  EXPECT_NEAR(m->mean_queue_length, 3.2, 1e-9);
}

TEST(MmcMetrics, LittleLawHoldsAcrossLoads) {
  for (double lambda : {10.0, 50.0, 95.0}) {
    const auto m = mmc_metrics(Rate{lambda}, 100ms, 10);
    ASSERT_TRUE(m.has_value());
    EXPECT_NEAR(m->mean_in_system, lambda * to_seconds(m->mean_response), 1e-6);
    EXPECT_NEAR(m->mean_in_system - m->mean_queue_length, lambda * 0.1, 1e-9);  // busy servers = a
  }
}

TEST(MmcMetrics, UnstableIsNullopt) { EXPECT_FALSE(mmc_metrics(Rate{100}, 100ms, 10).has_value()); }

TEST(MmckMetrics, LossSystemIsErlangB) {
  const auto m = mmck_metrics(Rate{44.61}, 100ms, 10, 10);
  EXPECT_NEAR(m.blocking_probability, erlang_b(10, 4.461), 1e-12);
  EXPECT_EQ(m.mean_wait, 0ns);
}

TEST(MmckMetrics, SingleServerFiniteBufferClosedForm) {
  // M/M/1/K: P(block) = (1 - rho) rho^K / (1 - rho^(K+1)).
  const double rho = 0.9;
  const std::size_t k = 5;
  const auto m = mmck_metrics(Rate{9}, 100ms, 1, k);
  const double expected = (1 - rho) * std::pow(rho, k) / (1 - std::pow(rho, k + 1));
  EXPECT_NEAR(m.blocking_probability, expected, 1e-12);
  EXPECT_NEAR(m.throughput_per_s, 9 * (1 - expected), 1e-9);
}

TEST(MmckMetrics, ApproachesMmcAsCapacityGrows) {
  const auto open = mmc_metrics(Rate{90}, 100ms, 10);
  const auto bounded = mmck_metrics(Rate{90}, 100ms, 10, 2000);
  ASSERT_TRUE(open.has_value());
  EXPECT_NEAR(bounded.wait_probability, open->wait_probability, 1e-9);
  EXPECT_NEAR(to_seconds(bounded.mean_wait), to_seconds(open->mean_wait), 1e-6);
}

// --- Zone affinity's gated queue ----------------------------------------------

TEST(GatedQueue, WithoutAQueuedStreamTheOverflowIsErlangB) {
  // 4.461 E offered to 10 servers that only take a request while one is idle.
  const auto m = gated_queue_metrics(Rate{44.61}, Rate{0}, 100ms, 10, std::nullopt);
  ASSERT_TRUE(m.has_value());
  EXPECT_NEAR(m->overflow, erlang_b(10, 4.461), 1e-12);
  EXPECT_NEAR(m->overflow, 0.01, 2e-5);  // the published table
  EXPECT_NEAR(m->queue.throughput_per_s, 44.61 * (1 - m->overflow), 1e-9);
  EXPECT_NEAR(m->queue.utilization, 4.461 * (1 - m->overflow) / 10, 1e-12);
  EXPECT_EQ(m->queue.mean_wait, 0ns);
  EXPECT_EQ(m->queue.mean_response, 100ms);
}

TEST(GatedQueue, WithoutAGatedStreamItIsMmc) {
  const auto m = gated_queue_metrics(Rate{0}, Rate{30}, 100ms, 4, std::nullopt);
  const auto mmc = mmc_metrics(Rate{30}, 100ms, 4);
  ASSERT_TRUE(m && mmc);
  EXPECT_NEAR(m->queue.wait_probability, mmc->wait_probability, 1e-12);
  EXPECT_NEAR(m->overflow, mmc->wait_probability, 1e-12);  // P(all busy), by PASTA
  EXPECT_NEAR(m->queue.mean_in_system, mmc->mean_in_system, 1e-12);
  EXPECT_NEAR(to_seconds(m->queue.mean_wait), to_seconds(mmc->mean_wait), 1e-9);
  // With a waiting room it is M/M/c/K.
  const auto bounded = gated_queue_metrics(Rate{0}, Rate{45}, 100ms, 4, 3);
  const QueueMetrics mmck = mmck_metrics(Rate{45}, 100ms, 4, 7);
  EXPECT_NEAR(bounded->queue.blocking_probability, mmck.blocking_probability, 1e-12);
  EXPECT_NEAR(bounded->queue.mean_in_system, mmck.mean_in_system, 1e-12);
  EXPECT_NEAR(bounded->queue.throughput_per_s, mmck.throughput_per_s, 1e-9);
  EXPECT_FALSE(gated_queue_metrics(Rate{5}, Rate{40}, 100ms, 4, std::nullopt).has_value());
}

TEST(GatedQueue, OneServerByHand) {
  // c = 1, mu = 4; gated 2 and queued 1 per second. p1/p0 = 3/4, then ratio
  // 1/4: P(n >= 1) = 0.75 x 4/3 / (1 + 0.75 x 4/3) = 1/2. Only the queued
  // stream waits: Lq = p1 x (1/4) / (3/4)^2 = 0.375 x 4/9 = 1/6.
  const auto m = gated_queue_metrics(Rate{2}, Rate{1}, 250ms, 1, std::nullopt);
  ASSERT_TRUE(m.has_value());
  EXPECT_NEAR(m->overflow, 0.5, 1e-12);
  EXPECT_NEAR(m->queue.throughput_per_s, 2 * 0.5 + 1, 1e-12);
  EXPECT_NEAR(m->queue.utilization, 0.5, 1e-12);
  EXPECT_NEAR(m->queue.mean_queue_length, 1.0 / 6, 1e-12);
  EXPECT_NEAR(to_seconds(m->queue.mean_wait), 1.0 / 12, 1e-9);
  EXPECT_NEAR(m->queue.wait_probability, 0.5 / 2, 1e-12);  // the queued third of the joins, half of them wait
}

// --- Large server counts ------------------------------------------------------
// A service's concurrency may be 2^32 - 1. Beyond a few thousand servers the
// formulas change method (analysis/queueing.h); the two sides must agree
// where they meet, and the large side must match values computed
// independently at 50 digits.

// |x - y| within `tolerance` of the larger (exact zeros compare equal).
::testing::AssertionResult relatively_near(double x, double y, double tolerance) {
  const double scale = std::max(std::abs(x), std::abs(y));
  if (scale == 0 || std::abs(x - y) <= tolerance * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << x << " vs " << y << " (relative " << std::abs(x - y) / scale << ")";
}

const double kLoads[] = {0.01, 0.5, 0.9, 0.97, 0.99, 0.999, 1.0, 1.001, 1.01, 1.1, 1.5, 2.0, 10.0};

TEST(ErlangBLarge, TheTwoMethodsAgreeAtTheCrossover) {
  using namespace queueing_detail;
  for (std::size_t c : {kRecurrenceServers, kRecurrenceServers + 1, std::size_t{20}, std::size_t{300}}) {
    for (double load : kLoads) {
      const double a = load * static_cast<double>(c);
      EXPECT_TRUE(relatively_near(erlang_b_by_recurrence(c, a), erlang_b_by_incomplete_gamma(c, a), 1e-9))
          << "c = " << c << ", a = " << a;
    }
  }
  // erlang_b() switches between them there.
  EXPECT_EQ(erlang_b(kRecurrenceServers, 4000), erlang_b_by_recurrence(kRecurrenceServers, 4000));
  EXPECT_EQ(erlang_b(kRecurrenceServers + 1, 4000), erlang_b_by_incomplete_gamma(kRecurrenceServers + 1, 4000));
}

TEST(ErlangBLarge, MatchesFiftyDigitValues) {
  // B = a^c e^-a / c! / Q(c + 1, a), evaluated with mpmath at 50 digits
  // (mp.gammainc(c + 1, a, mp.inf, regularized=True)).
  struct Case {
    std::size_t c;
    double a;
    double b;
  };
  const Case cases[] = {
      {4294967295, 4294967295.0, 0.000012174653395105261192},
      {4294967295, 4294537798.2705, 2.8668524904557301195e-15},
      {4294967295, 4299262262.294999, 0.00099923348875231652091},
      {100000000, 100000000.0, 0.000079784212107732472933},
      {1000000, 1050000.0, 0.047638079270955075165},  // where Q(c + 1, a) underflows: the series
      {1000000, 990000.0, 5.4995431265267091859e-26},
      {5000, 4800.0, 0.000092758413396951000811},
      {100000, 200000.0, 0.50000499980001599812},
  };
  for (const Case& k : cases) EXPECT_TRUE(relatively_near(erlang_b(k.c, k.a), k.b, 1e-9)) << k.c << " " << k.a;
  // Far below capacity the blocking is below the smallest double: exactly 0.
  EXPECT_EQ(erlang_b(4294967295, 0.5 * 4294967295.0), 0.0);
  EXPECT_EQ(erlang_b(4294967295, 0.0), 0.0);
}

TEST(ErlangBLarge, HugeConcurrencyAtModerateLoadNeverWaits) {
  // 4e9 workers at half load: the wait is 0 to double precision, and
  // computing it does not take a step per worker.
  const auto m = mmc_metrics(Rate{2e9}, 1s, 4000000000);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->wait_probability, 0.0);
  EXPECT_EQ(m->mean_wait, 0ns);
  EXPECT_DOUBLE_EQ(m->utilization, 0.5);
  EXPECT_DOUBLE_EQ(m->mean_in_system, 2e9);
}

void expect_same_metrics(const QueueMetrics& x, const QueueMetrics& y, double tolerance) {
  EXPECT_TRUE(relatively_near(x.utilization, y.utilization, tolerance));
  EXPECT_TRUE(relatively_near(x.wait_probability, y.wait_probability, tolerance));
  EXPECT_TRUE(relatively_near(x.blocking_probability, y.blocking_probability, tolerance));
  EXPECT_TRUE(relatively_near(x.throughput_per_s, y.throughput_per_s, tolerance));
  EXPECT_TRUE(relatively_near(x.mean_queue_length, y.mean_queue_length, tolerance));
  EXPECT_TRUE(relatively_near(x.mean_in_system, y.mean_in_system, tolerance));
  // Durations are whole nanoseconds: one apart at most.
  EXPECT_LE(std::abs((x.mean_wait - y.mean_wait).count()), 1);
  EXPECT_LE(std::abs((x.mean_response - y.mean_response).count()), 1);
}

TEST(MmckLarge, StateSumsAndClosedFormsAgree) {
  using namespace queueing_detail;
  struct Shape {
    std::size_t c, k;
  };
  // Shapes around the crossover (kDirectStates states) and small ones.
  const Shape shapes[] = {{1, 1},      {1, 7},     {4, 4},      {4, 60},   {10, 2000},
                          {600, 4095}, {600, 600}, {100, 4095}, {1, 4095}, {4000, 4095}};
  int compared = 0;
  for (const Shape& shape : shapes) {
    for (double load : kLoads) {
      const double a = load * static_cast<double>(shape.c);
      SCOPED_TRACE(::testing::Message() << "c = " << shape.c << ", K = " << shape.k << ", a = " << a);
      const QueueMetrics closed = mmck_metrics_closed_form(Rate{a * 10}, 100ms, shape.c, shape.k);
      const QueueMetrics states = mmck_metrics_by_states(Rate{a * 10}, 100ms, shape.c, shape.k);
      if (std::isfinite(states.mean_in_system)) {
        expect_same_metrics(states, closed, 1e-9);
        ++compared;
      } else {
        // The state sums overflow (past ~700 Erlangs, or rho^(K - c) beyond
        // the doubles): mmck_metrics() takes the closed forms there.
        EXPECT_TRUE(std::isfinite(closed.mean_in_system));
        expect_same_metrics(mmck_metrics(Rate{a * 10}, 100ms, shape.c, shape.k), closed, 0);
      }
    }
  }
  EXPECT_GT(compared, 80);
}

TEST(MmckLarge, TheLargestConcurrencyWithAQueueLimit) {
  // concurrency 2^32 - 1 and queueLimit 100: K = c + 100 needs 64 bits.
  const std::size_t c = 4294967295;
  const QueueMetrics half = mmck_metrics(Rate{0.5 * 4294967295.0}, 1s, c, c + 100);
  EXPECT_EQ(half.blocking_probability, 0.0);
  EXPECT_DOUBLE_EQ(half.utilization, 0.5);
  EXPECT_EQ(half.mean_wait, 0ns);
  // Twice the capacity: the servers are all busy and half the arrivals are
  // turned away (throughput c mu), to within the queue's 100 places.
  const QueueMetrics twice = mmck_metrics(Rate{2 * 4294967295.0}, 1s, c, c + 100);
  EXPECT_NEAR(twice.blocking_probability, 0.5, 1e-7);
  EXPECT_NEAR(twice.utilization, 1.0, 1e-7);
  // The queue is full less a geometric tail of ratio 1/2: 100 - (1/2) / (1 - 1/2).
  EXPECT_NEAR(twice.mean_queue_length, 99, 1e-6);
  // A queue limit as large as the concurrency.
  const QueueMetrics deep = mmck_metrics(Rate{0.999 * 4294967295.0}, 1s, c, 2 * c);
  const auto open = mmc_metrics(Rate{0.999 * 4294967295.0}, 1s, c);
  ASSERT_TRUE(open.has_value());
  EXPECT_TRUE(relatively_near(deep.wait_probability, open->wait_probability, 1e-9));
}

TEST(GatedQueueLarge, StateSumsAndClosedFormsAgree) {
  using namespace queueing_detail;
  for (std::size_t c : {std::size_t{1}, std::size_t{8}, std::size_t{4000}}) {
    for (std::optional<std::size_t> room : {std::optional<std::size_t>{}, std::optional<std::size_t>{0},
                                            std::optional<std::size_t>{5}, std::optional<std::size_t>{95}}) {
      for (double load : kLoads) {
        const double rate = load * static_cast<double>(c) * 10;  // 100 ms each
        SCOPED_TRACE(::testing::Message() << "c = " << c << ", room = " << room.value_or(999) << ", load " << load);
        const auto x = gated_queue_metrics_by_states(Rate{rate * 0.4}, Rate{rate * 0.6}, 100ms, c, room);
        const auto y = gated_queue_metrics_closed_form(Rate{rate * 0.4}, Rate{rate * 0.6}, 100ms, c, room);
        ASSERT_EQ(x.has_value(), y.has_value());
        if (!x) continue;
        EXPECT_TRUE(relatively_near(x->overflow, y->overflow, 1e-9));
        expect_same_metrics(x->queue, y->queue, 1e-9);
      }
    }
  }
  // Concurrency 2^32 - 1: half the load, the gated stream always finds an idle worker.
  const auto huge = gated_queue_metrics(Rate{1e9}, Rate{1e9}, 1s, 4294967295, 100);
  ASSERT_TRUE(huge.has_value());
  EXPECT_EQ(huge->overflow, 0.0);
  EXPECT_NEAR(huge->queue.utilization, 2e9 / 4294967295.0, 1e-12);
}

}  // namespace
}  // namespace drsim

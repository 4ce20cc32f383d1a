// Checked against published tables and textbook examples, not against our
// own algebra: Erlang B table values, and the worked M/M/c examples of
// Kleinrock / Gross & Harris.
#include "analysis/queueing.h"

#include <gtest/gtest.h>

#include <cmath>

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

}  // namespace
}  // namespace drsim

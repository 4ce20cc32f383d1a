// Traffic equations checked against rates solved by hand (flow balance at
// each node), not against the solver's own algebra.
#include "analysis/traffic_equations.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace drsim {
namespace {

TrafficProblem make(std::vector<double> gamma, std::vector<ExpectedCall> calls, std::vector<std::string> names = {}) {
  TrafficProblem p;
  for (double g : gamma) p.external.push_back(Rate{g});
  p.calls = std::move(calls);
  p.names = std::move(names);
  return p;
}

TEST(TrafficEquations, TandemCarriesTheSameRateEverywhere) {
  // A -> B -> C, 10 rps in at A.
  const auto s = solve_traffic_equations(make({10, 0, 0}, {{0, 1, 1}, {1, 2, 1}}));
  ASSERT_TRUE(s.ok()) << s.error;
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(s.arrivals[i].per_second, 10.0, 1e-12);
  ASSERT_EQ(s.entry_points, std::vector<std::size_t>{0});
  EXPECT_EQ(s.visits_from(0), (std::vector<double>{1, 1, 1}));
}

TEST(TrafficEquations, VisitsCanBeSkippedWithoutChangingTheRates) {
  // drsim check's cases skip the solve per entry point (entry points x nodes
  // numbers: thousands of zones each fed by a population made it quadratic).
  TrafficProblem p = make({10, 20, 0}, {{0, 2, 1}, {1, 2, 0.5}, {2, 0, 0.25}});
  const auto with = solve_traffic_equations(p);
  p.visits = false;
  const auto without = solve_traffic_equations(p);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(with.visits.size(), 2u);
  EXPECT_TRUE(without.visits.empty());
  EXPECT_EQ(without.entry_points, with.entry_points);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(without.arrivals[i].per_second, with.arrivals[i].per_second);
}

TEST(TrafficEquations, FanOutCountsMultiply) {
  // A calls B twice (given as two entries of one call each) and C once.
  const auto s = solve_traffic_equations(make({5, 0, 0}, {{0, 1, 1}, {0, 1, 1}, {0, 2, 1}}));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_NEAR(s.arrivals[0].per_second, 5.0, 1e-12);
  EXPECT_NEAR(s.arrivals[1].per_second, 10.0, 1e-12);
  EXPECT_NEAR(s.arrivals[2].per_second, 5.0, 1e-12);
  EXPECT_NEAR(s.visits_from(0)[1], 2.0, 1e-12);
}

TEST(TrafficEquations, FeedbackLoopDividesByOneMinusP) {
  // Jackson's single-node feedback queue: after service a request returns
  // with probability p = 0.25, so lambda = gamma / (1 - p).
  const auto s = solve_traffic_equations(make({3, 0}, {{0, 0, 0.25}, {0, 1, 0.75}}));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_NEAR(s.arrivals[0].per_second, 3.0 / 0.75, 1e-12);
  EXPECT_NEAR(s.arrivals[1].per_second, 3.0, 1e-12);
  EXPECT_NEAR(s.visits_from(0)[0], 1.0 / 0.75, 1e-12);
}

TEST(TrafficEquations, ThreeNodeNetworkWithRevisits) {
  // gamma = (1, 0, 0); 1 -> 2 and 1 -> 3 with 0.5 each; 2 -> 1 with 0.2.
  // Balance: l1 = 1 + 0.2 l2, l2 = 0.5 l1, l3 = 0.5 l1  =>  l1 = 1 / 0.9.
  const auto s = solve_traffic_equations(make({1, 0, 0}, {{0, 1, 0.5}, {0, 2, 0.5}, {1, 0, 0.2}}));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_NEAR(s.arrivals[0].per_second, 1 / 0.9, 1e-12);
  EXPECT_NEAR(s.arrivals[1].per_second, 0.5 / 0.9, 1e-12);
  EXPECT_NEAR(s.arrivals[2].per_second, 0.5 / 0.9, 1e-12);
}

TEST(TrafficEquations, MultipleEntryPointsAddUp) {
  // A (3 rps) calls C once, B (4 rps) calls C twice: lambda_C = 3 + 8.
  const auto s = solve_traffic_equations(make({3, 4, 0}, {{0, 2, 1}, {1, 2, 2}}));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_NEAR(s.arrivals[2].per_second, 11.0, 1e-12);
  EXPECT_EQ(s.entry_points, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(s.visits_from(0), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(s.visits_from(1), (std::vector<double>{0, 1, 2}));
  EXPECT_THROW(s.visits_from(2), std::out_of_range);
}

TEST(TrafficEquations, LongRingWithLeakage) {
  // 300 nodes in a ring, each forwarding with probability q to the next:
  // lambda_k = q^k / (1 - q^n) for one request per second entering at node 0.
  const int n = 300;
  const double q = 0.99;
  std::vector<double> gamma(n, 0.0);
  gamma[0] = 1;
  std::vector<ExpectedCall> calls;
  for (int k = 0; k < n; ++k) calls.push_back({static_cast<std::size_t>(k), static_cast<std::size_t>((k + 1) % n), q});
  const auto s = solve_traffic_equations(make(gamma, calls));
  ASSERT_TRUE(s.ok()) << s.error;
  for (int k = 0; k < n; k += 37) {
    EXPECT_NEAR(s.arrivals[k].per_second, std::pow(q, k) / (1 - std::pow(q, n)), 1e-10) << k;
  }
}

TEST(TrafficEquations, GainJustBelowOneIsStillSolved) {
  // A <-> B with gains 1 and 0.999: lambda_A = 1 / (1 - 0.999).
  const auto s = solve_traffic_equations(make({1, 0}, {{0, 1, 1}, {1, 0, 0.999}}));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_NEAR(s.arrivals[0].per_second, 1000.0, 1e-6);
}

TEST(TrafficEquations, MutualCallsOnceEachAreRejected) {
  const auto s = solve_traffic_equations(make({1, 0, 0}, {{0, 1, 1}, {1, 2, 1}, {2, 1, 1}}, {"front", "a", "b"}));
  EXPECT_EQ(s.status, TrafficStatus::kUnboundedCycle);
  EXPECT_TRUE(s.arrivals.empty());
  EXPECT_EQ(s.error,
            "call cycle through {a, b} has spectral radius 1 (must be below 1): every request entering it causes "
            "unbounded calls, so the traffic equations have no non-negative solution");
}

TEST(TrafficEquations, AmplifyingCycleReportsItsSpectralRadius) {
  // A calls B twice, B calls A once: P has eigenvalues +-sqrt(2).
  const auto s = solve_traffic_equations(make({1, 0}, {{0, 1, 2}, {1, 0, 1}}));
  EXPECT_EQ(s.status, TrafficStatus::kUnboundedCycle);
  EXPECT_NE(s.error.find("{node 0, node 1} has spectral radius 1.414"), std::string::npos) << s.error;
  // A self-call 1.5 times per request.
  const auto self = solve_traffic_equations(make({1}, {{0, 0, 1.5}}, {"retry"}));
  EXPECT_EQ(self.status, TrafficStatus::kUnboundedCycle);
  EXPECT_NE(self.error.find("{retry} has spectral radius 1.5"), std::string::npos) << self.error;
}

TEST(TrafficEquations, OnlyTheUnboundedCycleIsNamed) {
  // a <-> b with gain 0.5 (fine), then b -> c, and c calls itself twice.
  const auto s =
      solve_traffic_equations(make({1, 0, 0}, {{0, 1, 1}, {1, 0, 0.5}, {1, 2, 1}, {2, 2, 2}}, {"a", "b", "c"}));
  EXPECT_EQ(s.status, TrafficStatus::kUnboundedCycle);
  EXPECT_NE(s.error.find("call cycle through {c} has spectral radius 2 "), std::string::npos) << s.error;
}

TEST(TrafficEquations, CycleThatNoTrafficReachesIsHarmless) {
  const auto s = solve_traffic_equations(make({2, 0, 0, 0}, {{0, 1, 1}, {2, 3, 1}, {3, 2, 1}}));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.arrivals, (std::vector<Rate>{Rate{2}, Rate{2}, Rate{0}, Rate{0}}));
}

TEST(TrafficEquations, NoTrafficGivesZeros) {
  const auto s = solve_traffic_equations(make({0, 0}, {{0, 1, 1}}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.arrivals, (std::vector<Rate>{Rate{0}, Rate{0}}));
  EXPECT_TRUE(s.entry_points.empty());
}

TEST(TrafficEquations, MalformedInputThrows) {
  EXPECT_THROW(solve_traffic_equations(make({1, 0}, {{0, 2, 1}})), std::invalid_argument);
  EXPECT_THROW(solve_traffic_equations(make({1, 0}, {{0, 1, -1}})), std::invalid_argument);
  EXPECT_THROW(solve_traffic_equations(make({-1, 0}, {})), std::invalid_argument);
  EXPECT_THROW(solve_traffic_equations(make({1, 0}, {}, {"only one"})), std::invalid_argument);
}

}  // namespace
}  // namespace drsim

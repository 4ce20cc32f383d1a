// Capacity check against ground truth computed here by hand: the M/M/1 and
// M/M/1/K closed forms, Jackson's theorem for tandem and feedback networks,
// harmonic numbers for the max of iid exponentials, and Monte Carlo for the
// max of independent shifted exponentials.
#include "analysis/capacity_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/rng.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

double secs(Duration d) { return to_seconds(d); }
double secs(std::optional<Duration> d) { return d ? to_seconds(*d) : NAN; }

// M/M/1/K blocking by the textbook formula (1 - rho) rho^K / (1 - rho^(K+1)).
double mm1k_blocking(double rho, int k) { return (1 - rho) * std::pow(rho, k) / (1 - std::pow(rho, k + 1)); }

TEST(CapacityCheck, SingleNodeEqualsMmc) {
  CallGraph g;
  g.add_node("api");
  const std::vector<Station> st{{.servers = 3, .mean_service = 100ms}};
  const std::vector<Rate> ext{Rate{25}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  const auto expect = mmc_metrics(Rate{25}, 100ms, 3);
  const NodeCapacity& n = r.nodes[0];
  ASSERT_TRUE(n.queue && expect);
  EXPECT_EQ(n.name, "api");
  EXPECT_DOUBLE_EQ(n.queue->wait_probability, expect->wait_probability);
  EXPECT_EQ(n.queue->mean_wait, expect->mean_wait);
  EXPECT_EQ(*n.end_to_end, expect->mean_response);
  // rho = 25 * 0.1 / 3; headroom to 100%: 3 / 2.5 - 1 = 0.2; to 80%: 2.4 / 2.5 - 1 = -0.04.
  EXPECT_NEAR(n.offered_utilization, 2.5 / 3, 1e-12);
  EXPECT_TRUE(n.stable);
  ASSERT_EQ(n.headroom.size(), 2u);
  EXPECT_EQ(n.headroom[0].target, 1.0);
  EXPECT_NEAR(n.headroom[0].ratio, 0.2, 1e-12);
  EXPECT_EQ(n.headroom[1].target, 0.8);
  EXPECT_NEAR(n.headroom[1].ratio, -0.04, 1e-12);
  EXPECT_EQ(r.overloaded(0.8), std::vector<std::size_t>{0});
  EXPECT_TRUE(r.overloaded(1.0).empty());
  EXPECT_NEAR(r.min_headroom(1.0), 0.2, 1e-12);
  EXPECT_EQ(n.visits, std::vector<double>{1});
}

TEST(CapacityCheck, ServiceScvScalesTheWaitAsMG1) {
  // One server, constant service (scv 0): Pollaczek-Khinchine's M/D/1 wait,
  // rho S / (2 (1 - rho)), half of M/M/1's; two replicas share the flow.
  CallGraph g;
  g.add_node("pool");
  const std::vector<Station> st{{.servers = 1, .mean_service = 10ms, .replicas = 2, .service_scv = 0.0}};
  const auto r = check_capacity(g, st, std::vector<Rate>{Rate{120}});
  ASSERT_TRUE(r.ok()) << r.error;
  const NodeCapacity& n = r.nodes[0];
  ASSERT_TRUE(n.queue && n.end_to_end);
  const double rho = 60 * 0.010;
  EXPECT_NEAR(secs(n.queue->mean_wait), rho * 0.010 / (2 * (1 - rho)), 1e-9);
  EXPECT_NEAR(secs(n.end_to_end), rho * 0.010 / (2 * (1 - rho)) + 0.010, 1e-9);
  EXPECT_NEAR(n.queue->mean_queue_length, 2 * 60 * rho * 0.010 / (2 * (1 - rho)), 1e-6);  // Little, both replicas
  EXPECT_NEAR(n.offered_utilization, rho, 1e-12);
}

TEST(CapacityCheck, TandemOfMM1FollowsJacksonsTheorem) {
  // lambda = 4; mu1 = 10, mu2 = 5: T = 1/(10-4) + 1/(5-4); plus a 5 ms round trip.
  CallGraph g;
  const auto a = g.add_node("a");
  const auto b = g.add_node("b");
  g.add_sequential(a, {{.target = b, .count = 1, .network_rtt = 5ms}});
  const std::vector<Station> st{{.servers = 1, .mean_service = 100ms}, {.servers = 1, .mean_service = 200ms}};
  const std::vector<Rate> ext{Rate{4}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.nodes[b].offered.per_second, 4.0, 1e-12);
  EXPECT_NEAR(secs(r.nodes[b].end_to_end), 1.0, 1e-9);
  EXPECT_NEAR(secs(r.nodes[a].end_to_end), 1.0 / 6 + 0.005 + 1.0, 1e-9);
  EXPECT_NEAR(r.nodes[a].offered_utilization, 0.4, 1e-12);
  EXPECT_NEAR(r.nodes[b].offered_utilization, 0.8, 1e-12);
  EXPECT_NEAR(r.min_headroom(1.0), 0.25, 1e-12);  // b: 1/0.8 - 1
  EXPECT_NEAR(r.min_headroom(0.8), 0.0, 1e-12);
}

TEST(CapacityCheck, FanOutCountsMultiplyLoadAndTime) {
  // a calls b twice in sequence (2 ms each way round), then c once.
  CallGraph g;
  const auto a = g.add_node("a"), b = g.add_node("b"), c = g.add_node("c");
  g.add_sequential(a, {{.target = b, .count = 2, .network_rtt = 2ms}, {.target = c, .count = 1}});
  const std::vector<Station> st{
      {.servers = 1, .mean_service = 10ms}, {.servers = 1, .mean_service = 10ms}, {.servers = 1, .mean_service = 10ms}};
  const std::vector<Rate> ext{Rate{20}, Rate{0}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.nodes[b].offered.per_second, 40.0, 1e-12);
  // M/M/1: T = 1/(mu - lambda): a 1/80, b 1/60, c 1/80.
  EXPECT_NEAR(secs(r.nodes[a].end_to_end), 1.0 / 80 + 2 * (0.002 + 1.0 / 60) + 1.0 / 80, 1e-9);
  EXPECT_EQ(r.nodes[a].visits, (std::vector<double>{1, 2, 1}));
}

TEST(CapacityCheck, FeedbackQueueSojournIsVisitsTimesResponse) {
  // Jackson feedback M/M/1: gamma = 2, revisit p = 0.5: lambda = 4, mu = 10,
  // each visit 1/(10 - 4), expected visits 2: T = 2/6.
  CallGraph g;
  const auto a = g.add_node("a");
  g.add_sequential(a, {{.target = a, .count = 0.5}});
  const std::vector<Station> st{{.servers = 1, .mean_service = 100ms}};
  const std::vector<Rate> ext{Rate{2}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.nodes[a].offered.per_second, 4.0, 1e-12);
  EXPECT_NEAR(secs(r.nodes[a].end_to_end), 2.0 / 6, 1e-9);
}

TEST(CapacityCheck, FeedbackNearOneIsSolvedExactly) {
  // gamma = 0.001, p = 0.999: lambda = 1, mu = 10, T = 1000 visits * 1/9 s.
  CallGraph g;
  const auto a = g.add_node("a");
  g.add_sequential(a, {{.target = a, .count = 0.999}});
  const std::vector<Station> st{{.servers = 1, .mean_service = 100ms}};
  const std::vector<Rate> ext{Rate{0.001}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.nodes[a].offered.per_second, 1.0, 1e-9);
  EXPECT_NEAR(secs(r.nodes[a].end_to_end), 1000.0 / 9, 1e-6);
}

TEST(CapacityCheck, NestedParallelGroupsAndIdleNodes) {
  // front -> par(mid, leaf1); mid -> par(leaf2, leaf2 again as two copies).
  // All M/M/1; idle nodes still get their response times (service only).
  CallGraph g;
  const auto f = g.add_node("front"), mid = g.add_node("mid"), l1 = g.add_node("leaf1"), l2 = g.add_node("leaf2"),
             idle = g.add_node("idle");
  g.add_parallel(f, {{.target = mid, .network_rtt = 1ms}, {.target = l1, .network_rtt = 1ms}});
  g.add_parallel(mid, {{.target = l2, .count = 2}});
  const std::vector<Station> st(5, Station{.servers = 1, .mean_service = 20ms});
  const std::vector<Rate> ext{Rate{10}, Rate{0}, Rate{0}, Rate{0}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.nodes[l2].offered.per_second, 20.0, 1e-12);
  const double t_l2 = 1.0 / (50 - 20), t_l1 = 1.0 / 40, own = 1.0 / 40;
  const double t_mid = own + 1.5 * t_l2;  // max of 2 iid exponentials: 1.5 means
  EXPECT_NEAR(secs(r.nodes[mid].end_to_end), t_mid, 1e-8);
  // Two exponentials shifted by the same 1 ms: 1 ms + m1 + m2 - m1 m2 / (m1 + m2).
  const double t_f = own + 0.001 + t_mid + t_l1 - t_mid * t_l1 / (t_mid + t_l1);
  EXPECT_NEAR(secs(r.nodes[f].end_to_end), t_f, 1e-8);
  EXPECT_EQ(*r.nodes[idle].end_to_end, 20ms);
}

TEST(CapacityCheck, OverloadedNodeIsUnstableWithNegativeHeadroom) {
  // front (fast) calls db: 12 rps on a 10 rps single server.
  CallGraph g;
  const auto front = g.add_node("front"), db = g.add_node("db");
  g.add_sequential(front, {{.target = db}});
  const std::vector<Station> st{{.servers = 4, .mean_service = 10ms}, {.servers = 1, .mean_service = 100ms}};
  const std::vector<Rate> ext{Rate{12}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.all_stable());
  EXPECT_FALSE(r.nodes[db].stable);
  EXPECT_TRUE(r.nodes[front].stable);
  EXPECT_NEAR(r.nodes[db].offered_utilization, 1.2, 1e-12);
  EXPECT_NEAR(r.nodes[db].headroom[0].ratio, 1 / 1.2 - 1, 1e-12);
  EXPECT_LT(r.nodes[db].headroom[0].ratio, 0);
  EXPECT_FALSE(r.nodes[db].queue.has_value());
  EXPECT_FALSE(r.nodes[db].end_to_end.has_value());
  EXPECT_FALSE(r.nodes[front].end_to_end.has_value());  // waits on db
  EXPECT_TRUE(r.nodes[front].queue.has_value());
  EXPECT_EQ(r.overloaded(), std::vector<std::size_t>{db});
}

TEST(CapacityCheck, BoundedQueueBlocksAndThinsDownstream) {
  // a: M/M/1/3 with rho = 0.8 at 8 rps; each accepted request calls b (M/M/1, mu 20).
  CallGraph g;
  const auto a = g.add_node("a"), b = g.add_node("b");
  g.add_sequential(a, {{.target = b}});
  const std::vector<Station> st{{.servers = 1, .mean_service = 100ms, .capacity = 3},
                                {.servers = 1, .mean_service = 50ms}};
  const std::vector<Rate> ext{Rate{8}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  const double blocking = mm1k_blocking(0.8, 3);
  const QueueMetrics expect = mmck_metrics(Rate{8}, 100ms, 1, 3);
  ASSERT_TRUE(r.nodes[a].queue);
  EXPECT_NEAR(r.nodes[a].queue->blocking_probability, blocking, 1e-12);
  EXPECT_DOUBLE_EQ(r.nodes[a].queue->blocking_probability, expect.blocking_probability);
  EXPECT_NEAR(r.nodes[a].accepted.per_second, 8 * (1 - blocking), 1e-12);
  const double lambda_b = 8 * (1 - blocking);
  EXPECT_NEAR(r.nodes[b].offered.per_second, lambda_b, 1e-12);
  EXPECT_NEAR(secs(r.nodes[a].end_to_end), secs(expect.mean_response) + 1 / (20 - lambda_b), 1e-8);
  EXPECT_GE(r.thinning_iterations, 2);
}

TEST(CapacityCheck, BlockingInTandemOfBoundedQueues) {
  // a (M/M/1/2, rho 1.5) thins b's offered load; b (M/M/1/2) blocks some more.
  CallGraph g;
  const auto a = g.add_node("a"), b = g.add_node("b");
  g.add_sequential(a, {{.target = b}});
  const std::vector<Station> st{{.servers = 1, .mean_service = 100ms, .capacity = 2},
                                {.servers = 1, .mean_service = 100ms, .capacity = 2}};
  const std::vector<Rate> ext{Rate{15}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  const double ba = mm1k_blocking(1.5, 2);
  const double lb = 15 * (1 - ba);
  EXPECT_NEAR(r.nodes[b].offered.per_second, lb, 1e-10);
  EXPECT_NEAR(r.nodes[b].queue->blocking_probability, mm1k_blocking(lb / 10, 2), 1e-10);
  EXPECT_FALSE(r.nodes[a].stable);  // offered rho 1.5, but bounded: metrics exist
  EXPECT_TRUE(r.nodes[a].queue.has_value());
  EXPECT_TRUE(r.nodes[a].end_to_end.has_value());
}

TEST(CapacityCheck, BlockingOnARevisitLoopReachesItsFixedPoint) {
  // a: M/M/1/2, mu = 10, gamma = 6; an accepted request comes back with
  // probability 0.5. Flow balance: lambda = 6 + 0.5 (1 - B(lambda)) lambda,
  // B from the M/M/1/K formula; solved here by bisection.
  CallGraph g;
  const auto a = g.add_node("a");
  g.add_sequential(a, {{.target = a, .count = 0.5}});
  const std::vector<Station> st{{.servers = 1, .mean_service = 100ms, .capacity = 2}};
  const std::vector<Rate> ext{Rate{6}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  double lo = 6, hi = 12;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double residual = 6 + 0.5 * (1 - mm1k_blocking(mid / 10, 2)) * mid - mid;
    (residual > 0 ? lo : hi) = mid;
  }
  EXPECT_NEAR(r.nodes[a].offered.per_second, lo, 1e-9);
  EXPECT_NEAR(r.nodes[a].queue->blocking_probability, mm1k_blocking(lo / 10, 2), 1e-9);
}

TEST(CapacityCheck, ParallelCallsOfMM1LeavesUseTheMaxOfExponentials) {
  // front calls b and c in parallel; M/M/1 sojourn times are exponential.
  CallGraph g;
  const auto f = g.add_node("front"), b = g.add_node("b"), c = g.add_node("c");
  g.add_parallel(f, {{.target = b}, {.target = c}});
  const std::vector<Station> st{{.servers = 1, .mean_service = 10ms},
                                {.servers = 1, .mean_service = 50ms},
                                {.servers = 1, .mean_service = 100ms}};
  const std::vector<Rate> ext{Rate{5}, Rate{0}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  const double tb = 1.0 / (20 - 5), tc = 1.0 / (10 - 5);
  const double max_mean = tb + tc - 1 / (1 / tb + 1 / tc);
  EXPECT_NEAR(secs(r.nodes[f].end_to_end), 1.0 / (100 - 5) + max_mean, 1e-8);
}

TEST(CapacityCheck, ForkJoinEstimateLeansHighOfTheExactResult) {
  // Two identical M/M/1 queues fed by the same fork: the exact mean
  // synchronisation response is (12 - rho) / 8 / (mu - lambda) (Flatto & Hahn
  // 1984; Nelson & Tantawi 1988). Treating the branches as independent gives
  // 1.5 / (mu - lambda): above the exact value, by under 5% at rho = 0.5.
  CallGraph g;
  const auto f = g.add_node("fork"), b = g.add_node("b"), c = g.add_node("c");
  g.add_parallel(f, {{.target = b}, {.target = c}});
  const std::vector<Station> st{{.servers = 1, .mean_service = 1us},
                                {.servers = 1, .mean_service = 100ms},
                                {.servers = 1, .mean_service = 100ms}};
  const std::vector<Rate> ext{Rate{5}, Rate{0}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  const double join = secs(r.nodes[f].end_to_end) - secs(r.nodes[f].queue->mean_response);
  const double exact = (12 - 0.5) / 8 / (10 - 5);
  EXPECT_NEAR(join, 1.5 / (10 - 5), 1e-8);
  EXPECT_GT(join, exact);
  EXPECT_LT(join, 1.05 * exact);
}

TEST(ExpectedMax, IidExponentialsGiveHarmonicNumbers) {
  // E[max of n iid Exp(mean m)] = m H_n; n = 20 takes the numerical path.
  for (int n : {1, 2, 5, 12, 13, 20, 40}) {
    std::vector<ParallelBranch> br(n, ParallelBranch{.offset = 0ms, .mean = 100ms});
    double h = 0;
    for (int k = 1; k <= n; ++k) h += 1.0 / k;
    EXPECT_NEAR(secs(expected_max_of_exponentials(br)), 0.1 * h, 1e-8) << n;
  }
  EXPECT_EQ(expected_max_of_exponentials({}), Duration::zero());
  // Deterministic branches: just the largest offset.
  const std::vector<ParallelBranch> det{{.offset = 3ms, .mean = 0ms}, {.offset = 7ms, .mean = 0ms}};
  EXPECT_EQ(expected_max_of_exponentials(det), 7ms);
}

double monte_carlo_max(const std::vector<ParallelBranch>& br, int samples, double* std_error) {
  RngStream rng(20261129, "expected-max");
  double sum = 0, sum2 = 0;
  for (int s = 0; s < samples; ++s) {
    double m = 0;
    for (const auto& b : br) {
      double x = secs(b.offset);
      if (b.mean > Duration::zero() && rng.uniform() < b.probability) x += rng.exponential(secs(b.mean));
      m = std::max(m, x);
    }
    sum += m;
    sum2 += m * m;
  }
  const double mean = sum / samples;
  *std_error = std::sqrt((sum2 / samples - mean * mean) / samples);
  return mean;
}

TEST(ExpectedMax, ShiftedThinnedExponentialsMatchMonteCarlo) {
  const std::vector<std::vector<ParallelBranch>> cases{
      {{.offset = 2ms, .mean = 30ms}, {.offset = 20ms, .mean = 10ms}, {.offset = 0ms, .mean = 50ms}},
      {{.offset = 5ms, .mean = 40ms, .probability = 0.7}, {.offset = 1ms, .mean = 40ms, .probability = 0.9}},
  };
  for (const auto& br : cases) {
    double se = 0;
    const double mc = monte_carlo_max(br, 200000, &se);
    EXPECT_NEAR(secs(expected_max_of_exponentials(br)), mc, 4 * se) << "mc " << mc << " se " << se;
  }
  // 16 distinct branches: the numerical path.
  std::vector<ParallelBranch> many;
  for (int i = 0; i < 16; ++i) {
    many.push_back({.offset = std::chrono::milliseconds(i % 4),
                    .mean = std::chrono::milliseconds(5 + 3 * i),
                    .probability = 0.5 + 0.03 * i});
  }
  double se = 0;
  const double mc = monte_carlo_max(many, 60000, &se);
  EXPECT_NEAR(secs(expected_max_of_exponentials(many)), mc, 4 * se);
}

TEST(CapacityCheck, UnboundedCycleIsReported) {
  CallGraph g;
  const auto a = g.add_node("a"), b = g.add_node("b");
  g.add_sequential(a, {{.target = b}});
  g.add_sequential(b, {{.target = a}});
  const std::vector<Station> st(2, Station{.servers = 1, .mean_service = 1ms});
  const std::vector<Rate> ext{Rate{1}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  EXPECT_EQ(r.status, TrafficStatus::kUnboundedCycle);
  EXPECT_NE(r.error.find("{a, b}"), std::string::npos) << r.error;
  EXPECT_TRUE(r.nodes.empty());
}

TEST(CapacityCheck, NonConvergenceIsAResultNamingTheStation) {
  // A gateway (holding its workers, queue limit 10) calling orders twice:
  // its blocking thins orders' load, so the holding time needs rounds. Cut
  // the rounds short and the report says which station still moved, rather
  // than throwing.
  CallGraph g;
  const auto gateway = g.add_node("gateway"), orders = g.add_node("orders");
  g.add_sequential(gateway, {{.target = orders, .network_rtt = 1ms}, {.target = orders, .network_rtt = 1ms}});
  const std::vector<Station> st{{.servers = 8, .mean_service = 5ms, .capacity = 18, .holds_worker = true},
                                {.servers = 4, .mean_service = 10ms}};
  const std::vector<Rate> ext{Rate{175}, Rate{0}};
  const auto settled = check_capacity(g, st, ext);
  ASSERT_TRUE(settled.ok()) << settled.error;
  EXPECT_GT(settled.holding_iterations, 3);
  const auto cut = check_capacity(g, st, ext, CapacityOptions{.max_iterations = 3});
  EXPECT_EQ(cut.status, TrafficStatus::kNotConverged);
  EXPECT_EQ(
      cut.error.rfind("gateway: holding times of the call graph did not converge in 3 rounds (still moving by ", 0), 0u)
      << cut.error;
  EXPECT_TRUE(cut.nodes.empty());
}

TEST(CapacityCheck, AnOverloadedHoldingStationReportsRho) {
  // front holds its worker for its 10 ms and a call to back (M/M/2 at 60 rps
  // of 20 ms); at 500 rps on 4 workers it has no steady state of its own, but
  // its calls return: its holding time is finite and its utilisation is
  // rho = lambda H / c > 1, not +infinity.
  CallGraph g;
  const auto front = g.add_node("front"), back = g.add_node("back");
  g.add_sequential(front, {{.target = back, .count = 0.12}});
  const std::vector<Station> st{{.servers = 4, .mean_service = 10ms, .holds_worker = true},
                                {.servers = 2, .mean_service = 20ms}};
  const auto r = check_capacity(g, st, std::vector<Rate>{Rate{500}, Rate{0}});
  ASSERT_TRUE(r.ok()) << r.error;
  const auto back_queue = mmc_metrics(Rate{60}, 20ms, 2);
  ASSERT_TRUE(back_queue.has_value());
  const double holding = 0.010 + 0.12 * back_queue->mean_in_system / 60;
  ASSERT_TRUE(r.nodes[front].holding.has_value());
  EXPECT_NEAR(to_seconds(*r.nodes[front].holding), holding, 1e-9);
  EXPECT_NEAR(r.nodes[front].offered_utilization, 500 * holding / 4, 1e-6);
  EXPECT_FALSE(r.nodes[front].stable);
  EXPECT_FALSE(r.nodes[front].queue.has_value());
  EXPECT_FALSE(r.nodes[front].end_to_end.has_value());
}

TEST(CapacityCheck, MalformedInputThrows) {
  CallGraph g;
  const auto a = g.add_node("a"), b = g.add_node("b");
  const std::vector<Station> st(2, Station{.servers = 1, .mean_service = 1ms});
  const std::vector<Rate> ext{Rate{1}, Rate{0}};
  EXPECT_THROW(check_capacity(g, std::span(st).first(1), ext), std::invalid_argument);
  const std::vector<Station> no_servers{{.servers = 0, .mean_service = 1ms}, {.servers = 1, .mean_service = 1ms}};
  EXPECT_THROW(check_capacity(g, no_servers, ext), std::invalid_argument);
  const std::vector<Station> small_k{{.servers = 2, .mean_service = 1ms, .capacity = 1},
                                     {.servers = 1, .mean_service = 1ms}};
  EXPECT_THROW(check_capacity(g, small_k, ext), std::invalid_argument);
  g.add_parallel(a, {{.target = b, .count = 0.5}});
  EXPECT_THROW(check_capacity(g, st, ext), std::invalid_argument);
}

// --- Workers held during calls, replicas, routed calls, idle-only streams ----

TEST(CapacityCheck, AHeldWorkerIsBusyForItsCallsToo) {
  // a (M/M/1, 10 ms, holds its worker) calls b (M/M/1, 20 ms) over 5 ms, at
  // 10 rps: T_b = 1/(50 - 10) = 25 ms, so a's worker is held H = 10 + 5 + 25
  // = 40 ms per request: rho_a = 0.4, and with M/M/1 at that mean, T_a = H /
  // (1 - rho) (wait and holding together).
  CallGraph g;
  const auto a = g.add_node("a"), b = g.add_node("b");
  g.add_sequential(a, {{.target = b, .network_rtt = 5ms}});
  const std::vector<Station> st{{.servers = 1, .mean_service = 10ms, .holds_worker = true},
                                {.servers = 1, .mean_service = 20ms}};
  const std::vector<Rate> ext{Rate{10}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(secs(r.nodes[a].holding), 0.040, 1e-9);
  EXPECT_NEAR(r.nodes[a].offered_utilization, 0.4, 1e-9);
  EXPECT_NEAR(secs(r.nodes[a].end_to_end), 0.040 / 0.6, 1e-9);
  EXPECT_NEAR(secs(r.nodes[a].queue->mean_response), 0.040 / 0.6, 1e-9);
  EXPECT_NEAR(secs(r.nodes[b].holding), 0.020, 1e-12);  // b makes no calls
  EXPECT_LE(r.holding_iterations, 3);  // callees first: exact after depth + 1 rounds
  // Without holding, a's worker is free after its 10 ms: rho 0.1, and the
  // calls only add to the end-to-end time.
  std::vector<Station> released = st;
  released[a].holds_worker = false;
  const auto q = check_capacity(g, released, ext);
  EXPECT_NEAR(q.nodes[a].offered_utilization, 0.1, 1e-12);
  EXPECT_NEAR(secs(q.nodes[a].end_to_end), 1.0 / 90 + 0.005 + 0.025, 1e-9);
  EXPECT_EQ(q.holding_iterations, 1);
}

TEST(CapacityCheck, HoldingOnAnUnstableCalleeIsBoundedBelow) {
  // b is overloaded (rho 1.2): a's workers would wait for it without bound,
  // so a is unstable too. Its holding time is reported as a lower bound:
  // its own 10 ms and b's 100 ms of service, b's wait (unbounded) left out.
  CallGraph g;
  const auto a = g.add_node("a"), b = g.add_node("b");
  g.add_sequential(a, {{.target = b, .network_rtt = 2ms}});
  const std::vector<Station> st{{.servers = 4, .mean_service = 10ms, .holds_worker = true},
                                {.servers = 1, .mean_service = 100ms}};
  const std::vector<Rate> ext{Rate{12}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.nodes[b].stable);
  EXPECT_NEAR(r.nodes[b].offered_utilization, 1.2, 1e-12);
  EXPECT_FALSE(r.nodes[b].holding_lower_bound);
  EXPECT_FALSE(r.nodes[a].stable);
  EXPECT_TRUE(r.nodes[a].holding_lower_bound);
  ASSERT_TRUE(r.nodes[a].holding.has_value());
  EXPECT_EQ(*r.nodes[a].holding, 112ms);
  EXPECT_NEAR(r.nodes[a].offered_utilization, 12 * 0.112 / 4, 1e-12);
  EXPECT_NEAR(r.nodes[a].headroom[0].ratio, 1 / (12 * 0.112 / 4) - 1, 1e-12);
  EXPECT_FALSE(r.nodes[a].queue.has_value());
  EXPECT_FALSE(r.nodes[a].end_to_end.has_value());
  EXPECT_NEAR(r.nodes[b].offered.per_second, 12, 1e-12);  // the callee still gets the full flow
  // Unstable, whatever the bound says: both count as overloaded.
  EXPECT_EQ(r.overloaded(1.0), (std::vector<std::size_t>{a, b}));
}

TEST(CapacityCheck, LowerBoundsFollowAChainOfHeldWorkers) {
  // front (holds) -> mid (holds) -> back (M/M/1 at rho 1.5, unstable).
  // mid's bound is its 5 ms, the 1 ms trip and back's 10 ms; front's adds
  // its 20 ms, a 1 ms trip and mid's bound. At 150 rps over 8 front workers
  // that is rho >= 150 x 37 ms / 8 = 0.69375.
  CallGraph g;
  const auto front = g.add_node("front"), mid = g.add_node("mid"), back = g.add_node("back");
  g.add_sequential(front, {{.target = mid, .network_rtt = 1ms}});
  g.add_sequential(mid, {{.target = back, .network_rtt = 1ms}});
  const std::vector<Station> st{{.servers = 8, .mean_service = 20ms, .holds_worker = true},
                                {.servers = 4, .mean_service = 5ms, .holds_worker = true},
                                {.servers = 1, .mean_service = 10ms}};
  const auto r = check_capacity(g, st, std::vector<Rate>{Rate{150}, Rate{0}, Rate{0}});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.nodes[back].offered_utilization, 1.5, 1e-12);
  EXPECT_EQ(*r.nodes[mid].holding, 16ms);
  EXPECT_EQ(*r.nodes[front].holding, 37ms);
  EXPECT_NEAR(r.nodes[front].offered_utilization, 150 * 0.037 / 8, 1e-12);
  EXPECT_NEAR(r.nodes[mid].offered_utilization, 150 * 0.016 / 4, 1e-12);
  for (const auto i : {front, mid}) {
    EXPECT_TRUE(r.nodes[i].holding_lower_bound);
    EXPECT_FALSE(r.nodes[i].stable);
  }
  // A callee unstable by its own load but whose calls return keeps its exact
  // holding time: the caller's bound takes it whole (mid 1.5 x its workers).
  const std::vector<Station> own{{.servers = 8, .mean_service = 20ms, .holds_worker = true},
                                 {.servers = 1, .mean_service = 5ms, .holds_worker = true},
                                 {.servers = 4, .mean_service = 4ms}};
  const auto q = check_capacity(g, own, std::vector<Rate>{Rate{150}, Rate{0}, Rate{0}});
  ASSERT_TRUE(q.ok()) << q.error;
  ASSERT_TRUE(q.nodes[back].end_to_end.has_value());
  const double mid_holding = 0.005 + 0.001 + secs(q.nodes[back].end_to_end);
  EXPECT_FALSE(q.nodes[mid].holding_lower_bound);
  EXPECT_FALSE(q.nodes[mid].stable);
  EXPECT_NEAR(secs(q.nodes[mid].holding), mid_holding, 1e-9);
  EXPECT_NEAR(q.nodes[mid].offered_utilization, 150 * mid_holding, 1e-6);
  EXPECT_TRUE(q.nodes[front].holding_lower_bound);
  EXPECT_NEAR(secs(q.nodes[front].holding), 0.020 + 0.001 + mid_holding, 1e-8);
}

TEST(CapacityCheck, ReplicasShareTheFlowEachWithItsOwnQueue) {
  // Three pods of two workers: each an M/M/2 at a third of the flow, not one
  // M/M/6 (the balancer picks a pod, not a free worker).
  CallGraph g;
  g.add_node("api");
  const std::vector<Station> st{{.servers = 2, .mean_service = 50ms, .replicas = 3}};
  const std::vector<Rate> ext{Rate{54}};
  const auto r = check_capacity(g, st, ext);
  const auto pod = mmc_metrics(Rate{18}, 50ms, 2);
  ASSERT_TRUE(r.nodes[0].queue && pod);
  EXPECT_NEAR(r.nodes[0].offered_utilization, 54 * 0.05 / 6, 1e-12);
  EXPECT_DOUBLE_EQ(r.nodes[0].queue->wait_probability, pod->wait_probability);
  EXPECT_EQ(r.nodes[0].queue->mean_wait, pod->mean_wait);
  EXPECT_NEAR(r.nodes[0].queue->throughput_per_s, 54, 1e-9);
  EXPECT_NEAR(r.nodes[0].queue->mean_in_system, 3 * pod->mean_in_system, 1e-9);
  EXPECT_NEAR(secs(r.nodes[0].end_to_end), secs(pod->mean_response), 1e-9);
  const auto pooled = mmc_metrics(Rate{54}, 50ms, 6);
  EXPECT_GT(r.nodes[0].queue->mean_wait, pooled->mean_wait);
}

TEST(CapacityCheck, RoutedCallsSplitLoadAndTimeByShare) {
  // a calls b twice in sequence; each call goes to b1 (a quarter, 10 ms
  // away) or b2 (three quarters, local).
  CallGraph g;
  const auto a = g.add_node("a"), b1 = g.add_node("b1"), b2 = g.add_node("b2");
  g.add_sequential(a, {{.count = 2,
                        .routes = {{.target = b1, .share = 0.25, .network_rtt = 10ms},
                                   {.target = b2, .share = 0.75}}}});
  const std::vector<Station> st(3, Station{.servers = 1, .mean_service = 10ms});
  const std::vector<Rate> ext{Rate{20}, Rate{0}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.nodes[b1].offered.per_second, 10, 1e-12);
  EXPECT_NEAR(r.nodes[b2].offered.per_second, 30, 1e-12);
  const double t_b1 = 1.0 / (100 - 10), t_b2 = 1.0 / (100 - 30);
  EXPECT_NEAR(secs(r.nodes[a].end_to_end), 1.0 / 80 + 2 * (0.25 * (0.010 + t_b1) + 0.75 * t_b2), 1e-9);
  EXPECT_EQ(r.nodes[a].visits, (std::vector<double>{1, 0.5, 1.5}));
}

TEST(CapacityCheck, RoutedParallelCallsTakeTheMaxOfMixtures) {
  // a calls, in parallel, c and a b routed over b1 and b2: the b branch is
  // the mixture of its routes.
  CallGraph g;
  const auto a = g.add_node("a"), b1 = g.add_node("b1"), b2 = g.add_node("b2"), c = g.add_node("c");
  g.add_parallel(a, {{.routes = {{.target = b1, .share = 0.5, .network_rtt = 40ms},
                                 {.target = b2, .share = 0.5, .network_rtt = 2ms}}},
                     {.target = c, .network_rtt = 2ms}});
  const std::vector<Station> st(4, Station{.servers = 1, .mean_service = 20ms});
  const std::vector<Rate> ext{Rate{10}, Rate{0}, Rate{0}, Rate{0}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  const Duration tb = *r.nodes[b1].end_to_end, tc = *r.nodes[c].end_to_end;
  EXPECT_NEAR(secs(tb), 1.0 / (50 - 5), 1e-9);
  EXPECT_NEAR(secs(tc), 1.0 / (50 - 10), 1e-9);
  const std::vector<std::vector<ParallelBranch>> branches{
      {{.offset = 40ms, .mean = tb, .share = 0.5}, {.offset = 2ms, .mean = tb, .share = 0.5}},
      {{.offset = 2ms, .mean = tc}}};
  EXPECT_NEAR(secs(r.nodes[a].end_to_end), 1.0 / 40 + secs(expected_max_of_mixtures(branches)), 1e-8);
}

TEST(CapacityCheck, ACallLostOnTheWayNeverReturns) {
  // Half of a's calls reach b, the rest are lost (an unreachable zone): a's
  // requests never finish, and a worker held for them is never freed.
  CallGraph g;
  const auto a = g.add_node("a"), b = g.add_node("b");
  g.add_sequential(a, {{.routes = {{.target = b, .share = 0.5}}}});
  const std::vector<Station> st{{.servers = 2, .mean_service = 10ms}, {.servers = 1, .mean_service = 10ms}};
  const std::vector<Rate> ext{Rate{10}, Rate{0}};
  auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.nodes[b].offered.per_second, 5, 1e-12);
  EXPECT_FALSE(r.nodes[a].end_to_end.has_value());
  EXPECT_TRUE(r.nodes[a].stable);
  std::vector<Station> held = st;
  held[a].holds_worker = true;
  r = check_capacity(g, held, ext);
  EXPECT_FALSE(r.nodes[a].stable);
  EXPECT_FALSE(r.nodes[a].holding.has_value());
  // Shares above 1 are malformed.
  CallGraph bad;
  const auto x = bad.add_node("x"), y = bad.add_node("y");
  bad.add_sequential(x, {{.routes = {{.target = y, .share = 0.7}, {.target = y, .share = 0.7}}}});
  EXPECT_THROW(check_capacity(bad, st, ext), std::invalid_argument);
}

TEST(CapacityCheck, AnIdleOnlyStreamUsesThePooledGatedChain) {
  // Zone affinity's station: 20 rps prefer it and join only while one of its
  // 2 x 2 workers is idle; 10 rps always join. Its arrivals are the first
  // stream's admitted part plus the second.
  const auto chain = gated_queue_metrics(Rate{20}, Rate{10}, 100ms, 4, std::nullopt);
  ASSERT_TRUE(chain.has_value());
  CallGraph g;
  g.add_node("zone");
  const std::vector<Station> st{
      {.servers = 2, .mean_service = 100ms, .replicas = 2, .idle_only_offered = Rate{20}}};
  const std::vector<Rate> ext{Rate{20 * (1 - chain->overflow) + 10}};
  const auto r = check_capacity(g, st, ext);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.nodes[0].overflow, chain->overflow, 1e-9);
  EXPECT_NEAR(r.nodes[0].queue->mean_in_system, chain->queue.mean_in_system, 1e-9);
  EXPECT_NEAR(r.nodes[0].queue->throughput_per_s, ext[0].per_second, 1e-9);
  EXPECT_NEAR(secs(r.nodes[0].end_to_end), chain->queue.mean_in_system / ext[0].per_second, 1e-9);
  // Requests that never wait when they join: less waiting than M/M/2 per pod.
  const auto per_pod = mmc_metrics(Rate{ext[0].per_second / 2}, 100ms, 2);
  EXPECT_LT(r.nodes[0].queue->mean_wait, per_pod->mean_wait);
}

double monte_carlo_mixture_max(const std::vector<std::vector<ParallelBranch>>& branches, int samples,
                               double* std_error) {
  RngStream rng(7, "mixture-max");
  double sum = 0, sum2 = 0;
  for (int s = 0; s < samples; ++s) {
    double m = 0;
    for (const auto& routes : branches) {
      double u = rng.uniform();
      const ParallelBranch* pick = &routes.back();
      for (const auto& r : routes) {
        if (u < r.share) {
          pick = &r;
          break;
        }
        u -= r.share;
      }
      double x = secs(pick->offset);
      if (pick->mean > Duration::zero() && rng.uniform() < pick->probability) x += rng.exponential(secs(pick->mean));
      m = std::max(m, x);
    }
    sum += m;
    sum2 += m * m;
  }
  const double mean = sum / samples;
  *std_error = std::sqrt((sum2 / samples - mean * mean) / samples);
  return mean;
}

TEST(ExpectedMax, MixturesMatchMonteCarlo) {
  const std::vector<std::vector<std::vector<ParallelBranch>>> cases{
      // A branch routed near or far, against a local one.
      {{{.offset = 40ms, .mean = 20ms, .share = 0.25}, {.offset = 1ms, .mean = 20ms, .share = 0.75}},
       {{.offset = 1ms, .mean = 15ms}}},
      // Rejections and deterministic routes.
      {{{.offset = 5ms, .mean = 30ms, .probability = 0.8, .share = 0.5}, {.offset = 12ms, .mean = 0ms, .share = 0.5}},
       {{.offset = 0ms, .mean = 10ms, .share = 0.3}, {.offset = 3ms, .mean = 50ms, .share = 0.7}}},
  };
  for (const auto& branches : cases) {
    double se = 0;
    const double mc = monte_carlo_mixture_max(branches, 200000, &se);
    EXPECT_NEAR(secs(expected_max_of_mixtures(branches)), mc, 4 * se) << "mc " << mc << " se " << se;
  }
  // Eight branches of three routes: 4^8 terms, the numerical path.
  std::vector<std::vector<ParallelBranch>> many;
  for (int i = 0; i < 8; ++i) {
    many.push_back({{.offset = std::chrono::milliseconds(i % 3), .mean = std::chrono::milliseconds(5 + 2 * i), .share = 0.5},
                    {.offset = 20ms, .mean = 8ms, .share = 0.25},
                    {.offset = 1ms, .mean = std::chrono::milliseconds(30 - i), .share = 0.25}});
  }
  double se = 0;
  const double mc = monte_carlo_mixture_max(many, 60000, &se);
  EXPECT_NEAR(secs(expected_max_of_mixtures(many)), mc, 4 * se);
}

TEST(ExpectedMax, OneRouteMixturesEqualTheExponentialCase) {
  const std::vector<ParallelBranch> plain{{.offset = 2ms, .mean = 30ms}, {.offset = 20ms, .mean = 10ms, .probability = 0.6}};
  std::vector<std::vector<ParallelBranch>> mixtures;
  for (const auto& b : plain) mixtures.push_back({b});
  EXPECT_EQ(expected_max_of_mixtures(mixtures), expected_max_of_exponentials(plain));
  // A single mixture branch: its mean, sum of share x (offset + probability x mean).
  const std::vector<std::vector<ParallelBranch>> one{
      {{.offset = 10ms, .mean = 20ms, .probability = 0.5, .share = 0.4}, {.offset = 1ms, .mean = 5ms, .share = 0.6}}};
  EXPECT_NEAR(secs(expected_max_of_mixtures(one)), 0.4 * (0.010 + 0.5 * 0.020) + 0.6 * (0.001 + 0.005), 1e-9);
  const std::vector<std::vector<ParallelBranch>> bad{{{.offset = 1ms, .mean = 5ms, .share = 0.5}}};
  EXPECT_THROW(expected_max_of_mixtures(bad), std::invalid_argument);
}

}  // namespace
}  // namespace drsim

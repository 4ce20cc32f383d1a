#include "sim/quantile_sketch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "sim/errors.h"
#include "sim/rng.h"

namespace drsim {
namespace {

const std::vector<double> kQuantiles = {0.0,  0.01, 0.05, 0.1,  0.2, 0.25, 0.3,  0.4,   0.5,
                                        0.6,  0.7,  0.75, 0.8,  0.9, 0.95, 0.99, 0.999, 1.0};

// The exact sample the sketch estimates: 0-based rank floor(q * (n - 1)) of the sorted samples.
double exact_quantile(const std::vector<double>& sorted, double q) {
  const auto rank = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1));
  return sorted[rank];
}

// Relative error allowed: alpha, plus a hair for the rounding of log() at bucket edges.
void expect_within(const QuantileSketch& sketch, std::vector<double> samples, const std::string& what,
                   double min_q = 0) {
  std::sort(samples.begin(), samples.end());
  const double alpha = sketch.relative_accuracy();
  for (double q : kQuantiles) {
    if (q < min_q) continue;
    const double exact = exact_quantile(samples, q);
    const double estimate = sketch.quantile(q);
    EXPECT_LE(std::abs(estimate - exact), alpha * exact * (1 + 1e-9))
        << what << " q=" << q << " exact=" << exact << " estimate=" << estimate;
  }
}

std::vector<double> draw(std::size_t n, const std::string& stream, const std::function<double(RngStream&)>& f) {
  RngStream rng(42, stream);
  std::vector<double> out(n);
  for (double& x : out) x = f(rng);
  return out;
}

QuantileSketch sketch_of(const std::vector<double>& samples, double alpha = 0.01,
                         std::size_t max_buckets = QuantileSketch::kDefaultMaxBuckets) {
  QuantileSketch s(alpha, max_buckets);
  for (double x : samples) s.add(x);
  return s;
}

TEST(QuantileSketch, UniformWithinRelativeAccuracy) {
  const auto samples = draw(20000, "uniform", [](RngStream& r) { return r.uniform(0.001, 0.250); });
  expect_within(sketch_of(samples), samples, "uniform");
}

TEST(QuantileSketch, ExponentialWithinRelativeAccuracy) {
  const auto samples = draw(20000, "exponential", [](RngStream& r) { return r.exponential(0.030); });
  expect_within(sketch_of(samples), samples, "exponential");
}

TEST(QuantileSketch, LognormalWithinRelativeAccuracy) {
  const auto samples = draw(20000, "lognormal", [](RngStream& r) { return r.lognormal(std::log(0.02), 1.5); });
  expect_within(sketch_of(samples), samples, "lognormal");
}

TEST(QuantileSketch, OtherAccuraciesHoldTheirGuarantee) {
  const auto samples = draw(10000, "lognormal2", [](RngStream& r) { return r.lognormal(0, 2); });
  for (double alpha : {0.001, 0.005, 0.02, 0.05}) {
    // Enough buckets that nothing collapses (alpha = 0.1% needs ~8,000 here).
    expect_within(sketch_of(samples, alpha, 1 << 15), samples, "alpha=" + std::to_string(alpha));
  }
}

TEST(QuantileSketch, CountSumMinMaxMean) {
  QuantileSketch s;
  for (double x : {0.5, 0.25, 2.0, 0.0, 1.25}) s.add(x);
  EXPECT_EQ(s.count(), 5u);
  EXPECT_EQ(s.zero_count(), 1u);
  EXPECT_DOUBLE_EQ(s.sum(), 4.0);
  EXPECT_DOUBLE_EQ(s.min(), 0.0);
  EXPECT_DOUBLE_EQ(s.max(), 2.0);
  EXPECT_DOUBLE_EQ(s.mean(), 0.8);
  EXPECT_EQ(s.quantile(0), 0.0);
  EXPECT_EQ(s.quantile(1), 2.0);
}

TEST(QuantileSketch, WeightedAddEqualsRepeatedAdd) {
  QuantileSketch a, b;
  a.add(0.125, 7);
  a.add(3.0, 2);
  for (int i = 0; i < 7; ++i) b.add(0.125);
  for (int i = 0; i < 2; ++i) b.add(3.0);
  EXPECT_EQ(a.count(), b.count());
  for (double q : kQuantiles) EXPECT_EQ(a.quantile(q), b.quantile(q)) << q;
}

TEST(QuantileSketch, MergeEqualsSketchOfUnion) {
  const auto xs = draw(5000, "merge-a", [](RngStream& r) { return r.exponential(0.01); });
  const auto ys = draw(7000, "merge-b", [](RngStream& r) { return r.lognormal(std::log(0.5), 1.0); });
  std::vector<double> all = xs;
  all.insert(all.end(), ys.begin(), ys.end());
  all.push_back(0.0);

  QuantileSketch a = sketch_of(xs);
  QuantileSketch b = sketch_of(ys);
  b.add(0.0);
  const QuantileSketch u = sketch_of(all);
  QuantileSketch ab = a;
  ab.merge(b);
  QuantileSketch ba = b;
  ba.merge(a);
  for (const QuantileSketch* m : {&ab, &ba}) {
    EXPECT_EQ(m->count(), u.count());
    EXPECT_EQ(m->zero_count(), u.zero_count());
    EXPECT_EQ(m->min(), u.min());
    EXPECT_EQ(m->max(), u.max());
    EXPECT_NEAR(m->sum(), u.sum(), 1e-9 * u.sum());
    EXPECT_EQ(m->bucket_count(), u.bucket_count());
    for (double q : kQuantiles) EXPECT_EQ(m->quantile(q), u.quantile(q)) << q;
  }
  expect_within(ab, all, "merged");
}

TEST(QuantileSketch, MergeWithEmptyAndIntoEmpty) {
  const auto xs = draw(1000, "merge-empty", [](RngStream& r) { return r.uniform(1, 2); });
  QuantileSketch a = sketch_of(xs);
  QuantileSketch empty;
  QuantileSketch a2 = a;
  a2.merge(empty);
  empty.merge(a);
  for (double q : kQuantiles) {
    EXPECT_EQ(a2.quantile(q), a.quantile(q));
    EXPECT_EQ(empty.quantile(q), a.quantile(q));
  }
  EXPECT_EQ(empty.count(), a.count());
}

TEST(QuantileSketch, MergeRejectsDifferentAccuracy) {
  QuantileSketch a(0.01), b(0.02);
  b.add(1);
  EXPECT_THROW(a.merge(b), SimulationError);
}

TEST(QuantileSketch, MemoryBoundCollapsesLowestAndKeepsHighQuantiles) {
  // Values over 12 decades need ~1400 buckets at 1%; allow only 200.
  const auto samples = draw(20000, "wide", [](RngStream& r) { return std::pow(10.0, r.uniform(-9, 3)); });
  QuantileSketch s = sketch_of(samples, 0.01, 200);
  EXPECT_TRUE(s.collapsed());
  EXPECT_LE(s.bucket_count(), 200u);
  EXPECT_LE(s.allocated_buckets(), 200u);
  EXPECT_EQ(s.count(), samples.size());
  // 200 buckets at gamma = 1.0202 span a factor of ~54: values above max/54 keep the guarantee.
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  for (double q : {0.99, 0.995, 0.999, 1.0}) {
    const double exact = exact_quantile(sorted, q);
    EXPECT_LE(std::abs(s.quantile(q) - exact), 0.01 * exact * (1 + 1e-9)) << q;
  }
  // The collapsed low quantiles are overestimates, never below the true value.
  EXPECT_GE(s.quantile(0.01), exact_quantile(sorted, 0.01));
}

TEST(QuantileSketch, CollapseIsOrderIndependent) {
  auto samples = draw(5000, "order", [](RngStream& r) { return std::pow(10.0, r.uniform(-6, 2)); });
  QuantileSketch up = sketch_of(samples, 0.01, 100);
  std::sort(samples.begin(), samples.end());
  QuantileSketch ascending = sketch_of(samples, 0.01, 100);
  std::reverse(samples.begin(), samples.end());
  QuantileSketch descending = sketch_of(samples, 0.01, 100);
  for (double q : kQuantiles) {
    EXPECT_EQ(up.quantile(q), ascending.quantile(q)) << q;
    EXPECT_EQ(up.quantile(q), descending.quantile(q)) << q;
  }
}

// Brute force: the collapsing rule says every value ends in bucket
// max(index, highest index - max_buckets + 1), whatever the order of arrival
// and however the storage was moved around. Check quantiles against that.
TEST(QuantileSketch, MatchesBruteForceCollapseModel) {
  RngStream rng(5, "brute");
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t m = 2 + rng.below(60);
    const int n = 1 + static_cast<int>(rng.below(400));
    const double lo_exp = rng.uniform(-12, 2);
    const double span = rng.uniform(0, 8);
    QuantileSketch s(0.02, m);
    std::vector<double> values;
    for (int i = 0; i < n; ++i) {
      const double v = rng.bernoulli(0.05) ? 0.0 : std::pow(10.0, lo_exp + span * rng.uniform());
      values.push_back(v);
      s.add(v);
      if (rng.bernoulli(0.01)) {  // occasionally merge through a scratch sketch
        QuantileSketch t(0.02, m);
        t.merge(s);
        s = t;
      }
    }
    std::int32_t highest = std::numeric_limits<std::int32_t>::min();
    for (double v : values) {
      if (v > 0) highest = std::max(highest, s.index_of(v));
    }
    std::vector<std::int64_t> mapped;  // zeros sort first
    for (double v : values) {
      mapped.push_back(v > 0 ? std::max<std::int64_t>(s.index_of(v), highest - static_cast<std::int64_t>(m) + 1)
                             : std::numeric_limits<std::int64_t>::min());
    }
    std::sort(mapped.begin(), mapped.end());
    const double mn = *std::min_element(values.begin(), values.end());
    const double mx = *std::max_element(values.begin(), values.end());
    ASSERT_EQ(s.count(), values.size());
    ASSERT_LE(s.bucket_count(), m);
    ASSERT_LE(s.allocated_buckets(), m);
    for (double q : kQuantiles) {
      const auto r = static_cast<std::size_t>(q * static_cast<double>(n - 1));
      double expected;
      if (r == 0) {
        expected = mn;
      } else if (r == mapped.size() - 1) {
        expected = mx;
      } else if (mapped[r] == std::numeric_limits<std::int64_t>::min()) {
        expected = 0;
      } else {
        expected = std::clamp(s.representative(static_cast<std::int32_t>(mapped[r])), mn, mx);
      }
      ASSERT_EQ(s.quantile(q), expected) << "trial " << trial << " q=" << q << " m=" << m << " n=" << n;
    }
  }
}

TEST(QuantileSketch, EmptySketch) {
  QuantileSketch s;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.count(), 0u);
  EXPECT_EQ(s.sum(), 0.0);
  EXPECT_TRUE(std::isnan(s.quantile(0.5)));
  EXPECT_TRUE(std::isnan(s.min()));
  EXPECT_TRUE(std::isnan(s.max()));
  EXPECT_TRUE(std::isnan(s.mean()));
  EXPECT_EQ(s.bucket_count(), 0u);
}

TEST(QuantileSketch, SingleValueIsExact) {
  QuantileSketch s;
  s.add(0.0371);
  for (double q : kQuantiles) EXPECT_EQ(s.quantile(q), 0.0371) << q;
}

TEST(QuantileSketch, Zeros) {
  QuantileSketch s;
  for (int i = 0; i < 90; ++i) s.add(0.0);
  for (int i = 1; i <= 10; ++i) s.add(i * 0.1);
  EXPECT_EQ(s.zero_count(), 90u);
  EXPECT_EQ(s.quantile(0.5), 0.0);
  EXPECT_EQ(s.quantile(0.89), 0.0);
  EXPECT_NEAR(s.quantile(0.95), 0.5, 0.5 * 0.01 + 1e-12);  // rank 94 -> 5th nonzero value
  EXPECT_EQ(s.quantile(1.0), 1.0);

  QuantileSketch zeros;
  zeros.add(0.0, 3);
  EXPECT_EQ(zeros.quantile(0.5), 0.0);
  EXPECT_EQ(zeros.mean(), 0.0);
}

TEST(QuantileSketch, NanosecondToHourWithoutCollapse) {
  std::vector<double> samples;
  for (double x = 1e-9; x <= 3600.0; x *= 1.037) samples.push_back(x);
  samples.push_back(3600.0);
  QuantileSketch s = sketch_of(samples);
  EXPECT_FALSE(s.collapsed());
  EXPECT_LE(s.bucket_count(), QuantileSketch::kDefaultMaxBuckets);
  expect_within(s, samples, "1ns..1h");
  EXPECT_EQ(s.quantile(0), 1e-9);
  EXPECT_EQ(s.quantile(1), 3600.0);
}

TEST(QuantileSketch, ExtremeValues) {
  QuantileSketch s;
  s.add(std::numeric_limits<double>::denorm_min());
  s.add(std::numeric_limits<double>::max());
  EXPECT_EQ(s.count(), 2u);
  EXPECT_EQ(s.quantile(1), std::numeric_limits<double>::max());
  // 2048 buckets cannot span 630 decades: the lowest value is folded upwards.
  EXPECT_TRUE(s.collapsed());
  EXPECT_GT(s.quantile(0), 0.0);
  EXPECT_EQ(s.min(), std::numeric_limits<double>::denorm_min());
}

TEST(QuantileSketch, RejectsBadInput) {
  QuantileSketch s;
  EXPECT_THROW(s.add(-1e-9), SimulationError);
  EXPECT_THROW(s.add(std::nan("")), SimulationError);
  EXPECT_THROW(s.add(std::numeric_limits<double>::infinity()), SimulationError);
  s.add(1);
  EXPECT_THROW(s.quantile(-0.1), SimulationError);
  EXPECT_THROW(s.quantile(1.1), SimulationError);
  EXPECT_THROW(s.quantile(std::nan("")), SimulationError);
  EXPECT_THROW(QuantileSketch(0.0), SimulationError);
  EXPECT_THROW(QuantileSketch(0.9), SimulationError);
  EXPECT_THROW(QuantileSketch(0.01, 1), SimulationError);
}

TEST(QuantileSketch, ClearKeepsStorageAndForgets) {
  const auto xs = draw(2000, "clear-a", [](RngStream& r) { return r.exponential(1.0); });
  const auto ys = draw(2000, "clear-b", [](RngStream& r) { return r.exponential(1e-3); });
  QuantileSketch s = sketch_of(xs);
  const std::size_t allocated = s.allocated_buckets();
  s.clear();
  EXPECT_TRUE(s.empty());
  EXPECT_FALSE(s.collapsed());
  EXPECT_EQ(s.allocated_buckets(), allocated);
  for (double y : ys) s.add(y);
  const QuantileSketch fresh = sketch_of(ys);
  EXPECT_EQ(s.count(), fresh.count());
  for (double q : kQuantiles) EXPECT_EQ(s.quantile(q), fresh.quantile(q)) << q;
}

TEST(QuantileSketch, ReuseDoesNotGrowPastMaxBuckets) {
  QuantileSketch s(0.01, 300);
  RngStream rng(7, "reuse");
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 200; ++i) s.add(std::pow(10.0, rng.uniform(-9 + round % 5, -3 + round % 7)));
    EXPECT_LE(s.allocated_buckets(), 300u);
    EXPECT_LE(s.bucket_count(), 300u);
    s.clear();
  }
}

}  // namespace
}  // namespace drsim

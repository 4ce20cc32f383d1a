// QuantileSketch::index_of estimates the logarithm from a table and only
// calls std::log near a bucket boundary. Its answer must be the formula's,
// ceil(log(value) / log(gamma)) with std::log, for every positive double:
// otherwise a sketch would put a value in a neighbouring bucket and change
// recorded quantiles.
#include "sim/quantile_sketch.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "sim/rng.h"

namespace drsim {
namespace {

// The formula, written out independently of the sketch.
std::int32_t formula_index(double alpha, double value) {
  const double gamma = (1 + alpha) / (1 - alpha);
  const double inv_log_gamma = 1 / std::log(gamma);
  return static_cast<std::int32_t>(std::ceil(std::log(value) * inv_log_gamma));
}

constexpr double kAlphas[] = {0.01, 0.02, 0.001, 1e-6, 0.5};

TEST(QuantileSketchIndex, MatchesTheFormulaOverTheWholeRangeOfDoubles) {
  RngStream rng(7, "index");
  for (double alpha : kAlphas) {
    const QuantileSketch sketch(alpha);
    for (int i = 0; i < 200'000; ++i) {
      // Uniform over the bit patterns of positive finite doubles: every
      // exponent, subnormals included, equally often.
      const std::uint64_t bits = rng.below(0x7FF0000000000000ULL - 1) + 1;
      const double value = std::bit_cast<double>(bits);
      ASSERT_EQ(sketch.index_of(value), formula_index(alpha, value)) << "alpha " << alpha << " value " << value;
    }
  }
}

TEST(QuantileSketchIndex, MatchesTheFormulaForLatenciesFromANanosecondToAnHour) {
  RngStream rng(8, "latencies");
  for (double alpha : kAlphas) {
    const QuantileSketch sketch(alpha);
    for (int i = 0; i < 200'000; ++i) {
      const double value = std::exp(rng.uniform(std::log(1e-9), std::log(3600.0)));
      ASSERT_EQ(sketch.index_of(value), formula_index(alpha, value)) << "alpha " << alpha << " value " << value;
    }
  }
}

// Around each boundary gamma^i the formula's ceiling flips from i to i + 1:
// the estimate is then within its margin of a whole number and the exact
// path decides. The flip is found by bisection over the bit patterns
// (ordered like the positive doubles they encode), and every double within
// 40 ulps either side of it is checked.
TEST(QuantileSketchIndex, MatchesTheFormulaNextToEveryBucketBoundary) {
  for (double alpha : kAlphas) {
    const QuantileSketch sketch(alpha);
    const double log_gamma = std::log((1 + alpha) / (1 - alpha));
    const int lowest = static_cast<int>(std::floor(std::log(1e-12) / log_gamma));
    const int highest = static_cast<int>(std::ceil(std::log(1e6) / log_gamma));
    const int step = std::max(1, (highest - lowest) / 4000);  // alpha = 1e-6 has 10 million boundaries here
    int flips = 0, boundaries = 0;
    for (int i = lowest; i <= highest; i += step, ++boundaries) {
      auto lo = std::bit_cast<std::uint64_t>(std::exp((i - 0.5) * log_gamma));  // index i
      auto hi = std::bit_cast<std::uint64_t>(std::exp((i + 0.5) * log_gamma));  // index i + 1
      ASSERT_EQ(formula_index(alpha, std::bit_cast<double>(lo)), i);
      ASSERT_EQ(formula_index(alpha, std::bit_cast<double>(hi)), i + 1);
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (formula_index(alpha, std::bit_cast<double>(mid)) <= i ? lo : hi) = mid;
      }
      std::int32_t previous = formula_index(alpha, std::bit_cast<double>(hi - 41));
      for (std::uint64_t bits = hi - 40; bits <= hi + 40; ++bits) {
        const double value = std::bit_cast<double>(bits);
        const std::int32_t expected = formula_index(alpha, value);
        ASSERT_EQ(sketch.index_of(value), expected) << "alpha " << alpha << " boundary " << i << " value " << value;
        if (expected != previous) ++flips;
        previous = expected;
      }
    }
    // Every window crossed its boundary: the test is not vacuous.
    EXPECT_GE(flips, boundaries) << "alpha " << alpha;
  }
}

TEST(QuantileSketchIndex, ExactIndexIsTheFormula) {
  const QuantileSketch sketch(0.01);
  for (double value : {1e-9, 0.001, 0.02, 1.0, 1.0202, 60.0, 3600.0, std::numeric_limits<double>::denorm_min(),
                       std::numeric_limits<double>::max()}) {
    EXPECT_EQ(sketch.exact_index_of(value), formula_index(0.01, value)) << value;
    EXPECT_EQ(sketch.index_of(value), formula_index(0.01, value)) << value;
  }
}

}  // namespace
}  // namespace drsim

#include "sim/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <set>
#include <vector>

#include "sim/errors.h"

namespace drsim {
namespace {

// Statistical checks use a fixed seed, so they are deterministic; the
// tolerances are still derived from the sample size (z standard errors) so
// that a change of seed or generator would not make them fail by chance.
constexpr int kN = 200'000;
constexpr double kZ = 5.0;  // two-sided p ~ 6e-7

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double variance_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}

template <class F>
std::vector<double> sample(F draw, int n = kN) {
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v.push_back(draw());
  return v;
}

// ---------------------------------------------------------------- building blocks

TEST(RngStream, StableHashIsFnv1a64) {
  // Published FNV-1a 64-bit test vectors.
  EXPECT_EQ(stable_hash(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(stable_hash("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(stable_hash("foobar"), 0x85944171f73967e8ULL);
  static_assert(stable_hash("a") == 0xaf63dc4c8601ec8cULL, "usable at compile time");
}

TEST(RngStream, SplitMix64MatchesReference) {
  std::uint64_t state = 0;
  EXPECT_EQ(splitmix64(state), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(splitmix64(state), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(splitmix64(state), 0x06c45d188009454fULL);
}

// xoshiro256** as published by Blackman and Vigna, for cross-checking.
struct ReferenceXoshiro {
  std::array<std::uint64_t, 4> s;
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s[1] * 5, 7) * 9;
    const std::uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }
};

TEST(RngStream, ReferenceXoshiroKnownAnswer) {
  ReferenceXoshiro x{{1, 2, 3, 4}};
  EXPECT_EQ(x.next(), 11520u);
  EXPECT_EQ(x.next(), 0u);
  EXPECT_EQ(x.next(), 1509978240u);
  EXPECT_EQ(x.next(), 1215971899390074240u);
}

TEST(RngStream, IsXoshiro256StarStarSeededFromSeedAndName) {
  // The documented derivation: mix seed and FNV-1a(name), then splitmix64 for the state.
  for (std::uint64_t seed : {0ULL, 1ULL, 42ULL, ~0ULL}) {
    for (const char* name : {"", "zone-a", "service/checkout"}) {
      std::uint64_t state = seed ^ ReferenceXoshiro::rotl(stable_hash(name), 17);
      state = splitmix64(state) ^ stable_hash(name);
      ReferenceXoshiro ref{};
      for (auto& w : ref.s) w = splitmix64(state);
      RngStream rng(seed, name);
      for (int i = 0; i < 100; ++i) ASSERT_EQ(rng.next_u64(), ref.next()) << seed << " " << name << " " << i;
    }
  }
}

// ---------------------------------------------------------------- golden values

// Changing any of these changes every simulation's output: do it only on
// purpose, and say so in the changelog.
TEST(RngStream, GoldenValues) {
  RngStream r(42, "golden");
  EXPECT_EQ(r.next_u64(), 0x921a57ec95471c0bULL);
  EXPECT_EQ(r.next_u64(), 0x5b246ddd20c5fd26ULL);
  EXPECT_EQ(r.next_u64(), 0x0f4979ed5dfc630bULL);
  EXPECT_EQ(r.next_u64(), 0x041aa37ccf4e5048ULL);

  RngStream z(1, "zone-a");
  EXPECT_EQ(z.next_u64(), 0x27c73fd431eeb261ULL);
  EXPECT_EQ(z.next_u64(), 0x65d04db0cc744c7bULL);

  RngStream d(42, "golden");
  EXPECT_DOUBLE_EQ(d.uniform(), 0.57071446920351965);
  EXPECT_EQ(d.below(10), 3u);
  EXPECT_DOUBLE_EQ(d.exponential(1.0), 0.061572161434636646);
  EXPECT_DOUBLE_EQ(d.standard_normal(), -0.016178613150384047);
  EXPECT_DOUBLE_EQ(d.standard_normal(), -1.6466473663507308);
  EXPECT_DOUBLE_EQ(d.lognormal(0, 1), 0.3994757887718175);
}

// ---------------------------------------------------------------- determinism

TEST(RngStream, SameSeedAndNameSameSequence) {
  RngStream a(7, "traffic");
  RngStream b(7, "traffic");
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(a.next_u64(), b.next_u64());
    ASSERT_EQ(a.standard_normal(), b.standard_normal());
    ASSERT_EQ(a.below(17), b.below(17));
  }
}

TEST(RngStream, DifferentNamesOrSeedsDiffer) {
  auto first = [](std::uint64_t seed, const char* name) {
    RngStream r(seed, name);
    std::vector<std::uint64_t> v;
    for (int i = 0; i < 64; ++i) v.push_back(r.next_u64());
    return v;
  };
  const auto base = first(1, "zone-a");
  EXPECT_NE(base, first(1, "zone-b"));
  EXPECT_NE(base, first(2, "zone-a"));
  EXPECT_NE(base, first(1, "zone-a "));
  EXPECT_NE(first(0, ""), first(1, ""));
  // Nearby seeds and similar names give unrelated streams: no shared outputs.
  std::set<std::uint64_t> seen(base.begin(), base.end());
  for (const auto& other : {first(2, "zone-a"), first(1, "zone-b"), first(0, "zone-a")}) {
    for (auto x : other) EXPECT_EQ(seen.count(x), 0u);
  }
}

TEST(RngStream, CopyContinuesIdentically) {
  RngStream a(3, "copy");
  a.next_u64();
  a.standard_normal();  // leaves a spare normal inside
  RngStream b = a;
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(a.standard_normal(), b.standard_normal());
    ASSERT_EQ(a.uniform(), b.uniform());
  }
}

// ---------------------------------------------------------------- distributions

TEST(RngStream, UniformMeanAndVariance) {
  RngStream r(11, "uniform");
  const auto v = sample([&] { return r.uniform(); });
  for (double x : v) {
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
  }
  const double n = kN;
  // Mean 1/2, variance 1/12; Var(sample variance) ~ (mu4 - sigma^4) / n with mu4 = 1/80.
  EXPECT_NEAR(mean_of(v), 0.5, kZ * std::sqrt(1.0 / 12.0 / n));
  EXPECT_NEAR(variance_of(v), 1.0 / 12.0, kZ * std::sqrt((1.0 / 80.0 - 1.0 / 144.0) / n));
  EXPECT_LT(*std::min_element(v.begin(), v.end()), 1e-3);
  EXPECT_GT(*std::max_element(v.begin(), v.end()), 1 - 1e-3);
}

TEST(RngStream, UniformRangeAndOpenInterval) {
  RngStream r(12, "range");
  for (int i = 0; i < 10'000; ++i) {
    const double x = r.uniform(-3.0, 5.0);
    ASSERT_GE(x, -3.0);
    ASSERT_LT(x, 5.0);
    const double y = r.uniform_open0();
    ASSERT_GT(y, 0.0);
    ASSERT_LE(y, 1.0);
  }
  const auto v = sample([&] { return r.uniform(10.0, 20.0); });
  EXPECT_NEAR(mean_of(v), 15.0, kZ * 10.0 * std::sqrt(1.0 / 12.0 / kN));
}

TEST(RngStream, UniformHas53Bits) {
  // Every multiple of 2^-53 is reachable: the low bit of x * 2^53 is set about half the time.
  RngStream r(13, "bits");
  int odd = 0;
  constexpr int n = 100'000;
  for (int i = 0; i < n; ++i) odd += static_cast<int>(static_cast<std::uint64_t>(r.uniform() * 0x1.0p53) & 1);
  EXPECT_NEAR(odd, n / 2, kZ * std::sqrt(n * 0.25));
}

TEST(RngStream, ExponentialMean) {
  RngStream r(14, "exp");
  const double mean = 2.5;
  const auto v = sample([&] { return r.exponential(mean); });
  for (double x : v) {
    ASSERT_GE(x, 0.0);
    ASSERT_TRUE(std::isfinite(x));
  }
  // Standard deviation of Exp equals its mean.
  EXPECT_NEAR(mean_of(v), mean, kZ * mean / std::sqrt(static_cast<double>(kN)));
  EXPECT_NEAR(variance_of(v), mean * mean, kZ * mean * mean * std::sqrt(8.0 / kN));  // mu4 = 9 sigma^4
  // P(X > mean) = 1/e.
  const auto above = std::count_if(v.begin(), v.end(), [&](double x) { return x > mean; });
  const double p = std::exp(-1.0);
  EXPECT_NEAR(static_cast<double>(above) / kN, p, kZ * std::sqrt(p * (1 - p) / kN));
}

TEST(RngStream, NormalMeanAndVariance) {
  RngStream r(15, "normal");
  const double mu = 3.0;
  const double sigma = 2.0;
  const auto v = sample([&] { return r.normal(mu, sigma); });
  const double n = kN;
  EXPECT_NEAR(mean_of(v), mu, kZ * sigma / std::sqrt(n));
  // Var(sample variance) = 2 sigma^4 / (n - 1) for a normal.
  EXPECT_NEAR(variance_of(v), sigma * sigma, kZ * sigma * sigma * std::sqrt(2.0 / (n - 1)));
  // About 68.27% within one sigma.
  const auto within = std::count_if(v.begin(), v.end(), [&](double x) { return std::abs(x - mu) < sigma; });
  const double p = 0.6826894921370859;
  EXPECT_NEAR(static_cast<double>(within) / n, p, kZ * std::sqrt(p * (1 - p) / n));
}

TEST(RngStream, StandardNormalIsSymmetric) {
  RngStream r(16, "symmetric");
  const auto v = sample([&] { return r.standard_normal(); });
  const auto positive = std::count_if(v.begin(), v.end(), [](double x) { return x > 0; });
  EXPECT_NEAR(static_cast<double>(positive) / kN, 0.5, kZ * std::sqrt(0.25 / kN));
  double third = 0;
  for (double x : v) third += x * x * x;
  EXPECT_NEAR(third / kN, 0.0, kZ * std::sqrt(15.0 / kN));  // E[X^6] = 15
}

TEST(RngStream, LognormalMedian) {
  RngStream r(17, "lognormal");
  const double mu = 1.0;
  const double sigma = 0.5;
  auto v = sample([&] { return r.lognormal(mu, sigma); });
  for (double x : v) ASSERT_GT(x, 0.0);
  const double median = std::exp(mu);
  // Fraction below the true median is 1/2 ...
  const auto below = std::count_if(v.begin(), v.end(), [&](double x) { return x < median; });
  EXPECT_NEAR(static_cast<double>(below) / kN, 0.5, kZ * std::sqrt(0.25 / kN));
  // ... and the sample median is within z standard errors: 1 / (2 f(m) sqrt(n)).
  std::nth_element(v.begin(), v.begin() + kN / 2, v.end());
  const double density_at_median = 1.0 / (median * sigma * std::sqrt(2 * std::numbers::pi));
  EXPECT_NEAR(v[kN / 2], median, kZ / (2 * density_at_median * std::sqrt(static_cast<double>(kN))));
}

TEST(RngStream, BernoulliFrequency) {
  RngStream r(18, "coin");
  for (double p : {0.0, 0.01, 0.3, 0.5, 1.0}) {
    int hits = 0;
    for (int i = 0; i < kN; ++i) hits += r.bernoulli(p) ? 1 : 0;
    EXPECT_NEAR(static_cast<double>(hits) / kN, p, kZ * std::sqrt(p * (1 - p) / kN) + 1e-12) << p;
  }
}

TEST(RngStream, BelowIsUniformChiSquare) {
  RngStream r(19, "below");
  for (std::uint64_t n : {2ULL, 6ULL, 10ULL, 37ULL}) {
    std::vector<int> counts(n, 0);
    const int draws = 100'000;
    for (int i = 0; i < draws; ++i) {
      const std::uint64_t x = r.below(n);
      ASSERT_LT(x, n);
      ++counts[x];
    }
    const double expected = static_cast<double>(draws) / static_cast<double>(n);
    double chi2 = 0;
    for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
    // Upper bound from the chi-square distribution with df = n - 1 (Wilson-Hilferty,
    // z = 5): far above what an unbiased generator produces, far below a biased one.
    const double df = static_cast<double>(n - 1);
    const double bound = df * std::pow(1 - 2 / (9 * df) + kZ * std::sqrt(2 / (9 * df)), 3);
    EXPECT_LT(chi2, bound) << "n=" << n;
  }
}

TEST(RngStream, BelowHasNoModuloBias) {
  // With n = 3 * 2^62, "x % n" would put half of all draws below 2^62 instead of a third.
  RngStream r(20, "bias");
  const std::uint64_t n = 3ULL << 62;
  int low = 0;
  for (int i = 0; i < kN; ++i) {
    const std::uint64_t x = r.below(n);
    ASSERT_LT(x, n);
    low += x < (1ULL << 62) ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(low) / kN, 1.0 / 3.0, kZ * std::sqrt((1.0 / 3.0) * (2.0 / 3.0) / kN));
}

TEST(RngStream, BelowEdgeCases) {
  RngStream r(21, "edges");
  for (int i = 0; i < 100; ++i) EXPECT_EQ(r.below(1), 0u);
  for (int i = 0; i < 100; ++i) EXPECT_LT(r.below(~0ULL), ~0ULL);
  EXPECT_THROW(r.below(0), SimulationError);
}

}  // namespace
}  // namespace drsim

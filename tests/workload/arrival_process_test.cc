#include "models/load/arrival_process.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "sim/errors.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

Rate rps(double r) { return Rate{r}; }

RateProfile constant(double r) { return RateProfile(RateProfileConfig{.kind = "constant", .rate = rps(r)}); }
RateProfile stages(std::vector<RateStageConfig> s) {
  return RateProfile(RateProfileConfig{.kind = "stages", .stages = std::move(s)});
}

// One-sample Kolmogorov-Smirnov statistic of sorted xs against Exp(rate).
double ks_exponential(const std::vector<double>& sorted, double rate) {
  const double n = static_cast<double>(sorted.size());
  double d = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const double f = 1 - std::exp(-rate * sorted[i]);
    d = std::max({d, static_cast<double>(i + 1) / n - f, f - static_cast<double>(i) / n});
  }
  return d;
}

// |count - Lambda| <= 4 sigma of a Poisson count with mean Lambda.
void expect_poisson_count(std::size_t count, double lambda) {
  EXPECT_LE(std::abs(static_cast<double>(count) - lambda), 4 * std::sqrt(lambda))
      << "count " << count << " vs Lambda " << lambda;
}

TEST(ArrivalProcess, CountOverALongWindowMatchesLambdaForEveryKind) {
  const std::vector<RateProfile> profiles = {
      constant(1000),
      stages({{100s, rps(2000)}, {50s, rps(500)}}),
      RateProfile(RateProfileConfig{
          .kind = "diurnal", .base = rps(500), .amplitude = Ratio{0.8}, .period = 60s, .peak_at = 20s}),
      RateProfile(RateProfileConfig{.kind = "trace",
                                    .points = {{0s, rps(300)}, {40s, rps(900)}, {40s, rps(100)}, {90s, rps(0)}}}),
  };
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    SCOPED_TRACE(i);
    ArrivalProcess arrivals(profiles[i]);
    RngStream rng(42, "arrivals");
    const auto times = arrivals.arrivals_between(kSimStart, at(200s), rng);
    expect_poisson_count(times.size(), profiles[i].cumulative(kSimStart, at(200s)));
    EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
    EXPECT_TRUE(std::adjacent_find(times.begin(), times.end()) == times.end());  // strictly increasing
  }
}

TEST(ArrivalProcess, ConstantInterArrivalTimesPassKolmogorovSmirnovAgainstExponential) {
  const double rate = 1000;
  ArrivalProcess arrivals(constant(rate));
  RngStream rng(7, "ks");
  std::vector<double> gaps;
  SimTime t = kSimStart;
  for (int i = 0; i < 20000; ++i) {
    const SimTime next = arrivals.next_after(t, rng);
    gaps.push_back(to_seconds(next - t));
    t = next;
  }
  std::sort(gaps.begin(), gaps.end());
  const double n = static_cast<double>(gaps.size());
  // Critical value of the one-sample KS test at alpha = 0.01: 1.628 / sqrt(n).
  const double critical = 1.628 / std::sqrt(n);
  EXPECT_LT(ks_exponential(gaps, rate), critical) << "KS statistic vs Exp(" << rate << ")";
  // The test has power: a 5% wrong rate is rejected.
  EXPECT_GT(ks_exponential(gaps, rate * 1.05), critical);
  EXPECT_GT(ks_exponential(gaps, rate * 0.95), critical);
}

TEST(ArrivalProcess, DiurnalArrivalsFollowTheSinusoid) {
  // 200rps +- 90%, period 100s, peak at 25s: per 10s bucket, Lambda from the closed form.
  const RateProfile day(RateProfileConfig{
      .kind = "diurnal", .base = rps(200), .amplitude = Ratio{0.9}, .period = 100s, .peak_at = 25s});
  ArrivalProcess arrivals(day);
  RngStream rng(17, "diurnal");
  std::vector<std::size_t> buckets(10);
  for (SimTime t : arrivals.arrivals_between(kSimStart, at(100s), rng)) {
    ++buckets[std::min<std::size_t>(9, to_ns(t) / to_ns(10s))];
  }
  const double w = 2 * std::numbers::pi / 100;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    SCOPED_TRACE(i);
    const double a = 10.0 * static_cast<double>(i), b = a + 10;
    const double expected = 200 * ((b - a) + 0.9 / w * (std::sin(w * (b - 25)) - std::sin(w * (a - 25))));
    expect_poisson_count(buckets[i], expected);
  }
}

TEST(ArrivalProcess, RampArrivalsPerBucketFollowTheRamp) {
  // 0 -> 1000rps over 100s: bucket i of 10s expects 1000 (i + 0.5).
  ArrivalProcess arrivals(stages({{100s, rps(1000)}}));
  RngStream rng(3, "ramp");
  const auto times = arrivals.arrivals_between(kSimStart, at(100s), rng);
  std::vector<std::size_t> buckets(10);
  for (SimTime t : times) ++buckets[std::min<std::size_t>(9, to_ns(t) / to_ns(10s))];
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    SCOPED_TRACE(i);
    expect_poisson_count(buckets[i], 1000 * (static_cast<double>(i) + 0.5));
  }
  EXPECT_LT(buckets[0], buckets[9] / 5);
}

TEST(ArrivalProcess, ZeroRateSpansHaveNoArrivals) {
  // 100rps for 10s, nothing for 10s, 100rps again for 10s, then nothing for good.
  ArrivalProcess arrivals(stages(
      {{0s, rps(100)}, {10s, rps(100)}, {0s, rps(0)}, {10s, rps(0)}, {0s, rps(100)}, {10s, rps(100)}, {0s, rps(0)}}));
  RngStream rng(5, "gaps");
  const auto times = arrivals.arrivals_between(kSimStart, at(1000h), rng);
  for (SimTime t : times) EXPECT_TRUE(t <= at(10s) || (t >= at(20s) && t <= at(30s))) << format_clock(t);
  EXPECT_GT(std::count_if(times.begin(), times.end(), [](SimTime t) { return t > at(20s); }), 900);
  EXPECT_EQ(arrivals.next_after(at(30s), rng), kSimTimeMax);
  // From inside the gap the next arrival is after it.
  EXPECT_GT(arrivals.next_after(at(12s), rng), at(20s));
  // A rate that is zero from the start and never rises: never.
  EXPECT_EQ(ArrivalProcess(constant(0)).next_after(kSimStart, rng), kSimTimeMax);
  EXPECT_EQ(ArrivalProcess(constant(0), ArrivalMode::kDeterministic).next_after(kSimStart, rng), kSimTimeMax);
}

TEST(ArrivalProcess, DeterministicArrivalsAreEvenlySpaced) {
  ArrivalProcess arrivals(constant(800), ArrivalMode::kDeterministic);
  RngStream rng(1, "unused");
  const auto times = arrivals.arrivals_between(kSimStart, at(10s), rng);
  ASSERT_EQ(times.size(), 8000u);
  for (std::size_t i = 0; i < times.size(); ++i) ASSERT_EQ(times[i], at(1250us * static_cast<int>(i + 1)));
  // On a ramp 0 -> 100rps over 10s, arrival k is where 5 t^2 = k: t = sqrt(k/5).
  ArrivalProcess ramp(stages({{10s, rps(100)}}), ArrivalMode::kDeterministic);
  const auto ramped = ramp.arrivals_between(kSimStart, at(10s), rng);
  ASSERT_EQ(ramped.size(), 500u);
  for (std::size_t k = 1; k <= ramped.size(); ++k) {
    EXPECT_NEAR(to_seconds(ramped[k - 1]), std::sqrt(static_cast<double>(k) / 5), 1e-6) << k;
  }
  EXPECT_EQ(parse_arrival_mode("deterministic"), ArrivalMode::kDeterministic);
  EXPECT_EQ(parse_arrival_mode("poisson"), ArrivalMode::kPoisson);
  EXPECT_THROW(parse_arrival_mode("uniform"), SimulationError);
}

TEST(ArrivalProcess, SameSeedSameArrivals) {
  const RateProfile day(RateProfileConfig{.kind = "diurnal", .base = rps(50), .amplitude = Ratio{1.0}, .period = 10s});
  ArrivalProcess arrivals(day);
  RngStream a(99, "region-a"), b(99, "region-a"), c(100, "region-a");
  const auto first = arrivals.arrivals_between(kSimStart, at(60s), a);
  EXPECT_EQ(first, arrivals.arrivals_between(kSimStart, at(60s), b));
  EXPECT_NE(first, arrivals.arrivals_between(kSimStart, at(60s), c));
}

}  // namespace
}  // namespace drsim

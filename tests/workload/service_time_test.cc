#include "models/load/service_time.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/errors.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

static_assert(Described<ServiceTimeConfig>);

std::vector<Duration> draw(const ServiceTimeDistribution& dist, std::size_t n, std::uint64_t seed = 11) {
  RngStream rng(seed, "service");
  std::vector<Duration> out(n);
  for (auto& d : out) d = dist.sample(rng);
  return out;
}

double mean_seconds(const std::vector<Duration>& xs) {
  double sum = 0;
  for (Duration d : xs) sum += to_seconds(d);
  return sum / static_cast<double>(xs.size());
}

bool has_problem(const std::vector<ConfigProblem>& problems, std::string_view field, std::string_view fragment) {
  for (const auto& p : problems) {
    if (p.field == field && p.message.find(fragment) != std::string::npos) return true;
  }
  return false;
}

TEST(ServiceTime, ConstantIsExact) {
  ServiceTimeDistribution dist(ServiceTimeConfig{.kind = "constant", .value = 12ms});
  for (Duration d : draw(dist, 100)) EXPECT_EQ(d, 12ms);
  EXPECT_EQ(dist.mean(), 12ms);
  EXPECT_EQ(dist.quantile(0.0), 12ms);
  EXPECT_EQ(dist.quantile(0.99), 12ms);
}

TEST(ServiceTime, ExponentialMeanWithinCltBoundAndClosedFormQuantiles) {
  ServiceTimeDistribution dist(ServiceTimeConfig{.kind = "exponential", .mean = 10ms});
  const std::size_t n = 100000;
  const auto xs = draw(dist, n);
  // sd of an exponential equals its mean.
  EXPECT_NEAR(mean_seconds(xs), 0.010, 4 * 0.010 / std::sqrt(static_cast<double>(n)));
  EXPECT_EQ(dist.mean(), 10ms);
  EXPECT_EQ(dist.quantile(0.5), Duration{6931472});  // 10ms * ln 2
  EXPECT_EQ(dist.quantile(0.99), Duration{46051702});  // 10ms * ln 100
  EXPECT_THROW(dist.quantile(1.0), SimulationError);
}

TEST(ServiceTime, SamplesAreAtLeastOneNanosecond) {
  ServiceTimeDistribution dist(ServiceTimeConfig{.kind = "exponential", .mean = 1ns});
  for (Duration d : draw(dist, 10000)) ASSERT_GE(d, 1ns);
}

TEST(ServiceTime, LognormalMatchesItsP50AndP99) {
  ServiceTimeDistribution dist(ServiceTimeConfig{.kind = "lognormal", .p50 = 20ms, .p99 = 200ms});
  EXPECT_NEAR(dist.mu(), std::log(0.020), 1e-12);
  EXPECT_NEAR(dist.sigma(), std::log(10.0) / 2.326347874040841, 1e-12);
  EXPECT_NEAR(inverse_normal_cdf(0.99), 2.326347874040841, 1e-12);
  EXPECT_NEAR(inverse_normal_cdf(0.5), 0.0, 1e-15);
  EXPECT_NEAR(inverse_normal_cdf(1e-6), -4.753424308822899, 1e-9);
  EXPECT_EQ(dist.quantile(0.5), 20ms);
  EXPECT_NEAR(static_cast<double>(dist.quantile(0.99).count()), 200e6, 1);

  const std::size_t n = 200000;
  auto xs = draw(dist, n);
  const double sigma = dist.sigma();
  const double mean = std::exp(dist.mu() + sigma * sigma / 2);
  EXPECT_NEAR(to_seconds(dist.mean()), mean, 1e-9);
  const double sd = mean * std::sqrt(std::exp(sigma * sigma) - 1);
  EXPECT_NEAR(mean_seconds(xs), mean, 4 * sd / std::sqrt(static_cast<double>(n)));
  std::sort(xs.begin(), xs.end());
  const double p50 = to_seconds(xs[n / 2]), p99 = to_seconds(xs[n * 99 / 100]);
  EXPECT_NEAR(p50, 0.020, 0.020 * 0.03);
  EXPECT_NEAR(p99, 0.200, 0.200 * 0.03);
}

TEST(ServiceTime, EmpiricalReproducesItsTable) {
  ServiceTimeDistribution dist(ServiceTimeConfig{.kind = "empirical", .samples = {7ms, 2ms, 1ms, 2ms}});
  const std::size_t n = 40000;
  std::map<Duration, std::size_t> counts;
  for (Duration d : draw(dist, n)) ++counts[d];
  ASSERT_EQ(counts.size(), 3u);
  const std::map<Duration, double> expected = {{1ms, 0.25}, {2ms, 0.5}, {7ms, 0.25}};
  for (const auto& [value, p] : expected) {
    const double mean = p * static_cast<double>(n);
    EXPECT_NEAR(static_cast<double>(counts[value]), mean, 4 * std::sqrt(mean * (1 - p))) << value.count();
  }
  EXPECT_EQ(dist.mean(), 3ms);
  EXPECT_EQ(dist.quantile(0.0), 1ms);
  EXPECT_EQ(dist.quantile(0.25), 1ms);
  EXPECT_EQ(dist.quantile(0.26), 2ms);
  EXPECT_EQ(dist.quantile(0.75), 2ms);
  EXPECT_EQ(dist.quantile(0.76), 7ms);
  EXPECT_EQ(dist.quantile(1.0), 7ms);
  EXPECT_EQ((ServiceTimeDistribution(ServiceTimeConfig{.kind = "empirical", .samples = {1ns, 2ns}}).mean()), 2ns);
}

TEST(ServiceTime, SameSeedSameDraws) {
  ServiceTimeDistribution dist(ServiceTimeConfig{.kind = "lognormal", .p50 = 5ms, .p99 = 80ms});
  EXPECT_EQ(draw(dist, 1000, 3), draw(dist, 1000, 3));
  EXPECT_NE(draw(dist, 1000, 3), draw(dist, 1000, 4));
}

TEST(ServiceTimeValidate, NamesTheField) {
  EXPECT_TRUE((ServiceTimeConfig{.kind = "exponential", .mean = 1ms}.validate().empty()));
  EXPECT_TRUE(has_problem(ServiceTimeConfig{.kind = "gamma"}.validate(), "kind", "constant, exponential"));
  EXPECT_TRUE(has_problem(ServiceTimeConfig{.kind = "constant"}.validate(), "value", "required"));
  EXPECT_TRUE(has_problem(ServiceTimeConfig{.kind = "exponential", .mean = 0ms}.validate(), "mean", "positive"));
  EXPECT_TRUE(has_problem(ServiceTimeConfig{.kind = "lognormal", .p50 = 20ms, .p99 = 10ms}.validate(), "p99",
                          "greater than p50 (10ms <= 20ms)"));
  EXPECT_TRUE(has_problem(ServiceTimeConfig{.kind = "lognormal", .p50 = 20ms, .p99 = 20ms}.validate(), "p99",
                          "greater than p50"));
  EXPECT_TRUE(has_problem(ServiceTimeConfig{.kind = "lognormal", .p99 = 20ms}.validate(), "p50", "required"));
  EXPECT_TRUE(has_problem(ServiceTimeConfig{.kind = "empirical"}.validate(), "samples", "at least one"));
  EXPECT_TRUE(has_problem(ServiceTimeConfig{.kind = "empirical", .samples = {1ms, -1ms}}.validate(), "samples[1]",
                          "positive"));
  EXPECT_TRUE(has_problem(ServiceTimeConfig{.kind = "constant", .value = 1ms, .mean = 2ms}.validate(), "mean",
                          "applies only to kind exponential"));
  EXPECT_THROW(ServiceTimeDistribution(ServiceTimeConfig{.kind = "lognormal", .p50 = 20ms, .p99 = 10ms}),
               SimulationError);
}

TEST(ServiceTimeValidate, AFileOnlyNamesWhereSamplesCameFrom) {
  // The scenario loader reads the file into samples; the model uses the samples.
  const ServiceTimeConfig loaded{.kind = "empirical", .samples = {3ms, 1ms}, .file = "/data/s.csv"};
  EXPECT_TRUE(loaded.validate().empty());
  EXPECT_EQ(ServiceTimeDistribution(loaded).mean(), 2ms);
  // Not read (a config built without the loader): there is nothing to draw from.
  EXPECT_TRUE(has_problem(ServiceTimeConfig{.kind = "empirical", .file = "s.csv"}.validate(), "samples",
                          "at least one"));
  EXPECT_TRUE(has_problem(ServiceTimeConfig{.kind = "exponential", .mean = 1ms, .file = "s.csv"}.validate(), "file",
                          "applies only to kind empirical, not exponential"));
}

}  // namespace
}  // namespace drsim

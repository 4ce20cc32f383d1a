#include "models/load/rate_profile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "sim/errors.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

static_assert(Described<RateProfileConfig> && Described<RateStageConfig> && Described<RatePointConfig>);

Rate rps(double r) { return Rate{r}; }
double rate_at(const RateProfile& p, Duration t) { return p.rate_at(at(t)).per_second; }
double lambda(const RateProfile& p, Duration a, Duration b) { return p.cumulative(at(a), at(b)); }

bool has_problem(const std::vector<ConfigProblem>& problems, std::string_view field, std::string_view fragment) {
  for (const auto& p : problems) {
    if (p.field == field && p.message.find(fragment) != std::string::npos) return true;
  }
  return false;
}

RateProfileConfig stages(std::vector<RateStageConfig> s, std::optional<Rate> start = std::nullopt) {
  return RateProfileConfig{.kind = "stages", .start_rate = start, .stages = std::move(s)};
}

TEST(RateProfile, ConstantRateAndIntegral) {
  RateProfile p(RateProfileConfig{.kind = "constant", .rate = rps(800)});
  EXPECT_DOUBLE_EQ(rate_at(p, 0s), 800);
  EXPECT_DOUBLE_EQ(rate_at(p, 1000h), 800);
  EXPECT_DOUBLE_EQ(lambda(p, 1s, 3500ms), 2000);
  EXPECT_DOUBLE_EQ(lambda(p, 2s, 2s), 0);
}

TEST(RateProfile, StagesRampFromZeroByDefaultAndHoldTheLastTarget) {
  // 0 -> 100 over 10s, hold 100 for 20s, 100 -> 0 over 10s.
  RateProfile p(stages({{10s, rps(100)}, {20s, rps(100)}, {10s, rps(0)}}));
  EXPECT_DOUBLE_EQ(rate_at(p, 0s), 0);
  EXPECT_DOUBLE_EQ(rate_at(p, 5s), 50);
  EXPECT_DOUBLE_EQ(rate_at(p, 10s), 100);
  EXPECT_DOUBLE_EQ(rate_at(p, 25s), 100);
  EXPECT_DOUBLE_EQ(rate_at(p, 35s), 50);
  EXPECT_DOUBLE_EQ(rate_at(p, 40s), 0);
  EXPECT_DOUBLE_EQ(rate_at(p, 1h), 0);
  // Trapezoids: 0.5*100*10 = 500; 100*20 = 2000; 500.
  EXPECT_DOUBLE_EQ(lambda(p, 0s, 10s), 500);
  EXPECT_DOUBLE_EQ(lambda(p, 0s, 30s), 2500);
  EXPECT_DOUBLE_EQ(lambda(p, 0s, 40s), 3000);
  EXPECT_DOUBLE_EQ(lambda(p, 0s, 100s), 3000);
  // (50+100)/2*5 + 2000 + (100+50)/2*5
  EXPECT_DOUBLE_EQ(lambda(p, 5s, 35s), 2750);
  EXPECT_DOUBLE_EQ(lambda(p, 2s, 4s), 0.5 * (20 + 40) * 2);
}

TEST(RateProfile, StagesWithStartRate) {
  RateProfile p(stages({{10s, rps(150)}}, rps(50)));
  EXPECT_DOUBLE_EQ(rate_at(p, 0s), 50);
  EXPECT_DOUBLE_EQ(rate_at(p, 5s), 100);
  EXPECT_DOUBLE_EQ(rate_at(p, 20s), 150);
  EXPECT_DOUBLE_EQ(lambda(p, 0s, 10s), 1000);
  EXPECT_DOUBLE_EQ(lambda(p, 0s, 20s), 2500);
}

TEST(RateProfile, ZeroDurationStageIsAStep) {
  RateProfile p(stages({{0s, rps(200)}, {10s, rps(0)}}));
  EXPECT_DOUBLE_EQ(rate_at(p, 0s), 200);
  EXPECT_DOUBLE_EQ(rate_at(p, 5s), 100);
  EXPECT_DOUBLE_EQ(lambda(p, 0s, 10s), 1000);
}

TEST(RateProfile, DiurnalSinusoidAndItsClosedFormIntegral) {
  // 100rps +- 50%, period 1h, peak at 15m.
  RateProfile p(RateProfileConfig{
      .kind = "diurnal", .base = rps(100), .amplitude = Ratio{0.5}, .period = 1h, .peak_at = 15min});
  EXPECT_NEAR(rate_at(p, 15min), 150, 1e-9);
  EXPECT_NEAR(rate_at(p, 30min), 100, 1e-9);
  EXPECT_NEAR(rate_at(p, 45min), 50, 1e-9);
  EXPECT_NEAR(rate_at(p, 75min), 150, 1e-9);
  EXPECT_NEAR(rate_at(p, 15min + 100h), 150, 1e-9);
  // A whole period carries base * period from anywhere.
  EXPECT_NEAR(lambda(p, 0s, 1h), 360000, 1e-6);
  EXPECT_NEAR(lambda(p, 7min, 7min + 1h), 360000, 1e-6);
  // int_0^900 100 (1 + 0.5 cos(2 pi (t - 900)/3600)) dt
  //   = 100 (900 + 0.5 * 3600/(2 pi) (sin 0 - sin(-pi/2)))
  EXPECT_NEAR(lambda(p, 0s, 15min), 100 * (900 + 0.5 * 3600 / (2 * std::numbers::pi)), 1e-6);
  // Trough to peak: 100 (1800 + 0.5*3600/(2 pi) (sin(2 pi) - sin(pi))) = 180000.
  EXPECT_NEAR(lambda(p, 45min, 75min), 180000, 1e-6);
  // Mean to trough: 100 (900 + 0.5*3600/(2 pi) (sin(pi) - sin(pi/2))).
  EXPECT_NEAR(lambda(p, 30min, 45min), 100 * (900 - 0.5 * 3600 / (2 * std::numbers::pi)), 1e-6);
}

TEST(RateProfile, DiurnalDefaultsToADayPeakingAtTheStart) {
  RateProfile p(RateProfileConfig{.kind = "diurnal", .base = rps(10), .amplitude = Ratio{1.0}});
  EXPECT_NEAR(rate_at(p, 0s), 20, 1e-12);
  EXPECT_NEAR(rate_at(p, 12h), 0, 1e-12);
  EXPECT_NEAR(rate_at(p, 6h), 10, 1e-9);
  EXPECT_NEAR(lambda(p, 0s, 24h), 10 * 86400, 1e-6);
}

TEST(RateProfile, TraceInterpolatesHoldsEndsAndSteps) {
  RateProfile p(RateProfileConfig{.kind = "trace",
                                  .points = {{5s, rps(10)}, {15s, rps(30)}, {15s, rps(0)}, {25s, rps(0)},
                                             {35s, rps(20)}}});
  EXPECT_DOUBLE_EQ(rate_at(p, 0s), 10);  // the first rate holds before the first point
  EXPECT_DOUBLE_EQ(rate_at(p, 10s), 20);
  EXPECT_DOUBLE_EQ(rate_at(p, 15s), 0);  // after the step
  EXPECT_DOUBLE_EQ(rate_at(p, 20s), 0);
  EXPECT_DOUBLE_EQ(rate_at(p, 30s), 10);
  EXPECT_DOUBLE_EQ(rate_at(p, 100s), 20);
  EXPECT_DOUBLE_EQ(lambda(p, 0s, 15s), 50 + 200);
  EXPECT_DOUBLE_EQ(lambda(p, 0s, 35s), 250 + 100);
  EXPECT_DOUBLE_EQ(lambda(p, 0s, 45s), 350 + 200);
  EXPECT_DOUBLE_EQ(lambda(p, 12s, 28s), 0.5 * (24 + 30) * 3 + 0.5 * (0 + 6) * 3);
}

TEST(RateProfile, InvertIsTheInverseOfTheIntegral) {
  RateProfile ramp(stages({{10s, rps(100)}, {20s, rps(100)}, {10s, rps(0)}}));
  // 0.5 * 10 t^2 = 125 at t = 5s.
  EXPECT_EQ(ramp.invert(kSimStart, 125), at(5s));
  EXPECT_EQ(ramp.invert(at(5s), 375 + 2000 + 375), at(35s));
  EXPECT_EQ(ramp.invert(at(5s), 1e9), kSimTimeMax);  // only 2875 more ever arrive
  RateProfile day(RateProfileConfig{
      .kind = "diurnal", .base = rps(100), .amplitude = Ratio{0.5}, .period = 1h, .peak_at = 15min});
  EXPECT_EQ(day.invert(kSimStart, 100 * (900 + 0.5 * 3600 / (2 * std::numbers::pi))), at(15min));
  EXPECT_EQ(day.invert(at(7min), 3 * 360000.0), at(7min + 3h));
  for (double m : {0.001, 0.7, 42.0, 12345.0, 400000.0}) {
    const SimTime t = day.invert(at(11s), m);
    EXPECT_NEAR(day.cumulative(at(11s), t), m, 150 * 1e-9) << m;
  }
}

TEST(RateProfile, RejectsAnInvalidConfigAndMisuse) {
  EXPECT_THROW(RateProfile(stages({})), SimulationError);
  RateProfile p(RateProfileConfig{.kind = "constant", .rate = rps(10)});
  EXPECT_THROW(p.cumulative(at(2s), at(1s)), SimulationError);
  EXPECT_THROW(p.invert(at(1s), -1), SimulationError);
  // A zero draw still lands strictly after t, and after a zero-rate span.
  EXPECT_EQ(p.invert(at(1s), 0), at(1s) + 1ns);
  RateProfile gap(stages({{10s, rps(0)}, {0s, rps(10)}}));
  EXPECT_EQ(gap.invert(kSimStart, 0), at(10s));
  EXPECT_EQ(gap.invert(at(3s), 1), at(10s) + 100ms);
}

TEST(RateProfileValidate, NamesTheField) {
  EXPECT_TRUE((RateProfileConfig{.kind = "constant", .rate = rps(1)}.validate().empty()));
  EXPECT_TRUE(has_problem(RateProfileConfig{.kind = "square"}.validate(), "kind", "constant, stages"));
  EXPECT_TRUE(has_problem(RateProfileConfig{.kind = "constant"}.validate(), "rate", "required"));
  EXPECT_TRUE(has_problem(RateProfileConfig{.kind = "constant", .rate = rps(-1)}.validate(), "rate", "negative"));
  EXPECT_TRUE(has_problem(stages({}).validate(), "stages", "at least one"));
  EXPECT_TRUE(has_problem(stages({{10s, rps(1)}, {-1s, rps(1)}}).validate(), "stages[1].duration", "negative"));
  EXPECT_TRUE(has_problem(stages({{10s, rps(-5)}}).validate(), "stages[0].target", "negative"));
  EXPECT_TRUE(has_problem(stages({{10s, rps(5)}}, rps(-1)).validate(), "startRate", "negative"));
  EXPECT_TRUE(has_problem(
      RateProfileConfig{.kind = "diurnal", .base = rps(1), .amplitude = Ratio{1.5}}.validate(), "amplitude",
      "between 0% and 100%"));
  EXPECT_TRUE(has_problem(RateProfileConfig{.kind = "diurnal", .base = rps(1)}.validate(), "amplitude", "required"));
  EXPECT_TRUE(has_problem(
      RateProfileConfig{.kind = "diurnal", .base = rps(1), .amplitude = Ratio{0.1}, .period = 0s}.validate(),
      "period", "positive"));
  EXPECT_TRUE(has_problem(RateProfileConfig{.kind = "trace"}.validate(), "points", "at least one"));
  EXPECT_TRUE(has_problem(
      RateProfileConfig{.kind = "trace", .points = {{0s, rps(1)}, {10s, rps(2)}, {5s, rps(3)}}}.validate(),
      "points[2].at", "sorted by time: 5s comes after 10s"));
  EXPECT_TRUE(has_problem(RateProfileConfig{.kind = "trace", .points = {{0s, rps(-1)}}}.validate(), "points[0].rate",
                          "negative"));
  // A field of another kind is an error, not silently ignored.
  EXPECT_TRUE(has_problem(RateProfileConfig{.kind = "constant", .rate = rps(1), .base = rps(2)}.validate(), "base",
                          "applies only to kind diurnal"));
}

TEST(RateProfileValidate, AFileOnlyNamesWherePointsCameFrom) {
  // The scenario loader reads the file into points; the model uses the points.
  const RateProfileConfig loaded{.kind = "trace", .points = {{0s, rps(5)}, {1min, rps(7)}}, .file = "/data/t.csv"};
  EXPECT_TRUE(loaded.validate().empty());
  EXPECT_DOUBLE_EQ(rate_at(RateProfile(loaded), 30s), 6);
  // Not read (a config built without the loader): there is nothing to replay.
  EXPECT_TRUE(has_problem(RateProfileConfig{.kind = "trace", .file = "t.csv"}.validate(), "points", "at least one"));
  EXPECT_THROW(RateProfile(RateProfileConfig{.kind = "trace", .file = "t.csv"}), SimulationError);
  EXPECT_TRUE(has_problem(RateProfileConfig{.kind = "constant", .rate = rps(1), .file = "t.csv"}.validate(), "file",
                          "applies only to kind trace, not constant"));
}

}  // namespace
}  // namespace drsim

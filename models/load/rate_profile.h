#pragma once
// The offered request rate of a client population over simulated time: a
// constant, k6-style `stages` ramps, a diurnal sinusoid, or a replayed rate
// trace. RateProfile evaluates the rate and its exact cumulative integral
// Lambda(t0, t1) (the expected number of arrivals in [t0, t1)), which the
// arrival process inverts.
//
//   constant: rate(t) = rate
//   stages:   piecewise linear; stage i ramps from the previous target (the
//             first from startRate, default 0) to its target over its
//             duration; a zero-duration stage is a step. After the last stage
//             its target holds.
//   diurnal:  rate(t) = base * (1 + amplitude * cos(2*pi*(t - peakAt)/period)),
//             peak base*(1+amplitude) at peakAt (+ k*period).
//   trace:    points {at, rate} linearly interpolated; the first rate holds
//             before the first point and the last rate after the last point.
//             Equal consecutive times make a step. The points are written
//             inline or come from a CSV file (`file`): the scenario loader
//             reads the file into `points` (io/csv_inputs.h), so the model
//             itself never touches a file.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

struct RateStageConfig {
  Duration duration{};
  Rate target{};

  static constexpr std::string_view kTypeName = "RateStage";
  static constexpr auto fields() {
    return std::tuple{
        field("duration", &RateStageConfig::duration, "How long the ramp to `target` takes; 0 makes a step.",
              kRequired | kNonNegative),
        field("target", &RateStageConfig::target, "Rate reached at the end of the stage.",
              kRequired | kNonNegative),
    };
  }
};

struct RatePointConfig {
  Duration at{};
  Rate rate{};

  static constexpr std::string_view kTypeName = "RatePoint";
  static constexpr auto fields() {
    return std::tuple{
        field("at", &RatePointConfig::at, "Time of the sample since the start of the run.",
              kRequired | kNonNegative),
        field("rate", &RatePointConfig::rate, "Rate at that time.", kRequired | kNonNegative),
    };
  }
};

struct RateProfileConfig {
  std::string kind = "constant";  // constant | stages | diurnal | trace
  // constant
  std::optional<Rate> rate;
  // stages
  std::optional<Rate> start_rate;
  std::vector<RateStageConfig> stages;
  // diurnal
  std::optional<Rate> base;
  std::optional<Ratio> amplitude;
  std::optional<Duration> period;  // default 24h
  std::optional<Duration> peak_at;  // default 0
  // trace
  std::vector<RatePointConfig> points;
  // trace: the CSV the points were read from (an absolute path once loaded);
  // unset when they are written inline. Only `points` is used by the model.
  std::optional<std::string> file;

  static constexpr Duration kDefaultPeriod = std::chrono::hours(24);

  static constexpr std::string_view kTypeName = "RateProfile";
  static constexpr auto fields() {
    return std::tuple{
        field("kind", &RateProfileConfig::kind, "Shape of the rate: constant, stages, diurnal or trace."),
        field("rate", &RateProfileConfig::rate, "kind constant: the rate.", kNonNegative),
        field("startRate", &RateProfileConfig::start_rate,
              "kind stages: rate the first stage ramps from (default 0).", kNonNegative),
        field("stages", &RateProfileConfig::stages,
              "kind stages: ramps, each linear from the previous target to its own; the last target holds."),
        field("base", &RateProfileConfig::base, "kind diurnal: mean rate over a period.", kNonNegative),
        field("amplitude", &RateProfileConfig::amplitude,
              "kind diurnal: relative swing around `base` (peak base*(1+amplitude)).",
              kNonNegative | kAtMostOne),
        field("period", &RateProfileConfig::period, "kind diurnal: length of one cycle (default 24h).",
              kPositive),
        field("peakAt", &RateProfileConfig::peak_at, "kind diurnal: offset of the peak from the start (default 0).",
              kNonNegative),
        field("points", &RateProfileConfig::points,
              "kind trace: {at, rate} samples sorted by time, linearly interpolated; the last rate holds."),
        field("file", &RateProfileConfig::file,
              "kind trace: a CSV file of the points instead of `points`: a header `at,rate`, then a point a "
              "row (see CSV inputs). Relative to the file that names it."),
    };
  }

  // Every problem, with the key of the field it concerns; empty when valid.
  std::vector<ConfigProblem> validate() const;
};

class RateProfile {
 public:
  // Throws SimulationError when config.validate() reports a problem.
  explicit RateProfile(const RateProfileConfig& config);

  // Rate at t (t >= kSimStart). At a step the rate after the step applies.
  Rate rate_at(SimTime t) const;
  // Exact expected number of arrivals in [t0, t1), kSimStart <= t0 <= t1.
  double cumulative(SimTime t0, SimTime t1) const;

  // The smallest t' > t, rounded to the nanosecond, with cumulative(t, t') =
  // mass (>= 0); kSimTimeMax when the rate stays zero too long to reach it.
  // Exact per linear piece; bracketed Newton to well below 1 ns for diurnal.
  SimTime invert(SimTime t, double mass) const;

  bool is_diurnal() const { return diurnal_; }

 private:
  struct Piece {  // linear from r0 at t0 to r1 at t1, per second; [t0, t1)
    std::int64_t t0, t1;
    double r0, r1;
  };
  std::size_t piece_index(std::int64_t t) const;
  double piece_rate(const Piece& p, std::int64_t t) const;
  double piece_mass(const Piece& p, std::int64_t a, std::int64_t b) const;
  double diurnal_phase(std::int64_t t) const;  // radians in [0, 2pi)
  double diurnal_mass_from(std::int64_t t, double seconds) const;

  bool diurnal_ = false;
  // piecewise linear (constant, stages, trace): pieces_ cover [0, inf), the
  // last one with t1 = INT64_MAX and r0 == r1.
  std::vector<Piece> pieces_;
  // diurnal
  double base_ = 0, amplitude_ = 0;
  std::int64_t period_ns_ = 0, peak_ns_ = 0;
};

}  // namespace drsim

#pragma once
// How long one request occupies a server. Kinds:
//   constant:    always `value`.
//   exponential: mean `mean`.
//   lognormal:   by its median and 99th percentile, as latency is usually
//                quoted: mu = ln(p50), sigma = (ln(p99) - ln(p50)) / z_0.99.
//   empirical:   `samples`, a list of observed service times; each draw picks
//                one of them uniformly (a bootstrap), so the distribution is
//                exactly the samples' empirical distribution. quantile(q) is
//                the inverse empirical CDF (the smallest sample x with
//                F(x) >= q). The samples are written inline or come from
//                a CSV file (`file`): the scenario loader reads the file
//                into `samples` (io/csv_inputs.h), so the model itself
//                never touches a file.
// Samples are rounded to the ns and are at least 1 ns.
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace drsim {

// z such that Phi(z) = 0.99.
inline constexpr double kZ099 = 2.3263478740408408;

struct ServiceTimeConfig {
  std::string kind = "exponential";  // constant | exponential | lognormal | empirical
  std::optional<Duration> value;     // constant
  std::optional<Duration> mean;      // exponential
  std::optional<Duration> p50;       // lognormal
  std::optional<Duration> p99;       // lognormal
  std::vector<Duration> samples;     // empirical
  // empirical: the CSV the samples were read from (an absolute path once
  // loaded); unset when they are written inline. Only `samples` is used here.
  std::optional<std::string> file;

  static constexpr std::string_view kTypeName = "ServiceTime";
  static constexpr auto fields() {
    return std::tuple{
        field("kind", &ServiceTimeConfig::kind,
              "Distribution: constant, exponential, lognormal or empirical."),
        field("value", &ServiceTimeConfig::value, "kind constant: the service time.", kPositive),
        field("mean", &ServiceTimeConfig::mean, "kind exponential: the mean service time.", kPositive),
        field("p50", &ServiceTimeConfig::p50, "kind lognormal: the median service time.", kPositive),
        field("p99", &ServiceTimeConfig::p99, "kind lognormal: the 99th percentile, greater than p50.",
              kPositive),
        field("samples", &ServiceTimeConfig::samples,
              "kind empirical: observed service times; draws pick one uniformly."),
        field("file", &ServiceTimeConfig::file,
              "kind empirical: a CSV file of the samples instead of `samples`: a header `duration`, then a "
              "sample a row (see CSV inputs). Relative to the file that names it."),
    };
  }

  // Every problem, with the key of the field it concerns; empty when valid.
  std::vector<ConfigProblem> validate() const;
};

class ServiceTimeDistribution {
 public:
  enum class Kind { kConstant, kExponential, kLognormal, kEmpirical };

  // Throws SimulationError when config.validate() reports a problem.
  explicit ServiceTimeDistribution(const ServiceTimeConfig& config);

  // One draw, >= 1 ns. Constant draws nothing from rng.
  Duration sample(RngStream& rng) const;
  // The distribution's mean (the samples' mean for empirical), rounded to the ns.
  Duration mean() const;
  // The q-quantile, 0 < q < 1 (0 <= q <= 1 for constant and empirical).
  // Throws SimulationError outside that range.
  Duration quantile(double q) const;

  Kind kind() const { return kind_; }
  // Log-normal parameters (in ln seconds); 0 for the other kinds.
  double mu() const { return mu_; }
  double sigma() const { return sigma_; }

 private:
  Kind kind_;
  Duration value_{};              // constant; mean for exponential
  double mu_ = 0, sigma_ = 0;     // lognormal
  std::vector<Duration> sorted_;  // empirical, ascending
  std::vector<Duration> samples_;  // empirical, as configured
};

// Inverse of the standard normal CDF, 0 < p < 1 (Acklam's rational
// approximation refined by one Halley step; relative error ~1e-15).
double inverse_normal_cdf(double p);

}  // namespace drsim

#include "models/load/service_time.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "sim/errors.h"
#include "sim/units.h"

namespace drsim {
namespace {

constexpr double kNsPerSecond = 1e9;

// Seconds to ns, rounded, clamped to [1 ns, a safe maximum].
Duration from_seconds(double seconds) {
  constexpr double kMaxNs = 4.0e18;  // ~127 years, well inside int64
  const double ns = std::round(seconds * kNsPerSecond);
  if (!(ns >= 1)) return Duration{1};
  if (ns > kMaxNs) return Duration{static_cast<std::int64_t>(kMaxNs)};
  return Duration{static_cast<std::int64_t>(ns)};
}

}  // namespace

double inverse_normal_cdf(double p) {
  if (!(p > 0 && p < 1)) throw SimulationError("inverse_normal_cdf: expected 0 < p < 1");
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double p_low = 0.02425, p_high = 1 - p_low;
  double x;
  if (p < p_low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= p_high) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // One Halley step on Phi(x) - p.
  const double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

std::vector<ConfigProblem> ServiceTimeConfig::validate() const {
  std::vector<ConfigProblem> problems;
  auto problem = [&](std::string key, std::string message) {
    problems.push_back({std::move(key), std::move(message)});
  };
  const bool is_constant = kind == "constant", is_exponential = kind == "exponential",
             is_lognormal = kind == "lognormal", is_empirical = kind == "empirical";
  if (!is_constant && !is_exponential && !is_lognormal && !is_empirical) {
    problem("kind", "expected one of constant, exponential, lognormal, empirical, got \"" + kind + "\"");
    return problems;
  }
  auto only_for = [&](bool present, bool allowed, std::string_view key, std::string_view for_kind) {
    if (present && !allowed) {
      problem(std::string(key), "applies only to kind " + std::string(for_kind) + ", not " + kind);
    }
  };
  only_for(value.has_value(), is_constant, "value", "constant");
  only_for(mean.has_value(), is_exponential, "mean", "exponential");
  only_for(p50.has_value(), is_lognormal, "p50", "lognormal");
  only_for(p99.has_value(), is_lognormal, "p99", "lognormal");
  only_for(!samples.empty(), is_empirical, "samples", "empirical");
  only_for(file.has_value(), is_empirical, "file", "empirical");

  auto positive = [&](const std::optional<Duration>& d, std::string_view key) {
    if (!d) {
      problem(std::string(key), "required for kind " + kind);
      return false;
    }
    if (*d <= Duration::zero()) {
      problem(std::string(key), "must be positive");
      return false;
    }
    return true;
  };
  if (is_constant) positive(value, "value");
  if (is_exponential) positive(mean, "mean");
  if (is_lognormal) {
    const bool ok50 = positive(p50, "p50");
    const bool ok99 = positive(p99, "p99");
    if (ok50 && ok99 && *p99 <= *p50) {
      problem("p99", "must be greater than p50 (" + format_duration(*p99) + " <= " + format_duration(*p50) + ")");
    }
  }
  if (is_empirical) {
    if (samples.empty()) problem("samples", "at least one sample is required");
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (samples[i] <= Duration::zero()) problem("samples[" + std::to_string(i) + "]", "must be positive");
    }
  }
  return problems;
}

ServiceTimeDistribution::ServiceTimeDistribution(const ServiceTimeConfig& config) {
  if (auto problems = config.validate(); !problems.empty()) {
    throw SimulationError("ServiceTime: " + problems.front().field + ": " + problems.front().message);
  }
  if (config.kind == "constant") {
    kind_ = Kind::kConstant;
    value_ = *config.value;
  } else if (config.kind == "exponential") {
    kind_ = Kind::kExponential;
    value_ = *config.mean;
  } else if (config.kind == "lognormal") {
    kind_ = Kind::kLognormal;
    const double ln50 = std::log(to_seconds(*config.p50));
    const double ln99 = std::log(to_seconds(*config.p99));
    mu_ = ln50;
    sigma_ = (ln99 - ln50) / kZ099;
  } else {
    kind_ = Kind::kEmpirical;
    samples_ = config.samples;
    sorted_ = config.samples;
    std::sort(sorted_.begin(), sorted_.end());
  }
}

Duration ServiceTimeDistribution::sample(RngStream& rng) const {
  switch (kind_) {
    case Kind::kConstant:
      return value_;
    case Kind::kExponential:
      return from_seconds(rng.exponential(to_seconds(value_)));
    case Kind::kLognormal:
      return from_seconds(rng.lognormal(mu_, sigma_));
    case Kind::kEmpirical:
      return samples_[rng.below(samples_.size())];
  }
  return value_;
}

Duration ServiceTimeDistribution::mean() const {
  switch (kind_) {
    case Kind::kConstant:
    case Kind::kExponential:
      return value_;
    case Kind::kLognormal:
      return from_seconds(std::exp(mu_ + sigma_ * sigma_ / 2));
    case Kind::kEmpirical: {
      // Exact without overflow: sum of quotients plus the rounded mean of remainders.
      const auto n = static_cast<std::int64_t>(samples_.size());
      std::int64_t quotients = 0, remainders = 0;
      for (Duration d : samples_) {
        quotients += d.count() / n;
        remainders += d.count() % n;
      }
      return Duration{quotients + (remainders + n / 2) / n};
    }
  }
  return value_;
}

Duration ServiceTimeDistribution::quantile(double q) const {
  const bool closed = kind_ == Kind::kConstant || kind_ == Kind::kEmpirical;
  if (!(closed ? (q >= 0 && q <= 1) : (q > 0 && q < 1))) {
    throw SimulationError("ServiceTimeDistribution::quantile: q out of range");
  }
  switch (kind_) {
    case Kind::kConstant:
      return value_;
    case Kind::kExponential:
      return from_seconds(-to_seconds(value_) * std::log1p(-q));
    case Kind::kLognormal:
      return from_seconds(std::exp(mu_ + sigma_ * inverse_normal_cdf(q)));
    case Kind::kEmpirical: {
      // Smallest x with F(x) >= q: index ceil(q n) - 1, at least 0.
      const double n = static_cast<double>(sorted_.size());
      const auto k = static_cast<std::size_t>(std::max(0.0, std::ceil(q * n) - 1));
      return sorted_[std::min(k, sorted_.size() - 1)];
    }
  }
  return value_;
}

}  // namespace drsim

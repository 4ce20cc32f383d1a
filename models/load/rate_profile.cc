#include "models/load/rate_profile.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "sim/errors.h"

namespace drsim {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
constexpr double kNsPerSecond = 1e9;

bool valid_rate(Rate r) { return std::isfinite(r.per_second) && r.per_second >= 0; }

std::string indexed(std::string_view list, std::size_t i, std::string_view key) {
  return std::string(list) + "[" + std::to_string(i) + "]." + std::string(key);
}

// Adds `seconds` (>= 0) to t in ns, rounding to the nearest ns; kNever on overflow.
std::int64_t advance(std::int64_t t, double seconds) {
  const double ns = std::round(seconds * kNsPerSecond);
  if (!(ns < static_cast<double>(kNever - t))) return kNever;
  return t + static_cast<std::int64_t>(ns);
}

}  // namespace

std::vector<ConfigProblem> RateProfileConfig::validate() const {
  std::vector<ConfigProblem> problems;
  auto problem = [&](std::string key, std::string message) {
    problems.push_back({std::move(key), std::move(message)});
  };
  const bool is_constant = kind == "constant", is_stages = kind == "stages", is_diurnal = kind == "diurnal",
             is_trace = kind == "trace";
  if (!is_constant && !is_stages && !is_diurnal && !is_trace) {
    problem("kind", "expected one of constant, stages, diurnal, trace, got \"" + kind + "\"");
    return problems;
  }
  auto only_for = [&](bool present, bool allowed, std::string_view key, std::string_view for_kind) {
    if (present && !allowed) {
      problem(std::string(key), "applies only to kind " + std::string(for_kind) + ", not " + kind);
    }
  };
  only_for(rate.has_value(), is_constant, "rate", "constant");
  only_for(start_rate.has_value(), is_stages, "startRate", "stages");
  only_for(!stages.empty(), is_stages, "stages", "stages");
  only_for(base.has_value(), is_diurnal, "base", "diurnal");
  only_for(amplitude.has_value(), is_diurnal, "amplitude", "diurnal");
  only_for(period.has_value(), is_diurnal, "period", "diurnal");
  only_for(peak_at.has_value(), is_diurnal, "peakAt", "diurnal");
  only_for(!points.empty(), is_trace, "points", "trace");
  only_for(file.has_value(), is_trace, "file", "trace");

  if (is_constant) {
    if (!rate) {
      problem("rate", "required for kind constant");
    } else if (!valid_rate(*rate)) {
      problem("rate", "must not be negative");
    }
  }
  if (is_stages) {
    if (start_rate && !valid_rate(*start_rate)) problem("startRate", "must not be negative");
    if (stages.empty()) problem("stages", "at least one stage is required");
    for (std::size_t i = 0; i < stages.size(); ++i) {
      if (stages[i].duration < Duration::zero()) problem(indexed("stages", i, "duration"), "must not be negative");
      if (!valid_rate(stages[i].target)) problem(indexed("stages", i, "target"), "must not be negative");
    }
  }
  if (is_diurnal) {
    if (!base) {
      problem("base", "required for kind diurnal");
    } else if (!valid_rate(*base)) {
      problem("base", "must not be negative");
    }
    if (!amplitude) {
      problem("amplitude", "required for kind diurnal");
    } else if (!(amplitude->value >= 0 && amplitude->value <= 1)) {
      problem("amplitude", "must be between 0% and 100%");
    }
    if (period && *period <= Duration::zero()) problem("period", "must be positive");
    if (peak_at && *peak_at < Duration::zero()) problem("peakAt", "must not be negative");
  }
  if (is_trace) {
    if (points.empty()) problem("points", "at least one point is required");
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (points[i].at < Duration::zero()) problem(indexed("points", i, "at"), "must not be negative");
      if (!valid_rate(points[i].rate)) problem(indexed("points", i, "rate"), "must not be negative");
      if (i > 0 && points[i].at < points[i - 1].at) {
        problem(indexed("points", i, "at"), "points must be sorted by time: " + format_duration(points[i].at) +
                                                " comes after " + format_duration(points[i - 1].at));
      }
    }
  }
  return problems;
}

RateProfile::RateProfile(const RateProfileConfig& config) {
  if (auto problems = config.validate(); !problems.empty()) {
    throw SimulationError("RateProfile: " + problems.front().field + ": " + problems.front().message);
  }
  auto add = [&](std::int64_t t0, std::int64_t t1, double r0, double r1) {
    if (t1 > t0) pieces_.push_back({t0, t1, r0, r1});
  };
  if (config.kind == "constant") {
    add(0, kNever, config.rate->per_second, config.rate->per_second);
  } else if (config.kind == "stages") {
    std::int64_t t = 0;
    double prev = config.start_rate ? config.start_rate->per_second : 0.0;
    for (const auto& stage : config.stages) {
      const std::int64_t d = to_ns(stage.duration);
      if (d > kNever - t) throw SimulationError("RateProfile: stages: total duration overflows the time range");
      add(t, t + d, prev, stage.target.per_second);
      t += d;
      prev = stage.target.per_second;
    }
    add(t, kNever, prev, prev);
  } else if (config.kind == "trace") {
    const auto& pts = config.points;
    add(0, to_ns(pts.front().at), pts.front().rate.per_second, pts.front().rate.per_second);
    for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
      add(to_ns(pts[i].at), to_ns(pts[i + 1].at), pts[i].rate.per_second, pts[i + 1].rate.per_second);
    }
    add(to_ns(pts.back().at), kNever, pts.back().rate.per_second, pts.back().rate.per_second);
  } else {
    diurnal_ = true;
    base_ = config.base->per_second;
    amplitude_ = config.amplitude->value;
    period_ns_ = to_ns(config.period.value_or(RateProfileConfig::kDefaultPeriod));
    peak_ns_ = to_ns(config.peak_at.value_or(Duration::zero())) % period_ns_;
  }
}

std::size_t RateProfile::piece_index(std::int64_t t) const {
  auto it = std::upper_bound(pieces_.begin(), pieces_.end(), t,
                             [](std::int64_t v, const Piece& p) { return v < p.t0; });
  return static_cast<std::size_t>(it - pieces_.begin()) - 1;  // pieces_[0].t0 == 0 <= t
}

double RateProfile::piece_rate(const Piece& p, std::int64_t t) const {
  if (p.r0 == p.r1) return p.r0;
  return p.r0 + (p.r1 - p.r0) * (static_cast<double>(t - p.t0) / static_cast<double>(p.t1 - p.t0));
}

double RateProfile::piece_mass(const Piece& p, std::int64_t a, std::int64_t b) const {
  // Trapezoid: exact for a linear rate.
  return static_cast<double>(b - a) / kNsPerSecond * 0.5 * (piece_rate(p, a) + piece_rate(p, b));
}

double RateProfile::diurnal_phase(std::int64_t t) const {
  std::int64_t r = (t % period_ns_) - peak_ns_;  // exact, in (-period, period)
  if (r < 0) r += period_ns_;
  return 2 * std::numbers::pi * (static_cast<double>(r) / static_cast<double>(period_ns_));
}

// Integral of the diurnal rate over [t, t + seconds].
double RateProfile::diurnal_mass_from(std::int64_t t, double seconds) const {
  const double period_s = static_cast<double>(period_ns_) / kNsPerSecond;
  const double phi0 = diurnal_phase(t);
  const double phi1 = phi0 + 2 * std::numbers::pi * seconds / period_s;
  return base_ * (seconds + amplitude_ * period_s / (2 * std::numbers::pi) * (std::sin(phi1) - std::sin(phi0)));
}

Rate RateProfile::rate_at(SimTime t) const {
  const std::int64_t ns = to_ns(t);
  if (ns < 0) throw SimulationError("RateProfile::rate_at: time before the start of the run");
  if (diurnal_) return Rate{base_ * (1 + amplitude_ * std::cos(diurnal_phase(ns)))};
  return Rate{piece_rate(pieces_[piece_index(ns)], ns)};
}

double RateProfile::cumulative(SimTime t0, SimTime t1) const {
  const std::int64_t a = to_ns(t0), b = to_ns(t1);
  if (a < 0 || b < a) throw SimulationError("RateProfile::cumulative: expected 0 <= t0 <= t1");
  if (diurnal_) {
    const double period_s = static_cast<double>(period_ns_) / kNsPerSecond;
    return base_ * (static_cast<double>(b - a) / kNsPerSecond +
                    amplitude_ * period_s / (2 * std::numbers::pi) *
                        (std::sin(diurnal_phase(b)) - std::sin(diurnal_phase(a))));
  }
  double total = 0;
  for (std::size_t i = piece_index(a); i < pieces_.size() && pieces_[i].t0 < b; ++i) {
    const Piece& p = pieces_[i];
    total += piece_mass(p, std::max(a, p.t0), std::min(b, p.t1));
  }
  return total;
}

SimTime RateProfile::invert(SimTime t, double mass) const {
  const std::int64_t start = to_ns(t);
  if (start < 0) throw SimulationError("RateProfile::invert: time before the start of the run");
  if (!(mass >= 0) || !std::isfinite(mass)) throw SimulationError("RateProfile::invert: mass must be >= 0");
  // A zero draw still has to wait for a positive rate.
  mass = std::max(mass, std::numeric_limits<double>::min());
  auto strictly_after = [&](std::int64_t ns) { return SimTime{Duration{std::max(ns, start + 1)}}; };

  if (diurnal_) {
    if (base_ <= 0) return kSimTimeMax;
    const double period_s = static_cast<double>(period_ns_) / kNsPerSecond;
    // Every whole period carries exactly base * period.
    const double per_period = base_ * period_s;
    const double whole = std::floor(mass / per_period);
    const double rest = mass - whole * per_period;
    if (whole >= static_cast<double>((kNever - start) / period_ns_)) return kSimTimeMax;
    const std::int64_t skip = static_cast<std::int64_t>(whole) * period_ns_;
    // Solve diurnal_mass_from(start + skip, x) = rest on [0, period]:
    // increasing, -rest at 0 and per_period - rest >= 0 at period.
    const std::int64_t from = start + skip;
    const double phi0 = diurnal_phase(from);
    double lo = 0, hi = period_s, x = std::clamp(rest / base_, lo, hi);
    for (int iter = 0; iter < 200 && hi - lo > 1e-12; ++iter) {
      const double f = diurnal_mass_from(from, x) - rest;
      if (f == 0) break;
      (f < 0 ? lo : hi) = x;
      const double slope = base_ * (1 + amplitude_ * std::cos(phi0 + 2 * std::numbers::pi * x / period_s));
      double next = slope > 0 ? x - f / slope : lo;
      if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
      const bool converged = std::abs(next - x) < 1e-12;
      x = next;
      if (converged) break;
    }
    const std::int64_t end = advance(from, x);
    return end == kNever ? kSimTimeMax : strictly_after(end);
  }

  double remaining = mass;
  std::int64_t pos = start;
  for (std::size_t i = piece_index(start); i < pieces_.size(); ++i) {
    const Piece& p = pieces_[i];
    if (p.t1 == kNever) {  // the constant tail
      if (p.r0 <= 0) return kSimTimeMax;
      const std::int64_t end = advance(pos, remaining / p.r0);
      return end == kNever ? kSimTimeMax : strictly_after(end);
    }
    const double m = piece_mass(p, pos, p.t1);
    if (m >= remaining) {
      // rate(pos + x) = a + s x; a x + s x^2 / 2 = remaining, the stable root.
      const double a = piece_rate(p, pos);
      const double s = (p.r1 - p.r0) / (static_cast<double>(p.t1 - p.t0) / kNsPerSecond);
      const double x = 2 * remaining / (a + std::sqrt(std::max(0.0, a * a + 2 * s * remaining)));
      return strictly_after(std::min(advance(pos, x), p.t1));
    }
    remaining -= m;
    pos = p.t1;
  }
  return kSimTimeMax;  // unreachable: the tail always ends the loop
}

}  // namespace drsim

#include "sim/quantile_sketch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sim/errors.h"

namespace drsim {

namespace {
constexpr std::size_t kInitialBuckets = 128;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

QuantileSketch::QuantileSketch(double relative_accuracy, std::size_t max_buckets)
    : alpha_(relative_accuracy), max_buckets_(max_buckets) {
  if (!(relative_accuracy >= 1e-6 && relative_accuracy <= 0.5)) {
    throw SimulationError("quantile sketch: relative accuracy must be in [1e-6, 0.5], got " +
                          std::to_string(relative_accuracy));
  }
  if (max_buckets < 2) {
    throw SimulationError("quantile sketch: max_buckets must be at least 2, got " + std::to_string(max_buckets));
  }
  gamma_ = (1 + alpha_) / (1 - alpha_);
  log_gamma_ = std::log(gamma_);
  inv_log_gamma_ = 1 / log_gamma_;
  index_margin_ = 1e-11 * inv_log_gamma_;
}

double QuantileSketch::representative(std::int32_t index) const {
  return 2 * std::exp(static_cast<double>(index) * log_gamma_) / (gamma_ + 1);
}

void QuantileSketch::add(double value, std::uint64_t count) {
  if (!(value >= 0) || !std::isfinite(value)) {
    throw SimulationError("quantile sketch: values must be finite and >= 0, got " + std::to_string(value));
  }
  if (count == 0) return;
  if (empty()) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  sum_ += value * static_cast<double>(count);
  if (value == 0) {
    zero_count_ += count;
  } else {
    add_to_bucket(index_of(value), count);
  }
}

void QuantileSketch::add_to_bucket(std::int32_t index32, std::uint64_t count) {
  std::int64_t index = index32;
  const auto max_span = static_cast<std::int64_t>(max_buckets_);
  if (bucketed_count_ == 0) {
    if (counts_.empty()) counts_.assign(std::min(kInitialBuckets, max_buckets_), 0);
    offset_ = index - static_cast<std::int64_t>(counts_.size() / 2);
    lo_ = hi_ = index;
  } else if (index < lo_) {
    if (hi_ - index + 1 > max_span) {
      index = hi_ - max_span + 1;  // folds into the lowest kept bucket (<= lo_)
      collapsed_ = true;
    }
    if (index < offset_) reposition(index, hi_);
    lo_ = index;
  } else if (index > hi_) {
    if (index - lo_ + 1 > max_span) {
      // Fold every bucket below new_lo into new_lo.
      const std::int64_t new_lo = index - max_span + 1;
      std::uint64_t folded = 0;
      for (std::int64_t i = lo_; i <= std::min(hi_, new_lo - 1); ++i) {
        folded += counts_[static_cast<std::size_t>(i - offset_)];
        counts_[static_cast<std::size_t>(i - offset_)] = 0;
      }
      reposition(new_lo, index);
      counts_[static_cast<std::size_t>(new_lo - offset_)] += folded;
      lo_ = new_lo;
      collapsed_ = true;
    } else if (index >= offset_ + static_cast<std::int64_t>(counts_.size())) {
      reposition(lo_, index);
    }
    hi_ = index;
  }
  counts_[static_cast<std::size_t>(index - offset_)] += count;
  bucketed_count_ += count;
}

void QuantileSketch::reposition(std::int64_t need_lo, std::int64_t need_hi) {
  const auto size = static_cast<std::int64_t>(counts_.size());
  const std::int64_t need = need_hi - need_lo + 1;
  std::int64_t new_size = size;
  if (need > size) new_size = std::min(static_cast<std::int64_t>(max_buckets_), std::max(2 * size, need));
  // Centre the needed range so that it can widen either way without moving again.
  const std::int64_t new_offset = need_lo - (new_size - need) / 2;
  if (new_size == size) {
    // In place: a cyclic rotation puts every non-zero count at its new slot
    // (none of them wraps, as all lie in [need_lo, need_hi]); only zeros wrap.
    const std::int64_t shift = ((offset_ - new_offset) % size + size) % size;  // to the right
    std::rotate(counts_.begin(), counts_.begin() + (size - shift) % size, counts_.end());
  } else {
    std::vector<std::uint64_t> grown(static_cast<std::size_t>(new_size), 0);
    for (std::int64_t k = 0; k < size; ++k) {
      const std::int64_t i = offset_ + k;
      if (i >= new_offset && i < new_offset + new_size) grown[static_cast<std::size_t>(i - new_offset)] = counts_[k];
    }
    counts_.swap(grown);
  }
  offset_ = new_offset;
}

void QuantileSketch::merge(const QuantileSketch& other) {
  if (other.alpha_ != alpha_) {
    throw SimulationError("quantile sketch: cannot merge sketches of relative accuracy " + std::to_string(alpha_) +
                          " and " + std::to_string(other.alpha_));
  }
  if (other.empty()) return;
  if (empty()) {
    min_ = other.min_;
    max_ = other.max_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  sum_ += other.sum_;
  zero_count_ += other.zero_count_;
  if (other.collapsed_) collapsed_ = true;
  if (other.bucketed_count_ == 0) return;
  // Highest first: the kept range is then fixed by the first add and the rest
  // only widens downwards (or folds into the lowest kept bucket).
  for (std::int64_t i = other.hi_; i >= other.lo_; --i) {
    const std::uint64_t c = other.counts_[static_cast<std::size_t>(i - other.offset_)];
    if (c != 0) add_to_bucket(static_cast<std::int32_t>(i), c);
  }
}

void QuantileSketch::clear() {
  if (bucketed_count_ != 0) {
    std::fill(counts_.begin() + (lo_ - offset_), counts_.begin() + (hi_ - offset_) + 1, 0);
  }
  bucketed_count_ = 0;
  zero_count_ = 0;
  sum_ = 0;
  min_ = max_ = 0;
  collapsed_ = false;
}

double QuantileSketch::quantile(double q) const {
  if (!(q >= 0 && q <= 1)) {
    throw SimulationError("quantile sketch: q must be in [0, 1], got " + std::to_string(q));
  }
  const std::uint64_t n = count();
  if (n == 0) return kNaN;
  const auto rank = static_cast<std::uint64_t>(q * static_cast<double>(n - 1));
  // The extremes are known exactly.
  if (rank == 0) return min_;
  if (rank == n - 1) return max_;
  if (rank < zero_count_) return 0;
  std::uint64_t seen = zero_count_;
  double estimate = max_;
  for (std::int64_t i = lo_; i <= hi_; ++i) {
    seen += counts_[static_cast<std::size_t>(i - offset_)];
    if (seen > rank) {
      estimate = representative(static_cast<std::int32_t>(i));
      break;
    }
  }
  return std::clamp(estimate, min_, max_);
}

double QuantileSketch::min() const { return empty() ? kNaN : min_; }
double QuantileSketch::max() const { return empty() ? kNaN : max_; }
double QuantileSketch::mean() const { return empty() ? kNaN : sum_ / static_cast<double>(count()); }

std::size_t QuantileSketch::bucket_count() const {
  return bucketed_count_ == 0 ? 0 : static_cast<std::size_t>(hi_ - lo_ + 1);
}

}  // namespace drsim

#pragma once
// A relative-error quantile sketch in the style of DDSketch (Masson, Rim and
// Lee, VLDB 2019), for latencies and other non-negative values.
//
// Idea: with gamma = (1 + alpha) / (1 - alpha), a positive value x falls in
// bucket i = ceil(log_gamma(x)), which covers (gamma^(i-1), gamma^i]. Every
// value in a bucket is within relative error alpha of the bucket's
// representative 2 * gamma^i / (gamma + 1). A quantile walks the counts to the
// bucket that holds the wanted rank, so the answer is within alpha of the
// exact sample quantile (relative accuracy, independent of the distribution).
// Zeros are counted apart. Two sketches with the same alpha merge by adding
// counts bucket by bucket: the merge equals the sketch of the union.
//
// Memory is bounded: at most max_buckets contiguous buckets are kept. When a
// value would need more, the lowest buckets are collapsed into the lowest kept
// one; the high quantiles (the ones that matter for latency) stay within
// alpha, the quantiles that fall in the collapsed bucket lose that guarantee.
// With alpha = 1% the default 2048 buckets span a ratio of about 3.6e17, so
// latencies from 1 ns to 1 hour never collapse.
//
// Recording is O(1) and allocates only when the kept range widens beyond what
// was allocated before; clear() keeps the storage, so a sketch reused once per
// window stops allocating after the first windows.
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace drsim {

namespace sketch_log {
// The logarithm table of QuantileSketch::index_of: for each of the 128
// slices of [1, 2) by the top mantissa bits, the slice centre's reciprocal
// and logarithm. Computed at compile time by a series; an error of a few ulps
// in an entry is far inside the sketch's index margin.
inline constexpr int kTableBits = 7;
inline constexpr std::size_t kTableSize = std::size_t{1} << kTableBits;
inline constexpr double kLn2 = 0.69314718055994530942;
struct Entry {
  double inv_centre;
  double log_centre;
};
constexpr double series_log(double c) {
  // log(c) = 2 atanh(y), y = (c - 1) / (c + 1) < 1/3 here: the series of
  // y^(2k+1) / (2k+1) reaches double precision well within 40 terms.
  const double y = (c - 1) / (c + 1);
  double term = y, sum = 0;
  for (int k = 0; k < 40; ++k) {
    sum += term / (2 * k + 1);
    term *= y * y;
  }
  return 2 * sum;
}
constexpr std::array<Entry, kTableSize> make_table() {
  std::array<Entry, kTableSize> table{};
  for (std::size_t k = 0; k < kTableSize; ++k) {
    const double centre = 1.0 + (static_cast<double>(k) + 0.5) / static_cast<double>(kTableSize);
    table[k] = Entry{1.0 / centre, series_log(centre)};
  }
  return table;
}
inline constexpr std::array<Entry, kTableSize> kTable = make_table();
}  // namespace sketch_log

class QuantileSketch {
 public:
  static constexpr double kDefaultRelativeAccuracy = 0.01;
  static constexpr std::size_t kDefaultMaxBuckets = 2048;

  // relative_accuracy (alpha) in [1e-6, 0.5]; max_buckets >= 2. Throws
  // SimulationError otherwise.
  explicit QuantileSketch(double relative_accuracy = kDefaultRelativeAccuracy,
                          std::size_t max_buckets = kDefaultMaxBuckets);

  // Adds a value (count times). Values must be finite and >= 0
  // (SimulationError otherwise); 0 goes to the zero count.
  void add(double value) {
    // Inline: one latency per request goes through here. A value inside the
    // kept range (nearly always, once a few have been seen) is one count;
    // anything else takes the general path.
    if (value > 0 && bucketed_count_ != 0 && std::isfinite(value)) {
      const std::int64_t index = index_of(value);
      if (index >= lo_ && index <= hi_) {
        min_ = value < min_ ? value : min_;
        max_ = value > max_ ? value : max_;
        sum_ += value;
        ++counts_[static_cast<std::size_t>(index - offset_)];
        ++bucketed_count_;
        return;
      }
    }
    add(value, 1);
  }
  void add(double value, std::uint64_t count);

  // Adds other's observations. Both must have the same relative accuracy
  // (SimulationError otherwise); this sketch keeps its own max_buckets.
  void merge(const QuantileSketch& other);

  // Forgets every observation but keeps the allocated storage.
  void clear();

  // The q-quantile, q in [0, 1] (SimulationError otherwise): an estimate of
  // the sample of 0-based rank floor(q * (count - 1)) in sorted order, within
  // relative_accuracy of it unless that rank was collapsed. The lowest and
  // highest ranks return the exact min and max; other estimates are clamped
  // to [min, max].
  // NaN when the sketch is empty.
  double quantile(double q) const;

  std::uint64_t count() const { return zero_count_ + bucketed_count_; }
  bool empty() const { return count() == 0; }
  std::uint64_t zero_count() const { return zero_count_; }
  double sum() const { return sum_; }
  // NaN when empty.
  double min() const;
  double max() const;
  double mean() const;

  double relative_accuracy() const { return alpha_; }
  std::size_t max_buckets() const { return max_buckets_; }
  // Buckets spanned by the kept positive values (from the lowest non-empty
  // bucket to the highest), never more than max_buckets.
  std::size_t bucket_count() const;
  // True once some values were folded into a higher bucket to bound memory
  // (until clear()).
  bool collapsed() const { return collapsed_; }
  // Storage allocated for buckets (for memory tests); never exceeds max_buckets.
  std::size_t allocated_buckets() const { return counts_.size(); }

  // The bucket index of a positive value, ceil(log(value) / log(gamma)),
  // and the representative of a bucket.
  //
  // index_of is exactly the formula above, computed with std::log, but
  // nearly always without calling it: a table-driven estimate of the
  // logarithm (error < 1e-12) decides the ceiling whenever the quotient is
  // farther than a safe margin from a whole number, and only the rare values
  // that fall within the margin of a bucket boundary take std::log. A
  // latency is recorded several times per request, and std::log was the
  // largest part of recording one.
  std::int32_t index_of(double value) const {
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const auto biased_exponent = static_cast<std::int64_t>(bits >> 52);  // value > 0: no sign bit
    if (biased_exponent == 0 || biased_exponent >= 0x7FF) return exact_index_of(value);  // subnormal, inf, NaN
    // value = 2^e * m, m in [1, 2); the table entry's centre c is within
    // 1/256 of m, and log(m) = log(c) + log(1 + r) with r = m / c - 1.
    const sketch_log::Entry& entry =
        sketch_log::kTable[(bits >> (52 - sketch_log::kTableBits)) & (sketch_log::kTableSize - 1)];
    const double m = std::bit_cast<double>((bits & 0x000FFFFFFFFFFFFFULL) | 0x3FF0000000000000ULL);
    const double r = m * entry.inv_centre - 1.0;
    const double log1p_r = r * (1.0 + r * (-0.5 + r * (1.0 / 3 + r * (-0.25 + r * 0.2))));
    const double log_value =
        static_cast<double>(biased_exponent - 1023) * sketch_log::kLn2 + (entry.log_centre + log1p_r);
    const double x = log_value * inv_log_gamma_;
    const auto truncated = static_cast<std::int64_t>(x);
    const std::int64_t ceiling = x > static_cast<double>(truncated) ? truncated + 1 : truncated;
    const double gap = static_cast<double>(ceiling) - x;  // in [0, 1)
    if (gap < index_margin_ || gap > 1.0 - index_margin_) return exact_index_of(value);
    return static_cast<std::int32_t>(ceiling);
  }
  // The same index, always through std::log.
  std::int32_t exact_index_of(double value) const {
    return static_cast<std::int32_t>(std::ceil(std::log(value) * inv_log_gamma_));
  }
  double representative(std::int32_t index) const;

 private:
  void add_to_bucket(std::int32_t index, std::uint64_t count);
  // Makes [need_lo, need_hi] addressable; every non-zero count must already
  // lie inside that range. need_hi - need_lo + 1 <= max_buckets.
  void reposition(std::int64_t need_lo, std::int64_t need_hi);

  double alpha_;
  double gamma_;
  double log_gamma_;
  double inv_log_gamma_;
  // How close (in index units) the estimate may come to a whole number
  // before index_of asks std::log. Both logarithms are within 1e-12 of the
  // truth for every double (the estimate: truncation 1e-15, table and
  // rounding a few 1e-14; glibc's log: under 1 ulp, at most 1.2e-13), and
  // the products with inv_log_gamma_ add a few ulps of |x| <= 745 x
  // inv_log_gamma_: a margin of 1e-11 x inv_log_gamma_ covers all of it
  // with room to spare.
  double index_margin_;
  std::size_t max_buckets_;

  std::vector<std::uint64_t> counts_;  // counts_[k] is bucket offset_ + k
  std::int64_t offset_ = 0;
  std::int64_t lo_ = 0;  // lowest / highest non-empty bucket, when bucketed_count_ > 0
  std::int64_t hi_ = 0;
  std::uint64_t bucketed_count_ = 0;
  std::uint64_t zero_count_ = 0;
  double sum_ = 0;
  double min_ = 0;
  double max_ = 0;
  bool collapsed_ = false;
};

}  // namespace drsim

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
#include <cstddef>
#include <cstdint>
#include <vector>

namespace drsim {

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
  void add(double value);
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

  // The bucket index of a positive value and the representative of a bucket.
  std::int32_t index_of(double value) const;
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

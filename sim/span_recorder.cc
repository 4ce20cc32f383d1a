#include "sim/span_recorder.h"

#include <cmath>

namespace drsim {

namespace {

// SplitMix64's finaliser: a well-mixed 64-bit hash of (seed, source, request), so that which requests are traced
// depends on nothing else.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

void SpanRecorder::enable(double sampling, std::uint64_t seed, std::size_t max_spans) {
  sampling_ = sampling;
  seed_ = seed;
  max_spans_ = max_spans;
}

std::uint32_t SpanRecorder::intern(std::string_view name) {
  const auto [it, added] = name_ids_.try_emplace(std::string(name), static_cast<std::uint32_t>(names_.size()));
  if (added) names_.emplace_back(name);
  return it->second;
}

SpanRecorder::SpanId SpanRecorder::start_trace_sampled(std::uint64_t source, std::uint64_t request,
                                                       std::uint32_t service, std::uint32_t name, SimTime at) {
  if (spans_.size() >= max_spans_) return 0;
  if (sampling_ < 1) {
    const std::uint64_t h = mix(mix(seed_ ^ mix(source)) ^ request);
    // The top 53 bits as a uniform draw in [0, 1).
    if (static_cast<double>(h >> 11) * 0x1.0p-53 >= sampling_) return 0;
  }
  open_per_trace_.push_back(0);
  Span root{.trace = static_cast<std::uint32_t>(open_per_trace_.size()), .parent = 0, .service = service,
            .name = name, .start = at, .end = at, .kind = Kind::kClient};
  spans_.push_back(root);
  open_per_trace_.back()++;
  return static_cast<SpanId>(spans_.size());
}

SpanRecorder::SpanId SpanRecorder::start_span(SpanId parent, Kind kind, std::uint32_t service, std::uint32_t name,
                                              SimTime at) {
  const std::uint32_t trace = spans_[parent - 1].trace;
  spans_.push_back(Span{.trace = trace, .parent = parent, .service = service, .name = name, .start = at, .end = at,
                        .kind = kind});
  open_per_trace_[trace - 1]++;
  return static_cast<SpanId>(spans_.size());
}

void SpanRecorder::end_open_span(SpanId span, SimTime at, bool failed) {
  Span& s = spans_[span - 1];
  if (!s.open) return;
  s.open = false;
  s.end = at;
  s.failed = failed;
  open_per_trace_[s.trace - 1]--;
}

}  // namespace drsim

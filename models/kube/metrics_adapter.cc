#include "models/kube/metrics_adapter.h"

#include <cmath>

namespace drsim {

std::optional<RequestMetric> request_metric(std::string_view name) {
  if (name == "requests_per_second") return RequestMetric::kRequestsPerSecond;
  if (name == "latency") return RequestMetric::kLatency;
  if (name == "queue_length") return RequestMetric::kQueueLength;
  if (name == "in_flight") return RequestMetric::kInFlight;
  return std::nullopt;
}

void RequestSeries::read(const RequestCounters& counters, SimTime t) {
  if (read_at_ && t > *read_at_) {
    window_ = t - *read_at_;
    const auto done = static_cast<double>(counters.completed - last_.completed);
    rate_milli_ = std::llround(done * 1000.0 / to_seconds(window_));
    // Prometheus' rate(sum) / rate(count): nothing finished, no value.
    if (counters.completed > last_.completed) {
      latency_milli_ = std::llround(static_cast<double>(counters.response_ns - last_.response_ns) / done * 1e-6);
    } else {
      latency_milli_.reset();
    }
  }
  last_ = counters;
  read_at_ = t;
}

void RequestSeries::lose() {
  read_at_.reset();
  rate_milli_.reset();
  latency_milli_.reset();
}

std::optional<std::int64_t> RequestSeries::value_milli(RequestMetric metric) const {
  if (!read_at_) return std::nullopt;
  switch (metric) {
    case RequestMetric::kRequestsPerSecond:
      return rate_milli_;
    case RequestMetric::kLatency:
      return latency_milli_;
    case RequestMetric::kQueueLength:
      return static_cast<std::int64_t>(last_.queued) * 1000;
    case RequestMetric::kInFlight:
      return static_cast<std::int64_t>(last_.busy) * 1000;
  }
  return std::nullopt;
}

void CounterRate::read(std::uint64_t count, SimTime t) {
  if (read_at_ && t > *read_at_) {
    rate_milli_ = std::llround(static_cast<double>(count - last_) * 1000.0 / to_seconds(t - *read_at_));
  }
  last_ = count;
  read_at_ = t;
}

void CounterRate::lose() {
  read_at_.reset();
  rate_milli_.reset();
}

}  // namespace drsim

#pragma once
// The custom and external metrics pipeline behind the HPAs' Pods, Object and
// External metrics: Prometheus scraping the apps' counters and the exporters
// every interval, and prometheus-adapter serving what it scraped through the
// custom and external metrics APIs. The series here turn two scrapes into
// the values the adapter answers with; the control plane (control_plane.h)
// scrapes on its schedule and builds the HPAs' readings from them. No value
// is read at the instant of a sync: an HPA sees the last scrape.
//
// The names served (docs/kubernetes.md):
//   Pods, and Object of a Service (the service's pods summed):
//     requests_per_second  requests finished per second between the last two
//                          scrapes (an app's requests_total counter counts a
//                          request when it answers it, so a saturated pod
//                          reports what it serves, not what it is offered)
//     latency              mean response time, queue wait + service, of those
//                          requests, in seconds; no requests: no value
//     queue_length         requests waiting in queues at the last scrape
//     in_flight            worker slots busy (in service or waiting on calls)
//                          at the last scrape
//   External:
//     kafka_consumer_lag       {topic, group}: high water mark - committed
//                              offset, summed over the partitions (a lag
//                              exporter's gauge)
//     population_offered_rate  {population}: requests the population offered
//                              per second between the last two scrapes
// Values are in milli-units, as the metrics APIs' quantities.
#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/time.h"

namespace drsim {

enum class RequestMetric : std::uint8_t { kRequestsPerSecond, kLatency, kQueueLength, kInFlight };
// The Pods / Object metric of that name, if the adapter serves it.
std::optional<RequestMetric> request_metric(std::string_view name);

// What one scrape reads from a pod's (or a service's summed) exporter.
struct RequestCounters {
  std::uint64_t completed = 0;  // cumulative
  std::int64_t response_ns = 0;  // cumulative
  std::uint64_t queued = 0;
  std::uint64_t busy = 0;
};

// One target's series: the last scrape's counters, and the values taken from
// the last two scrapes.
class RequestSeries {
 public:
  void read(const RequestCounters& counters, SimTime t);
  // The target could not be scraped: its values are gone, and the next rate
  // needs two scrapes again.
  void lose();
  std::optional<std::int64_t> value_milli(RequestMetric metric) const;
  SimTime timestamp() const { return read_at_.value_or(SimTime{}); }
  Duration window() const { return window_; }

 private:
  std::optional<SimTime> read_at_;
  RequestCounters last_;
  Duration window_{};
  std::optional<std::int64_t> rate_milli_, latency_milli_;
};

// A cumulative counter's rate between the last two scrapes, per second.
class CounterRate {
 public:
  void read(std::uint64_t count, SimTime t);
  void lose();
  std::optional<std::int64_t> value_milli() const { return rate_milli_; }
  SimTime timestamp() const { return read_at_.value_or(SimTime{}); }

 private:
  std::optional<SimTime> read_at_;
  std::uint64_t last_ = 0;
  std::optional<std::int64_t> rate_milli_;
};

}  // namespace drsim

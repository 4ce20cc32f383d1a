#include "models/service/usage_meter.h"

#include <algorithm>

namespace drsim {

UsageMeter::UsageMeter(const ServiceConfig& config, PodSet& pods, Duration window)
    : service_name_(config.name),
      pods_(pods),
      window_(window),
      zones_(pods.zones().size()),
      request_cores_(config.cpu_request().cores()),
      event_loop_(config.event_loop()) {
  if (config.cpu.limit) limit_cores_ = config.cpu.limit->cores();
}

void UsageMeter::attach(Recorder& recorder) {
  recorder_ = &recorder;
  metrics_.emplace(recorder, WindowedMetricsConfig{.window = window_});
  region_crossings_ = metrics_->counter("service.region_crossings", {{"service", service_name_}});
  for (std::size_t z = 0; z < zones_.size(); ++z) {
    ZoneMetrics& m = zones_[z];
    const Labels labels{{"service", service_name_}, {"zone", pods_.zone(z).name}};
    m.arrivals = metrics_->counter("service.arrivals", labels);
    m.waited = metrics_->counter("service.waited", labels);
    m.rejected = metrics_->counter("service.rejected", labels);
    m.completed = metrics_->counter("service.completed", labels);
    m.response = metrics_->latency("service.response", labels);
    m.utilization = metrics_->gauge("zone.utilization", labels);
    m.queue_length = metrics_->gauge("service.queue_length", labels);
    m.pod_count = metrics_->gauge("service.pods", labels);
    m.cpu_cores = recorder.series("service.cpu_cores", labels);
    m.cpu_utilization = recorder.series("service.cpu_utilization", labels);
    if (limit_cores_) {
      m.cpu_limit_utilization = recorder.series("service.cpu_limit_utilization", labels);
      m.cpu_throttled_share = recorder.series("service.cpu_throttled_share", labels);
    }
  }
}

void UsageMeter::declare_pod_series() {
  if (!record_pod_series_) return;
  for (ServicePod& pod : pods_.pods()) declare_pod_series(pod);
}

void UsageMeter::declare_pod_series(ServicePod& pod) {
  const Labels labels{{"service", service_name_}, {"zone", pods_.zone(pod.zone).name}, {"pod", pod.name}};
  pod.utilization_series = recorder().series("pod.utilization", labels);
  pod.cpu_series = recorder().series("pod.cpu_cores", labels);
  pod.cpu_utilization_series = recorder().series("pod.cpu_utilization", labels);
  if (limit_cores_) {
    pod.cpu_limit_series = recorder().series("pod.cpu_limit_utilization", labels);
    pod.cpu_throttled_series = recorder().series("pod.cpu_throttled_share", labels);
  }
  pod.has_series = true;
}

void UsageMeter::update_gauges(std::size_t z, SimTime t) {
  const ServiceZone& zone = pods_.zone(z);
  ZoneMetrics& m = zones_[z];
  // Workers of running pods (terminating included) are utilisation's denominator.
  const std::uint32_t workers = zone.live_pods * pods_.concurrency();
  metrics_->set(m.utilization, t, workers == 0 ? 0.0 : static_cast<double>(zone.busy) / workers);
  // Queue length and pod count change far less often than utilisation, and
  // are set only when they change. Skipping a set() that repeats the held
  // value leaves their time-weighted means the same to the bit: whole numbers
  // times whole nanoseconds, and sums of those, are exact in a double while a
  // window's integral stays below 2^53 (a queue of 2,500 held through a whole
  // 1 h window, of 9 million through a 1 s window).
  if (zone.queued != m.queued_recorded) {
    metrics_->set(m.queue_length, t, static_cast<double>(zone.queued));
    m.queued_recorded = zone.queued;
  }
  if (zone.routable_pods != m.pods_recorded) {
    metrics_->set(m.pod_count, t, static_cast<double>(zone.routable_pods));
    m.pods_recorded = zone.routable_pods;
  }
  // Overload: requests are waiting for a worker.
  const bool overloaded = zone.queued > 0;
  if (overloaded && m.overload_since == kSimTimeMax) m.overload_since = t;
  if (!overloaded && m.overload_since != kSimTimeMax) {
    m.overload += t - m.overload_since;
    m.overload_since = kSimTimeMax;
  }
}

SimTime UsageMeter::next_window(SimTime t) const {
  const std::int64_t w = to_ns(window_);
  return SimTime{Duration{(to_ns(t) / w + 1) * w}};
}

UsageMeter::ThrottleMark UsageMeter::throttling(std::size_t p) const {
  if (clocks_ == nullptr || p >= clocks_->size() || !(*clocks_)[p] || (*clocks_)[p]->quota() == nullptr) return {};
  const CfsBandwidth& q = *(*clocks_)[p]->quota();
  return {q.periods(), q.throttled_periods(), q.throttled_ns()};
}

void UsageMeter::write_window(SimTime now) {
  const std::int64_t t = to_ns(now);
  const std::int64_t length = t - usage_mark_ns_;
  if (length <= 0) return;
  // Windows are [k w, (k+1) w) from the start of the run; the point is
  // stamped at the window's start, like WindowedMetrics'.
  const std::int64_t w = to_ns(window_);
  const SimTime stamp{Duration{usage_mark_ns_ / w * w}};
  const double span = static_cast<double>(length);
  const std::size_t zone_count = zones_.size();
  std::vector<double> zone_core_ns(zone_count, 0.0), zone_serving_ns(zone_count, 0.0);
  std::vector<std::uint64_t> zone_periods(zone_count, 0), zone_throttled(zone_count, 0);
  if (limit_cores_) throttle_marks_.resize(pods_.pods().size());
  for (std::size_t p = 0; p < pods_.pods().size(); ++p) {
    ServicePod& pod = pods_.pod(p);
    pod.accrue(t);
    const std::int64_t busy = pod.busy_ns - pod.busy_ns_mark;
    const std::int64_t computing = pod.computing_ns - pod.computing_ns_mark;
    const double core_ns = static_cast<double>(pod.cpu_mns - pod.cpu_mns_mark) / 1000.0;
    zone_core_ns[pod.zone] += core_ns;
    zone_serving_ns[pod.zone] += static_cast<double>(pod.serving_ns - pod.serving_ns_mark);
    ThrottleMark throttled_now{}, throttled_in_window{};
    if (limit_cores_) {
      throttled_now = throttling(p);
      const ThrottleMark& mark = throttle_marks_[p];
      throttled_in_window = {throttled_now.periods - mark.periods, throttled_now.throttled - mark.throttled,
                             throttled_now.throttled_ns - mark.throttled_ns};
      zone_periods[pod.zone] += throttled_in_window.periods;
      zone_throttled[pod.zone] += throttled_in_window.throttled;
    }
    if (pod.has_series && (pod.present || pod.present_at_mark)) {
      // A worker is busy from its request's start to its end; an event loop's thread only while it computes.
      const std::int64_t occupied = event_loop_ ? computing : busy;
      recorder().record(pod.utilization_series, stamp,
                        static_cast<double>(occupied) / (span * static_cast<double>(pods_.concurrency())));
      recorder().record(pod.cpu_series, stamp, core_ns / span);
      recorder().record(pod.cpu_utilization_series, stamp, core_ns / (span * request_cores_));
      if (limit_cores_) {
        recorder().record(pod.cpu_limit_series, stamp, core_ns / (span * *limit_cores_));
        recorder().record(pod.cpu_throttled_series, stamp,
                          throttled_in_window.periods == 0 ? 0.0
                                                           : static_cast<double>(throttled_in_window.throttled) /
                                                                 static_cast<double>(throttled_in_window.periods));
      }
    }
    pod.busy_ns_mark = pod.busy_ns;
    pod.computing_ns_mark = pod.computing_ns;
    pod.running_ns_mark = pod.running_ns;
    pod.serving_ns_mark = pod.serving_ns;
    pod.cpu_mns_mark = pod.cpu_mns;
    pod.present_at_mark = pod.present;
    if (limit_cores_) throttle_marks_[p] = throttled_now;
  }
  for (std::size_t z = 0; z < zone_count; ++z) {
    ZoneMetrics& m = zones_[z];
    recorder().record(m.cpu_cores, stamp, zone_core_ns[z] / span);
    // Of the pods that served (ready, or finishing their work): a pod still
    // starting uses its idle CPU but is not part of the zone's capacity.
    const double requested = request_cores_ * zone_serving_ns[z];
    const double request_share = requested > 0 ? zone_core_ns[z] / requested : 0.0;
    recorder().record(m.cpu_utilization, stamp, request_share);
    m.core_ns += zone_core_ns[z];
    m.requested_ns += requested;
    m.peak_request_share = std::max(m.peak_request_share, request_share);
    if (limit_cores_) {
      const double limited = *limit_cores_ * zone_serving_ns[z];
      const double limit_share = limited > 0 ? zone_core_ns[z] / limited : 0.0;
      recorder().record(m.cpu_limit_utilization, stamp, limit_share);
      m.peak_limit_share = std::max(m.peak_limit_share, limit_share);
      recorder().record(m.cpu_throttled_share, stamp,
                        zone_periods[z] == 0 ? 0.0
                                             : static_cast<double>(zone_throttled[z]) /
                                                   static_cast<double>(zone_periods[z]));
    }
  }
  usage_mark_ns_ = t;
}

void UsageMeter::finish(SimTime t) {
  for (ZoneMetrics& m : zones_) {
    if (m.overload_since != kSimTimeMax) {
      m.overload += t - m.overload_since;
      m.overload_since = t;
    }
  }
  metrics_->finish(t);
  write_window(t);  // the last, partial window
  for (std::size_t z = 0; z < zones_.size(); ++z) {
    const ZoneMetrics& m = zones_[z];
    const Labels labels{{"service", service_name_}, {"zone", pods_.zone(z).name}};
    recorder().kpi("zone.utilization_mean", labels, metrics_->gauge_mean(m.utilization));
    recorder().kpi("zone.utilization_peak", labels, metrics_->gauge_max(m.utilization));
    recorder().kpi("zone.overload_s", labels, to_seconds(m.overload));
    recorder().kpi("service.rejected", labels, metrics_->total(m.rejected));
  }
  write_cpu_kpis();
}

void UsageMeter::write_cpu_kpis() {
  // Per zone, then per service: CPU against request (the run's mean and its peak window) and, with a
  // limit, against the limit and how much of the time the quota held the pods still.
  double core_ns = 0, requested_ns = 0, peak_request = 0, peak_limit = 0, throttled_s = 0;
  std::uint64_t periods = 0, throttled = 0;
  for (std::size_t z = 0; z < zones_.size(); ++z) {
    const ZoneMetrics& m = zones_[z];
    const Labels labels{{"service", service_name_}, {"zone", pods_.zone(z).name}};
    recorder().kpi("service.cpu_utilization_mean", labels, m.requested_ns > 0 ? m.core_ns / m.requested_ns : 0.0);
    recorder().kpi("service.cpu_utilization_peak", labels, m.peak_request_share);
    core_ns += m.core_ns;
    requested_ns += m.requested_ns;
    peak_request = std::max(peak_request, m.peak_request_share);
    if (!limit_cores_) continue;
    double zone_throttled_s = 0;
    std::uint64_t zone_periods = 0, zone_throttled = 0;
    for (std::size_t p = 0; p < pods_.pods().size(); ++p) {
      if (pods_.pod(p).zone != z) continue;
      const ThrottleMark c = throttling(p);
      zone_throttled_s += static_cast<double>(c.throttled_ns) * 1e-9;
      zone_periods += c.periods;
      zone_throttled += c.throttled;
    }
    recorder().kpi("service.cpu_limit_utilization_peak", labels, m.peak_limit_share);
    recorder().kpi("service.cpu_throttled_s", labels, zone_throttled_s);
    recorder().kpi("service.cpu_throttled_share", labels,
                   zone_periods == 0 ? 0.0 : static_cast<double>(zone_throttled) / static_cast<double>(zone_periods));
    peak_limit = std::max(peak_limit, m.peak_limit_share);
    throttled_s += zone_throttled_s;
    periods += zone_periods;
    throttled += zone_throttled;
  }
  const Labels service{{"service", service_name_}};
  recorder().kpi("service.cpu_utilization_mean", service, requested_ns > 0 ? core_ns / requested_ns : 0.0);
  recorder().kpi("service.cpu_utilization_peak", service, peak_request);
  if (!limit_cores_) return;
  recorder().kpi("service.cpu_limit_utilization_peak", service, peak_limit);
  recorder().kpi("service.cpu_throttled_s", service, throttled_s);
  recorder().kpi("service.cpu_throttled_share", service,
                 periods == 0 ? 0.0 : static_cast<double>(throttled) / static_cast<double>(periods));
}

UsageMeter::PodUsage UsageMeter::pod_usage(std::size_t p, std::int64_t now_ns) const {
  const ServicePod& pod = pods_.pod(p);
  const std::int64_t dt = now_ns - pod.usage_since_ns;
  return PodUsage{
      .busy = Duration{pod.busy_ns + static_cast<std::int64_t>(pod.busy) * dt},
      .computing = Duration{pod.computing_ns + static_cast<std::int64_t>(pod.computing) * dt},
      .running = Duration{pod.running_ns + (pod.running() ? dt : 0)},
  };
}

double UsageMeter::pod_cpu_core_seconds(std::size_t p, std::int64_t now_ns) const {
  const ServicePod& pod = pods_.pod(p);
  const std::int64_t mns = pod.cpu_mns + pod.cpu_rate * (now_ns - pod.usage_since_ns);
  return static_cast<double>(mns) * 1e-12;
}

}  // namespace drsim

#include "models/service/usage_meter.h"

namespace drsim {

UsageMeter::UsageMeter(const ServiceConfig& config, PodSet& pods, Duration window)
    : service_name_(config.name),
      pods_(pods),
      window_(window),
      zones_(pods.zones().size()),
      per_worker_cores_(config.cpu.per_worker.cores()),
      idle_cores_(config.cpu.idle.cores()),
      request_cores_(config.cpu_request().cores()),
      event_loop_(config.event_loop()) {}

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
  for (ServicePod& pod : pods_.pods()) {
    pod.accrue(t);
    const std::int64_t busy = pod.busy_ns - pod.busy_ns_mark;
    const std::int64_t computing = pod.computing_ns - pod.computing_ns_mark;
    const std::int64_t running = pod.running_ns - pod.running_ns_mark;
    const double core_ns =
        per_worker_cores_ * static_cast<double>(computing) + idle_cores_ * static_cast<double>(running);
    zone_core_ns[pod.zone] += core_ns;
    zone_serving_ns[pod.zone] += static_cast<double>(pod.serving_ns - pod.serving_ns_mark);
    if (pod.has_series && (pod.present || pod.present_at_mark)) {
      // A worker is busy from its request's start to its end; an event loop's thread only while it computes.
      const std::int64_t occupied = event_loop_ ? computing : busy;
      recorder().record(pod.utilization_series, stamp,
                        static_cast<double>(occupied) / (span * static_cast<double>(pods_.concurrency())));
      recorder().record(pod.cpu_series, stamp, core_ns / span);
    }
    pod.busy_ns_mark = pod.busy_ns;
    pod.computing_ns_mark = pod.computing_ns;
    pod.running_ns_mark = pod.running_ns;
    pod.serving_ns_mark = pod.serving_ns;
    pod.present_at_mark = pod.present;
  }
  for (std::size_t z = 0; z < zone_count; ++z) {
    recorder().record(zones_[z].cpu_cores, stamp, zone_core_ns[z] / span);
    // Of the pods that served (ready, or finishing their work): a pod still
    // starting uses its idle CPU but is not part of the zone's capacity.
    const double requested = request_cores_ * zone_serving_ns[z];
    recorder().record(zones_[z].cpu_utilization, stamp, requested > 0 ? zone_core_ns[z] / requested : 0.0);
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
  const PodUsage u = pod_usage(p, now_ns);
  return per_worker_cores_ * to_seconds(u.computing) + idle_cores_ * to_seconds(u.running);
}

}  // namespace drsim

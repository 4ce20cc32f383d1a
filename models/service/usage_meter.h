#pragma once
// Internal to models/service/: what a Service records. Per window, labelled
// service and zone: service.arrivals, service.waited, service.rejected,
// service.completed, service.response_{p50,p90,p99,mean}_s,
// service.region_crossings (label service only), zone.utilization,
// service.queue_length, service.pods, service.cpu_cores and
// service.cpu_utilization (CPU as a share of the pods' requests); with a CPU
// limit also service.cpu_limit_utilization (as a share of their limits) and
// service.cpu_throttled_share (the CFS periods in which a pod was throttled,
// of those it ran in: the kernel's nr_throttled / nr_periods); with
// record_pod_series, per pod as well (pod.utilization, pod.cpu_cores,
// pod.cpu_utilization, and with a limit pod.cpu_limit_utilization and
// pod.cpu_throttled_share). Utilisation is the share of the workers busy
// (worker pool) or of the threads computing (event loop). KPIs per zone at
// stop: utilization mean and peak, overload seconds (time with requests
// queued), rejected, CPU as a share of request (mean and peak window); with a
// limit, CPU as a share of limit (peak window), time throttled and the
// throttled share of periods. The CPU KPIs are also given per service (label
// service alone), over all its zones.
//
// CPU and per-pod use come from the pods' exact use integrals (PodSet keeps
// them in step with every count change); the window series are their
// differences, taken once per window.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/metrics/windowed_metrics.h"
#include "models/service/pod_cpu_clock.h"
#include "models/service/pod_set.h"
#include "models/service/service_config.h"
#include "sim/recorder.h"
#include "sim/time.h"

namespace drsim {

class UsageMeter {
 public:
  UsageMeter(const ServiceConfig& config, PodSet& pods, Duration window);

  // Declares the service's and zones' metrics; the pods' series come after
  // (declare_pod_series), once any other part has declared its own.
  void attach(Recorder& recorder);
  bool attached() const { return metrics_.has_value(); }
  WindowedMetrics& metrics() { return *metrics_; }
  Duration window() const { return window_; }

  // Also write per-pod series; call before the run starts.
  void record_pod_series(bool on) { record_pod_series_ = on; }
  // The pods' CPU clocks (by pod; an empty entry: the pod's CPU is never held back), for the throttling
  // series. Their counters are read as they stand: the owner brings them to the window's end first.
  void use_cpu_clocks(const std::vector<std::optional<PodCpuClock>>& clocks) { clocks_ = &clocks; }
  // Declares the series of every pod (at attach) or of a pod added later.
  void declare_pod_series();
  void declare_pod_series(ServicePod& pod);
  bool records_pod_series() const { return record_pod_series_; }

  void arrived(std::size_t zone, SimTime t) { metrics_->add(zones_[zone].arrivals, t); }
  void waited(std::size_t zone, SimTime t) { metrics_->add(zones_[zone].waited, t); }
  void rejected(std::size_t zone, SimTime t) { metrics_->add(zones_[zone].rejected, t); }
  void completed(std::size_t zone, SimTime t, Duration response) {
    metrics_->add(zones_[zone].completed, t);
    metrics_->observe(zones_[zone].response, t, response);
  }
  void crossed_region(SimTime t) { metrics_->add(region_crossings_, t); }
  // The zone's counts changed: utilisation, queue length, pods and overload.
  void update_gauges(std::size_t zone, SimTime t);

  // The first window boundary after t: when the usage series are written.
  SimTime next_window(SimTime t) const;
  void start(SimTime t) { usage_mark_ns_ = to_ns(t); }
  // Writes the window [mark, t) of the CPU and per-pod series, and moves
  // the marks to t.
  void write_window(SimTime t);
  // The last, partial window and the KPIs.
  void finish(SimTime t);

  // A pod's use since it was added, up to now_ns (see Service::PodUsage).
  struct PodUsage {
    Duration busy{};
    Duration computing{};
    Duration running{};
  };
  PodUsage pod_usage(std::size_t pod, std::int64_t now_ns) const;
  double pod_cpu_core_seconds(std::size_t pod, std::int64_t now_ns) const;

 private:
  static constexpr std::uint32_t kNotRecorded = 0xFFFFFFFFu;
  struct ZoneMetrics {
    SimTime overload_since = kSimTimeMax;  // kSimTimeMax: not overloaded now
    Duration overload{};
    CounterId arrivals, waited, rejected, completed;
    LatencyId response;
    GaugeId utilization, queue_length, pod_count;
    SeriesId cpu_cores, cpu_utilization, cpu_limit_utilization, cpu_throttled_share;
    // Over the run, for the KPIs: CPU used and requested (core-ns), the peak windows.
    double core_ns = 0, requested_ns = 0, peak_request_share = 0, peak_limit_share = 0;
    // What queue_length and pod_count were last set to (see update_gauges).
    std::size_t queued_recorded = kNotRecorded;
    std::uint32_t pods_recorded = kNotRecorded;
  };

  Recorder& recorder() { return *recorder_; }
  void write_cpu_kpis();

  std::string service_name_;
  PodSet& pods_;
  Duration window_;
  Recorder* recorder_ = nullptr;
  std::optional<WindowedMetrics> metrics_;
  CounterId region_crossings_;
  std::vector<ZoneMetrics> zones_;
  bool record_pod_series_ = false;
  std::int64_t usage_mark_ns_ = 0;  // start of the window the usage series have not written yet
  double request_cores_ = 0;
  std::optional<double> limit_cores_;
  const std::vector<std::optional<PodCpuClock>>* clocks_ = nullptr;
  // A pod's throttling counters at the start of the window (by pod).
  struct ThrottleMark {
    std::uint64_t periods = 0, throttled = 0;
    std::int64_t throttled_ns = 0;
  };
  std::vector<ThrottleMark> throttle_marks_;
  // The throttling counters of pod p now (zeros for a pod without a quota).
  ThrottleMark throttling(std::size_t p) const;
  bool event_loop_ = false;  // utilisation is the threads' computing, not the requests held
};

}  // namespace drsim

#pragma once
// A service deployed in zones: pods with worker slots and a bounded FIFO
// queue each, an in-region load balancer that picks a zone (smooth weighted
// round-robin over up pods x the zone's cut ratio, optionally preferring the
// caller's zone) and a pod (round-robin or least-outstanding), and the
// service-time distribution. It reacts to zone failures (FailureDomains):
// a failed zone's pods stop; what they held is black-holed or refused.
//
// Recorded per window, labelled service and zone: service.arrivals,
// service.waited (arrivals that found every worker busy), service.rejected,
// service.completed, service.response_{p50,p90,p99,mean}_s (queue + service),
// zone.utilization (busy workers / workers of up pods) and
// service.queue_length. KPIs per zone at stop: utilization mean and peak,
// overload seconds (time with requests queued), rejected.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "models/metrics/windowed_metrics.h"
#include "models/service/job.h"
#include "models/service/service_config.h"
#include "models/service/service_time.h"
#include "models/topology/failure_domains.h"
#include "sim/component.h"

namespace drsim {

class Service : public Component {
 public:
  // `domains` may be null for a service outside any topology (unit tests):
  // its zones are then named by the config alone and never fail.
  Service(ServiceConfig config, FailureDomains* domains, Duration metrics_window = std::chrono::seconds(1));

  const ServiceConfig& config() const { return config_; }
  std::size_t zone_count() const { return zones_.size(); }
  const std::string& zone_name(std::size_t z) const { return zones_[z].name; }

  // Hands a job to the service. Returns nullopt when accepted (the owner
  // hears later, or never if black-holed), or the outcome of an immediate
  // failure. caller_zone is a topology zone index, for zone affinity.
  std::optional<ServeOutcome> submit(Job job, std::optional<ZoneIndex> caller_zone = std::nullopt);

  // Operator action traffic:cut: the zone's share is route weight x ratio.
  void set_cut_ratio(std::size_t zone, double ratio);
  // Gray failure service:slow: service times are multiplied by factor.
  void set_slowdown(double factor) { slowdown_ = factor; }

  std::uint32_t busy_workers(std::size_t zone) const;
  std::size_t queued(std::size_t zone) const;

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Pod {
    std::size_t zone = 0;
    bool up = true;
    std::uint32_t busy = 0;
    std::deque<Job> queue;
    std::vector<EventId> running;  // completion events of the jobs in service
    std::uint32_t outstanding() const { return busy + static_cast<std::uint32_t>(queue.size()); }
  };
  struct Zone {
    std::string name;
    std::optional<ZoneIndex> topology_zone;
    std::vector<std::size_t> pods;
    double cut_ratio = 1.0;
    double swrr_current = 0;  // smooth weighted round-robin state
    std::size_t next_pod = 0;
    // Accounting
    std::uint32_t busy = 0;
    std::size_t queued = 0;
    SimTime overload_since = kSimTimeMax;  // kSimTimeMax: not overloaded now
    Duration overload{};
    CounterId arrivals, waited, rejected, completed;
    LatencyId response;
    GaugeId utilization, queue_length;
  };

  std::optional<std::size_t> pick_zone(std::optional<ZoneIndex> caller_zone);
  std::optional<std::size_t> pick_pod(Zone& zone);
  std::uint32_t up_pods(const Zone& zone) const;
  void begin_service(std::size_t pod, Job job);
  void complete(std::size_t pod, std::size_t slot);
  void on_topology_change();
  void update_gauges(std::size_t zone);

  ServiceConfig config_;
  FailureDomains* domains_;
  ServiceTimeDistribution service_time_;
  std::vector<Zone> zones_;
  std::vector<Pod> pods_;
  // Jobs in service, by (pod, slot): the job and when it started.
  std::vector<std::vector<Job>> in_service_;
  std::optional<WindowedMetrics> metrics_;
  Duration metrics_window_;
  double slowdown_ = 1.0;
  bool refuse_on_failure_ = false;
  bool least_outstanding_ = false;
};

}  // namespace drsim

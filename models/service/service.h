#pragma once
// A service deployed in zones: pods with worker slots and a bounded FIFO
// queue each, an in-region load balancer that picks a zone (smooth weighted
// round-robin over up pods x the zone's cut ratio, optionally preferring the
// caller's zone) and a pod (round-robin or least-outstanding), or both at
// random in proportion to the same weights (balancing: random), and the
// service-time distribution. It reacts to zone failures (FailureDomains):
// a failed zone's pods stop; what they held is black-holed or refused.
//
// Recorded per window, labelled service and zone: service.arrivals,
// service.waited (arrivals that found every worker busy), service.rejected,
// service.completed, service.response_{p50,p90,p99,mean}_s (queue + service),
// zone.utilization (busy workers / workers of up pods),
// service.queue_length and service.pods (pods taking new work). KPIs per zone at stop: utilization mean and peak,
// overload seconds (time with requests queued), rejected.
#include <cstdint>
#include <deque>
#include <functional>
#include <string_view>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/metrics/windowed_metrics.h"
#include "models/service/job.h"
#include "models/service/service_config.h"
#include "models/service/service_time.h"
#include "models/timeline/timeline.h"
#include "models/topology/failure_domains.h"
#include "sim/component.h"

namespace drsim {

class Service : public Component, public JobOwner {
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
  // Gray failure service:slow: service times are multiplied by factor (> 0),
  // for requests that start service from now on.
  void set_slowdown(double factor);
  // Operator action service:scale: the zone gets n pods taking work. New pods
  // are ready at once (pod start-up delays belong to the Kubernetes model, a
  // later issue). Removed pods are the idle ones first; a busy one stops taking
  // new work (terminating), finishes what it holds in service and in queue,
  // and then goes.
  void set_replicas(std::size_t zone, std::uint32_t n);
  // Fault pods:kill: the zone's first n pods taking work (fewer if it has
  // fewer) die; their requests are refused at once (a killed process resets
  // its connections). Killed pods are not recreated: recreation belongs to the
  // Kubernetes model (a later issue). Returns how many were killed.
  std::uint32_t kill_pods(std::size_t zone, std::uint32_t n);

  // The service's zone of that name, if it has pods there by configuration.
  std::optional<std::size_t> find_zone(std::string_view name) const;
  // Pods that take new work (present, not terminating), whether or not their zone is up.
  std::uint32_t pods(std::size_t zone) const;

  // Resolves the services named in config().calls; the builder calls it once
  // every service exists. Throws SimulationError for an unknown name.
  void connect_calls(const std::function<Service*(std::string_view)>& find_service);
  // Answers to this service's own calls.
  void on_served(std::uint64_t token, ServeOutcome outcome) override;

  std::uint32_t busy_workers(std::size_t zone) const;
  std::size_t queued(std::size_t zone) const;

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Pod {
    std::size_t zone = 0;
    bool up = true;            // its zone is up
    bool present = true;       // false once removed by scaling down or killed
    bool terminating = false;  // scaled down while busy: no new work
    bool routable() const { return up && present && !terminating; }
    std::uint32_t busy = 0;
    std::deque<Job> queue;
    // One per worker slot: the job's own work, then its calls.
    struct Slot {
      bool occupied = false;
      EventId work;                  // pending while the job's own work runs
      std::uint32_t generation = 0;  // bumped when freed: late call answers are ignored
      std::uint32_t step = 0;        // the call step under way
      std::uint32_t outstanding = 0; // calls of that step not answered yet
      bool failed = false;
    };
    std::vector<Slot> slots;
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
    GaugeId utilization, queue_length, pod_count;
  };

  std::optional<std::size_t> pick_zone(std::optional<ZoneIndex> caller_zone);
  // The job reaches zone z: a pod takes it, queues it or rejects it.
  std::optional<ServeOutcome> deliver(std::size_t z, Job job);
  // The answer travels back to the caller's zone, if it can.
  void respond(const Job& job, std::size_t from_zone, ServeOutcome outcome);
  // One-way delay between the caller and a zone of this service; nullopt
  // when unreachable, zero when either end is outside the topology.
  std::optional<Duration> network_delay(std::uint32_t caller_zone, std::size_t z, bool towards_service);
  std::optional<std::size_t> pick_pod(Zone& zone);
  // Pods that take new work: weights of the zone pick and zone affinity.
  std::uint32_t up_pods(const Zone& zone) const;
  // Workers of running pods (up and present, terminating included): the
  // denominator of utilisation.
  std::uint32_t live_workers(const Zone& zone) const;
  std::size_t add_pod(std::size_t zone);
  // Ends the pod's jobs in service and in queue; adds them to refused when
  // they are to be refused rather than black-holed.
  void drop_work(std::size_t pod, bool refuse, std::vector<std::pair<JobOwner*, std::uint64_t>>& refused);
  void begin_service(std::size_t pod, Job job);
  void work_done(std::size_t pod, std::size_t slot);
  void start_step(std::size_t pod, std::size_t slot);
  void finish(std::size_t pod, std::size_t slot, ServeOutcome outcome);
  void on_topology_change();
  void update_gauges(std::size_t zone);

  ServiceConfig config_;
  FailureDomains* domains_;
  ServiceTimeDistribution service_time_;
  std::vector<Zone> zones_;
  std::vector<Pod> pods_;
  // Jobs in service, by (pod, slot): the job and when it started.
  std::vector<std::vector<Job>> in_service_;
  // Calls, as steps: the calls of one step run at once.
  std::vector<std::vector<Service*>> call_steps_;
  std::optional<WindowedMetrics> metrics_;
  Duration metrics_window_;
  double slowdown_ = 1.0;
  bool refuse_on_failure_ = false;
  bool least_outstanding_ = false;
  bool random_ = false;  // zone and pod drawn at random (kube-proxy's iptables mode)
};

// Registers the handlers of the service actions (traffic:cut, service:scale,
// pods:kill, service:slow) for these services, found by target.service.
void register_service_actions(Timeline& timeline, std::vector<Service*> services);

}  // namespace drsim

#pragma once
// Internal to models/service/: the state of a Service's pods and zones, and
// the one place their counts change. A pod has worker slots and a bounded
// FIFO queue; a zone keeps running counts of its pods (routable, live, idle
// workers) so that balancing and the gauges never count pods per request.
//
// PodSet holds state and keeps it consistent; it decides nothing. The parts
// that act on it each have one job: ZoneBalancer chooses a zone and a pod,
// CallClient runs a request's outbound calls in its slot, UsageMeter turns
// the counts into metrics, and Service moves requests through them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/service/cfs_bandwidth.h"
#include "models/service/job.h"
#include "models/service/service_config.h"
#include "models/topology/failure_domains.h"
#include "sim/event_queue.h"
#include "sim/recorder.h"

namespace drsim {

inline constexpr std::uint32_t kNoCall = 0xFFFFFFFFu;

// One worker slot: the request in service, its own work, then its calls.
struct WorkerSlot {
  bool occupied = false;
  bool failed = false;            // a call of the current step failed
  EventId work;                   // pending while the job's own work runs
  EventId deadline;               // pending while a job whose deadline the service honours is in service
  std::uint32_t generation = 0;   // bumped when freed: late call answers are ignored
  std::uint32_t step = 0;         // the call step under way
  std::uint32_t outstanding = 0;  // calls of that step not answered yet
  Job job;                        // the job in service (arrived: when it reached the service)
  std::uint32_t first_call = kNoCall;  // its calls under way (a list kept by CallClient)
  bool sending = false;                // its step's calls are being sent: the step cannot end yet
  bool waiting_for_thread = false;     // event loop: in the pod's run queue, its own work not started
  bool in_work = false;                // running its own work (work may be unscheduled: its pod is throttled)
  std::uint32_t cpu_millicores = 0;    // what its own work asks for while it computes (its operation's rate)
  std::uint32_t span = 0;              // its SERVER span when the request is traced (0: not traced)
  // Pods whose CPU can be held back (a limit, a shared node): where its own work ends on the pod's CPU clock
  // (PodCpuClock::progress_ns), in full-speed ns.
  double work_end = 0;
};

// Event loop: a request in flight waiting for one of the pod's threads. The generation tells a stale entry
// (its slot was freed and reused since) from a live one.
struct RunQueueEntry {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
};

struct ServicePod {
  std::size_t zone = 0;
  bool up = true;            // its zone is up
  bool present = true;       // false once removed by scaling down or killed
  bool terminating = false;  // scaled down while busy: no new work
  bool ready = true;         // passes its readiness probe (the API server's Ready condition)
  bool crashed = false;      // its container died (pods:kill under a control plane): requests are refused
  // In the callers' view of the endpoints: what the balancer picks from.
  // With the oracle it is up && ready at every instant; through kube-proxy
  // it is `ready` as of kube-proxy's last sync, whatever the zone's state,
  // so a pod of a dead zone stays listed until the node lifecycle
  // controller has marked it unready and kube-proxy has synced.
  bool listed = true;
  bool routable() const { return listed && present && !terminating; }
  // Counted in utilisation's denominator: running and either taking work
  // or finishing what it holds.
  bool serving() const { return up && present && (ready || terminating); }
  bool running() const { return up && present; }
  std::uint32_t busy = 0;
  JobQueue queue;
  std::uint32_t outstanding() const { return busy + static_cast<std::uint32_t>(queue.size()); }
  std::vector<WorkerSlot> slots;
  RingQueue<RunQueueEntry> run_queue;  // event loop: requests waiting for a thread, first come first served
  // Bit i % 64 of word i / 64 is set while slot i is free, so a job finds
  // the lowest free slot without walking the slots (see PodSet::take_slot).
  std::vector<std::uint64_t> free_slots;
  std::string name;  // <service>-<zone>-<n>

  // Use integrals (worker-ns, exact), advanced to usage_since_ns by accrue()
  // before any count they depend on changes: the hot path pays an add and a
  // multiply, and UsageMeter takes their differences once per window.
  std::uint32_t computing = 0;  // slots running their job's own work
  // CPU, in millicores: what the pod asks for now (idle while running, plus its computing requests' rates),
  // and what it runs at (the same, unless its limit or its node holds it back: PodCpuClock). cpu_mns is the
  // CPU it has used since it was added, in millicore-ns: exact, like the other integrals.
  std::int64_t cpu_demand = 0;  // its computing requests' rates only
  std::int64_t cpu_rate = 0;
  std::int64_t cpu_mns = 0, cpu_mns_mark = 0;
  std::int64_t usage_since_ns = 0;
  std::int64_t busy_ns = 0, computing_ns = 0, running_ns = 0, serving_ns = 0;
  // Their values at the start of the current window, and whether the pod
  // was present then (a pod removed during a window still gets its point).
  std::int64_t busy_ns_mark = 0, computing_ns_mark = 0, running_ns_mark = 0, serving_ns_mark = 0;
  bool present_at_mark = false;
  bool has_series = false;
  // Requests this pod finished, and the sum of their response times (wait +
  // service) in ns, since it was added: the counters an app exports for a
  // metrics pipeline to scrape (kube's metrics adapter takes differences).
  std::uint64_t completed = 0;
  std::int64_t response_ns = 0;
  SeriesId utilization_series, cpu_series, cpu_utilization_series, cpu_limit_series, cpu_throttled_series;

  void accrue(std::int64_t now_ns) {
    const std::int64_t dt = now_ns - usage_since_ns;
    if (dt == 0) return;
    busy_ns += static_cast<std::int64_t>(busy) * dt;
    computing_ns += static_cast<std::int64_t>(computing) * dt;
    cpu_mns += cpu_rate * dt;
    if (running()) running_ns += dt;
    if (serving()) serving_ns += dt;
    usage_since_ns = now_ns;
  }
};

struct ServiceZone {
  std::string name;
  std::optional<ZoneIndex> topology_zone;
  std::optional<RegionIndex> region;  // of topology_zone
  std::vector<std::size_t> pods;      // present pods (PodSet::retire takes gone ones out)
  std::uint32_t pods_created = 0;     // for pod names
  // Kept in step with every pod change (PodSet::change), so that routing
  // and the gauges never count pods per request.
  std::uint32_t routable_pods = 0;          // taking new work: the zone's routing weight
  std::uint32_t live_pods = 0;              // up and present, terminating included
  std::uint32_t idle_routable_workers = 0;  // free worker slots of routable pods (zone affinity)
  std::uint32_t busy = 0;                   // workers busy in the zone (event loop: threads computing)
  std::size_t queued = 0;                   // jobs waiting in the zone's queues
};

class PodSet {
 public:
  // One zone per entry of config.replicas, resolved in the topology when
  // there is one (throws SimulationError for an unknown zone). No pods yet.
  PodSet(const ServiceConfig& config, const FailureDomains* domains);

  std::vector<ServiceZone>& zones() { return zones_; }
  const std::vector<ServiceZone>& zones() const { return zones_; }
  ServiceZone& zone(std::size_t z) { return zones_[z]; }
  const ServiceZone& zone(std::size_t z) const { return zones_[z]; }
  std::vector<ServicePod>& pods() { return pods_; }
  const std::vector<ServicePod>& pods() const { return pods_; }
  ServicePod& pod(std::size_t p) { return pods_[p]; }
  const ServicePod& pod(std::size_t p) const { return pods_[p]; }
  // Workers (worker pool) or threads (event loop) per pod: what utilisation is measured against.
  std::uint32_t concurrency() const { return concurrency_; }
  // Requests one pod holds at once: its worker slots.
  std::uint32_t slots_per_pod() const { return slots_per_pod_; }

  // The service's zone in a topology zone (validation allows one at most).
  std::optional<std::size_t> zone_in_topology_zone(ZoneIndex zone) const {
    if (zone >= zone_in_topology_zone_.size() || zone_in_topology_zone_[zone] == kNoZone) return std::nullopt;
    return zone_in_topology_zone_[zone];
  }
  std::optional<std::size_t> find_zone(std::string_view name) const;
  // Pods that take new work (present, not terminating), whether or not their zone is up.
  std::uint32_t taking_work(std::size_t zone) const;

  // A new pod in zone z, counted in; up as the zone is, listed as the
  // callers' view has it.
  std::size_t add(std::size_t z, bool ready, bool up, bool listed, std::int64_t now_ns);
  // The pod is gone for good: out of its zone's counts and list. Returns
  // the position it had in the zone's list, if it was still there.
  std::optional<std::size_t> retire(std::size_t p, std::int64_t now_ns);
  // Every change to a pod's up, present, terminating, ready or busy goes
  // through here: edit(pod) runs between taking the pod out of its zone's
  // counts and putting it back in, after its use integrals reach now.
  template <class Edit>
  void change(std::size_t p, std::int64_t now_ns, Edit&& edit) {
    ServicePod& pod = pods_[p];
    pod.accrue(now_ns);
    count(pod, -1);
    edit(pod);
    count(pod, +1);
    refresh_cpu_rate(pod);
  }
  // The same for a change of the pod's work only (busy, computing, cpu_demand), the hot path: up, present,
  // terminating, ready and listed stay, so of its zone's counts only the idle routable workers follow its busy
  // count, without taking the pod out of the counts and back.
  template <class Edit>
  void change_work(std::size_t p, std::int64_t now_ns, Edit&& edit) {
    ServicePod& pod = pods_[p];
    pod.accrue(now_ns);
    const std::uint32_t busy_before = pod.busy;
    edit(pod);
    // Unsigned arithmetic wraps: adding before - after is subtracting the change, either way.
    if (pod.routable()) zones_[pod.zone].idle_routable_workers += busy_before - pod.busy;
    refresh_cpu_rate(pod);
  }
  // After a change of the pod's running state or its requests' CPU demand (its use integrals at now): the rate
  // it runs at is what it asks for, unless its CPU can be held back (cpu_held: Service's PodCpuClock sets it).
  void refresh_cpu_rate(ServicePod& pod) const {
    if (!cpu_held_) pod.cpu_rate = cpu_ask(pod);
  }
  // What the pod asks for: idle while running, plus its computing requests' rates.
  std::int64_t cpu_ask(const ServicePod& pod) const { return (pod.running() ? idle_millicores_ : 0) + pod.cpu_demand; }
  // Pods whose CPU a limit or a shared node can hold back: their rate is the PodCpuClock's.
  bool cpu_held() const { return cpu_held_; }
  void hold_cpu() { cpu_held_ = true; }

  // The lowest free slot, now occupied; the pod must have one.
  std::size_t take_slot(ServicePod& pod);
  // Frees the slot; its generation moves on so late call answers are ignored.
  // The slot's calls must have been dropped first.
  void release_slot(ServicePod& pod, std::size_t slot);

  // What one pod holds in memory before any request arrives.
  static std::uint64_t memory_per_pod(const ServiceConfig& config);

 private:
  static constexpr std::size_t kNoZone = static_cast<std::size_t>(-1);
  // Adds (sign +1) or removes (sign -1) the pod's share of its zone's counts.
  void count(const ServicePod& pod, int sign) {
    ServiceZone& zone = zones_[pod.zone];
    const auto add = [sign](std::uint32_t& n, std::uint32_t k) { n = sign > 0 ? n + k : n - k; };
    if (pod.routable()) {
      add(zone.routable_pods, 1);
      add(zone.idle_routable_workers, slots_per_pod_ - pod.busy);
    }
    if (pod.serving()) add(zone.live_pods, 1);
  }

  std::string service_name_;
  std::uint32_t concurrency_;
  std::uint32_t slots_per_pod_;
  std::int64_t idle_millicores_;
  bool cpu_held_;
  std::vector<ServiceZone> zones_;
  std::vector<std::size_t> zone_in_topology_zone_;  // kNoZone where the service has none
  std::vector<ServicePod> pods_;
};

}  // namespace drsim

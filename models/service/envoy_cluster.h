#pragma once
// Internal to models/service/: one sidecar's view of one upstream service,
// an Envoy "cluster" (discovery mesh; settings in mesh_config.h). Each pod of
// a calling service has its own sidecar, so each has one of these per service
// it calls, and each learns on its own:
//   - endpoints: the upstream's pods that Kubernetes lists (EDS, pushed by
//     istiod), the same for every sidecar;
//   - outlier detection: a host that fails consecutive5xx of this sidecar's
//     requests in a row is ejected by this sidecar only, for baseEjectionTime
//     x the times it was ejected, returned at a sweep of the detector (every
//     interval), within maxEjectionPercent;
//   - active health checks (when configured): this sidecar checks every host;
//   - the pick: localities as Envoy's priority levels (the caller's zone, its
//     region, the rest), each keeping min(100%, factor x healthy share) of the
//     traffic left, the panic threshold, then leastRequest, roundRobin or random
//     among the locality's hosts.
// How soon a dead pod is ejected thus depends on how much traffic one caller
// pod sends it, and a request its caller abandons first teaches the sidecar
// nothing: both as in a real mesh.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/service/mesh_config.h"
#include "models/topology/failure_domains.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace drsim {

class Service;
class Simulation;

class EnvoyCluster {
 public:
  // How a request through the sidecar ended, as the outlier detector hears it.
  enum class Result : std::uint8_t {
    kSuccess,
    kFailure,    // a 5xx, or what the sidecar answers 5xx for: a failed connection, its route timeout
    kAbandoned,  // the caller gave up first: the sidecar resets the stream, and the detector hears nothing
  };

  // `local_zone` is the calling pod's topology zone (none outside a topology:
  // no locality preference). Events are tagged with `host_component`.
  EnvoyCluster(const MeshConfig& config, Service& upstream, std::optional<ZoneIndex> local_zone,
               std::optional<RegionIndex> local_region, Simulation& sim, std::uint32_t host_component,
               RngStream& rng);
  ~EnvoyCluster();
  EnvoyCluster(const EnvoyCluster&) = delete;
  EnvoyCluster& operator=(const EnvoyCluster&) = delete;

  // The sidecar starts (its pod runs): the hosts listed now are known healthy
  // (the cluster warmed up before the pod took traffic); checks start.
  void start();
  const MeshConfig& settings() const { return config_; }
  // The sidecar stops (its pod stopped running): its timers end, its state is forgotten.
  void stop();
  bool running() const { return running_; }

  // The host for the next request: nullopt when the upstream lists no pod
  // ("no healthy upstream": 503).
  std::optional<std::size_t> pick();
  // Whether a request to the host needs a new connection (none is open, or the last one failed).
  bool needs_connection(std::size_t host) const;
  // A request went to the host / ended.
  void sent(std::size_t host);
  void ended(std::size_t host, Result result);

  // Ejections by this sidecar so far.
  std::uint64_t ejections() const { return ejections_; }
  bool ejected(std::size_t host) const { return host < hosts_.size() && hosts_[host].ejected; }
  // Whether active health checking has the host healthy (always true without it).
  bool checked_healthy(std::size_t host) const { return host >= hosts_.size() || hosts_[host].hc_healthy; }

 private:
  static constexpr std::size_t kLevels = 3;  // priority levels: the caller's zone, its region, the rest
  struct Host {
    bool in_eds = false;  // listed at the last refresh
    std::uint32_t active = 0;
    bool connected = false;
    // Outlier detection.
    std::uint32_t consecutive_failures = 0;
    std::uint32_t times_ejected = 0;  // the ejection time's multiplier
    bool ejected = false;
    SimTime ejected_at{};
    // Active health checking.
    bool hc_healthy = true;
    bool hc_fresh = false;  // new to the sidecar, not checked yet
    std::uint32_t hc_streak = 0;  // consecutive results against hc_healthy
    EventId hc_next, hc_timeout;
    std::uint32_t hc_round = 0;  // a result of an earlier round is ignored
  };
  bool available(const Host& h) const { return !h.ejected && h.hc_healthy; }
  // Brings the host lists and the levels' loads up to date with the upstream's endpoints and this sidecar's health.
  void refresh();
  std::size_t level_of(std::size_t host) const;
  std::size_t pick_in(std::size_t level, bool panic);
  void eject(std::size_t host);
  void schedule_sweep();
  void sweep();
  // Active health checking of one host.
  void check(std::size_t host);
  void check_result(std::size_t host, std::uint32_t round, bool passed);
  void schedule_check(std::size_t host, Duration after);
  Duration check_interval() const;
  void cancel_checks(Host& h);

  const MeshConfig& config_;
  enum class Policy : std::uint8_t { kLeastRequest, kRoundRobin, kRandom };
  Policy policy_;  // lbPolicy, settled once rather than compared per pick
  Service& upstream_;
  std::optional<ZoneIndex> local_zone_;
  std::optional<RegionIndex> local_region_;
  Simulation& sim_;
  std::uint32_t host_component_;
  RngStream& rng_;
  bool running_ = false;
  bool used_ = false;  // has sent a request: health checks use interval, not noTrafficInterval
  SimTime started_{};
  std::vector<Host> hosts_;  // by upstream pod id
  // What refresh() computed; stale when the upstream's endpoints or this sidecar's health changed.
  std::uint64_t seen_endpoints_ = ~std::uint64_t{0};
  bool health_changed_ = true;
  std::array<std::vector<std::uint32_t>, kLevels> all_, healthy_;
  std::array<double, kLevels> load_{};  // cumulative share of traffic up to each level
  std::array<bool, kLevels> panic_{};
  std::array<std::size_t, kLevels> next_{};  // round-robin position
  std::size_t listed_ = 0;
  EventId sweep_;
  std::uint64_t ejections_ = 0;
};

}  // namespace drsim

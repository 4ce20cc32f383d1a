#pragma once
// Settings of the sidecar proxies a service mesh puts in front of every call
// to a service (ServiceConfig::discovery mesh; models/service/envoy_cluster.h),
// named as Envoy's cluster and route settings and Istio's DestinationRule name
// them, with Envoy's documented defaults (envoy.config.cluster.v3.Cluster,
// OutlierDetection, HealthCheck; envoy.config.route.v3.RouteAction):
//
//   outlierDetection.consecutive5xx       5     (0: off)
//   outlierDetection.interval             10 s
//   outlierDetection.baseEjectionTime     30 s  (x the times the host was ejected)
//   outlierDetection.maxEjectionTime      300 s
//   outlierDetection.maxEjectionPercent   10 %  (one host is always ejectable)
//   panicThreshold                        50 %
//   overprovisioningFactor                1.4
//   connectTimeout                        5 s   (Istio sets 10 s)
//   routeTimeout                          15 s  (Istio sets none: 0s)
//   lbPolicy                              leastRequest (Istio's default; Envoy's is roundRobin)
//   locality                              failover (Istio's locality failover: the caller's zone,
//                                         then its region, then the rest)
//   edsDebounce                           100 ms (istiod's PILOT_DEBOUNCE_AFTER)
//
// Active health checking is off unless healthCheck is given, as in Envoy and
// Istio; when it is, its interval, timeout and thresholds have no defaults
// (Envoy requires them) except noTrafficInterval (60 s).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"

namespace drsim {

struct OutlierDetectionConfig {
  std::uint32_t consecutive_5xx = 5;
  Duration interval = std::chrono::seconds(10);
  Duration base_ejection_time = std::chrono::seconds(30);
  Duration max_ejection_time = std::chrono::seconds(300);
  double max_ejection_percent = 10;

  static constexpr std::string_view kTypeName = "OutlierDetection";
  static constexpr auto fields() {
    return std::tuple{
        field("consecutive5xx", &OutlierDetectionConfig::consecutive_5xx,
              "Consecutive failed requests from one sidecar to one host before that sidecar ejects it (Envoy: 5). "
              "A failure is a 5xx answer or what the sidecar answers 5xx for itself: a refused or timed-out "
              "connection, its route timeout. A request its caller gave up on first does not count. 0: no "
              "ejection."),
        field("interval", &OutlierDetectionConfig::interval,
              "Time between two sweeps of the detector, which return hosts whose ejection time is over (Envoy: "
              "10s).",
              kPositive),
        field("baseEjectionTime", &OutlierDetectionConfig::base_ejection_time,
              "How long a host stays ejected, times the number of times it has been ejected (Envoy: 30s); the "
              "count drops by one for each sweep that finds the host in service.",
              kPositive),
        field("maxEjectionTime", &OutlierDetectionConfig::max_ejection_time,
              "Ceiling of an ejection's length (Envoy: 300s).", kPositive),
        field("maxEjectionPercent", &OutlierDetectionConfig::max_ejection_percent,
              "Most hosts, in percent of those the sidecar knows, ejected at once; one host can always be ejected "
              "(Envoy: 10).",
              kNonNegative),
    };
  }
};

struct MeshHealthCheckConfig {
  Duration interval{};
  Duration timeout{};
  std::uint32_t unhealthy_threshold = 0;
  std::uint32_t healthy_threshold = 0;
  Duration no_traffic_interval = std::chrono::seconds(60);

  static constexpr std::string_view kTypeName = "MeshHealthCheck";
  static constexpr auto fields() {
    return std::tuple{
        field("interval", &MeshHealthCheckConfig::interval,
              "Time between two checks of one host by one sidecar, once the sidecar has sent the service traffic.",
              kRequired | kPositive),
        field("timeout", &MeshHealthCheckConfig::timeout, "A check not answered after this long fails.",
              kRequired | kPositive),
        field("unhealthyThreshold", &MeshHealthCheckConfig::unhealthy_threshold,
              "Consecutive failed checks before a healthy host is marked unhealthy.", kRequired | kPositive),
        field("healthyThreshold", &MeshHealthCheckConfig::healthy_threshold,
              "Consecutive passed checks before an unhealthy host is healthy again. A host new to the sidecar is "
              "healthy at its first passed check, as in Envoy.",
              kRequired | kPositive),
        field("noTrafficInterval", &MeshHealthCheckConfig::no_traffic_interval,
              "The interval while the sidecar has never sent the service a request (Envoy: 60s).", kPositive),
    };
  }
};

struct MeshConfig {
  OutlierDetectionConfig outlier_detection;
  std::optional<MeshHealthCheckConfig> health_check;
  double panic_threshold = 50;
  double overprovisioning_factor = 1.4;
  std::string locality = "failover";  // failover | none
  std::string lb_policy = "leastRequest";  // leastRequest | roundRobin | random
  Duration connect_timeout = std::chrono::seconds(5);
  Duration route_timeout = std::chrono::seconds(15);  // zero: none
  Duration eds_debounce = std::chrono::milliseconds(100);

  static constexpr std::string_view kTypeName = "Mesh";
  static constexpr auto fields() {
    return std::tuple{
        field("outlierDetection", &MeshConfig::outlier_detection,
              "Passive health checking: each sidecar ejects a host that fails its requests (Envoy's defaults)."),
        field("healthCheck", &MeshConfig::health_check,
              "Active health checking by every sidecar of every host (off unless given, as in Envoy and Istio)."),
        field("panicThreshold", &MeshConfig::panic_threshold,
              "When the hosts still available across localities are too few for the traffic and a locality has "
              "fewer than this percent of its hosts healthy, that locality's requests go to all its hosts, "
              "healthy or not (Envoy: 50). 0: never.",
              kNonNegative),
        field("overprovisioningFactor", &MeshConfig::overprovisioning_factor,
              "A locality keeps all its traffic while healthy hosts x this factor are at least all its hosts; below "
              "that the rest spills to the next locality (Envoy: 1.4).",
              kPositive),
        field("locality", &MeshConfig::locality,
              "failover: the caller's zone first, then the other zones of its region, then the other regions, by "
              "Envoy's priority levels (Istio's locality failover). none: every host alike."),
        field("lbPolicy", &MeshConfig::lb_policy,
              "How a host is picked in a locality: leastRequest (the fewer of two random hosts' requests under way "
              "from this sidecar; Istio's default), roundRobin (Envoy's default) or random."),
        field("connectTimeout", &MeshConfig::connect_timeout,
              "A sidecar's new connection to a host that does not answer fails after this long, and the call gets "
              "503 (Envoy: 5s; Istio sets 10s). A sidecar connects anew after a failed or abandoned request.",
              kPositive),
        field("routeTimeout", &MeshConfig::route_timeout,
              "A request its host has not answered after this long gets 504 from the sidecar (Envoy: 15s; Istio "
              "sets none). 0s: none.",
              kNonNegative),
        field("edsDebounce", &MeshConfig::eds_debounce,
              "How long istiod waits after an endpoint change before it pushes the new endpoints to the sidecars "
              "(PILOT_DEBOUNCE_AFTER: 100ms). Which pods are endpoints follows Kubernetes, as for discovery "
              "kubernetes.",
              kNonNegative),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim

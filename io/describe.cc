// describe: the resolved scenario as a reviewer reads it (drsim describe):
// what runs where, and when each timeline step starts and ends in absolute
// simulated time.
#include <algorithm>
#include <cstdio>
#include <string>

#include "io/action_parameters.h"
#include "sim/field_traits.h"
#include "io/scenario_loader.h"
#include "io/value_codecs.h"
#include "models/data/tcp_config.h"
#include "models/kube/node_lifecycle_bounds.h"
#include "models/service/load_balancer_bounds.h"

namespace drsim {

namespace {

template <Described T>
std::string fields_line(const T& value);

// A leaf as the file spells it; a structured parameter (a deployment
// policy) as its fields in braces.
template <class T>
std::string text_of(const T& value) {
  if constexpr (Described<T>) {
    return "{" + fields_line(value) + "}";
  } else if constexpr (IsVector<T>::value) {  // routing:switch's toRegions and steps
    std::string items;
    for (const auto& item : value) items += (items.empty() ? "" : ", ") + text_of(item);
    return "[" + items + "]";
  } else {
    return ValueCodec<T>::format(value);
  }
}

std::string plural(std::size_t n, std::string_view one) {
  return std::to_string(n) + " " + std::string(one) + (n == 1 ? "" : "s");
}

// "key value" for each leaf field of a struct, and each optional one that is
// set, as in the file: the guards, a service time.
template <Described T>
std::string fields_line(const T& value) {
  std::string out;
  for_each_field<T>([&](const auto& f) {
    using V = FieldValue<decltype(f)>;
    if constexpr (Leaf<V>) {
      out += (out.empty() ? "" : ", ") + std::string(f.key) + " " + text_of(value.*f.member);
    } else if constexpr (IsOptional<V>::value && Leaf<typename V::value_type>) {
      if (value.*f.member) out += (out.empty() ? "" : ", ") + std::string(f.key) + " " + text_of(*(value.*f.member));
    } else if constexpr (IsVector<V>::value && Leaf<typename V::value_type>) {
      std::string items;
      for (const auto& item : value.*f.member) items += (items.empty() ? "" : ", ") + text_of(item);
      if (!(value.*f.member).empty()) out += (out.empty() ? "" : ", ") + std::string(f.key) + " [" + items + "]";
    }
  });
  return out;
}

// The action's parameters that are set: "latency 50ms, loss 1%".
std::string parameters_of(const ActionConfig& a) {
  std::string out;
  for_each_parameter(a, [&out](std::string_view key, const auto& value) {
    out += (out.empty() ? "" : ", ") + std::string(key) + " " + text_of(value);
  });
  return out;
}

std::string target_of(const ActionTarget& t) {
  std::string out;
  for_each_field<ActionTarget>([&](const auto& f) {
    if (!(t.*f.member).empty()) out += (out.empty() ? "" : ", ") + std::string(f.key) + " " + t.*f.member;
  });
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : std::string(separator)) + s;
  return out;
}

}  // namespace

// For a zone or region loss: how each service with pods there lets its
// callers find out, and the time bounds its settings imply.
std::string detection_lines(const ScenarioSpec& spec, const ActionConfig& a) {
  if (a.action != "zone:fail" && a.action != "region:fail") return "";
  const DeploymentConfig& topology = spec.topology.config;
  std::vector<std::string> lost;
  for (const RegionConfig& r : topology.regions) {
    for (const ZoneConfig& z : r.zones) {
      if (a.target.zone == z.name || a.target.region == r.name) lost.push_back(z.name);
    }
  }
  std::string out;
  for (const ServiceConfig& sv : topology.services) {
    const bool hit = std::any_of(sv.replicas.begin(), sv.replicas.end(), [&](const ReplicasConfig& r) {
      return r.replicas > 0 && std::find(lost.begin(), lost.end(), r.zone) != lost.end();
    });
    if (!hit) continue;
    const std::string path = sv.discovery_path(spec.kubernetes.has_value());
    out += "      detection: " + sv.name;
    if (path == "oracle") {
      out += " (oracle): its callers drop the lost pods at once; no detection is modelled\n";
      continue;
    }
    if (path == "loadBalancer") {
      const LoadBalancerSettings lb = sv.load_balancer.value_or(LoadBalancerConfig{}).resolved();
      const DelayRange targets = target_unhealthy_delay_range(lb);
      const DelayRange nodes = node_removed_delay_range(lb);
      const std::string checks = std::to_string(lb.unhealthy_threshold) + " failed checks, every " +
                                 format_duration(lb.interval) + ", timeout " + format_duration(lb.timeout);
      const std::string node = "more than " + format_duration(nodes.above) + " and at most " +
                               format_duration(nodes.at_most) + " (" + std::to_string(lb.node_failure_threshold) +
                               " failed node checks, every " + format_duration(lb.node_check_interval) + ")";
      if (lb.cross_zone) {
        out += " (loadBalancer): its cross-zone balancer sends to the lost pods for more than " +
               format_duration(targets.above) + " and at most " + format_duration(targets.at_most) + " (" + checks +
               "); its DNS drops the lost zone's node after " + node;
      } else {
        out += " (loadBalancer): its zonal balancer's DNS answers with the lost zone's node for " + node +
               ", or until the zone's targets are unhealthy if sooner (more than " + format_duration(targets.above) +
               " and at most " + format_duration(targets.at_most) + ": " + checks + ")";
      }
      out += ", and callers hold the address up to " + format_duration(lb.dns_ttl) + " more (TTL)\n";
      continue;
    }
    const NodeLifecycleConfig& nl = spec.kubernetes->node_lifecycle;
    const DelayRange range = not_ready_delay_range(nl);
    if (path == "grpc") {
      const GrpcConfig grpc = sv.grpc.value_or(GrpcConfig{});
      const Duration tcp_give_up = grpc.keepalive_time ? grpc.keepalive_timeout : retransmission_give_up(TcpConfig{});
      out += " (grpc): its callers' channels keep their connections to the lost pods until one breaks: after " +
             format_duration(tcp_give_up) + " of unacknowledged calls (" +
             (grpc.keepalive_time ? std::string("TCP_USER_TIMEOUT = keepaliveTimeout") : std::string("tcp_retries2")) +
             ")";
      if (grpc.keepalive_time) {
        out += ", or a keepalive ping unanswered for " + format_duration(grpc.keepalive_timeout) + " (every " +
               format_duration(*grpc.keepalive_time) + " while calls are under way)";
      }
      if (grpc.max_connection_age) out += ", or at most " + format_duration(*grpc.max_connection_age) + " (maxConnectionAge)";
      out += "; every call sent on such a connection fails at its own deadline. " +
             std::string(grpc.target == "clusterIP" ? "A new connection goes where kube-proxy sends it"
                                                    : "New pods are found only at a re-resolution") +
             " (Kubernetes unlists the lost pods after more than " + format_duration(range.above) + " and at most " +
             format_duration(range.at_most + spec.kubernetes->kube_proxy.min_sync_period) + ")\n";
      continue;
    }
    if (path == "mesh") {
      const MeshConfig mesh = sv.mesh.value_or(MeshConfig{});
      out += " (mesh): its callers' sidecars each find out on their own.";
      if (mesh.locality == "failover") {
        out += " Locality failover: a caller whose own zone still has enough healthy pods (healthy x " +
               text_of(mesh.overprovisioning_factor) + " >= all) never sends to the lost ones.";
      }
      const OutlierDetectionConfig& od = mesh.outlier_detection;
      if (od.consecutive_5xx > 0) {
        out += " Outlier detection ejects a lost pod after " + std::to_string(od.consecutive_5xx) +
               " failures in a row of one sidecar's requests; a failure shows no sooner than the route timeout (" +
               (mesh.route_timeout > Duration::zero() ? format_duration(mesh.route_timeout) : std::string("none")) +
               ") on a kept connection or the connect timeout (" + format_duration(mesh.connect_timeout) +
               ") on a new one, and never for a call its caller gave up on first; at most " +
               text_of(od.max_ejection_percent) + "% of the pods at once (one always).";
      }
      if (mesh.health_check) {
        const MeshHealthCheckConfig& hc = *mesh.health_check;
        out += " Active checks mark it unhealthy after more than " +
               format_duration(hc.interval * static_cast<std::int64_t>(hc.unhealthy_threshold - 1)) + " and at most " +
               format_duration(hc.interval * static_cast<std::int64_t>(hc.unhealthy_threshold) + hc.timeout) + " (" +
               std::to_string(hc.unhealthy_threshold) + " failed checks, every " + format_duration(hc.interval) +
               ", timeout " + format_duration(hc.timeout) + ").";
      }
      out += " Kubernetes unlists it after more than " + format_duration(range.above) + " and at most " +
             format_duration(range.at_most + mesh.eds_debounce) + " (NotReady, then istiod's push after " +
             format_duration(mesh.eds_debounce) + ")\n";
      continue;
    }
    const Duration sync = spec.kubernetes->kube_proxy.min_sync_period;
    out += " (kubernetes): its callers keep sending to the lost pods for more than " + format_duration(range.above) +
           " and at most " + format_duration(range.at_most + sync) + ": NotReady at a look (every " +
           format_duration(nl.monitor_period) + ") more than " + format_duration(nl.monitor_grace_period) +
           " after the last Lease renewal seen (every " + format_duration(nl.lease_renew_interval) +
           "), then kube-proxy (minSyncPeriod " + format_duration(sync) + ")\n";
  }
  return out;
}

std::string describe(const Scenario& scenario) {
  const ScenarioSpec& spec = scenario.spec;
  const DeploymentConfig& topology = spec.topology.config;
  std::string out = "Scenario " + scenario.metadata.name + "\n";
  if (!scenario.metadata.description.empty()) out += "  " + scenario.metadata.description + "\n";
  if (!scenario.source_file.empty()) out += "  from " + scenario.source_file + "\n";
  for (const std::string& o : scenario.overrides) out += "  --set " + o + "\n";
  out += "  runs " + format_duration(spec.duration) + " of simulated time, seed " + std::to_string(spec.seed) + "\n";
  out += "  guards: " + fields_line(spec.guards) + "\n";
  // Network fidelity: replication and copies run as flows through SimGrid.
  if (spec.network.flows()) out += "  network: " + fields_line(spec.network) + "\n";

  std::size_t zones = 0;
  for (const RegionConfig& r : topology.regions) zones += r.zones.size();
  out += "\nTopology (" + (spec.topology.path.empty() ? std::string("inline") : spec.topology.source_file) +
         "): " + plural(topology.regions.size(), "region") + ", " + plural(zones, "zone") + ", " +
         plural(topology.links.size(), "link") + "\n";
  for (const RegionConfig& r : topology.regions) {
    std::vector<std::string> names;
    for (const ZoneConfig& z : r.zones) names.push_back(z.name);
    out += "  region " + r.name + ": " + join(names, ", ") + " (inter-zone rtt " + text_of(r.inter_zone_rtt) + ")\n";
  }
  for (const LinkConfig& l : topology.links) {
    out += "  link " + l.name + ": " + join(l.between, " <-> ") + ", rtt " + text_of(l.rtt) + ", jitter " +
           text_of(l.jitter) + ", bandwidth " + text_of(l.bandwidth) + ", loss " + text_of(l.loss) + "\n";
  }

  for (const ServiceConfig& sv : topology.services) {
    std::size_t pods = 0;
    for (const ReplicasConfig& r : sv.replicas) pods += r.replicas;
    const std::string server = sv.event_loop() ? ", event loop of " + plural(sv.concurrency, "thread") +
                                                     ", maxInFlight " + std::to_string(*sv.max_in_flight)
                                               : ", concurrency " + std::to_string(sv.concurrency);
    out += "  service " + sv.name + ": " + plural(pods, "pod") + " in " + plural(sv.replicas.size(), "zone") + server +
           ", queueLimit " + (sv.queue_limit ? std::to_string(*sv.queue_limit) : std::string("unbounded")) +
           ", serviceTime " + fields_line(sv.service_time) + "\n";
    if (!sv.operations.empty()) {
      std::vector<std::string> names;
      for (const OperationConfig& op : sv.operations) names.push_back(op.name);
      out += "    operations: " + join(names, ", ") + "\n";
    }
  }
  if (!spec.load.empty()) {
    out += "\nLoad (" + plural(spec.load.size(), "population") + ", windows of " + format_duration(spec.metrics_window) +
           "):\n";
    for (const ClientPopulationConfig& p : spec.load) {
      out += "  " + p.name + " -> " + p.service + (p.zone.empty() ? "" : " from " + p.zone) + ": " +
             fields_line(p.load) + ", " + p.arrivals + " arrivals, timeout " +
             (p.timeout ? format_duration(*p.timeout) : std::string("none")) + "\n";
    if (!p.operations.empty()) {
      double total = 0;
      for (const OperationShareConfig& op : p.operations) total += op.weight;
      std::vector<std::string> shares;
      for (const OperationShareConfig& op : p.operations) {
        char share[32];
        std::snprintf(share, sizeof share, " %.1f%%", 100 * op.weight / total);
        shares.push_back(op.name + share);
      }
      out += "    mix: " + join(shares, ", ") + "\n";
    }
    }
  }

  out += "\nTimeline (" + plural(scenario.resolved_timeline.size(), "action") + ", by start time):\n";
  // Start and end columns as wide as the widest clock, so that names line up.
  std::size_t width = 0;
  for (const ResolvedAction& r : scenario.resolved_timeline) {
    width = std::max({width, format_clock(r.start).size(), r.end ? format_clock(*r.end).size() : 0});
  }
  for (const ResolvedAction& r : scenario.resolved_timeline) {
    const ActionConfig& a = spec.timeline.at(r.index);
    std::string start = format_clock(r.start);
    std::string end = r.end ? format_clock(*r.end) : "";
    start.resize(width, ' ');
    end.resize(width, ' ');
    out += "  " + start + "  " + end + "  " + a.name + ": " + a.action + " " + target_of(a.target);
    if (const std::string params = parameters_of(a); !params.empty()) out += " (" + params + ")";
    if (a.duration) out += " for " + format_duration(*a.duration);
    if (!a.start_after.empty()) {
      out += ", after " + join(a.start_after, " and ");
      if (a.delay != Duration::zero()) out += " + " + format_duration(a.delay);
    }
    out += "\n" + detection_lines(spec, a);
  }
  return out;
}

}  // namespace drsim

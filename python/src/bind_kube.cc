// models/kube: the Kubernetes control plane's pure functions, for capacity
// planning in a notebook: the HPA replica calculation (replica_calculator.h),
// the HPA behavior and normalisation (hpa_behavior_config.h, hpa_behavior.h),
// the parent scheduler's zone split (zone_split.h) and the policy
// recommendation after a zone failure (policy_recommendation.h).
//
// drsim/kube.py checks the plain arguments (counts, durations, tolerances)
// and documents them. Everything with keys is read here through a C++ field
// list (python/src/dict_to_config.h): drsim's records (pods, metric samples,
// zones: models/kube/kube_records.h) and the two Kubernetes objects in their
// YAML shape (the HPA `behavior`, the deployment policy), so their keys,
// defaults and checks are declared once, in C++. Times are float seconds
// since the start of the run. Results are dicts and lists; a replica
// calculation that upstream answers with an error returns {"error": message}.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "sim/config_problem.h"
#include "models/kube/hpa_behavior.h"
#include "models/kube/hpa_behavior_config.h"
#include "models/kube/hpa_controller.h"
#include "models/kube/kube_quantity.h"
#include "models/kube/kube_records.h"
#include "models/kube/policy_recommendation.h"
#include "models/kube/replica_calculator.h"
#include "models/kube/zone_split.h"
#include "python/src/bindings.h"
#include "python/src/config_leaves.h"
#include "python/src/dict_to_config.h"
#include "sim/fields.h"
#include "sim/quote.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim::python {
namespace {

// ---- time: float seconds at the edge, integer nanoseconds inside ------------

Duration duration_of(double seconds, std::string_view what) {
  // WHY the bound: int64 nanoseconds hold about 292 years; beyond, llround is undefined.
  if (!std::isfinite(seconds) || std::abs(seconds) >= 9.2e9) {
    throw std::invalid_argument(std::string(what) + " must be a finite number of seconds, got " +
                                py::str(py::float_(seconds)).cast<std::string>());
  }
  return Duration{std::llround(seconds * 1e9)};
}

SimTime time_of(double seconds, std::string_view what) { return at(duration_of(seconds, what)); }

py::object seconds_or_none(const std::optional<SimTime>& t) {
  return t ? py::object(py::float_(to_seconds(*t))) : py::object(py::none());
}

// ---- drsim's records (models/kube/kube_records.h), through their field lists --------

std::vector<PodInfo> pods_of(const py::handle& list) {
  std::vector<PodInfo> pods;
  for (const KubePodRecord& r : configs_from_list<KubePodRecord>(list, "pods")) pods.push_back(r.to_pod_info());
  return pods;
}

// A sample without a timestamp was taken at `now`.
std::vector<PodMetric> metrics_of(const py::handle& list, SimTime now) {
  std::vector<PodMetric> metrics;
  for (const KubePodMetricRecord& r : configs_from_list<KubePodMetricRecord>(list, "metrics")) {
    metrics.push_back(r.to_pod_metric(now));
  }
  return metrics;
}

std::vector<ZoneState> zones_of(const py::handle& list) {
  std::vector<ZoneState> zones;
  for (const KubeZoneRecord& r : configs_from_list<KubeZoneRecord>(list, "zones")) zones.push_back(r.to_zone_state());
  return zones;
}

std::optional<ResourceName> resource_of(const py::object& name) {
  if (name.is_none()) return std::nullopt;
  const auto text = name.cast<std::string>();
  if (text == "cpu") return ResourceName::kCpu;
  if (text == "memory") return ResourceName::kMemory;
  throw std::invalid_argument("unknown resource " + quote(text) + " (cpu or memory)");
}

ResourceName required_resource(const py::object& name) {
  if (const auto r = resource_of(name)) return *r;
  throw std::invalid_argument("a resource metric needs a resource, cpu or memory");
}

// ---- the YAML-shaped objects, through their field lists ---------------------------

DeploymentPolicyConfig policy_of(py::handle value, const std::string& path) {
  return config_from_dict<DeploymentPolicyConfig>(value, path);
}

py::dict policy_dict(const DeploymentPolicyConfig& policy) {
  py::dict d;
  for_each_field<DeploymentPolicyConfig>([&](const auto& f) {
    const auto& v = policy.*f.member;
    using V = std::decay_t<decltype(v)>;
    if constexpr (IsVector<V>::value) {
      py::list items;
      for (const auto& e : v) items.append(leaf_to_python(e));
      d[py::str(std::string(f.key))] = items;
    } else {
      d[py::str(std::string(f.key))] = leaf_to_python(v);
    }
  });
  return d;
}

HpaBehaviorConfig behavior_config_of(py::handle value) { return config_from_dict<HpaBehaviorConfig>(value, "behavior"); }

// None: the HPA has no `behavior` (the legacy path); a dict, even empty: its behavior, defaulted.
std::optional<HpaBehavior> behavior_of(py::handle value, double downscale_stabilization) {
  if (value.is_none()) return std::nullopt;
  const Duration window = duration_of(downscale_stabilization, "downscale_stabilization");
  return resolve_hpa_behavior(behavior_config_of(value), window);
}

py::dict rules_dict(const HpaScalingRules& rules, double effective_tolerance) {
  py::list policies;
  for (const HpaScalingPolicy& p : rules.policies) {
    py::dict policy;
    policy["type"] = to_string(p.type);
    policy["value"] = p.value;
    policy["periodSeconds"] = p.period_seconds;
    policies.append(policy);
  }
  py::dict d;
  d["stabilizationWindowSeconds"] = rules.stabilization_window_seconds;
  d["selectPolicy"] = to_string(rules.select_policy);
  d["policies"] = policies;
  d["tolerance"] = effective_tolerance;
  return d;
}

// ---- results ------------------------------------------------------------------

py::dict groups_dict(const PodGroups& g) {
  py::dict d;
  d["ready_count"] = g.ready_count;
  d["unready"] = g.unready;
  d["missing"] = g.missing;
  d["ignored"] = g.ignored;
  return d;
}

py::dict error_dict(const std::string& message) {
  py::dict d;
  d["error"] = message;
  return d;
}

py::dict usage_dict(const CalcResult<UsageReplicas>& r) {
  if (!r.ok()) return error_dict(r.error);
  py::dict d;
  d["replicas"] = r.value->replicas;
  d["usage_milli"] = r.value->usage_milli;
  d["timestamp"] = seconds_or_none(r.value->timestamp);
  return d;
}

py::dict normalization_dict(const HpaNormalization& n) {
  py::dict d;
  d["desired_replicas"] = n.desired_replicas;
  d["stabilized_recommendation"] = n.stabilized_recommendation;
  d["able_to_scale"] = to_string(n.able_to_scale);
  d["able_to_scale_message"] = hpa_condition_message(n.able_to_scale);
  d["scaling_limited"] = n.scaling_limited;
  d["limit_reason"] = to_string(n.limit_reason);
  d["limit_message"] = hpa_condition_message(n.limit_reason);
  return d;
}

py::dict split_dict(const ZoneSplit& split) {
  py::dict targets;  // zone -> replicas, in input order
  for (const ZoneTarget& t : split.targets) targets[py::str(t.zone)] = t.replicas;
  py::dict d;
  d["targets"] = targets;
  d["placed"] = split.placed();
  d["pending"] = split.pending;
  d["reason"] = split.reason;
  d["failed"] = split.failed;
  return d;
}

ReplicaCalcOptions options_of(double scale_up_tolerance, double scale_down_tolerance,
                              double cpu_initialization_period, double initial_readiness_delay,
                              bool pod_level_resources) {
  ReplicaCalcOptions o;
  o.tolerances = Tolerances{scale_down_tolerance, scale_up_tolerance};
  o.cpu_initialization_period = duration_of(cpu_initialization_period, "cpu_initialization_period");
  o.delay_of_initial_readiness_status = duration_of(initial_readiness_delay, "initial_readiness_delay");
  o.pod_level_resources = pod_level_resources;
  return o;
}

// ---- the HPA's history, as plain tuples -------------------------------------------

py::list recommendations_list(const std::vector<HpaRecommendation>& recs) {
  py::list out;
  for (const HpaRecommendation& r : recs) out.append(py::make_tuple(r.recommendation, to_seconds(r.timestamp)));
  return out;
}

std::vector<HpaRecommendation> recommendations_of(const py::list& list) {
  std::vector<HpaRecommendation> out;
  for (const py::handle h : list) {
    const auto t = h.cast<py::tuple>();
    out.push_back({t[0].cast<std::int32_t>(), time_of(t[1].cast<double>(), "recommendation timestamp")});
  }
  return out;
}

py::list events_list(const std::vector<HpaScaleEvent>& events) {
  py::list out;
  for (const HpaScaleEvent& e : events) {
    out.append(py::make_tuple(e.replica_change, to_seconds(e.timestamp), e.outdated));
  }
  return out;
}

std::vector<HpaScaleEvent> events_of(const py::list& list) {
  std::vector<HpaScaleEvent> out;
  for (const py::handle h : list) {
    const auto t = h.cast<py::tuple>();
    out.push_back({t[0].cast<std::int32_t>(), time_of(t[1].cast<double>(), "scale event timestamp"),
                   t.size() > 2 && t[2].cast<bool>()});
  }
  return out;
}

void bind_history(py::module_& m) {
  py::class_<HpaScalingHistory>(m, "HpaScalingHistory",
                                "One HPA's controller state across syncs: recommendations and scale events.")
      .def(py::init<>())
      .def_property(
          "recommendations", [](const HpaScalingHistory& h) { return recommendations_list(h.recommendations); },
          [](HpaScalingHistory& h, const py::list& l) { h.recommendations = recommendations_of(l); },
          "[(replicas, timestamp_s)]")
      .def_property(
          "scale_up_events", [](const HpaScalingHistory& h) { return events_list(h.scale_up_events); },
          [](HpaScalingHistory& h, const py::list& l) { h.scale_up_events = events_of(l); },
          "[(replica_change, timestamp_s, outdated)]")
      .def_property(
          "scale_down_events", [](const HpaScalingHistory& h) { return events_list(h.scale_down_events); },
          [](HpaScalingHistory& h, const py::list& l) { h.scale_down_events = events_of(l); },
          "[(replica_change, timestamp_s, outdated)]")
      .def("clear", &HpaScalingHistory::clear)
      .def(
          "record_initial_recommendation",
          [](HpaScalingHistory& h, std::int32_t current, double now) {
            h.record_initial_recommendation(current, time_of(now, "now"));
          },
          py::arg("current_replicas"), py::arg("now"))
      .def(
          "store_scale_event",
          [](HpaScalingHistory& h, const py::object& behavior, std::int32_t prev, std::int32_t next, double now,
             double downscale_stabilization) {
            const std::optional<HpaBehavior> b = behavior_of(behavior, downscale_stabilization);
            h.store_scale_event(b ? &*b : nullptr, prev, next, time_of(now, "now"));
          },
          py::arg("behavior"), py::arg("prev_replicas"), py::arg("new_replicas"), py::arg("now"),
          py::arg("downscale_stabilization"));
}

// ---- the records' declarations and quantities ----------------------------------------

template <Described T>
py::list record_fields() {
  py::list out;
  for_each_field<T>([&out](const auto& f) {
    out.append(py::make_tuple(std::string(f.key), std::string(f.doc), f.required()));
  });
  return out;
}

void bind_records(py::module_& m) {
  m.def(
      "kube_record_fields",
      [](const std::string& record) -> py::list {
        if (record == KubePodRecord::kTypeName) return record_fields<KubePodRecord>();
        if (record == KubeContainerRecord::kTypeName) return record_fields<KubeContainerRecord>();
        if (record == KubePodMetricRecord::kTypeName) return record_fields<KubePodMetricRecord>();
        if (record == KubeZoneRecord::kTypeName) return record_fields<KubeZoneRecord>();
        throw std::invalid_argument("unknown record " + quote(record) + " (Pod, Container, PodMetric or Zone)");
      },
      py::arg("record"), "[(key, doc, required)] of one of drsim's kube records, in declaration order.");
  m.def(
      "kube_quantity_milli",
      [](const py::object& value, const std::string& name) {
        return leaf_from_python<MilliQuantity>(value, name).milli;
      },
      py::arg("value"), py::arg("name"),
      "A number or Kubernetes quantity (\"500m\", \"512Mi\") in milli-units, rounded up; errors name `name`.");
}

// ---- the replica calculation -----------------------------------------------------

void bind_replica_calculation(py::module_& m) {
  m.def(
      "kube_group_pods",
      [](const py::list& pods, const py::list& metrics, const py::object& resource, double now,
         double cpu_initialization_period, double initial_readiness_delay) {
        return groups_dict(group_pods(pods_of(pods), metrics_of(metrics, time_of(now, "now")), resource_of(resource), time_of(now, "now"),
                                      duration_of(cpu_initialization_period, "cpu_initialization_period"),
                                      duration_of(initial_readiness_delay, "initial_readiness_delay")));
      },
      py::arg("pods"), py::arg("metrics"), py::arg("resource"), py::arg("now"), py::arg("cpu_initialization_period"),
      py::arg("initial_readiness_delay"), "upstream groupPods; resource None for a Pods (custom) metric.");
  m.def(
      "kube_pod_requests",
      [](const py::list& pods, const std::string& container, const py::object& resource,
         bool pod_level_resources) -> py::object {
        const auto r = pod_requests(pods_of(pods), container, required_resource(resource), pod_level_resources);
        if (!r.ok()) return error_dict(r.error);
        return py::cast(*r.value);
      },
      py::arg("pods"), py::arg("container"), py::arg("resource"), py::arg("pod_level_resources"),
      "upstream calculateRequests: milli-units per pod, or {'error': message}.");
  m.def(
      "kube_resource_utilization_replicas",
      [](std::int32_t current, std::int32_t target_utilization, const py::object& resource,
         const std::string& container, const py::list& pods, const py::list& metrics, double now, double up,
         double down, double init, double delay, bool pod_level) {
        const auto r =
            resource_utilization_replicas(current, target_utilization, required_resource(resource), container,
                                          pods_of(pods), metrics_of(metrics, time_of(now, "now")), time_of(now, "now"),
                                          options_of(up, down, init, delay, pod_level));
        if (!r.ok()) return error_dict(r.error);
        py::dict d;
        d["replicas"] = r.value->replicas;
        d["utilization"] = r.value->utilization;
        d["usage_milli"] = r.value->raw_average_milli;
        d["timestamp"] = seconds_or_none(r.value->timestamp);
        return d;
      },
      py::arg("current_replicas"), py::arg("target_utilization"), py::arg("resource"), py::arg("container"),
      py::arg("pods"), py::arg("metrics"), py::arg("now"), py::arg("scale_up_tolerance"),
      py::arg("scale_down_tolerance"), py::arg("cpu_initialization_period"), py::arg("initial_readiness_delay"),
      py::arg("pod_level_resources"), "upstream GetResourceReplicas.");
  m.def(
      "kube_raw_resource_replicas",
      [](std::int32_t current, std::int64_t target_average_milli, const py::object& resource, const py::list& pods,
         const py::list& metrics, double now, double up, double down, double init, double delay, bool pod_level) {
        return usage_dict(raw_resource_replicas(current, target_average_milli, required_resource(resource),
                                                pods_of(pods), metrics_of(metrics, time_of(now, "now")), time_of(now, "now"),
                                                options_of(up, down, init, delay, pod_level)));
      },
      py::arg("current_replicas"), py::arg("target_average_milli"), py::arg("resource"), py::arg("pods"),
      py::arg("metrics"), py::arg("now"), py::arg("scale_up_tolerance"), py::arg("scale_down_tolerance"),
      py::arg("cpu_initialization_period"), py::arg("initial_readiness_delay"), py::arg("pod_level_resources"),
      "upstream GetRawResourceReplicas.");
  m.def(
      "kube_pods_metric_replicas",
      [](std::int32_t current, std::int64_t target_average_milli, const std::string& metric_name,
         const py::list& pods, const py::list& metrics, double now, double up, double down) {
        return usage_dict(pods_metric_replicas(current, target_average_milli, metric_name, pods_of(pods),
                                               metrics_of(metrics, time_of(now, "now")), time_of(now, "now"),
                                               options_of(up, down, 0, 0, true)));
      },
      py::arg("current_replicas"), py::arg("target_average_milli"), py::arg("metric_name"), py::arg("pods"),
      py::arg("metrics"), py::arg("now"), py::arg("scale_up_tolerance"), py::arg("scale_down_tolerance"),
      "upstream GetMetricReplicas (a Pods metric).");
  m.def(
      "kube_object_metric_replicas",
      [](std::int32_t current, std::int64_t target_milli, std::int64_t usage_milli, const py::list& pods, double up,
         double down) {
        return usage_dict(object_metric_replicas(current, target_milli, usage_milli, pods_of(pods), {down, up}));
      },
      py::arg("current_replicas"), py::arg("target_milli"), py::arg("usage_milli"), py::arg("pods"),
      py::arg("scale_up_tolerance"), py::arg("scale_down_tolerance"), "upstream GetObjectMetricReplicas.");
  m.def(
      "kube_object_per_pod_metric_replicas",
      [](std::int32_t status_replicas, std::int64_t target_average_milli, std::int64_t usage_milli, double timestamp,
         double up, double down) {
        return usage_dict(object_per_pod_metric_replicas(status_replicas, target_average_milli, usage_milli,
                                                         time_of(timestamp, "timestamp"), {down, up}));
      },
      py::arg("status_replicas"), py::arg("target_average_milli"), py::arg("usage_milli"), py::arg("timestamp"),
      py::arg("scale_up_tolerance"), py::arg("scale_down_tolerance"), "upstream GetObjectPerPodMetricReplicas.");
  m.def(
      "kube_external_metric_replicas",
      [](std::int32_t current, std::int64_t target_milli, const std::string& metric_name,
         const std::vector<std::int64_t>& values_milli, const py::list& pods, double up, double down) {
        return usage_dict(
            external_metric_replicas(current, target_milli, metric_name, values_milli, pods_of(pods), {down, up}));
      },
      py::arg("current_replicas"), py::arg("target_milli"), py::arg("metric_name"), py::arg("values_milli"),
      py::arg("pods"), py::arg("scale_up_tolerance"), py::arg("scale_down_tolerance"),
      "upstream GetExternalMetricReplicas.");
  m.def(
      "kube_external_per_pod_metric_replicas",
      [](std::int32_t status_replicas, std::int64_t target_average_milli, const std::string& metric_name,
         const std::vector<std::int64_t>& values_milli, double timestamp, double up, double down) {
        return usage_dict(external_per_pod_metric_replicas(status_replicas, target_average_milli, metric_name,
                                                           values_milli, time_of(timestamp, "timestamp"),
                                                           {down, up}));
      },
      py::arg("status_replicas"), py::arg("target_average_milli"), py::arg("metric_name"), py::arg("values_milli"),
      py::arg("timestamp"), py::arg("scale_up_tolerance"), py::arg("scale_down_tolerance"),
      "upstream GetExternalPerPodMetricReplicas.");
}

// ---- HPA behavior and normalisation ------------------------------------------------

void bind_behavior(py::module_& m) {
  m.def(
      "kube_resolve_behavior",
      [](const py::object& behavior, double downscale_stabilization, double controller_tolerance) {
        // No behavior at all resolves like an empty one: every field takes its default.
        const HpaBehavior b = *behavior_of(behavior.is_none() ? py::dict() : behavior, downscale_stabilization);
        const HpaScalingTolerances t = hpa_scaling_tolerances(&b, controller_tolerance);
        py::dict d;
        d["scaleUp"] = rules_dict(b.scale_up, t.scale_up);
        d["scaleDown"] = rules_dict(b.scale_down, t.scale_down);
        return d;
      },
      py::arg("behavior"), py::arg("downscale_stabilization"), py::arg("controller_tolerance"),
      "The effective behavior (API defaulting plus the controller's scale-down window), in its YAML shape.");
  m.def(
      "kube_normalize_desired_replicas",
      [](HpaScalingHistory& history, std::int32_t current, std::int32_t desired, std::int32_t min_replicas,
         std::int32_t max_replicas, const py::object& behavior, double now, double downscale_stabilization,
         double scale_up_limit_factor) {
        const std::optional<HpaBehavior> b = behavior_of(behavior, downscale_stabilization);
        const HpaNormalizationInput in{current, desired, min_replicas, max_replicas};
        const SimTime t = time_of(now, "now");
        if (b) return normalization_dict(hpa_normalize_desired_replicas_with_behaviors(history, in, *b, t));
        return normalization_dict(hpa_normalize_desired_replicas(
            history, in, t, duration_of(downscale_stabilization, "downscale_stabilization"), scale_up_limit_factor));
      },
      py::arg("history"), py::arg("current_replicas"), py::arg("desired_replicas"), py::arg("min_replicas"),
      py::arg("max_replicas"), py::arg("behavior"), py::arg("now"), py::arg("downscale_stabilization"),
      py::arg("scale_up_limit_factor"), "normalizeDesiredReplicas[WithBehaviors]; records the recommendation.");
  m.def(
      "kube_reconcile_replicas",
      [](HpaScalingHistory& history, std::int32_t current, std::int32_t metric_desired, std::int32_t min_replicas,
         std::int32_t max_replicas, const py::object& behavior, double now, double downscale_stabilization) {
        const std::optional<HpaBehavior> b = behavior_of(behavior, downscale_stabilization);
        const HpaReconcileDecision r = hpa_reconcile_replicas(
            history, {current, metric_desired, min_replicas, max_replicas}, b ? &*b : nullptr, time_of(now, "now"),
            duration_of(downscale_stabilization, "downscale_stabilization"));
        py::dict d;
        d["desired_replicas"] = r.desired_replicas;
        d["rescale"] = r.rescale;
        d["scaling_disabled"] = r.scaling_disabled;
        d["reason"] = to_string(r.reason);
        d["normalization"] = r.normalization ? py::object(normalization_dict(*r.normalization)) : py::none();
        return d;
      },
      py::arg("history"), py::arg("current_replicas"), py::arg("metric_desired_replicas"), py::arg("min_replicas"),
      py::arg("max_replicas"), py::arg("behavior"), py::arg("now"), py::arg("downscale_stabilization"),
      "One sync's replica decision (reconcileAutoscaler); stores the scale event on a rescale.");
}

// ---- zone split and policy recommendation ----------------------------------------

void bind_zones(py::module_& m) {
  m.def(
      "kube_zone_split",
      [](const py::object& policy, const py::list& zones, std::uint32_t desired, bool fresh) {
        const DeploymentPolicyConfig p = policy_of(policy, "policy");
        const std::vector<ZoneState> z = zones_of(zones);
        return split_dict(fresh ? fresh_split(p, z, desired) : scale_split(p, z, desired));
      },
      py::arg("policy"), py::arg("zones"), py::arg("desired"), py::arg("fresh"),
      "scale_split (fresh False) or fresh_split (True).");
  m.def(
      "kube_candidate_policies",
      [](const py::object& policy, const py::list& zones) {
        py::list out;
        for (const PolicyCandidate& c : candidate_policies(policy_of(policy, "current_policy"), zones_of(zones))) {
          py::dict d;
          d["label"] = c.label;
          d["policy"] = policy_dict(c.policy);
          out.append(d);
        }
        return out;
      },
      py::arg("current_policy"), py::arg("zones"), "The built-in candidates, the current policy first.");
  m.def(
      "kube_policy_deviation",
      [](const py::object& from, const py::object& to) {
        return policy_deviation(policy_of(from, "from_policy"), policy_of(to, "to_policy"));
      },
      py::arg("from_policy"), py::arg("to_policy"), "Deviation points of `to` from `from`.");
  m.def(
      "kube_recommend_policies",
      [](const py::object& current, const py::list& zones, std::uint32_t needed, const py::list& extra,
         bool migrate) {
        RecommendationRequest request;
        request.current = policy_of(current, "current_policy");
        request.zones = zones_of(zones);
        request.needed = needed;
        request.migrate = migrate;
        for (std::size_t i = 0; i < extra.size(); ++i) {
          const auto pair = extra[i].cast<py::tuple>();
          request.extra.push_back(
              {pair[0].cast<std::string>(), policy_of(pair[1], "candidates[" + std::to_string(i) + "]")});
        }
        py::list out;
        for (const PolicyRecommendation& r : recommend_policies(request)) {
          py::dict headroom;
          for (const ZoneHeadroom& h : r.headroom) {
            headroom[py::str(h.zone)] = h.free ? py::object(py::int_(*h.free)) : py::object(py::none());
          }
          py::dict d;
          d["label"] = r.label;
          d["policy"] = policy_dict(r.policy);
          d["deviation"] = r.deviation;
          d["split"] = split_dict(r.split);
          d["headroom"] = headroom;
          out.append(d);
        }
        return out;
      },
      py::arg("current_policy"), py::arg("zones"), py::arg("needed"), py::arg("extra"), py::arg("migrate"),
      "The candidates that place all `needed` replicas, least deviation first.");
}

}  // namespace

// ---- one HPA through its syncs (hpa_controller.h) ---------------------------------

// An HPA in its YAML shape. The blocks present are checked as a scenario's
// are; the type is not, so that an HPA of a type the controller does not
// know can be synced (upstream's controller answers InvalidMetricSourceType).
HpaConfig hpa_config_of(py::handle value) {
  HpaConfig config = config_from_dict<HpaConfig>(value, "hpa");
  for (std::size_t i = 0; i < config.metrics.size(); ++i) {
    const HpaMetricConfig& m = config.metrics[i];
    const std::string at = "hpa.metrics[" + std::to_string(i) + "]";
    if (m.pods) raise_problems(m.pods->validate(), at + ".pods");
    if (m.object) raise_problems(m.object->validate(), at + ".object");
    if (m.external) raise_problems(m.external->validate(), at + ".external");
  }
  return config;
}

// One metric's answer: None for a Resource metric (it reads `cpu`), else a
// dict of error, pods (samples), value_milli, values_milli and timestamp.
HpaMetricReading reading_of(const py::handle& value, SimTime now) {
  HpaMetricReading r;
  r.timestamp = now;
  if (value.is_none()) return r;
  const auto d = py::reinterpret_borrow<py::dict>(value);
  if (d.contains("error") && !d["error"].is_none()) r.error = d["error"].cast<std::string>();
  if (d.contains("pods")) r.pods = metrics_of(d["pods"], now);
  if (d.contains("value_milli") && !d["value_milli"].is_none()) r.value_milli = d["value_milli"].cast<std::int64_t>();
  if (d.contains("values_milli")) r.values_milli = d["values_milli"].cast<std::vector<std::int64_t>>();
  if (d.contains("timestamp") && !d["timestamp"].is_none()) r.timestamp = time_of(d["timestamp"].cast<double>(), "timestamp");
  return r;
}

py::dict sync_dict(const HpaSyncResult& r) {
  py::dict d;
  d["desired_replicas"] = r.desired_replicas;
  d["rescale"] = r.rescale;
  d["proposal"] = r.proposal;
  d["message"] = r.message;
  py::list conditions;
  for (const HpaCondition& c : r.conditions) conditions.append(py::make_tuple(c.type, c.status, c.reason));
  d["conditions"] = conditions;
  py::list proposals;
  for (const auto& p : r.metric_proposals) proposals.append(p ? py::object(py::int_(*p)) : py::object(py::none()));
  d["metric_proposals"] = proposals;
  py::list reasons;
  for (const std::string& reason : r.invalid_reasons) {
    reasons.append(reason.empty() ? py::object(py::none()) : py::object(py::str(reason)));
  }
  d["invalid_reasons"] = reasons;
  d["utilization"] = r.utilization ? py::object(py::int_(*r.utilization)) : py::object(py::none());
  return d;
}

void bind_controller(py::module_& m) {
  py::class_<HpaController>(m, "KubeHpaController", "One HPA through its syncs (models/kube/hpa_controller.h).")
      .def(py::init([](const py::handle& hpa, double tolerance, double cpu_initialization_period,
                       double initial_readiness_delay, double downscale_stabilization) {
             HpaControllerConfig c;
             c.tolerance = tolerance;
             c.cpu_initialization_period = duration_of(cpu_initialization_period, "cpu_initialization_period");
             c.initial_readiness_delay = duration_of(initial_readiness_delay, "initial_readiness_delay");
             c.downscale_stabilization = duration_of(downscale_stabilization, "downscale_stabilization");
             return HpaController(hpa_config_of(hpa), c);
           }),
           py::arg("hpa"), py::arg("tolerance"), py::arg("cpu_initialization_period"),
           py::arg("initial_readiness_delay"), py::arg("downscale_stabilization"))
      .def(
          "sync",
          [](HpaController& h, std::int32_t current, const py::list& pods, const py::list& cpu,
             const py::list& readings, double now, const py::object& status_replicas) {
            HpaSyncInput in;
            in.now = time_of(now, "now");
            in.current_replicas = current;
            in.pods = pods_of(pods);
            in.cpu = metrics_of(cpu, in.now);
            for (const py::handle& r : readings) in.readings.push_back(reading_of(r, in.now));
            if (!status_replicas.is_none()) in.status_replicas = status_replicas.cast<std::int32_t>();
            return sync_dict(h.sync(in));
          },
          py::arg("current_replicas"), py::arg("pods"), py::arg("cpu"), py::arg("readings"), py::arg("now"),
          py::arg("status_replicas"), "HpaController::sync: one reconcile of the HPA.");
}

void bind_kube(py::module_& m) {
  bind_records(m);
  bind_controller(m);
  bind_history(m);
  bind_replica_calculation(m);
  bind_behavior(m);
  bind_zones(m);
}

}  // namespace drsim::python

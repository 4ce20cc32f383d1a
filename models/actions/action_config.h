#pragma once
// One step of a scenario's timeline: a fault or an operator action, in the
// spirit of AWS FIS experiment templates ("zone:fail", "link:degrade", ...),
// started either at an absolute time or after other actions finish.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/kube/zone_split.h"
#include "models/traffic/traffic_scheduler_config.h"
#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

struct ActionTarget {
  std::string zone;
  std::string region;
  std::string link;
  std::string service;
  std::string population;
  std::string database;
  std::string vendor;

  static constexpr std::string_view kTypeName = "ActionTarget";
  static constexpr auto fields() {
    return std::tuple{
        field("zone", &ActionTarget::zone, "A zone of the topology."),
        field("region", &ActionTarget::region, "A region of the topology."),
        field("link", &ActionTarget::link, "A link of the topology."),
        field("service", &ActionTarget::service, "A service of the topology."),
        field("population", &ActionTarget::population, "A client population of the scenario's load."),
        field("database", &ActionTarget::database, "A database of the topology."),
        field("vendor", &ActionTarget::vendor, "A CDN vendor of a population's cdn block."),
    };
  }
};

struct ActionConfig {
  std::string name;    // unique; other actions refer to it in startAfter
  std::string action;  // e.g. "zone:fail"; action_catalog.h lists the known ones
  std::optional<Duration> at;
  std::vector<std::string> start_after;
  Duration delay{};
  std::optional<Duration> duration;
  ActionTarget target;
  // Parameters; which ones an action takes is in the action catalog.
  std::optional<Duration> latency;
  std::optional<Ratio> loss;
  std::optional<Bandwidth> bandwidth;
  std::optional<Ratio> ratio;
  std::optional<std::uint32_t> replicas;
  std::optional<std::uint32_t> count;
  std::optional<Ratio> percent;
  std::optional<double> factor;
  std::optional<double> weight;
  std::optional<DeploymentPolicyConfig> policy;
  std::optional<std::string> to;
  std::optional<ByteSize> size;
  std::optional<std::vector<std::string>> to_regions;
  std::optional<std::vector<RoutingSwitchStep>> steps;
  std::optional<bool> reverse;

  static constexpr std::string_view kTypeName = "Action";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &ActionConfig::name, "Unique name of this step; startAfter refers to it.", kRequired),
        field("action", &ActionConfig::action, "What happens, e.g. zone:fail (see the action catalog).", kRequired),
        field("at", &ActionConfig::at, "Start time from the beginning of the run. Exclusive with startAfter.",
              kNonNegative),
        field("startAfter", &ActionConfig::start_after,
              "Names of actions that must finish before this one starts. Exclusive with at."),
        field("delay", &ActionConfig::delay, "Wait after the startAfter actions finish.", kNonNegative),
        field("duration", &ActionConfig::duration,
              "Undo the action after this long (a failure recovers, a degradation ends).", kPositive),
        field("target", &ActionConfig::target, "What the action applies to.", kRequired),
        field("latency", &ActionConfig::latency, "link:degrade: round-trip time added to the link.", kNonNegative),
        field("loss", &ActionConfig::loss, "link:degrade: packet loss ratio while degraded.",
              kNonNegative | kAtMostOne),
        field("bandwidth", &ActionConfig::bandwidth, "link:degrade: link capacity while degraded.", kPositive),
        field("ratio", &ActionConfig::ratio,
              "traffic:cut: the zone keeps this share of its route weight (1% for a service-discovery cut, "
              "0% to drain it).",
              kNonNegative | kAtMostOne),
        field("replicas", &ActionConfig::replicas,
              "service:scale: the zone's new pod count; deployment:scale: the deployment's spec.replicas."),
        field("count", &ActionConfig::count, "pods:kill: how many of the zone's pods to kill.", kPositive),
        field("percent", &ActionConfig::percent,
              "pods:kill: the share of the zone's pods to kill (rounded down, at least one).", kPositive | kAtMostOne),
        field("factor", &ActionConfig::factor, "service:slow: service times are multiplied by this.", kPositive),
        field("weight", &ActionConfig::weight, "routing:weight: the region's new routing weight.", kNonNegative),
        field("policy", &ActionConfig::policy, "deployment:policy: the deployment's new zone policy."),
        field("to", &ActionConfig::to, "flow:transfer: the zone the bytes are copied to."),
        field("size", &ActionConfig::size, "flow:transfer: how many bytes are copied.", kPositive),
        field("toRegions", &ActionConfig::to_regions,
              "routing:switch: the regions that take the moved share (spread by the scheduler's spread rule)."),
        field("steps", &ActionConfig::steps,
              "routing:switch: the stages, {after, share} with both ascending (default: 10% at once, 50% after "
              "2m, 100% after 3m: the runbook's T-5, T-3, T-2 min)."),
        field("reverse", &ActionConfig::reverse,
              "routing:switch: run the switch-back instead (the stages in reverse order, from the full switch "
              "back to none), as the undo of a duration does."),
    };
  }
};

}  // namespace drsim

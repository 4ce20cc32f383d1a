#pragma once
// Settings of a global traffic scheduler (models/traffic/traffic_scheduler.h),
// the GTS of docs/sources.md section 5: on a region the health checks find
// unreachable it sets the region's route weight to 0 and spreads its share
// over the healthy regions.
//   spread  even:     the lost share is split equally among the healthy
//                     regions (the source: "evenly over the remaining")
//           capacity: in proportion to each healthy region's serving
//                     capacity, measured live when the decision is taken:
//                     sum over its zones that are up of running pods x
//                     concurrency / mean service time of the entry service
//           weight:   in proportion to their current shares, which is what
//                     a weighted DNS record does without a scheduler
//
// And one timeline step that moves traffic in stages (routing:switch), with
// its schedule: RoutingSwitchStep.
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

struct TrafficSchedulerConfig {
  std::string spread = "even";  // even | capacity | weight

  static constexpr std::string_view kTypeName = "TrafficScheduler";
  static constexpr auto fields() {
    return std::tuple{
        field("spread", &TrafficSchedulerConfig::spread,
              "How an unreachable region's share (and a routing:switch's moved share) is spread over the receiving "
              "regions: even (equal parts, the source's GTS), capacity (in proportion to each region's serving "
              "capacity, running pods x concurrency / mean service time of the entry service, measured when the "
              "change is decided) or weight (in proportion to their current shares, as a weighted record does)."),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

// One stage of a planned switch-over (routing:switch): `after` the step
// starts, `share` of the region's traffic has been moved.
struct RoutingSwitchStep {
  Duration after{};
  Ratio share{1.0};

  static constexpr std::string_view kTypeName = "RoutingSwitchStep";
  static constexpr auto fields() {
    return std::tuple{
        field("after", &RoutingSwitchStep::after, "Time from the step's start.", kRequired | kNonNegative),
        field("share", &RoutingSwitchStep::share, "Share of the region's traffic moved by then.",
              kRequired | kPositive | kAtMostOne),
    };
  }
};

// The source's runbook: T-5 min 10%, T-3 min 50%, T-2 min 100% (T-0: the
// region is empty and the maintenance starts).
std::vector<RoutingSwitchStep> default_switch_steps();

}  // namespace drsim

#pragma once
// What a run is judged against: `spec.objectives` of a scenario. The fault
// impact analysis (models/metrics/fault_impact.h) reads the success-ratio
// objective to decide when the clients have recovered from a fault. Recovery
// time and data-loss targets (RTO, RPO) join this struct later.
#include <string_view>
#include <tuple>

#include "sim/fields.h"
#include "sim/units.h"

namespace drsim {

struct ObjectivesConfig {
  // Three nines, the usual availability objective of an online service: per
  // window, one failed request in a thousand finished ones is tolerated. It is
  // the objective the domain's payment drill met (48 failed of 150,000
  // transactions during its switch-over, 99.97%), while a window that loses a
  // zone's in-flight requests (a few percent) falls below it.
  Ratio success_ratio{0.999};

  static constexpr std::string_view kTypeName = "Objectives";
  static constexpr auto fields() {
    return std::tuple{
        field("successRatio", &ObjectivesConfig::success_ratio,
              "Share of finished client requests that must succeed in each metrics window. After a fault, the "
              "clients have recovered once every window is back at or above it (default 99.9%).",
              kPositive | kAtMostOne),
    };
  }
};

}  // namespace drsim

#include "models/traffic/traffic_scheduler_config.h"

#include "sim/quote.h"

namespace drsim {

std::vector<ConfigProblem> TrafficSchedulerConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (spread != "even" && spread != "capacity" && spread != "weight") {
    problems.push_back({"spread", "expected even, capacity or weight, got " + quote(spread)});
  }
  return problems;
}

std::vector<RoutingSwitchStep> default_switch_steps() {
  using namespace std::chrono_literals;
  return {{0s, Ratio{0.10}}, {2min, Ratio{0.50}}, {3min, Ratio{1.0}}};
}

}  // namespace drsim

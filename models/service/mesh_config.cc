#include "models/service/mesh_config.h"

#include "sim/units.h"

namespace drsim {

std::vector<ConfigProblem> MeshConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (locality != "failover" && locality != "none") {
    problems.push_back({"locality", "expected failover or none, got \"" + locality + "\""});
  }
  if (lb_policy != "leastRequest" && lb_policy != "roundRobin" && lb_policy != "random") {
    problems.push_back({"lbPolicy", "expected leastRequest, roundRobin or random, got \"" + lb_policy + "\""});
  }
  if (panic_threshold > 100) problems.push_back({"panicThreshold", "is a percentage: at most 100"});
  if (outlier_detection.max_ejection_percent > 100) {
    problems.push_back({"outlierDetection.maxEjectionPercent", "is a percentage: at most 100"});
  }
  if (outlier_detection.max_ejection_time < outlier_detection.base_ejection_time) {
    problems.push_back({"outlierDetection.maxEjectionTime",
                        "must be at least baseEjectionTime (" +
                            format_duration(outlier_detection.base_ejection_time) + ")"});
  }
  if (health_check && health_check->timeout >= health_check->interval) {
    // A check must be over before the next one of the same host starts.
    problems.push_back({"healthCheck.timeout", "the timeout (" + format_duration(health_check->timeout) +
                                                   ") must be less than the interval (" +
                                                   format_duration(health_check->interval) + ")"});
  }
  return problems;
}

}  // namespace drsim

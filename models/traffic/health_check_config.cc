#include "models/traffic/health_check_config.h"

namespace drsim {

std::vector<ConfigProblem> HealthCheckConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (request_interval <= Duration::zero()) problems.push_back({"requestInterval", "must be positive"});
  if (failure_threshold == 0) problems.push_back({"failureThreshold", "must be positive"});
  // A probe ends (answer or timeout) before the checker's next one: one probe per checker and region at a time.
  if (timeout <= Duration::zero() || timeout >= request_interval) {
    problems.push_back({"timeout", "expected positive and less than requestInterval"});
  }
  if (checkers.empty()) problems.push_back({"checkers", "expected at least one checker zone"});
  if (healthy_quorum.value < 0 || healthy_quorum.value >= 1) {
    problems.push_back({"healthyQuorum", "expected at least 0% and less than 100%"});
  }
  if (handshake_round_trips > 10) problems.push_back({"handshakeRoundTrips", "expected at most 10"});
  return problems;
}

}  // namespace drsim

#include "models/service/grpc_config.h"

#include "sim/units.h"

namespace drsim {

std::vector<ConfigProblem> GrpcConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (target != "clusterIP" && target != "headless") {
    problems.push_back({"target", "expected clusterIP or headless, got \"" + target + "\""});
  }
  if (lb_policy != "pick_first" && lb_policy != "round_robin") {
    problems.push_back({"lbPolicy", "expected pick_first or round_robin, got \"" + lb_policy + "\""});
  }
  if (backoff_jitter >= 1) problems.push_back({"backoffJitter", "must be less than 1"});
  if (max_backoff < initial_backoff) {
    problems.push_back({"maxBackoff", "must be at least initialBackoff (" + format_duration(initial_backoff) + ")"});
  }
  return problems;
}

}  // namespace drsim

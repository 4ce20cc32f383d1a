#include "models/service/load_balancer_config.h"

#include "sim/units.h"

namespace drsim {

LoadBalancerSettings LoadBalancerConfig::resolved() const {
  const bool nlb = type == "nlb";
  LoadBalancerSettings s;
  s.interval = interval.value_or(std::chrono::seconds(30));
  s.timeout = timeout.value_or(nlb ? std::chrono::seconds(10) : std::chrono::seconds(5));
  s.healthy_threshold = healthy_threshold.value_or(5);
  s.unhealthy_threshold = unhealthy_threshold.value_or(2);
  s.cross_zone = cross_zone.value_or(!nlb);
  s.dns_ttl = dns_ttl;
  s.node_check_interval = node_check_interval;
  s.node_failure_threshold = node_failure_threshold;
  s.proxy = !nlb;
  s.target_connect_timeout = target_connect_timeout;
  s.idle_timeout = idle_timeout;
  s.client_connect_timeout = client_connect_timeout;
  return s;
}

std::vector<ConfigProblem> LoadBalancerConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (type != "alb" && type != "nlb") problems.push_back({"type", "expected alb or nlb, got \"" + type + "\""});
  const LoadBalancerSettings s = resolved();
  // A check must be over before the next one starts, as AWS requires.
  if (s.timeout >= s.interval) {
    problems.push_back({timeout ? "timeout" : "interval",
                        "the timeout (" + format_duration(s.timeout) + ") must be less than the interval (" +
                            format_duration(s.interval) + ")"});
  }
  if (s.healthy_threshold == 0) problems.push_back({"healthyThreshold", "must be at least 1"});
  if (s.unhealthy_threshold == 0) problems.push_back({"unhealthyThreshold", "must be at least 1"});
  if (node_failure_threshold == 0) problems.push_back({"nodeFailureThreshold", "must be at least 1"});
  return problems;
}

}  // namespace drsim

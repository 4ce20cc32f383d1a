#pragma once
// How long after a zone dies a cloud load balancer's callers can keep sending
// there, from its settings alone (LoadBalancerSettings): the ranges the
// simulated times of models/service/cloud_load_balancer.h fall in for every
// phase of the checks. `drsim describe` prints them for each zone loss; the
// tests check the simulation against them.
//
// Targets: the first check sent after the loss goes out within one interval;
// the unhealthyThreshold-th failure in a row is known a timeout after the
// last of them is sent. So the target leaves the view in
// ((U - 1) x interval + timeout, U x interval + timeout].
// Nodes: the same with the node checks (their 4 s connect timeout), then
// callers keep the address for up to the DNS TTL.
#include "models/service/cloud_load_balancer.h"
#include "models/service/load_balancer_config.h"
#include "sim/delay_range.h"

namespace drsim {

inline DelayRange target_unhealthy_delay_range(const LoadBalancerSettings& s) {
  return DelayRange{(s.unhealthy_threshold - 1) * s.interval + s.timeout, s.unhealthy_threshold * s.interval + s.timeout};
}

inline DelayRange node_removed_delay_range(const LoadBalancerSettings& s) {
  return DelayRange{(s.node_failure_threshold - 1) * s.node_check_interval + CloudLoadBalancer::kNodeCheckTimeout,
                    s.node_failure_threshold * s.node_check_interval + CloudLoadBalancer::kNodeCheckTimeout};
}

}  // namespace drsim

#pragma once
// How long after a zone goes silent its nodes can be marked NotReady, from the node lifecycle settings alone
// (NodeLifecycleConfig): the range the control plane's not_ready_time() falls in for every phase of the Leases.
// `drsim describe` prints it for each zone loss; the tests check the simulated times against it.
//
// The last renewal before the loss is at most leaseRenewInterval earlier; the controller sees it at its next
// look (at most monitorPeriod later) and marks the node at the first look more than monitorGracePeriod after
// that (at most one more monitorPeriod). So the delay lies in (grace - renew, grace + 2 x period], and never
// before the first look after the loss.
#include <algorithm>

#include "models/kube/kube_config.h"
#include "sim/delay_range.h"
#include "sim/time.h"

namespace drsim {

inline DelayRange not_ready_delay_range(const NodeLifecycleConfig& nl) {
  const Duration low = std::max(Duration::zero(), nl.monitor_grace_period - nl.lease_renew_interval);
  const Duration high = std::max(nl.monitor_grace_period + 2 * nl.monitor_period, nl.monitor_period);
  return DelayRange{low, high};
}

}  // namespace drsim

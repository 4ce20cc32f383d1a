#pragma once
// Lease-based self-fencing of a database primary (docs/traffic.md, "When
// things fail"): the primary keeps taking writes only while it holds a lease
// it renews every renewInterval by reaching a majority of the members,
// itself included, as a Raft leader with CheckQuorum steps down after an
// election timeout without a quorum's answers, or Patroni demotes a leader
// that cannot renew its leader key within its ttl. A primary cut off from
// the others therefore stops acknowledging writes once the lease runs out,
// instead of until a failover fences it from outside.
//
// The renewals are at phase + k x renewInterval (phase drawn from the seed);
// the lease lasts `timeout` from the last one. So a primary that loses its
// quorum at t self-fences at the last renewal at or before t plus the
// timeout: between timeout - renewInterval and timeout after t. This class
// is that arithmetic; the Database schedules the events.
#include "sim/time.h"

namespace drsim {

class PrimaryLease {
 public:
  PrimaryLease(Duration timeout, Duration renew_interval, Duration phase);

  // When the lease runs out for a primary that last reached its quorum at
  // `lost_at`: the last renewal at or before it, plus the timeout. Before the
  // first renewal the lease taken at the start (t = 0) counts.
  SimTime expiry_after_loss(SimTime lost_at) const;
  // The first renewal at or after `t`: a self-fenced primary whose quorum is
  // back takes the lease again then.
  SimTime next_renewal(SimTime t) const;

  Duration timeout() const { return timeout_; }
  Duration renew_interval() const { return renew_interval_; }

 private:
  Duration timeout_;
  Duration renew_interval_;
  Duration phase_;
};

}  // namespace drsim

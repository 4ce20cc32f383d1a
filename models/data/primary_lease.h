#pragma once
// Lease-based self-fencing of a database primary (docs/data.md, "A
// partitioned primary"): the primary keeps taking writes only while it holds
// a lease it renews every renewInterval by reaching a majority of the
// members, itself included, as a Raft leader with CheckQuorum steps down
// after an election timeout without a quorum's answers, or Patroni demotes a
// leader that cannot renew its leader key within its ttl. A primary cut off
// from the others therefore stops acknowledging writes once the lease runs
// out, instead of until a failover fences it from outside.
//
// Renewals are tried at phase + k x renewInterval (phase drawn from the
// seed) and succeed while the quorum holds; the lease lasts `timeout` from
// the last successful one. So a primary that loses its quorum at t fences
// itself between timeout - renewInterval and timeout after t. This class
// keeps that state; the Database schedules the events.
#include "sim/time.h"

namespace drsim {

class PrimaryLease {
 public:
  // The lease taken at `acquired` (the start of the run, or a promotion).
  PrimaryLease(Duration timeout, Duration renew_interval, Duration phase, SimTime acquired = kSimStart);

  // The primary takes a fresh lease at t (it was promoted).
  void acquire(SimTime t);
  // The quorum is lost at t: when the lease runs out. That is the last
  // renewal tick at or before t at which the quorum held, plus the timeout.
  // A tick while the quorum was away renewed nothing.
  SimTime lose_quorum(SimTime t);
  // The quorum is back at t: renewals succeed again from the next tick.
  void regain_quorum(SimTime t);
  // The first renewal tick at or after t: a self-fenced primary whose quorum
  // is back takes the lease again then.
  SimTime next_renewal(SimTime t) const;

  Duration timeout() const { return timeout_; }

 private:
  // The last tick at or before t (kSimStart before the first).
  SimTime last_tick(SimTime t) const;

  Duration timeout_;
  Duration renew_interval_;
  Duration phase_;
  SimTime renewed_{};       // the last renewal known to have succeeded
  SimTime quorum_since_{};  // renewals at or after this succeed while the quorum holds
};

}  // namespace drsim

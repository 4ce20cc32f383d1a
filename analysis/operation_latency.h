#pragma once
// The mean response of each operation at a station that serves a mix of them
// (drsim check's rows per population and operation).
//
// check_capacity() treats a station as one queue with the mixture's service
// time, and a call to one operation of it as the callee's end-to-end time plus
// that operation's own service time less the mixture's (Call::
// callee_time_delta): exact for the station's load, and for its callers as far
// as the callee's operations make the same calls. Per operation the response
// is the station's wait (the same for every operation: one FCFS queue), the
// operation's own service time, and the operation's own call groups, each
// callee answering for the operation called, followed down the graph:
//   R(i, op) = W_i + S_op + sum over op's groups of
//     sequential: count x sum_route share x (rtt + pass_j R(j, k))
//     parallel:   E[max over its branches] (expected_max_of_mixtures)
// A call cycle back into an operation still being followed takes the
// check's own callee time there (T_j plus the call's deltas). Weighted by the
// operations' shares of a station's requests the rows add up to the
// station's end-to-end time when the calls' deltas are R(j, k) - T_j, which
// n_plus_one() iterates to (the self-consistency tests of
// tests/analysis/operation_latency_test.cc and n_plus_one_test.cc).
#include <cstddef>
#include <limits>
#include <vector>

#include "analysis/capacity_check.h"
#include "sim/time.h"

namespace drsim {

// Where one call group of a node came from.
struct CallGroupOrigin {
  static constexpr std::size_t kNoOperation = std::numeric_limits<std::size_t>::max();
  std::size_t operation = 0;  // the operation that makes the group
  // That operation's share of the node's requests: a sequential group's
  // counts include it (Call::count is per request of the node), a parallel
  // group carries it as CallGroup::weight.
  double share = 1.0;
  // Per call of the group (in order), the operation it asks of its target;
  // kNoOperation when the target answers as a whole (a connection pool, a
  // service without operations).
  std::vector<std::size_t> callee_operations;
};

class OperationLatency {
 public:
  // Per node of the graph: its groups' origins in the graph's group order
  // (empty for a node without operations), and each of its operations' mean
  // own service time (empty: the node answers as a whole, with its
  // end-to-end time). `report` is check_capacity()'s answer for the graph
  // and stations; it must be ok().
  OperationLatency(const CallGraph& graph, const CapacityReport& report, const std::vector<Station>& stations,
                   std::vector<std::vector<CallGroupOrigin>> origins,
                   std::vector<std::vector<Duration>> operation_service);

  // Mean response in seconds of a request for `operation` accepted at
  // `node`: +infinity when unbounded (the node or a station on the
  // operation's way has no steady state, or the operation's calls are lost;
  // another operation's lost calls do not make it unbounded).
  double response_s(std::size_t node, std::size_t operation);

 private:
  double node_response_s(std::size_t node) const;  // the node's end-to-end time, as check_capacity() gives it
  double pass(std::size_t node) const;             // accepted fraction
  // What a call to `operation` of the route's target waits for: R, the
  // target's end-to-end time when it answers as a whole, or the check's own
  // callee time on the call when it closes a cycle.
  double callee_s(const Call& call, const CallRoute& route, std::size_t operation);
  double group_s(const CallGroup& group, const CallGroupOrigin& origin);

  const CallGraph& graph_;
  const CapacityReport& report_;
  const std::vector<Station>& stations_;
  std::vector<std::vector<CallGroupOrigin>> origins_;
  std::vector<std::vector<Duration>> service_;
  std::vector<std::vector<double>> memo_;  // NaN: not computed yet
  std::vector<std::vector<char>> busy_;    // being followed (a cycle comes back to it)
};

}  // namespace drsim

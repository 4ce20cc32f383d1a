#pragma once
// Traffic equations of an open (Jackson) network of stations.
//
// Nodes are stations, e.g. one per service x zone. Requests arrive from
// outside at node i with rate gamma_i; every request served at node i sends on
// average P(i, j) requests to node j (an expected count, not a probability: a
// service that calls another twice per request has P = 2; a call made on 30%
// of requests has P = 0.3). The total arrival rates lambda solve
//
//     lambda = gamma + P^T lambda,   i.e.   (I - P^T) lambda = gamma.
//
// A non-negative solution exists for every gamma exactly when the spectral
// radius of P is below 1 (then I - P^T is a nonsingular M-matrix and
// lambda = sum_k (P^T)^k gamma). A call cycle whose gain is 1 or more (A calls
// B and B calls A once each) multiplies every request without bound: the
// solver reports it instead of returning negative or huge rates.
//
// Only the nodes that external traffic can reach matter: a cycle that no
// traffic reaches is not an error, its nodes simply get lambda = 0.
//
// Error policy: malformed input (sizes, node indices out of range, negative,
// NaN or infinite entries) throws std::invalid_argument. A well-formed network
// without a usable solution is a result (status + message), because
// `drsim check` reports it next to the other failure cases rather than
// stopping.
#include <cstddef>
#include <string>
#include <vector>

#include "sim/units.h"

namespace drsim {

// One entry of the expected-calls matrix: P(from, to) += count. Entries for
// the same (from, to) add up.
struct ExpectedCall {
  std::size_t from = 0;
  std::size_t to = 0;
  double count = 0;
};

struct TrafficProblem {
  std::vector<Rate> external;       // gamma, one per node; its size is the node count
  std::vector<ExpectedCall> calls;  // the non-zero entries of P
  std::vector<std::string> names;   // optional node names, used in messages
  // Compute TrafficSolution::visits: a solve per entry point, entry points x
  // nodes numbers. drsim check's N+1 cases do not use them, and with a
  // population spread over thousands of zones they were the quadratic part.
  bool visits = true;
};

enum class TrafficStatus {
  kOk,
  // A call cycle reachable by traffic has spectral radius >= 1: no
  // non-negative solution (request amplification without bound).
  kUnboundedCycle,
  // I - P^T could not be factorised although no cycle was found unbounded
  // (numerically singular, e.g. a gain within rounding of 1).
  kSingular,
  // check_capacity() only: a fixed point of the capacity check (blocking,
  // holding times, parallel groups' times) did not settle in its rounds; the
  // message names the station that still moved and by how much.
  kNotConverged,
  // check_capacity() only: a call cycle among idle stations with gain >= 1
  // makes their end-to-end response times unbounded.
  kUnboundedResponse,
};

struct TrafficSolution {
  TrafficStatus status = TrafficStatus::kOk;
  std::string error;           // empty when ok; names the nodes of the offending cycle
  std::vector<Rate> arrivals;  // lambda per node (empty unless ok)
  // External entry points (nodes with gamma > 0), in node order, and for each
  // the expected number of visits to every node per request entering there:
  // visits[e][j]. visits[e][entry_points[e]] >= 1 (the entry visit itself).
  std::vector<std::size_t> entry_points;
  std::vector<std::vector<double>> visits;

  bool ok() const { return status == TrafficStatus::kOk; }
  // Visits per request entering at `entry`; throws std::out_of_range when
  // `entry` is not an entry point.
  const std::vector<double>& visits_from(std::size_t entry) const;
};

TrafficSolution solve_traffic_equations(const TrafficProblem& problem);

}  // namespace drsim

#pragma once
// Instant capacity check of a network of stations (service x zone) joined by
// a call graph: solve the traffic equations, then treat every station as an
// M/M/c (unbounded queue, Erlang C) or M/M/c/K (bounded, with rejections)
// queue, as Jackson's theorem allows for an open network of exponential
// stations. This is the math layer of `drsim check`; the N+1 loop (steady
// load, each zone failure, each region failure) builds one CallGraph and one
// set of stations per case and calls check_capacity().
//
// Modelling choices (see also the comments on the fields):
//
// * A station is one or more identical replicas (pods), each with `servers`
//   workers and its own queue, sharing the node's flow evenly: the balancer
//   picks a pod, not a free worker, so a zone of m pods is m M/M/c queues,
//   not one M/M/(m c). With a random pick each replica sees an exact Poisson
//   share; with round-robin arrivals are smoother and the waits computed here
//   are an upper bound.
//
// * Rejections thin the flow downstream. A request rejected by a bounded
//   station is not served, so it makes none of its calls. check_capacity()
//   iterates: solve lambda with every row of P scaled by the accepted
//   fraction (1 - B_i) of its station, recompute the blocking B from the new
//   offered loads, until B changes by less than 1e-12. On an acyclic graph
//   this is exact after (depth + 1) rounds; on a cycle with blocking (more
//   blocking, less load, less blocking) plain iteration can oscillate, so
//   each round is damped by half once a round stops contracting. A rejected
//   call returns to the caller after the network round trip only.
//
// * An unbounded station whose offered load reaches its capacity has no
//   steady state. It is marked unstable, its queue metrics and every
//   end-to-end time that depends on it are absent, and its callees are
//   given the full offered flow (an upper bound on what they would see: the
//   planner errs on the side of load).
//
// * Workers during calls. A station with holds_worker (thread-per-request,
//   as drsim's simulated services) keeps the worker busy while its calls are
//   out, so a worker's holding time per request is H = S + C: its own
//   service time plus its call groups' time (network both ways and the
//   callees' end-to-end response). Its utilisation is lambda H / workers
//   (Little's law: exact whenever the station is stable, whatever the
//   distributions), and its wait is M/M/c's with mean service H. That wait
//   is an approximation: H is not exponential (it is a sum of the service
//   time and the calls' times), and the callees' congestion makes the
//   holding times of successive requests correlated. C depends on the
//   callees' response times and those on their own holding times: a fixed
//   point, computed callees first. On an acyclic graph without bounded
//   stations it is exact after (depth + 1) rounds; with blocking it is
//   iterated until H changes by less than 1e-12 relative (damped by half
//   once a round stops contracting: H enters the queue formulas rounded to
//   the nanosecond, and at a rounding boundary plain iteration can flip
//   between two values for ever). A station whose calls reach an unstable
//   station holds its workers without bound: it is unstable too. Its
//   reported holding time and offered utilisation are then lower bounds
//   (NodeCapacity::holding_lower_bound): H with the waits of the stations
//   that have no steady state left out (they grow without bound), so that
//   the report still says how far over its workers the station is. Only
//   calls that are lost (never return) make H and rho +infinity. A station
//   unstable by its own load whose calls return keeps a finite H, and its
//   offered utilisation is rho >= 1.
//   Without holds_worker the worker is freed when the service time ends
//   (asynchronous calls) and the calls only add to the end-to-end time.
//
// * Zone affinity. A station may receive, besides its ordinary arrivals, a
//   stream that joins only while one of its workers is idle
//   (Station::idle_only_offered): it is then one birth-death chain over all
//   its replicas' workers, which gives its waits and the probability that
//   the idle-only stream goes elsewhere (NodeCapacity::overflow). Where that
//   overflow goes is the caller's business (analysis/n_plus_one.h iterates
//   routing and overflow to a fixed point).
//
// * Routed calls. A call may name one target, or a set of routes with
//   shares (a balancer that picks a zone per request): every one of the
//   `count` calls draws its route independently. Shares summing to less than
//   1 leave the rest lost: a call that reaches no station never returns, so
//   its caller's response time is unbounded (unstable, as above).
//
// * End-to-end response of a request accepted at node k, T_k: its own wait
//   and service, then its call groups one after the other. A sequential group
//   costs sum(count * (rtt + (1 - B_j) T_j)). A parallel group costs
//   E[max over its branches]; each branch is rtt + X_j, where X_j is the
//   callee's end-to-end time, modelled as an exponential with mean T_j
//   (taken with probability 1 - B_j; a rejected branch finishes at rtt); a
//   routed branch is the mixture of its routes. The exponential is exact for
//   an M/M/1 leaf (FCFS sojourn time is exponential with rate mu - lambda)
//   and an approximation otherwise; branches are taken as independent (in a
//   fork-join network they are positively correlated, so the estimate leans
//   high, the safe side: for two identical M/M/1 branches at rho = 0.5 it is
//   4% above the exact result of Flatto & Hahn, (12 - rho) / 8 / (mu -
//   lambda)). The max of the means would be a lower bound, but too optimistic
//   for a planner. For the expectation of the max see
//   expected_max_of_exponentials() and expected_max_of_mixtures().
//   The sequential part of these equations is linear in T and is solved
//   exactly (sparse LU), so cycles in the call graph (retries, revisits)
//   cost nothing extra; parallel groups are iterated to a fixed point
//   (exact after nesting depth + 1 rounds on an acyclic graph).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/queueing.h"
#include "analysis/traffic_equations.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

// --- Call graph --------------------------------------------------------------

// One place a routed call can go.
struct CallRoute {
  std::size_t target = 0;
  double share = 1;        // probability that one call takes this route
  Duration network_rtt{};  // mean round trip to the target and back
  // Added to the target's end-to-end time on this route, on top of the call's callee_time_delta: the called
  // operation's own response at this target less the target's mixture (analysis/operation_latency.h).
  Duration callee_time_delta{};
};

struct Call {
  std::size_t target = 0;
  // Expected number of calls per request served. In a sequential group it
  // may be fractional (0.3: a call on 30% of requests, e.g. a cache miss or
  // a revisit probability). In a parallel group it must be a whole number:
  // `count` concurrent copies of the call.
  double count = 1;
  // Network round trip added to every call on this edge.
  Duration network_rtt{};
  // Added to the callee's end-to-end time for this call (may be negative): a call to one operation of a station
  // that serves a mix of them takes that operation's own service time, not the mix's mean.
  Duration callee_time_delta{};
  // A call spread by a balancer: when not empty, every one of the `count`
  // calls takes one of these routes, drawn independently by share, and
  // `target` and `network_rtt` are not used. Shares sum to at most 1; the
  // rest is lost (see the modelling notes above).
  std::vector<CallRoute> routes;

  // The routes of this call: `routes`, or the single target.
  std::vector<CallRoute> destinations() const;
};

enum class CallMode {
  kSequential,  // calls one after another: times add up
  kParallel,    // calls issued together: the group waits for the slowest
};

struct CallGroup {
  CallMode mode = CallMode::kSequential;
  std::vector<Call> calls;
  // The share of the node's requests that make this group (1: all of them). A node standing for a mix of
  // operations makes each operation's groups on that operation's share of its requests: its parallel groups
  // carry the share here (a sequential group's share folds into its counts, exactly).
  double weight = 1.0;
};

struct CallGraphNode {
  std::string name;
  // Made by every request served at the node, group after group.
  std::vector<CallGroup> groups;
};

class CallGraph {
 public:
  std::size_t add_node(std::string name);
  // Append a group of calls made by `from` (after its earlier groups).
  void add_sequential(std::size_t from, std::vector<Call> calls);
  void add_parallel(std::size_t from, std::vector<Call> calls, double weight = 1.0);

  std::size_t size() const { return nodes_.size(); }
  const CallGraphNode& node(std::size_t i) const { return nodes_.at(i); }
  const std::vector<CallGraphNode>& nodes() const { return nodes_; }

  // Throws std::invalid_argument on a target out of range, a negative or
  // non-finite count, a fractional or zero count in a parallel group, a
  // negative round trip, or route shares that are negative or sum above 1.
  void validate() const;
  // The non-zero entries of P: P(i, j) = sum of the counts of i's calls to j
  // (times the route's share for a routed call).
  std::vector<ExpectedCall> expected_calls() const;

 private:
  std::vector<CallGraphNode> nodes_;
};

// --- Expected maximum of parallel branches ------------------------------------

// One branch of a parallel group: it finishes at offset + X, where X is
// exponential with mean `mean` with probability `probability`, and 0
// otherwise (a rejected call).
// As one route of a routed branch (expected_max_of_mixtures), it is taken
// with probability `share`.
struct ParallelBranch {
  Duration offset{};
  Duration mean{};
  double probability = 1.0;
  double share = 1.0;
};

// E[max of the branches' finishing times], branches independent. Exact up to
// 12 branches: integrating 1 - prod F_i(t) piecewise between the sorted
// offsets, the product expanded by inclusion-exclusion (for equal offsets and
// probability 1 this is sum over non-empty S of (-1)^(|S|+1) / sum_{i in S}
// 1/m_i). Beyond 12 branches (2^n terms), numerical integration of the same
// integral (composite Simpson, relative error well below 1e-6).
// `share` is not used here (every branch has one route).
Duration expected_max_of_exponentials(std::span<const ParallelBranch> branches);

// The same for branches that are mixtures: branch i takes route r (a
// ParallelBranch) with probability share, shares summing to 1. Integrates
// 1 - prod_i F_i(t) piece by piece between the sorted route offsets, each
// piece's product expanded into exponential terms and integrated exactly
// while there are at most 4096 terms, numerically (composite Simpson)
// beyond. Throws std::invalid_argument on an empty branch, shares that do not
// sum to 1, or the conditions of expected_max_of_exponentials().
Duration expected_max_of_mixtures(std::span<const std::vector<ParallelBranch>> branches);

// --- Capacity check ----------------------------------------------------------

struct Station {
  std::size_t servers = 1;              // workers of one replica
  Duration mean_service{};              // exponential service, per request (the worker's own work)
  std::optional<std::size_t> capacity;  // K, max requests in one replica (>= servers); none = unbounded
  // Identical replicas (pods), each with its own queue, sharing the node's
  // flow evenly.
  std::size_t replicas = 1;
  // The worker stays busy while the request's calls are out (thread-per-
  // request); otherwise it is freed when mean_service ends.
  bool holds_worker = false;
  // Zone affinity: a stream offered at this rate joins only while one of the
  // station's workers is idle; otherwise it goes elsewhere (the caller's
  // routing sends that part to other nodes, and only the admitted part is in
  // this node's arrivals). When set, the station is one birth-death chain
  // over the workers of all replicas pooled (gated_queue_metrics), in which
  // the rest of the arrivals always join and queue (up to replicas x
  // (capacity - servers) waiting). Exact for one replica and Poisson
  // streams; with several it neglects that a request may wait at a busy
  // replica while another has an idle worker.
  Rate idle_only_offered{};
  // Squared coefficient of variation of the service time (1: exponential).
  // For an unbounded queue without an idle-only stream, the M/M/c wait is
  // scaled by (1 + scv) / 2 (the M/G/c approximation of Lee and Longton,
  // Allen-Cunneen's with Poisson arrivals): a near-constant service waits
  // about half as long. Used for connection pools, whose hold is mostly
  // round trips (analysis/database_calls.h); services keep 1.
  double service_scv = 1.0;
};

struct CapacityOptions {
  // Utilisation targets for the headroom columns, as fractions (1.0 = 100%).
  std::vector<double> utilization_targets{1.0, 0.8};
  // Limit on the rounds of each fixed point (thinning, parallel groups).
  int max_iterations = 10000;
  // Fill NodeCapacity::visits (a traffic solve per entry point).
  bool visits = true;
};

struct Headroom {
  double target = 1.0;
  // How much more load, as a ratio of today's, before the offered utilisation
  // reaches `target`: target / rho - 1. Negative when already above it;
  // +infinity for an idle station.
  double ratio = 0;
};

struct NodeCapacity {
  std::string name;
  Rate offered{};   // arrivals reaching the station (after upstream rejections)
  Rate accepted{};  // served per second (offered minus rejected)
  // Worker time per request: mean_service, plus the calls' time when the
  // station holds its worker; absent when that is unbounded (calls that are
  // lost and never return).
  std::optional<Duration> holding;
  // The station holds its workers for calls to a station without a steady
  // state: `holding` leaves out the waits there (they grow without bound),
  // so it and offered_utilization are lower bounds and the headroom an
  // upper bound; the station is unstable.
  bool holding_lower_bound = false;
  // rho = offered * holding / (replicas * servers). May exceed 1 (+infinity
  // when the holding time is unbounded); for a bounded station the carried
  // utilisation is queue->utilization.
  double offered_utilization = 0;
  // rho < 1, and every station its held workers wait for is stable too. A
  // bounded station above it still has a steady state but rejects at least
  // 1 - 1/rho of its arrivals.
  bool stable = true;
  std::vector<Headroom> headroom;  // one per CapacityOptions::utilization_targets
  // From mmc_metrics (unbounded) or mmck_metrics (bounded) of one replica
  // with the holding time as its service time; throughput, queue length and
  // number in system are summed over the replicas. Absent for an unstable
  // unbounded station.
  std::optional<QueueMetrics> queue;
  // Of a station's idle_only_offered stream: the probability that it finds
  // every worker busy and goes elsewhere.
  double overflow = 0;
  // Mean response of a request accepted here, including its calls; absent
  // when it depends on an unstable station.
  std::optional<Duration> end_to_end;
  // Expected visits to every node per request entering here (empty unless
  // the node has external arrivals). With rejections, these are the visits
  // after thinning.
  std::vector<double> visits;
};

struct CapacityReport {
  TrafficStatus status = TrafficStatus::kOk;
  std::string error;  // from the traffic equations; nodes empty when set
  std::vector<NodeCapacity> nodes;
  int thinning_iterations = 0;  // traffic solves done, all holding rounds together (1 a round without bounded stations)
  int holding_iterations = 0;   // rounds of the holding-time fixed point (1 when no station holds)

  bool ok() const { return status == TrafficStatus::kOk; }
  bool all_stable() const;
  // Nodes whose offered utilisation is at or above `target`, or that are
  // unstable (a lower-bound utilisation may be below it), in node order.
  std::vector<std::size_t> overloaded(double target = 1.0) const;
  // The smallest headroom ratio over all nodes at `target` (+infinity when idle).
  double min_headroom(double target = 1.0) const;
};

// `stations` and `external` have one entry per call-graph node. Malformed
// input throws std::invalid_argument. A well-formed network without a usable
// answer is a result (status, error; nodes empty): an unbounded call cycle
// that traffic reaches (the traffic equations' status), a fixed point that
// does not converge in options.max_iterations (kNotConverged, naming the
// station that still moved), or a call cycle with gain >= 1 among idle nodes
// that makes their response times unbounded (kUnboundedResponse).
CapacityReport check_capacity(const CallGraph& graph, std::span<const Station> stations, std::span<const Rate> external,
                              const CapacityOptions& options = {});

}  // namespace drsim

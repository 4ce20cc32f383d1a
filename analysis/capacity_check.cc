#include "analysis/capacity_check.h"

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

namespace drsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Duration from_seconds(double s) { return Duration{static_cast<std::int64_t>(std::llround(s * 1e9))}; }

// One route of a parallel branch: taken with probability `share`; it then
// finishes at offset + X, X exponential with mean `mean` with probability
// `probability`, else at offset (a rejected call).
struct Route {
  double offset = 0;       // seconds
  double mean = 0;         // seconds
  double probability = 1;  // of taking the exponential time
  double share = 1;        // of taking this route
};
using Branch = std::vector<Route>;

// On one piece of the time axis, where the set of routes that may have
// finished does not change, branch i's CDF is F_i(a + u) = constant -
// sum_k coef_k e^{-u rate_k}.
struct PieceFactor {
  double constant = 0;
  std::vector<std::pair<double, double>> terms;  // (coef, rate)
};

constexpr std::size_t kMaxExpandedTerms = 4096;

// int_0^length (1 - prod_i F_i(a + u)) du; length may be +infinity, in which
// case every constant is 1 (all routes have started).
double integrate_piece(const std::vector<PieceFactor>& factors, double length) {
  std::size_t count = 1;
  for (const PieceFactor& f : factors) {
    if (f.constant <= 0 && f.terms.empty()) return length;  // a branch cannot have finished yet
    count = std::min(count * (1 + f.terms.size()), kMaxExpandedTerms + 1);
  }
  if (count <= kMaxExpandedTerms) {
    // Expand the product into terms c e^{-u R} and integrate each exactly.
    std::vector<std::pair<double, double>> product{{1.0, 0.0}}, next;
    for (const PieceFactor& f : factors) {
      next.clear();
      for (const auto& [c, r] : product) {
        if (f.constant != 0) next.emplace_back(c * f.constant, r);
        for (const auto& [ck, rk] : f.terms) next.emplace_back(-c * ck, r + rk);
      }
      product.swap(next);
    }
    if (std::isinf(length)) {
      // The R = 0 term is the product of the constants, 1: it cancels the 1.
      double integral = 0;
      for (const auto& [c, r] : product) {
        if (r > 0) integral -= c / r;
      }
      return integral;
    }
    double integral = length;
    for (const auto& [c, r] : product) integral -= c * (r > 0 ? -std::expm1(-r * length) / r : length);
    return integral;
  }
  // Too many terms: integrate numerically (composite Simpson).
  double rate_min = kInf, rate_max = 0;
  for (const PieceFactor& f : factors) {
    for (const auto& term : f.terms) {
      rate_min = std::min(rate_min, term.second);
      rate_max = std::max(rate_max, term.second);
    }
  }
  auto g = [&](double u) {
    double prod = 1;
    for (const PieceFactor& f : factors) {
      double v = f.constant;
      for (const auto& [c, r] : f.terms) v -= c * std::exp(-u * r);
      prod *= v;
    }
    return 1.0 - prod;
  };
  auto simpson = [&](double lo, double hi, int intervals) {
    const double h = (hi - lo) / intervals;
    double s = g(lo) + g(hi);
    for (int j = 1; j < intervals; ++j) s += (j % 2 == 1 ? 4.0 : 2.0) * g(lo + j * h);
    return s * h / 3;
  };
  if (!std::isinf(length)) {
    // At least 16 points per shortest time constant, in an even count.
    const double wanted = std::ceil(length * rate_max * 8.0);
    const int intervals = 2 * static_cast<int>(std::clamp(wanted, 32.0, 8192.0));
    return simpson(0.0, length, intervals);
  }
  // Geometrically shrinking segments [U 2^-(k+1), U 2^-k], so that every
  // time scale is resolved, 64 intervals each.
  const double upper = (std::log(static_cast<double>(factors.size()) + 1.0) + 45.0) / rate_min;
  double integral = 0;
  double hi = upper;
  for (int k = 0; k < 64; ++k) {
    const double lo = (k == 63) ? 0.0 : hi / 2;
    integral += simpson(lo, hi, 64);
    hi = lo;
  }
  return integral;
}

// E[max_i of branch i's finishing time], branches independent:
//   E = int_0^inf (1 - prod_i F_i(t)) dt,
// taken piece by piece between the sorted route offsets, where each F_i is a
// constant minus exponentials.
double expected_max(const std::vector<Branch>& branches) {
  if (branches.empty()) return 0;
  std::vector<double> cuts;
  for (const Branch& b : branches) {
    for (const Route& r : b) {
      if (r.share > 0) cuts.push_back(r.offset);
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  double total = cuts.empty() ? 0 : cuts.front();  // nothing can finish before the first offset
  std::vector<PieceFactor> factors(branches.size());
  for (std::size_t piece = 0; piece < cuts.size(); ++piece) {
    const double a = cuts[piece];
    const double length = piece + 1 < cuts.size() ? cuts[piece + 1] - a : kInf;
    for (std::size_t i = 0; i < branches.size(); ++i) {
      PieceFactor& f = factors[i];
      f.constant = 0;
      f.terms.clear();
      for (const Route& r : branches[i]) {
        if (r.share <= 0 || r.offset > a) continue;
        f.constant += r.share;
        if (r.mean <= 0 || r.probability <= 0) continue;
        // Measured from the piece's start: no overflow however late the piece.
        const double coef = r.share * r.probability * std::exp(-(a - r.offset) / r.mean);
        if (coef > 1e-17) f.terms.emplace_back(coef, 1.0 / r.mean);
      }
    }
    if (std::isinf(length)) {
      for (PieceFactor& f : factors) f.constant = 1.0;  // shares sum to 1 (up to rounding)
    }
    total += integrate_piece(factors, length);
  }
  return total;
}

Branch checked_branch(std::span<const ParallelBranch> routes, bool mixture) {
  Branch b;
  double shares = 0;
  for (const ParallelBranch& p : routes) {
    if (p.offset < Duration::zero() || p.mean < Duration::zero() || !(p.probability >= 0 && p.probability <= 1) ||
        (mixture && !(p.share >= 0 && p.share <= 1))) {
      throw std::invalid_argument(
          "expected_max: needs offset >= 0, mean >= 0, probability and share in [0, 1]");
    }
    const double share = mixture ? p.share : 1.0;
    shares += share;
    b.push_back(Route{to_seconds(p.offset), to_seconds(p.mean), p.probability, share});
  }
  if (mixture && (b.empty() || std::abs(shares - 1.0) > 1e-9)) {
    throw std::invalid_argument("expected_max_of_mixtures: the shares of every branch must sum to 1");
  }
  return b;
}

void validate_station(const Station& s, std::size_t i, const std::string& name) {
  const std::string where = "check_capacity: station " + std::to_string(i) + " (" + name + ")";
  if (s.servers == 0) throw std::invalid_argument(where + ": needs at least one server");
  if (s.mean_service <= Duration::zero()) throw std::invalid_argument(where + ": mean service time must be positive");
  if (s.capacity && *s.capacity < s.servers) {
    throw std::invalid_argument(where + ": capacity K must be at least the server count");
  }
  if (s.replicas == 0) throw std::invalid_argument(where + ": needs at least one replica");
  if (!std::isfinite(s.idle_only_offered.per_second) || s.idle_only_offered.per_second < 0) {
    throw std::invalid_argument(where + ": the idle-only rate must be finite and non-negative");
  }
}

}  // namespace

// --- CallGraph ---------------------------------------------------------------

std::size_t CallGraph::add_node(std::string name) {
  nodes_.push_back(CallGraphNode{std::move(name), {}});
  return nodes_.size() - 1;
}

void CallGraph::add_sequential(std::size_t from, std::vector<Call> calls) {
  nodes_.at(from).groups.push_back(CallGroup{CallMode::kSequential, std::move(calls)});
}

void CallGraph::add_parallel(std::size_t from, std::vector<Call> calls, double weight) {
  nodes_.at(from).groups.push_back(CallGroup{CallMode::kParallel, std::move(calls), weight});
}

std::vector<CallRoute> Call::destinations() const {
  if (!routes.empty()) return routes;
  return {CallRoute{target, 1.0, network_rtt}};
}

void CallGraph::validate() const {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    for (const CallGroup& g : nodes_[i].groups) {
      if (!std::isfinite(g.weight) || g.weight < 0 || g.weight > 1) {
        throw std::invalid_argument("CallGraph: a group of " + nodes_[i].name + " has a weight outside [0, 1]");
      }
      if (g.mode == CallMode::kSequential && g.weight != 1.0) {
        throw std::invalid_argument("CallGraph: a sequential group of " + nodes_[i].name +
                                    " has a weight: fold it into its counts");
      }
      for (const Call& c : g.calls) {
        std::string where = "CallGraph: call " + nodes_[i].name + " -> ";
        if (c.routes.empty()) {
          where += c.target < nodes_.size() ? nodes_[c.target].name : std::to_string(c.target);
        } else {
          where += "(routed)";
        }
        if (!std::isfinite(c.count) || c.count < 0) {
          throw std::invalid_argument(where + ": count must be finite and non-negative");
        }
        if (g.mode == CallMode::kParallel && (c.count < 1 || c.count != std::floor(c.count) || c.count > 64)) {
          throw std::invalid_argument(where +
                                      ": a parallel call's count must be a whole number of concurrent "
                                      "calls, 1 to 64");
        }
        double shares = 0;
        for (const CallRoute& r : c.destinations()) {
          if (r.target >= nodes_.size()) throw std::invalid_argument(where + ": target is not a node");
          if (!std::isfinite(r.share) || r.share < 0) {
            throw std::invalid_argument(where + ": a route's share must be finite and non-negative");
          }
          if (r.network_rtt < Duration::zero()) throw std::invalid_argument(where + ": negative network round trip");
          shares += r.share;
        }
        if (shares > 1.0 + 1e-9) throw std::invalid_argument(where + ": route shares sum above 1");
      }
    }
  }
}

std::vector<ExpectedCall> CallGraph::expected_calls() const {
  std::vector<ExpectedCall> out;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    for (const CallGroup& g : nodes_[i].groups) {
      for (const Call& c : g.calls) {
        if (c.count <= 0) continue;
        for (const CallRoute& r : c.destinations()) {
          if (r.share > 0) out.push_back(ExpectedCall{i, r.target, g.weight * c.count * r.share});
        }
      }
    }
  }
  return out;
}

// --- Expected max ------------------------------------------------------------

Duration expected_max_of_exponentials(std::span<const ParallelBranch> branches) {
  std::vector<Branch> b;
  b.reserve(branches.size());
  for (const ParallelBranch& p : branches) b.push_back(checked_branch(std::span(&p, 1), false));
  return from_seconds(expected_max(b));
}

Duration expected_max_of_mixtures(std::span<const std::vector<ParallelBranch>> branches) {
  std::vector<Branch> b;
  b.reserve(branches.size());
  for (const auto& routes : branches) b.push_back(checked_branch(routes, true));
  return from_seconds(expected_max(b));
}

// --- CapacityReport ----------------------------------------------------------

bool CapacityReport::all_stable() const {
  return std::all_of(nodes.begin(), nodes.end(), [](const NodeCapacity& n) { return n.stable; });
}

std::vector<std::size_t> CapacityReport::overloaded(double target) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].offered_utilization >= target || !nodes[i].stable) out.push_back(i);
  }
  return out;
}

double CapacityReport::min_headroom(double target) const {
  double best = kInf;
  for (const NodeCapacity& n : nodes) {
    best = std::min(best, n.offered_utilization > 0 ? target / n.offered_utilization - 1.0 : kInf);
  }
  return best;
}

// --- check_capacity ----------------------------------------------------------

namespace {

struct StationQueue {
  std::optional<QueueMetrics> queue;
  double overflow = 0;  // of the idle-only stream
};

// A station with an idle-only stream: one chain over the pooled workers.
// The node's arrivals are the idle-only stream's admitted part plus the
// rest, and what is admitted depends on the chain: solve
// rest + gated (1 - overflow(rest)) = arrivals for the rest by bisection
// (more of the rest always admits more in total: each request it adds
// displaces at most one of the idle-only stream).
StationQueue pooled_gated_metrics(const Station& s, Rate offered, Duration holding) {
  const std::size_t workers = s.replicas * s.servers;
  std::optional<std::size_t> room;
  if (s.capacity) room = s.replicas * (*s.capacity - s.servers);
  const Rate gated = s.idle_only_offered;
  auto metrics = [&](double rest) { return gated_queue_metrics(gated, Rate{rest}, holding, workers, room); };
  double lo = 0, hi = offered.per_second;
  const auto admitted = [&](double rest) {
    const auto m = metrics(rest);
    return m ? rest + gated.per_second * (1.0 - m->overflow) : kInf;
  };
  if (admitted(lo) < offered.per_second) {
    for (int i = 0; i < 200 && hi - lo > 1e-14 * std::max(1.0, hi); ++i) {
      const double mid = 0.5 * (lo + hi);
      (admitted(mid) < offered.per_second ? lo : hi) = mid;
    }
  } else {
    hi = 0;  // the idle-only stream alone brings the arrivals (an iteration not yet at its fixed point)
  }
  StationQueue out;
  if (const auto m = metrics(hi)) {
    out.queue = m->queue;
    out.overflow = m->overflow;
  } else {
    out.overflow = 1.0;
  }
  return out;
}

// One replica's queue with `holding` as its service time, with throughput,
// queue length and number in system summed over the replicas (or the pooled
// chain of a station with an idle-only stream); no queue when an unbounded
// queue is unstable or the holding time is unbounded.
StationQueue station_metrics(const Station& s, Rate offered, double holding_s, Duration holding) {
  StationQueue out;
  if (!std::isfinite(holding_s)) {
    out.overflow = 1.0;
    return out;
  }
  if (s.idle_only_offered.per_second > 0) return pooled_gated_metrics(s, offered, holding);
  const auto replicas = static_cast<double>(s.replicas);
  const Rate per_replica{offered.per_second / replicas};
  if (s.capacity) {
    out.queue = mmck_metrics(per_replica, holding, s.servers, *s.capacity);
  } else {
    out.queue = mmc_metrics(per_replica, holding, s.servers);
    if (out.queue && s.service_scv != 1.0) {
      QueueMetrics& q = *out.queue;
      const double wait = to_seconds(q.mean_wait) * (1.0 + s.service_scv) / 2.0;
      q.mean_wait = Duration{static_cast<std::int64_t>(std::llround(wait * 1e9))};
      q.mean_response = q.mean_wait + holding;
      q.mean_queue_length = per_replica.per_second * wait;
      q.mean_in_system = q.mean_queue_length + per_replica.per_second * to_seconds(holding);
    }
  }
  if (out.queue && s.replicas != 1) {
    out.queue->throughput_per_s *= replicas;
    out.queue->mean_queue_length *= replicas;
    out.queue->mean_in_system *= replicas;
  }
  return out;
}

}  // namespace

CapacityReport check_capacity(const CallGraph& graph, std::span<const Station> stations, std::span<const Rate> external,
                              const CapacityOptions& options) {
  graph.validate();
  const std::size_t n = graph.size();
  if (stations.size() != n || external.size() != n) {
    throw std::invalid_argument("check_capacity: " + std::to_string(n) + " nodes but " +
                                std::to_string(stations.size()) + " stations and " + std::to_string(external.size()) +
                                " external rates");
  }
  for (std::size_t i = 0; i < n; ++i) validate_station(stations[i], i, graph.node(i).name);
  if (options.max_iterations < 1) throw std::invalid_argument("check_capacity: max_iterations must be positive");

  const std::vector<ExpectedCall> calls = graph.expected_calls();
  TrafficProblem problem;
  problem.external.assign(external.begin(), external.end());
  for (const CallGraphNode& node : graph.nodes()) problem.names.push_back(node.name);
  problem.visits = options.visits;

  // A node with a call whose routes do not cover every call loses calls:
  // they never return, and the node's response is unbounded.
  std::vector<char> loses_calls(n, 0);
  bool any_bounded = false, any_holds = false;
  for (std::size_t i = 0; i < n; ++i) {
    any_bounded = any_bounded || stations[i].capacity.has_value();
    any_holds = any_holds || stations[i].holds_worker;
    for (const CallGroup& g : graph.node(i).groups) {
      for (const Call& c : g.calls) {
        if (c.count <= 0) continue;
        double shares = 0;
        for (const CallRoute& r : c.destinations()) shares += r.share;
        if (shares < 1.0 - 1e-9) loses_calls[i] = 1;
      }
    }
  }

  // Worker time per request, in seconds (+infinity: unbounded), and as a
  // Duration for the queueing formulas.
  std::vector<double> holding(n);
  std::vector<Duration> holding_duration(n);
  for (std::size_t i = 0; i < n; ++i) {
    holding[i] = to_seconds(stations[i].mean_service);
    holding_duration[i] = stations[i].mean_service;
  }
  // Accepted fraction per station, 1 - blocking; kept from one holding round
  // to the next as the starting point.
  std::vector<double> accepted(n, 1.0);
  CapacityReport report;
  // Per node: end-to-end time T, own part W + S (wait and own service, the
  // calls excluded), accepted fraction 1 - B; all in seconds.
  std::vector<double> t(n, 0.0), own(n, 0.0), pass(n, 1.0);
  // unavailable: no finite response time, because the station itself has no
  // steady state or because its calls never return (calls_unbounded: lost
  // calls, or a callee that is unavailable).
  std::vector<char> unavailable(n, 0), calls_unbounded(n, 0);
  // A well-formed network without a usable answer is a result, not an
  // exception: drsim check reports it in the failure case's row.
  const auto give_up = [&](TrafficStatus status, std::string message) {
    report.status = status;
    report.error = std::move(message);
    report.nodes.clear();
    return report;
  };
  const auto still_moving = [&](std::size_t node, const char* what, int rounds, double change) {
    char text[96];
    std::snprintf(text, sizeof text, " did not converge in %d rounds (still moving by %.3g)", rounds, change);
    return graph.node(node).name + ": " + what + text;
  };
  const std::string unbounded = "end-to-end response times are unbounded (a call cycle among idle nodes has gain >= 1)";
  // The time a request's calls keep it waiting at node i, given the callees'
  // end-to-end times t (sequential groups add, parallel ones take the
  // expected max): H - S for a holding station.
  std::vector<Branch> branches;
  const auto parallel_time = [&](const CallGroup& g) {
    branches.clear();
    for (const Call& c : g.calls) {
      Branch routes;
      for (const CallRoute& r : c.destinations()) {
        if (r.share > 0) {
          const double callee = std::max(0.0, t[r.target] + to_seconds(c.callee_time_delta + r.callee_time_delta));
          routes.push_back(Route{to_seconds(r.network_rtt), callee, pass[r.target], r.share});
        }
      }
      for (int copy = 0; copy < static_cast<int>(c.count); ++copy) branches.push_back(routes);
    }
    return g.weight * expected_max(branches);  // made on its weight's share of the requests
  };
  const auto calls_time = [&](std::size_t i) {
    double total = 0;
    for (const CallGroup& g : graph.node(i).groups) {
      if (g.mode == CallMode::kParallel) {
        total += parallel_time(g);
        continue;
      }
      for (const Call& c : g.calls) {
        if (c.count <= 0) continue;
        for (const CallRoute& r : c.destinations()) {
          if (r.share > 0) {
            total += c.count * r.share *
                     (to_seconds(r.network_rtt) +
                      pass[r.target] * (t[r.target] + to_seconds(c.callee_time_delta + r.callee_time_delta)));
          }
        }
      }
    }
    return total;
  };
  double previous_holding_change = kInf;
  bool damp_holding = false;

  for (int round = 1;; ++round) {
    report.holding_iterations = round;
    // Thinning fixed point: thin every row of P by its station's accepted
    // fraction, solve, recompute the blocking.
    TrafficSolution sol;
    double previous_change = kInf;
    bool damp = false;
    for (int it = 1;; ++it) {
      problem.calls = calls;
      for (ExpectedCall& c : problem.calls) c.count *= accepted[c.from];
      sol = solve_traffic_equations(problem);
      ++report.thinning_iterations;
      if (!sol.ok()) {
        report.status = sol.status;
        report.error = sol.error;
        report.nodes.clear();
        return report;
      }
      if (!any_bounded) break;
      double change = 0;
      std::size_t moving = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (!stations[i].capacity) continue;
        const auto m = station_metrics(stations[i], sol.arrivals[i], holding[i], holding_duration[i]).queue;
        double next = m ? 1.0 - m->blocking_probability : 1.0;
        // Blocking falls as upstream blocking thins the flow, and vice versa: on a
        // cycle plain iteration can oscillate, so damp once it stops contracting.
        if (damp) next = 0.5 * (accepted[i] + next);
        if (std::abs(next - accepted[i]) > change) {
          change = std::abs(next - accepted[i]);
          moving = i;
        }
        accepted[i] = next;
      }
      if (change < 1e-12) break;
      if (change > 0.9 * previous_change) damp = true;
      previous_change = change;
      if (it >= options.max_iterations) {
        return give_up(TrafficStatus::kNotConverged,
                       still_moving(moving, "the blocking of the call graph", options.max_iterations, change));
      }
    }

    // Per-station queue metrics.
    report.nodes.assign(n, NodeCapacity{});
    std::fill(pass.begin(), pass.end(), 1.0);
    std::fill(own.begin(), own.end(), 0.0);
    std::fill(unavailable.begin(), unavailable.end(), 0);
    std::fill(calls_unbounded.begin(), calls_unbounded.end(), 0);
    for (std::size_t i = 0; i < n; ++i) {
      const Station& s = stations[i];
      NodeCapacity& out = report.nodes[i];
      out.name = graph.node(i).name;
      out.offered = sol.arrivals[i];
      const double workers = static_cast<double>(s.replicas * s.servers);
      const bool bounded_holding = std::isfinite(holding[i]);
      if (bounded_holding) out.holding = holding_duration[i];
      out.offered_utilization = out.offered.per_second > 0 ? out.offered.per_second * holding[i] / workers : 0.0;
      out.stable = out.offered_utilization < 1.0;
      for (double target : options.utilization_targets) {
        out.headroom.push_back(
            Headroom{target, out.offered_utilization > 0 ? target / out.offered_utilization - 1.0 : kInf});
      }
      const StationQueue sq = station_metrics(s, out.offered, holding[i], holding_duration[i]);
      out.queue = sq.queue;
      out.overflow = sq.overflow;
      if (out.queue) {
        if (s.capacity) pass[i] = 1.0 - out.queue->blocking_probability;
        out.accepted = Rate{out.queue->throughput_per_s};
        // From the rates rather than the ns-rounded Durations, so that long
        // call chains do not accumulate rounding: wait + holding, less the
        // calls' part of the holding (added back by the end-to-end solve).
        const double in_system =
            out.queue->throughput_per_s > 0 ? out.queue->mean_in_system / out.queue->throughput_per_s : holding[i];
        own[i] = in_system - holding[i] + to_seconds(s.mean_service);
      } else {
        out.accepted = Rate{bounded_holding ? workers / holding[i] : 0.0};
        unavailable[i] = 1;
      }
      if (loses_calls[i]) unavailable[i] = calls_unbounded[i] = 1;
    }
    for (std::size_t e = 0; e < sol.visits.size(); ++e) {
      report.nodes[sol.entry_points[e]].visits = sol.visits[e];
    }

    // A node whose calls reach an unstable station has no finite response time.
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t i = 0; i < n; ++i) {
        if (calls_unbounded[i]) continue;
        for (const CallGroup& g : graph.node(i).groups) {
          for (const Call& c : g.calls) {
            if (c.count <= 0) continue;
            for (const CallRoute& r : c.destinations()) {
              if (r.share > 0 && unavailable[r.target] && !calls_unbounded[i]) {
                unavailable[i] = calls_unbounded[i] = 1;
                changed = true;
              }
            }
          }
        }
      }
    }

    // End-to-end times: T_i = W_i + S_i + its groups' times. The sequential
    // part is linear in T, (I - S) T = b + Par(T) with S(i, j) = count * share
    // * (1 - B_j), and is solved exactly (sparse LU), so a revisit loop with p
    // near 1 costs nothing extra. The parallel part Par is not linear: Picard
    // iteration on it, exact after (parallel nesting depth + 1) rounds on an
    // acyclic graph.
    std::vector<std::size_t> local(n, n), members;
    for (std::size_t i = 0; i < n; ++i) {
      if (!unavailable[i]) {
        local[i] = members.size();
        members.push_back(i);
      }
    }
    std::fill(t.begin(), t.end(), 0.0);
    if (!members.empty()) {
      const auto m = static_cast<Eigen::Index>(members.size());
      std::vector<Eigen::Triplet<double>> triplets;
      Eigen::VectorXd base = Eigen::VectorXd::Zero(m);
      for (Eigen::Index k = 0; k < m; ++k) {
        const std::size_t i = members[static_cast<std::size_t>(k)];
        triplets.emplace_back(k, k, 1.0);
        base(k) = own[i];
        for (const CallGroup& g : graph.node(i).groups) {
          if (g.mode != CallMode::kSequential) continue;
          for (const Call& c : g.calls) {
            if (c.count <= 0) continue;
            for (const CallRoute& r : c.destinations()) {
              if (r.share <= 0) continue;
              base(k) += c.count * r.share *
                         (to_seconds(r.network_rtt) +
                          pass[r.target] * to_seconds(c.callee_time_delta + r.callee_time_delta));
              triplets.emplace_back(k, static_cast<Eigen::Index>(local[r.target]), -c.count * r.share * pass[r.target]);
            }
          }
        }
      }
      Eigen::SparseMatrix<double> a(m, m);
      a.setFromTriplets(triplets.begin(), triplets.end());
      a.makeCompressed();
      Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
      lu.compute(a);
      if (lu.info() != Eigen::Success) return give_up(TrafficStatus::kUnboundedResponse, unbounded);
      for (int picard = 1;; ++picard) {
        Eigen::VectorXd rhs = base;
        for (Eigen::Index k = 0; k < m; ++k) {
          for (const CallGroup& g : graph.node(members[static_cast<std::size_t>(k)]).groups) {
            if (g.mode == CallMode::kParallel) rhs(k) += parallel_time(g);
          }
        }
        const Eigen::VectorXd x = lu.solve(rhs);
        double change = 0;
        std::size_t moving = 0;
        for (Eigen::Index k = 0; k < m; ++k) {
          if (!std::isfinite(x(k)) || x(k) < 0) return give_up(TrafficStatus::kUnboundedResponse, unbounded);
          const std::size_t i = members[static_cast<std::size_t>(k)];
          const double moved = std::abs(x(k) - t[i]) / std::max(x(k), 1e-9);
          if (moved > change) {
            change = moved;
            moving = i;
          }
          t[i] = x(k);
        }
        if (change < 1e-13) break;
        if (picard >= options.max_iterations) {
          const char* what = "the end-to-end response times of its parallel calls";
          return give_up(TrafficStatus::kNotConverged, still_moving(moving, what, options.max_iterations, change));
        }
      }
    }

    if (!any_holds) break;
    // Holding-time fixed point: a holding worker is busy for its own service
    // and its calls, H = S + (T - own) = T - W. A station without a steady
    // state of its own still has a finite holding time when its calls
    // return (its offered utilisation is then rho >= 1, not infinite); only
    // calls that never return hold the worker without bound.
    double change = 0, largest_step_s = 0;
    std::size_t moving = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!stations[i].holds_worker) continue;
      const double service = to_seconds(stations[i].mean_service);
      double next = calls_unbounded[i] ? kInf : unavailable[i] ? service + calls_time(i) : t[i] - own[i] + service;
      double moved = 0;
      if (std::isinf(next) != std::isinf(holding[i])) {
        moved = kInf;
      } else if (!std::isinf(next)) {
        // Blocking feeds back (a longer hold, more rejections, less load on
        // the callees, a shorter hold): damp once the rounds stop contracting,
        // as for the blocking.
        if (damp_holding) next = 0.5 * (holding[i] + next);
        moved = std::abs(next - holding[i]) / std::max(next, 1e-12);
        largest_step_s = std::max(largest_step_s, std::abs(next - holding[i]));
      }
      if (moved > change) {
        change = moved;
        moving = i;
      }
      holding[i] = next;
      if (!std::isinf(next)) holding_duration[i] = from_seconds(next);
    }
    if (change < 1e-12) break;
    // A station going unbounded (or back) is a jump, not a sign of oscillation.
    const bool stalled = std::isfinite(change) && change > 0.9 * previous_holding_change;
    // The queue formulas take the holding times rounded to the nanosecond, a
    // step function of H: right at a rounding boundary the rounds can flip
    // between its two sides for ever, a fraction of a nanosecond apart (a
    // gateway with a queue limit calling `orders` twice: its blocking thins
    // orders' load). Settled to the resolution the formulas see is settled.
    if (stalled && largest_step_s <= 1e-9) break;
    if (stalled) damp_holding = true;
    previous_holding_change = change;
    if (round >= options.max_iterations) {
      return give_up(TrafficStatus::kNotConverged,
                     still_moving(moving, "holding times of the call graph", options.max_iterations, change));
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!unavailable[i]) report.nodes[i].end_to_end = from_seconds(t[i]);
  }

  // A station that holds its workers for calls to a station without a
  // steady state has an unbounded holding time. Report a lower bound
  // instead: the end-to-end times of the unavailable nodes with the waits of
  // the unstable stations left out (own service and calls only; a station
  // with a steady state of its own keeps its wait), from 0 upwards to the
  // least fixed point (every term is non-decreasing in t, so the rounds
  // climb to it; exact after depth + 1 rounds on an acyclic graph). Lost
  // calls stay unbounded, and so does a cycle whose rounds do not settle.
  const auto bounded_below = [&](std::size_t i) {
    return stations[i].holds_worker && calls_unbounded[i] && !loses_calls[i];
  };
  bool any_bound = false;
  for (std::size_t i = 0; i < n; ++i) any_bound = any_bound || bounded_below(i);
  if (!any_bound) return report;
  const auto calls_reach_unbounded = [&](std::size_t i) {
    for (const CallGroup& g : graph.node(i).groups) {
      for (const Call& c : g.calls) {
        if (c.count <= 0) continue;
        for (const CallRoute& r : c.destinations()) {
          if (r.share > 0 && std::isinf(t[r.target])) return true;
        }
      }
    }
    return false;
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (unavailable[i]) t[i] = loses_calls[i] ? kInf : 0.0;
  }
  std::vector<char> moved(n, 0);
  for (int round = 1;; ++round) {
    double change = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!unavailable[i] || loses_calls[i] || std::isinf(t[i])) continue;
      const double base = report.nodes[i].queue ? own[i] : to_seconds(stations[i].mean_service);
      const double next = calls_reach_unbounded(i) ? kInf : base + calls_time(i);
      const double step = std::isinf(next) ? kInf : std::abs(next - t[i]) / std::max(next, 1e-9);
      moved[i] = step >= 1e-13;
      change = std::max(change, step);
      t[i] = next;
    }
    if (change < 1e-13) break;
    if (round >= options.max_iterations) {
      for (std::size_t i = 0; i < n; ++i) {
        if (moved[i]) t[i] = kInf;
      }
      break;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!bounded_below(i) || std::isinf(t[i])) continue;
    // No wait of its own is counted (it has no steady state): t is S + calls.
    NodeCapacity& out = report.nodes[i];
    out.holding = from_seconds(t[i]);
    out.holding_lower_bound = true;
    const double workers = static_cast<double>(stations[i].replicas * stations[i].servers);
    out.offered_utilization = out.offered.per_second > 0 ? out.offered.per_second * t[i] / workers : 0.0;
    for (Headroom& h : out.headroom) h.ratio = out.offered_utilization > 0 ? h.target / out.offered_utilization - 1.0 : kInf;
  }
  return report;
}

}  // namespace drsim

#include "analysis/capacity_check.h"

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

namespace drsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Duration from_seconds(double s) { return Duration{static_cast<std::int64_t>(std::llround(s * 1e9))}; }

struct Branch {
  double offset = 0;       // seconds
  double mean = 0;         // seconds
  double probability = 1;  // of taking the exponential time
};

// E[max_i (d_i + X_i)], X_i = Exp(mean m_i) with probability q_i, else 0.
// Every branch has finished by t only when t >= D = max d_i, so
//   E = D + int_0^inf (1 - prod_i (1 - w_i e^{-u/m_i})) du,  w_i = q_i e^{-(D-d_i)/m_i} <= 1,
// where deterministic branches (q_i m_i = 0) drop out of the product.
double expected_max(const std::vector<Branch>& branches) {
  if (branches.empty()) return 0;
  double d_max = 0;
  for (const Branch& b : branches) d_max = std::max(d_max, b.offset);
  std::vector<double> w, rate;
  for (const Branch& b : branches) {
    if (b.mean <= 0 || b.probability <= 0) continue;
    w.push_back(b.probability * std::exp(-(d_max - b.offset) / b.mean));
    rate.push_back(1.0 / b.mean);
  }
  const std::size_t n = w.size();
  if (n == 0) return d_max;
  if (n <= 12) {
    // Inclusion-exclusion: sum over non-empty S of (-1)^(|S|+1) prod_S w_i / sum_S 1/m_i.
    double sum = 0;
    for (std::uint32_t s = 1; s < (1u << n); ++s) {
      double prod = 1, r = 0;
      int bits = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (s & (1u << i)) {
          prod *= w[i];
          r += rate[i];
          ++bits;
        }
      }
      sum += (bits % 2 == 1 ? 1.0 : -1.0) * prod / r;
    }
    return d_max + sum;
  }
  // Numerical integration on geometrically shrinking segments [U 2^-(k+1), U 2^-k]
  // so that every branch's time scale is resolved, composite Simpson on each.
  double m_max = 0;
  for (double r : rate) m_max = std::max(m_max, 1.0 / r);
  auto f = [&](double u) {
    double prod = 1;
    for (std::size_t i = 0; i < n; ++i) prod *= 1.0 - w[i] * std::exp(-u * rate[i]);
    return 1.0 - prod;
  };
  const double upper = m_max * (std::log(static_cast<double>(n)) + 45.0);
  double integral = 0;
  double hi = upper;
  for (int k = 0; k < 64; ++k) {
    const double lo = (k == 63) ? 0.0 : hi / 2;
    constexpr int kIntervals = 64;
    const double h = (hi - lo) / kIntervals;
    double s = f(lo) + f(hi);
    for (int j = 1; j < kIntervals; ++j) s += (j % 2 == 1 ? 4.0 : 2.0) * f(lo + j * h);
    integral += s * h / 3;
    hi = lo;
  }
  return d_max + integral;
}

void validate_station(const Station& s, std::size_t i, const std::string& name) {
  const std::string where = "check_capacity: station " + std::to_string(i) + " (" + name + ")";
  if (s.servers == 0) throw std::invalid_argument(where + ": needs at least one server");
  if (s.mean_service <= Duration::zero()) throw std::invalid_argument(where + ": mean service time must be positive");
  if (s.capacity && *s.capacity < s.servers) {
    throw std::invalid_argument(where + ": capacity K must be at least the server count");
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

void CallGraph::add_parallel(std::size_t from, std::vector<Call> calls) {
  nodes_.at(from).groups.push_back(CallGroup{CallMode::kParallel, std::move(calls)});
}

void CallGraph::validate() const {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    for (const CallGroup& g : nodes_[i].groups) {
      for (const Call& c : g.calls) {
        const std::string where = "CallGraph: call " + nodes_[i].name + " -> " +
                                  (c.target < nodes_.size() ? nodes_[c.target].name : std::to_string(c.target));
        if (c.target >= nodes_.size()) throw std::invalid_argument(where + ": target is not a node");
        if (!std::isfinite(c.count) || c.count < 0) {
          throw std::invalid_argument(where + ": count must be finite and non-negative");
        }
        if (g.mode == CallMode::kParallel && (c.count < 1 || c.count != std::floor(c.count) || c.count > 64)) {
          throw std::invalid_argument(where +
                                      ": a parallel call's count must be a whole number of concurrent "
                                      "calls, 1 to 64");
        }
        if (c.network_rtt < Duration::zero()) throw std::invalid_argument(where + ": negative network round trip");
      }
    }
  }
}

std::vector<ExpectedCall> CallGraph::expected_calls() const {
  std::vector<ExpectedCall> out;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    for (const CallGroup& g : nodes_[i].groups) {
      for (const Call& c : g.calls) {
        if (c.count > 0) out.push_back(ExpectedCall{i, c.target, c.count});
      }
    }
  }
  return out;
}

// --- Expected max ------------------------------------------------------------

Duration expected_max_of_exponentials(std::span<const ParallelBranch> branches) {
  std::vector<Branch> b;
  b.reserve(branches.size());
  for (const ParallelBranch& p : branches) {
    if (p.offset < Duration::zero() || p.mean < Duration::zero() || !(p.probability >= 0 && p.probability <= 1)) {
      throw std::invalid_argument(
          "expected_max_of_exponentials: needs offset >= 0, mean >= 0 and probability in [0, 1]");
    }
    b.push_back(Branch{to_seconds(p.offset), to_seconds(p.mean), p.probability});
  }
  return from_seconds(expected_max(b));
}

// --- CapacityReport ----------------------------------------------------------

bool CapacityReport::all_stable() const {
  return std::all_of(nodes.begin(), nodes.end(), [](const NodeCapacity& n) { return n.stable; });
}

std::vector<std::size_t> CapacityReport::overloaded(double target) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].offered_utilization >= target) out.push_back(i);
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

  // Accepted fraction per station, 1 - blocking. Fixed point: thin every row
  // of P by its station's accepted fraction, solve, recompute the blocking.
  std::vector<double> accepted(n, 1.0);
  bool any_bounded = false;
  for (const Station& s : stations) any_bounded = any_bounded || s.capacity.has_value();
  CapacityReport report;
  TrafficSolution sol;
  double previous_change = kInf;
  bool damp = false;
  for (int it = 1;; ++it) {
    problem.calls = calls;
    for (ExpectedCall& c : problem.calls) c.count *= accepted[c.from];
    sol = solve_traffic_equations(problem);
    report.thinning_iterations = it;
    if (!sol.ok()) {
      report.status = sol.status;
      report.error = sol.error;
      return report;
    }
    if (!any_bounded) break;
    double change = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!stations[i].capacity) continue;
      const QueueMetrics m =
          mmck_metrics(sol.arrivals[i], stations[i].mean_service, stations[i].servers, *stations[i].capacity);
      double next = 1.0 - m.blocking_probability;
      // Blocking falls as upstream blocking thins the flow, and vice versa: on a
      // cycle plain iteration can oscillate, so damp once it stops contracting.
      if (damp) next = 0.5 * (accepted[i] + next);
      change = std::max(change, std::abs(next - accepted[i]));
      accepted[i] = next;
    }
    if (change < 1e-12) break;
    if (change > 0.9 * previous_change) damp = true;
    previous_change = change;
    if (it >= options.max_iterations) {
      throw std::runtime_error("check_capacity: blocking did not converge in " +
                               std::to_string(options.max_iterations) + " iterations");
    }
  }

  // Per-station queue metrics.
  report.nodes.resize(n);
  std::vector<double> own_response(n, 0.0), pass(n, 1.0);
  std::vector<char> unavailable(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Station& s = stations[i];
    NodeCapacity& out = report.nodes[i];
    out.name = graph.node(i).name;
    out.offered = sol.arrivals[i];
    const double service_s = to_seconds(s.mean_service);
    out.offered_utilization = out.offered.per_second * service_s / static_cast<double>(s.servers);
    out.stable = out.offered_utilization < 1.0;
    for (double target : options.utilization_targets) {
      out.headroom.push_back(
          Headroom{target, out.offered_utilization > 0 ? target / out.offered_utilization - 1.0 : kInf});
    }
    if (s.capacity) {
      out.queue = mmck_metrics(out.offered, s.mean_service, s.servers, *s.capacity);
      pass[i] = 1.0 - out.queue->blocking_probability;
    } else {
      out.queue = mmc_metrics(out.offered, s.mean_service, s.servers);
    }
    if (out.queue) {
      out.accepted = Rate{out.queue->throughput_per_s};
      // Recompute the response from the rates rather than the ns-rounded
      // Duration so that long call chains do not accumulate rounding.
      own_response[i] =
          out.queue->throughput_per_s > 0 ? out.queue->mean_in_system / out.queue->throughput_per_s : service_s;
    } else {
      out.accepted = Rate{static_cast<double>(s.servers) / service_s};
      unavailable[i] = 1;
    }
  }
  for (std::size_t e = 0; e < sol.entry_points.size(); ++e) {
    report.nodes[sol.entry_points[e]].visits = sol.visits[e];
  }

  // A node whose calls reach an unstable station has no finite response time.
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (unavailable[i]) continue;
      for (const CallGroup& g : graph.node(i).groups) {
        for (const Call& c : g.calls) {
          if (c.count > 0 && unavailable[c.target]) {
            unavailable[i] = 1;
            changed = true;
          }
        }
      }
    }
  }

  // End-to-end times: T_i = R_i + sum of its groups' times. The sequential
  // part is linear in T, (I - S) T = b + Par(T) with S(i, j) = count * (1 - B_j),
  // and is solved exactly (sparse LU), so a revisit loop with p near 1 costs
  // nothing extra. The parallel part Par is not linear: Picard iteration on it,
  // exact after (parallel nesting depth + 1) rounds on an acyclic graph.
  std::vector<std::size_t> local(n, n), members;
  for (std::size_t i = 0; i < n; ++i) {
    if (!unavailable[i]) {
      local[i] = members.size();
      members.push_back(i);
    }
  }
  std::vector<double> t(n, 0.0);
  if (!members.empty()) {
    const auto m = static_cast<Eigen::Index>(members.size());
    std::vector<Eigen::Triplet<double>> triplets;
    Eigen::VectorXd base = Eigen::VectorXd::Zero(m);
    for (Eigen::Index k = 0; k < m; ++k) {
      const std::size_t i = members[static_cast<std::size_t>(k)];
      triplets.emplace_back(k, k, 1.0);
      base(k) = own_response[i];
      for (const CallGroup& g : graph.node(i).groups) {
        if (g.mode != CallMode::kSequential) continue;
        for (const Call& c : g.calls) {
          if (c.count <= 0) continue;
          base(k) += c.count * to_seconds(c.network_rtt);
          triplets.emplace_back(k, static_cast<Eigen::Index>(local[c.target]), -c.count * pass[c.target]);
        }
      }
    }
    Eigen::SparseMatrix<double> a(m, m);
    a.setFromTriplets(triplets.begin(), triplets.end());
    a.makeCompressed();
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
    lu.compute(a);
    const std::string unbounded =
        "check_capacity: end-to-end response times are unbounded (a call cycle among idle nodes has gain >= 1)";
    if (lu.info() != Eigen::Success) throw std::runtime_error(unbounded);
    std::vector<Branch> branches;
    for (int round = 1;; ++round) {
      Eigen::VectorXd rhs = base;
      for (Eigen::Index k = 0; k < m; ++k) {
        for (const CallGroup& g : graph.node(members[static_cast<std::size_t>(k)]).groups) {
          if (g.mode != CallMode::kParallel) continue;
          branches.clear();
          for (const Call& c : g.calls) {
            for (int copy = 0; copy < static_cast<int>(c.count); ++copy) {
              branches.push_back(Branch{to_seconds(c.network_rtt), t[c.target], pass[c.target]});
            }
          }
          rhs(k) += expected_max(branches);
        }
      }
      const Eigen::VectorXd x = lu.solve(rhs);
      double change = 0;
      for (Eigen::Index k = 0; k < m; ++k) {
        if (!std::isfinite(x(k)) || x(k) < 0) throw std::runtime_error(unbounded);
        const std::size_t i = members[static_cast<std::size_t>(k)];
        change = std::max(change, std::abs(x(k) - t[i]) / std::max(x(k), 1e-9));
        t[i] = x(k);
      }
      if (change < 1e-13) break;
      if (round >= options.max_iterations) {
        throw std::runtime_error("check_capacity: end-to-end response times did not converge in " +
                                 std::to_string(options.max_iterations) + " rounds");
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!unavailable[i]) report.nodes[i].end_to_end = from_seconds(t[i]);
  }
  return report;
}

}  // namespace drsim

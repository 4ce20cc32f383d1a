#include "analysis/traffic_equations.h"

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

namespace drsim {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// Row i: the merged, positive entries P(i, j) as (j, count), sorted by j.
using Adjacency = std::vector<std::vector<std::pair<std::size_t, double>>>;

std::string node_name(const TrafficProblem& p, std::size_t i) {
  if (i < p.names.size() && !p.names[i].empty()) return p.names[i];
  return "node " + std::to_string(i);
}

Adjacency build_adjacency(const TrafficProblem& p) {
  const std::size_t n = p.external.size();
  if (!p.names.empty() && p.names.size() != n) {
    throw std::invalid_argument("solve_traffic_equations: " + std::to_string(p.names.size()) + " names for " +
                                std::to_string(n) + " nodes");
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double g = p.external[i].per_second;
    if (!std::isfinite(g) || g < 0) {
      throw std::invalid_argument("solve_traffic_equations: external rate of " + node_name(p, i) +
                                  " must be finite and non-negative");
    }
  }
  Adjacency adj(n);
  for (const ExpectedCall& c : p.calls) {
    if (c.from >= n || c.to >= n) {
      throw std::invalid_argument("solve_traffic_equations: call " + std::to_string(c.from) + " -> " +
                                  std::to_string(c.to) + " names a node outside 0.." + std::to_string(n) + "-1");
    }
    if (!std::isfinite(c.count) || c.count < 0) {
      throw std::invalid_argument("solve_traffic_equations: expected calls " + node_name(p, c.from) + " -> " +
                                  node_name(p, c.to) + " must be finite and non-negative");
    }
    if (c.count > 0) adj[c.from].emplace_back(c.to, c.count);
  }
  for (auto& row : adj) {
    std::sort(row.begin(), row.end());
    std::size_t out = 0;
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (out > 0 && row[out - 1].first == row[k].first) {
        row[out - 1].second += row[k].second;
      } else {
        row[out++] = row[k];
      }
    }
    row.resize(out);
  }
  return adj;
}

// Strongly connected components of the subgraph induced by `in_subgraph`
// (Tarjan, iterative so that long call chains cannot overflow the stack).
std::vector<std::vector<std::size_t>> strongly_connected(const Adjacency& adj, const std::vector<char>& in_subgraph) {
  const std::size_t n = adj.size();
  std::vector<std::size_t> index(n, kNone), low(n, 0);
  std::vector<char> on_stack(n, 0);
  std::vector<std::size_t> stack;
  std::vector<std::vector<std::size_t>> components;
  std::size_t next_index = 0;
  struct Frame {
    std::size_t node;
    std::size_t edge;
  };
  std::vector<Frame> frames;
  for (std::size_t root = 0; root < n; ++root) {
    if (!in_subgraph[root] || index[root] != kNone) continue;
    frames.push_back({root, 0});
    index[root] = low[root] = next_index++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!frames.empty()) {
      Frame& f = frames.back();
      const std::size_t v = f.node;
      if (f.edge < adj[v].size()) {
        const std::size_t w = adj[v][f.edge++].first;
        if (!in_subgraph[w]) continue;
        if (index[w] == kNone) {
          index[w] = low[w] = next_index++;
          stack.push_back(w);
          on_stack[w] = 1;
          frames.push_back({w, 0});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        std::vector<std::size_t> comp;
        std::size_t w = kNone;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          comp.push_back(w);
        } while (w != v);
        std::sort(comp.begin(), comp.end());
        components.push_back(std::move(comp));
      }
      frames.pop_back();
      if (!frames.empty()) {
        const std::size_t parent = frames.back().node;
        low[parent] = std::min(low[parent], low[v]);
      }
    }
  }
  return components;
}

using SparseMatrix = Eigen::SparseMatrix<double>;

// Perron root of a non-negative irreducible matrix by power iteration on
// I + P (primitive, so the iteration converges even for periodic cycles),
// bracketed by the Collatz-Wielandt bounds. For the error message only.
double spectral_radius_estimate(const SparseMatrix& p) {
  const Eigen::Index m = p.rows();
  Eigen::VectorXd x = Eigen::VectorXd::Ones(m);
  double lo = 0, hi = 0;
  for (int it = 0; it < 5000; ++it) {
    const Eigen::VectorXd y = x + p * x;
    lo = std::numeric_limits<double>::infinity();
    hi = 0;
    for (Eigen::Index i = 0; i < m; ++i) {
      const double r = y(i) / x(i);
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
    x = y / y.maxCoeff();
    // Four significant digits are enough for a message.
    if (hi - lo <= 1e-7 * hi) break;
  }
  return 0.5 * (lo + hi) - 1.0;
}

// True when the spectral radius of P restricted to a strongly connected
// component is below 1, by the M-matrix criterion: A = I - P^T is a
// nonsingular M-matrix iff A x = 1 has a solution x >= 0 (Berman & Plemmons,
// Nonnegative Matrices in the Mathematical Sciences, Thm 6.2.3). A failed
// factorisation (gain exactly 1) or a solution beyond 1e12 (a gain within
// rounding of 1) counts as unbounded.
bool component_is_bounded(const SparseMatrix& p_comp) {
  const Eigen::Index m = p_comp.rows();
  SparseMatrix identity(m, m);
  identity.setIdentity();
  SparseMatrix a = identity - SparseMatrix(p_comp.transpose());
  a.makeCompressed();
  Eigen::SparseLU<SparseMatrix> lu;
  lu.compute(a);
  if (lu.info() != Eigen::Success) return false;
  const Eigen::VectorXd x = lu.solve(Eigen::VectorXd::Ones(m));
  if (lu.info() != Eigen::Success) return false;
  for (Eigen::Index i = 0; i < m; ++i) {
    if (!std::isfinite(x(i)) || x(i) < 0 || x(i) > 1e12) return false;
  }
  return true;
}

std::string format_g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

const std::vector<double>& TrafficSolution::visits_from(std::size_t entry) const {
  const auto it = std::lower_bound(entry_points.begin(), entry_points.end(), entry);
  if (it == entry_points.end() || *it != entry) {
    throw std::out_of_range("TrafficSolution::visits_from: node " + std::to_string(entry) +
                            " has no external arrivals");
  }
  return visits[static_cast<std::size_t>(it - entry_points.begin())];
}

TrafficSolution solve_traffic_equations(const TrafficProblem& problem) {
  const Adjacency adj = build_adjacency(problem);
  const std::size_t n = adj.size();
  TrafficSolution out;

  // Nodes reachable from external traffic.
  std::vector<char> reachable(n, 0);
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < n; ++i) {
    if (problem.external[i].per_second > 0) {
      reachable[i] = 1;
      todo.push_back(i);
      out.entry_points.push_back(i);
    }
  }
  while (!todo.empty()) {
    const std::size_t v = todo.back();
    todo.pop_back();
    for (const auto& [w, count] : adj[v]) {
      if (!reachable[w]) {
        reachable[w] = 1;
        todo.push_back(w);
      }
    }
  }

  // The spectral radius of P is the largest over its strongly connected
  // components: test each cycle on its own, so that the message names it.
  std::vector<std::size_t> local(n, kNone);
  for (const auto& comp : strongly_connected(adj, reachable)) {
    const bool self_loop =
        std::any_of(adj[comp[0]].begin(), adj[comp[0]].end(), [&](const auto& e) { return e.first == comp[0]; });
    if (comp.size() == 1 && !self_loop) continue;
    const auto m = static_cast<Eigen::Index>(comp.size());
    for (std::size_t k = 0; k < comp.size(); ++k) local[comp[k]] = k;
    std::vector<Eigen::Triplet<double>> entries;
    for (std::size_t k = 0; k < comp.size(); ++k) {
      for (const auto& [w, count] : adj[comp[k]]) {
        if (local[w] != kNone)
          entries.emplace_back(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(local[w]), count);
      }
    }
    SparseMatrix p(m, m);
    p.setFromTriplets(entries.begin(), entries.end());
    for (std::size_t v : comp) local[v] = kNone;
    if (component_is_bounded(p)) continue;
    std::string names;
    for (std::size_t k = 0; k < comp.size() && k < 8; ++k) names += (k ? ", " : "") + node_name(problem, comp[k]);
    if (comp.size() > 8) names += ", ... (" + std::to_string(comp.size()) + " nodes)";
    out.status = TrafficStatus::kUnboundedCycle;
    out.error = "call cycle through {" + names + "} has spectral radius " + format_g(spectral_radius_estimate(p)) +
                " (must be below 1): every request entering it causes unbounded calls, so the traffic "
                "equations have no non-negative solution";
    out.entry_points.clear();
    return out;
  }

  // Solve on the reachable nodes only; the others carry no traffic.
  std::vector<std::size_t> nodes;
  for (std::size_t i = 0; i < n; ++i) {
    if (reachable[i]) {
      local[i] = nodes.size();
      nodes.push_back(i);
    }
  }
  out.arrivals.assign(n, Rate{0});
  if (problem.visits) out.visits.assign(out.entry_points.size(), std::vector<double>(n, 0.0));
  if (nodes.empty()) return out;

  const auto m = static_cast<Eigen::Index>(nodes.size());
  std::vector<Eigen::Triplet<double>> triplets;
  for (Eigen::Index k = 0; k < m; ++k) triplets.emplace_back(k, k, 1.0);
  for (std::size_t v : nodes) {
    for (const auto& [w, count] : adj[v]) {
      // Row w of I - P^T holds -P(v, w).
      triplets.emplace_back(static_cast<Eigen::Index>(local[w]), static_cast<Eigen::Index>(local[v]), -count);
    }
  }
  SparseMatrix a(m, m);
  a.setFromTriplets(triplets.begin(), triplets.end());  // sums duplicates (self-loops on the diagonal)
  a.makeCompressed();
  Eigen::SparseLU<SparseMatrix> lu;
  lu.compute(a);
  if (lu.info() != Eigen::Success) {
    out = TrafficSolution{};
    out.status = TrafficStatus::kSingular;
    out.error = "the traffic equations (I - P^T) lambda = gamma are singular: " + lu.lastErrorMessage();
    return out;
  }

  // One right-hand side for gamma, one unit vector per entry point.
  const auto entries = static_cast<Eigen::Index>(problem.visits ? out.entry_points.size() : 0);
  Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(m, 1 + entries);
  for (Eigen::Index k = 0; k < m; ++k) rhs(k, 0) = problem.external[nodes[static_cast<std::size_t>(k)]].per_second;
  for (Eigen::Index e = 0; e < entries; ++e) rhs(static_cast<Eigen::Index>(local[out.entry_points[e]]), 1 + e) = 1.0;
  const Eigen::MatrixXd x = lu.solve(rhs);
  if (lu.info() != Eigen::Success || !x.allFinite()) {
    out = TrafficSolution{};
    out.status = TrafficStatus::kSingular;
    out.error = "the traffic equations (I - P^T) lambda = gamma could not be solved (numerically singular)";
    return out;
  }
  // Each cycle passed the M-matrix test, so the exact solution is
  // non-negative; clip rounding noise only.
  for (Eigen::Index k = 0; k < m; ++k) {
    const std::size_t v = nodes[static_cast<std::size_t>(k)];
    out.arrivals[v] = Rate{std::max(0.0, x(k, 0))};
    for (Eigen::Index e = 0; e < entries; ++e) out.visits[static_cast<std::size_t>(e)][v] = std::max(0.0, x(k, 1 + e));
  }
  return out;
}

}  // namespace drsim

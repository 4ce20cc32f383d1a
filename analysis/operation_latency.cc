#include "analysis/operation_latency.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace drsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Route shares that add up to 1 but for rounding lose no calls (as CallGraph::validate reads them).
constexpr double kShareTolerance = 1e-9;

Duration from_seconds(double s) { return Duration{static_cast<std::int64_t>(std::llround(s * 1e9))}; }

}  // namespace

OperationLatency::OperationLatency(const CallGraph& graph, const CapacityReport& report,
                                   const std::vector<Station>& stations,
                                   std::vector<std::vector<CallGroupOrigin>> origins,
                                   std::vector<std::vector<Duration>> operation_service)
    : graph_(graph),
      report_(report),
      stations_(stations),
      origins_(std::move(origins)),
      service_(std::move(operation_service)) {
  if (!report_.ok()) throw std::invalid_argument("OperationLatency: the capacity report has no solution");
  const std::size_t n = graph_.size();
  origins_.resize(n);
  service_.resize(n);
  memo_.resize(n);
  busy_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::vector<CallGroup>& groups = graph_.node(i).groups;
    bool matches = service_[i].empty() || origins_[i].size() == groups.size();
    for (std::size_t g = 0; matches && g < origins_[i].size(); ++g) {
      matches = origins_[i][g].callee_operations.size() == groups[g].calls.size() && origins_[i][g].share > 0;
    }
    if (!matches) {
      throw std::invalid_argument("OperationLatency: the origins of node " + graph_.node(i).name +
                                  " do not match its call groups (one per group, one callee operation per call, "
                                  "a positive share)");
    }
    memo_[i].assign(service_[i].size(), std::numeric_limits<double>::quiet_NaN());
    busy_[i].assign(service_[i].size(), 0);
  }
}

double OperationLatency::node_response_s(std::size_t node) const {
  const auto& t = report_.nodes[node].end_to_end;
  return t ? to_seconds(*t) : kInf;
}

double OperationLatency::pass(std::size_t node) const {
  const NodeCapacity& n = report_.nodes[node];
  return stations_[node].capacity && n.queue ? 1.0 - n.queue->blocking_probability : 1.0;
}

double OperationLatency::callee_s(const Call& call, const CallRoute& route, std::size_t operation) {
  const std::size_t node = route.target;
  if (operation == CallGroupOrigin::kNoOperation || operation >= service_[node].size()) return node_response_s(node);
  if (busy_[node][operation]) {
    // A cycle back into this operation: the check's own callee time on this call.
    return std::max(0.0, node_response_s(node) + to_seconds(call.callee_time_delta + route.callee_time_delta));
  }
  return response_s(node, operation);
}

double OperationLatency::group_s(const CallGroup& group, const CallGroupOrigin& origin) {
  if (group.mode == CallMode::kSequential) {
    double total = 0;
    for (std::size_t c = 0; c < group.calls.size(); ++c) {
      const Call& call = group.calls[c];
      if (call.count <= 0) continue;
      const double per_request = call.count / origin.share;  // the group's counts are per request of the node
      double shares = 0;
      for (const CallRoute& r : call.destinations()) {
        shares += r.share;
        if (r.share <= 0) continue;
        const double answer = pass(r.target) * callee_s(call, r, origin.callee_operations[c]);
        total += per_request * r.share * (to_seconds(r.network_rtt) + answer);
      }
      if (shares < 1.0 - kShareTolerance) return kInf;  // lost calls never return
    }
    return total;
  }
  // Parallel: every call of the group is made `count` times; the group waits for the slowest branch.
  std::vector<std::vector<ParallelBranch>> branches;
  for (std::size_t c = 0; c < group.calls.size(); ++c) {
    const Call& call = group.calls[c];
    std::vector<ParallelBranch> routes;
    double shares = 0;
    for (const CallRoute& r : call.destinations()) {
      if (r.share <= 0) continue;
      shares += r.share;
      const double callee = callee_s(call, r, origin.callee_operations[c]);
      if (std::isinf(callee)) return kInf;
      routes.push_back(ParallelBranch{r.network_rtt, from_seconds(callee), pass(r.target), r.share});
    }
    if (routes.empty() || shares < 1.0 - kShareTolerance) return kInf;
    // Shares within rounding of 1 made exactly 1, as the mixture needs.
    for (ParallelBranch& b : routes) b.share /= shares;
    for (int copy = 0; copy < static_cast<int>(call.count); ++copy) branches.push_back(routes);
  }
  return branches.empty() ? 0.0 : to_seconds(expected_max_of_mixtures(branches));
}

double OperationLatency::response_s(std::size_t node, std::size_t operation) {
  if (node >= graph_.size()) throw std::out_of_range("OperationLatency: no node " + std::to_string(node));
  if (operation >= service_[node].size()) return node_response_s(node);
  double& memo = memo_[node][operation];
  if (!std::isnan(memo)) return memo;
  const NodeCapacity& n = report_.nodes[node];
  // The station's own queue decides its wait; its end-to-end time may be unbounded through calls of other
  // operations that this one does not make.
  if (!n.queue) return memo = kInf;
  busy_[node][operation] = 1;
  double total = to_seconds(n.queue->mean_wait) + to_seconds(service_[node][operation]);
  const std::vector<CallGroup>& groups = graph_.node(node).groups;
  for (std::size_t g = 0; g < groups.size() && std::isfinite(total); ++g) {
    if (origins_[node][g].operation != operation) continue;
    total += group_s(groups[g], origins_[node][g]);
  }
  busy_[node][operation] = 0;
  return memo = total;
}

}  // namespace drsim

#include "models/kube/node_placement.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <numeric>

namespace drsim {

namespace {

constexpr std::int64_t kMaxNodeScore = 100;
// schedutil's defaults for scoring a container that requests nothing (DefaultMilliCPURequest and
// DefaultMemoryRequest): without them, best-effort pods would all look free and pile onto one node.
constexpr std::int64_t kNonZeroCpuMillis = 100;
constexpr std::int64_t kNonZeroMemoryBytes = 200LL * 1024 * 1024;

// Filter failure reasons, worded as kube-scheduler words them; one bit each.
enum Reason : unsigned {
  kFailedZone = 1u << 0,
  kAffinity = 1u << 1,
  kTooManyPods = 1u << 2,
  kInsufficientCpu = 1u << 3,
  kInsufficientMemory = 1u << 4,
};
constexpr std::array<const char*, 5> kReasonText{
    "node(s) were in a failed zone", "node(s) didn't match Pod's node affinity/selector", "Too many pods",
    "Insufficient cpu", "Insufficient memory"};

Resources non_zero(const Resources& r) {
  return {r.cpu_millis > 0 ? r.cpu_millis : kNonZeroCpuMillis,
          r.memory_bytes > 0 ? r.memory_bytes : kNonZeroMemoryBytes};
}

Resources plus(const Resources& a, const Resources& b) {
  return {a.cpu_millis + b.cpu_millis, a.memory_bytes + b.memory_bytes};
}

Resources minus(const Resources& a, const Resources& b) {
  return {a.cpu_millis - b.cpu_millis, a.memory_bytes - b.memory_bytes};
}

std::int64_t resource_score(std::int64_t requested, std::int64_t allocatable) {
  if (allocatable <= 0 || requested > allocatable) return 0;
  return (allocatable - requested) * kMaxNodeScore / allocatable;
}

// How many pods of this size fit into what is left (`free`, `pod_slots`); pods without a request are bounded
// by the pod count alone.
std::uint32_t pods_that_fit(const Resources& free, std::int64_t pod_slots, const Resources& pod) {
  std::int64_t n = std::max<std::int64_t>(0, pod_slots);
  if (pod.cpu_millis > 0) n = std::min(n, std::max<std::int64_t>(0, free.cpu_millis / pod.cpu_millis));
  if (pod.memory_bytes > 0) n = std::min(n, std::max<std::int64_t>(0, free.memory_bytes / pod.memory_bytes));
  return static_cast<std::uint32_t>(std::min<std::int64_t>(n, std::numeric_limits<std::uint32_t>::max()));
}

bool fits_empty(const NodePool& pool, const Resources& pod) {
  return pool.max_pods > 0 && pod.cpu_millis <= pool.allocatable.cpu_millis &&
         pod.memory_bytes <= pool.allocatable.memory_bytes;
}

// The pod's size relative to a node of the pool, for the decreasing order of the binpacking estimator.
double relative_size(const Resources& pod, const NodePool& pool) {
  double s = 0;
  if (pool.allocatable.cpu_millis > 0) s += double(pod.cpu_millis) / double(pool.allocatable.cpu_millis);
  if (pool.allocatable.memory_bytes > 0) s += double(pod.memory_bytes) / double(pool.allocatable.memory_bytes);
  return s;
}

// "0/6 nodes are available: 2 node(s) were in a failed zone, 4 Insufficient cpu." - the reasons sorted as
// strings with their counts, as kube-scheduler's FitError does.
std::string fit_error(std::size_t nodes, const std::array<std::size_t, kReasonText.size()>& histogram) {
  std::vector<std::string> parts;
  for (std::size_t r = 0; r < histogram.size(); ++r) {
    if (histogram[r] > 0) parts.push_back(std::to_string(histogram[r]) + " " + kReasonText[r]);
  }
  std::sort(parts.begin(), parts.end());
  std::string out = "0/" + std::to_string(nodes) + " nodes are available";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? ": " : ", ") + parts[i];
  return out + ".";
}

}  // namespace

std::int64_t least_allocated_score(const Resources& requested, const Resources& allocatable) {
  const std::int64_t cpu = resource_score(requested.cpu_millis, allocatable.cpu_millis);
  const std::int64_t mem = resource_score(requested.memory_bytes, allocatable.memory_bytes);
  return (cpu + mem) / 2;
}

std::uint32_t ScaleUpEstimate::nodes_to_add() const {
  std::uint32_t n = 0;
  for (const auto& p : pools) n += p.nodes_to_add;
  return n;
}

ChildCluster::ChildCluster(std::vector<NodePool> pools) : pools_(std::move(pools)) {
  for (std::size_t p = 0; p < pools_.size(); ++p) {
    for (std::uint32_t n = 0; n < pools_[p].nodes; ++n) nodes_.push_back(Node{p, {}, {}, 0});
  }
}

void ChildCluster::set_zone_failed(std::string_view zone, bool failed) {
  const auto it = std::find(failed_zones_.begin(), failed_zones_.end(), zone);
  if (failed && it == failed_zones_.end()) failed_zones_.emplace_back(zone);
  if (!failed && it != failed_zones_.end()) failed_zones_.erase(it);
}

bool ChildCluster::zone_failed(std::string_view zone) const {
  return std::find(failed_zones_.begin(), failed_zones_.end(), zone) != failed_zones_.end();
}

unsigned ChildCluster::filter(const Node& node, const Resources& pod, std::optional<std::string_view> zone) const {
  const NodePool& pool = pools_[node.pool];
  // TaintToleration runs before NodeAffinity in the default profile, so a failed zone's node reports the
  // failure even when the pod was meant for another zone.
  if (zone_failed(pool.zone)) return kFailedZone;
  if (zone && pool.zone != *zone) return kAffinity;
  unsigned reasons = 0;  // NodeResourcesFit reports every shortage at once
  if (node.pods + 1 > pool.max_pods) reasons |= kTooManyPods;
  if (node.requested.cpu_millis + pod.cpu_millis > pool.allocatable.cpu_millis) reasons |= kInsufficientCpu;
  if (node.requested.memory_bytes + pod.memory_bytes > pool.allocatable.memory_bytes) reasons |= kInsufficientMemory;
  return reasons;
}

PlacementResult ChildCluster::place(const Resources& pod, std::optional<std::string_view> zone) {
  std::optional<std::size_t> best;
  std::int64_t best_score = -1;
  std::array<std::size_t, kReasonText.size()> histogram{};
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const unsigned reasons = filter(nodes_[i], pod, zone);
    if (reasons != 0) {
      for (std::size_t r = 0; r < kReasonText.size(); ++r) histogram[r] += (reasons >> r) & 1u;
      continue;
    }
    const std::int64_t score =
        least_allocated_score(plus(nodes_[i].scored, non_zero(pod)), pools_[nodes_[i].pool].allocatable);
    if (score > best_score) {  // strict: the first node of the best score wins
      best = i;
      best_score = score;
    }
  }
  if (!best) return {std::nullopt, fit_error(nodes_.size(), histogram)};
  Node& node = nodes_[*best];
  node.requested = plus(node.requested, pod);
  node.scored = plus(node.scored, non_zero(pod));
  ++node.pods;
  return {best, {}};
}

void ChildCluster::remove(std::size_t node, const Resources& pod) {
  Node& n = nodes_.at(node);
  n.requested = minus(n.requested, pod);
  n.scored = minus(n.scored, non_zero(pod));
  if (n.pods > 0) --n.pods;
}

std::uint32_t ChildCluster::free_pods(std::string_view zone, const Resources& pod, bool with_autoscaling) const {
  if (zone_failed(zone)) return 0;
  std::uint64_t total = 0;
  for (const Node& node : nodes_) {
    const NodePool& pool = pools_[node.pool];
    if (pool.zone != zone) continue;
    total += pods_that_fit(minus(pool.allocatable, node.requested),
                           static_cast<std::int64_t>(pool.max_pods) - node.pods, pod);
  }
  if (with_autoscaling) {
    for (const NodePool& pool : pools_) {
      if (pool.zone != zone || pool.max_nodes <= pool.nodes) continue;
      total += std::uint64_t{pool.max_nodes - pool.nodes} * pods_that_fit(pool.allocatable, pool.max_pods, pod);
    }
  }
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(total, std::numeric_limits<std::uint32_t>::max()));
}

ScaleUpEstimate ChildCluster::estimate_scale_up(std::string_view zone, std::span<const Resources> pending) const {
  if (zone_failed(zone)) {
    ScaleUpEstimate e;
    e.still_pending = static_cast<std::uint32_t>(pending.size());
    if (e.still_pending > 0) e.reason = "zone " + std::string(zone) + " has failed: no node can be added";
    return e;
  }
  return drsim::estimate_scale_up(pools_, zone, pending);
}

std::uint32_t ChildCluster::add_nodes(std::size_t pool, std::uint32_t count) {
  NodePool& p = pools_.at(pool);
  const std::uint32_t room = p.max_nodes > p.nodes ? p.max_nodes - p.nodes : 0;
  const std::uint32_t added = std::min(count, room);
  p.nodes += added;
  // New nodes go after the existing ones, so earlier node indices (held by placed pods) stay valid.
  for (std::uint32_t n = 0; n < added; ++n) nodes_.push_back(Node{pool, {}, {}, 0});
  return added;
}

ScaleUpEstimate estimate_scale_up(std::span<const NodePool> pools, std::string_view zone,
                                  std::span<const Resources> pending) {
  ScaleUpEstimate estimate;
  std::vector<std::size_t> zone_pools;
  for (std::size_t p = 0; p < pools.size(); ++p) {
    if (pools[p].zone == zone) zone_pools.push_back(p);
  }
  std::vector<std::size_t> order(pending.size());
  std::iota(order.begin(), order.end(), 0);
  if (!zone_pools.empty()) {
    const NodePool& reference = pools[zone_pools.front()];
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return relative_size(pending[a], reference) > relative_size(pending[b], reference);
    });
  }
  struct NewNode {
    std::size_t pool;
    Resources free;
    std::uint32_t slots;
  };
  std::vector<NewNode> opened;
  std::map<std::size_t, std::uint32_t> added;  // pool -> nodes opened
  std::uint32_t too_big = 0;
  std::uint32_t no_stock = 0;
  for (const std::size_t k : order) {
    const Resources& pod = pending[k];
    auto fit = std::find_if(opened.begin(), opened.end(), [&](const NewNode& n) {
      return n.slots > 0 && pod.cpu_millis <= n.free.cpu_millis && pod.memory_bytes <= n.free.memory_bytes;
    });
    if (fit == opened.end()) {
      bool fits_some_pool = false;
      std::optional<std::size_t> pool;
      for (const std::size_t p : zone_pools) {
        if (!fits_empty(pools[p], pod)) continue;
        fits_some_pool = true;
        const std::uint32_t stock = pools[p].max_nodes > pools[p].nodes ? pools[p].max_nodes - pools[p].nodes : 0;
        if (added[p] < stock) {
          pool = p;
          break;
        }
      }
      if (!pool) {
        ++(fits_some_pool ? no_stock : too_big);
        continue;
      }
      ++added[*pool];
      opened.push_back({*pool, pools[*pool].allocatable, pools[*pool].max_pods});
      fit = opened.end() - 1;
    }
    fit->free = minus(fit->free, pod);
    --fit->slots;
  }
  for (const std::size_t p : zone_pools) {
    if (added[p] > 0) estimate.pools.push_back({p, pools[p].name, added[p]});
  }
  estimate.still_pending = too_big + no_stock;
  std::vector<std::string> parts;
  if (no_stock > 0) {
    parts.push_back(std::to_string(no_stock) + " pod(s) wait for nodes: zone " + std::string(zone) +
                    " pools are at max nodes");
  }
  if (too_big > 0) {
    parts.push_back(std::to_string(too_big) + " pod(s) fit on no node of zone " + std::string(zone) + "'s pools");
  }
  for (std::size_t i = 0; i < parts.size(); ++i) estimate.reason += (i ? "; " : "") + parts[i];
  return estimate;
}

}  // namespace drsim

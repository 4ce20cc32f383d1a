#pragma once
// The child cluster's scheduler, reduced to what a zone failure exercises:
// node pools per zone, pods with CPU and memory requests, the NodeResourcesFit
// filter and its default LeastAllocated score, a Kubernetes-style message for
// an unschedulable pod, and the cluster autoscaler's estimate of how many nodes
// to add for the pods left pending. A pool has a maximum node count because
// cloud stock runs short exactly when a whole zone's workload moves at once.
//
// Deterministic by construction: nodes are numbered pool by pool in input
// order, and where kube-scheduler breaks score ties at random this takes the
// lowest node number. Everything is O(nodes) per pod, which is cheap for the
// hundreds of nodes and thousands of pods of a scenario.
//
// Scoring follows upstream noderesources (least_allocated.go): per resource
// (allocatable - requested) x 100 / allocatable with the pod included, integer
// division, averaged over CPU and memory with weight 1 each; for the score
// (not the fit) a request of zero counts as 100 millicores and 200 MiB
// (schedutil's non-zero defaults), so that best-effort pods still spread.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace drsim {

struct Resources {
  std::int64_t cpu_millis = 0;
  std::int64_t memory_bytes = 0;
  friend bool operator==(const Resources&, const Resources&) = default;
};

struct NodePool {
  std::string name;
  std::string zone;
  Resources allocatable;  // per node
  std::uint32_t nodes = 0;  // nodes now
  std::uint32_t max_nodes = 0;  // what the cloud can supply; below `nodes` means no more can be added
  std::uint32_t max_pods = 110;  // per node, the kubelet default
};

// Where a pod went, or why it could not go anywhere.
struct PlacementResult {
  std::optional<std::size_t> node;  // index into ChildCluster's nodes
  std::string reason;  // "0/6 nodes are available: 2 node(s) were in a failed zone, 4 Insufficient cpu."
};

struct PoolScaleUp {
  std::size_t pool = 0;  // index into the pools
  std::string name;
  std::uint32_t nodes_to_add = 0;
  friend bool operator==(const PoolScaleUp&, const PoolScaleUp&) = default;
};

struct ScaleUpEstimate {
  std::vector<PoolScaleUp> pools;  // pools of the zone that grow, in pool order
  std::uint32_t still_pending = 0;  // pods that fit on no new node: stock short, or larger than any node
  std::string reason;  // empty when nothing stays pending
  std::uint32_t nodes_to_add() const;
};

class ChildCluster {
 public:
  struct Node {
    std::size_t pool = 0;
    Resources requested;  // sum of the pods' requests, as NodeResourcesFit checks them
    Resources scored;  // the same with zero requests counted at the non-zero defaults
    std::uint32_t pods = 0;
  };

  explicit ChildCluster(std::vector<NodePool> pools);

  const std::vector<NodePool>& pools() const { return pools_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::string& zone_of(std::size_t node) const { return pools_[nodes_[node].pool].zone; }

  // A failed zone's nodes pass no filter (they are NotReady and tainted unreachable).
  void set_zone_failed(std::string_view zone, bool failed);
  bool zone_failed(std::string_view zone) const;

  // Places one pod on the best feasible node, optionally only in `zone` (the parent's split arrives as a
  // per-zone node affinity), and books its requests there.
  PlacementResult place(const Resources& pod, std::optional<std::string_view> zone = std::nullopt);
  // Frees the requests of a pod placed on `node` earlier.
  void remove(std::size_t node, const Resources& pod);

  // Pods of this size the zone's nodes can still take now; with `with_autoscaling`, also on the nodes its
  // pools may still add (up to max nodes). 0 for a failed zone. Feeds ZoneState::free_capacity.
  std::uint32_t free_pods(std::string_view zone, const Resources& pod, bool with_autoscaling = false) const;

  // How many nodes to add to the zone's pools for these pending pods (see estimate_scale_up).
  ScaleUpEstimate estimate_scale_up(std::string_view zone, std::span<const Resources> pending) const;
  // Adds nodes to a pool, at most up to its max; returns how many were added.
  std::uint32_t add_nodes(std::size_t pool, std::uint32_t count);

 private:
  // Why the node rejects the pod, as a bit set of reasons (0: it fits), in the filter order of
  // kube-scheduler's default profile. Bits rather than strings: this runs for every node and every pod.
  unsigned filter(const Node& node, const Resources& pod, std::optional<std::string_view> zone) const;

  std::vector<NodePool> pools_;
  std::vector<Node> nodes_;
  std::vector<std::string> failed_zones_;
};

// The cluster autoscaler's binpacking estimate for one zone: pods sorted by decreasing size (the sum of their
// CPU and memory requests as fractions of the pool's node), then first-fit onto the nodes added so far, a new
// node being opened in the first pool of the zone that can hold the pod and still has stock. `pools` gives
// the current node counts; nodes already present are not used (the scheduler already found them full).
ScaleUpEstimate estimate_scale_up(std::span<const NodePool> pools, std::string_view zone,
                                  std::span<const Resources> pending);

// LeastAllocated score (0..100) of a node with `requested` (pod included) out of `allocatable`.
std::int64_t least_allocated_score(const Resources& requested, const Resources& allocatable);

}  // namespace drsim

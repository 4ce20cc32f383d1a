#pragma once
// The event kinds of the Kubernetes control plane (sim/event_kind.h), named
// after the Kubernetes object they are about. Listed once more at the end, for
// the catalog (models/results/event_kind_catalog.h).
#include "sim/event_kind.h"

namespace drsim::event_kinds {

// All logged by models/kube/control_plane.h.
namespace deployment {
inline constexpr EventKind kUnplaced{"deployment.unplaced",
                                     "Replicas no zone could take, with the rule that blocked them."};
inline constexpr EventKind kCompensation{"deployment.compensation",
                                         "A deployment:compensate added (or cancelled) a lost zone's replicas."};
inline constexpr EventKind kPolicy{"deployment.policy",
                                   "A deployment's zone policy changed or was restored: a rollout to a fresh split."};
inline constexpr EventKind kRestart{"deployment.restart",
                                    "A rolling restart: every pod replaced within maxSurge and maxUnavailable."};
}  // namespace deployment

namespace pod {
inline constexpr EventKind kPending{"pod.pending", "Pods of a zone cannot be scheduled (kube-scheduler's message)."};
inline constexpr EventKind kCrashed{"pod.crashed", "A pod's container was killed; it restarts after its back-off."};
inline constexpr EventKind kEvicted{
    "pod.evicted",
    "Pods of an unreachable zone were evicted after the toleration; the detail says where their replacements went, "
    "which stay Pending in the zone and why, or that a StatefulSet waits."};
inline constexpr EventKind kTerminated{
    "pod.terminated",
    "A zone is back and its kubelets confirm that its evicted pods are gone: a StatefulSet recreates them only then."};
}  // namespace pod

namespace node {
inline constexpr EventKind kNotReady{"node.not_ready",
                                     "A zone's nodes are NotReady after the monitor grace period; their pods unready.",
                                     {.detects_failure = true}};
inline constexpr EventKind kScaleUp{"node.scale_up", "The cluster autoscaler ordered nodes for pending pods."};
inline constexpr EventKind kAdded{"node.added", "Ordered nodes joined the cluster, Ready."};
inline constexpr EventKind kScaleUpShort{"node.scale_up_short",
                                         "The autoscaler cannot order enough nodes for a zone's pending pods."};
}  // namespace node

namespace hpa {
inline constexpr EventKind kRescale{
    "hpa.rescale", "An HPA changed its deployment's replicas (metric, proposal and the limit applied)."};
inline constexpr EventKind kCompensation{
    "hpa.compensation", "An HPA computes without a lost zone's pods (hpa:compensate), or again with them."};
}  // namespace hpa

inline constexpr EventKind kKubeEventKinds[] = {
    deployment::kUnplaced, deployment::kCompensation,
    deployment::kPolicy,   deployment::kRestart,
    pod::kPending,         pod::kCrashed,
    pod::kEvicted,         pod::kTerminated,
    node::kNotReady,       node::kScaleUp,
    node::kAdded,          node::kScaleUpShort,
    hpa::kRescale,         hpa::kCompensation,
};

}  // namespace drsim::event_kinds

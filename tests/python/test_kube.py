"""drsim.kube: the Kubernetes control plane's pure functions from Python.

Upstream cases are run through the Python API with the fixtures of the C++
ports (tests/kube/replica_calculator_test.cc, tests/kube/hpa_behavior_test.cc),
each under its upstream name, so that a notebook user can trust that the
conversions (units, times, dict shapes) add nothing to the ported arithmetic.
"""

from __future__ import annotations

import datetime
import textwrap
from collections.abc import Sequence
from typing import Any

import pytest

import drsim
from drsim import kube

# ---- replica calculation fixtures (replica_calculator_test.cc) ---------------------
#
# Upstream's pods have two containers, "container1" and "container2", each with
# the pod's CPU request; a whole-pod sample is the sum over both containers.
# Times upstream leaves unset are Go's zero time (0 here) with now = 1 h; its
# "hot" pods start at now, "cool" ones 3 min before. Its tests run with a 2 min
# CPU initialisation period and a 10 s readiness delay.

NOW = 3600.0
HOT = NOW
COOL = NOW - 180.0
CONTAINERS = 2
UPSTREAM_OPTIONS: dict[str, Any] = {"cpu_initialization_period": "2m", "initial_readiness_delay": 10.0}


def upstream_pods(
    count: int,
    requests_milli: Sequence[int],
    readiness: Sequence[bool] = (),
    start_times: Sequence[float] = (),
    phases: Sequence[str] = (),
    deleting: Sequence[bool] = (),
) -> list[dict[str, Any]]:
    pods = []
    for i in range(max(count, len(phases))):
        request = {"cpu_request": f"{requests_milli[i]}m"} if i < len(requests_milli) else {}
        pods.append(
            {
                "name": f"test-pod-{i}",
                "phase": phases[i] if i < len(phases) else "Running",
                "ready": readiness[i] if i < len(readiness) else True,
                "ready_transition": 0.0,
                "start_time": start_times[i] if i < len(start_times) else 0.0,
                "deleting": deleting[i] if i < len(deleting) else False,
                "containers": [{"name": name, **request} for name in ("container1", "container2")],
            }
        )
    return pods


def pod_samples(levels_milli: list[int], per_pod: int = CONTAINERS) -> list[dict[str, Any]]:
    """Whole-pod samples: each container's level, summed over the pod's containers."""
    return [
        {"pod": f"test-pod-{i}", "value": f"{per_pod * level}m", "timestamp": 0.0, "window": 60.0}
        for i, level in enumerate(levels_milli)
    ]


def utilization_case(
    current: int, pods: list[dict[str, Any]], samples: list[dict[str, Any]], target: int, **kw: Any
) -> kube.ReplicaCalculation:
    return kube.replica_calculation(
        current, target_utilization=target, pods=pods, metrics=samples, now=NOW, **UPSTREAM_OPTIONS, **kw
    )


def expect(calc: kube.ReplicaCalculation, replicas: int, utilization: int | None, raw_milli: int) -> None:
    assert (calc.replicas, calc.utilization, calc.usage_milli) == (replicas, utilization, raw_milli)
    assert calc.timestamp == 0.0


# upstream: TestReplicaCalcScaleUp
def test_upstream_scale_up() -> None:
    calc = utilization_case(3, upstream_pods(3, [1000] * 3), pod_samples([300, 500, 700]), 30)
    expect(calc, 5, 50, CONTAINERS * 500)
    assert calc.usage == pytest.approx(1.0)  # cores per pod
    assert calc.groups == kube.PodGroups(ready_count=3, unready=[], missing=[], ignored=[])


# upstream: TestReplicaCalcContainerScaleUp (a ContainerResource metric on container2)
def test_upstream_container_scale_up() -> None:
    samples = pod_samples([300, 500, 700], per_pod=1)  # container2's usage only
    expect(utilization_case(3, upstream_pods(3, [1000] * 3), samples, 30, container="container2"), 5, 50, 500)


# upstream: TestReplicaCalcScaleUpUnreadyLessScale
def test_upstream_scale_up_unready_less_scale() -> None:
    pods = upstream_pods(3, [1000] * 3, readiness=[False, True, True])
    calc = utilization_case(3, pods, pod_samples([300, 500, 700]), 30)
    expect(calc, 4, 60, CONTAINERS * 600)
    assert calc.groups is not None and calc.groups.unready == ["test-pod-0"]


# upstream: TestReplicaCalcScaleUpHotCpuLessScale
def test_upstream_scale_up_hot_cpu_less_scale() -> None:
    pods = upstream_pods(3, [1000] * 3, start_times=[HOT, COOL, COOL])
    expect(utilization_case(3, pods, pod_samples([300, 500, 700]), 30), 4, 60, CONTAINERS * 600)


# upstream: TestReplicaCalcScaleUpIgnoresFailedPods
def test_upstream_scale_up_ignores_failed_pods() -> None:
    pods = upstream_pods(
        2, [1000] * 4, readiness=[True, True, False, False], phases=["Running", "Running", "Failed", "Failed"]
    )
    calc = utilization_case(2, pods, pod_samples([500, 700]), 30)
    expect(calc, 4, 60, CONTAINERS * 600)
    assert calc.groups is not None and calc.groups.ignored == ["test-pod-2", "test-pod-3"]


# upstream: TestReplicaCalcScaleDown
def test_upstream_scale_down() -> None:
    expect(utilization_case(5, upstream_pods(5, [1000] * 5), pod_samples([100, 300, 500, 250, 250]), 50), 3, 28, 560)


# upstream: TestReplicaCalcScaleDownExcludeUnscheduledPods
def test_upstream_scale_down_exclude_unscheduled_pods() -> None:
    pods = upstream_pods(
        5, [1000] * 5, readiness=[True, False, False, False, False], phases=["Running"] + ["Pending"] * 4
    )
    expect(utilization_case(5, pods, pod_samples([100]), 50), 1, 10, CONTAINERS * 100)


# upstream: TestReplicaCalcTolerance
def test_upstream_tolerance() -> None:
    expect(utilization_case(3, upstream_pods(3, [900, 1000, 1100]), pod_samples([1010, 1030, 1020]), 100), 3, 102, 2040)


# upstream: TestReplicaCalcConfigurableTolerance/"Outside of a 0% tolerance"
def test_upstream_configurable_tolerance_outside_zero() -> None:
    calc = utilization_case(3, upstream_pods(3, [900, 1000, 1100]), pod_samples([909, 1010, 1111]), 100, tolerance=0.0)
    expect(calc, 4, 101, CONTAINERS * 1010)


# upstream: TestReplicaCalcConfigurableTolerance/"Within a 36% scale-down tolerance"
def test_upstream_configurable_tolerance_within_scale_down_36() -> None:
    pods, samples = upstream_pods(3, [900, 1000, 1100]), pod_samples([660, 640, 650])
    expect(utilization_case(3, pods, samples, 100, scale_down_tolerance=0.36), 3, 65, 1300)
    # upstream: .../"Outside a 34% scale-down tolerance"
    expect(utilization_case(3, pods, samples, 100, scale_down_tolerance=0.34), 2, 65, 1300)


# upstream: TestReplicaCalcMissingMetrics
def test_upstream_missing_metrics() -> None:
    expect(utilization_case(4, upstream_pods(4, [1000] * 4), pod_samples([400, 95]), 100), 3, 24, 495)


# upstream: TestReplicaCalcDisjointResourcesMetrics and TestReplicaCalcEmptyCPURequest
def test_upstream_errors_raise_with_upstream_messages() -> None:
    samples = [{"pod": "an-older-pod-name", "value": "200m", "timestamp": 0.0}]
    with pytest.raises(kube.ReplicaCalculationError, match="no metrics returned matched known pods"):
        utilization_case(1, upstream_pods(1, [1000]), samples, 100)
    with pytest.raises(kube.ReplicaCalculationError, match="missing request for cpu in container container1"):
        utilization_case(1, upstream_pods(1, []), pod_samples([200]), 100)
    assert issubclass(kube.ReplicaCalculationError, ValueError)


# upstream: TestReplicaCalcScaleUpCM and TestReplicaCalcScaleUpCMUnreadyHotCpuNoLessScale (a Pods metric "qps")
def test_upstream_pods_metric_ignores_readiness() -> None:
    def qps(levels: list[int]) -> list[dict[str, Any]]:
        return [{"pod": f"test-pod-{i}", "value": f"{v}m", "timestamp": 0.0} for i, v in enumerate(levels)]

    calc = kube.replica_calculation(
        3, metric="qps", target_average_value=15, pods=upstream_pods(3, []), metrics=qps([20000, 10000, 30000]), now=NOW
    )
    assert (calc.replicas, calc.usage, calc.utilization) == (4, 20.0, None)
    pods = upstream_pods(3, [], readiness=[True, True, False], start_times=[COOL, COOL, HOT])
    calc = kube.replica_calculation(
        3, metric="qps", target_average_value="15000m", pods=pods, metrics=qps([50000, 10000, 30000]), now=NOW
    )
    assert (calc.replicas, calc.usage_milli) == (6, 30000)


# upstream: TestReplicaCalcScaleUpCMObject, TestReplicaCalcScaleUpCMPerPodObject
def test_upstream_object_metrics() -> None:
    calc = kube.object_metric_replicas(3, value="20000m", target_value=15, pods=upstream_pods(3, []))
    assert (calc.replicas, calc.usage_milli, calc.timestamp) == (4, 20000, None)
    calc = kube.object_metric_replicas(3, value=20, target_average_value=5)
    assert (calc.replicas, calc.usage_milli) == (4, 6667)


# upstream: TestReplicaCalcScaleUpCMExternalIgnoresUnreadyPods ("Would expect 6 if we didn't ignore unready pods")
def test_upstream_external_metric_ignores_unready_pods() -> None:
    pods = upstream_pods(3, [], readiness=[False, True, False])
    calc = kube.external_metric_replicas(3, values=["8600m"], target_value="4400m", pods=pods, metric="qps")
    assert (calc.replicas, calc.usage_milli) == (2, 8600)


# upstream: TestGroupPods/"several pods"
def test_upstream_group_pods_several_pods() -> None:
    pods = [
        {"name": "lucretius", "phase": "Succeeded", "ready": None, "start_time": NOW},
        {"name": "niccolo", "phase": "Succeeded", "ready_transition": NOW - 180, "start_time": NOW - 180},
        {"name": "epicurus", "phase": "Succeeded", "ready": None, "start_time": NOW - 180},
    ]
    samples = [{"pod": name, "value": "1m", "timestamp": 0.0, "window": 0.0} for name in ("lucretius", "niccolo")]
    groups = kube.group_pods(pods, samples, now=NOW, **UPSTREAM_OPTIONS)
    assert groups == kube.PodGroups(ready_count=1, unready=["lucretius"], missing=["epicurus"], ignored=[])


# upstream: TestCalculateRequests/"pod with restartable init containers" (sidecars count, plain init containers not)
def test_upstream_pod_requests_with_restartable_init_containers() -> None:
    pod = {
        "name": "test-pod",
        "containers": [{"name": "container1", "cpu_request": "100m"}],
        "init_containers": [
            {"name": "init-container1", "cpu_request": "20m"},
            {"name": "restartable-container1", "cpu_request": "50m", "restart_always": True},
        ],
    }
    assert kube.pod_requests([pod]) == [pytest.approx(0.15)]


def test_units_and_shorthands() -> None:
    # Cores as floats, millicores as text, timedelta durations and {pod: value} samples agree.
    pods = [{"name": f"web-{i}", "cpu_request": 1} for i in range(3)]
    cores = {"web-0": 0.3, "web-1": 0.5, "web-2": 0.7}
    a = kube.replica_calculation(3, target_utilization=30, pods=pods, metrics=cores, now=3600)
    b = kube.replica_calculation(
        3,
        target_utilization=30,
        pods=pods,
        metrics={"web-0": "300m", "web-1": "500m", "web-2": "700m"},
        now=datetime.timedelta(hours=1),
        cpu_initialization_period=datetime.timedelta(minutes=5),
    )
    assert (a.replicas, a.utilization, a.usage_milli, a.timestamp) == (5, 50, 500, 3600.0)
    assert (b.replicas, b.utilization, b.usage_milli) == (5, 50, 500)
    # Memory in bytes or as a Kubernetes quantity.
    mem_pods = [{"name": "m-0", "memory_request": "1Gi"}]
    calc = kube.replica_calculation(
        1, metric="memory", target_utilization=50, pods=mem_pods, metrics={"m-0": 2**30}, now=0
    )
    assert (calc.replicas, calc.utilization) == (2, 100)


# ---- HPA behavior (hpa_behavior_test.cc) ------------------------------------------------

HPA_NOW = 7200.0  # kNow = 2 h


def uniform_events(changes: list[int], period: int = 120) -> list[tuple[int, float]]:
    """upstream generateEventsUniformDistribution: each event in the middle of its segment of the
    last `period` seconds (truncated to whole seconds), generated 1 us before the code under test runs."""
    segment = period / len(changes)
    return [(c, HPA_NOW - 1e-6 - int(period - segment * (i + 1) + segment / 2)) for i, c in enumerate(changes)]


def rules(pods: int, pods_period: int, percent: int, percent_period: int, window: int) -> dict[str, Any]:
    """upstream generateScalingRules."""
    policies = []
    if pods:
        policies.append({"type": "Pods", "value": pods, "periodSeconds": pods_period})
    if percent:
        policies.append({"type": "Percent", "value": percent, "periodSeconds": percent_period})
    return {"stabilizationWindowSeconds": window, "selectPolicy": "Max", "policies": policies}


@pytest.mark.parametrize(
    "upstream_name, behavior, up_events, down_events, bounds, current, desired, expected, condition",
    [
        ("scaleUp with default behavior", {}, [], [], (1, 1000), 10, 50, 20, "ScaleUpLimit"),
        (
            "scaleUp with pods policy larger than percent policy",
            {"scaleUp": rules(100, 60, 100, 60, 0)},
            [], [], (1, 1000), 10, 500, 110, "ScaleUpLimit",
        ),
        (
            "scaleDown with pod policy limitation",
            {"scaleDown": rules(5, 60, 0, 0, 300)},
            [], [], (1, 1000), 10, 2, 5, "ScaleDownLimit",
        ),
        (
            "scaleDown with percent policy limitation and previous events",
            {"scaleDown": rules(0, 0, 50, 120, 300)},
            [], [2, 4, 6], (1, 1000), 100, 0, 56, "ScaleDownLimit",
        ),
        (
            "scaleDown with percent policy and previous scale up and down events",
            {"scaleDown": rules(0, 0, 50, 180, 0)},
            [2], [4], (1, 1000), 10, 1, 6, "ScaleDownLimit",
        ),
        (
            "desired replica count is more than the maximum replica count",
            {}, [], [], (100, 150), 100, 1000, 150, "TooManyReplicas",
        ),
    ],
)
def test_upstream_scaling_with_rules(
    upstream_name: str,
    behavior: dict[str, Any],
    up_events: list[int],
    down_events: list[int],
    bounds: tuple[int, int],
    current: int,
    desired: int,
    expected: int,
    condition: str,
) -> None:
    # upstream: TestScalingWithRules. With no recommendation remembered, stabilisation keeps the
    # proposal, so normalisation is convertDesiredReplicasWithBehaviorRate.
    history = kube.HpaHistory(scale_up_events=uniform_events(up_events) if up_events else [],
                              scale_down_events=uniform_events(down_events) if down_events else [])
    n = kube.normalize_desired_replicas(current, desired, *bounds, behavior=behavior, history=history, now=HPA_NOW)
    assert (n.desired_replicas, n.limit_reason) == (expected, condition), upstream_name


# upstream: TestNormalizeDesiredReplicasWithBehavior/"simple scale down stabilization"
def test_upstream_simple_scale_down_stabilization() -> None:
    history = kube.HpaHistory(recommendations=[(4, HPA_NOW - 120), (5, HPA_NOW - 60)])
    behavior = {"scaleUp": {"stabilizationWindowSeconds": 0}, "scaleDown": {"stabilizationWindowSeconds": 180}}
    n = kube.normalize_desired_replicas(100, 3, 1, 1000, behavior=behavior, history=history, now=HPA_NOW)
    assert n.stabilized_recommendation == 5
    assert n.able_to_scale == "ScaleDownStabilized"
    assert [r.replicas for r in history.recommendations] == [4, 5, 3]


# upstream: TestNormalizeDesiredReplicasWithBehavior/"simple scale up stabilization"
def test_upstream_simple_scale_up_stabilization() -> None:
    history = kube.HpaHistory(recommendations=[(4, HPA_NOW - 120), (5, HPA_NOW - 60)])
    behavior = {"scaleUp": {"stabilizationWindowSeconds": 300}, "scaleDown": {"stabilizationWindowSeconds": 0}}
    n = kube.normalize_desired_replicas(1, 7, 1, 1000, behavior=behavior, history=history, now=HPA_NOW)
    assert (n.stabilized_recommendation, n.desired_replicas, n.able_to_scale) == (4, 4, "ScaleUpStabilized")
    assert [r.replicas for r in history.recommendations] == [4, 5, 7]


# upstream: TestNormalizeDesiredReplicas/"stabilize - old recommendations" (legacy path, 5 min window)
def test_upstream_legacy_stabilize_old_recommendations() -> None:
    history = kube.HpaHistory(
        recommendations=[(10, HPA_NOW - 600), (4, HPA_NOW - 60), (5, HPA_NOW - 120), (9, HPA_NOW - 540)]
    )
    n = kube.normalize_desired_replicas(10, 3, 1, 100, behavior=None, history=history, now=HPA_NOW)
    assert n.stabilized_recommendation == 5
    assert len(history.recommendations) == 4  # an entry out of the window is reused


# upstream: TestConvertDesiredReplicasWithRules/"scaleUpLimit is the limit because scaleUpLimit < maxReplicas"
# (upstream's test package sets scaleUpLimitFactor = 8)
def test_upstream_legacy_scale_up_limit() -> None:
    n = kube.normalize_desired_replicas(3, 1000, 1, 2000, now=HPA_NOW, scale_up_limit_factor=8)
    assert (n.desired_replicas, n.limit_reason, n.scaling_limited) == (24, "ScaleUpLimit", True)
    assert n.limit_message == "the desired replica count is increasing faster than the maximum scale rate"


# upstream: TestStoreScaleEvents/"one actual entry to be not touched with behavior"
def test_upstream_store_scale_events_keeps_an_actual_entry() -> None:
    behavior = {"scaleUp": rules(10, 60, 100, 60, 0), "scaleDown": rules(10, 60, 100, 60, 0)}
    history = kube.HpaHistory(scale_up_events=[(7, HPA_NOW - 58)])
    history.store_scale_event(10, 15, now=HPA_NOW, behavior=behavior)
    assert [(e.replica_change, e.outdated) for e in history.scale_up_events] == [(7, False), (5, False)]
    assert history.scale_down_events == []
    # upstream: .../"one outdated entry to be replaced with behavior"
    history = kube.HpaHistory(scale_up_events=[(7, HPA_NOW - 61)])
    history.store_scale_event(10, 15, now=HPA_NOW, behavior=behavior)
    assert history.scale_up_events == [kube.HpaScaleEvent(5, HPA_NOW, False)]


# upstream: TestScaleRCImmediately "scale up to min when below min replicas"
def test_upstream_scale_rc_immediately() -> None:
    d = kube.reconcile_replicas(1, 0, 2, 6, now=HPA_NOW)
    assert (d.rescale, d.desired_replicas, d.normalization) == (True, 2, None)
    assert d.reason == "Current number of replicas below Spec.MinReplicas"


# upstream: defaults_test.go TestGenerateScaleUpRules / TestGenerateScaleDownRules "Default values"
def test_upstream_default_rules() -> None:
    resolved = kube.resolve_behavior()
    assert resolved["scaleUp"] == {
        "stabilizationWindowSeconds": 0,
        "selectPolicy": "Max",
        "policies": [
            {"type": "Pods", "value": 4, "periodSeconds": 15},
            {"type": "Percent", "value": 100, "periodSeconds": 15},
        ],
        "tolerance": 0.1,
    }
    assert resolved["scaleDown"]["policies"] == [{"type": "Percent", "value": 100, "periodSeconds": 15}]
    assert resolved["scaleDown"]["stabilizationWindowSeconds"] == 300  # the controller's window
    # The controller's flag, whole seconds; a window the user gave wins, 0 included.
    assert kube.resolve_behavior(downscale_stabilization="90.5s")["scaleDown"]["stabilizationWindowSeconds"] == 90
    given = kube.resolve_behavior(
        {"scaleDown": {"stabilizationWindowSeconds": 0, "tolerance": 0.05}}, downscale_stabilization=90
    )
    assert given["scaleDown"]["stabilizationWindowSeconds"] == 0
    assert given["scaleDown"]["tolerance"] == 0.05
    # The resolved rules are a behavior too, and resolve to themselves.
    assert kube.resolve_behavior(resolved) == resolved


# ---- worked timelines ---------------------------------------------------------------


def test_timeline_default_behavior_one_to_five_in_one_sync() -> None:
    """Default behavior, a huge recommendation from 1 replica: 5 = max(1 + 4 Pods, 1 + 100%) in
    the first sync, then the allowance doubles every 15 s sync up to maxReplicas."""
    history = kube.HpaHistory()
    current, seen = 1, []
    for k in range(7):
        d = kube.reconcile_replicas(current, 1000, 1, 100, behavior={}, history=history, now=HPA_NOW + 15 * k)
        assert d.normalization is not None
        if k == 0:
            assert (d.normalization.limit_reason, d.reason) == ("ScaleUpLimit", "metric above target")
        current = d.desired_replicas
        seen.append(current)
    assert seen == [5, 10, 20, 40, 80, 100, 100]
    assert len(history.scale_up_events) <= 2  # slots out of the 15 s period are reused


def test_timeline_scale_down_held_for_300_seconds() -> None:
    """Default behavior: the proposal drops from 10 to 4 at t = 300 s; the drop is held
    (ScaleDownStabilized) until the last 10 (t = 285 s) is 300 s old, then made in one step."""
    history = kube.HpaHistory()
    current = 10
    for t in range(0, 901, 15):
        d = kube.reconcile_replicas(current, 10 if t < 300 else 4, 1, 20, behavior={}, history=history, now=t)
        assert d.normalization is not None
        if 300 <= t < 585:
            held = (d.rescale, d.desired_replicas, d.normalization.able_to_scale)
            assert held == (False, 10, "ScaleDownStabilized"), t
        elif t == 585:
            assert (d.rescale, d.desired_replicas, d.reason) == (True, 4, "All metrics below target")
        elif t > 585:
            assert (d.rescale, d.desired_replicas) == (False, 4), t
        current = d.desired_replicas
    assert [e.replica_change for e in history.scale_down_events] == [6]
    # The legacy path (no behavior) holds one sync longer: there a recommendation exactly 300 s old still counts.
    legacy, current = kube.HpaHistory(), 10
    for t in range(0, 901, 15):
        current = kube.reconcile_replicas(current, 10 if t < 300 else 4, 1, 20, history=legacy, now=t).desired_replicas
        assert current == (10 if t < 600 else 4), t


# ---- zones ----------------------------------------------------------------------------

NON_FINANCIAL = {"kind": "spread", "minZones": 2, "maxZoneShare": "67%"}


def test_zone_split_twenty_replicas_ten_ten() -> None:
    split = kube.zone_split(NON_FINANCIAL, ["az-a", "az-b"], 20)
    assert split == kube.ZoneSplit(targets={"az-a": 10, "az-b": 10}, placed=20, pending=0, reason="", failed=False)
    equal = kube.zone_split({"kind": "equal", "zones": ["az-a", "az-b"]}, ["az-a", "az-b", "az-c"], 20, fresh=True)
    assert equal.targets == {"az-a": 10, "az-b": 10, "az-c": 0}
    # A fraction is the same share as the percentage text.
    assert kube.zone_split({**NON_FINANCIAL, "maxZoneShare": 0.67}, ["az-a", "az-b"], 20) == split


def test_recommend_policies_after_a_zone_failure() -> None:
    """az-a fails with 10 replicas; 24 are needed; az-b can take 3 more, az-c 20
    (policy_recommendation_test.cc, TwentyReplicasOneZoneDownSurvivorShortOfStock)."""
    zones = [
        {"name": "az-a", "can_take_pods": False, "free_capacity": 40, "current": 10},
        {"name": "az-b", "free_capacity": 3, "current": 10},
        {"name": "az-c", "free_capacity": 20},
    ]
    stuck = kube.zone_split(NON_FINANCIAL, zones, 24)
    assert (stuck.placed, stuck.pending) == (23, 1) and stuck.reason
    recs = kube.recommend_policies(NON_FINANCIAL, zones, 24)
    assert [r.label for r in recs] == ["extend: true", "extend: true, maxZoneShare 100%"]
    best = recs[0]
    assert (best.deviation, best.policy["extend"], best.policy["maxZoneShare"]) == (1, True, pytest.approx(0.67))
    assert best.split.targets == {"az-a": 10, "az-b": 13, "az-c": 1}
    assert best.headroom == {"az-a": 0, "az-b": 0, "az-c": 19}
    assert recs[1].deviation == 3
    # The recommended policy can be used as it is.
    assert kube.zone_split(best.policy, zones, 24).pending == 0
    assert kube.policy_deviation(NON_FINANCIAL, best.policy) == 1
    assert kube.candidate_policies(NON_FINANCIAL, zones)[0] == ("current", recs[0].policy | {"extend": False})
    # User candidates are evaluated too.
    mine = {"kind": "spread", "zones": ["az-b", "az-c"], "minZones": 2, "maxZoneShare": 0.67}
    labels = [r.label for r in kube.recommend_policies(NON_FINANCIAL, zones, 24, candidates={"mine": mine})]
    assert labels == ["extend: true", "mine", "extend: true, maxZoneShare 100%"]


# ---- bad input ----------------------------------------------------------------------------


def calc(**kw: Any) -> kube.ReplicaCalculation:
    """A replica calculation with everything defaulted but what the case changes."""
    args: dict[str, Any] = {"current_replicas": 3, "target_utilization": 50, "pods": [{"name": "a"}], "now": 0}
    args.update(kw)
    return kube.replica_calculation(args.pop("current_replicas"), metrics=args.pop("metrics", {"a": 1}), **args)


def behavior(**rules: Any) -> dict[str, Any]:
    return kube.resolve_behavior(rules)


def one_policy(**policy: Any) -> dict[str, Any]:
    return {"policies": [policy]}


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: calc(target_utilization=None), ValueError, "exactly one of target_utilization"),
        (lambda: calc(current_replicas="3"), TypeError, "current_replicas is an int"),
        (lambda: calc(pods=[{"nme": "a"}]), ValueError, r'pods\[0\]: unknown key "nme", did you mean "name"'),
        (lambda: calc(pods=[{"name": "a", "phase": "Runing"}]), ValueError, r"pods\[0\]\.phase: expected one of"),
        (lambda: calc(metrics={"a": "lots"}), ValueError, r"metrics\[0\]\.value: expected a number or a Kubernetes"),
        (lambda: calc(now="soon"), ValueError, "now: expected a duration"),
        (lambda: calc(metric="qps"), ValueError, "target_utilization needs a cpu or memory metric"),
        (lambda: calc(pods="a"), TypeError, "pods is a list"),
        (lambda: calc(cpu_initialization_period=-1), ValueError, "cpu_initialization_period must not be negative"),
        (
            lambda: behavior(scaleUp={"stabilisationWindowSeconds": 5}),
            ValueError,
            r'behavior\.scaleUp: unknown key "stabilisationWindowSeconds", did you mean "stabilizationWindowSeconds"',
        ),
        (
            lambda: behavior(scaleUp=one_policy(type="Pods", value=0, periodSeconds=15)),
            ValueError,
            r"behavior\.scaleUp\.policies\[0\]\.value: Invalid value: 0: must be greater than zero",
        ),
        (lambda: behavior(scaleDown={"selectPolicy": "Most"}), ValueError, r'selectPolicy: Unsupported value: "Most"'),
        (
            lambda: behavior(scaleUp=one_policy(type="Pods", value="4", periodSeconds=15)),
            TypeError,
            r"policies\[0\]\.value: expected an int, got str",
        ),
        (lambda: behavior(scaleUp=one_policy(type="Pods", value=4)), ValueError, 'missing required key "period'),
        (lambda: kube.resolve_behavior([]), TypeError, "behavior is a dict"),
        (lambda: kube.normalize_desired_replicas(3, 5, 5, 2), ValueError, r"min_replicas \(5\) must not exceed"),
        (lambda: kube.normalize_desired_replicas(3, 5, 1, 10, history=[]), TypeError, "history is an HpaHistory"),
        (lambda: kube.HpaHistory(recommendations=[(4,)]), ValueError, r"expected \(replicas, timestamp\)"),
        (lambda: kube.zone_split({"kind": "sprad"}, ["a"], 3), ValueError, 'policy.kind: expected spread, equal or'),
        (
            lambda: kube.zone_split({"kind": "spread", "maxZoneShare": "150%"}, ["a"], 3),
            ValueError,
            "policy.maxZoneShare: expected a share above 0% and at most 100%",
        ),
        (lambda: kube.zone_split({"minZone": 2}, ["a"], 3), ValueError, r'policy: unknown key "minZone", did you mean'),
        (
            lambda: kube.zone_split(NON_FINANCIAL, [{"name": "a", "current": -1}], 3),
            ValueError,
            r"zones\[0\]\.current: expected an int between 0",
        ),
        (lambda: calc(pods=[{"name": "a", "ready": "maybe"}]), ValueError, r"pods\[0\]\.ready: expected True, False"),
        (lambda: calc(pods=[{"name": "a", "ready": 1}]), TypeError, r"pods\[0\]\.ready: expected True, False"),
        (lambda: calc(pods=[{"name": "a", "start_time": "soon"}]), ValueError, r"pods\[0\]\.start_time: "),
        (lambda: calc(pods=[{"name": "a", "cpu_request": -1}]), ValueError, r"cpu_request: expected a non-negative"),
        (lambda: calc(pods=[{"name": "a", "cpu_request": True}]), TypeError, r"cpu_request: expected a number or"),
        (lambda: calc(pods=[{"phase": "Running"}]), ValueError, r'pods\[0\]: missing required key "name"'),
        (
            lambda: calc(pods=[{"name": "a", "cpu_request": 1, "containers": [{"name": "c"}]}]),
            ValueError,
            r"pods\[0\]\.containers: give either containers or cpu_request",
        ),
        (
            lambda: calc(pods=[{"name": "a", "containers": [{"name": "c", "restart_always": True}]}]),
            ValueError,
            r"pods\[0\]\.containers\[0\]\.restart_always: applies to init containers only",
        ),
        (
            lambda: calc(metrics=[{"pod": "a", "value": 1, "window": -5}]),
            ValueError,
            r"metrics\[0\]\.window: must not be negative",
        ),
        (lambda: calc(metrics=[{"pod": "a"}]), ValueError, r'metrics\[0\]: missing required key "value"'),
        (lambda: calc(target_average_value=2**70, target_utilization=None), ValueError, "fit in int64"),
        (lambda: kube.zone_split(NON_FINANCIAL, [{"zone": "a"}], 3), ValueError, r'zones\[0\]: unknown key "zone"'),
        (
            lambda: kube.recommend_policies(NON_FINANCIAL, ["a"], 3, candidates=[("x",)]),
            TypeError,
            r"candidates\[0\] is a \(label, policy\) pair",
        ),
    ],
)
def test_bad_input_is_reported_clearly(call: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()


def test_quantities_read_exactly_in_every_spelling() -> None:
    """A float, an int and a quantity string of the same amount give the same request (models/kube/kube_quantity.h)."""
    spellings = [0.3, "0.3", "300m", 3e-1, "3e-1"]
    requests = kube.pod_requests([{"name": f"p{i}", "cpu_request": s} for i, s in enumerate(spellings)])
    assert requests == [0.3] * len(spellings)
    assert kube.pod_requests([{"name": "p", "memory_request": "1.5Gi"}], resource="memory") == [1.5 * 2**30]
    assert kube.pod_requests([{"name": "p", "cpu_request": 10**15}]) == [1e15]
    assert kube.pod_requests([{"name": "p", "cpu_request": "1n"}]) == [0.001]  # rounded up to a millicore


def test_record_keys_are_the_field_lists_and_the_docstrings_list_them() -> None:
    """The records are declared once, in C++ (models/kube/kube_records.h); the docs here list the same keys."""
    pod_keys = [key for key, _, _ in kube.record_fields("Pod")]
    assert pod_keys[:3] == ["name", "phase", "ready"]
    assert all(doc for _, doc, _ in kube.record_fields("Pod"))
    assert [key for key, _, required in kube.record_fields("PodMetric") if required] == ["pod", "value"]
    doc = kube.replica_calculation.__doc__ or ""
    for key in pod_keys:
        assert f"``{key}``" in doc, key
    for key, _, _ in kube.record_fields("PodMetric"):
        assert f"``{key}``" in doc, key
    zone_doc = kube.zone_split.__doc__ or ""
    for key, _, _ in kube.record_fields("Zone"):
        assert f"``{key}``" in zone_doc, key
    with pytest.raises(ValueError, match="unknown record"):
        kube.record_fields("Node")


def test_records_accept_any_mapping_and_sequence() -> None:
    """Read-only mappings and tuples are records too, as they were before the field lists read them."""
    import types

    pod = types.MappingProxyType({"name": "a", "cpu_request": "1", "containers": None})
    calc_ = kube.replica_calculation(1, target_utilization=50, pods=(pod,), metrics={"a": 1}, now=3600)
    assert calc_.replicas == 2


def test_module_docstring_example_runs() -> None:
    """The example at the top of drsim.kube is real code with the results its comments give."""
    assert kube.__doc__ is not None
    example = kube.__doc__.split("::\n", 1)[1].split("\nConventions:", 1)[0]
    namespace: dict[str, Any] = {}
    exec(textwrap.dedent(example), namespace)  # noqa: S102 - our own docstring
    assert (namespace["calc"].replicas, namespace["calc"].utilization) == (5, 50)
    assert kube.zone_split(namespace["policy"], ["az-1", "az-2"], 20).targets == {"az-1": 10, "az-2": 10}


# ---- recommend_policy: drsim recommend-policy for a loaded scenario ----------------------------


def test_recommend_policy_for_the_appfabric_scenario(repo_root) -> None:
    # docs/sources.md section 1: 20 replicas at 10/10 under a 67% cap over two zones;
    # zone-a fails and compensation needs 30. The declared policy pends 8;
    # extending to zone-c places them all.
    scenario = drsim.load(repo_root / "scenarios" / "appfabric_az_failure.yaml")
    advice = scenario.recommend_policy("api", "zone-a")
    assert (advice.replicas_now, advice.failed_zone_replicas, advice.needed) == (20, 10, 30)
    assert advice.current["pending"] == 8
    assert "extend is false" in advice.current["reason"]
    assert advice.allowed
    best = advice.candidates[0]
    assert best["label"] == "extend: true"
    assert best["policy"]["extend"] is True
    assert {z["zone"]: z["replicas"] for z in best["split"]} == {"zone-a": 10, "zone-b": 12, "zone-c": 8}
    assert "declared policy" in str(advice)
    # As deployment:policy applies it: a fresh split, zone-a emptied.
    migrated = drsim.kube.recommend_policy(scenario, "api", "zone-a", replicas=25, migrate=True)
    assert migrated.mode == "migrate"
    assert {z["zone"]: z["replicas"] for z in migrated.candidates[0]["split"]}["zone-a"] == 0


def test_recommend_policy_refuses_unknown_names(repo_root) -> None:
    scenario = drsim.load(repo_root / "scenarios" / "appfabric_az_failure.yaml")
    with pytest.raises(ValueError, match="zone-z"):
        scenario.recommend_policy("api", "zone-z")
    with pytest.raises(ValueError, match="payments"):
        scenario.recommend_policy("payments", "zone-a")
    with pytest.raises(TypeError, match="drsim.Scenario"):
        drsim.kube.recommend_policy("scenarios/appfabric_az_failure.yaml", "api", "zone-a")


# ---- several metrics per HPA (tests/kube/hpa_multi_metric_test.cc) --------------------
#
# upstream horizontal_test.go's harness: pods of two containers requesting 500m
# each, started long ago; the CPU samples are the reported levels (each
# container half, in whole millicores); a Pods metric's samples are the levels
# per pod, an External metric's values the levels. drsim's adapter names stand
# in for upstream's "qps", which changes nothing in the arithmetic.

CPU_50 = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}
STATUS_OK = [
    kube.HpaCondition("AbleToScale", True, "SucceededRescale"),
    kube.HpaCondition("ScalingActive", True, "ValidMetricFound"),
    kube.HpaCondition("ScalingLimited", False, "DesiredWithinRange"),
]


def multi_metric_hpa(min_replicas: int, max_replicas: int, metrics: list[dict[str, Any]]) -> kube.HpaController:
    return kube.HpaController(
        {"name": "test-hpa", "target": "test-rc", "minReplicas": min_replicas, "maxReplicas": max_replicas,
         "metrics": metrics}
    )


def harness_sync(hpa: kube.HpaController, spec: int, levels: list[int], readings: list[object]) -> kube.HpaSync:
    return hpa.sync(
        spec,
        pods=upstream_pods(len(levels), [500] * len(levels)),
        cpu=pod_samples([level // 2 for level in levels]),
        readings=readings,
        now=NOW,
        status_replicas=spec,
    )


def not_active(reason: str) -> list[kube.HpaCondition]:
    return [kube.HpaCondition("AbleToScale", True, "SucceededGetScale"), kube.HpaCondition("ScalingActive", False, reason)]


# upstream: TestScaleUpOneMetricInvalid
def test_upstream_scale_up_one_metric_invalid() -> None:
    cpu_30 = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 30}}}
    hpa = multi_metric_hpa(2, 6, [cpu_30, {"type": "CheddarCheese"}])
    r = harness_sync(hpa, 3, [300, 400, 500], [None, None])
    assert (r.desired_replicas, r.rescale) == (4, True)
    assert r.conditions == STATUS_OK
    assert r.metric_proposals == [4, None]
    assert r.invalid_reasons == [None, "InvalidMetricSourceType"]


# upstream: TestNoScaleDownOneMetricInvalid
def test_upstream_no_scale_down_one_metric_invalid() -> None:
    hpa = multi_metric_hpa(2, 6, [CPU_50, {"type": "CheddarCheese"}])
    r = harness_sync(hpa, 5, [100, 300, 500, 250, 250], [None, None])
    assert (r.desired_replicas, r.rescale) == (5, False)
    assert r.conditions == not_active("InvalidMetricSourceType")
    assert r.metric_proposals == [3, None]


# upstream: TestNoScaleDownOneMetricEmpty (the external metrics API fails)
def test_upstream_no_scale_down_one_metric_empty() -> None:
    lag = {"type": "External", "external": {
        "metric": {"name": "kafka_consumer_lag", "selector": {"matchLabels": {"topic": "orders", "group": "billing"}}},
        "target": {"type": "Value", "value": "1000m"}}}
    hpa = multi_metric_hpa(2, 6, [CPU_50, lag])
    r = harness_sync(hpa, 5, [100, 300, 500, 250, 250], [None, "something went wrong"])
    assert r.desired_replicas == 5
    assert r.conditions == not_active("FailedGetExternalMetric")
    # The same HPA with the API answering 300m scales down: both metrics ask for 3 or fewer.
    ok = harness_sync(multi_metric_hpa(2, 6, [CPU_50, lag]), 5, [100, 300, 500, 250, 250], [None, {"values": ["300m"]}])
    assert ok.metric_proposals == [3, 2]
    assert ok.invalid_reasons == [None, None]


# upstream: TestNoBackoffUpscaleCMNoBackoffCpu (a Pods metric and cpu, both valid: the largest wins)
def test_upstream_no_backoff_upscale_cm_no_backoff_cpu() -> None:
    cpu_10 = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 10}}}
    rps = {"type": "Pods", "pods": {"metric": {"name": "requests_per_second"},
                                    "target": {"type": "AverageValue", "averageValue": "15.0"}}}
    hpa = multi_metric_hpa(1, 5, [cpu_10, rps])
    levels = [20000, 10000, 30000]
    samples = [{"pod": f"test-pod-{i}", "value": level / 1000} for i, level in enumerate(levels)]
    r = harness_sync(hpa, 3, levels, [None, {"pods": samples}])
    assert r.desired_replicas == 5
    assert r.metric_proposals == [600, 4]
    assert r.conditions == [
        kube.HpaCondition("AbleToScale", True, "SucceededRescale"),
        kube.HpaCondition("ScalingActive", True, "ValidMetricFound"),
        kube.HpaCondition("ScalingLimited", True, "TooManyReplicas"),
    ]


def test_hpa_controller_checks_the_metric_blocks_as_a_scenario_does() -> None:
    bad = {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "1"}}}
    with pytest.raises(ValueError, match=r"hpa\.metrics\[0\]\.pods\.metric\.name: expected requests_per_second"):
        multi_metric_hpa(1, 5, [bad])
    with pytest.raises(ValueError, match=r"readings\[0\] has unknown keys"):
        multi_metric_hpa(1, 5, [CPU_50]).sync(1, readings=[{"valu": 1}])

"""The Kubernetes control plane's arithmetic, one call at a time.

The pure functions the simulated control plane runs on (``models/kube``),
for checking a case by hand or planning capacity in a notebook: the
HorizontalPodAutoscaler's replica calculation and its behavior (rate limits
and stabilisation windows), the parent scheduler's split of a deployment's
replicas over zones, and the policy changes that let a deployment grow again
after a zone failure. They are ports of the upstream Kubernetes code, case
for case, so a result here is what a real cluster would decide::

    from drsim import kube

    # HPA: 3 pods at 0.3 / 0.5 / 0.7 cores of 1-core requests, target 30 %.
    pods = [{"name": f"web-{i}", "cpu_request": "1"} for i in range(3)]
    calc = kube.replica_calculation(
        3, target_utilization=30, pods=pods,
        metrics={"web-0": 0.3, "web-1": 0.5, "web-2": "700m"}, now=3600)
    calc.replicas, calc.utilization          # (5, 50)

    # What the controller writes: default behavior, a timeline of syncs.
    history = kube.HpaHistory()
    kube.reconcile_replicas(1, 1000, 1, 100, behavior={}, history=history, now=0).desired_replicas   # 5
    kube.resolve_behavior({"scaleDown": {"stabilizationWindowSeconds": 60}})

    # Zones: 20 replicas over two zones, then a zone fails and 10 more are needed.
    policy = {"kind": "equal", "zones": ["az-1", "az-2"]}
    kube.zone_split(policy, ["az-1", "az-2"], 20).targets      # {'az-1': 10, 'az-2': 10}
    zones = [{"name": "az-1", "can_take_pods": False, "current": 10},
             {"name": "az-2", "current": 10}, {"name": "az-3"}]
    [r.label for r in kube.recommend_policies(policy, zones, 30)]

Conventions:

* Times are float seconds since the start of the run (``now``, a pod's
  ``start_time``, a sample's ``timestamp``); durations are seconds, a
  :class:`datetime.timedelta`, or text such as ``"30s"``.
* Quantities are in their natural unit: CPU in cores, memory in bytes, a
  custom or external metric in its own unit (e.g. requests per second). Each
  may also be a Kubernetes quantity string (``"500m"``, ``"512Mi"``, ``"1.5"``).
  They are kept in milli-units, like the controller does, and a value finer
  than a milli-unit rounds up, as ``Quantity.MilliValue()`` does.
* The two Kubernetes objects keep their YAML shape and keys, so they can be
  pasted from a manifest: the HPA ``behavior`` (autoscaling/v2) and the
  deployment policy (the scenario's ``deploymentPolicy``: ``kind``,
  ``zones``, ``minZones``, ``maxZoneShare``, ``extend``, ``maxSkew``,
  ``whenUnsatisfiable``, ``minDomains``). drsim's own records (pods, metric
  samples, zones) are dicts with snake_case keys, documented below.
* Bad input raises :class:`TypeError` (wrong type) or :class:`ValueError`
  (wrong value) naming the argument and key; a replica calculation that
  upstream answers with an error raises :class:`ReplicaCalculationError`
  with upstream's message.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, Union

from drsim import _core

__all__ = [
    "DurationLike",
    "QuantityLike",
    "ReplicaCalculationError",
    "PodGroups",
    "ReplicaCalculation",
    "HpaRecommendation",
    "HpaScaleEvent",
    "HpaHistory",
    "Normalization",
    "ReconcileDecision",
    "ZoneSplit",
    "PolicyRecommendation",
    "group_pods",
    "pod_requests",
    "replica_calculation",
    "record_fields",
    "object_metric_replicas",
    "external_metric_replicas",
    "resolve_behavior",
    "normalize_desired_replicas",
    "reconcile_replicas",
    "HpaCondition",
    "HpaSync",
    "HpaController",
    "zone_split",
    "candidate_policies",
    "policy_deviation",
    "recommend_policies",
    "PolicyAdvice",
    "recommend_policy",
]

#: Seconds, a timedelta, or text with a unit: ``30.0``, ``timedelta(seconds=30)``, ``"30s"``.
DurationLike = Union[float, int, str, datetime.timedelta]
#: A number in the quantity's natural unit, or a Kubernetes quantity: ``0.5``, ``"500m"``, ``"512Mi"``.
QuantityLike = Union[float, int, str]

_CPU_INITIALIZATION_PERIOD = 300.0  # --horizontal-pod-autoscaler-cpu-initialization-period
_INITIAL_READINESS_DELAY = 30.0  # --horizontal-pod-autoscaler-initial-readiness-delay
_DOWNSCALE_STABILIZATION = 300.0  # --horizontal-pod-autoscaler-downscale-stabilization
_TOLERANCE = 0.1  # --horizontal-pod-autoscaler-tolerance
_INT32_MAX = 2**31 - 1
_NS_PER_S = 1_000_000_000


class ReplicaCalculationError(ValueError):
    """The replica calculation failed the way upstream's does (no metrics,
    a missing request, ...); the message is upstream's."""


# ---- argument checking ------------------------------------------------------


def _int(value: object, name: str, minimum: int = 0, maximum: int = _INT32_MAX) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} is an int, not {type(value).__name__}")
    number = int(value)
    if number < minimum or number > maximum:
        raise ValueError(f"{name} must be between {minimum} and {maximum}, got {number}")
    return number


def _bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} is a bool, not {type(value).__name__}")
    return value


def _str(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} is a str, not {type(value).__name__}")
    return value


def _number(value: object, name: str, minimum: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} is a number, not {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) or number < minimum:
        raise ValueError(f"{name} must be a finite number of at least {minimum:g}, got {value!r}")
    return number


def _seconds(value: DurationLike, name: str, *, negative_ok: bool = False) -> float:
    """Float seconds of a duration or a time since the start of the run."""
    if isinstance(value, str):
        try:
            ns = int(_core.parse_duration_ns(value))
        except ValueError as e:
            raise ValueError(f"{name}: {e}") from None
        seconds = ns / _NS_PER_S
    elif isinstance(value, datetime.timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} is seconds, a timedelta or text such as '30s', not {type(value).__name__}")
    else:
        seconds = float(value)
    if not math.isfinite(seconds) or abs(seconds) >= 9.2e9:
        raise ValueError(f"{name} must be a finite number of seconds (within 292 years), got {value!r}")
    if seconds < 0 and not negative_ok:
        raise ValueError(f"{name} must not be negative, got {value!r}")
    return seconds


def _milli(value: QuantityLike, name: str, *, positive: bool = False) -> int:
    """Milli-units of a quantity, rounded up as Quantity.MilliValue() (models/kube/kube_quantity.h)."""
    milli = int(_core.kube_quantity_milli(value, name))
    if positive and milli == 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return milli


def _mapping(value: object, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} is a dict, not {type(value).__name__}")
    return value


def _records(value: object, name: str) -> list[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} is a list, not {type(value).__name__}")
    return list(value)


def _plain(value: Any) -> Any:
    """A YAML-shaped object as plain dicts and lists, for _core."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _yaml_object(value: object, name: str) -> dict[str, Any]:
    return _plain(_mapping(value, name))


def _tolerances(tolerance: float, scale_up: float | None, scale_down: float | None) -> tuple[float, float]:
    both = _number(tolerance, "tolerance")
    up = both if scale_up is None else _number(scale_up, "scale_up_tolerance")
    down = both if scale_down is None else _number(scale_down, "scale_down_tolerance")
    return up, down


# ---- pods, samples and zones: drsim's records ---------------------------------
#
# Their keys, defaults and checks are the C++ field lists' (models/kube/kube_records.h), read by _core; here
# only the shorthands a notebook writes are expanded: {pod: value} for fresh samples, a zone by its name.


def _pods(pods: object) -> list[Any]:
    return _plain(_records(pods, "pods"))


def _metrics(metrics: object) -> list[Any]:
    """Samples as a list of dicts, or {pod: value} for samples taken at ``now``."""
    if isinstance(metrics, Mapping):
        return [{"pod": pod, "value": value} for pod, value in metrics.items()]
    return _plain(_records(metrics, "metrics"))


def _zones(zones: object) -> list[Any]:
    return [{"name": z} if isinstance(z, str) else _plain(z) for z in _records(zones, "zones")]


def record_fields(record: str) -> list[tuple[str, str, bool]]:
    """The keys of one of drsim's records, ``"Pod"``, ``"Container"``,
    ``"PodMetric"`` or ``"Zone"``: (key, what it holds, required), in order."""
    fields = _core.kube_record_fields(_str(record, "record"))
    return [(str(key), str(doc), bool(required)) for key, doc, required in fields]


# ---- replica calculation ---------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PodGroups:
    """How the calculation sorted the pods for one metric (upstream groupPods)."""

    ready_count: int  #: pods whose sample is used as it is
    unready: list[str]  #: pending, or (CPU only) unready or too young for their sample to be trusted
    missing: list[str]  #: listed pods without a sample
    ignored: list[str]  #: pods being deleted, or failed


@dataclasses.dataclass(frozen=True)
class ReplicaCalculation:
    """What the HPA's replica calculation proposes for one metric."""

    replicas: int  #: desired replicas (before the behavior's limits and stabilisation)
    utilization: int | None  #: percent of requests (Utilization targets only), truncated
    usage: float  #: average usage per pod (or the metric's value), in the metric's unit
    usage_milli: int  #: the same in milli-units, exactly as upstream computes it
    timestamp: float | None  #: the samples' timestamp, seconds; None where upstream has the zero time
    groups: PodGroups | None  #: how the pods were sorted (per-pod metrics only)


def _resource(metric: str) -> str | None:
    """_core's resource for a metric name: cpu and memory are Resource metrics, anything else a Pods metric."""
    _str(metric, "metric")
    if not metric:
        raise ValueError("metric must not be empty")
    return metric if metric in ("cpu", "memory") else None


def _checked(result: dict[str, Any]) -> dict[str, Any]:
    if "error" in result:
        raise ReplicaCalculationError(result["error"])
    return result


def group_pods(
    pods: Iterable[Mapping[str, Any]],
    metrics: Iterable[Mapping[str, Any]] | Mapping[str, QuantityLike],
    *,
    now: DurationLike,
    metric: str = "cpu",
    cpu_initialization_period: DurationLike = _CPU_INITIALIZATION_PERIOD,
    initial_readiness_delay: DurationLike = _INITIAL_READINESS_DELAY,
) -> PodGroups:
    """Sorts pods as the HPA does before averaging a metric (upstream groupPods).

    The readiness rules apply to ``metric="cpu"`` only: a pod's CPU sample is
    left out while the pod is unready, or within ``cpu_initialization_period``
    of its start unless it is ready and the sample was taken a full window
    after it became ready. Pods and metrics are as for :func:`replica_calculation`.
    """
    t = _seconds(now, "now", negative_ok=True)
    groups = _core.kube_group_pods(
        _pods(pods),
        _metrics(metrics),
        _resource(metric),
        t,
        _seconds(cpu_initialization_period, "cpu_initialization_period"),
        _seconds(initial_readiness_delay, "initial_readiness_delay"),
    )
    return PodGroups(**groups)


def pod_requests(
    pods: Iterable[Mapping[str, Any]],
    *,
    resource: str = "cpu",
    container: str | None = None,
    pod_level_resources: bool = True,
) -> list[float]:
    """Each pod's request for ``resource`` (cores, or bytes for memory), as the
    HPA computes it for a Utilization target (upstream calculateRequests): the
    named ``container``'s, else the pod-level request (when set and
    ``pod_level_resources``), else the sum over containers and sidecar init
    containers. Raises :class:`ReplicaCalculationError` for a missing request."""
    if resource not in ("cpu", "memory"):
        raise ValueError(f"resource must be 'cpu' or 'memory', got {resource!r}")
    result = _core.kube_pod_requests(
        _pods(pods),
        "" if container is None else _str(container, "container"),
        resource,
        _bool(pod_level_resources, "pod_level_resources"),
    )
    if isinstance(result, dict):  # _core answers a missing request with {"error": ...}
        raise ReplicaCalculationError(result.get("error", "no pod request"))
    return [milli / 1000 for milli in result]


def replica_calculation(
    current_replicas: int,
    *,
    pods: Iterable[Mapping[str, Any]],
    metrics: Iterable[Mapping[str, Any]] | Mapping[str, QuantityLike],
    now: DurationLike,
    target_utilization: int | None = None,
    target_average_value: QuantityLike | None = None,
    metric: str = "cpu",
    container: str | None = None,
    tolerance: float = _TOLERANCE,
    scale_up_tolerance: float | None = None,
    scale_down_tolerance: float | None = None,
    cpu_initialization_period: DurationLike = _CPU_INITIALIZATION_PERIOD,
    initial_readiness_delay: DurationLike = _INITIAL_READINESS_DELAY,
    pod_level_resources: bool = True,
) -> ReplicaCalculation:
    """The HPA's desired replicas for one per-pod metric (upstream replica_calculator.go).

    ``metric`` is ``"cpu"`` or ``"memory"`` for a Resource metric (with
    ``container``: a ContainerResource metric) or any other name for a Pods
    (custom) metric. Give exactly one target: ``target_utilization``, percent
    of the pods' requests (Resource metrics only), or ``target_average_value``
    per pod, in the metric's unit (cores, bytes, or the custom metric's unit).

    ``pods``: what the HPA's selector lists, one dict each:

    =================== ======================================================
    ``name``            required
    ``phase``           ``"Running"`` (default), ``"Pending"``, ``"Succeeded"``, ``"Failed"``, ``"Unknown"``
    ``ready``           the Ready condition: True (default), False, ``"Unknown"``, or None for none
    ``ready_transition`` when readiness last changed, seconds (default 0)
    ``start_time``      when the pod started, seconds (default 0; None: not started)
    ``deleting``        a deletion timestamp is set (default False)
    ``cpu_request``     cores (``0.5``, ``"500m"``) of its one container "main"; absent: not set
    ``memory_request``  bytes (``536870912``, ``"512Mi"``) of that container
    ``containers``      instead of the two above: ``[{name, cpu_request, memory_request}]``
    ``init_containers`` ``[{name, cpu_request, memory_request, restart_always}]``; sidecars count
    ``pod_cpu_request``, ``pod_memory_request``  pod-level requests (KEP-2837)
    =================== ======================================================

    ``metrics``: one sample per pod as the metrics API returns it (already
    summed over containers, or the one container's), either ``{pod: value}``
    (fresh samples taken at ``now``) or a list of dicts with ``pod``,
    ``value`` (the metric's unit), ``timestamp`` (seconds, default ``now``)
    and ``window`` (the sample's window, default 60 s).

    ``tolerance`` is the band around the target within which nothing
    changes (``scale_up_tolerance`` / ``scale_down_tolerance`` set one side);
    ``cpu_initialization_period`` and ``initial_readiness_delay`` are the
    controller's flags (300 s and 30 s by default). Raises
    :class:`ReplicaCalculationError` where upstream returns an error.
    """
    current = _int(current_replicas, "current_replicas")
    t = _seconds(now, "now", negative_ok=True)
    resource = _resource(metric)
    if (target_utilization is None) == (target_average_value is None):
        raise ValueError("give exactly one of target_utilization (percent) and target_average_value")
    if container is not None and (resource is None or target_utilization is None):
        raise ValueError("container applies to a cpu or memory metric with target_utilization (ContainerResource)")
    up, down = _tolerances(tolerance, scale_up_tolerance, scale_down_tolerance)
    pod_list, sample_list = _pods(pods), _metrics(metrics)
    init = _seconds(cpu_initialization_period, "cpu_initialization_period")
    delay = _seconds(initial_readiness_delay, "initial_readiness_delay")
    level = _bool(pod_level_resources, "pod_level_resources")
    utilization: int | None = None
    if target_utilization is not None:
        if resource is None:
            raise ValueError(
                f"target_utilization needs a cpu or memory metric; {metric!r} is a Pods metric: "
                "use target_average_value"
            )
        target = _int(target_utilization, "target_utilization", minimum=1)
        result = _checked(
            _core.kube_resource_utilization_replicas(
                current, target, resource, container or "", pod_list, sample_list, t, up, down, init, delay, level
            )
        )
        utilization = result["utilization"]
    else:
        average = _milli(target_average_value, "target_average_value", positive=True)  # type: ignore[arg-type]
        if resource is None:
            result = _core.kube_pods_metric_replicas(current, average, metric, pod_list, sample_list, t, up, down)
        else:
            result = _core.kube_raw_resource_replicas(
                current, average, resource, pod_list, sample_list, t, up, down, init, delay, level
            )
        _checked(result)
    groups = PodGroups(**_core.kube_group_pods(pod_list, sample_list, resource, t, init, delay))
    return ReplicaCalculation(
        replicas=result["replicas"],
        utilization=utilization,
        usage=result["usage_milli"] / 1000,
        usage_milli=result["usage_milli"],
        timestamp=result["timestamp"],
        groups=groups,
    )


def _calculation(result: dict[str, Any]) -> ReplicaCalculation:
    _checked(result)
    return ReplicaCalculation(
        replicas=result["replicas"],
        utilization=None,
        usage=result["usage_milli"] / 1000,
        usage_milli=result["usage_milli"],
        timestamp=result["timestamp"],
        groups=None,
    )


def object_metric_replicas(
    current_replicas: int,
    *,
    value: QuantityLike,
    target_value: QuantityLike | None = None,
    target_average_value: QuantityLike | None = None,
    pods: Iterable[Mapping[str, Any]] = (),
    timestamp: DurationLike = 0.0,
    tolerance: float = _TOLERANCE,
    scale_up_tolerance: float | None = None,
    scale_down_tolerance: float | None = None,
) -> ReplicaCalculation:
    """Desired replicas for an Object metric (a value describing another
    object, e.g. an Ingress's requests per second).

    With ``target_value`` the replicas scale by value / target over the
    ready ``pods`` (upstream GetObjectMetricReplicas; ``current_replicas`` 0
    is scale-to-zero: ceil(value / target)). With ``target_average_value``
    the value is divided by the replicas (GetObjectPerPodMetricReplicas;
    ``pods`` unused, ``timestamp`` is the sample's)."""
    current = _int(current_replicas, "current_replicas")
    usage = _milli(value, "value")
    up, down = _tolerances(tolerance, scale_up_tolerance, scale_down_tolerance)
    if (target_value is None) == (target_average_value is None):
        raise ValueError("give exactly one of target_value and target_average_value")
    if target_value is not None:
        target = _milli(target_value, "target_value", positive=True)
        return _calculation(_core.kube_object_metric_replicas(current, target, usage, _pods(pods), up, down))
    average = _milli(target_average_value, "target_average_value", positive=True)  # type: ignore[arg-type]
    t = _seconds(timestamp, "timestamp", negative_ok=True)
    return _calculation(_core.kube_object_per_pod_metric_replicas(current, average, usage, t, up, down))


def external_metric_replicas(
    current_replicas: int,
    *,
    values: Iterable[QuantityLike],
    target_value: QuantityLike | None = None,
    target_average_value: QuantityLike | None = None,
    pods: Iterable[Mapping[str, Any]] = (),
    metric: str = "external",
    timestamp: DurationLike = 0.0,
    tolerance: float = _TOLERANCE,
    scale_up_tolerance: float | None = None,
    scale_down_tolerance: float | None = None,
) -> ReplicaCalculation:
    """Desired replicas for an External metric (e.g. a queue's length): the
    sum of ``values`` against ``target_value`` over the ready ``pods``
    (upstream GetExternalMetricReplicas) or against ``target_average_value``
    per replica (GetExternalPerPodMetricReplicas; ``pods`` unused).
    ``metric`` only names the metric in error messages."""
    current = _int(current_replicas, "current_replicas")
    milli = [_milli(v, f"values[{i}]") for i, v in enumerate(_records(values, "values"))]
    name = _str(metric, "metric")
    up, down = _tolerances(tolerance, scale_up_tolerance, scale_down_tolerance)
    if (target_value is None) == (target_average_value is None):
        raise ValueError("give exactly one of target_value and target_average_value")
    if target_value is not None:
        target = _milli(target_value, "target_value", positive=True)
        return _calculation(_core.kube_external_metric_replicas(current, target, name, milli, _pods(pods), up, down))
    average = _milli(target_average_value, "target_average_value", positive=True)  # type: ignore[arg-type]
    t = _seconds(timestamp, "timestamp", negative_ok=True)
    return _calculation(_core.kube_external_per_pod_metric_replicas(current, average, name, milli, t, up, down))


# ---- HPA behavior and normalisation ---------------------------------------------------


class HpaRecommendation(NamedTuple):
    """One remembered replica recommendation."""

    replicas: int
    timestamp: float  #: seconds


class HpaScaleEvent(NamedTuple):
    """One remembered rescale (kept apart for up and down)."""

    replica_change: int  #: always positive
    timestamp: float  #: seconds
    outdated: bool = False  #: older than the longest policy period; the slot may be reused


def _behavior(behavior: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return None if behavior is None else _yaml_object(behavior, "behavior")


def _history_entries(entries: Iterable[Any], name: str, kind: type[HpaRecommendation] | type[HpaScaleEvent]
                     ) -> list[Any]:
    out: list[Any] = []
    for i, entry in enumerate(_records(entries, name)):
        where = f"{name}[{i}]"
        if isinstance(entry, (str, bytes)) or not isinstance(entry, Iterable):
            raise TypeError(f"{where} is a {kind.__name__} or a tuple, not {type(entry).__name__}")
        fields = tuple(entry)
        if not 2 <= len(fields) <= len(kind._fields):
            raise ValueError(f"{where}: expected ({', '.join(kind._fields)}), got {entry!r}")
        first = _int(fields[0], f"{where}.{kind._fields[0]}")
        when = _seconds(fields[1], f"{where}.timestamp", negative_ok=True)
        rest = tuple(_bool(v, f"{where}.outdated") for v in fields[2:])
        out.append((first, when, *rest))
    return out


class HpaHistory:
    """What the HPA controller remembers about one HPA between syncs: its
    recent recommendations (for the stabilisation windows) and its scale-up
    and scale-down events (for the policies' rate limits).

    Pass the same object to successive :func:`normalize_desired_replicas` or
    :func:`reconcile_replicas` calls to replay a timeline of syncs. It can be
    seeded, e.g. ``HpaHistory(recommendations=[(4, 3480), (5, 3540)])``, with
    ``(replicas, timestamp)`` and ``(replica_change, timestamp[, outdated])``
    tuples, timestamps in seconds."""

    def __init__(
        self,
        recommendations: Iterable[tuple[int, DurationLike]] = (),
        scale_up_events: Iterable[tuple[Any, ...]] = (),
        scale_down_events: Iterable[tuple[Any, ...]] = (),
    ) -> None:
        self._core = _core.HpaScalingHistory()
        self.recommendations = recommendations  # type: ignore[assignment]
        self.scale_up_events = scale_up_events  # type: ignore[assignment]
        self.scale_down_events = scale_down_events  # type: ignore[assignment]

    @property
    def recommendations(self) -> list[HpaRecommendation]:
        return [HpaRecommendation(*r) for r in self._core.recommendations]

    @recommendations.setter
    def recommendations(self, entries: Iterable[tuple[int, DurationLike]]) -> None:
        self._core.recommendations = _history_entries(entries, "recommendations", HpaRecommendation)

    @property
    def scale_up_events(self) -> list[HpaScaleEvent]:
        return [HpaScaleEvent(*e) for e in self._core.scale_up_events]

    @scale_up_events.setter
    def scale_up_events(self, entries: Iterable[tuple[Any, ...]]) -> None:
        self._core.scale_up_events = _history_entries(entries, "scale_up_events", HpaScaleEvent)

    @property
    def scale_down_events(self) -> list[HpaScaleEvent]:
        return [HpaScaleEvent(*e) for e in self._core.scale_down_events]

    @scale_down_events.setter
    def scale_down_events(self, entries: Iterable[tuple[Any, ...]]) -> None:
        self._core.scale_down_events = _history_entries(entries, "scale_down_events", HpaScaleEvent)

    def clear(self) -> None:
        """Forgets everything, as a restarted controller does."""
        self._core.clear()

    def record_initial_recommendation(self, current_replicas: int, now: DurationLike) -> None:
        """The controller's first sync: the current count counts as a recommendation."""
        self._core.record_initial_recommendation(
            _int(current_replicas, "current_replicas"), _seconds(now, "now", negative_ok=True)
        )

    def store_scale_event(
        self,
        prev_replicas: int,
        new_replicas: int,
        *,
        now: DurationLike,
        behavior: Mapping[str, Any] | None = None,
        downscale_stabilization: DurationLike = _DOWNSCALE_STABILIZATION,
    ) -> None:
        """Records a rescale, as the controller does after a successful update
        (nothing is stored without ``behavior``: the legacy path reads no events)."""
        self._core.store_scale_event(
            _behavior(behavior),
            _int(prev_replicas, "prev_replicas"),
            _int(new_replicas, "new_replicas"),
            _seconds(now, "now", negative_ok=True),
            _seconds(downscale_stabilization, "downscale_stabilization"),
        )

    def __repr__(self) -> str:
        return (
            f"HpaHistory(recommendations={self.recommendations!r}, scale_up_events={self.scale_up_events!r}, "
            f"scale_down_events={self.scale_down_events!r})"
        )


@dataclasses.dataclass(frozen=True)
class Normalization:
    """What normalisation made of the metrics' proposal, with the controller's conditions."""

    desired_replicas: int  #: what the controller scales to
    stabilized_recommendation: int  #: after the stabilisation windows, before rate and min/max limits
    able_to_scale: str  #: AbleToScale reason: ReadyForNewScale, ScaleUpStabilized, ScaleDownStabilized
    able_to_scale_message: str
    scaling_limited: bool  #: ScalingLimited status: the limits changed the stabilised recommendation
    limit_reason: str  #: DesiredWithinRange, ScaleUpLimit, ScaleDownLimit, TooManyReplicas, TooFewReplicas
    limit_message: str


@dataclasses.dataclass(frozen=True)
class ReconcileDecision:
    """One sync's replica decision."""

    desired_replicas: int  #: status.desiredReplicas: the current count when not rescaling
    rescale: bool
    scaling_disabled: bool  #: the target has 0 replicas: the HPA does nothing
    reason: str  #: why it rescales ("All metrics below target", ...); "" when it does not
    normalization: Normalization | None  #: set when the metrics' proposal was normalised


def _replica_bounds(min_replicas: int, max_replicas: int) -> tuple[int, int]:
    low = _int(min_replicas, "min_replicas")
    high = _int(max_replicas, "max_replicas", minimum=1)
    if low > high:
        raise ValueError(f"min_replicas ({low}) must not exceed max_replicas ({high})")
    return low, high


def _history(history: HpaHistory | None) -> HpaHistory:
    if history is None:
        return HpaHistory()
    if not isinstance(history, HpaHistory):
        raise TypeError(f"history is an HpaHistory, not {type(history).__name__}")
    return history


def resolve_behavior(
    behavior: Mapping[str, Any] | None = None,
    *,
    downscale_stabilization: DurationLike = _DOWNSCALE_STABILIZATION,
    tolerance: float = _TOLERANCE,
) -> dict[str, Any]:
    """The effective rules of an HPA ``behavior`` (autoscaling/v2 YAML shape):
    the API server's defaulting (scaleUp: 4 Pods and 100 Percent per 15 s, no
    window; scaleDown: 100 Percent per 15 s), the controller's scale-down window
    (``downscale_stabilization``, whole seconds) where none is given, and each
    direction's tolerance (the controller's ``tolerance`` where none is given).

    Returns ``{"scaleUp": {...}, "scaleDown": {...}}`` with every field set,
    which can be passed back as a behavior. Raises :class:`ValueError` with the
    API server's messages for an invalid behavior."""
    return dict(
        _core.kube_resolve_behavior(
            _behavior(behavior),
            _seconds(downscale_stabilization, "downscale_stabilization"),
            _number(tolerance, "tolerance"),
        )
    )


def normalize_desired_replicas(
    current_replicas: int,
    desired_replicas: int,
    min_replicas: int,
    max_replicas: int,
    *,
    behavior: Mapping[str, Any] | None = None,
    history: HpaHistory | None = None,
    now: DurationLike = 0.0,
    downscale_stabilization: DurationLike = _DOWNSCALE_STABILIZATION,
    scale_up_limit_factor: float = 2.0,
) -> Normalization:
    """What the controller does with the metrics' proposal ``desired_replicas``
    (upstream normalizeDesiredReplicas[WithBehaviors]).

    ``behavior=None`` is an HPA without a ``behavior`` section, the legacy path:
    the highest recommendation of the last ``downscale_stabilization``, clamped
    to [min, max] and to max(``scale_up_limit_factor`` x current, 4). A dict,
    even ``{}``, is the HPA's behavior (see :func:`resolve_behavior`): the
    stabilisation windows, then the policies' rates given ``history``'s events.

    Records the recommendation in ``history`` (a fresh one when None) at
    ``now``; the scale event is the caller's to store once it rescales
    (:meth:`HpaHistory.store_scale_event`), or use :func:`reconcile_replicas`."""
    low, high = _replica_bounds(min_replicas, max_replicas)
    result = _core.kube_normalize_desired_replicas(
        _history(history)._core,
        _int(current_replicas, "current_replicas"),
        _int(desired_replicas, "desired_replicas"),
        low,
        high,
        _behavior(behavior),
        _seconds(now, "now", negative_ok=True),
        _seconds(downscale_stabilization, "downscale_stabilization"),
        _number(scale_up_limit_factor, "scale_up_limit_factor", minimum=1.0),
    )
    return Normalization(**result)


def reconcile_replicas(
    current_replicas: int,
    metric_desired_replicas: int,
    min_replicas: int,
    max_replicas: int,
    *,
    behavior: Mapping[str, Any] | None = None,
    history: HpaHistory | None = None,
    now: DurationLike = 0.0,
    downscale_stabilization: DurationLike = _DOWNSCALE_STABILIZATION,
) -> ReconcileDecision:
    """One HPA sync's replica decision (upstream reconcileAutoscaler): nothing
    while the target has 0 replicas; a count outside [min, max] corrected at
    once; otherwise :func:`normalize_desired_replicas` of the metrics'
    proposal, and on a rescale the scale event stored in ``history``. Call it
    every 15 s of a timeline with the same ``history`` and the returned
    ``desired_replicas`` as the next ``current_replicas``."""
    low, high = _replica_bounds(min_replicas, max_replicas)
    result = _core.kube_reconcile_replicas(
        _history(history)._core,
        _int(current_replicas, "current_replicas"),
        _int(metric_desired_replicas, "metric_desired_replicas"),
        low,
        high,
        _behavior(behavior),
        _seconds(now, "now", negative_ok=True),
        _seconds(downscale_stabilization, "downscale_stabilization"),
    )
    normalization = result.pop("normalization")
    return ReconcileDecision(**result, normalization=None if normalization is None else Normalization(**normalization))


# ---- one HPA through its syncs: several metrics -------------------------------------


class HpaCondition(NamedTuple):
    """One of the HPA's status.conditions."""

    type: str  #: AbleToScale, ScalingActive or ScalingLimited
    status: bool
    reason: str  #: upstream's reason: SucceededRescale, ValidMetricFound, FailedGetPodsMetric, ...


@dataclasses.dataclass(frozen=True)
class HpaSync:
    """What one sync of an HPA decided."""

    desired_replicas: int  #: status.desiredReplicas: the current count when not rescaling
    rescale: bool
    proposal: int  #: the metrics' largest proposal (the current count when the metrics are invalid)
    message: str
    conditions: list[HpaCondition]  #: status.conditions, in upstream's order
    metric_proposals: list[int | None]  #: per metric: its proposal, None where it was invalid
    invalid_reasons: list[str | None]  #: per metric: why it was invalid, None where it was valid
    utilization: int | None  #: the first valid metric's CPU utilisation, if it is a cpu Utilization metric


def _reading(reading: object, index: int) -> dict[str, Any] | None:
    """A metric's answer: None (a Resource metric), an error text, or a dict."""
    name = f"readings[{index}]"
    if reading is None:
        return None
    if isinstance(reading, str):
        return {"error": reading}
    r = _mapping(reading, name)
    unknown = set(r) - {"pods", "value", "values", "timestamp", "error"}
    if unknown:
        raise ValueError(f"{name} has unknown keys {sorted(unknown)}: pods, value, values, timestamp or error")
    out: dict[str, Any] = {}
    if r.get("error") is not None:
        out["error"] = _str(r["error"], f"{name}.error")
    if "pods" in r:
        out["pods"] = _metrics(r["pods"])
    if r.get("value") is not None:
        out["value_milli"] = _milli(r["value"], f"{name}.value")
    if "values" in r:
        out["values_milli"] = [_milli(v, f"{name}.values[{i}]") for i, v in enumerate(_records(r["values"], name))]
    if r.get("timestamp") is not None:
        out["timestamp"] = _seconds(r["timestamp"], f"{name}.timestamp", negative_ok=True)
    return out


class HpaController:
    """One HorizontalPodAutoscaler through its syncs, as the control plane runs
    it (``models/kube/hpa_controller.h``): every metric proposes a count, the
    largest wins, and when a metric is invalid the HPA scales up on the
    others' word but never down (upstream computeReplicasForMetrics); then
    the behavior or the legacy path normalises, with the HPA's own history.

    ``hpa`` is the HPA in its scenario shape (``name``, ``target``,
    ``minReplicas``, ``maxReplicas``, ``metrics`` as autoscaling/v2
    MetricSpecs, ``behavior``)::

        hpa = kube.HpaController({"name": "web", "target": "web", "minReplicas": 2, "maxReplicas": 6,
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50}}},
                {"type": "Pods", "pods": {"metric": {"name": "requests_per_second"},
                    "target": {"type": "AverageValue", "averageValue": "100"}}}]})
        r = hpa.sync(5, pods=pods, cpu={"web-0": 0.1, ...},
                     readings=[None, "the metrics adapter is down"], now=3600)
        r.desired_replicas, r.conditions    # 5: no scale-down while a metric is invalid

    ``readings`` has one entry per metric: None for a Resource metric (it
    reads ``cpu``), the text of an error for a metrics API that failed, or a
    dict with ``pods`` (a Pods metric's samples, as ``cpu``), ``value`` (an
    Object metric's), ``values`` (an External metric's series) and
    ``timestamp``. A metric without an entry is an API that answered
    nothing."""

    def __init__(
        self,
        hpa: Mapping[str, Any],
        *,
        tolerance: float = _TOLERANCE,
        cpu_initialization_period: DurationLike = _CPU_INITIALIZATION_PERIOD,
        initial_readiness_delay: DurationLike = _INITIAL_READINESS_DELAY,
        downscale_stabilization: DurationLike = _DOWNSCALE_STABILIZATION,
    ) -> None:
        self._core = _core.KubeHpaController(
            _yaml_object(hpa, "hpa"),
            _number(tolerance, "tolerance"),
            _seconds(cpu_initialization_period, "cpu_initialization_period"),
            _seconds(initial_readiness_delay, "initial_readiness_delay"),
            _seconds(downscale_stabilization, "downscale_stabilization"),
        )

    def sync(
        self,
        current_replicas: int,
        *,
        pods: Iterable[Mapping[str, Any]] = (),
        cpu: object = (),
        readings: Iterable[object] = (),
        now: DurationLike = 0.0,
        status_replicas: int | None = None,
    ) -> HpaSync:
        """One reconcile: ``current_replicas`` is the target's spec.replicas,
        ``pods`` the pods it lists, ``cpu`` the resource metrics API's
        samples (cores), ``readings`` the custom and external metrics APIs'
        answers, ``status_replicas`` the target's status.replicas (default:
        the pods listed)."""
        result = self._core.sync(
            _int(current_replicas, "current_replicas"),
            _pods(pods),
            _metrics(cpu),
            [_reading(r, i) for i, r in enumerate(_records(readings, "readings"))],
            _seconds(now, "now", negative_ok=True),
            None if status_replicas is None else _int(status_replicas, "status_replicas"),
        )
        result["conditions"] = [HpaCondition(*c) for c in result["conditions"]]
        return HpaSync(**result)


# ---- zone split and policy recommendation ------------------------------------------


@dataclasses.dataclass(frozen=True)
class ZoneSplit:
    """How many replicas each zone holds under a deployment policy."""

    targets: dict[str, int]  #: zone -> replicas, one per input zone, in input order
    placed: int  #: replicas some zone holds
    pending: int  #: replicas of the desired total that no zone holds
    reason: str  #: the rule that blocked the pending replicas; "" when none pend
    failed: bool  #: the policy could not be satisfied at all: targets are the current assignment


@dataclasses.dataclass(frozen=True)
class PolicyRecommendation:
    """A policy under which every needed replica is placed."""

    label: str  #: what changed, e.g. "extend: true"; "current" for the policy as it is
    policy: dict[str, Any]  #: the policy, in its YAML shape (maxZoneShare as a fraction)
    deviation: int  #: how far it strays from the current policy (points, see policy_recommendation.h)
    split: ZoneSplit
    headroom: dict[str, int | None]  #: zone -> new pods it can still take after the split; None: unlimited


def _policy(policy: object, name: str) -> dict[str, Any]:
    return _yaml_object(policy, name)


def zone_split(
    policy: Mapping[str, Any], zones: Iterable[Mapping[str, Any] | str], desired: int, *, fresh: bool = False
) -> ZoneSplit:
    """The parent scheduler's split of ``desired`` replicas over ``zones``.

    ``policy`` is a deployment policy in its YAML shape, e.g.
    ``{"kind": "spread", "minZones": 2, "maxZoneShare": "67%"}`` (maxZoneShare
    also as a fraction, 0.67). ``zones`` are names or dicts with ``name``,
    ``can_take_pods`` (default True; False for a failed zone),
    ``free_capacity`` (new pods it can take; None, the default: unlimited) and
    ``current`` (replicas it holds now, default 0).

    By default the replica total changed (scale_split): existing replicas stay
    and only the difference moves. ``fresh=True`` is a policy change
    (fresh_split): the split is computed from scratch and a failed zone gets
    none."""
    result = _core.kube_zone_split(
        _policy(policy, "policy"), _zones(zones), _int(desired, "desired", maximum=2**32 - 1), _bool(fresh, "fresh")
    )
    return ZoneSplit(**result)


def candidate_policies(
    current_policy: Mapping[str, Any], zones: Iterable[Mapping[str, Any] | str]
) -> list[tuple[str, dict[str, Any]]]:
    """The built-in candidate policies for ``current_policy`` given which
    ``zones`` survive, as (label, policy) pairs, the current policy first."""
    candidates = _core.kube_candidate_policies(_policy(current_policy, "current_policy"), _zones(zones))
    return [(c["label"], c["policy"]) for c in candidates]


def policy_deviation(from_policy: Mapping[str, Any], to_policy: Mapping[str, Any]) -> int:
    """How far ``to_policy`` strays from ``from_policy``: kind changed 4, extend
    turned on 1, maxZoneShare raised 2, minZones lowered 2 per zone, each zone
    added or dropped 1, maxSkew raised 1, DoNotSchedule -> ScheduleAnyway 2,
    minDomains changed 1, any other field 1."""
    return int(_core.kube_policy_deviation(_policy(from_policy, "from_policy"), _policy(to_policy, "to_policy")))


def recommend_policies(
    current_policy: Mapping[str, Any],
    zones: Iterable[Mapping[str, Any] | str],
    needed: int,
    *,
    migrate: bool = False,
    candidates: Mapping[str, Mapping[str, Any]] | Iterable[tuple[str, Mapping[str, Any]]] | None = None,
) -> list[PolicyRecommendation]:
    """Policies under which all ``needed`` replicas are placed, least deviation first.

    When a zone fails and the deployment must grow, the declared policy may
    forbid it (``equal`` over a zone that is down; ``spread`` without
    ``extend`` while the surviving zones are full). This runs the split under
    the built-in candidates derived from ``current_policy`` (plus the user's
    ``candidates``, a ``{label: policy}`` dict or (label, policy) pairs) and
    keeps those that place every replica. ``zones`` as for :func:`zone_split`
    (capacity, which zones failed, the current assignment); ``needed`` is the
    total wanted (the healthy zones' need plus the failed zone's replicas).
    ``migrate=True`` evaluates each candidate as a policy change computed
    from scratch (the failed zone's pods move) rather than as a scale-out."""
    extra: list[tuple[str, dict[str, Any]]] = []
    if candidates is not None:
        pairs = candidates.items() if isinstance(candidates, Mapping) else _records(candidates, "candidates")
        for i, pair in enumerate(pairs):
            if isinstance(pair, (str, bytes)) or not isinstance(pair, Iterable) or len(tuple(pair)) != 2:
                raise TypeError(f"candidates[{i}] is a (label, policy) pair, not {pair!r}")
            label, policy = tuple(pair)
            extra.append((_str(label, f"candidates[{i}] label"), _policy(policy, f"candidates[{label}]")))
    results = _core.kube_recommend_policies(
        _policy(current_policy, "current_policy"),
        _zones(zones),
        _int(needed, "needed", maximum=2**32 - 1),
        extra,
        _bool(migrate, "migrate"),
    )
    return [PolicyRecommendation(label=r["label"], policy=r["policy"], deviation=r["deviation"],
                                 split=ZoneSplit(**r["split"]), headroom=r["headroom"]) for r in results]


@dataclasses.dataclass(frozen=True)
class PolicyAdvice:
    """``drsim recommend-policy`` for a scenario: what the declared policy
    does with the replicas a failed zone's compensation needs, and the
    candidate policies that place them all, least deviation first.

    ``zones`` lists the parent scheduler's view (``zone``, ``can_take_pods``,
    ``replicas``, ``free_pods``: None for a zone without node pools);
    ``current`` the declared policy's outcome (``placed``, ``pending``,
    ``reason``, ``split``); each of ``candidates`` has ``label``,
    ``deviation``, ``policy`` (YAML shape, ready for a ``deployment:policy``
    step), ``yaml`` and ``split`` (``zone``, ``replicas``, ``headroom``).
    ``text`` is the command's table."""

    service: str
    failed_zone: str
    mode: str
    replicas_now: int
    failed_zone_replicas: int
    needed: int
    allowed: bool
    zones: list[dict[str, Any]]
    current: dict[str, Any]
    candidates: list[dict[str, Any]]
    text: str

    def __str__(self) -> str:
        return self.text


def recommend_policy(
    scenario: Any, service: str, zone: str, *, replicas: int | None = None, migrate: bool = False
) -> PolicyAdvice:
    """The deployment policies that would let ``service`` scale out when
    ``zone`` fails, for a loaded :class:`drsim.Scenario` (its node pools,
    starting replicas and declared policy), as ``drsim recommend-policy``.

    ``replicas`` is the total needed (default: the current replicas plus the
    failed zone's, capacity compensation as docs/sources.md section 1 defines it).
    ``migrate=True`` evaluates each candidate as ``deployment:policy``
    applies it (a fresh split: the failed zone's pods move) rather than as a
    scale-out that keeps them where they are. Raises ValueError for a
    service without a deployment or an unknown zone::

        advice = drsim.kube.recommend_policy(drsim.load("scenarios/appfabric_az_failure.yaml"),
                                             "api", "zone-a", migrate=True)
        advice.candidates[0]["policy"]   # {'kind': 'spread', ..., 'extend': True}
    """
    core = getattr(scenario, "_core", scenario)
    if not isinstance(core, _core.Scenario):
        raise TypeError(f"scenario must be a drsim.Scenario, not {type(scenario).__name__}")
    needed = None if replicas is None else _int(replicas, "replicas", minimum=1, maximum=2**32 - 1)
    text_json, text = _core.advise_policy(
        core, _str(service, "service"), _str(zone, "zone"), needed, _bool(migrate, "migrate")
    )
    data = json.loads(text_json)
    return PolicyAdvice(**data, text=text)

"""Closed-form queueing results: instant capacity answers, no simulation.

The formulas of ``analysis/queueing.h``, the ground truth the simulated
services are validated against::

    from drsim import queueing
    queueing.erlang_c(servers=2, offered_load=1.0)          # 1/3
    queueing.mmc_metrics(arrival_rate="800rps", mean_service="20ms", servers=20)
    queueing.mmck_metrics(arrival_rate=900.0, mean_service=0.02, servers=20, capacity=40)

Notation: arrival rate lambda (per second), mean service time 1/mu, c servers,
offered load a = lambda / mu in Erlangs, utilization a / c. Arguments are
keyword-friendly and take the units of the rest of the Python API: a rate in
requests per second (or text such as ``"800rps"``), a duration in seconds (or a
:class:`datetime.timedelta`, or text such as ``"20ms"``). Results are
:class:`QueueMetrics` with times in float seconds, rounded to the nanosecond
as drsim keeps time.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import numbers
from typing import Union

from drsim import _core

__all__ = ["QueueMetrics", "erlang_b", "erlang_c", "mmc_metrics", "mmck_metrics", "RateLike", "DurationLike"]

#: Requests per second, or text with a unit: ``800.0``, ``"800rps"``, ``"1200/min"``.
RateLike = Union[float, int, str]
#: Seconds, a timedelta, or text with a unit: ``0.02``, ``timedelta(milliseconds=20)``, ``"20ms"``.
DurationLike = Union[float, int, str, datetime.timedelta]

_NS_PER_S = 1_000_000_000
_INT64_MAX = 2**63 - 1


@dataclasses.dataclass(frozen=True)
class QueueMetrics:
    """Steady-state metrics of a queue. Times are seconds."""

    utilization: float  #: mean fraction of the servers busy
    wait_probability: float  #: P(an accepted arrival waits for a server)
    blocking_probability: float  #: P(an arrival is rejected); 0 for an unbounded queue
    throughput: float  #: accepted arrivals per second
    mean_wait: float  #: mean time an accepted arrival waits in the queue, seconds
    mean_response: float  #: mean wait plus service, seconds
    mean_queue_length: float  #: mean number waiting
    mean_in_system: float  #: mean number waiting or in service


def _servers(value: object, name: str = "servers", minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} is an int, not {type(value).__name__}")
    count = int(value)
    if count < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {count}")
    return count


def _offered_load(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"offered_load is a number of Erlangs, not {type(value).__name__}")
    load = float(value)
    if not math.isfinite(load) or load < 0:
        raise ValueError(f"offered_load must be finite and non-negative, got {load!r}")
    return load


def _rate(value: RateLike) -> float:
    if isinstance(value, str):
        rate = float(_core.parse_rate_per_second(value))
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"arrival_rate is requests per second or text such as '800rps', not {type(value).__name__}")
    else:
        rate = float(value)
    if not math.isfinite(rate) or rate < 0:
        raise ValueError(f"arrival_rate must be finite and non-negative, got {value!r}")
    return rate


def _service_ns(value: DurationLike) -> int:
    if isinstance(value, str):
        ns = int(_core.parse_duration_ns(value))
    elif isinstance(value, datetime.timedelta):
        ns = (value // datetime.timedelta(microseconds=1)) * 1_000
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"mean_service is seconds, a timedelta or text such as '20ms', not {type(value).__name__}")
    else:
        seconds = float(value)
        if not math.isfinite(seconds):
            raise ValueError(f"mean_service must be finite, got {value!r}")
        ns = round(seconds * _NS_PER_S)
    if ns <= 0 or ns > _INT64_MAX:
        raise ValueError(f"mean_service must be positive (and at least 1 ns), got {value!r}")
    return ns


def erlang_b(servers: int, offered_load: float) -> float:
    """Erlang B: the probability that an arrival finds all ``servers`` busy
    in an M/M/c/c loss system offered ``offered_load`` Erlangs. ``servers``
    may be 0 (then every arrival is lost)."""
    return float(_core.erlang_b(_servers(servers, minimum=0), _offered_load(offered_load)))


def erlang_c(servers: int, offered_load: float) -> float:
    """Erlang C: the probability that an arrival waits in an M/M/c queue
    offered ``offered_load`` Erlangs. Raises :class:`ValueError` unless
    ``offered_load < servers`` (otherwise the queue grows without bound)."""
    c = _servers(servers)
    a = _offered_load(offered_load)
    if a >= c:
        raise ValueError(f"erlang_c needs offered_load < servers (a stable queue), got {a!r} >= {c}")
    return float(_core.erlang_c(c, a))


def mmc_metrics(*, arrival_rate: RateLike, mean_service: DurationLike, servers: int) -> QueueMetrics | None:
    """M/M/c with an unbounded queue: Poisson arrivals at ``arrival_rate``,
    exponential service of mean ``mean_service`` on ``servers`` servers.
    None when unstable (``arrival_rate * mean_service >= servers``)."""
    metrics = _core.mmc_metrics(_rate(arrival_rate), _service_ns(mean_service), _servers(servers))
    return None if metrics is None else QueueMetrics(**metrics)


def mmck_metrics(*, arrival_rate: RateLike, mean_service: DurationLike, servers: int, capacity: int) -> QueueMetrics:
    """M/M/c/K: like :func:`mmc_metrics`, but at most ``capacity`` requests
    in the system (``servers`` in service plus the queue); arrivals beyond
    are rejected (``blocking_probability``). Stable at any load. Raises
    :class:`ValueError` unless ``servers <= capacity``."""
    c = _servers(servers)
    k = _servers(capacity, "capacity")
    if k < c:
        raise ValueError(f"capacity counts the servers too, so it must be at least servers ({c}), got {k}")
    return QueueMetrics(**_core.mmck_metrics(_rate(arrival_rate), _service_ns(mean_service), c, k))

"""drsim.queueing against closed forms computed here, from the textbook
formulas (Kleinrock, Queueing Systems vol. 1; Gross & Harris), independently
of analysis/queueing.cc's recurrences."""

from __future__ import annotations

import dataclasses
import datetime
import math

import pytest

from drsim import queueing


def erlang_b_direct(c: int, a: float) -> float:
    """B(c, a) = (a^c / c!) / sum_{k=0..c} a^k / k!"""
    return (a**c / math.factorial(c)) / sum(a**k / math.factorial(k) for k in range(c + 1))


def erlang_c_direct(c: int, a: float) -> float:
    """C(c, a) = (a^c / c!) c/(c-a) / (sum_{k<c} a^k/k! + (a^c / c!) c/(c-a))"""
    top = a**c / math.factorial(c) * c / (c - a)
    return top / (sum(a**k / math.factorial(k) for k in range(c)) + top)


def mmck_direct(lam: float, s: float, c: int, k: int) -> dict[str, float]:
    """M/M/c/K from its stationary distribution p_n, summed directly."""
    a = lam * s
    weights = [a**n / math.factorial(n) if n <= c else a**n / (math.factorial(c) * c ** (n - c)) for n in range(k + 1)]
    total = sum(weights)
    p = [w / total for w in weights]
    throughput = lam * (1 - p[k])
    in_system = sum(n * pn for n, pn in enumerate(p))
    in_queue = sum((n - c) * pn for n, pn in enumerate(p) if n > c)
    return {
        "blocking": p[k],
        "throughput": throughput,
        "L": in_system,
        "Lq": in_queue,
        "W": in_system / throughput,
        "Wq": in_queue / throughput,
        "utilization": throughput * s / c,
    }


def test_erlang_c_two_servers_one_erlang_is_one_third() -> None:
    assert queueing.erlang_c(servers=2, offered_load=1.0) == pytest.approx(1 / 3, rel=1e-14)


def test_erlang_b_small_cases() -> None:
    assert queueing.erlang_b(servers=1, offered_load=1.0) == pytest.approx(0.5, rel=1e-14)
    assert queueing.erlang_b(servers=2, offered_load=1.0) == pytest.approx(0.2, rel=1e-14)
    assert queueing.erlang_b(servers=0, offered_load=3.0) == 1.0
    assert queueing.erlang_b(servers=5, offered_load=0.0) == 0.0


@pytest.mark.parametrize("c,a", [(1, 0.5), (3, 2.2), (10, 7.5), (40, 35.0), (100, 80.0)])
def test_erlang_b_and_c_against_direct_sums(c: int, a: float) -> None:
    assert queueing.erlang_b(servers=c, offered_load=a) == pytest.approx(erlang_b_direct(c, a), rel=1e-12)
    assert queueing.erlang_c(servers=c, offered_load=a) == pytest.approx(erlang_c_direct(c, a), rel=1e-12)


def test_erlang_c_of_one_server_is_the_utilization() -> None:
    assert queueing.erlang_c(servers=1, offered_load=0.8) == pytest.approx(0.8, rel=1e-14)


def test_mm1_metrics() -> None:
    # lambda = 8/s, mean service 100 ms: rho = 0.8, W = 1/(mu - lambda) = 0.5 s,
    # Wq = rho / (mu - lambda) = 0.4 s, L = rho / (1 - rho) = 4, Lq = 3.2.
    m = queueing.mmc_metrics(arrival_rate=8.0, mean_service=0.1, servers=1)
    assert m is not None
    assert m.utilization == pytest.approx(0.8, rel=1e-12)
    assert m.wait_probability == pytest.approx(0.8, rel=1e-12)
    assert m.blocking_probability == 0.0
    assert m.throughput == 8.0
    assert m.mean_wait == pytest.approx(0.4, abs=1e-9)  # times are whole nanoseconds
    assert m.mean_response == pytest.approx(0.5, abs=1e-9)
    assert m.mean_queue_length == pytest.approx(3.2, rel=1e-12)
    assert m.mean_in_system == pytest.approx(4.0, rel=1e-12)


def test_mmc_metrics_against_erlang_c() -> None:
    lam, s, c = 800.0, 0.02, 20  # 16 Erlangs on 20 servers
    m = queueing.mmc_metrics(arrival_rate="800rps", mean_service="20ms", servers=c)
    assert m is not None
    pw = erlang_c_direct(c, lam * s)
    wq = pw / (c / s - lam)
    assert m.wait_probability == pytest.approx(pw, rel=1e-12)
    assert m.utilization == pytest.approx(0.8, rel=1e-12)
    assert m.mean_wait == pytest.approx(wq, abs=1e-9)
    assert m.mean_response == pytest.approx(wq + s, abs=1e-9)
    assert m.mean_queue_length == pytest.approx(lam * wq, rel=1e-9)  # Little's law
    # The same queue with the other spellings of its arguments.
    same = queueing.mmc_metrics(arrival_rate="48000/min", mean_service=datetime.timedelta(milliseconds=20), servers=c)
    assert same == m


def test_unstable_mmc_is_none() -> None:
    assert queueing.mmc_metrics(arrival_rate=100.0, mean_service=0.1, servers=10) is None
    assert queueing.mmc_metrics(arrival_rate=101.0, mean_service=0.1, servers=10) is None


@pytest.mark.parametrize("lam,s,c,k", [(5.0, 0.1, 1, 1), (8.0, 0.1, 1, 5), (900.0, 0.02, 20, 40), (50.0, 0.5, 10, 10)])
def test_mmck_metrics_against_the_stationary_distribution(lam: float, s: float, c: int, k: int) -> None:
    m = queueing.mmck_metrics(arrival_rate=lam, mean_service=s, servers=c, capacity=k)
    d = mmck_direct(lam, s, c, k)
    assert m.blocking_probability == pytest.approx(d["blocking"], rel=1e-12)
    assert m.throughput == pytest.approx(d["throughput"], rel=1e-12)
    assert m.mean_in_system == pytest.approx(d["L"], rel=1e-12)
    assert m.mean_queue_length == pytest.approx(d["Lq"], rel=1e-12, abs=1e-15)
    assert m.mean_response == pytest.approx(d["W"], abs=1e-9)
    assert m.mean_wait == pytest.approx(d["Wq"], abs=1e-9)
    assert m.utilization == pytest.approx(d["utilization"], rel=1e-12)


def test_mmcc_blocking_is_erlang_b() -> None:
    m = queueing.mmck_metrics(arrival_rate=50.0, mean_service=0.5, servers=30, capacity=30)
    assert m.blocking_probability == pytest.approx(erlang_b_direct(30, 25.0), rel=1e-12)
    assert m.mean_wait == 0.0


def test_results_are_frozen_values() -> None:
    m = queueing.mmck_metrics(arrival_rate=8.0, mean_service=0.1, servers=1, capacity=5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.throughput = 1.0  # type: ignore[misc]
    assert dataclasses.asdict(m)["throughput"] == m.throughput


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="offered_load < servers"):
        queueing.erlang_c(servers=2, offered_load=2.0)
    with pytest.raises(ValueError, match="at least 1"):
        queueing.erlang_c(servers=0, offered_load=0.5)
    with pytest.raises(TypeError):
        queueing.erlang_b(servers=2.0, offered_load=1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        queueing.erlang_b(servers=True, offered_load=1.0)
    with pytest.raises(ValueError, match="non-negative"):
        queueing.erlang_b(servers=2, offered_load=-1.0)
    with pytest.raises(ValueError, match="non-negative"):
        queueing.erlang_b(servers=2, offered_load=math.nan)
    with pytest.raises(ValueError, match="at least servers"):
        queueing.mmck_metrics(arrival_rate=1.0, mean_service=0.1, servers=4, capacity=3)
    with pytest.raises(ValueError, match="positive"):
        queueing.mmc_metrics(arrival_rate=1.0, mean_service=0.0, servers=1)
    with pytest.raises(ValueError, match="non-negative"):
        queueing.mmc_metrics(arrival_rate=-1.0, mean_service=0.1, servers=1)
    with pytest.raises(ValueError, match="rate"):
        queueing.mmc_metrics(arrival_rate="800", mean_service=0.1, servers=1)
    with pytest.raises(ValueError, match="duration"):
        queueing.mmc_metrics(arrival_rate=1.0, mean_service="20", servers=1)
    with pytest.raises(TypeError):
        queueing.mmc_metrics(1.0, 0.1, 1)  # type: ignore[misc]  # keyword-only

"""drsim.uncertainty end to end, on a case with a known answer.

tests/data/uncertainty/known_answer.yaml: a zone holding every pod of the
only service refuses every request for D seconds at R evenly spaced requests
per second, so the outage's errors are R x D (give or take the one request
at either edge). With R uniform on [100, 200] rps and D uniform on [10, 30] s,
independent, the product's quantiles and its Sobol' indices are closed
forms (computed below from the two uniforms, not from drsim), and the
study's figures must agree with them. A run takes a few milliseconds, so a
study of hundreds of runs is seconds."""

from __future__ import annotations

import json
import math
import os
import pathlib
import subprocess

import numpy as np
import pytest

import drsim
from drsim.uncertainty_inputs import load_ranges

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "uncertainty"
KNOWN = DATA / "known_answer.yaml"
RANGES = DATA / "known_answer_ranges.yaml"
RATE, DURATION = "spec.load[clients].load.rate", "spec.timeline[outage].duration"
R_LO, R_HI, D_LO, D_HI = 100.0, 200.0, 10.0, 30.0
ERRORS = "outage.errors"


def product_cdf(z: float) -> float:
    """P(R D <= z) for R ~ U(R_LO, R_HI), D ~ U(D_LO, D_HI): for each r,
    P(D <= z / r) is (z / r - D_LO) / (D_HI - D_LO) clipped to [0, 1];
    integrated over r in closed form (the antiderivative z ln r - D_LO r)."""
    lo = min(R_HI, max(R_LO, z / D_HI))  # below z / D_HI, D <= z / r always
    hi = min(R_HI, max(R_LO, z / D_LO))  # above z / D_LO, never
    whole = (D_HI - D_LO) * (lo - R_LO)
    part = z * math.log(hi / lo) - D_LO * (hi - lo)
    return (whole + part) / ((R_HI - R_LO) * (D_HI - D_LO))


def product_quantile(p: float) -> float:
    a, b = R_LO * D_LO, R_HI * D_HI
    for _ in range(200):
        mid = 0.5 * (a + b)
        a, b = (mid, b) if product_cdf(mid) < p else (a, mid)
    return 0.5 * (a + b)


def product_indices() -> dict[str, tuple[float, float]]:
    """(first, total) Sobol' indices of R D: V_R = Var R (E D)^2, V_D = Var D
    (E R)^2, the rest Var R Var D is their interaction."""
    er, ed = (R_LO + R_HI) / 2, (D_LO + D_HI) / 2
    vr, vd = (R_HI - R_LO) ** 2 / 12, (D_HI - D_LO) ** 2 / 12
    v = (vr + er ** 2) * (vd + ed ** 2) - (er * ed) ** 2
    return {RATE: (vr * ed ** 2 / v, 1 - vd * er ** 2 / v), DURATION: (vd * er ** 2 / v, 1 - vr * ed ** 2 / v)}


@pytest.fixture(scope="module")
def sobol() -> drsim.Uncertainty:
    return drsim.uncertainty(KNOWN, load_ranges(RANGES), samples=128, seeds=[1], progress=False, workers=2)


def test_the_closed_forms_are_right() -> None:
    # The helpers themselves, against a brute-force grid of the two uniforms.
    r = np.linspace(R_LO, R_HI, 2001)[:, None]
    d = np.linspace(D_LO, D_HI, 2001)[None, :]
    grid = np.quantile((r * d).ravel(), [0.05, 0.5, 0.95])
    assert [product_quantile(p) for p in (0.05, 0.5, 0.95)] == pytest.approx(list(grid), rel=2e-3)
    first, total = zip(*product_indices().values())
    assert first == pytest.approx((0.3, 0.675), abs=1e-9) and total == pytest.approx((0.325, 0.7), abs=1e-9)


def test_the_interval_is_the_products_quantiles(sobol: drsim.Uncertainty) -> None:
    assert len(sobol.points) == 128 * 4 and len(sobol.runs) == 512 and sobol.executed == 512
    low, median, high = sobol.interval(ERRORS)
    # 256 independent Latin hypercube points (A and B): each quantile within 6%.
    assert median == pytest.approx(product_quantile(0.5), rel=0.06)
    assert low == pytest.approx(product_quantile(0.05), rel=0.06)
    assert high == pytest.approx(product_quantile(0.95), rel=0.06)
    row = sobol.summary.loc[ERRORS]
    assert row["n"] == 256 and row["missing"] == 0
    # The RTO is D to the next window: its interval is D's, [11, 29] give or take a window.
    rto_low, _, rto_high = sobol.interval("outage.rto_s")
    assert 10 <= rto_low <= 12 and 28 <= rto_high <= 30


def test_the_sobol_indices_are_the_products(sobol: drsim.Uncertainty) -> None:
    expected = product_indices()
    table = sobol.ranking(ERRORS)
    assert list(table.index) == [DURATION, RATE]  # D drives the errors most
    for path, (first, total) in expected.items():
        row = table.loc[path]
        assert row["first"] == pytest.approx(first, abs=0.1), path
        assert row["total"] == pytest.approx(total, abs=0.1), path
        assert row["total_low"] <= total <= row["total_high"], path
        assert row["first_low"] <= first <= row["first_high"], path
    # The RTO follows D alone: the rate's total index is nil.
    rto = sobol.ranking("outage.rto_s")
    assert rto.index[0] == DURATION and rto.loc[RATE, "total"] < 0.02
    assert rto.loc[DURATION, "total_low"] <= 1.0 <= rto.loc[DURATION, "total_high"]


def test_the_tornado_swings_match_the_product(sobol: drsim.Uncertainty) -> None:
    table = sobol.tornado_table(ERRORS)
    # With D in its lowest fifth (10-14 s) the mean is E[R] x 12 s = 1800; highest fifth 28 s: 4200.
    assert table.loc[DURATION, "low_mean"] == pytest.approx(1800, rel=0.07)
    assert table.loc[DURATION, "high_mean"] == pytest.approx(4200, rel=0.07)
    assert table.loc[RATE, "low_mean"] == pytest.approx(110 * 20, rel=0.07)
    assert table.loc[RATE, "high_mean"] == pytest.approx(190 * 20, rel=0.07)
    fig = sobol.tornado(ERRORS)
    assert len(fig.axes[0].patches) == 2


def test_morris_effects_are_the_products_slopes() -> None:
    m = drsim.uncertainty(KNOWN, load_ranges(RANGES), samples=12, seeds=[1], method="morris", progress=False,
                          workers=2)
    assert len(m.points) == 12 * 3
    # d(errors) / d(rate's unit coordinate) = 100 rps x D; d / d(D's) = 20 s x R. The design's own
    # points say which D and R each step saw: the effects must be those, to the request.
    rates = m.points[RATE].map(lambda v: float(v.removesuffix("rps"))).to_numpy()
    durations = m.points[DURATION].map(lambda v: drsim._core.parse_duration_ns(v) / 1e9).to_numpy()
    rate_effects, duration_effects = [], []
    for t in range(12):
        for s in range(2):
            i = 3 * t + s
            if rates[i] != rates[i + 1]:
                rate_effects.append(100 * durations[i])
            else:
                duration_effects.append(20 * rates[i])
    table = m.ranking(ERRORS)
    assert table.loc[RATE, "mu_star"] == pytest.approx(np.mean(rate_effects), rel=0.01)
    assert table.loc[DURATION, "mu_star"] == pytest.approx(np.mean(duration_effects), rel=0.01)
    assert table.loc[RATE, "mu"] > 0  # more requests, more errors


def test_the_same_study_gives_the_same_tables_on_any_number_of_workers(sobol: drsim.Uncertainty) -> None:
    again = drsim.uncertainty(KNOWN, load_ranges(RANGES), samples=128, seeds=[1], progress=False, workers=1)
    assert again.summary.equals(sobol.summary)
    assert again.sensitivity.equals(sobol.sensitivity)
    assert again.points.equals(sobol.points)
    other = drsim.uncertainty(KNOWN, load_ranges(RANGES), samples=128, seeds=[1], progress=False, workers=2,
                              sampling_seed=1)
    assert not other.points.equals(sobol.points)


def test_seed_noise_is_reported_apart_from_the_inputs() -> None:
    # Poisson arrivals: each seed draws its own requests, so the errors vary between the seeds of one point.
    u = drsim.uncertainty(KNOWN, {RATE: ("100rps", "200rps")}, samples=8, seeds=[1, 2, 3], progress=False,
                          workers=2, method="morris")
    assert u.summary.loc[ERRORS, "noise_share"] == 0  # deterministic arrivals: the seeds agree
    poisson = drsim.load(KNOWN).with_overrides({"spec.load[clients].arrivals": "poisson"})
    u = drsim.uncertainty(poisson, {RATE: ("100rps", "200rps")}, samples=8, seeds=[1, 2, 3], progress=False,
                          workers=2, method="morris")
    share = u.summary.loc[ERRORS, "noise_share"]
    assert 0 < share < 0.2  # sqrt(3000) against a 100 rps x 20 s swing


def test_a_stopped_study_resumes_from_its_folder(tmp_path: pathlib.Path) -> None:
    args = dict(samples=4, seeds=[1, 2], progress=False, workers=2, out=tmp_path / "study")
    first = drsim.uncertainty(KNOWN, load_ranges(RANGES), **args)
    assert first.executed == 32
    lines = (tmp_path / "study" / "runs.jsonl").read_text().splitlines()
    (tmp_path / "study" / "runs.jsonl").write_text("\n".join(lines[:20]) + "\n")
    resumed = drsim.uncertainty(KNOWN, load_ranges(RANGES), **args)
    assert resumed.executed == 12
    assert resumed.summary.equals(first.summary)
    with pytest.raises(ValueError, match="another"):
        drsim.uncertainty(KNOWN, load_ranges(RANGES), **{**args, "samples": 5})


def test_bad_inputs_are_named_before_anything_runs() -> None:
    with pytest.raises(drsim.ScenarioError, match=r"design point 0: spec.load\[nobody\]"):
        drsim.uncertainty(KNOWN, {"spec.load[nobody].load.rate": ("1rps", "2rps")}, samples=4, progress=False)
    with pytest.raises(drsim.ScenarioError, match="design point"):
        drsim.uncertainty(KNOWN, {RATE: (100, 200)}, samples=4, progress=False)  # a rate needs its unit
    with pytest.raises(ValueError, match="method"):
        drsim.uncertainty(KNOWN, {RATE: ("1rps", "2rps")}, method="fast")
    with pytest.raises(ValueError, match="samples"):
        drsim.uncertainty(KNOWN, {RATE: ("1rps", "2rps")}, samples=2)
    with pytest.raises(drsim.RangesError, match="empty"):
        drsim.uncertainty(KNOWN, {})
    with pytest.raises(ValueError, match="seeds"):
        drsim.uncertainty(KNOWN, {RATE: ("1rps", "2rps")}, seeds=[])


def test_the_report_holds_the_tables_and_the_tornados(sobol: drsim.Uncertainty, tmp_path: pathlib.Path) -> None:
    path = drsim.report(sobol, tmp_path / "u.html")
    text = path.read_text()
    for section in ('id="inputs"', 'id="summary"', 'id="tornado"', 'id="sensitivity"', 'id="points"'):
        assert section in text
    assert "tornado of outage.errors" in text and "the test&#x27;s own choice" in text
    assert "<script" not in text


def drsim_cli(*args: str) -> subprocess.CompletedProcess[str]:
    cli = os.environ.get("DRSIM_CLI", str(ROOT / "build" / "cli" / "drsim"))
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=300)


def test_the_command_line_prints_json_and_writes_the_report(tmp_path: pathlib.Path) -> None:
    out = drsim_cli("uncertainty", str(KNOWN), "--ranges", str(RANGES), "--samples", "8", "--seeds", "1",
                    "--json", "--figure", ERRORS, "--report", str(tmp_path / "u.html"), "--workers", "2")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["runs"] == 32 and set(data["summary"]) == {ERRORS}
    assert [i["path"] for i in data["inputs"]] == [RATE, DURATION]
    assert data["sensitivity"][ERRORS][DURATION]["rank"] == 1
    assert (tmp_path / "u.html").is_file()
    text = drsim_cli("uncertainty", str(KNOWN), "--range", f"{DURATION}=10s..30s", "--samples", "4",
                     "--seeds", "1..2", "--method", "morris", "--workers", "2")
    assert text.returncode == 0, text.stderr
    assert "outage.errors" in text.stdout and "Morris mu*" in text.stdout


def test_the_command_line_names_bad_input(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("ranges:\n  - path: spec.a\n    uniform: [3s, 1s]\n")
    out = drsim_cli("uncertainty", str(KNOWN), "--ranges", str(bad))
    assert out.returncode == 2 and f"{bad}:3:14: ranges[0].uniform" in out.stderr, out.stderr
    out = drsim_cli("uncertainty", str(KNOWN))
    assert out.returncode == 2 and "--ranges" in out.stderr
    out = drsim_cli("uncertainty", str(KNOWN), "--range", f"{RATE}=1rps..2rps", "--seeds", "x")
    assert out.returncode == 2 and "--seeds" in out.stderr


@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")  # tornado, under distributed
def test_a_study_on_dask_gives_the_local_tables() -> None:
    distributed = pytest.importorskip("distributed")
    args = dict(samples=4, seeds=[1], progress=False)
    local = drsim.uncertainty(KNOWN, load_ranges(RANGES), workers=1, **args)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        remote = drsim.uncertainty(KNOWN, load_ranges(RANGES), client=client, **args)
    assert remote.summary.equals(local.summary) and remote.sensitivity.equals(local.sensitivity)

"""drsim.regress and drsim regress: a candidate against a stored baseline.

The statistics first, against what they must be by counting (the exact
Mann-Whitney distribution of small samples, Holm's adjustment of a textbook
list, the false-alarm rate of samples from one distribution); then the check
end to end on the two-cell region failover (a few hundredths of a second a
run): the same scenario never fails, slower health checks fail on detection
and RTO, and the command line exits 3 with JSON for the CI system."""

from __future__ import annotations

import json
import math
import os
import pathlib
import random
import subprocess

import pytest

import drsim
from drsim.regress import BaselineError, compare_runs, holm, load_baseline, mann_whitney_greater, worse_direction

ROOT = pathlib.Path(__file__).resolve().parents[2]
TWO_CELL = ROOT / "scenarios" / "two_cell_region_failover.yaml"
CHECKS = "spec.load[spain].routing.healthCheck.requestInterval"
SEEDS = list(range(1, 13))


# ---- the statistics ----------------------------------------------------------------------


def test_exact_p_values_count_the_arrangements() -> None:
    # All of x above all of y: one arrangement of C(6, 3) = 20 has U = 9.
    assert mann_whitney_greater([4, 5, 6], [1, 2, 3]) == (9.0, pytest.approx(1 / 20))
    assert mann_whitney_greater([6, 7, 8, 9, 10], [1, 2, 3, 4, 5])[1] == pytest.approx(1 / 252)
    # x below y: every arrangement has U >= 0.
    assert mann_whitney_greater([1, 2], [3, 4]) == (0.0, pytest.approx(1.0))
    # [2, 5, 6] vs [1, 3, 4]: 7 of the 9 pairs have x above y. Of the 20 arrangements of 3 + 3
    # ranks, U = 7, 8 and 9 take 2, 1 and 1: P(U >= 7) = 4 / 20.
    assert mann_whitney_greater([2, 5, 6], [1, 3, 4]) == (7.0, pytest.approx(4 / 20))


def test_ties_use_the_normal_approximation_with_the_tie_correction() -> None:
    u, p = mann_whitney_greater([1, 1, 2, 2, 3], [1, 1, 1, 2, 2])
    # Mid-ranks: five 1s share rank 3, four 2s share 7.5, the 3 is 10: R1 = 3 + 3 + 7.5 + 7.5 + 10 = 31.
    assert u == pytest.approx(31 - 15)
    ties = (5 ** 3 - 5) + (4 ** 3 - 4)
    sd = math.sqrt(25 / 12 * (11 - ties / 90))
    assert p == pytest.approx(0.5 * math.erfc((16 - 12.5 - 0.5) / sd / math.sqrt(2)))
    assert mann_whitney_greater([2, 2], [2, 2]) == (2.0, 1.0)


def test_holm_adjusts_in_order() -> None:
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    adjusted = holm([0.2, math.nan, 0.9])
    assert adjusted[0] == pytest.approx(0.4) and math.isnan(adjusted[1]) and adjusted[2] == pytest.approx(0.9)


def test_the_false_alarm_rate_is_at_most_alpha() -> None:
    # Two samples of 12 from one skewed, tied distribution (whole seconds of an exponential), 2000 times.
    rng = random.Random(5)
    alarms = 0
    for _ in range(2000):
        x = [math.floor(rng.expovariate(1 / 5)) for _ in range(12)]
        y = [math.floor(rng.expovariate(1 / 5)) for _ in range(12)]
        alarms += mann_whitney_greater(x, y)[1] < 0.05
    assert alarms / 2000 <= 0.06


def test_which_way_is_worse() -> None:
    assert worse_direction("fail-a.rto_s") == "higher" and worse_direction("fail-a.success_ratio") == "lower"
    assert worse_direction("objectives.failed") == "higher" and worse_direction("objectives.passed") == "lower"
    assert worse_direction("client.availability{population=spain}") == "lower"
    assert worse_direction("client.latency_p99{population=spain}") == "higher"
    assert worse_direction("pool.size{service=api}") == "unknown"
    assert worse_direction("pool.size{service=api}", {"pool.size{service=api}": "lower"}) == "lower"


def runs(values: list[float | None], figure: str = "f.rto_s") -> list[dict]:
    return [{"seed": i, "figures": {figure: v}} for i, v in enumerate(values)]


def test_a_fault_that_never_recovers_is_the_worst_rto() -> None:
    base = runs([10.0, 11.0, 12.0, 10.0, 11.0, 12.0, 10.0, 11.0])
    cand = runs([None] * 8)  # NaN RTO: never recovered
    table = compare_runs(base, cand)
    assert table.loc["f.rto_s", "verdict"] == "worse" and table.loc["f.rto_s", "n_candidate"] == 8
    better = compare_runs(base, runs([5.0, 6.0, 5.0, 6.0, 5.0, 6.0, 5.0, 6.0]))
    assert better.loc["f.rto_s", "verdict"] == "better"
    same = compare_runs(base, base)
    assert same.loc["f.rto_s", "verdict"] == "same"
    few = compare_runs(runs([1.0]), runs([2.0]))
    assert few.loc["f.rto_s", "verdict"] == "untested"


# ---- end to end --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("regress") / "base.json"
    drsim.write_baseline(TWO_CELL, path, SEEDS, kpis=["client.availability"], workers=2)
    return path


def test_a_baseline_holds_every_seeds_figures(baseline: pathlib.Path) -> None:
    stored = load_baseline(baseline)
    assert stored.seeds == tuple(SEEDS) and len(stored.runs) == len(SEEDS) and stored.kpis == ["client.availability"]
    assert "ireland-cell-deleted.rto_s" in stored.runs[0]["figures"]
    assert "client.availability{population=spain}" in stored.runs[0]["figures"]


def test_the_same_scenario_is_not_a_regression(baseline: pathlib.Path) -> None:
    result = drsim.regress(TWO_CELL, baseline, workers=2)
    assert result.same_scenario and not result.failed and result.worse == []
    assert set(result.table["verdict"]) <= {"same", "untested"}


def test_slower_health_checks_are_a_regression(baseline: pathlib.Path) -> None:
    slower = drsim.load(TWO_CELL).with_overrides({CHECKS: "30s"})
    result = drsim.regress(slower, baseline, workers=2)
    assert not result.same_scenario and result.failed
    assert {"ireland-cell-deleted.detection_s", "ireland-cell-deleted.rto_s"} <= set(result.worse)
    row = result.table.loc["ireland-cell-deleted.detection_s"]
    assert row["candidate_median"] > row["baseline_median"] + 30 and row["p_adjusted"] < 0.01
    # Two failed checks instead of three: detection is faster, which is no failure.
    faster = drsim.load(TWO_CELL).with_overrides({"spec.load[spain].routing.healthCheck.failureThreshold": 2})
    quicker = drsim.regress(faster, baseline, workers=2)
    assert "ireland-cell-deleted.detection_s" not in quicker.worse
    assert quicker.table.loc["ireland-cell-deleted.detection_s", "verdict"] == "better"


def drsim_cli(*args: str) -> subprocess.CompletedProcess[str]:
    cli = os.environ.get("DRSIM_CLI", str(ROOT / "build" / "cli" / "drsim"))
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=300)


def test_the_command_line_exits_3_on_a_regression(tmp_path: pathlib.Path) -> None:
    base = tmp_path / "base.json"
    out = drsim_cli("regress", str(TWO_CELL), "--write-baseline", str(base), "--seeds", "1..8", "--workers", "2")
    assert out.returncode == 0, out.stderr
    assert "8 runs" in out.stdout
    same = drsim_cli("regress", str(TWO_CELL), "--baseline", str(base), "--workers", "2")
    assert same.returncode == 0, same.stdout + same.stderr
    assert "no figure got worse" in same.stdout
    worse = drsim_cli("regress", str(TWO_CELL), "--baseline", str(base), "--set", f"{CHECKS}=30s", "--json",
                      "--workers", "2")
    assert worse.returncode == 3, worse.stderr
    data = json.loads(worse.stdout)
    assert data["failed"] and "ireland-cell-deleted.detection_s" in data["worse"]
    assert data["candidate"]["same_scenario"] is False and data["baseline"]["seeds"] == list(range(1, 9))
    assert data["figures"]["ireland-cell-deleted.detection_s"]["verdict"] == "worse"


def test_the_command_line_names_bad_input(tmp_path: pathlib.Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "drsim-baseline/1",\n "seeds": [1, 2]\n')
    out = drsim_cli("regress", str(TWO_CELL), "--baseline", str(broken))
    assert out.returncode == 2 and f"{broken}:3:1: not JSON" in out.stderr, out.stderr
    other = tmp_path / "other.json"
    other.write_text('{"format": "something-else"}')
    out = drsim_cli("regress", str(TWO_CELL), "--baseline", str(other))
    assert out.returncode == 2 and "not a drsim baseline" in out.stderr
    out = drsim_cli("regress", str(TWO_CELL))
    assert out.returncode == 2 and "--baseline" in out.stderr
    out = drsim_cli("regress", str(TWO_CELL), "--baseline", str(other), "--worse", "x=sideways")
    assert out.returncode == 2
    with pytest.raises(BaselineError, match="broken field"):
        bad = tmp_path / "short.json"
        bad.write_text(json.dumps({"format": "drsim-baseline/1", "scenario": "s", "scenario_sha256": "0",
                                   "drsim_version": "0", "seeds": [1, 2], "runs": [{"seed": 1, "figures": {}}]}))
        load_baseline(bad)

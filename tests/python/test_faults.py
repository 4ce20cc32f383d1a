"""Result.faults: what each timeline step did to the clients, as faults.csv has it."""

from __future__ import annotations

import math
import pathlib

import pandas as pd
import pytest

import drsim

# Zone a fails at 5.305 s for 6 s; the service takes exactly 50 ms, 100
# requests/s arrive evenly spaced with a 2 s timeout. The requests zone a held
# are black-holed and time out 2 s after they were sent (window 7): the
# success ratio is back in the window starting at 8 s. Zone c fails at 15 s
# (its lost requests time out in window 16) and is repaired by a zone:recover
# at 18 s. A second, smaller population without a timeout shows the
# per-population figures. The api opts into the oracle (callers drop a lost
# zone's pods at once), so that the figures are the faults table's own
# arithmetic over the client timeouts, not a detection path's.
SCENARIO = """\
apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: py-faults
spec:
  duration: 20s
  topology:
    regions:
      - name: r1
        zones: [{name: a}, {name: b}, {name: c}]
    services:
      - name: api
        discovery: oracle
        concurrency: 4
        serviceTime: {kind: constant, value: 50ms}
        replicas:
          - {zone: a, replicas: 2}
          - {zone: b, replicas: 2}
          - {zone: c, replicas: 2}
  load:
    - name: web
      service: api
      arrivals: deterministic
      load: {kind: constant, rate: 100rps}
      timeout: 2s
    - name: batch
      service: api
      arrivals: deterministic
      load: {kind: constant, rate: 10rps}
  timeline:
    - name: lose-a
      action: zone:fail
      target: {zone: a}
      at: 5305ms
      duration: 6s
    - name: lose-c
      action: zone:fail
      target: {zone: c}
      at: 15s
    - name: recover-c
      action: zone:recover
      target: {zone: c}
      at: 18s
"""


@pytest.fixture(scope="module")
def result() -> drsim.Result:
    return drsim.load_text(SCENARIO).run()


def test_faults_has_one_row_per_applied_step(result: drsim.Result) -> None:
    faults = result.faults
    assert list(faults["step"]) == ["lose-a", "lose-c", "recover-c"]
    assert list(faults["action"]) == ["zone:fail", "zone:fail", "zone:recover"]
    assert list(faults["target"]) == ["zone=a", "zone=c", "zone=c"]
    assert list(faults["start_s"]) == pytest.approx([5.305, 15, 18])
    assert faults.loc[0, "end_s"] == pytest.approx(11.305)  # its duration
    assert faults.loc[1, "end_s"] == 18  # repaired by recover-c
    assert math.isnan(faults.loc[2, "end_s"])
    assert list(faults.columns) == [
        "step",
        "action",
        "target",
        "start_s",
        "end_s",
        "offered",
        "succeeded",
        "errors",
        "failed_timeout",
        "failed_rejected",
        "failed_no_target",
        "failed_refused",
        "failed_dependency",
        "success_ratio",
        "first_failure_s",
        "time_to_recover_s",
        "time_to_recover_after_end_s",
    ]
    assert faults["errors"].dtype == "int64"


def test_recovery_is_timed_by_the_client_timeout(result: drsim.Result) -> None:
    faults = result.faults.set_index("step")
    outage = faults.loc["lose-a"]
    # Timed-out requests of web (batch has no timeout: its lost requests stay in flight).
    assert outage["errors"] == outage["failed_timeout"] > 0
    assert outage["first_failure_s"] == 7
    assert outage["time_to_recover_s"] == pytest.approx(8 - 5.305)
    assert outage["time_to_recover_after_end_s"] == 0
    assert outage["success_ratio"] == pytest.approx(outage["succeeded"] / (outage["succeeded"] + outage["errors"]))
    # Zone c's lost requests time out just before 17 s: back from 17 s, before the repair.
    assert faults.loc["lose-c", "first_failure_s"] == 16
    assert faults.loc["lose-c", "time_to_recover_s"] == 2
    assert faults.loc["lose-c", "time_to_recover_after_end_s"] == 0
    assert faults.loc["lose-a", "errors"] + faults.loc["lose-c", "errors"] == result.kpi(
        "client.failed", population="web", cause="timeout"
    )
    # The repair did no harm; it has no end of its own.
    assert faults.loc["recover-c", "errors"] == 0
    assert faults.loc["recover-c", "time_to_recover_s"] == 0
    assert math.isnan(faults.loc["recover-c", "time_to_recover_after_end_s"])


def test_faults_match_faults_csv(result: drsim.Result, tmp_path: pathlib.Path) -> None:
    written = pd.read_csv(result.to_dir(tmp_path) / "faults.csv", keep_default_na=False, na_values=[""])
    pd.testing.assert_frame_equal(result.faults, written, check_dtype=False)


def test_faults_csv_is_byte_identical_for_the_same_seed(result: drsim.Result, tmp_path: pathlib.Path) -> None:
    again = drsim.load_text(SCENARIO).run()
    a = result.to_dir(tmp_path / "a") / "faults.csv"
    b = again.to_dir(tmp_path / "b") / "faults.csv"
    assert a.read_bytes() == b.read_bytes()


def test_faults_by_population(result: drsim.Result) -> None:
    per = result.faults_by_population
    assert list(per["step"]) == ["lose-a", "lose-a", "lose-c", "lose-c", "recover-c", "recover-c"]
    assert list(per["population"]) == ["web", "batch"] * 3
    outage = per[per["step"] == "lose-a"].set_index("population")
    # Batch requests black-holed without a timeout never finish, never fail.
    assert outage.loc["batch", "errors"] == 0
    assert outage.loc["web", "errors"] == result.faults.loc[0, "errors"]
    assert outage["offered"].sum() == result.faults.loc[0, "offered"]
    assert outage.loc["web", "time_to_recover_s"] == pytest.approx(8 - 5.305)
    assert outage.loc["batch", "time_to_recover_s"] == 0


def test_the_summary_shows_the_fault_table(result: drsim.Result) -> None:
    text = result.summary()
    assert "Faults (objective: 99.9% of the requests finished in each 1s window succeed):" in text
    assert "2.695s" in text


def test_steps_without_clients_have_no_figures(inline_result: drsim.Result) -> None:
    faults = inline_result.faults
    assert list(faults["step"]) == ["fail-a", "degrade-link"]
    assert (faults["offered"] == 0).all()
    assert faults["time_to_recover_s"].isna().all()
    assert inline_result.faults_by_population.empty


def test_a_run_without_a_timeline_has_no_faults() -> None:
    assert drsim.load_text(SCENARIO.split("  timeline:")[0]).run().faults.empty

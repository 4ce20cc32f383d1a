"""Runs release the GIL, runs in threads do not disturb each other, and
Ctrl-C stops a run without losing what it recorded.

Nothing here measures or waits for wall-clock time. Event-count facts are used instead:
the stop flag is looked at every 4096 events, so a run interrupted at its
first check (before its first event) stops at its next check, after 4096
events, if it has more than that to do.
"""

from __future__ import annotations

import _thread
import sys
import threading
import time
from typing import Callable

import pandas as pd
import pytest

import drsim

CHECK_EVERY = 4096  # the most events between two looks at the stop flag (sim/run_guards.h: the batch adapts)


def test_run_releases_the_gil(many_steps: Callable[[int], drsim.Scenario]) -> None:
    """A Python thread counts while the main thread is inside a run.

    The switch interval is made huge, so that the interpreter never takes the
    GIL from a thread that holds it; the counting thread gives it up by
    itself (time.sleep(0)) after every increment. The count is read by the
    run's first progress callback (as the run starts) and by its last (once it
    has finished). Had the run kept the GIL, nothing could have let the counter
    move in between. Bigger runs are tried until the counting thread has been
    scheduled inside one; with the GIL released that happens at once."""
    counter = [0]
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0)  # releases the GIL

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    thread = threading.Thread(target=count, daemon=True)
    try:
        thread.start()
        while counter[0] == 0:
            time.sleep(0.001)
        observed = False
        for steps in (5_000, 20_000, 40_000):
            seen: list[int] = []
            result = many_steps(steps).run(progress=lambda p: seen.append(counter[0]))
            assert result.complete
            assert len(seen) >= 2
            if seen[-1] > seen[0]:
                observed = True
                break
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(old_interval)
    assert observed, "the counting thread never ran while a simulation was running: is the GIL released?"


def test_concurrent_runs_in_threads(inline_scenario: drsim.Scenario) -> None:
    expected = inline_scenario.run(seed=5).timeseries()
    results: dict[int, drsim.Result] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            results[i] = inline_scenario.run(seed=5)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for r in results.values():
        pd.testing.assert_frame_equal(r.timeseries(), expected)


def test_progress_callback(inline_scenario: drsim.Scenario) -> None:
    calls: list[drsim.Progress] = []
    r = inline_scenario.run(progress=calls.append)
    assert len(calls) >= 2  # at the start and at the end
    first, last = calls[0], calls[-1]
    assert first.t_s == 0.0 and first.events == 0
    assert last.t_s == r.outcome.end_t_s == 7200.0
    assert last.horizon_s == 7200.0
    assert last.events == r.outcome.events


def test_ctrl_c_raises_run_interrupted_with_the_partial_result(
    many_steps: Callable[[int], drsim.Scenario],
) -> None:
    scenario = many_steps(3 * CHECK_EVERY)  # 2 events per step: far more than one check interval

    def press_ctrl_c(p: drsim.Progress) -> None:
        if p.events == 0:
            _thread.interrupt_main()  # what Ctrl-C does: trips SIGINT for the main thread

    with pytest.raises(drsim.RunInterrupted) as info:
        scenario.run(progress=press_ctrl_c)
    err = info.value
    assert isinstance(err, KeyboardInterrupt)
    r = err.result
    assert isinstance(r, drsim.Result)
    o = r.outcome
    assert o.complete is False
    assert o.reason == "interrupted"
    # Stopped at the next look after the first report, a batch of at most CHECK_EVERY events.
    assert 1 <= o.events <= CHECK_EVERY
    assert 0 < o.end_t_s < scenario.duration_s
    # Everything recorded up to the interruption is there.
    assert len(r.events()) > 0
    assert len(r.timeseries()) > 0
    assert r.kpi("timeline.actions_applied") > 0
    assert "interrupted" in str(err)


def test_keyboard_interrupt_from_the_callback(many_steps: Callable[[int], drsim.Scenario]) -> None:
    def interrupt(p: drsim.Progress) -> None:
        raise KeyboardInterrupt

    with pytest.raises(drsim.RunInterrupted) as info:
        many_steps(3 * CHECK_EVERY).run(progress=interrupt)
    assert info.value.result.outcome.reason == "interrupted"
    assert isinstance(info.value.__cause__, KeyboardInterrupt)


def test_exception_in_the_callback_stops_the_run(many_steps: Callable[[int], drsim.Scenario]) -> None:
    class Boom(Exception):
        pass

    def boom(p: drsim.Progress) -> None:
        raise Boom("from the callback")

    with pytest.raises(Boom, match="from the callback") as info:
        many_steps(3 * CHECK_EVERY).run(progress=boom)
    result = info.value.result  # type: ignore[attr-defined]
    assert result.outcome.reason == "interrupted"
    assert 1 <= result.outcome.events <= CHECK_EVERY


def test_callback_raising_at_the_end_keeps_the_result(inline_scenario: drsim.Scenario) -> None:
    def late(p: drsim.Progress) -> None:
        if p.t_s == p.horizon_s:
            raise RuntimeError("late")

    with pytest.raises(RuntimeError, match="late") as info:
        inline_scenario.run(progress=late)
    assert info.value.result.complete  # type: ignore[attr-defined]


def test_non_callable_progress(inline_scenario: drsim.Scenario) -> None:
    with pytest.raises(TypeError):
        inline_scenario.run(progress=42)  # type: ignore[arg-type]

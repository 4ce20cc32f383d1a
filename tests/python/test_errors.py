"""Bad input raises drsim.ScenarioError (a ValueError) with file:line:col, and
no C++ error can take the interpreter down."""

from __future__ import annotations

import pathlib
import pickle
import re
import subprocess
import sys
import textwrap

import pytest

import drsim
from conftest import INLINE_SCENARIO, bad_scenarios

PREFIX = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): ")


def test_exception_hierarchy() -> None:
    assert issubclass(drsim.ScenarioError, ValueError)
    assert issubclass(drsim.SimulationError, RuntimeError)
    assert issubclass(drsim.HandlerError, drsim.SimulationError)
    assert issubclass(drsim.RunInterrupted, KeyboardInterrupt)


def test_bad_duration_in_text() -> None:
    text = INLINE_SCENARIO.replace("duration: 2h", "duration: 30")
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.strip() == "duration: 30")
    col = text.splitlines()[line - 1].index("30") + 1
    with pytest.raises(drsim.ScenarioError) as info:
        drsim.load(text)
    err = info.value
    assert isinstance(err, ValueError)
    message = str(err)
    assert message.startswith(f"<text>:{line}:{col}: spec.duration: "), message
    assert "unit" in message
    d = err.diagnostics[0]
    assert (d["file"], d["line"], d["column"], d["path"]) == ("<text>", line, col, "spec.duration")
    assert d["message"] in message
    assert (err.file, err.line, err.column, err.path) == ("<text>", line, col, "spec.duration")


def test_bad_file_names_the_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(INLINE_SCENARIO.replace("rtt: 28ms", "rtt: 28"))
    with pytest.raises(drsim.ScenarioError) as info:
        drsim.load(path)
    m = PREFIX.match(str(info.value))
    assert m is not None, str(info.value)
    assert m["file"] == str(path)
    assert "spec.topology.links[0].rtt" in str(info.value)


def test_unknown_key_is_an_error() -> None:
    text = INLINE_SCENARIO.replace("  seed: 7\n", "  seed: 7\n  sede: 8\n")
    with pytest.raises(drsim.ScenarioError, match=r"^<text>:\d+:\d+: .*sede"):
        drsim.load(text)


def test_cross_reference_problems_are_reported_together() -> None:
    text = INLINE_SCENARIO.replace("zone: eu-west-1a", "zone: nowhere-1a").replace(
        "link: west-central", "link: nowhere"
    )
    with pytest.raises(drsim.ScenarioError) as info:
        drsim.load(text)
    err = info.value
    assert len(err.diagnostics) >= 2, str(err)
    for d in err.diagnostics:
        assert d["file"] == "<text>"
        assert d["line"] > 0 and d["column"] > 0
    lines = str(err).splitlines()
    assert all(PREFIX.match(l) for l in lines if l and not l.startswith(" "))


def test_scenario_error_pickles() -> None:
    with pytest.raises(drsim.ScenarioError) as info:
        drsim.load(INLINE_SCENARIO.replace("duration: 2h", "duration: 30"))
    back = pickle.loads(pickle.dumps(info.value))
    assert isinstance(back, drsim.ScenarioError)
    assert str(back) == str(info.value)
    assert back.diagnostics == info.value.diagnostics


@pytest.mark.parametrize("path", bad_scenarios(), ids=lambda p: p.name)
def test_bad_corpus(path: pathlib.Path) -> None:
    with pytest.raises(drsim.ScenarioError) as info:
        drsim.load(path)
    message = str(info.value)
    assert info.value.diagnostics
    for d in info.value.diagnostics:
        # file:line:col when the position is known (not for an empty file).
        prefix = f"{d['file']}:{d['line']}:{d['column']}: " if d["line"] > 0 else f"{d['file']}: "
        assert prefix in message, message
        assert d["file"].endswith((".yaml", ".yml")), d
    first = info.value.diagnostics[0]
    if first["file"] == str(path) and first["line"] > 0:
        assert PREFIX.match(message), message
    # The exact messages are asserted by tests/io/bad_scenarios_test.cc; here
    # it is that they arrive in Python intact: one line per diagnostic.
    for d in info.value.diagnostics:
        assert d["message"] in message


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[",
        "{",
        "key: [unclosed",
        "\t- tab",
        "apiVersion: drsim/v1alpha1\nkind: Scenario\n",
        "- a\n- b\n",
        "apiVersion: drsim/v1alpha1\nkind: Topology\nmetadata: {name: t}\nspec: {regions: []}\n",
        "x: !!binary AAAA\n",
        "\x00\x01\x02\n",
    ],
    ids=lambda t: repr(t[:20]),
)
def test_malformed_text_is_a_scenario_error(text: str) -> None:
    with pytest.raises(drsim.ScenarioError):
        drsim.load_text(text)


def test_bad_until_and_seed(inline_scenario: drsim.Scenario) -> None:
    with pytest.raises(ValueError):
        inline_scenario.run(until="2 fortnights")
    with pytest.raises(ValueError):
        inline_scenario.run(until="30")
    with pytest.raises(ValueError):
        inline_scenario.run(until=-1)
    with pytest.raises(ValueError):
        inline_scenario.run(until=float("nan"))
    with pytest.raises(TypeError):
        inline_scenario.run(until=True)
    with pytest.raises(TypeError):
        inline_scenario.run(until=[1])  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        inline_scenario.run(seed=-1)
    with pytest.raises(TypeError):
        inline_scenario.run(seed="1")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        inline_scenario.run(7)  # type: ignore[misc]  # keyword arguments only


def test_hostile_inputs_do_not_kill_the_interpreter(tmp_path: pathlib.Path) -> None:
    # Run in a child so that an abort or a crash shows up as a failed test,
    # not as a dead test runner.
    script = textwrap.dedent(
        """
        import sys, drsim
        cases = [
            "[" * 100000,
            "a: " + "{b: " * 50000,
            "- " * 50000 + "x",
            "x: " + "y" * (5 * 1024 * 1024),
            "&a [*a, *a, *a]",
            "&a [*a]",
            "a: &x {b: *x}",
            "x: \\u00ff\\n",
        ]
        for text in cases:
            try:
                drsim.load_text(text)
            except (ValueError, RuntimeError, MemoryError, RecursionError) as e:
                pass
        try:
            drsim._core.parse_duration_ns("1e999999s")
        except (ValueError, OverflowError):
            pass
        try:
            drsim._core.format_duration_ns(-2**63)
        except (ValueError, OverflowError, RuntimeError):
            pass
        print("survived")
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "survived"

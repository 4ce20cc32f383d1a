"""The type information the package ships is right, so that notebooks get
completion and a type checker finds mistakes:

* mypy passes over the whole package (python/mypy.ini);
* mypy.stubtest finds the stubs of the compiled module (_core.pyi and the
  generated _config.pyi) to agree with what _core really holds, apart from
  what pybind11 does differently from a Python class (listed below);
* a notebook-like script gets the types a user expects at each step.

mypy comes from Debian (python3-mypy, scripts/debian-packages.txt).
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

import drsim

pytest.importorskip("mypy", reason="python3-mypy is missing: run scripts/install-deps.sh")

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "python" / "mypy.ini"
PACKAGE_PARENT = pathlib.Path(drsim.__file__).resolve().parents[1]


def _mypy(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_PARENT), "MYPYPATH": str(PACKAGE_PARENT)}
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def test_the_package_type_checks(tmp_path: pathlib.Path) -> None:
    checked = _mypy("mypy", "--config-file", str(CONFIG), "--cache-dir", str(tmp_path / "cache"), "-p", "drsim",
                    cwd=PACKAGE_PARENT)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _has_no_constructor(qualified: str) -> bool:
    """Whether drsim._core.<Class> refuses to be constructed (pybind11's
    "No constructor defined!"), so its stub rightly declares no __init__."""
    from drsim import _core

    cls = getattr(_core, qualified.split(".")[2])
    try:
        cls()
    except TypeError as err:
        return "No constructor defined" in str(err)
    return False


# What pybind11 classes do that a stub cannot say, as stubtest reports it:
# their metaclass is pybind11_type, and a class without a constructor still
# has the (self, *args, **kwargs) __init__ that raises.
_PYBIND_METACLASS = re.compile(r"^(drsim\._core\.\w+) is inconsistent, metaclass differs$")
_NO_CONSTRUCTOR = re.compile(r'^(drsim\._core\.\w+)\.__init__ is inconsistent, stub does not have \*args argument "args"$')


def test_the_stubs_match_the_compiled_module(tmp_path: pathlib.Path) -> None:
    checked = _mypy("mypy.stubtest", "drsim._core", "--concise", "--mypy-config-file", str(CONFIG),
                    cwd=tmp_path)
    errors = [line for line in checked.stdout.splitlines() if line.strip()]
    real = [
        line
        for line in errors
        if not _PYBIND_METACLASS.match(line)
        and not ((m := _NO_CONSTRUCTOR.match(line)) and _has_no_constructor(m.group(1)))
    ]
    assert real == [], "\n".join(real) + checked.stderr
    # The filter above does not hide everything: stubtest did check the classes.
    assert any(_PYBIND_METACLASS.match(line) for line in errors)


# A notebook's first cells, with what a type checker (and so completion)
# must know at each step.
_SCRIPT = '''\
import drsim

scenario = drsim.load("scenarios/default.yaml")
reveal_type(scenario)
reveal_type(scenario.spec.load[0].retry.attempts)
reveal_type(scenario.services["payments"].service_time)
reveal_type(scenario.topology.links["north-east"].rtt)
result = scenario.run(until="10m")
reveal_type(result)
reveal_type(result.kpi("zone.availability", zone="north-a"))
reveal_type(drsim.check(scenario))
reveal_type(drsim.check(scenario).overloaded)
reveal_type(drsim.queueing.erlang_c(servers=2, offered_load=1.0))
scenario.spec.load[0].retry.atempts
'''

_EXPECTED = [
    'Revealed type is "drsim.scenario.Scenario"',
    'Revealed type is "builtins.int"',
    'Revealed type is "drsim._config.ServiceTime"',
    'Revealed type is "builtins.float"',
    'Revealed type is "drsim.result.Result"',
    'Revealed type is "builtins.float"',
    'Revealed type is "drsim.capacity_report.CapacityReport"',
    'Revealed type is "builtins.bool"',
    'Revealed type is "builtins.float"',
    '"RetryPolicy" has no attribute "atempts"',
]


def test_a_notebook_gets_the_types_it_expects(tmp_path: pathlib.Path) -> None:
    script = tmp_path / "notebook.py"
    script.write_text(_SCRIPT, encoding="utf-8")
    checked = _mypy("mypy", "--config-file", str(CONFIG), "--cache-dir", str(tmp_path / "cache"), str(script),
                    cwd=tmp_path)
    lines = [line for line in checked.stdout.splitlines() if line.startswith("notebook.py:")]
    assert len(lines) == len(_EXPECTED), checked.stdout
    for line, expected in zip(lines, _EXPECTED):
        assert expected in line, (line, expected)


def test_the_stub_generator_reads_pybind11_signatures() -> None:
    from drsim import _core_stubgen as gen

    assert gen.stub_type("Optional[List[drsim._core.Scenario]]") == "list[Scenario] | None"
    assert gen.stub_type("Tuple[numpy.ndarray[numpy.int64], object]") == "tuple[npt.NDArray[np.int64], Any]"
    assert gen.stub_type("Callable[[int, float], None]") == "Callable[[int, float], None]"
    assert gen.stub_type("dict") == "dict[str, Any]"
    line = "f(self: drsim._core.X, a: str = 'x, [y', *, b: Optional[int] = None) -> List[str]"
    assert gen._signature(line, "f", method=True) == "def f(self, a: str = ..., *, b: int | None = ...) -> list[str]:"


def test_the_generated_core_stub_is_the_shipped_one() -> None:
    """The build wrote _core.pyi from this _core; generating again gives the same text."""
    from drsim import _core_stubgen

    shipped = pathlib.Path(drsim.__file__).parent / "_core.pyi"
    assert shipped.read_text(encoding="utf-8") == _core_stubgen.core_stubs()

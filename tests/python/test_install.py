"""The package as `make demo` installs it: a fresh shell's
``/usr/bin/python3 -c "import drsim"`` works with no PYTHONPATH, and the
notebooks' Jupyter kernel is that interpreter.

`make demo` runs ``cmake --install build``, which puts the package into
DRSIM_PYTHON_INSTALL_DIR (default: /usr/bin/python3's platlib). Here the same
install goes into a scratch DESTDIR, so the test neither needs root nor
touches the machine, and the staged copy is imported by a child interpreter
started with an empty environment, as a fresh shell would.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import drsim

SYSTEM_PYTHON = "/usr/bin/python3"


def _build_dir() -> pathlib.Path | None:
    """The build tree drsim was imported from (<build>/python/drsim), or None
    when it comes from an installed copy."""
    build = pathlib.Path(drsim.__file__).resolve().parents[2]
    return build if (build / "CMakeCache.txt").is_file() else None


def _cache_value(build: pathlib.Path, name: str) -> str:
    match = re.search(rf"^{name}:[A-Z]+=(.*)$", (build / "CMakeCache.txt").read_text(), flags=re.M)
    assert match, f"{name} is not in {build / 'CMakeCache.txt'}"
    return match.group(1)


def _fresh_shell(*args: str, env: dict[str, str] | None = None, cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    """/usr/bin/python3 with nothing inherited: no PYTHONPATH, no virtualenv."""
    base = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8"}
    return subprocess.run([SYSTEM_PYTHON, *args], env={**base, **(env or {})}, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def build_dir() -> pathlib.Path:
    build = _build_dir()
    if build is None:
        pytest.skip("drsim is imported from an installed copy, not a build tree")
    if not pathlib.Path(SYSTEM_PYTHON).is_file():
        pytest.skip(f"no {SYSTEM_PYTHON}")
    return build


def test_the_install_dir_is_on_the_system_interpreters_default_path(build_dir: pathlib.Path,
                                                                     tmp_path: pathlib.Path) -> None:
    install_dir = _cache_value(build_dir, "DRSIM_PYTHON_INSTALL_DIR")
    assert _cache_value(build_dir, "Python_EXECUTABLE") == SYSTEM_PYTHON
    printed = _fresh_shell("-c", "import sys; print('\\n'.join(sys.path))", cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert install_dir in printed.stdout.splitlines(), (
        f"make demo installs drsim into {install_dir}, which a fresh {SYSTEM_PYTHON} does not search")


def test_the_installed_package_imports_and_runs_in_a_fresh_shell(build_dir: pathlib.Path, repo_root: pathlib.Path,
                                                                 tmp_path: pathlib.Path) -> None:
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake")
    stage = tmp_path / "stage"
    installed = subprocess.run([cmake, "--install", str(build_dir), "--component", "python"],
                               env={**os.environ, "DESTDIR": str(stage)}, capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    package = stage / _cache_value(build_dir, "DRSIM_PYTHON_INSTALL_DIR").lstrip("/") / "drsim"
    # Every module the build tree has, the stubs and the typing marker: a
    # module left out of the install list would only fail on a user's machine.
    built = {p.name for p in (build_dir / "python" / "drsim").iterdir() if p.suffix in {".py", ".pyi", ".typed", ".so"}}
    assert built <= {p.name for p in package.iterdir()}
    assert {"py.typed", "_core.pyi", "_config.pyi", "check.py", "sweep.py"} <= built
    script = (
        "import drsim, sys\n"
        f"s = drsim.load({str(repo_root / 'scenarios' / 'default.yaml')!r})\n"
        "r = s.run(until='1m')\n"
        "assert r.complete and len(r.kpis()) > 0\n"
        "assert not drsim.check(s).overloaded\n"
        "print(drsim.__file__, drsim.__version__)\n"
    )
    ran = _fresh_shell("-c", script, env={"PYTHONPATH": str(package.parent)}, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    where, version = ran.stdout.split()
    assert pathlib.Path(where).parent == package and version == drsim.__version__


def test_the_notebook_kernel_is_the_system_interpreter() -> None:
    # The notebooks run in Jupyter's "python3" kernel (tests/python/test_notebooks.py
    # starts the same one); it must be /usr/bin/python3, whose path has the
    # installed package, not another interpreter first on PATH.
    kernelspec = pytest.importorskip("jupyter_client.kernelspec")
    spec = kernelspec.KernelSpecManager().get_kernel_spec("python3")
    interpreter = spec.argv[0]
    if interpreter in {"python", "python3"}:  # ipykernel's built-in spec: the running interpreter
        interpreter = sys.executable
    assert pathlib.Path(interpreter).resolve() == pathlib.Path(SYSTEM_PYTHON).resolve(), spec.argv


def test_an_installed_drsim_is_found_where_make_demo_puts_it(build_dir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # After `make demo` on this machine: the fresh shell finds the installed
    # package with no PYTHONPATH at all. Skipped before the first make demo.
    ran = _fresh_shell("-c", "import drsim; print(drsim.__file__)", cwd=tmp_path)
    if ran.returncode != 0 and "No module named 'drsim'" in ran.stderr:
        pytest.skip("drsim is not installed on this machine (make demo installs it)")
    assert ran.returncode == 0, ran.stderr
    install_dir = pathlib.Path(_cache_value(build_dir, "DRSIM_PYTHON_INSTALL_DIR"))
    assert pathlib.Path(ran.stdout.strip()).parent.parent == install_dir

"""HAND-KEPT: the few stubs of drsim._core that cannot be read off pybind11.

drsim/_core_stubgen.py generates _core.pyi from the module's pybind11
signatures; where the C++ side passes a bare py::object, py::dict or py::list
the signature only says ``object``/``dict``/``list``, and the package relies on
more. Each entry replaces the generated stub of one name (``function``,
``Class.member``) with the text given; the generator fails when a name here
no longer exists. Prefer typing the C++ signature to adding an entry.
"""

from __future__ import annotations

# Said at the top of _core.pyi.
HEADER_NOTE = """\
Private: use the drsim package. Times are integer nanoseconds here (the
package converts them to float seconds), except in the config views, whose
leaves follow drsim.config's conventions, and in the kube_* functions, whose
times are float seconds since the start of the run."""

REPLACEMENTS: dict[str, str] = {
    # The progress callback and the exception that stopped the run are
    # py::objects in bind_run.cc; drsim/scenario.py sets .result on the latter.
    "run": '''
        def run(
            scenario: Scenario,
            *,
            seed: int | None = ...,
            until_ns: int | None = ...,
            progress: Callable[[int, int, int, float], object] | None = ...,
            check_signals: bool = ...,
        ) -> tuple[RunResult, BaseException | None]:
            """Runs a scenario with the GIL released. Returns (RunResult, exception or None)."""
    ''',
}

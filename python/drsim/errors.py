"""drsim's exceptions.

The compiled module raises these from C++ (python/src/bind_errors.cc imports
this module when a C++ exception crosses into Python):

* :class:`ScenarioError` (a :class:`ValueError`): bad scenario input, with the
  ``file:line:col: yaml.path: message`` of every problem found.
* :class:`SimulationError` (a :class:`RuntimeError`): a broken engine invariant;
  :class:`HandlerError` when it escaped an event handler.
* :class:`RunInterrupted` (a :class:`KeyboardInterrupt`): Ctrl-C during a run;
  ``.result`` holds everything recorded up to that point.

Any other C++ exception arrives as a :class:`RuntimeError` (or the matching
builtin, e.g. :class:`ValueError` for a malformed duration).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, TypedDict

if TYPE_CHECKING:  # pragma: no cover
    from drsim.result import Result

__all__ = [
    "Diagnostic",
    "ScenarioError",
    "SimulationError",
    "HandlerError",
    "RunInterrupted",
]


class Diagnostic(TypedDict):
    """One problem in a scenario. ``line`` and ``column`` are 1-based, 0 when
    unknown; ``file`` is the file name, ``<text>``, or the ``--set`` override
    that carried the bad value."""

    file: str
    line: int
    column: int
    path: str
    message: str


def _diagnostic(item: Mapping[str, Any]) -> Diagnostic:
    return Diagnostic(
        file=str(item.get("file", "")),
        line=int(item.get("line", 0)),
        column=int(item.get("column", 0)),
        path=str(item.get("path", "")),
        message=str(item.get("message", "")),
    )


class ScenarioError(ValueError):
    """Bad scenario input.

    ``str(error)`` is the loader's message, one ``file:line:col: path: message``
    line per problem; ``error.diagnostics`` has the same as dicts.
    """

    diagnostics: list[Diagnostic]

    def __init__(self, message: str, diagnostics: Iterable[Mapping[str, Any]] = ()) -> None:
        super().__init__(message)
        self.diagnostics = [_diagnostic(d) for d in diagnostics]

    @property
    def file(self) -> str | None:
        """The file of the first problem."""
        return self.diagnostics[0]["file"] if self.diagnostics else None

    @property
    def line(self) -> int | None:
        """The 1-based line of the first problem (0 when unknown)."""
        return self.diagnostics[0]["line"] if self.diagnostics else None

    @property
    def column(self) -> int | None:
        """The 1-based column of the first problem (0 when unknown)."""
        return self.diagnostics[0]["column"] if self.diagnostics else None

    @property
    def path(self) -> str | None:
        """The YAML path of the first problem."""
        return self.diagnostics[0]["path"] if self.diagnostics else None

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""

    def __reduce__(self) -> tuple[Any, ...]:
        # Keeps the diagnostics across pickling (multiprocessing sweeps).
        return (type(self), (str(self), [dict(d) for d in self.diagnostics]))


class SimulationError(RuntimeError):
    """An engine invariant was broken (a bug, not a simulated failure)."""


class HandlerError(SimulationError):
    """An exception escaped an event handler; ``where`` says at which simulated
    time, in which component and event."""

    where: str

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.where = where

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.where))


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (or another KeyboardInterrupt) stopped a run.

    ``result`` is the partial :class:`drsim.Result`: everything recorded up to
    the interruption, with ``result.outcome.reason == "interrupted"`` when the
    run stopped early.
    """

    result: "Result"

    def __init__(self, result: "Result", message: str = "") -> None:
        super().__init__(message or _interrupted_message(result))
        self.result = result

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.result, str(self)))


def _interrupted_message(result: Any) -> str:
    try:
        outcome = result.outcome
        return f"run interrupted at t={outcome.end_t_s:g} s after {outcome.events} events; partial result in .result"
    except Exception:  # pragma: no cover - best effort only
        return "run interrupted; partial result in .result"

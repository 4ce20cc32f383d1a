"""Parameter sweeps: every combination of a grid of overrides, for every seed.

A capacity planner asks "how does the RTO move with the health-check
interval and the failure time, over a hundred seeds?". :func:`sweep` runs
the product of a grid (override path -> values to try) and a list of seeds,
one run per (combination, seed), on all local cores or on a Dask cluster,
and returns one row of figures per run. Moving from a laptop to a cluster is
one argument (``client=``); nothing else changes and the rows are the same.

What travels to a worker is plain data (:class:`RunTask`: the resolved
YAML of the run's combination, with its topology and CSV inputs written
inline, and the seed), so a worker needs no scenario file: a Dask worker on
another machine runs it as it is (``Scenario.to_yaml()`` loads back to the
same runs, event for event, for every shipped scenario). What comes back is
a dict of floats (:mod:`drsim.figures`): a :class:`drsim.Result` never
crosses a process boundary; it cannot be pickled and holds far more than a
sweep keeps.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import itertools
import math
import numbers
import os
import pathlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generator, Iterable, Mapping, NamedTuple, Sequence

from drsim import _core
from drsim.errors import ScenarioError
from drsim.figures import kpi_names, missing_kpis, run_figures
from drsim.scenario import Scenario, Source, Until, _check_seed, _override_text, _until_ns, load
from drsim.sweep_folder import SweepFolder, SweepFolderError
from drsim.sweep_pools import SweepWorkerLost, run_dask, run_local, usable_cores

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["sweep", "Sweep", "RunTask", "run_task", "SweepRunError", "SweepFolderError", "SweepWorkerLost"]

#: Columns of :attr:`Sweep.runs` besides the grid paths and the figures.
_OWN_COLUMNS = ("run", "seed", "complete", "stop_reason", "wall_s")


class SweepRunError(RuntimeError):
    """One run of a sweep raised (a guard stopped it, a handler failed):
    the message names the run, its overrides and seed, and the error."""


class RunTask(NamedTuple):
    """One run, as plain data that pickles to any worker."""

    key: str  #: ``<combination>-<seed>``, e.g. ``"3-17"``
    text: str  #: the combination's resolved scenario (``Scenario.to_yaml()``: self-contained)
    source_name: str  #: the scenario's file name (or ``<text>``), for error messages
    overrides: tuple[str, ...]  #: the combination's overrides as ``path=value``, for error messages
    seed: int
    until: Until | None
    kpis: tuple[str, ...] | None


# ---- the worker side --------------------------------------------------------

# Scenarios loaded in this worker process, most recent last: a worker runs
# many seeds of one combination, and loading is the same every time.
_LOADED: collections.OrderedDict[str, Scenario] = collections.OrderedDict()
_LOADED_MAX = 16


def _no_runs() -> Generator[tuple[RunTask, Any], None, None]:
    """The runner of a sweep whose runs are all in its folder already."""
    yield from ()


def _load(task: RunTask) -> Scenario:
    cache_key = task.text
    scenario = _LOADED.get(cache_key)
    if scenario is None:
        scenario = Scenario(_core.load_text(task.text, [], source_name=f"{task.source_name} (resolved)"))
        _LOADED[cache_key] = scenario
        while len(_LOADED) > _LOADED_MAX:
            _LOADED.popitem(last=False)
    else:
        _LOADED.move_to_end(cache_key)
    return scenario


def run_task(task: RunTask) -> dict[str, Any]:
    """Runs one task and returns ``{"figures": {name: float}, "complete": bool,
    "stop_reason": str, "wall_s": float}`` (``complete`` is False when a
    guard of ``spec.guards`` stopped the run early; ``stop_reason`` says which).

    The function a sweep sends to its workers (local processes or Dask); any
    error is raised as :class:`SweepRunError` naming the run."""
    started = time.perf_counter()
    try:
        result = _load(task).run(seed=task.seed, until=task.until)
        figures = run_figures(result, list(task.kpis) if task.kpis else None)
    except Exception as e:
        raise SweepRunError(
            f"run {task.key} (seed {task.seed}, overrides {list(task.overrides)}) failed: {type(e).__name__}: {e}"
        ) from None
    outcome = result.outcome
    return {"figures": figures, "complete": bool(outcome.complete), "stop_reason": str(outcome.reason),
            "wall_s": time.perf_counter() - started}


# ---- the grid ------------------------------------------------------------------


def _grid_values(grid: Mapping[str, Any]) -> dict[str, tuple[list[Any], list[str]]]:
    """``{path: (values, override texts)}``, checking every path and value list."""
    if not isinstance(grid, Mapping):
        raise TypeError(f"grid is a mapping {{override path: [values]}}, not {type(grid).__name__}")
    out: dict[str, tuple[list[Any], list[str]]] = {}
    for path, values in grid.items():
        if not isinstance(path, str) or not path.strip():
            raise TypeError(f"grid keys are override paths such as 'spec.timeline[fail-a].at', not {path!r}")
        if path != path.strip() or "=" in path:
            raise ValueError(f"grid key {path!r} is not an override path (no '=', no surrounding spaces)")
        if path == "spec.seed":
            raise ValueError("grid['spec.seed']: vary the seed with seeds=, not the grid")
        if path in _OWN_COLUMNS:
            raise ValueError(f"grid key {path!r} would clash with the sweep's own column of that name")
        if type(values).__module__ == "numpy" and hasattr(values, "tolist"):
            values = values.tolist()
        if not isinstance(values, (list, tuple, range)):
            raise TypeError(
                f"grid[{path!r}] is a list of values to try, not a {type(values).__name__} ({values!r}); "
                "wrap a single value in a list"
            )
        values = list(values)
        if not values:
            raise ValueError(f"grid[{path!r}] is empty: give at least one value")
        texts = []
        for v in values:
            try:
                texts.append(_override_text(v))
            except TypeError as e:
                raise TypeError(f"grid[{path!r}]: {e}") from None
        repeated = sorted({t for t in texts if texts.count(t) > 1})
        if repeated:
            raise ValueError(f"grid[{path!r}] repeats the value(s) {', '.join(repeated)}")
        out[path] = (values, texts)
    return out


def _seed_values(seeds: Iterable[int]) -> tuple[int, ...]:
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise TypeError(f"seeds is an iterable of int such as range(100), not {type(seeds).__name__}")
    values: list[int] = []
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"seeds are int, got {s!r}")
        checked = _check_seed(int(s))
        assert checked is not None
        values.append(checked)
    if not values:
        raise ValueError("seeds is empty: give at least one seed, e.g. range(10)")
    if len(set(values)) != len(values):
        raise ValueError(f"seeds repeat a value: {sorted(s for s in set(values) if values.count(s) > 1)}")
    return tuple(values)


# ---- running the tasks -------------------------------------------------------------


def open_recorded(out: str | os.PathLike[str] | None, manifest: dict[str, Any], tasks: Sequence[RunTask],
                  what: str) -> tuple[SweepFolder | None, dict[str, dict[str, Any]]]:
    """The results folder ``out`` (None: no folder) opened for ``manifest``,
    and the records of the runs it already holds, by run key; a record of a
    run that is not among ``tasks`` is refused (``what``: "sweep", "study")."""
    records: dict[str, dict[str, Any]] = {}
    if out is None:
        return None, records
    folder = SweepFolder.open(out, manifest)
    keys = {t.key for t in tasks}
    for record in folder.done():
        if record["run"] not in keys:
            folder.close()
            raise SweepFolderError(f"{folder.runs_path}: run {record['run']!r} is not a run of this {what}")
        records[record["run"]] = record
    return folder, records


def run_recorded(
    tasks: Sequence[RunTask],
    records: dict[str, dict[str, Any]],
    folder: SweepFolder | None,
    *,
    task_fn: Callable[[RunTask], dict[str, Any]],
    record_of: Callable[[RunTask, dict[str, Any]], dict[str, Any]],
    client: Any,
    workers: int | None,
    progress: bool,
    desc: str,
    on_run: Callable[[dict[str, Any]], object] | None = None,
) -> int:
    """Runs the tasks whose key is not in ``records`` (those read back from
    a folder) on the Dask ``client`` or ``workers`` local processes, adds
    each finished run's ``record_of(task, value)`` to ``records`` (and to
    ``folder`` as it arrives), and returns how many ran. What
    :func:`sweep` and :func:`drsim.uncertainty` share: the progress bar, the
    pool, the folder's append, and stopping cleanly when ``on_run`` or the
    caller's loop raises."""
    todo = [t for t in tasks if t.key not in records]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(tasks), initial=len(records), desc=desc, unit="run")
    key_of = lambda t: t.key  # noqa: E731
    runner: Generator[tuple[RunTask, Any], None, None]
    if not todo:
        runner = _no_runs()
    elif client is not None:
        runner = run_dask(todo, task_fn, key=key_of, client=client)
    else:
        runner = run_local(todo, task_fn, key=key_of, workers=workers or 1)
    executed = 0
    try:
        with contextlib.closing(runner):
            for task, value in runner:
                record = record_of(task, value)
                if folder is not None:
                    folder.append(record)
                records[task.key] = record
                executed += 1
                if bar is not None:
                    bar.update(1)
                if on_run is not None:
                    on_run(record)
    finally:
        if bar is not None:
            bar.close()
        if folder is not None:
            folder.close()
    return executed


# ---- the result ------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Sweep:
    """What :func:`sweep` returns.

    ``runs``: one row per run, ordered by grid combination (the grid's order,
    last path varying fastest) then by seed (the order given), whatever order
    the runs finished in. Columns: ``run`` (the run's key,
    ``<combination>-<seed>``, as in ``runs.jsonl``), one column per grid path
    (the value as given), ``seed``, the figures of :mod:`drsim.figures`
    (``<step>.detection_s``, ``.traffic_switch_s``, ``.rto_s``, ``.rpo_s``,
    ``.switch_errors``, ``.errors``, ``.success_ratio`` per fault step;
    ``objectives.passed`` and ``objectives.failed``; each KPI asked for),
    ``complete`` (False when a guard of ``spec.guards`` stopped the run
    before its horizon: its figures cover only part of it), ``stop_reason``
    (``Result.outcome.reason``) and ``wall_s`` (the run's wall time in its
    worker: the only column that is not deterministic). ``executed``: how many runs this call ran; the others
    were read back from ``out``.
    """

    scenario: Scenario
    grid: dict[str, list[Any]]
    seeds: tuple[int, ...]
    until: Until | None
    runs: pd.DataFrame
    out: pathlib.Path | None
    executed: int

    @property
    def figures(self) -> list[str]:
        """The figure columns of :attr:`runs`."""
        return [c for c in self.runs.columns if c not in _OWN_COLUMNS and c not in self.grid]

    def plot(self, column: str | Sequence[str], *, by: str | None = None, kind: str = "box",
             title: str | None = None) -> Figure:
        """:func:`drsim.plot.distribution` of :attr:`runs`: ``column`` one or
        more figures, ``by`` a grid path to group on (None: all runs together)."""
        from drsim.plot import distribution

        return distribution(self.runs, column, by=by, kind=kind, title=title)

    def __repr__(self) -> str:
        combinations = math.prod(len(values) for values in self.grid.values())
        where = f" out={str(self.out)!r}" if self.out is not None else ""
        return (
            f"<drsim.Sweep {self.scenario.name!r} combinations={combinations} seeds={len(self.seeds)}"
            f" runs={len(self.runs)} executed={self.executed}{where}>"
        )

    def _repr_html_(self) -> str:
        """Notebooks: what was swept, then the runs (the first and last 20)."""
        import html

        return f"<p><b>{html.escape(repr(self))}</b></p>" + self.runs.to_html(max_rows=40)


def _scenario_hash(scenario: Scenario) -> str:
    return hashlib.sha256(scenario.to_yaml().encode("utf-8")).hexdigest()


def sweep(
    scenario: Scenario | Source,
    grid: Mapping[str, Any],
    seeds: Iterable[int],
    *,
    client: Any = None,
    out: str | os.PathLike[str] | None = None,
    until: Until | None = None,
    workers: int | None = None,
    kpis: Iterable[str] | str | None = None,
    progress: bool = True,
    on_run: Callable[[dict[str, Any]], object] | None = None,
    _task: Callable[[RunTask], dict[str, Any]] = run_task,
) -> Sweep:
    """Runs every combination of ``grid`` for every seed; returns a :class:`Sweep`.

    ``scenario``: a :class:`drsim.Scenario`, a path or YAML text. ``grid``:
    ``{override path: [values]}``, paths and values as
    :meth:`Scenario.with_overrides` takes them; ``{}`` is the scenario as it
    is (a sweep over seeds only). Every combination is loaded before anything
    runs, so a bad path or value raises :class:`drsim.ScenarioError` naming it
    at once; a value that is not a list, an empty list, a repeated value and
    ``spec.seed`` (use ``seeds``) are errors too. ``seeds``: the seeds every
    combination runs with (``range(100)``); there is no default.

    ``client``: a ``distributed.Client``; the runs are Dask tasks on its
    cluster (whose workers need drsim importable), and Dask reruns the tasks
    of a worker it loses. Without one, a pool of ``workers`` local processes
    (default: the CPU count) runs them, and a pool whose worker dies is
    replaced and the unfinished runs submitted again. ``until``: every run's
    horizon (default ``spec.duration``). ``kpis``: KPI names to add as
    columns (one per label set, as in :func:`drsim.compare`).

    ``out``: a results folder (see :mod:`drsim.sweep_folder`): each finished
    run is appended to ``out/runs.jsonl`` as it arrives, and a sweep started
    again on the same folder runs only what is missing; a folder of a
    different sweep (scenario, grid, seeds, until or kpis) is refused with
    :class:`SweepFolderError`.

    ``progress``: a tqdm bar of finished runs. ``on_run``: called in this
    process with each finished run's record (as written to ``runs.jsonl``);
    if it raises, the sweep stops (pending runs are cancelled; the runs
    already recorded stay in ``out``) and the exception propagates.

    Same scenario, grid, seeds and until: same rows (except ``wall_s``),
    whether on 1 process, 8, or a cluster, and in whatever order runs finish.
    """
    import pandas as pd

    base = scenario if isinstance(scenario, Scenario) else load(scenario)
    axes = _grid_values(grid)
    seed_values = _seed_values(seeds)
    until_ns = _until_ns(until)
    kpi_list = kpi_names(kpis)
    if client is not None:
        if workers is not None:
            raise ValueError("workers sizes the local pool; with a Dask client the cluster's workers run the sweep")
        if not callable(getattr(client, "submit", None)):
            raise TypeError(f"client is a distributed.Client, not {type(client).__name__}")
    else:
        if workers is None:
            workers = usable_cores()
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, got {workers!r}")
    if on_run is not None and not callable(on_run):
        raise TypeError("on_run must be callable")

    # Every combination loads here, before any run: a bad one fails now.
    paths = list(axes)
    combinations = list(itertools.product(*(range(len(axes[p][0])) for p in paths)))
    tasks: list[RunTask] = []
    for c, indexes in enumerate(combinations):
        overrides = [f"{p}={axes[p][1][i]}" for p, i in zip(paths, indexes)]
        try:
            combined = base.with_overrides(overrides)
        except ScenarioError as e:
            # The loader names the YAML path it resolved (spec.load[0]...);
            # the override the user wrote is named too, keeping the
            # message's leading file:line:col.
            raise ScenarioError(f"{e}\n(grid combination {c}: {', '.join(overrides)})", e.diagnostics) from None
        text = combined.to_yaml()
        for seed in seed_values:
            tasks.append(RunTask(key=f"{c}-{seed}", text=text, source_name=base.source_file,
                                 overrides=tuple(overrides), seed=seed, until=until,
                                 kpis=tuple(kpi_list) if kpi_list is not None else None))

    manifest = {
        "scenario": base.name,
        "scenario_sha256": _scenario_hash(base),
        "drsim_version": _core.__version__,
        # A list, not a mapping: the order of the paths numbers the
        # combinations, so the same grid in another order is another sweep.
        "grid": [[p, axes[p][1]] for p in paths],
        "seeds": list(seed_values),
        "until": None if until_ns is None else _core.format_duration_ns(until_ns),
        "kpis": kpi_list,
    }
    folder, records = open_recorded(out, manifest, tasks, "sweep")

    def record_of(task: RunTask, value: dict[str, Any]) -> dict[str, Any]:
        c = int(task.key.split("-", 1)[0])
        return {
            "run": task.key,
            "combination": c,
            "seed": task.seed,
            "overrides": {p: axes[p][1][i] for p, i in zip(paths, combinations[c])},
            "figures": value["figures"],
            "complete": value["complete"],
            "stop_reason": value["stop_reason"],
            "wall_s": value["wall_s"],
        }

    executed = run_recorded(tasks, records, folder, task_fn=_task, record_of=record_of, client=client,
                            workers=workers, progress=progress, desc="drsim.sweep", on_run=on_run)

    rows = []
    for task in tasks:
        record = records[task.key]
        c = int(task.key.split("-", 1)[0])
        row: dict[str, Any] = {"run": task.key}
        for p, i in zip(paths, combinations[c]):
            row[p] = axes[p][0][i]
        row["seed"] = task.seed
        for name, v in record["figures"].items():
            row[name] = math.nan if v is None else float(v)
        row["complete"] = bool(record["complete"])
        row["stop_reason"] = str(record["stop_reason"])
        row["wall_s"] = float(record["wall_s"])
        rows.append(row)
    missing = missing_kpis([r["figures"] for r in records.values()], kpi_list)
    if missing:
        raise ValueError(f"no run recorded the KPI(s) {', '.join(map(repr, missing))}")
    frame = pd.DataFrame([{k: v for k, v in r.items() if k not in axes} for r in rows])
    for p in paths:
        # The values as given: pandas would read "90s" next to a timedelta as a
        # duration, so a column is only converted when all its values agree.
        frame[p] = pd.Series([r[p] for r in rows], dtype=object).infer_objects()
    front = ["run", *paths, "seed"]
    back = ["complete", "stop_reason", "wall_s"]
    frame = frame[front + [c for c in frame.columns if c not in front and c not in back] + back]
    return Sweep(
        scenario=base,
        grid={p: list(axes[p][0]) for p in paths},
        seeds=seed_values,
        until=until,
        runs=frame,
        out=folder.path if folder is not None else None,
        executed=executed,
    )

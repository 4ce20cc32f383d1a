"""Scenarios from what a cluster already has: ``drsim import kubernetes``,
``drsim import experiment`` and ``drsim import traces`` for notebooks.

::

    import drsim

    imported = drsim.import_kubernetes(["k8s/"], zones=["a", "b", "c"])
    imported.notes            # DataFrame: file, line, column, object, path, message
    imported.scenario         # the drsim.Scenario it loads as
    imported.write("shop.yaml")

The import is the command's (io/kubernetes_import.h): the same scenario text,
commented with where each value came from, and the same notes (docs/import.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from drsim import _core
from drsim.kube import DurationLike, _seconds
from drsim.scenario import Scenario, load_text

if TYPE_CHECKING:
    import pandas as pd

NOTE_COLUMNS = ["file", "line", "column", "object", "path", "message"]


@dataclass(frozen=True)
class _ImportedScenario:
    """A scenario text an import wrote and its notes (each object, field or action
    not modelled, or converted, with its position)."""

    scenario_yaml: str
    note_rows: list[tuple[str, int, int, str, str, str]] = field(repr=False)

    @property
    def notes(self) -> pd.DataFrame:
        """One row per note: ``file``, ``line``, ``column`` (1-based; 0 when unknown),
        ``object`` (``"Deployment frontend"``), ``path`` (the field; empty for the
        object) and ``message``."""
        import pandas as pd

        return pd.DataFrame(self.note_rows, columns=NOTE_COLUMNS)

    @property
    def scenario(self) -> Scenario:
        """The imported scenario, loaded (it always loads: the importer checks)."""
        return load_text(self.scenario_yaml, name="imported")

    def write(self, path: str | os.PathLike[str]) -> None:
        """Writes the scenario file."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.scenario_yaml)


@dataclass(frozen=True)
class KubernetesImport(_ImportedScenario):
    """What :func:`import_kubernetes` read: the scenario text, its notes, and counts of
    the objects and files read and of the objects of other namespaces left out."""

    objects: int = 0
    files: int = 0
    skipped: int = 0


def import_kubernetes(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    zones: Iterable[str] | None = None,
    region: str = "region-1",
    namespace: str | None = None,
    name: str = "imported",
    metrics: Mapping[str, str] | None = None,
) -> KubernetesImport:
    """A scenario from Kubernetes manifests (files or directories of ``.yaml``,
    ``.yml`` and ``.json``), as ``drsim import kubernetes``. ``zones`` are the
    cluster's zones in order (default: the Node objects' zone labels);
    ``namespace`` keeps only that namespace's objects; ``metrics`` reads an HPA's
    Pods or Object metric under the metrics adapter's name
    (``{"http_requests_per_second": "requests_per_second"}``). Raises
    :class:`drsim.ScenarioError` (file, line, column, object and field) for a
    manifest that is not a Kubernetes object or holds a malformed value."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    items = [os.fsdecode(p) for p in paths]
    text, notes, objects, files, skipped = _core.import_kubernetes(
        items, list(zones or []), region, namespace or "", name, dict(metrics or {})
    )
    return KubernetesImport(text, list(notes), objects=objects, files=files, skipped=skipped)


@dataclass(frozen=True)
class ExperimentImport(_ImportedScenario):
    """What :func:`import_experiment` wrote: the scenario text with the experiment's
    timeline steps, its notes, and the number of steps."""

    steps: int = 0


def import_experiment(
    scenario: str | os.PathLike[str],
    experiments: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    zone_map: Mapping[str, str] | None = None,
    at: DurationLike = "1m",
) -> ExperimentImport:
    """The scenario file with the steps of AWS FIS experiment templates (JSON) or
    Chaos Mesh objects (YAML) added to its timeline, as ``drsim import
    experiment`` (docs/import.md). ``zone_map`` maps the experiment's AZ names or
    IDs to the scenario's zones; ``at`` is when the experiment starts in the run.
    Raises :class:`drsim.ScenarioError` with the file, line, column and field."""
    if isinstance(experiments, (str, os.PathLike)):
        experiments = [experiments]
    files = [os.fsdecode(p) for p in experiments]
    start_ns = round(_seconds(at, "at") * 1e9)
    text, notes, steps = _core.import_experiment(os.fsdecode(scenario), files, dict(zone_map or {}), start_ns)
    return ExperimentImport(text, list(notes), steps=steps)


@dataclass(frozen=True)
class TraceImport(_ImportedScenario):
    """What :func:`import_traces` read: the scenario text with the traces' workload,
    its notes, and the workload itself as tables (:attr:`operations`, :attr:`calls`,
    :attr:`entries`)."""

    operation_rows: list[tuple[str, str, int, float, list[float]]] = field(default_factory=list, repr=False)
    call_rows: list[tuple[str, str, str, str, int, float, bool]] = field(default_factory=list, repr=False)
    entry_rows: list[tuple[str, str, int, list[float]]] = field(default_factory=list, repr=False)
    window_s: float = 0.0
    traces: int = 0
    spans: int = 0

    @property
    def operations(self) -> pd.DataFrame:
        """One row per operation: ``service``, ``operation``, ``requests`` (spans
        seen), ``self_time_mean_s``, ``self_time_p50_s``, ``self_time_p99_s`` and
        ``samples_s`` (the empirical serviceTime written, ascending)."""
        import pandas as pd

        rows = []
        for service, operation, requests, mean, samples in self.operation_rows:
            rows.append(
                {
                    "service": service,
                    "operation": operation,
                    "requests": requests,
                    "self_time_mean_s": mean,
                    "self_time_p50_s": _quantile(samples, 0.5),
                    "self_time_p99_s": _quantile(samples, 0.99),
                    "samples_s": list(samples),
                }
            )
        return pd.DataFrame(
            rows,
            columns=["service", "operation", "requests", "self_time_mean_s", "self_time_p50_s",
                     "self_time_p99_s", "samples_s"],
        )

    @property
    def calls(self) -> pd.DataFrame:
        """One row per call of an operation: ``service``, ``operation``, ``callee``,
        ``callee_operation``, ``count``, ``probability`` (``count x probability``
        calls a request on average) and ``parallel``."""
        import pandas as pd

        return pd.DataFrame(
            self.call_rows,
            columns=["service", "operation", "callee", "callee_operation", "count", "probability", "parallel"],
        )

    @property
    def entries(self) -> pd.DataFrame:
        """Requests per second (sampling undone) per window and entry operation:
        ``service``, ``operation``, ``window`` (0-based), ``start_s`` and
        ``rate_per_s``."""
        import pandas as pd

        rows = []
        for service, operation, _requests, rates in self.entry_rows:
            for w, rate in enumerate(rates):
                rows.append((service, operation, w, w * self.window_s, rate))
        return pd.DataFrame(rows, columns=["service", "operation", "window", "start_s", "rate_per_s"])


def _quantile(sorted_samples: list[float], q: float) -> float:
    """The smallest sample with at least q of them at or below it (the inverse
    empirical CDF, as drsim's empirical serviceTime reads its samples)."""
    if not sorted_samples:
        return float("nan")
    import math

    at = max(0, math.ceil(q * len(sorted_samples)) - 1)
    return sorted_samples[min(at, len(sorted_samples) - 1)]


def import_traces(
    scenario: str | os.PathLike[str],
    traces: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    sampling: float = 1.0,
    window: DurationLike = "1m",
    samples: int = 200,
    service_map: Mapping[str, str] | None = None,
) -> TraceImport:
    """The scenario file with the operations, calls, self times and request rates
    of OpenTelemetry (OTLP JSON), Jaeger or Zipkin JSON traces, as ``drsim import
    traces`` (docs/import.md). ``sampling`` is the share of requests the traces
    hold (rates are divided by it), ``window`` the load profile's step,
    ``samples`` the self-time samples kept per operation, ``service_map`` the
    traces' service names mapped to the scenario's. Raises
    :class:`drsim.ScenarioError` with the file, line, column and span."""
    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    files = [os.fsdecode(p) for p in traces]
    window_ns = round(_seconds(window, "window") * 1e9)
    text, notes, operations, calls, entries, window_s, n_traces, n_spans = _core.import_traces(
        os.fsdecode(scenario), files, float(sampling), window_ns, int(samples), dict(service_map or {})
    )
    return TraceImport(
        text,
        list(notes),
        operation_rows=list(operations),
        call_rows=list(calls),
        entry_rows=list(entries),
        window_s=window_s,
        traces=n_traces,
        spans=n_spans,
    )

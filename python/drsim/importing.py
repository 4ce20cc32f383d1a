"""Scenarios from what a cluster already has: ``drsim import kubernetes`` for notebooks.

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
from drsim.scenario import Scenario, load_text

if TYPE_CHECKING:
    import pandas as pd

NOTE_COLUMNS = ["file", "line", "column", "object", "path", "message"]


@dataclass(frozen=True)
class KubernetesImport:
    """What :func:`import_kubernetes` read: the scenario text, its notes (each object or
    field not modelled, or converted, with its position), and counts."""

    scenario_yaml: str
    note_rows: list[tuple[str, int, int, str, str, str]] = field(repr=False)
    objects: int
    files: int
    skipped: int

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
    return KubernetesImport(text, list(notes), objects, files, skipped)

"""The figures of one run, as a flat ``{name: float}`` dict.

:func:`drsim.compare` and :func:`drsim.sweep` both reduce each run to the
same numbers (per-fault detection, switch, RTO, RPO and errors, the
objectives' verdict counts, chosen KPIs) so that their frames have the same
columns and a sweep's rows can be read like a comparison's. The dict holds
plain floats, so it travels from a worker process or a Dask worker back to
the caller, where a :class:`drsim.Result` cannot (it is not picklable).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:  # pragma: no cover
    from drsim.result import Result

__all__ = ["FAULT_FIGURES", "run_figures", "kpi_column", "kpi_names", "missing_kpis"]

#: The per-fault figures, as ``<step>.<figure>``: from
#: :meth:`Result.fault_figures` (seconds after the step's start, and the
#: errors during the traffic switch) and :attr:`Result.faults` (errors and
#: success ratio in the step's counting window).
FAULT_FIGURES: tuple[str, ...] = (
    "detection_s", "traffic_switch_s", "rto_s", "rpo_s", "switch_errors", "errors", "success_ratio",
)


def kpi_column(name: str, labels: Mapping[str, Any]) -> str:
    """The column of a KPI with its text labels: ``client.availability{population=spain}``."""
    parts = [f"{k}={v}" for k, v in sorted(labels.items()) if isinstance(v, str)]
    return name + ("{" + ",".join(parts) + "}" if parts else "")


def kpi_names(kpis: Iterable[str] | str | None) -> list[str] | None:
    """``kpis`` as a list of names (a single str is one name); a non-str raises TypeError."""
    if kpis is None:
        return None
    names = [kpis] if isinstance(kpis, str) else list(kpis)
    for k in names:
        if not isinstance(k, str) or not k:
            raise TypeError(f"kpis are KPI names (non-empty str), got {k!r}")
    return names


def run_figures(result: Result, kpis: list[str] | None) -> dict[str, float]:
    """One run's figures: ``<step>.<figure>`` per fault step, the objectives'
    verdict counts, and the KPIs asked for (``name{label=value,...}``)."""
    row: dict[str, float] = {}
    figures = result.fault_figures()
    faults = result.faults.set_index("step")
    for f in figures.itertuples(index=False):
        for name in FAULT_FIGURES:
            if hasattr(f, name):
                row[f"{f.step}.{name}"] = float(getattr(f, name))
            elif f.step in faults.index:
                row[f"{f.step}.{name}"] = float(faults.loc[f.step, name])
    verdicts = result.objectives()
    row["objectives.passed"] = float(verdicts["passed"].sum())
    row["objectives.failed"] = float((~verdicts["passed"]).sum())
    if kpis:
        table = result.kpis()
        label_columns = [c for c in table.columns if c not in ("name", "value")]
        for name in kpis:
            rows = table[table["name"] == name]
            for r in rows.itertuples(index=False):
                labels = {c: getattr(r, c) for c in label_columns if isinstance(getattr(r, c), str)}
                row[kpi_column(name, labels)] = float(r.value)
    return row


def missing_kpis(rows: Iterable[Mapping[str, Any]], kpis: list[str] | None) -> list[str]:
    """The KPI names of ``kpis`` that appear in no row's columns (no run recorded them)."""
    if not kpis:
        return []
    found = {c.split("{")[0] for row in rows for c in row}
    return [k for k in kpis if k not in found]

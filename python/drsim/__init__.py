"""drsim: a discrete-event simulator of multi-AZ / multi-region disaster scenarios.

    import drsim
    scenario = drsim.load("scenarios/default.yaml")
    result = scenario.with_overrides({"spec.seed": 7}).run(until="2h")
    result.timeseries("zone.up")      # pandas DataFrame
    result.kpis()
    result.to_dir("out/")

    scenario.spec.load[0].load.rate                   # typed, read-only config (drsim.config)
    scenario.replace({"spec.load[0].load.rate": 500.0}, seed=7)
    retry = drsim.config.RetryPolicy(attempts=3, per_try_timeout="500ms")   # built from keywords
    scenario.replace({"spec.load[0].retry": retry})
    scenario.topology.rtt("north-a", "south-a", down_links=["north-south"])   # drsim.topology
    drsim.queueing.erlang_c(servers=2, offered_load=1.0)                      # closed forms
    drsim.check(scenario).utilization("payments")      # drsim check: N+1 in closed form, case x zone
    drsim.kube.zone_split({"kind": "equal", "zones": ["a", "b"]}, ["a", "b"], 20)   # control plane

    drsim.plot.timeline(result)                                   # matplotlib Figure
    cmp = drsim.compare(scenario, {"base": {}, "late": {"spec.seed": 9}}, seeds=range(5))
    cmp.table                                                     # mean and 95% CI per variant
    drsim.report(result, "report.html")                           # one self-contained HTML file
    sw = drsim.sweep(scenario, {"spec.timeline[fail-a].at": ["5m", "10m"]}, seeds=range(100), out="sweep/")
    sw.runs                                                       # one row per (combination, seed)
    u = drsim.uncertainty(scenario, {"spec.load[0].load.rate": ("400rps", "600rps")}, samples=32, seeds=range(3))
    u.summary, u.ranking("fail-a.rto_s"), u.tornado("fail-a.rto_s")   # 5-95% intervals, Sobol' ranking
    drsim.write_baseline(scenario, "base.json", seeds=range(1, 21))   # CI: drsim regress exits 3 on worse
    drsim.regress("candidate.yaml", "base.json").worse                # figures worse beyond the noise

Bad scenario input raises :class:`drsim.ScenarioError` (a ``ValueError``)
whose message starts with ``file:line:col``.
"""

from __future__ import annotations

import json
from typing import Any

from drsim import _core, config, kube, plot, queueing, topology
from drsim.check import CapacityReport, check
from drsim.compare import Comparison, compare
from drsim.errors import Diagnostic, HandlerError, RunInterrupted, ScenarioError, SimulationError
from drsim.importing import (
    ExperimentImport,
    KubernetesImport,
    TraceImport,
    import_experiment,
    import_kubernetes,
    import_traces,
)
from drsim.result import Outcome, Result
from drsim.report import report
from drsim.scenario import Progress, Scenario, load, load_file, load_text
from drsim.sweep import Sweep, SweepFolderError, SweepRunError, SweepWorkerLost, sweep
from drsim.uncertainty import Uncertainty, uncertainty
from drsim.uncertainty_inputs import Choice, LogUniform, Normal, RangesError, Triangular, Uniform
from drsim.regress import Regression, regress, write_baseline

__version__: str = _core.__version__

__all__ = [
    "__version__",
    "load",
    "load_file",
    "load_text",
    "Scenario",
    "Result",
    "Outcome",
    "Progress",
    "Diagnostic",
    "ScenarioError",
    "SimulationError",
    "HandlerError",
    "RunInterrupted",
    "scenario_format_markdown",
    "scenario_json_schema",
    "event_kinds",
    "config",
    "kube",
    "queueing",
    "topology",
    "plot",
    "check",
    "CapacityReport",
    "compare",
    "Comparison",
    "report",
    "import_kubernetes",
    "KubernetesImport",
    "import_experiment",
    "ExperimentImport",
    "import_traces",
    "TraceImport",
    "sweep",
    "Sweep",
    "SweepRunError",
    "SweepWorkerLost",
    "SweepFolderError",
    "uncertainty",
    "Uncertainty",
    "Uniform",
    "LogUniform",
    "Triangular",
    "Normal",
    "Choice",
    "RangesError",
    "regress",
    "Regression",
    "write_baseline",
]
# drsim.check, drsim.compare, drsim.report, drsim.sweep, drsim.uncertainty and drsim.regress are the
# functions (the modules of the same name stay reachable as ``from drsim.compare import ...`` through
# sys.modules); the command line is ``python3 -m drsim report|uncertainty|regress ...``.


def scenario_format_markdown() -> str:
    """The scenario file reference (Markdown), generated from the C++ field lists."""
    return _core.scenario_format_markdown()


def scenario_json_schema() -> dict[str, Any]:
    """The JSON Schema of scenario files, generated from the C++ field lists."""
    schema: dict[str, Any] = json.loads(_core.scenario_json_schema())
    return schema


def event_kinds() -> list[dict[str, Any]]:
    """Every kind a model logs in the events table (``Result.events()``), from the C++
    catalog: ``name`` (``"database.switched"``), ``formerly`` (its spelling before every
    kind was ``<area>.<what>``, or ``""``), ``detectsFailure`` and ``doc``. Timeline
    steps log their action's name (``"zone:fail"``) and ``"<action>:end"`` besides."""
    kinds: list[dict[str, Any]] = json.loads(_core.event_kinds_json())["eventKinds"]
    return kinds

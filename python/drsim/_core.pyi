# Type stubs for the compiled module drsim._core (python/src/*.cc).
# Private: use the drsim package. Times are integer nanoseconds here (the
# package converts them to float seconds), except in the config views, whose
# leaves follow drsim.config's conventions.
from collections.abc import Mapping
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

# The config classes (bind_config.cc), generated from the C++ field lists:
# _core.Metadata, _core.ScenarioSpec, _core.Topology, _core.Service, ...
# Their stubs are generated from the same lists when _core is built.
from drsim._config import *  # noqa: F403
from drsim._config import _ScenarioFields

__version__: str

# ---- bind_errors.cc ----
def _throw_for_tests(kind: str) -> None: ...

# ---- bind_units.cc ----
def parse_duration_ns(text: str) -> int: ...
def format_duration_ns(ns: int) -> str: ...
def parse_rate_per_second(text: str) -> float: ...

# ---- bind_scenario.cc, bind_config.cc ----
class Scenario(_ScenarioFields):
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def duration_ns(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def source_file(self) -> str: ...
    @property
    def source_text(self) -> str: ...
    @property
    def base_dir(self) -> str: ...
    @property
    def topology_file(self) -> str: ...
    @property
    def overrides(self) -> list[str]: ...
    @property
    def guards(self) -> dict[str, int]: ...
    def timeline(self) -> list[dict[str, Any]]: ...
    def regions(self) -> list[dict[str, Any]]: ...
    def links(self) -> list[dict[str, Any]]: ...
    def with_overrides(self, overrides: list[str]) -> Scenario: ...
    def to_yaml(self) -> str: ...
    def describe(self) -> str: ...
    def replacement_overrides(self, changes: Mapping[str, Any]) -> list[str]: ...

_config_classes: tuple[type, ...]

def load_file(path: str, overrides: list[str] = ...) -> Scenario: ...
def load_text(
    text: str, overrides: list[str] = ..., source_name: str = ..., base_dir: str | None = ...
) -> Scenario: ...
def scenario_format_markdown() -> str: ...
def scenario_json_schema() -> str: ...

# ---- bind_queueing.cc ----
def erlang_b(servers: int, offered_load: float) -> float: ...
def erlang_c(servers: int, offered_load: float) -> float: ...
def mmc_metrics(arrival_rate: float, mean_service_ns: int, servers: int) -> dict[str, float] | None: ...
def mmck_metrics(arrival_rate: float, mean_service_ns: int, servers: int, capacity: int) -> dict[str, float]: ...

# ---- bind_kube.cc ----
# Times here are float seconds since the start of the run (not nanoseconds),
# quantities integer milli-units; drsim/kube.py builds the dicts.
class HpaScalingHistory:
    recommendations: list[tuple[int, float]]
    scale_up_events: list[tuple[int, float, bool]]
    scale_down_events: list[tuple[int, float, bool]]
    def __init__(self) -> None: ...
    def clear(self) -> None: ...
    def record_initial_recommendation(self, current_replicas: int, now: float) -> None: ...
    def store_scale_event(
        self,
        behavior: dict[str, Any] | None,
        prev_replicas: int,
        new_replicas: int,
        now: float,
        downscale_stabilization: float,
    ) -> None: ...

def kube_group_pods(
    pods: list[dict[str, Any]],
    metrics: list[dict[str, Any]],
    resource: str | None,
    now: float,
    cpu_initialization_period: float,
    initial_readiness_delay: float,
) -> dict[str, Any]: ...
def kube_pod_requests(
    pods: list[dict[str, Any]], container: str, resource: str, pod_level_resources: bool
) -> list[int] | dict[str, str]: ...
def kube_resource_utilization_replicas(
    current_replicas: int,
    target_utilization: int,
    resource: str,
    container: str,
    pods: list[dict[str, Any]],
    metrics: list[dict[str, Any]],
    now: float,
    scale_up_tolerance: float,
    scale_down_tolerance: float,
    cpu_initialization_period: float,
    initial_readiness_delay: float,
    pod_level_resources: bool,
) -> dict[str, Any]: ...
def kube_raw_resource_replicas(
    current_replicas: int,
    target_average_milli: int,
    resource: str,
    pods: list[dict[str, Any]],
    metrics: list[dict[str, Any]],
    now: float,
    scale_up_tolerance: float,
    scale_down_tolerance: float,
    cpu_initialization_period: float,
    initial_readiness_delay: float,
    pod_level_resources: bool,
) -> dict[str, Any]: ...
def kube_pods_metric_replicas(
    current_replicas: int,
    target_average_milli: int,
    metric_name: str,
    pods: list[dict[str, Any]],
    metrics: list[dict[str, Any]],
    now: float,
    scale_up_tolerance: float,
    scale_down_tolerance: float,
) -> dict[str, Any]: ...
def kube_object_metric_replicas(
    current_replicas: int,
    target_milli: int,
    usage_milli: int,
    pods: list[dict[str, Any]],
    scale_up_tolerance: float,
    scale_down_tolerance: float,
) -> dict[str, Any]: ...
def kube_object_per_pod_metric_replicas(
    status_replicas: int,
    target_average_milli: int,
    usage_milli: int,
    timestamp: float,
    scale_up_tolerance: float,
    scale_down_tolerance: float,
) -> dict[str, Any]: ...
def kube_external_metric_replicas(
    current_replicas: int,
    target_milli: int,
    metric_name: str,
    values_milli: list[int],
    pods: list[dict[str, Any]],
    scale_up_tolerance: float,
    scale_down_tolerance: float,
) -> dict[str, Any]: ...
def kube_external_per_pod_metric_replicas(
    status_replicas: int,
    target_average_milli: int,
    metric_name: str,
    values_milli: list[int],
    timestamp: float,
    scale_up_tolerance: float,
    scale_down_tolerance: float,
) -> dict[str, Any]: ...
def kube_resolve_behavior(
    behavior: dict[str, Any] | None, downscale_stabilization: float, controller_tolerance: float
) -> dict[str, Any]: ...
def kube_normalize_desired_replicas(
    history: HpaScalingHistory,
    current_replicas: int,
    desired_replicas: int,
    min_replicas: int,
    max_replicas: int,
    behavior: dict[str, Any] | None,
    now: float,
    downscale_stabilization: float,
    scale_up_limit_factor: float,
) -> dict[str, Any]: ...
def kube_reconcile_replicas(
    history: HpaScalingHistory,
    current_replicas: int,
    metric_desired_replicas: int,
    min_replicas: int,
    max_replicas: int,
    behavior: dict[str, Any] | None,
    now: float,
    downscale_stabilization: float,
) -> dict[str, Any]: ...
def kube_zone_split(policy: dict[str, Any], zones: list[dict[str, Any]], desired: int, fresh: bool) -> dict[str, Any]: ...
def kube_candidate_policies(current_policy: dict[str, Any], zones: list[dict[str, Any]]) -> list[dict[str, Any]]: ...
def kube_policy_deviation(from_policy: dict[str, Any], to_policy: dict[str, Any]) -> int: ...
def kube_recommend_policies(
    current_policy: dict[str, Any],
    zones: list[dict[str, Any]],
    needed: int,
    extra: list[tuple[str, dict[str, Any]]],
    migrate: bool,
) -> list[dict[str, Any]]: ...

# ---- bind_policy_advice.cc ----
def capacity_check(scenario: Scenario, utilization_target: float) -> tuple[str, str]: ...
def advise_policy(
    scenario: Scenario, service: str, zone: str, replicas: int | None, migrate: bool
) -> tuple[str, str]: ...

# ---- bind_run.cc ----
class RunOutcome:
    @property
    def complete(self) -> bool: ...
    @property
    def reason(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def events(self) -> int: ...
    @property
    def end_ns(self) -> int: ...
    @property
    def wall_seconds(self) -> float: ...

class RunResult:
    @property
    def scenario(self) -> Scenario: ...
    @property
    def seed(self) -> int: ...
    @property
    def horizon_ns(self) -> int: ...
    @property
    def outcome(self) -> RunOutcome: ...
    @property
    def series_count(self) -> int: ...
    @property
    def point_count(self) -> int: ...
    @property
    def event_count(self) -> int: ...
    def label_keys(self) -> list[str]: ...
    def series_info(self) -> list[tuple[str, dict[str, str], int]]: ...
    def timeseries_arrays(
        self, series: list[int] | None = ...
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...
    def events_arrays(self) -> dict[str, Any]: ...
    def kpis(self) -> list[tuple[str, dict[str, str], float]]: ...
    def find_kpi(self, name: str, labels: list[tuple[str, str]] = ...) -> float | None: ...
    def summary(self) -> str: ...
    def timeseries_csv(self) -> str: ...
    def events_csv(self) -> str: ...
    def kpis_json(self) -> str: ...
    def write_results(self, dir: str) -> None: ...

def run(
    scenario: Scenario,
    *,
    seed: int | None = ...,
    until_ns: int | None = ...,
    progress: Callable[[int, int, int, float], object] | None = ...,
    check_signals: bool = ...,
) -> tuple[RunResult, BaseException | None]: ...

"""drsim.config values built in Python: keyword constructors, _replace(),
pickling, their use in Scenario.replace(), Scenario.replace(**spec_fields),
IPython's pretty printer and the generated stubs of the constructors."""

from __future__ import annotations

import ast
import copy
import datetime
import gc
import inspect
import pathlib
import pickle
import re
from typing import Any

import pytest

import drsim
from drsim import _core
from drsim.config import ConfigList, classes, fields

config = drsim.config

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def default(default_scenario_path: pathlib.Path) -> drsim.Scenario:
    return drsim.load(default_scenario_path)


@pytest.fixture(scope="module")
def hpa_scenario() -> drsim.Scenario:
    return drsim.load(REPO_ROOT / "scenarios" / "az_failure_hpa_trap.yaml")


@pytest.fixture(scope="module")
def pool_scenario() -> drsim.Scenario:
    return drsim.load(REPO_ROOT / "scenarios" / "three_region_pool_pileup.yaml")


# ---- values equal to what a scenario gets from the same text ---------------------


def test_constructed_value_equals_the_decoded_one(default: drsim.Scenario) -> None:
    # The same mapping as YAML text in the scenario, through --set: no Python conversion involved.
    loaded = default.with_overrides(["spec.load[checkout].retry={attempts: 3, perTryTimeout: 500ms}"])
    view = loaded.spec.load["checkout"].retry
    built = config.RetryPolicy(attempts=3, per_try_timeout=0.5)
    assert built == view and view == built
    assert hash(built) == hash(view)
    assert repr(built) == repr(view)
    assert built._asdict() == view._asdict()
    # Every default filled in, as the decoder fills them.
    assert built.backoff.base == 0.025
    assert built.backoff.max is None
    assert built.budget is None
    assert built.retry_on == ("timeout", "rejected", "no_target", "refused", "dependency")
    assert isinstance(built, config.RetryPolicy) and type(built) is type(view)


def test_keys_may_be_yaml_camel_case_and_values_scenario_text() -> None:
    expected = config.RetryPolicy(attempts=3, per_try_timeout=0.5)
    assert config.RetryPolicy(attempts=3, perTryTimeout="500ms") == expected
    assert config.RetryPolicy(attempts=3, per_try_timeout=datetime.timedelta(milliseconds=500)) == expected
    profile = config.RateProfile(kind="constant", rate="1200/min")
    assert profile.rate == 20.0
    assert config.RateProfile(kind="constant", rate=20.0) == profile
    link = config.Link(name="a-b", between=["a", "b"], rtt="28ms", bandwidth="10Gbps")
    assert (link.rtt, link.bandwidth, link.between) == (0.028, 1e10, ("a", "b"))


def test_nested_struct_from_a_dict_or_a_value(pool_scenario: drsim.Scenario) -> None:
    tcp = config.Tcp(so_keepalive=True)
    from_dict = config.ConnectionPool(maximum_pool_size=10, minimum_idle=5, connect_timeout="2s",
                                      tcp={"soKeepalive": True})  # fmt: skip
    from_value = config.ConnectionPool(maximum_pool_size=10, minimum_idle=5, connect_timeout=2.0, tcp=tcp)
    assert from_dict == from_value
    assert from_dict.tcp == tcp and from_dict.tcp.syn_retries == config.Tcp().syn_retries
    # The pool a shipped scenario writes with the same keys.
    calls = [c for s in pool_scenario.services for c in s.calls if c.pool is not None]
    assert calls and calls[0].pool == from_dict
    # A nested value taken from a loaded scenario, and a list of nested dicts.
    assert config.ConnectionPool(tcp=calls[0].pool.tcp).tcp == tcp
    rules = config.HpaScalingRules(policies=[{"type": "Pods", "value": 4, "period_seconds": 60}])
    assert isinstance(rules.policies, ConfigList) and rules.policies[0].value == 4


def test_hpa_and_its_behavior(hpa_scenario: drsim.Scenario) -> None:
    loaded = hpa_scenario.spec.kubernetes.hpas["api"]
    built = config.Hpa(
        name="api",
        target="api",
        min_replicas=8,
        max_replicas=30,
        metrics=[{"type": "Resource", "resource": {"name": "cpu",
                                                  "target": {"type": "Utilization", "average_utilization": 60}}}],
    )  # fmt: skip
    assert built == loaded
    behavior = config.HpaBehavior(scale_down={"stabilization_window_seconds": 60})
    assert behavior.scale_down.stabilization_window_seconds == 60
    assert behavior.scale_up == config.HpaScalingRules()
    with_behavior = built._replace(behavior=behavior)
    assert with_behavior.behavior == behavior and built.behavior is None
    # HpaBehavior's own rules (the API server's checks) apply.
    with pytest.raises(drsim.ScenarioError, match=r"^HpaBehavior\.scaleUp\.selectPolicy: "):
        config.HpaBehavior(scale_up={"select_policy": "Sometimes"})


def test_database_and_health_check(pool_scenario: drsim.Scenario) -> None:
    check = config.HealthCheck(checkers=["north-a", "east-a"], request_interval="10s")
    assert (check.request_interval, check.checkers, check.timeout) == (10.0, ("north-a", "east-a"), 6.0)
    database = pool_scenario.topology.databases["north-shard"]
    assert config.Database(**database._asdict()) == database
    assert database._replace(write_rate="600rps").write_rate == 600.0


def test_rate_profile_rules_are_the_configs_own() -> None:
    stages = config.RateProfile(kind="stages", start_rate=100.0, stages=[{"duration": "5m", "target": "200rps"}])
    assert stages.stages[0].duration == 300.0 and stages.stages[0].target == 200.0
    with pytest.raises(drsim.ScenarioError, match=r"^RateProfile\.rate: required for kind constant$"):
        config.RateProfile(kind="constant")
    with pytest.raises(drsim.ScenarioError, match=r"^RateProfile\.rate: applies only to kind constant"):
        config.RateProfile(kind="diurnal", base=10.0, amplitude=0.5, rate=3.0)


def test_a_rate_trace_file_is_read_relative_to_the_current_directory(tmp_path: pathlib.Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    (tmp_path / "trace.csv").write_text("at,rate\n0s,100rps\n60s,200rps\n")
    monkeypatch.chdir(tmp_path)
    profile = config.RateProfile(kind="trace", file="trace.csv")
    assert [(p.at, p.rate) for p in profile.points] == [(0.0, 100.0), (60.0, 200.0)]
    assert profile.file == str(tmp_path / "trace.csv")
    assert pickle.loads(pickle.dumps(profile)) == profile
    with pytest.raises(drsim.ScenarioError, match=r"^RateProfile\.file: cannot read CSV file"):
        config.RateProfile(kind="trace", file="missing.csv")


# ---- errors ---------------------------------------------------------------------


def test_unknown_keyword_suggests_and_lists_the_valid_ones() -> None:
    with pytest.raises(TypeError) as info:
        config.RetryPolicy(atempts=3)
    message = str(info.value)
    assert message.startswith('RetryPolicy(): unknown keyword argument "atempts", did you mean "attempts"?')
    assert "valid keywords: attempts, per_try_timeout, backoff, retry_on, budget" in message
    with pytest.raises(TypeError, match='did you mean "concurrency"'):
        config.Service(name="s", replicas=[], service_time={"kind": "constant", "value": "1ms"}, concurency=2)
    # Inside a nested mapping the key is a scenario key: a ScenarioError at its path.
    with pytest.raises(drsim.ScenarioError, match=r'^RetryPolicy\.backoff\.bse: unknown key "bse", did you mean'):
        config.RetryPolicy(backoff={"bse": 0.1})


def test_bad_values_name_the_class_and_field() -> None:
    with pytest.raises(drsim.ScenarioError, match=r"^RetryPolicy\.attempts: expected an int, got str 'three'$") as info:
        config.RetryPolicy(attempts="three")
    assert isinstance(info.value, ValueError)
    assert info.value.path == "RetryPolicy.attempts"
    assert (info.value.file, info.value.line) == ("", 0)
    with pytest.raises(drsim.ScenarioError, match=r"^RetryPolicy\.attempts: expected a positive"):
        config.RetryPolicy(attempts=0)
    with pytest.raises(drsim.ScenarioError, match=r"^RetryPolicy\.perTryTimeout: .*\"abc\""):
        config.RetryPolicy(per_try_timeout="abc")
    with pytest.raises(drsim.ScenarioError, match=r"^Link\.loss: expected a percentage of at most 100%"):
        config.Link(name="a-b", between=["a", "b"], rtt=0.01, bandwidth="1Gbps", loss=1.5)
    with pytest.raises(drsim.ScenarioError, match=r"^Backoff\.base: expected float .*, got list"):
        config.Backoff(base=[1])
    with pytest.raises(drsim.ScenarioError, match="only optional fields can be left unset"):
        config.Backoff(base=None)


def test_signature_mistakes_are_type_errors() -> None:
    with pytest.raises(TypeError, match=r"^RetryPolicy\(\) takes keyword arguments only, one per field \(attempts, "):
        config.RetryPolicy(3)  # type: ignore[misc]
    with pytest.raises(TypeError, match=r"^HealthCheck\(\) missing required keyword arguments: checkers$"):
        config.HealthCheck()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="given twice"):
        config.RetryPolicy(per_try_timeout=1.0, perTryTimeout=1.0)
    with pytest.raises(TypeError, match="keyword arguments only"):
        config.Backoff()._replace(0.1)  # type: ignore[call-arg]
    for root in (config.ScenarioSpec,):
        with pytest.raises(TypeError, match=r"drsim\.load\(path\) or drsim\.load_text\(text\)"):
            root(seed=3)


def test_construction_never_crashes_on_odd_input() -> None:
    odd: list[Any] = [object(), float("nan"), 2**80, -(2**80), "\x00", "a: b", "{", b"x", {1: 2}, [object()], set()]
    for value in odd:
        for cls, field in [(config.RetryPolicy, "attempts"), (config.Backoff, "base"), (config.RetryPolicy, "backoff"),
                           (config.RetryPolicy, "retry_on"), (config.Link, "name")]:  # fmt: skip
            try:
                cls(**{field: value})
            except (TypeError, ValueError):
                pass


# ---- _replace, ownership, protocols --------------------------------------------------


def test_replace_changes_fields_of_a_loaded_view(default: drsim.Scenario) -> None:
    payments = default.services["payments"]
    faster = payments._replace(concurrency=64)
    assert faster.concurrency == 64 and payments.concurrency != 64
    assert all(getattr(faster, f) == getattr(payments, f) for f in payments._fields if f != "concurrency")
    assert payments._replace() == payments
    assert default.replace({"spec.topology.services[payments].concurrency": 64}).services["payments"] == faster
    with pytest.raises(drsim.ScenarioError, match=r"^Service\.concurrency: expected a positive"):
        payments._replace(concurrency=0)
    with pytest.raises(TypeError, match=r'^Service\._replace\(\): unknown keyword argument "concurrence"'):
        payments._replace(concurrence=3)
    retry = config.RetryPolicy(attempts=3, per_try_timeout=0.5)
    assert retry._replace(per_try_timeout=None).per_try_timeout is None  # None unsets an optional field
    assert retry._replace(perTryTimeout="1s").per_try_timeout == 1.0


def test_constructed_values_own_their_struct() -> None:
    backoff = config.RetryPolicy(attempts=2, backoff={"base": "50ms"}).backoff
    gc.collect()
    assert backoff.base == 0.05 and backoff == config.Backoff(base=0.05)
    rules = config.HpaScalingRules(policies=[{"type": "Pods", "value": 4, "period_seconds": 60}]).policies
    gc.collect()
    assert rules[0].value == 4


def test_values_hash_and_copy_and_pickle(default: drsim.Scenario) -> None:
    built = config.RetryPolicy(attempts=3)
    assert {built: 1}[config.RetryPolicy(attempts=3)] == 1
    assert built != config.RetryPolicy(attempts=4) and built != "RetryPolicy"
    assert copy.copy(built) is built and copy.deepcopy(built) is built
    for value in (built, default.services["payments"], default.spec.load["checkout"], default.topology.links[0]):
        again = pickle.loads(pickle.dumps(value))
        assert again == value and hash(again) == hash(value) and type(again) is type(value)


def test_a_constructed_value_goes_into_a_scenario_and_the_run_uses_it(default: drsim.Scenario) -> None:
    # Attempts time out after 1 ms, so every request is retried.
    retry = config.RetryPolicy(attempts=3, per_try_timeout=0.001)
    changed = default.replace({"spec.load[checkout].retry": retry})
    assert changed.spec.load["checkout"].retry == retry
    assert changed.overrides[-1].startswith("spec.load[checkout].retry={attempts: 3, perTryTimeout: 1ms")

    def retries(s: drsim.Scenario) -> float:
        series = s.run(until="1m").timeseries("client.retries")
        return float(series["value"].sum()) if len(series) else 0.0

    assert retries(default) == 0
    assert retries(changed) > 0


def test_scenario_replace_takes_spec_fields_as_keywords(default: drsim.Scenario) -> None:
    by_keywords = default.replace(seed=7, duration="1h")
    by_paths = default.replace({"spec.seed": 7, "spec.duration": "1h"})
    assert by_keywords.spec == by_paths.spec
    assert by_keywords.overrides == by_paths.overrides == ("spec.seed=7", "spec.duration=1h")
    mixed = default.replace({"spec.seed": 3, "spec.metricsWindow": 30.0}, seed=9)
    assert (mixed.seed, mixed.spec.metrics_window) == (9, 30.0)
    with pytest.raises(drsim.ScenarioError, match=r'spec\.sed: unknown key "sed", did you mean "seed"'):
        default.replace(sed=7)


# ---- every class ----------------------------------------------------------------------


def _first_instances() -> dict[type, Any]:
    """The first value of each config class in the shipped scenarios."""
    found: dict[type, Any] = {}

    def visit(value: Any) -> None:
        if isinstance(value, (ConfigList, tuple)):
            for item in value:
                visit(item)
        elif hasattr(type(value), "_field_table"):
            found.setdefault(type(value), value)
            for name in value._fields:
                visit(getattr(value, name))

    for path in sorted((REPO_ROOT / "scenarios").glob("*.yaml")):
        visit(drsim.load(path).spec)
    return found


def _plausible(annotation: str, instance: Any, name: str) -> Any:
    """A value for a required field: what a shipped scenario gives it, else one by its type."""
    if instance is not None:
        return getattr(instance, name)
    base = annotation.removesuffix(" | None")
    if base == "str":
        return "x"
    if base == "int":
        return 1
    if base == "float":
        return 1.0
    if base == "bool":
        return True
    if base.startswith(("tuple[", "ConfigList[")):
        return []
    return {}


def test_every_class_builds_from_its_required_fields() -> None:
    instances = _first_instances()
    built = needs_more = 0
    for cls in classes():
        if cls is _core.Scenario:
            continue
        if cls is config.ScenarioSpec:
            with pytest.raises(TypeError, match=r"drsim\.load"):
                cls()
            continue
        instance = instances.get(cls)
        required = {f.name: _plausible(f.type, instance, f.name) for f in fields(cls) if f.required}
        try:
            value = cls(**required)
        except drsim.ScenarioError as e:
            # The class's own rules ask for more than the required fields
            # (a RateProfile of kind constant needs its rate): a message at a
            # field of this class, never a crash or a decoding failure.
            assert str(e).startswith(cls.__name__ + "."), (cls.__name__, str(e))
            assert "unknown key" not in str(e) and "expected a mapping" not in str(e), (cls.__name__, str(e))
            needs_more += 1
        else:
            assert type(value) is cls
            assert all(getattr(value, k) == v or isinstance(v, (list, dict)) for k, v in required.items()), cls
            assert value._replace() == value
            assert pickle.loads(pickle.dumps(value)) == value
            built += 1
        if instance is not None:
            # A real value survives the trip through plain data and back.
            assert cls(**instance._asdict()) == instance, cls.__name__
    assert built > 3 * needs_more, (built, needs_more)


# ---- pretty printing and stubs -------------------------------------------------------


def test_ipython_pretty_prints_one_field_per_line(default: drsim.Scenario) -> None:
    pretty = pytest.importorskip("IPython.lib.pretty")
    service = default.services["payments"]
    lines = pretty.pretty(service, max_width=79).splitlines()
    assert lines[:3] == ["Service(", "    name='payments',", "    replicas=["]
    assert lines[3].startswith("        Replicas(zone=")
    assert lines[-1] == ")" and all(len(line) <= 79 for line in lines)
    # The same text as repr(), only wrapped.
    assert re.sub(r",\s*", ", ", "".join(line.strip() for line in lines)) == repr(service)
    assert pretty.pretty(config.Backoff(), max_width=79) == "Backoff(base=0.025, max=None)"
    assert pretty.pretty(default.topology.links, max_width=40).startswith("[\n    Link(\n        name='north-east',")
    assert pretty.pretty(ConfigList([]), max_width=40) == "[]"


def test_the_constructor_signature_shows_keywords_and_defaults() -> None:
    signature = inspect.signature(config.RetryPolicy)
    assert list(signature.parameters) == list(config.RetryPolicy._fields)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in signature.parameters.values())
    built = config.RetryPolicy()
    assert all(p.default == getattr(built, name) for name, p in signature.parameters.items())
    assert signature.parameters["per_try_timeout"].annotation == "float | str | timedelta | None"
    checkers = inspect.signature(config.HealthCheck).parameters["checkers"]
    assert checkers.default is inspect.Parameter.empty  # required
    # Every class's defaults are what it gets when a keyword is left out.
    for cls in classes():
        if hasattr(cls, "_field_defaults"):
            assert len(cls._field_defaults()) == len(cls._fields), cls.__name__


def test_generated_stubs_declare_the_constructors() -> None:
    text = (pathlib.Path(drsim.__file__).parent / "_config.pyi").read_text()
    tree = ast.parse(text)
    stubs = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    for cls in classes():
        if cls is _core.Scenario:
            continue
        methods = {n.name: n for n in stubs[cls.__name__].body if isinstance(n, ast.FunctionDef)}
        assert "__init__" in methods and "_replace" in methods, cls.__name__
        if cls is config.ScenarioSpec:
            continue
        init = methods["__init__"].args
        assert [a.arg for a in init.kwonlyargs] == list(cls._fields), cls.__name__
        required = {f.name for f in fields(cls) if f.required}
        for arg, default in zip(init.kwonlyargs, init.kw_defaults):
            assert (default is None) == (arg.arg in required), (cls.__name__, arg.arg)
        assert not init.args[1:] and init.vararg is None and init.kwarg is None
    retry = text[text.index("class RetryPolicy:") :]
    retry = retry[retry.index("    def __init__(") : retry.index("    def _replace(")]
    assert "        attempts: int = ...,\n" in retry
    assert "        per_try_timeout: float | str | timedelta | None = ...,\n" in retry
    assert "        backoff: Backoff | Mapping[str, Any] = ...,\n" in retry
    assert "        retry_on: Iterable[str] = ...,\n" in retry
    check = text[text.index("class HealthCheck:") :]
    assert "        checkers: Iterable[str],\n" in check[: check.index("    def _replace(")]

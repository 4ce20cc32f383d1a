"""Typed, read-only access to the resolved config tree (drsim.config), and
Scenario.replace(): values against the YAML they came from, every field of
every config struct reachable, immutability, errors, and the type stubs."""

from __future__ import annotations

import ast
import copy
import datetime
import gc
import json
import keyword
import pathlib
import pickle
import re
import textwrap
from fractions import Fraction
from typing import Any

import pytest

import drsim
from drsim import _core
from drsim.config import ConfigList, fields

yaml = pytest.importorskip("yaml")  # PyYAML, only to read test files independently of drsim


# ---- independent helpers: what the YAML text means -------------------------

_DURATION_S = {"ns": Fraction(1, 10**9), "us": Fraction(1, 10**6), "µs": Fraction(1, 10**6),
               "ms": Fraction(1, 1000), "s": Fraction(1), "m": Fraction(60), "h": Fraction(3600),
               "d": Fraction(86400)}  # fmt: skip
_RATE_PER_S = {"rps": Fraction(1), "/s": Fraction(1), "rpm": Fraction(1, 60), "/min": Fraction(1, 60),
               "rph": Fraction(1, 3600), "/h": Fraction(1, 3600)}  # fmt: skip
_BANDWIDTH_BPS = {"bps": 1, "kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9, "Tbps": 10**12,
                  "B/s": 8, "kB/s": 8 * 10**3, "MB/s": 8 * 10**6, "GB/s": 8 * 10**9}  # fmt: skip
_SIZE_BYTES = {"B": 1, "kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
               "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}  # fmt: skip


def _number_with_unit(text: str, units: dict[str, Any]) -> Fraction:
    match = re.fullmatch(r"(-?\d+(?:\.\d+)?)(.+)", text.strip())
    assert match and match.group(2) in units, f"not a quantity with a unit: {text!r}"
    return Fraction(match.group(1)) * Fraction(units[match.group(2)])


def seconds(text: str) -> float:
    """'1h30m' -> 5400.0, '28ms' -> 0.028."""
    parts = re.findall(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)", text)
    assert "".join(n + u for n, u in parts) == text, f"not a duration: {text!r}"
    return float(sum(Fraction(n) * _DURATION_S[u] for n, u in parts))


def expected_leaf(text: Any, unit: str) -> Any:
    """The Python value drsim.config documents for a YAML leaf."""
    if unit == "seconds":
        return seconds(str(text))
    if unit == "per second":
        return float(_number_with_unit(str(text), _RATE_PER_S))
    if unit == "bits per second":
        return float(_number_with_unit(str(text), _BANDWIDTH_BPS))
    if unit.startswith("a fraction"):
        assert str(text).endswith("%")
        return float(Fraction(str(text)[:-1]) / 100)
    if unit == "bytes":
        return int(_number_with_unit(str(text), _SIZE_BYTES))
    return text


def snake(key: str) -> str:
    """camelCase -> snake_case, as drsim.config documents it."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", key)
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    return name + "_" if keyword.iskeyword(name) else name


def field_units(view: Any) -> dict[str, str]:
    return {f.name: f.unit for f in fields(view)}


def assert_matches_yaml(node: Any, view: Any, path: str, unit: str = "") -> None:
    """Every key of the YAML node is an attribute of the view, with the value
    the YAML text means."""
    if isinstance(node, dict):
        assert hasattr(type(view), "_fields"), f"{path}: expected a config view, got {view!r}"
        units = field_units(view)
        for key, value in node.items():
            name = snake(key)
            assert name in type(view)._fields, f"{path}.{key}: no attribute {name!r} on {type(view).__name__}"
            assert_matches_yaml(value, getattr(view, name), f"{path}.{key}", units[name])
    elif isinstance(node, list):
        assert isinstance(view, (ConfigList, tuple)), f"{path}: expected a list, got {view!r}"
        assert len(view) == len(node), path
        for i, (item, item_view) in enumerate(zip(node, view)):
            assert_matches_yaml(item, item_view, f"{path}[{i}]", unit)
    else:
        expected = expected_leaf(node, unit)
        if isinstance(expected, float):
            assert view == pytest.approx(expected, rel=1e-12, abs=1e-15), path
        else:
            assert view == expected, path


def default_yaml_with_topology(path: pathlib.Path) -> dict[str, Any]:
    """scenarios/default.yaml as PyYAML reads it, its topology file's spec in place of the path."""
    doc = yaml.safe_load(path.read_text())
    topology_file = path.parent / doc["spec"]["topology"]
    doc["spec"]["topology"] = yaml.safe_load(topology_file.read_text())["spec"]
    return doc


def root_view(scenario: drsim.Scenario) -> Any:
    return scenario._core


# ---- values ------------------------------------------------------------------


def test_inline_scenario_values(inline_scenario: drsim.Scenario) -> None:
    spec = inline_scenario.spec
    assert spec.duration == 7200.0
    assert spec.seed == 7
    assert spec.metrics_window == 1.0  # the default, filled in
    assert [r.name for r in spec.topology.regions] == ["eu-west-1", "eu-central-1"]
    assert [z.name for z in spec.topology.regions["eu-west-1"].zones] == ["eu-west-1a", "eu-west-1b", "eu-west-1c"]
    link = inline_scenario.topology.links["west-central"]
    assert (link.rtt, link.bandwidth, link.loss, link.jitter) == (0.028, 1e10, 0.0, 0.0)
    assert link.between == ("eu-west-1", "eu-central-1")
    step = spec.timeline["degrade-link"]
    assert step.at is None
    assert step.start_after == ("fail-a",)
    assert (step.delay, step.duration, step.latency) == (300.0, 600.0, 0.05)
    assert step.target.link == "west-central"
    assert spec.timeline["fail-a"].at == 600.0
    assert inline_scenario.metadata.name == "py-inline"


def test_default_scenario_matches_its_yaml(default_scenario_path: pathlib.Path) -> None:
    scenario = drsim.load(default_scenario_path)
    assert_matches_yaml(default_yaml_with_topology(default_scenario_path), root_view(scenario), "")
    # The shortcuts the docs use.
    assert scenario.spec.load[0].load.rate == 300.0
    assert scenario.services["payments"].concurrency == 8
    assert scenario.services["payments"].queue_limit == 16
    assert scenario.services["payments"].service_time.p99 == 0.12
    assert sum(r.replicas for r in scenario.services["payments"].replicas) == 27


UNITS_SCENARIO = textwrap.dedent(
    """\
    apiVersion: drsim/v1alpha1
    kind: Scenario
    metadata: {name: units}
    spec:
      duration: 1h30m
      topology:
        regions:
          - name: r1
            interZoneRtt: 1500us
            zones: [{name: z1}, {name: z2}]
          - name: r2
            zones: [{name: z3}]
        links:
          - {name: l, between: [r1, r2], rtt: 28ms, bandwidth: 125MB/s, loss: 0.5%}
        services:
          - name: api
            replicas: [{zone: z1, replicas: 2}]
            serviceTime: {kind: exponential, mean: 20ms}
      load:
        - name: web
          service: api
          load: {kind: diurnal, base: 1200/min, amplitude: 25%, period: 1d, peakAt: 14h}
    """
)


def test_units_are_si_floats() -> None:
    s = drsim.load_text(UNITS_SCENARIO)
    assert s.spec.duration == 5400.0
    assert s.topology.regions["r1"].inter_zone_rtt == 0.0015
    assert s.topology.regions["r2"].inter_zone_rtt == 0.001  # default 1ms
    link = s.topology.links["l"]
    assert link.bandwidth == 1e9  # 125 MB/s = 1 Gbit/s
    assert link.loss == pytest.approx(0.005, rel=1e-15)
    profile = s.spec.load["web"].load
    assert (profile.kind, profile.base, profile.amplitude) == ("diurnal", 20.0, 0.25)
    assert (profile.period, profile.peak_at) == (86400.0, 50400.0)
    assert profile.rate is None and profile.stages == [] and profile.points == []
    assert s.services["api"].service_time.mean == 0.02
    assert isinstance(s.spec.seed, int) and isinstance(s.spec.duration, float)


def test_optionals_are_none_and_defaults_filled(inline_scenario: drsim.Scenario) -> None:
    spec = inline_scenario.spec
    assert spec.timeline["fail-a"].latency is None
    assert spec.timeline["fail-a"].loss is None
    assert spec.guards.max_events == 0
    assert spec.guards.max_events_per_instant == 10_000_000
    s = drsim.load_text(UNITS_SCENARIO)
    assert s.services["api"].queue_limit is None
    assert s.services["api"].concurrency == 1
    assert s.services["api"].balancing == "round-robin"


# ---- every field of every struct ----------------------------------------------


def test_every_schema_type_is_a_class_with_the_same_fields() -> None:
    defs = drsim.scenario_json_schema()["$defs"]
    by_name = {cls.__name__: cls for cls in drsim.config.classes()}
    assert by_name["Scenario"] is _core.Scenario
    # TopologyDocument is the envelope of a topology file, not part of a loaded scenario.
    assert set(defs) - {"TopologyDocument"} == set(by_name)
    for name, definition in defs.items():
        if name == "TopologyDocument":
            continue
        cls = by_name[name]
        described = fields(cls)
        # serviceDefaults is merged into the services before decoding: a way of
        # writing them, not a field of the loaded topology.
        properties = [k for k in definition["properties"] if not (name == "Topology" and k == "serviceDefaults")]
        assert [f.key for f in described] == properties, name
        assert [f.name for f in described] == [snake(k) for k in properties], name
        assert cls._fields == tuple(f.name for f in described)
        required = set(definition.get("required", ()))
        for f in described:
            if name == "Service" and f.key in ("replicas", "serviceTime"):
                # Required of a loaded service; a file may give them in serviceDefaults.
                assert f.required and f.key not in required
                continue
            assert f.required == (f.key in required), f"{name}.{f.key}"
            assert f.doc == definition["properties"][f.key]["description"]
            # Each attribute is a documented, read-only property.
            prop = getattr(cls, f.name)
            assert isinstance(prop, property) and prop.fset is None, f"{name}.{f.name}"
            assert prop.__doc__.startswith(f.doc), f"{name}.{f.name}"
            assert f"YAML key: {f.key}" in prop.__doc__


def test_every_resolved_value_is_reachable(default_scenario_path: pathlib.Path) -> None:
    """to_yaml() writes every field that has a value (defaults included); the
    attribute tree has exactly those, with the same values, and None for the
    rest."""
    scenario = drsim.load(default_scenario_path)
    resolved = yaml.safe_load(scenario.to_yaml())
    assert_matches_yaml(resolved, root_view(scenario), "")

    def present(node: dict[str, Any], view: Any, path: str) -> None:
        set_attributes = {n for n in type(view)._fields if getattr(view, n) is not None}
        assert set_attributes == {snake(k) for k in node}, path
        for key, value in node.items():
            child = getattr(view, snake(key))
            if isinstance(value, dict):
                present(value, child, f"{path}.{key}")
            elif isinstance(value, list):
                for i, (item, item_view) in enumerate(zip(value, child)):
                    if isinstance(item, dict):
                        present(item, item_view, f"{path}.{key}[{i}]")

    present(resolved, root_view(scenario), "")


def test_to_dict_is_plain_data(default_scenario_path: pathlib.Path) -> None:
    scenario = drsim.load(default_scenario_path)
    data = scenario.to_dict()
    json.dumps(data)  # only dicts, lists, str, numbers, bools, None
    assert data["spec"]["load"][0]["load"]["rate"] == 300.0
    assert data["spec"]["topology"]["links"][0]["rtt"] == 0.028
    assert data["spec"]["load"][0] == scenario.spec.load[0]._asdict()
    assert list(data) == list(_core.Scenario._fields)


# ---- ConfigList ---------------------------------------------------------------


def test_config_list_by_index_and_name(inline_scenario: drsim.Scenario) -> None:
    timeline = inline_scenario.spec.timeline
    assert isinstance(timeline, ConfigList)
    assert len(timeline) == 2
    assert timeline[0] is not None and timeline[0] == timeline["fail-a"]
    assert timeline[-1].name == "degrade-link"
    assert [a.name for a in timeline[1:]] == ["degrade-link"]
    assert timeline.names() == ["fail-a", "degrade-link"]
    assert "fail-a" in timeline and "nope" not in timeline
    assert timeline[0] in timeline
    assert timeline.get("nope") is None
    assert timeline == list(timeline) and timeline == tuple(timeline)
    with pytest.raises(KeyError, match="did you mean 'fail-a'"):
        timeline["fail-b"]
    with pytest.raises(IndexError):
        timeline[5]
    with pytest.raises(TypeError):
        timeline[0] = timeline[1]  # type: ignore[index]


# ---- immutability, identity, value protocols ----------------------------------


def test_views_are_read_only(inline_scenario: drsim.Scenario) -> None:
    spec = inline_scenario.spec
    with pytest.raises(AttributeError):
        spec.seed = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        spec.topology.links[0].rtt = 1.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        spec.new_attribute = 1  # type: ignore[attr-defined]
    assert isinstance(spec.topology.links[0].between, tuple)
    assert copy.deepcopy(spec) is spec and copy.copy(spec) is spec
    with pytest.raises(TypeError):
        pickle.dumps(spec)


def test_views_keep_their_scenario_alive(inline_text: str) -> None:
    scenario = drsim.load_text(inline_text)
    link = scenario.topology.links[0]
    zones = scenario.topology.regions[0].zones
    del scenario
    gc.collect()
    assert link.rtt == 0.028
    assert zones.names() == ["eu-west-1a", "eu-west-1b", "eu-west-1c"]


def test_equality_and_hash_by_value(inline_text: str) -> None:
    a = drsim.load_text(inline_text)
    b = drsim.load_text(inline_text)
    assert a.spec == b.spec and hash(a.spec) == hash(b.spec)
    assert a.spec.timeline[0] != a.spec.timeline[1]
    assert a.spec.topology.links[0] != "west-central"
    c = a.replace({"spec.topology.links[0].rtt": 0.03})
    assert c.topology.links[0] != a.topology.links[0]
    assert c.topology.regions == a.topology.regions
    assert len({a.topology.links[0], b.topology.links[0], c.topology.links[0]}) == 2


def test_repr_names_every_field(inline_scenario: drsim.Scenario) -> None:
    text = repr(inline_scenario.topology.links[0])
    assert text.startswith("Link(name='west-central', between=('eu-west-1', 'eu-central-1'), rtt=0.028")
    for name in drsim.config.Link._fields:
        assert f"{name}=" in text


# ---- replace ------------------------------------------------------------------


def test_replace_typed_values(inline_scenario: drsim.Scenario) -> None:
    s = inline_scenario.replace(
        {
            "spec.duration": 1800,  # int seconds
            "spec.metrics_window": datetime.timedelta(seconds=30),  # Python name, timedelta
            "spec.topology.links[west-central].rtt": 0.0305,
            "spec.topology.links[0].loss": 0.02,
            "spec.topology.links[0].bandwidth": 2.5e9,
            "spec.timeline[fail-a].at": 300.0,
            "spec.timeline[degrade-link].latency": "75ms",  # text with a unit, verbatim
            "metadata.description": "changed: with a colon, and a comma",
        }
    )
    assert s.spec.duration == 1800.0
    assert s.spec.metrics_window == 30.0
    link = s.topology.links[0]
    assert (link.rtt, link.loss, link.bandwidth) == (0.0305, 0.02, 2.5e9)
    assert s.spec.timeline["fail-a"].at == 300.0
    assert s.spec.timeline["degrade-link"].latency == 0.075
    assert s.metadata.description == "changed: with a colon, and a comma"
    assert s.overrides[:4] == (
        "spec.duration=30m",
        "spec.metricsWindow=30s",
        "spec.topology.links[west-central].rtt=30.5ms",
        "spec.topology.links[0].loss=2%",
    )
    # The original is untouched, and the derived one survives pickling.
    assert inline_scenario.spec.duration == 7200.0 and inline_scenario.overrides == ()
    assert pickle.loads(pickle.dumps(s)).spec == s.spec


def test_replace_rate_in_a_topology_file(default_scenario_path: pathlib.Path) -> None:
    s = drsim.load(default_scenario_path)
    changed = s.replace(
        {
            "spec.load[0].load.rate": 500.0,
            "spec.topology.services[payments].concurrency": 16,
            "spec.topology.services[payments].replicas[0]": {"zone": "north-a", "replicas": 5},
        }
    )
    assert changed.spec.load[0].load.rate == 500.0
    assert changed.services["payments"].concurrency == 16
    assert changed.services["payments"].replicas[0].replicas == 5
    assert changed.overrides[0] == "spec.load[0].load.rate=500rps"
    assert s.spec.load[0].load.rate == 300.0


def test_replace_with_structs_lists_and_views(inline_scenario: drsim.Scenario) -> None:
    s = inline_scenario.replace(
        {
            "spec.topology.regions[eu-central-1].zones": [{"name": "eu-central-1a"}, {"name": "eu-central-1b"}],
            "spec.timeline[degrade-link].target": {"link": "west-central"},
        }
    )
    assert s.topology.regions["eu-central-1"].zones.names() == ["eu-central-1a", "eu-central-1b"]
    # A view of the same type stands for its values, as a dict would.
    base = drsim.load_text(UNITS_SCENARIO)
    other = base.replace({"spec.topology.services[api].serviceTime": {"kind": "lognormal", "p50": 0.02, "p99": 0.1}})
    s2 = base.replace({"spec.topology.services[api].serviceTime": other.services["api"].service_time})
    assert base.services["api"].service_time.kind == "exponential"
    assert s2.services["api"].service_time == other.services["api"].service_time
    assert (s2.services["api"].service_time.kind, s2.services["api"].service_time.p99) == ("lognormal", 0.1)
    s3 = s2.replace({"spec.topology.services[api].service_time": {"kind": "constant", "value": 0.05}})
    assert (s3.services["api"].service_time.kind, s3.services["api"].service_time.value) == ("constant", 0.05)
    assert s3.services["api"].service_time.mean is None
    # A value built from keywords stands for its values too.
    built = drsim.config.ServiceTime(kind="constant", value=0.05)
    s4 = s2.replace({"spec.topology.services[api].serviceTime": built})
    assert s4.services["api"].service_time == built == s3.services["api"].service_time


def test_replace_none_unsets_an_optional(default_scenario_path: pathlib.Path) -> None:
    s = drsim.load(default_scenario_path)
    assert s.spec.load["checkout"].timeout == 2.0
    unset = s.replace({"spec.load[checkout].timeout": None})
    assert unset.spec.load["checkout"].timeout is None
    # Everything else about the population stays as it was.
    before, after = s.spec.load[0]._asdict(), unset.spec.load[0]._asdict()
    before.pop("timeout"), after.pop("timeout")
    assert before == after


def test_replace_errors_name_the_path(inline_scenario: drsim.Scenario) -> None:
    cases = {
        "spec.topology.links[0].rt": ("spec.topology.links[0].rt", 'unknown key "rt", did you mean "rtt"?'),
        "spec.timeline[fail-b].at": ("spec.timeline[fail-b]", 'unknown item "fail-b", did you mean "fail-a"?'),
        "spec.timeline[7].at": ("spec.timeline[7]", "index 7 is out of range (the list has 2 items)"),
        "spec.seed.x": ("spec.seed", "has no fields or items to select"),
    }
    for path, (where, message) in cases.items():
        with pytest.raises(drsim.ScenarioError) as info:
            inline_scenario.replace({path: 1})
        assert info.value.path == where, path
        assert message in str(info.value), path

    with pytest.raises(drsim.ScenarioError, match=r"^spec\.seed: expected an int, got float 1\.5$"):
        inline_scenario.replace({"spec.seed": 1.5})
    with pytest.raises(drsim.ScenarioError, match=r"spec\.seed: expected an int, got bool True"):
        inline_scenario.replace({"spec.seed": True})
    with pytest.raises(drsim.ScenarioError, match=r"expected float \(seconds\) or text such as \"28ms\", got list"):
        inline_scenario.replace({"spec.duration": [1]})
    with pytest.raises(drsim.ScenarioError, match="only optional fields can be unset"):
        inline_scenario.replace({"spec.duration": None})
    with pytest.raises(drsim.ScenarioError, match="expected a path like"):
        inline_scenario.replace({"spec..seed": 1})
    with pytest.raises(TypeError):
        inline_scenario.replace(["spec.seed=1"])  # type: ignore[arg-type]


def test_replace_values_are_validated_by_the_loader(inline_scenario: drsim.Scenario) -> None:
    with pytest.raises(drsim.ScenarioError) as info:
        inline_scenario.replace({"spec.topology.links[0].loss": 1.5})
    assert info.value.path == "spec.topology.links[0].loss"
    assert 'expected a percentage of at most 100%, got "150%"' in str(info.value)
    assert isinstance(info.value, ValueError)
    with pytest.raises(drsim.ScenarioError, match=r"spec\.duration: expected a positive duration"):
        inline_scenario.replace({"spec.duration": -5.0})
    with pytest.raises(drsim.ScenarioError, match=r"spec\.topology\.links\[0\]\.rtt: .*\"abc\""):
        inline_scenario.replace({"spec.topology.links[0].rtt": "abc"})


# ---- type stubs ---------------------------------------------------------------


def test_generated_stubs_cover_every_field() -> None:
    stub_file = pathlib.Path(drsim.__file__).parent / "_config.pyi"
    assert stub_file.is_file(), "the build generates drsim/_config.pyi next to _core"
    text = stub_file.read_text()
    from drsim import _stubgen

    assert text == _stubgen.config_stubs(), "_config.pyi is out of date: rebuild the _core target"
    classes = {node.name: node for node in ast.parse(text).body if isinstance(node, ast.ClassDef)}
    for cls in drsim.config.classes():
        stub = classes["_ScenarioFields" if cls is _core.Scenario else cls.__name__]
        properties = {n.name for n in stub.body if isinstance(n, ast.FunctionDef) and n.decorator_list}
        assert set(cls._fields) <= properties, cls.__name__


def test_core_stub_declares_every_function() -> None:
    stub = ast.parse((pathlib.Path(drsim.__file__).parent / "_core.pyi").read_text())
    declared = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    config_names = {cls.__name__ for cls in drsim.config.classes()}
    for name in dir(_core):
        value = getattr(_core, name)
        if name.startswith("__") or name in config_names - {"Scenario"} or not callable(value):
            continue
        assert name in declared, f"_core.{name} is missing from _core.pyi"
    assert (pathlib.Path(drsim.__file__).parent / "py.typed").is_file()

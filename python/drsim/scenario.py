"""Loading scenarios, overriding their values, and running them.

A scenario is handed to C++ as a path or as YAML text, never as a parsed dict:
the C++ loader does all parsing and validation (YAML 1.2, units, unknown keys,
cross references) and raises :class:`drsim.ScenarioError` with
``file:line:col`` on bad input. Overrides go through the same loader as the
command line's ``--set path=value``.
"""

from __future__ import annotations

import datetime
import errno
import json
import math
import numbers
import os
import re
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, NamedTuple, Union

from drsim import _core, kube
from drsim.capacity_report import CapacityReport, capacity_report
from drsim.errors import RunInterrupted, ScenarioError
from drsim.result import Result

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from drsim._config import Metadata, ScenarioSpec, Service, Topology
    from drsim.config import ConfigList

__all__ = ["Scenario", "Progress", "load", "load_file", "load_text", "Source", "Overrides", "Until"]

#: A scenario file (``str`` or :class:`os.PathLike`) or YAML text.
Source = Union[str, "os.PathLike[str]"]
#: ``{"spec.seed": 7, "spec.timeline[fail-a].at": "5m"}``, or ``["spec.seed=7", ...]`` as on the command line.
Overrides = Union[Mapping[str, Any], Iterable[str]]
#: How long to run: ``"2h"``, seconds as ``int``/``float``, or a :class:`datetime.timedelta`.
Until = Union[str, int, float, datetime.timedelta]

_NS_PER_S = 1_000_000_000
_INT64_MAX = 2**63 - 1
_UINT64_MAX = 2**64 - 1
_YAML_SUFFIXES = (".yaml", ".yml")


class Progress(NamedTuple):
    """Passed to a ``progress`` callback about every 250 ms of wall time."""

    t_s: float  #: simulated time reached, seconds
    horizon_s: float  #: where the run will stop, seconds
    events: int  #: events run so far
    wall_seconds: float  #: wall-clock time since the run started


# ---- loading ---------------------------------------------------------------


def _is_path(source: object) -> bool:
    """The rule of :func:`load`: a PathLike is a path; a str is a path when it
    has no newline and names an existing file, ends in .yaml/.yml, or has no
    ':' (then it cannot be a YAML mapping, so it is more likely a mistyped
    path than a scenario)."""
    if isinstance(source, os.PathLike):
        return True
    if not isinstance(source, str):
        raise TypeError(f"a scenario source is a path or YAML text, not {type(source).__name__}")
    if "\n" in source or "\r" in source:
        return False
    stripped = source.strip()
    return stripped.lower().endswith(_YAML_SUFFIXES) or ":" not in stripped or os.path.isfile(source)


def load(source: Source, *, overrides: Overrides | None = None) -> Scenario:
    """Loads and validates a scenario from a file or from YAML text.

    ``source`` is a path when it is an :class:`os.PathLike`, or a ``str``
    without a newline that names an existing file, ends in ``.yaml``/``.yml``,
    or contains no ``:`` (so cannot be a YAML mapping); any other ``str`` is
    YAML text, e.g. ``"{apiVersion: drsim/v1alpha1, ...}"`` or a multi-line
    document. :func:`load_file` and :func:`load_text` say which explicitly.

    Raises :class:`FileNotFoundError` when the scenario file itself does not
    exist, and :class:`drsim.ScenarioError` (a :class:`ValueError`) for
    anything wrong inside it, including a missing topology file it refers to.
    """
    if _is_path(source):
        return load_file(source, overrides=overrides)
    assert isinstance(source, str)
    return load_text(source, overrides=overrides)


def _require_utf8(text: str, file: str) -> None:
    """Raises :class:`ScenarioError` at the first character of ``text`` that
    UTF-8 cannot encode (a lone surrogate such as ``"\\ud800"``, or a byte
    :func:`os.fsdecode` could not decode), with its line and column counted as
    the C++ loader counts them (columns in UTF-8 bytes). ``file`` names the
    text in the message."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        line_start = text.rfind("\n", 0, e.start) + 1
        line = text.count("\n", 0, e.start) + 1
        column = len(text[line_start : e.start].encode("utf-8", "surrogatepass")) + 1
        message = f"expected UTF-8 text, got a lone surrogate U+{ord(text[e.start]):04X}"
        diagnostic = {"file": file, "line": line, "column": column, "path": "", "message": message}
        raise ScenarioError(f"{file}:{line}:{column}: {message}", [diagnostic]) from None


def _printable(text: str) -> str:
    """``text`` with what UTF-8 cannot encode escaped, for a message."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def load_file(path: Source, *, overrides: Overrides | None = None) -> Scenario:
    """Loads and validates a scenario file; see :func:`load`."""
    p = os.fspath(path)
    if not isinstance(p, str):
        p = os.fsdecode(p)
    if not os.path.exists(p):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), p)
    try:
        p.encode("utf-8")
    except UnicodeEncodeError:
        # Messages carry the file name, and they are UTF-8 text.
        name = _printable(p)
        message = "expected a file name that is UTF-8 text"
        raise ScenarioError(f"{name}: {message}", [{"file": name, "message": message}]) from None
    return Scenario(_core.load_file(p, _override_list(overrides)))


def load_text(
    text: str,
    *,
    overrides: Overrides | None = None,
    name: str = "<text>",
    base_dir: Source | None = None,
) -> Scenario:
    """Loads and validates scenario YAML text.

    ``name`` stands for the file in error messages; relative paths in the text
    (a ``spec.topology`` file) resolve against ``base_dir``, by default the
    current directory.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    source_name = _printable(str(name))
    _require_utf8(text, source_name)
    base = None if base_dir is None else os.fsdecode(os.fspath(base_dir))
    if base is not None:
        try:
            base.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"base_dir must be a path that is UTF-8 text, got {base!r}") from None
    return Scenario(_core.load_text(text, _override_list(overrides), source_name=source_name, base_dir=base))


# ---- overrides -------------------------------------------------------------

_PLAIN_FLOW_SCALAR = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/%]*")


def _is_numpy_bool(value: object) -> bool:
    return type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool")


def _float_text(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    return repr(float(value))


# Deeper than any scenario value, and well inside Python's recursion limit
# (a cyclic list would otherwise end in RecursionError).
_MAX_VALUE_DEPTH = 100


def _flow_yaml(value: Any, depth: int) -> str:
    """YAML flow text for a Python value inside a list or mapping."""
    if isinstance(value, str):
        return value if _PLAIN_FLOW_SCALAR.fullmatch(value) else json.dumps(value)
    return _scalar_yaml(value, depth=depth)


def _scalar_yaml(value: Any, *, depth: int = 0) -> str:
    if depth > _MAX_VALUE_DEPTH:
        raise ValueError(f"a scenario value is nested more than {_MAX_VALUE_DEPTH} levels deep (or contains itself)")
    if value is None:
        return "null"
    if isinstance(value, bool) or _is_numpy_bool(value):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        number = int(value)
        if number.bit_length() > 128:  # Python refuses to write more than 4300 digits
            raise ValueError(f"an int of {number.bit_length()} bits is out of the range of every scenario value")
        return str(number)
    if isinstance(value, numbers.Real):
        try:
            return _float_text(float(value))
        except OverflowError:  # a Fraction beyond the range of a float
            raise ValueError(f"{_shown(value)} is out of the range of a float") from None
    if isinstance(value, datetime.timedelta):
        ns = _timedelta_ns(value)
        if abs(ns) > _INT64_MAX:
            raise ValueError(f"{value!r} is out of the range of a duration (about 292 years)")
        return _core.format_duration_ns(ns)
    if isinstance(value, os.PathLike):
        return _flow_yaml(os.fsdecode(os.fspath(value)), depth + 1)
    if isinstance(value, Mapping):
        items = ", ".join(f"{_flow_yaml(str(k), depth + 1)}: {_flow_yaml(v, depth + 1)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow_yaml(v, depth + 1) for v in value) + "]"
    if isinstance(value, str):  # only reached for nested strings
        return _flow_yaml(value, depth)
    raise TypeError(f"cannot write a {type(value).__name__} as a scenario value")


def _override_text(value: Any) -> str:
    """The YAML text of an override value: a str verbatim ("5m", "[a, b]"),
    anything else converted (bool -> true/false, list/dict -> flow YAML,
    timedelta -> a duration with a unit)."""
    if isinstance(value, str):
        return value
    return _scalar_yaml(value)


def _override_list(overrides: Overrides | None) -> list[str]:
    """``path=value`` strings, as on the command line's --set."""
    if overrides is None:
        return []
    out: list[str] = []
    if isinstance(overrides, Mapping):
        for path, value in overrides.items():
            if not isinstance(path, str) or not path.strip():
                raise TypeError(f"an override path is a non-empty str such as 'spec.seed', not {path!r}")
            if "=" in path:
                raise ValueError(f"override path {path!r} contains '='; pass the value separately")
            out.append(_checked_override(f"{path.strip()}={_override_text(value)}"))
        return out
    if isinstance(overrides, (str, bytes)):
        raise TypeError("overrides are a mapping {path: value} or a list of 'path=value' strings, not a single str")
    for item in overrides:
        if not isinstance(item, str) or "=" not in item:
            raise ValueError(f"an override is 'path=value', got {item!r}")
        out.append(_checked_override(item))
    return out


def _checked_override(item: str) -> str:
    """``item``, or :class:`ScenarioError` when UTF-8 cannot encode it; the
    "file" of its message is the override, as for any bad override value."""
    _require_utf8(item, "--set " + _printable(item))
    return item


# ---- run arguments ---------------------------------------------------------


def _timedelta_ns(td: datetime.timedelta) -> int:
    return ((td.days * 86_400 + td.seconds) * 1_000_000 + td.microseconds) * 1_000


def _shown(value: object) -> str:
    """A value for a message: its repr, cut when long; a huge int by its size
    (Python refuses to write one of more than 4300 digits)."""
    if isinstance(value, int) and value.bit_length() > 256:
        return f"an int of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:60]}... ({len(text)} characters)"


def _until_ns(until: Until | None) -> int | None:
    """``until`` in nanoseconds. A value of the wrong type raises
    :class:`TypeError`; one that is not a positive duration that fits in
    int64 nanoseconds (about 292 years) :class:`ValueError`, never
    :class:`OverflowError`."""
    if until is None:
        return None
    if isinstance(until, bool):
        raise TypeError("until is a duration ('2h'), seconds, or a timedelta, not a bool")
    if isinstance(until, str):
        try:
            until.encode("utf-8")
            ns = int(_core.parse_duration_ns(until))
        except (ValueError, OverflowError) as e:  # UnicodeEncodeError is a ValueError
            detail = str(e)
            if isinstance(e, UnicodeEncodeError) or len(detail) > 200 or "expected" not in detail:
                # The parser's own message quotes the whole text.
                why = " (a lone surrogate)" if isinstance(e, UnicodeEncodeError) else ""
                detail = f"expected a duration such as '2h' or '90s', got {_shown(until)}{why}"
            raise ValueError(f"until: {detail}") from None
    elif isinstance(until, datetime.timedelta):
        ns = _timedelta_ns(until)
    elif isinstance(until, numbers.Integral):
        ns = int(until) * _NS_PER_S
    elif isinstance(until, numbers.Real):
        try:
            seconds = float(until)
        except OverflowError:  # a Fraction beyond the range of a float
            raise ValueError(f"until is too far in the future: {_shown(until)}") from None
        if not math.isfinite(seconds):
            raise ValueError(f"until must be finite, got {seconds!r}")
        # Compared before round(), which raises OverflowError on an infinite product.
        if seconds <= 0:
            raise ValueError(f"until must be positive, got {_shown(until)}")
        if seconds * _NS_PER_S > _INT64_MAX:
            raise ValueError(f"until is too far in the future: {_shown(until)} (at most {_INT64_MAX // _NS_PER_S} s)")
        ns = round(seconds * _NS_PER_S)
    else:
        raise TypeError(f"until is a duration ('2h'), seconds, or a timedelta, not {type(until).__name__}")
    if ns <= 0:
        raise ValueError(f"until must be positive, got {_shown(until)}")
    if ns > _INT64_MAX:
        raise ValueError(f"until is too far in the future: {_shown(until)} (at most {_INT64_MAX // _NS_PER_S} s)")
    return ns


def _check_seed(seed: int | None) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed is an int in [0, 2**64), not {type(seed).__name__}")
    value = int(seed)
    if not 0 <= value <= _UINT64_MAX:
        raise ValueError(f"seed must be in [0, 2**64), got {_shown(value)}")
    return value


# ---- Scenario --------------------------------------------------------------


class Scenario:
    """A loaded, validated scenario. Immutable: :meth:`replace` and
    :meth:`with_overrides` return a new one. Get one from :func:`drsim.load`.

    Its resolved configuration is typed and read-only: :attr:`spec` (the
    whole tree), with :attr:`metadata`, :attr:`topology` and :attr:`services`
    as shortcuts; see :mod:`drsim.config` for names and units."""

    __slots__ = ("_core",)

    def __init__(self, core: _core.Scenario) -> None:
        if not isinstance(core, _core.Scenario):
            raise TypeError("use drsim.load() to get a Scenario")
        self._core = core

    # -- properties --
    @property
    def name(self) -> str:
        """``metadata.name``."""
        return self._core.name

    @property
    def description(self) -> str:
        """``metadata.description``."""
        return self._core.description

    @property
    def duration_s(self) -> float:
        """``spec.duration`` in seconds: the default horizon of :meth:`run`."""
        return self._core.duration_ns / _NS_PER_S

    @property
    def seed(self) -> int:
        """``spec.seed``: the default seed of :meth:`run`."""
        return self._core.seed

    @property
    def source_file(self) -> str:
        """The file it was loaded from, or the name given to text (``<text>``)."""
        return self._core.source_file

    @property
    def overrides(self) -> tuple[str, ...]:
        """The overrides applied, as ``path=value`` strings, in order."""
        return tuple(self._core.overrides)

    @property
    def api_version(self) -> str:
        """``apiVersion``."""
        return self._core.api_version

    @property
    def kind(self) -> str:
        """``kind``: always ``Scenario``."""
        return self._core.kind

    # -- the resolved configuration, typed (see drsim.config) --
    @property
    def metadata(self) -> Metadata:
        """``metadata``: name and description."""
        return self._core.metadata

    @property
    def spec(self) -> ScenarioSpec:
        """``spec``: the whole resolved configuration as read-only views, e.g.
        ``spec.load[0].load.rate`` (requests per second) or
        ``spec.timeline["fail-a"].at`` (seconds). Defaults are filled in and
        the topology file is read in; units are described in
        :mod:`drsim.config`."""
        return self._core.spec

    @property
    def topology(self) -> Topology:
        """``spec.topology``: regions, zones, links and services, plus the
        queries of :mod:`drsim.topology` (``rtt``, ``route``, ``reachable``,
        ``partitions``)."""
        return self._core.spec.topology

    @property
    def services(self) -> ConfigList[Service]:
        """The topology's services; ``services["payments"].concurrency``."""
        return self._core.spec.topology.services

    def to_dict(self) -> dict[str, Any]:
        """The resolved configuration as plain data: nested dicts keyed by
        attribute name (snake_case), lists, and values in the units of
        :mod:`drsim.config` (seconds, per second, ...)."""
        return self._core._asdict()

    @property
    def guards(self) -> dict[str, Any]:
        """``spec.guards``: max_events, max_wall_time_s, max_events_per_instant (0: no limit)."""
        g = self._core.guards
        return {
            "max_events": g["max_events"],
            "max_wall_time_s": g["max_wall_time_ns"] / _NS_PER_S,
            "max_events_per_instant": g["max_events_per_instant"],
        }

    @property
    def regions(self) -> list[dict[str, Any]]:
        """The topology's regions as dicts: ``[{"name": ..., "zones": [...]}, ...]``
        (typed: :attr:`topology` ``.regions``)."""
        return list(self._core.regions())

    @property
    def links(self) -> list[dict[str, Any]]:
        """The topology's links as dicts: ``[{"name", "between", "rtt_s", "bandwidth_bps"}, ...]``
        (typed: :attr:`topology` ``.links``)."""
        return [
            {
                "name": l["name"],
                "between": list(l["between"]),
                "rtt_s": l["rtt_ns"] / _NS_PER_S,
                "bandwidth_bps": l["bandwidth_bps"],
            }
            for l in self._core.links()
        ]

    @property
    def zones(self) -> list[str]:
        """Every zone of the topology, region by region."""
        return [z for r in self._core.regions() for z in r["zones"]]

    def timeline(self) -> pd.DataFrame:
        """The resolved timeline in start order: name, action, target, start_s,
        end_s (NaN when the step has no duration)."""
        import pandas as pd

        rows = self._core.timeline()
        return pd.DataFrame(
            {
                "name": pd.Series([r["name"] for r in rows], dtype=object),
                "action": pd.Series([r["action"] for r in rows], dtype=object),
                "target": pd.Series(
                    [", ".join(f"{k}={v}" for k, v in r["target"].items()) for r in rows], dtype=object
                ),
                "start_s": pd.Series([r["start_ns"] / _NS_PER_S for r in rows], dtype="float64"),
                "end_s": pd.Series(
                    [math.nan if r["end_ns"] is None else r["end_ns"] / _NS_PER_S for r in rows], dtype="float64"
                ),
            }
        )

    # -- derived scenarios and text --
    def with_overrides(self, overrides: Overrides) -> Scenario:
        """The same scenario reloaded with more overrides, through the same
        validation as ``--set``. Keys are override paths
        (``"spec.timeline[fail-a].at"``); a ``str`` value is YAML text used
        verbatim (``"5m"``), other values are converted (``7``, ``True``,
        ``["a", "b"]``, ``{"k": "v"}``, a ``timedelta``). Raises
        :class:`drsim.ScenarioError` naming the override for a bad value."""
        return Scenario(self._core.with_overrides(_override_list(overrides)))

    def replace(self, changes: Mapping[str, Any] | None = None, /, **spec_fields: Any) -> Scenario:
        """The same scenario with typed changes, ``{path: value}``::

            s.replace({"spec.load[0].load.rate": 500.0,                 # per second
                       "spec.topology.services[payments].replicas[0].replicas": 4,
                       "spec.timeline[fail-a].at": 300.0,               # seconds
                       "spec.load[checkout].timeout": None})            # unset

        Paths are those of :meth:`with_overrides` (``[index]`` or ``[name]``
        selects a list item), with keys in YAML camelCase or Python
        snake_case. Values are in the units of :mod:`drsim.config` (seconds,
        per second, bits per second, fractions, bytes); a str is taken as
        scenario text (``"5m"``, ``"800rps"``); a struct takes a dict of its
        fields or a config value (``other.services["payments"]``, or one
        built with ``drsim.config.RetryPolicy(attempts=3)``), a list a list;
        ``None`` unsets an optional field.

        Fields of ``spec`` may also be given as keyword arguments:
        ``s.replace(seed=7, duration="1h")`` is
        ``s.replace({"spec.seed": 7, "spec.duration": "1h"})``. Both forms
        may be mixed; the mapping's changes apply first, so a keyword wins
        over the same field in the mapping.

        Each change becomes an override (see :attr:`overrides`) and the
        scenario is loaded again through the same validation as a file, so a
        bad path or value raises :class:`drsim.ScenarioError` naming the
        path. The scenario itself never changes.
        """
        overrides: list[str] = []
        if changes is not None:
            overrides += self._core.replacement_overrides(changes)
        if spec_fields:
            overrides += self._core.replacement_overrides({f"spec.{k}": v for k, v in spec_fields.items()})
        return self.with_overrides(overrides)

    def to_yaml(self) -> str:
        """The resolved scenario as YAML (topology inlined, defaults written out)."""
        return self._core.to_yaml()

    def describe(self) -> str:
        """A human-readable account of the resolved scenario."""
        return self._core.describe()

    # -- running --
    def check(self, *, utilization_target: float | str = 0.8) -> CapacityReport:
        """The N+1 capacity report of this scenario (``drsim check``); see
        :func:`drsim.check`."""
        return capacity_report(self, utilization_target)

    def recommend_policy(
        self, service: str, zone: str, *, replicas: int | None = None, migrate: bool = False
    ) -> Any:
        """The deployment policies that would let ``service`` scale out when
        ``zone`` fails (``drsim recommend-policy``); see
        :func:`drsim.kube.recommend_policy`."""
        return kube.recommend_policy(self, service, zone, replicas=replicas, migrate=migrate)

    def run(
        self,
        *,
        seed: int | None = None,
        until: Until | None = None,
        progress: Callable[[Progress], object] | None = None,
    ) -> Result:
        """Runs the scenario and returns its :class:`drsim.Result`.

        ``seed`` defaults to ``spec.seed``; ``until`` (``"2h"``, seconds, or a
        timedelta) to ``spec.duration``. The GIL is released while the
        simulation runs, so other Python threads keep going. ``progress``, if
        given, is called with a :class:`Progress` as the run starts, about
        every 250 ms of wall time while it runs, and once when it has ended.

        Ctrl-C stops the run at its next check and raises
        :class:`drsim.RunInterrupted` whose ``.result`` holds the partial
        result. An exception raised by ``progress`` also stops the run and is
        re-raised afterwards, with the partial result attached as ``.result``.
        """
        seed_value = _check_seed(seed)
        until_ns = _until_ns(until)
        callback: Callable[[int, int, int, float], None] | None = None
        if progress is not None:
            if not callable(progress):
                raise TypeError("progress must be callable")
            listener = progress  # the narrowed type, for the closure

            def report_progress(t_ns: int, horizon_ns: int, events: int, wall_seconds: float) -> None:
                listener(Progress(t_ns / _NS_PER_S, horizon_ns / _NS_PER_S, events, wall_seconds))

            callback = report_progress

        core_result, error = _core.run(self._core, seed=seed_value, until_ns=until_ns, progress=callback)
        # The run's own copy of the scenario: the Result hands it out as
        # .scenario without importing this module.
        result = Result(core_result, Scenario(core_result.scenario))
        if error is not None:
            if isinstance(error, KeyboardInterrupt) and not isinstance(error, RunInterrupted):
                raise RunInterrupted(result) from error
            try:
                error.result = result  # type: ignore[attr-defined]
            except Exception:  # pragma: no cover - exceptions without a __dict__
                pass
            raise error
        return result

    # -- Python protocols --
    def __repr__(self) -> str:
        parts = [
            f"{self.name!r}",
            f"duration={_core.format_duration_ns(self._core.duration_ns)}",
            f"seed={self.seed}",
            f"zones={len(self.zones)}",
            f"timeline={len(self._core.timeline())}",
            f"source={self.source_file!r}",
        ]
        if self._core.overrides:
            parts.append(f"overrides={list(self._core.overrides)!r}")
        return f"<drsim.Scenario {' '.join(parts)}>"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its source and overrides (multiprocessing sweeps); the
        # loader validates it again on the other side.
        c = self._core
        return (_reload, (c.source_text, list(c.overrides), c.source_file, c.base_dir))


def _reload(text: str, overrides: list[str], source_name: str, base_dir: str) -> Scenario:
    return Scenario(_core.load_text(text, overrides, source_name=source_name, base_dir=base_dir))

"""The uncertain inputs of :func:`drsim.uncertainty`: which scenario value,
what is known of it, and where that came from.

An input is an override path (as :meth:`drsim.Scenario.with_overrides`
takes it) and a distribution; its ``source`` says where the range comes from
(a vendor's documented default and maximum, a measurement, a standard), the
citation a validation table prints beside it. Distributions map a point u of
[0, 1] to a value through their quantile function, so one design in the unit
cube serves every kind of input:

- ``Uniform(low, high)``: any value between; two ints give the integers
  low..high, each equally likely (a retry count, a probe threshold).
- ``LogUniform(low, high)``: uniform in the logarithm (a value known to
  within a factor: "10 ms to 1 s").
- ``Triangular(low, mode, high)``: a most likely value and hard limits.
- ``Normal(mean, sd, low=None, high=None)``: a measured value and its
  standard deviation, optionally cut to [low, high].
- ``Choice([a, b, ...])``: one of a few settings, equally likely.

Values are numbers or quantities as the scenario writes them (``"10s"``,
``"800rps"``, ``"50%"``, ``"500m"``): the bounds must share their unit
(``"500ms"`` to ``"2s"`` is allowed for durations, which are then written in
nanoseconds), and sampled values are written back with it.

A ranges file (``drsim uncertainty --ranges FILE``) is YAML::

    ranges:
      - path: spec.load[spain].routing.healthCheck.requestInterval
        uniform: [10s, 30s]
        source: Route 53 health checks, 10 s (fast) or 30 s (standard)
      - path: spec.topology.services[api].replicas[0].replicas
        choice: [2, 3, 4]

and its mistakes are reported as ``file:line:col: ranges[i].key: ...``.
"""

from __future__ import annotations

import math
import numbers
import os
import pathlib
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, Union

from drsim import _core

__all__ = [
    "Distribution",
    "Uniform",
    "LogUniform",
    "Triangular",
    "Normal",
    "Choice",
    "UncertainInput",
    "RangesError",
    "inputs_from",
    "load_ranges",
    "parse_ranges",
]


class RangesError(ValueError):
    """A mistake in the uncertain inputs: ``file:line:col: where: what``
    when it came from a file, ``where: what`` otherwise."""


#: Decimals a value in each duration unit may have and stay whole nanoseconds.
_DURATION_DECIMALS = {"ns": 0, "us": 3, "µs": 3, "ms": 6, "s": 9, "m": 3, "h": 3, "d": 3}

_QUANTITY = re.compile(r"^([+-]?[0-9]+(?:\.[0-9]+)?)([^0-9.+-].*)?$")


@dataclass(frozen=True)
class _Scale:
    """How an input's values are numbers: ``unit`` after the number ("s",
    "rps", "" for a bare number), ``integer`` for integers only,
    ``duration_ns`` when bounds of different duration units were brought to
    nanoseconds."""

    unit: str
    integer: bool
    duration_ns: bool = False

    def continuous(self) -> _Scale:
        """The same unit for a distribution whose values are never whole
        numbers only (log-uniform, triangular, normal of int bounds)."""
        return _Scale(self.unit, False, self.duration_ns) if self.integer else self

    def text(self, x: float) -> Any:
        if self.integer:
            return int(round(x))
        if self.duration_ns:
            return f"{int(round(x))}ns"
        if not self.unit:
            return float(x)
        # Quantities are written in fixed point: the scenario format has no
        # exponents ("1e-3s" is an error). Durations are whole nanoseconds, so
        # a duration unit keeps only the decimals that are (m, h and d: three,
        # which also suits millicores).
        decimals = _DURATION_DECIMALS.get(self.unit, 9)
        digits = f"{x:.{decimals}f}"
        if "." in digits:
            digits = digits.rstrip("0").rstrip(".")
        return f"{'0' if digits in ('', '-0') else digits}{self.unit}"


def _number(value: Any, where: str) -> tuple[float, str, bool]:
    """(number, unit, is an int) of a bound."""
    if isinstance(value, bool):
        raise RangesError(f"{where}: expected a number or a quantity such as '10s', got {value!r}")
    if isinstance(value, numbers.Integral):
        return float(value), "", True
    if isinstance(value, numbers.Real):
        if not math.isfinite(float(value)):
            raise RangesError(f"{where}: expected a finite number, got {value!r}")
        return float(value), "", False
    if isinstance(value, str):
        m = _QUANTITY.match(value.strip())
        if m:
            return float(m.group(1)), m.group(2) or "", False
    raise RangesError(f"{where}: expected a number or a quantity such as '10s' or '800rps', got {value!r}")


def _duration_ns(value: Any) -> int | None:
    try:
        return int(_core.parse_duration_ns(value)) if isinstance(value, str) else None
    except Exception:
        return None


def _scale_of(bounds: Sequence[Any], where: str) -> tuple[list[float], _Scale]:
    parsed = [_number(b, where) for b in bounds]
    units = {u for _, u, _ in parsed}
    if len(units) == 1:
        unit = units.pop()
        integer = unit == "" and all(is_int for _, _, is_int in parsed)
        return [x for x, _, _ in parsed], _Scale(unit, integer)
    ns = [_duration_ns(b) for b in bounds]
    if all(n is not None for n in ns):
        return [float(n) for n in ns if n is not None], _Scale("ns", False, duration_ns=True)
    written = ", ".join(repr(b) for b in bounds)
    raise RangesError(f"{where}: the bounds {written} do not share a unit (write them in the same one)")


class Distribution:
    """What is known of one input: a quantile function on [0, 1]."""

    source: str = ""

    def value(self, u: float) -> Any:  # pragma: no cover - every kind overrides it
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover
        raise NotImplementedError


def _clip01(u: float) -> float:
    return min(1.0, max(0.0, float(u)))


@dataclass(frozen=True)
class Uniform(Distribution):
    low: Any
    high: Any
    source: str = ""
    _bounds: tuple[float, float] = field(init=False, repr=False, compare=False)
    _scale: _Scale = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        (lo, hi), scale = _scale_of([self.low, self.high], "Uniform")
        if not lo < hi:
            raise RangesError(f"Uniform: low ({self.low!r}) must be below high ({self.high!r})")
        object.__setattr__(self, "_bounds", (lo, hi))
        object.__setattr__(self, "_scale", scale)

    def value(self, u: float) -> Any:
        lo, hi = self._bounds
        u = _clip01(u)
        if self._scale.integer:
            # Each integer of low..high gets an equal share of [0, 1].
            return int(min(hi, math.floor(lo + u * (hi - lo + 1))))
        return self._scale.text(lo + u * (hi - lo))

    def describe(self) -> str:
        return f"uniform {self.low} to {self.high}" + (" (integers)" if self._scale.integer else "")


@dataclass(frozen=True)
class LogUniform(Distribution):
    low: Any
    high: Any
    source: str = ""
    _bounds: tuple[float, float] = field(init=False, repr=False, compare=False)
    _scale: _Scale = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        (lo, hi), scale = _scale_of([self.low, self.high], "LogUniform")
        if not 0 < lo < hi:
            raise RangesError(f"LogUniform: needs 0 < low < high, got {self.low!r} and {self.high!r}")
        object.__setattr__(self, "_bounds", (lo, hi))
        object.__setattr__(self, "_scale", scale.continuous())

    def value(self, u: float) -> Any:
        lo, hi = self._bounds
        return self._scale.text(math.exp(math.log(lo) + _clip01(u) * (math.log(hi) - math.log(lo))))

    def describe(self) -> str:
        return f"log-uniform {self.low} to {self.high}"


@dataclass(frozen=True)
class Triangular(Distribution):
    low: Any
    mode: Any
    high: Any
    source: str = ""
    _bounds: tuple[float, float, float] = field(init=False, repr=False, compare=False)
    _scale: _Scale = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        (lo, mode, hi), scale = _scale_of([self.low, self.mode, self.high], "Triangular")
        if not (lo <= mode <= hi and lo < hi):
            raise RangesError(f"Triangular: needs low <= mode <= high and low < high, got "
                              f"{self.low!r}, {self.mode!r}, {self.high!r}")
        object.__setattr__(self, "_bounds", (lo, mode, hi))
        object.__setattr__(self, "_scale", scale.continuous())

    def value(self, u: float) -> Any:
        lo, mode, hi = self._bounds
        u = _clip01(u)
        cut = (mode - lo) / (hi - lo)
        if u < cut:
            x = lo + math.sqrt(u * (hi - lo) * (mode - lo))
        else:
            x = hi - math.sqrt((1.0 - u) * (hi - lo) * (hi - mode))
        return self._scale.text(x)

    def describe(self) -> str:
        return f"triangular {self.low} to {self.high}, most likely {self.mode}"


def _normal_ppf(p: float) -> float:
    """The standard normal quantile (Acklam's rational approximation refined
    by one Halley step: about 1e-15 relative)."""
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    a = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
         -3.066479806614716e+01, 2.506628277459239e+00)
    b = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
         -1.328068155288572e+01)
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
         4.374664141464968e+00, 2.938163982698783e+00)
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00)
    if p < 0.02425:
        q = math.sqrt(-2 * math.log(p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    elif p > 1 - 0.02425:
        q = math.sqrt(-2 * math.log(1 - p))
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    else:
        q = p - 0.5
        r = q * q
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / \
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    e = 0.5 * math.erfc(-x / math.sqrt(2)) - p
    u = e * math.sqrt(2 * math.pi) * math.exp(x * x / 2)
    return x - u / (1 + x * u / 2)


def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


@dataclass(frozen=True)
class Normal(Distribution):
    mean: Any
    sd: Any
    low: Any = None
    high: Any = None
    source: str = ""
    _params: tuple[float, float, float, float] = field(init=False, repr=False, compare=False)
    _scale: _Scale = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        given = [self.mean, self.sd] + [b for b in (self.low, self.high) if b is not None]
        values, scale = _scale_of(given, "Normal")
        mean, sd = values[0], values[1]
        rest = iter(values[2:])
        low = next(rest) if self.low is not None else -math.inf
        high = next(rest) if self.high is not None else math.inf
        if not sd > 0:
            raise RangesError(f"Normal: sd must be positive, got {self.sd!r}")
        if not low < high:
            raise RangesError(f"Normal: low ({self.low!r}) must be below high ({self.high!r})")
        object.__setattr__(self, "_params", (mean, sd, low, high))
        object.__setattr__(self, "_scale", scale.continuous())

    def value(self, u: float) -> Any:
        mean, sd, low, high = self._params
        lo_p = _normal_cdf((low - mean) / sd)
        hi_p = _normal_cdf((high - mean) / sd)
        p = lo_p + _clip01(u) * (hi_p - lo_p)
        p = min(max(p, 1e-15), 1 - 1e-15)
        return self._scale.text(min(high, max(low, mean + sd * _normal_ppf(p))))

    def describe(self) -> str:
        cut = ""
        if self.low is not None or self.high is not None:
            cut = f", cut to [{self.low if self.low is not None else '-inf'}, " \
                  f"{self.high if self.high is not None else 'inf'}]"
        return f"normal mean {self.mean}, sd {self.sd}{cut}"


@dataclass(frozen=True)
class Choice(Distribution):
    values: tuple[Any, ...]
    source: str = ""

    def __post_init__(self) -> None:
        values = tuple(self.values) if isinstance(self.values, (list, tuple)) else None
        if not values:
            raise RangesError(f"Choice: expected a non-empty list of values, got {self.values!r}")
        if len({repr(v) for v in values}) != len(values):
            raise RangesError(f"Choice: repeated values in {list(values)!r}")
        object.__setattr__(self, "values", values)

    def value(self, u: float) -> Any:
        return self.values[min(len(self.values) - 1, int(_clip01(u) * len(self.values)))]

    def describe(self) -> str:
        return "one of " + ", ".join(str(v) for v in self.values)


@dataclass(frozen=True)
class UncertainInput:
    """One uncertain input: its override path, distribution and source."""

    path: str
    distribution: Distribution
    source: str = ""

    def value(self, u: float) -> Any:
        return self.distribution.value(u)


RangeLike = Union[Distribution, tuple, list]


def _distribution_of(path: str, spec: Any) -> Distribution:
    if isinstance(spec, Distribution):
        return spec
    if isinstance(spec, (tuple, list)) and len(spec) == 2:
        return Uniform(spec[0], spec[1])
    raise RangesError(
        f"ranges[{path!r}]: expected a distribution (drsim.uncertainty_inputs.Uniform, LogUniform, Triangular, "
        f"Normal, Choice) or a (low, high) pair meaning Uniform, got {spec!r}"
    )


def _check_path(path: Any, where: str) -> str:
    if not isinstance(path, str) or not path.strip() or path != path.strip() or "=" in path:
        raise RangesError(f"{where}: expected an override path such as 'spec.timeline[fail-a].at', got {path!r}")
    if path == "spec.seed":
        raise RangesError(f"{where}: vary the seed with seeds=, not as an uncertain input")
    return path


def inputs_from(ranges: Mapping[str, RangeLike] | Sequence[UncertainInput]) -> list[UncertainInput]:
    """The inputs of :func:`drsim.uncertainty`'s ``ranges``: a mapping
    ``{path: distribution or (low, high)}`` or a list of
    :class:`UncertainInput` (what :func:`load_ranges` returns)."""
    out: list[UncertainInput] = []
    if isinstance(ranges, Mapping):
        for path, spec in ranges.items():
            path = _check_path(path, f"ranges[{path!r}]")
            try:
                distribution = _distribution_of(path, spec)
            except RangesError as e:
                message = str(e)
                raise RangesError(message if message.startswith("ranges[") else f"ranges[{path!r}]: {message}") \
                    from None
            out.append(UncertainInput(path, distribution, distribution.source))
    elif isinstance(ranges, (list, tuple)) and all(isinstance(r, UncertainInput) for r in ranges):
        out = list(ranges)
    else:
        raise RangesError(f"ranges is a mapping {{override path: distribution}} or a list of UncertainInput, "
                          f"not {type(ranges).__name__}")
    if not out:
        raise RangesError("ranges is empty: give at least one uncertain input")
    paths = [i.path for i in out]
    repeated = sorted({p for p in paths if paths.count(p) > 1})
    if repeated:
        raise RangesError(f"ranges name {', '.join(repeated)} more than once")
    return out


# ---- the ranges file ------------------------------------------------------------------

_KINDS = ("uniform", "logUniform", "triangular", "normal", "choice")


def _at(node: Any, name: str) -> str:
    mark = node.start_mark
    return f"{name}:{mark.line + 1}:{mark.column + 1}"


def _plain(node: Any) -> Any:
    """A scalar node's value as YAML 1.2's core schema reads it: int, float,
    bool, null or str ("10s" stays a str)."""
    import yaml

    if not isinstance(node, yaml.ScalarNode):
        raise TypeError
    text = node.value
    if node.style in ("'", '"'):
        return text
    if re.fullmatch(r"[-+]?[0-9]+", text):
        return int(text)
    if re.fullmatch(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?|[-+]?[0-9]+[eE][-+]?[0-9]+", text):
        return float(text)
    if text in ("true", "false"):
        return text == "true"
    return text


def parse_ranges(node: Any, name: str, where: str = "ranges") -> list[UncertainInput]:
    """The inputs of a composed YAML node (a sequence of range entries), with
    errors at ``name:line:col``. Used for ranges files and for the ranges a
    drill of the drill library declares."""
    import yaml

    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise RangesError(f"{_at(node, name)}: {where}: expected a non-empty list of "
                          f"{{path, one of {', '.join(_KINDS)}, source}}")
    out: list[UncertainInput] = []
    seen: dict[str, str] = {}
    for i, entry in enumerate(node.value):
        here = f"{where}[{i}]"
        if not isinstance(entry, yaml.MappingNode):
            raise RangesError(f"{_at(entry, name)}: {here}: expected a mapping with path and a distribution")
        fields: dict[str, tuple[Any, Any]] = {}
        for key, value in entry.value:
            if key.value in fields:
                raise RangesError(f"{_at(key, name)}: {here}.{key.value}: repeated key")
            if key.value not in ("path", "source", *_KINDS):
                raise RangesError(f"{_at(key, name)}: {here}.{key.value}: unknown key (expected path, source, "
                                  f"and one of {', '.join(_KINDS)})")
            fields[key.value] = (key, value)
        if "path" not in fields:
            raise RangesError(f"{_at(entry, name)}: {here}: missing path (the override path of the input)")
        path_node = fields["path"][1]
        try:
            path = _check_path(_plain(path_node), f"{here}.path")
        except (TypeError, RangesError) as e:
            message = str(e) if isinstance(e, RangesError) else f"{here}.path: expected an override path"
            raise RangesError(f"{_at(path_node, name)}: {message}") from None
        if path in seen:
            raise RangesError(f"{_at(path_node, name)}: {here}.path: {path} is already {seen[path]}")
        seen[path] = here
        source = ""
        if "source" in fields:
            source_node = fields["source"][1]
            if not isinstance(source_node, yaml.ScalarNode) or not source_node.value.strip():
                raise RangesError(f"{_at(source_node, name)}: {here}.source: expected text saying where the "
                                  f"range comes from")
            source = source_node.value.strip()
        kinds = [k for k in _KINDS if k in fields]
        if len(kinds) != 1:
            raise RangesError(f"{_at(entry, name)}: {here}: expected exactly one of {', '.join(_KINDS)}, "
                              f"got {', '.join(kinds) or 'none'}")
        kind = kinds[0]
        value_node = fields[kind][1]
        try:
            distribution = _parse_distribution(kind, value_node, source)
        except (TypeError, RangesError) as e:
            detail = str(e) if isinstance(e, RangesError) else "expected scalars"
            raise RangesError(f"{_at(value_node, name)}: {here}.{kind}: {detail}") from None
        out.append(UncertainInput(path, distribution, source))
    return out


def _parse_distribution(kind: str, node: Any, source: str) -> Distribution:
    import yaml

    if kind == "normal":
        if not isinstance(node, yaml.MappingNode):
            raise RangesError("expected a mapping {mean, sd} (optionally low, high)")
        given = {k.value: _plain(v) for k, v in node.value}
        unknown = sorted(set(given) - {"mean", "sd", "low", "high"})
        if unknown or "mean" not in given or "sd" not in given:
            raise RangesError(f"expected mean and sd (optionally low, high), got {', '.join(sorted(given))}")
        return Normal(given["mean"], given["sd"], given.get("low"), given.get("high"), source=source)
    if not isinstance(node, yaml.SequenceNode):
        raise RangesError("expected a list, e.g. [10s, 30s]")
    values = [_plain(v) for v in node.value]
    counts = {"uniform": 2, "logUniform": 2, "triangular": 3}
    if kind in counts and len(values) != counts[kind]:
        shape = "[low, mode, high]" if kind == "triangular" else "[low, high]"
        raise RangesError(f"expected {shape}, got {len(values)} value(s)")
    if kind == "uniform":
        return Uniform(values[0], values[1], source=source)
    if kind == "logUniform":
        return LogUniform(values[0], values[1], source=source)
    if kind == "triangular":
        return Triangular(values[0], values[1], values[2], source=source)
    return Choice(tuple(values), source=source)


def load_ranges(path: str | os.PathLike[str]) -> list[UncertainInput]:
    """The inputs of a ranges file (``ranges:`` and a list of entries)."""
    import yaml

    p = pathlib.Path(os.fspath(path))
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RangesError(f"{p}: cannot read the ranges file: {e}") from None
    try:
        document = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{p}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(p)
        raise RangesError(f"{where}: not valid YAML: {getattr(e, 'problem', None) or e}") from None
    if not isinstance(document, yaml.MappingNode):
        raise RangesError(f"{p}:1:1: expected a mapping with 'ranges:' and a list of inputs")
    entries = None
    for key, value in document.value:
        if key.value != "ranges":
            raise RangesError(f"{_at(key, str(p))}: {key.value}: unknown key (expected ranges)")
        entries = value
    if entries is None:
        raise RangesError(f"{p}:1:1: missing ranges (a list of inputs)")
    return parse_ranges(entries, str(p))

"""Typed, read-only access to a loaded scenario's resolved configuration.

Every value a scenario file can set is an attribute::

    s = drsim.load("scenarios/default.yaml")
    s.spec.load[0].load.rate              # 300.0 (requests per second)
    s.spec.load["checkout"].timeout       # 2.0 (seconds)
    s.services["payments"].service_time   # ServiceTime(kind='exponential', ...)
    s.topology.links["north-east"].rtt    # 0.028 (seconds)
    s.spec.timeline["north-a-outage"].target.zone

The classes are generated from the C++ field lists (``fields()`` in
``sim/fields.h``) that also drive the YAML decoder, the scenario reference
and the JSON Schema, so a field added to a config appears here by itself.
Each class is named after its section of the scenario reference
(``Service``, ``Link``, ``RateProfile``, ...; see
:func:`drsim.scenario_format_markdown`), and each attribute carries its
field's documentation (``help(drsim.config.Link)``).

Conventions, the same for every field:

* Attribute names are the YAML keys in snake_case: ``serviceTime`` ->
  ``service_time``, ``interZoneRtt`` -> ``inter_zone_rtt`` (a Python keyword
  gets a trailing ``_``).
* Durations are ``float`` seconds (``"28ms"`` -> ``0.028``), like every time
  in the Python API (``t_s``, ``duration_s``). They are exact to the
  nanosecond in C++; a float is exact to the nanosecond up to about 104 days.
* Quantities are floats in SI base units: a rate in requests per second
  (``"1200/min"`` -> ``20.0``), a bandwidth in bits per second
  (``"10Gbps"`` -> ``1e10``), a percentage as a fraction (``"10%"`` ->
  ``0.1``); a size is an ``int`` of bytes (``"64MiB"`` -> ``67108864``).
* An optional field that is absent is ``None``. Defaults are filled in: what
  the scenario ran with, not only what the file spelled out.
* A list of structs is a :class:`ConfigList`: a read-only sequence whose
  items can also be looked up by name (``services["payments"]``), as the
  ``[name]`` selectors of overrides do. A list of plain values is a tuple.
* Everything is immutable; values compare and hash by value, whether they
  are views into a loaded scenario or built as below. ``_fields`` names the
  attributes, ``_asdict()`` gives plain dicts and lists (for JSON or
  pandas), :func:`fields` describes each field. In IPython and Jupyter a
  value prints one field per line (``_repr_pretty_``); ``repr()`` stays on
  one line.

Constructing values
-------------------

Every class but the root :class:`ScenarioSpec` is built from keyword
arguments, one per field, named as the attributes (the YAML camelCase key
works too)::

    retry = drsim.config.RetryPolicy(attempts=3, per_try_timeout="500ms")
    retry.backoff.base                    # 0.025: defaults are filled in
    pool = drsim.config.ConnectionPool(maximum_pool_size=20, tcp={"syn_retries": 2})
    faster = s.services["payments"]._replace(concurrency=64)

Values are those :meth:`drsim.Scenario.replace` takes for the field: floats
in the units above, a ``str`` as scenario text (``"5m"``, ``"800rps"``,
``"10%"``), a dict or a value for a nested struct, a list for a list,
``None`` to leave an optional field unset. The keywords are written as the
mapping a scenario file would hold and decoded by the scenario decoder, so
a constructed value is exactly what a scenario gets from the same text:
every default filled in, every check of the field flags and of the
struct's own rules applied. References to other parts of a scenario (a
service's zones, a population's service) are checked when the value goes
into one, e.g. ``s.replace({"spec.load[checkout].retry": retry})``.

A bad value raises :class:`drsim.ScenarioError` naming the class and field
(``RetryPolicy.attempts: expected a positive unsigned integer, got "0"``); positional
arguments, an unknown keyword (with a suggestion and the valid ones) or a
missing required one raise :class:`TypeError`, as for any function.
``view._replace(**changes)`` gives a new value with fields changed, checked
the same way. Values pickle (as their YAML text). ``inspect.signature(cls)``
and the generated stubs give each constructor's keywords, with what they
accept and their defaults, to completion in notebooks and editors.

To change a scenario, derive a new one with :meth:`drsim.Scenario.replace`
(typed values, the same units as here) or :meth:`drsim.Scenario.with_overrides`
(YAML text); both go through the scenario loader's validation.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, Iterable, Iterator, NamedTuple, TypeVar, overload

from drsim import _core

if TYPE_CHECKING:  # pragma: no cover
    from drsim._config import *  # noqa: F401,F403  (generated at build time from the C++ field lists)

__all__ = ["ConfigList", "Field", "fields", "classes"]



def _pretty_items(p: Any, open_: str, close: str, items: Iterable[tuple[str, Any]]) -> None:
    """For IPython's pretty printer: ``open_ name=value, ... close`` on one
    line when it fits; otherwise one item per line, indented by four, with
    ``close`` on a line of its own (as black lays out a call)."""
    p.begin_group(4, open_)
    for i, (prefix, value) in enumerate(items):
        if i:
            p.text(",")
            p.breakable()
        else:
            p.breakable("")
        p.text(prefix)
        p.pretty(value)
    # The break before `close` goes back to the enclosing indentation.
    p.indentation -= 4
    p.breakable("")
    p.indentation += 4
    p.end_group(4, close)


def _repr_pretty_(self: Any, p: Any, cycle: bool) -> None:
    """IPython's pretty printer: repr() wrapped, one field per line, nested
    values indented (repr() puts a Service on one very long line)."""
    name = type(self).__name__
    if cycle:  # config values cannot hold themselves; kept for the protocol
        p.text(f"{name}(...)")
        return
    _pretty_items(p, name + "(", ")", ((f + "=", getattr(self, f)) for f in self._fields))


def _constructor_signature(cls: type) -> inspect.Signature:
    """The keyword-only signature of a config class's constructor, for
    inspect.signature() and so for completion in a running notebook (the
    compiled __init__ only says ``*args, **kwargs``): what each keyword
    accepts and, for the fields that may be left out, their default."""
    params = [
        inspect.Parameter(
            row[0],
            inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if row[5] else default,
            annotation=annotation,
        )
        for row, annotation, default in zip(
            cls._field_table, cls._field_input_types, cls._field_defaults()  # type: ignore[attr-defined]
        )
    ]
    return inspect.Signature(params, return_annotation=cls.__name__)


# The generated classes, exported under their names: drsim.config.Service, ...
for _cls in _core._config_classes:
    if _cls is not _core.Scenario:  # the root is drsim.Scenario, which wraps it
        # setattr: to a type checker _cls is a plain `type`, without these attributes.
        setattr(_cls, "_repr_pretty_", _repr_pretty_)
        globals()[_cls.__name__] = _cls
        __all__.append(_cls.__name__)
del _cls

T = TypeVar("T")


class ConfigList(Sequence[T], Generic[T]):
    """A read-only list of config items (services, links, timeline steps, ...).

    Index it like a tuple (``items[0]``, ``items[-1]``, ``items[1:3]``) or,
    when the items have a ``name``, by name (``items["payments"]``, a
    :class:`KeyError` naming the known ones otherwise). ``"payments" in
    items`` is true for an item of that name as well as for an item equal to
    it. Compares equal to another ConfigList, list or tuple with equal items.
    """

    __slots__ = ("_items",)

    def __init__(self, items: Sequence[T] = ()) -> None:
        self._items: tuple[T, ...] = tuple(items)

    @overload
    def __getitem__(self, key: int) -> T: ...
    @overload
    def __getitem__(self, key: str) -> T: ...
    @overload
    def __getitem__(self, key: slice) -> ConfigList[T]: ...
    def __getitem__(self, key: int | str | slice) -> T | ConfigList[T]:
        if isinstance(key, str):
            for item in self._items:
                if getattr(item, "name", None) == key:
                    return item
            raise KeyError(self._unknown_name_message(key))
        if isinstance(key, slice):
            return ConfigList(self._items[key])
        return self._items[key]

    def _unknown_name_message(self, key: str) -> str:
        names = self.names()
        if not names:
            return f"{key!r}: these items have no names; index them by position"
        guess = difflib.get_close_matches(key, names, n=1)
        hint = f", did you mean {guess[0]!r}?" if guess else ""
        return f"no item named {key!r}{hint} (names: {', '.join(names)})"

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)

    def __contains__(self, value: object) -> bool:
        if isinstance(value, str):
            return value in self.names()
        return value in self._items

    def names(self) -> list[str]:
        """The items' names, in order (empty when the items have none)."""
        return [name for name in (getattr(item, "name", None) for item in self._items) if isinstance(name, str)]

    def get(self, name: str, default: Any = None) -> Any:
        """The item named ``name``, or ``default``."""
        try:
            return self[name]
        except KeyError:
            return default

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ConfigList):
            return self._items == other._items
        if isinstance(other, (list, tuple)):
            return self._items == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._items)

    def __repr__(self) -> str:
        return "[" + ", ".join(repr(item) for item in self._items) + "]"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """IPython's pretty printer: an item per line when they do not fit on one."""
        _pretty_items(p, "[", "]", (("", item) for item in self._items))

    def __copy__(self) -> ConfigList[T]:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> ConfigList[T]:
        return self


class Field(NamedTuple):
    """One field of a config class, as :func:`fields` describes it."""

    name: str  #: the attribute name (snake_case)
    key: str  #: the YAML key (camelCase)
    doc: str  #: what the field means, from the C++ field list
    type: str  #: the Python type of its value, e.g. "float | None", "ConfigList[Zone]"
    unit: str  #: "seconds", "per second", "bits per second", "a fraction, 0.1 for 10%", "bytes", or ""
    required: bool  #: whether a scenario file must give it


def fields(config: Any) -> tuple[Field, ...]:
    """The fields of a config class or view, in the order of the scenario
    reference: ``fields(drsim.config.Link)``, ``fields(scenario.spec)``."""
    cls = config if isinstance(config, type) else type(config)
    table = getattr(cls, "_field_table", None)
    if table is None:
        raise TypeError(f"{cls.__name__} is not a drsim config class")
    return tuple(Field(*row) for row in table)


def classes() -> tuple[type, ...]:
    """Every config class, the root scenario's first, in the order they are
    reached from it."""
    return tuple(_core._config_classes)


# After ConfigList: the defaults of lists of structs are ConfigLists.
for _cls in _core._config_classes:
    if hasattr(_cls, "_field_defaults"):  # not the roots, which are loaded, not built
        setattr(_cls, "__signature__", _constructor_signature(_cls))
del _cls

"""Writes drsim/_core.pyi, the type stubs of the compiled module.

The stubs are read off the imported _core: pybind11 gives every function,
method and property a signature line in its docstring, written from the C++
types, and the classes and their members are walked as they are. Where the
C++ side takes or returns a bare ``py::object``/``py::dict``/``py::list``,
the signature says only ``object``/``dict``/``list``; a hand-kept replacement
for that one name may then be given in drsim/_core_stub_types.py, which this
module reads (the only hand-written part). The config views are left out:
_config.pyi (drsim/_stubgen.py) has them, and _core.pyi imports it.
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any, Callable, Iterator

from drsim import _core
from drsim._core_stub_types import HEADER_NOTE, REPLACEMENTS

_HEADER = '''\
# Type stubs for the compiled module drsim._core (python/src/*.cc), generated
# by drsim/_core_stubgen.py from the module's pybind11 signatures when _core is
# built, with the replacements of drsim/_core_stub_types.py. Do not edit.
{note}
from collections.abc import Iterable, Mapping
from typing import Any, Callable, overload

import numpy as np
import numpy.typing as npt

from drsim._config import *  # noqa: F403
from drsim._config import _ScenarioFields

'''

# ---- pybind11's type text -> a stub's ----------------------------------------

# pybind11 2.10 spells a type as C++ casters name it; these are Python's names.
_GENERIC = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "Sequence": "Sequence",
            "Iterable": "Iterable", "Iterator": "Iterator", "Callable": "Callable"}
# Bare Python types that a caster names without parameters.
_BARE = {
    "object": "Any",
    "handle": "Any",
    "args": "Any",
    "kwargs": "Any",
    "dict": "dict[str, Any]",
    "list": "list[Any]",
    "tuple": "tuple[Any, ...]",
    "iterable": "Iterable[Any]",
    "function": "Callable[..., Any]",
}


class _Type:
    """One parsed type expression: a name with optional arguments, or (name
    "") a bracketed list as in Callable[[int], None]."""

    def __init__(self, name: str, args: list[_Type] | None) -> None:
        self.name = name
        self.args = args

    def render(self) -> str:
        name, args = self.name, self.args
        if name == "":
            return "[" + ", ".join(a.render() for a in args or []) + "]"
        if name.startswith("drsim._core."):
            name = name[len("drsim._core."):]
        if args is None:
            return _BARE.get(name, name)
        rendered = [a.render() for a in args]
        if name == "Optional":
            return f"{rendered[0]} | None"
        if name == "Union":
            return " | ".join(rendered)
        if name == "numpy.ndarray":
            return f"npt.NDArray[{rendered[0].replace('numpy.', 'np.')}]"
        return f"{_GENERIC.get(name, name)}[{', '.join(rendered)}]"


def _parse_type(text: str) -> _Type:
    pos = 0

    def parse() -> _Type:
        nonlocal pos
        start = pos
        while pos < len(text) and text[pos] not in "[],":
            pos += 1
        name = text[start:pos].strip()
        args = None
        if pos < len(text) and text[pos] == "[":
            pos += 1
            args = []
            while True:
                args.append(parse())
                if text[pos] == ",":
                    pos += 1
                    continue
                pos += 1  # "]"
                break
        return _Type(name, args)

    parsed = parse()
    if pos != len(text):
        raise ValueError(f"cannot read the type {text!r}")
    return parsed


def stub_type(text: str) -> str:
    """pybind11's ``Optional[List[drsim._core.Scenario]]`` as ``list[Scenario] | None``."""
    return _parse_type(text.strip()).render()


def _split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def _parameter(text: str, method: bool, first: bool) -> str:
    if text in ("*", "/"):
        return text
    if method and first and text.startswith("self"):
        return "self"
    name, _, rest = text.partition(":")
    annotation, has_default, _ = rest.partition("=")
    default = " = ..." if has_default else ""
    return f"{name.strip()}: {stub_type(annotation)}{default}"


def _signature(line: str, name: str, method: bool) -> str:
    """``def name(...) -> R: ...`` from pybind11's ``name(...) -> R`` line."""
    if not line.startswith(name + "(") and not line.startswith("("):
        raise ValueError(f"{name}: no pybind11 signature in {line!r}")
    params_text, _, returns = line[line.index("(") + 1:].rpartition(") -> ")
    params = [_parameter(p, method, i == 0) for i, p in enumerate(_split_top_level(params_text))]
    return f"def {name}({', '.join(params)}) -> {stub_type(returns)}:"


def _doc_parts(doc: str | None) -> tuple[list[str], str]:
    """(signature lines, the docstring's text) of a pybind11 function. An
    overloaded function lists its signatures as "1. name(...)", "2. ..."."""
    lines = (doc or "").splitlines()
    if len(lines) > 1 and lines[1] == "Overloaded function.":
        signatures = [line.split(". ", 1)[1] for line in lines if line[:1].isdigit() and ". " in line]
        return signatures, ""
    return lines[:1], "\n".join(lines[1:]).strip()


def _docstring(text: str, indent: str) -> str:
    if not text:
        return " ..."
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return "\n" + textwrap.indent(f'"""{body}"""', indent)


def _function(name: str, fn: Any, indent: str, method: bool, static: bool = False) -> str:
    signatures, doc = _doc_parts(fn.__doc__)
    decorators = ["@staticmethod"] if static else []
    if len(signatures) > 1:
        out = []
        for line in signatures:
            out += [indent + d for d in decorators + ["@overload"]]
            out.append(f"{indent}{_signature(line, name, method and not static)} ...")
        return "\n".join(out) + "\n"
    head = "".join(f"{indent}{d}\n" for d in decorators)
    return f"{head}{indent}{_signature(signatures[0], name, method and not static)}{_docstring(doc, indent + '    ')}\n"


def _property(name: str, prop: property, indent: str) -> str:
    getter = prop.fget
    line = (getter.__doc__ or "").splitlines()[0] if getter is not None else ""
    returns = stub_type(line.rpartition(") -> ")[2]) if ") -> " in line else "Any"
    if prop.fset is not None:
        return f"{indent}{name}: {returns}\n"
    doc = (prop.__doc__ or "").strip()
    doc = "" if doc == line.strip() else doc
    return f"{indent}@property\n{indent}def {name}(self) -> {returns}:{_docstring(doc, indent + '    ')}\n"


def _is_routine(value: Any) -> bool:
    return callable(value) and not isinstance(value, type) and hasattr(value, "__doc__")


def _is_inherited_slot(value: Any) -> bool:
    """object's __init__ of a class bound without a constructor (pybind11's
    "No constructor defined!"), which the stub leaves out."""
    return type(value).__name__ == "wrapper_descriptor"


# ---- the module --------------------------------------------------------------

# What every pybind11 class has, or what _config.pyi's classes already say.
_SKIPPED_MEMBERS = {"__doc__", "__module__", "__dict__", "__weakref__", "_pybind11_conduit_v1_"}
_CONFIG_MEMBERS = {"_fields", "_field_table", "_field_input_types", "_asdict"}


def _members(cls: type) -> Iterator[tuple[str, Any]]:
    skipped = set(_SKIPPED_MEMBERS)
    if cls in _core._config_classes:  # Scenario: its fields come from _ScenarioFields
        skipped |= _CONFIG_MEMBERS | set(cls._fields)  # type: ignore[attr-defined]
    for name, value in vars(cls).items():
        if name not in skipped and not _is_inherited_slot(value):
            yield name, value


def _class(name: str, cls: type, replace: Callable[[str, str], str]) -> str:
    bases = "(_ScenarioFields)" if cls in _core._config_classes else ""
    out = [f"class {name}{bases}:"]
    out.append(_docstring((cls.__doc__ or "").strip(), "    ").lstrip(" ") if cls.__doc__ else "")
    body = []
    for member, value in _members(cls):
        qualified = f"{name}.{member}"
        if isinstance(value, property):
            body.append(replace(qualified, _property(member, value, "    ")))
        elif isinstance(value, staticmethod):
            body.append(replace(qualified, _function(member, value.__func__, "    ", True, static=True)))
        elif _is_routine(value):
            body.append(replace(qualified, _function(member, value, "    ", True)))
        else:
            raise ValueError(f"_core.{qualified}: a member the stub generator does not know ({type(value).__name__})")
    head = out[0] + (("\n    " + out[1].strip()) if out[1] else "")
    return head + "\n" + "".join(body)


def _value_type(value: Any) -> str:
    if isinstance(value, tuple) and all(isinstance(v, type) for v in value):
        return "tuple[type, ...]"
    return type(value).__name__


def core_stubs() -> str:
    """The text of _core.pyi for the _core that is imported."""
    unused = set(REPLACEMENTS)

    def replace(qualified: str, generated: str) -> str:
        if qualified not in REPLACEMENTS:
            return generated
        unused.discard(qualified)
        indent = generated[: len(generated) - len(generated.lstrip())]
        return textwrap.indent(textwrap.dedent(REPLACEMENTS[qualified]).strip() + "\n", indent)

    parts = [_HEADER.format(note=textwrap.indent(HEADER_NOTE.strip(), "# "))]
    configs = {cls.__name__ for cls in _core._config_classes if cls is not _core.Scenario}
    for name, value in vars(_core).items():
        if name.startswith("__") and name != "__version__" or name in configs:
            continue
        if isinstance(value, type):
            parts.append("\n" + replace(name, _class(name, value, replace)) + "\n")
        elif _is_routine(value):
            parts.append(replace(name, _function(name, value, "", False)))
        elif inspect.ismodule(value):
            continue
        else:
            parts.append(replace(name, f"{name}: {_value_type(value)}\n"))
    if unused:
        raise ValueError(f"drsim/_core_stub_types.py replaces what _core does not have: {sorted(unused)}")
    return "".join(parts)

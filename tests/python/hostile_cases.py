"""Hostile inputs for the drsim Python API, generated and run in a child
process by test_hostile_inputs.py, so that an input that kills the
interpreter is reported as a failed test naming it.

    python3 hostile_cases.py KIND SEED COUNT [--only N]

Case N of a batch is generated from random.Random(f"{KIND}:{SEED}:{N}")
alone, so ``--only N`` replays it. For every case the child prints
``START N <description>`` before the call and ``DONE N <outcome>`` after it;
an outcome the API does not document is printed as ``BAD N <exception>``.
The parent reads the last START without a DONE as the input that crashed.
"""

from __future__ import annotations

import datetime
import fractions
import math
import os
import pathlib
import random
import re
import sys
import tempfile
import traceback
from typing import Any, Callable

import drsim
from drsim.errors import ScenarioError

from conftest import INLINE_SCENARIO  # this file's folder is sys.path[0]

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
SHIPPED = sorted((REPO_ROOT / "scenarios").glob("*.yaml"))

# What each kind of call may raise: the documented errors (drsim.errors).
SCENARIO_ERRORS = (ScenarioError,)
VALUE_ERRORS = (ScenarioError, TypeError)  # bad values; wrong types or keywords
RUN_ERRORS = (ValueError, TypeError)

YAML_INDICATORS = "[]{},:?-|>!&*#%@`'\""
YAML_ISH = YAML_INDICATORS + "ab01 .\n\n\t~=\\"


def short(value: Any) -> str:
    """A repr that stays on one short line (a case names its generator, which
    reproduces it exactly)."""
    try:
        text = repr(value)
    except Exception as e:  # a huge int
        text = f"<{type(value).__name__}: {type(e).__name__}>"
    return text if len(text) <= 160 else text[:140] + f"...<{len(text)} chars>"


# ---- random values ----------------------------------------------------------


def random_text(rng: random.Random) -> str:
    alphabet = rng.choice([YAML_ISH, YAML_INDICATORS, "abcz09_-./%", "\x00\x7f\u00e9\u2028\U0001f600\ufeff"])
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))


def deep_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def cyclic_list() -> list[Any]:
    value: list[Any] = [1]
    value.append(value)
    return value


def random_value(rng: random.Random, depth: int = 0) -> Any:
    scalars: list[Callable[[], Any]] = [
        lambda: "x" * 50_000,
        lambda: "5m" + "0" * 50_000,
        lambda: rng.choice(["\ud800", "a\udcff", "\udfff5m"]),
        lambda: random_text(rng),
        lambda: rng.choice(["5m", "10%", "800rps", "10Gbps", "64MiB", "500m", "eu-west-1a", "null", "~", ""]),
        lambda: rng.choice([b"", b"\xff\xfe", b"5m", bytearray(b"x")]),
        lambda: rng.choice([math.nan, math.inf, -math.inf, 1e308, -1e308, 5e-324, -0.0, 0.5, 1e-10]),
        lambda: rng.choice([0, -1, 1, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 2**200, 10**5000, -(10**5000)]),
        lambda: rng.choice([True, False, None]),
        lambda: rng.uniform(-1e3, 1e3),
        lambda: datetime.timedelta(days=rng.choice([-1, 0, 10**6, 999_999_999]), microseconds=rng.randint(-5, 5)),
        lambda: fractions.Fraction(10**400, 3),
        lambda: rng.choice([complex(1, 2), object(), (), frozenset({1}), range(3), Ellipsis]),
        lambda: rng.choice([pathlib.PurePosixPath("a.yaml"), pathlib.PurePosixPath("\udcff.yaml")]),
        lambda: rng.choice([deep_list(10_000), cyclic_list()]),
    ]
    containers: list[Callable[[], Any]] = [
        lambda: {random_key(rng): random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))},
        lambda: [random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))],
        lambda: {rng.choice([1, None, b"k", (1,)]): 1},
    ]
    pool = scalars + (containers if depth < 3 else [])
    return rng.choice(pool)()


def random_key(rng: random.Random) -> str:
    return rng.choice(["name", "rtt", "zones", "at", "kind", "rate", "\ud800", "", "x" * 1000, random_text(rng)])


# ---- the kinds of case ------------------------------------------------------
# Each returns (description, call, allowed exception types).

Case = tuple[str, Callable[[], Any], tuple[type[BaseException], ...]]


def random_document(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:  # random bytes, undecodable ones as lone surrogates
        data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))
        return data.decode("utf-8", "surrogateescape") if rng.random() < 0.5 else data.decode("latin-1")
    if kind == 1:  # one to three YAML indicators
        return "".join(rng.choice(YAML_INDICATORS + " \n") for _ in range(rng.randint(1, 3)))
    if kind == 2:
        return "".join(rng.choice(YAML_ISH) for _ in range(rng.randint(0, 60)))
    # YAML-ish lines around a valid start
    lines = ["apiVersion: drsim/v1alpha1", "kind: Scenario", "metadata: {name: x}", "spec:"]
    lines += ["  " * rng.randint(0, 3) + random_text(rng) for _ in range(rng.randint(1, 6))]
    return "\n".join(lines)


def text_case(rng: random.Random, workdir: pathlib.Path) -> Case:
    text = random_document(rng)
    if rng.random() < 0.3:
        # The same through a file: the raw bytes reach the C++ reader.
        path = workdir / "case.yaml"
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        return f"drsim.load(file with bytes {short(path.read_bytes())})", lambda: drsim.load(path), SCENARIO_ERRORS
    return f"drsim.load_text({short(text)})", lambda: drsim.load_text(text), SCENARIO_ERRORS


NUMBER = re.compile(r"(?<![\w.-])-?\d+(\.\d+)?(?=[a-zA-Z%/]*\b)")
NAME = re.compile(r"(name: *)([\w.-]+)")


def mutate(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.splitlines()
    what = rng.randrange(5)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if what == 0:
        del lines[i]
        return "\n".join(lines), f"line {i + 1} deleted"
    if what == 1:
        lines.insert(i, lines[i])
        return "\n".join(lines), f"line {i + 1} duplicated"
    if what == 2:
        lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines), f"lines {i + 1} and {j + 1} swapped"
    if what == 3:
        numbers = list(NUMBER.finditer(text))
        if numbers:
            m = rng.choice(numbers)
            new = rng.choice(["0", "-1", "1e300", "nan", ".nan", "-.inf", str(2**64), str(10**40), "0.0000001"])
            return text[: m.start()] + new + text[m.end() :], f"number {m.group(0)!r} at {m.start()} -> {new!r}"
    names = list(NAME.finditer(text))
    if names:
        m = rng.choice(names)
        new = rng.choice(["", "x", "'a b'", "\"\\u00e9\"", "[a]", "{}", "~", "x" * 300])
        return text[: m.start(2)] + new + text[m.end(2) :], f"name {m.group(2)!r} at {m.start(2)} -> {new!r}"
    return text, "unchanged"


def mutated_case(rng: random.Random, workdir: pathlib.Path) -> Case:
    source = rng.choice(SHIPPED)
    text, how = mutate(rng, source.read_text())
    if rng.random() < 0.3:
        text, how2 = mutate(rng, text)
        how += ", " + how2
    run = rng.random() < 0.25

    def call() -> None:
        try:
            scenario = drsim.load_text(text, name=str(source), base_dir=source.parent)
        except ScenarioError:
            if run:
                return  # nothing to run
            raise
        if run:
            # A second of simulated time under a wall-clock guard: a crash
            # shows up at once, a long run is not what this looks for.
            scenario.with_overrides({"spec.guards.maxWallTime": "10s"}).run(until=1.0)

    desc = f"{source.relative_to(REPO_ROOT)} with {how}" + (", then run(until=1.0)" if run else "")
    # A run that loaded must not fail at all: any exception from it is reported.
    return desc, call, (() if run else SCENARIO_ERRORS)


_SCENARIOS: dict[str, drsim.Scenario] = {}


def base_scenario(rng: random.Random) -> drsim.Scenario:
    key = rng.choice(["inline", "default"])
    if key not in _SCENARIOS:
        _SCENARIOS[key] = (
            drsim.load_text(INLINE_SCENARIO) if key == "inline" else drsim.load(REPO_ROOT / "scenarios/default.yaml")
        )
    return _SCENARIOS[key]


VALID_PATHS = [
    "spec.seed",
    "spec.duration",
    "metadata.name",
    "metadata.description",
    "spec.timeline[0].at",
    "spec.timeline[fail-a].target.zone",
    "spec.timeline[0].duration",
    "spec.topology.links[0].rtt",
    "spec.topology.links[0].bandwidth",
    "spec.topology.regions[0].zones[0].name",
    "spec.topology.regions[0].zones",
    "spec.topology",
    "spec.guards.max_events",
    "spec.load[0].load.rate",
    "spec.load[0].retry",
    "spec.topology.services[0].concurrency",
    "spec.topology.services[0].replicas",
    "spec.timeline",
    "spec",
]


def random_path(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.6:
        return rng.choice(VALID_PATHS)
    if roll < 0.9:
        return "".join(rng.choice("spec.[]0123abc-_=\ud800 ") for _ in range(rng.randint(0, 20)))
    return rng.choice([None, 1, b"spec.seed", "x" * 50_000, ("spec", "seed")])


def replace_case(rng: random.Random, workdir: pathlib.Path) -> Case:
    scenario = base_scenario(rng)
    form = rng.randrange(4)
    if form == 0:
        changes = {random_path(rng): random_value(rng) for _ in range(rng.randint(1, 2))}
        return f"{scenario.name}.replace({short(changes)})", lambda: scenario.replace(changes), VALUE_ERRORS
    if form == 1:
        fields = {rng.choice(["seed", "duration", "guards", "load", "timeline", "x"]): random_value(rng)}
        return f"{scenario.name}.replace(**{short(fields)})", lambda: scenario.replace(**fields), VALUE_ERRORS
    if form == 2:
        overrides = {rng.choice(VALID_PATHS): random_value(rng)}
        return (
            f"{scenario.name}.with_overrides({short(overrides)})",
            lambda: scenario.with_overrides(overrides),
            (ValueError, TypeError),
        )
    items = [f"{rng.choice(VALID_PATHS)}={random_document(rng)}" for _ in range(rng.randint(1, 2))]
    return f"{scenario.name}.with_overrides({short(items)})", lambda: scenario.with_overrides(items), VALUE_ERRORS


def construct_case(rng: random.Random, workdir: pathlib.Path) -> Case:
    classes = [c for c in drsim.config.classes() if hasattr(c, "_field_defaults")]
    cls = rng.choice(classes)
    fields = drsim.config.fields(cls)
    chosen = [f for f in fields if f.required or rng.random() < 0.3] or [rng.choice(fields)]
    kwargs = {f.name if rng.random() < 0.8 else f.key: random_value(rng) for f in chosen}
    if rng.random() < 0.1:
        kwargs[random_key(rng)] = 1
    return f"drsim.config.{cls.__name__}(**{short(kwargs)})", lambda: cls(**kwargs), VALUE_ERRORS


def run_case(rng: random.Random, workdir: pathlib.Path) -> Case:
    scenario = base_scenario(rng)
    kwargs: dict[str, Any] = {}
    if rng.random() < 0.8:
        kwargs["until"] = rng.choice(
            [
                math.nan,
                math.inf,
                -math.inf,
                1e308,
                -1e308,
                -1,
                0,
                0.0,
                -0.0,
                1e-12,
                2**63,
                10**5000,
                -(10**5000),
                "1e999999s",
                "\ud800",
                "x" * 50_000,
                "-5m",
                "0s",
                b"1s",
                datetime.timedelta(days=-1),
                datetime.timedelta.max,
                fractions.Fraction(10**400, 3),
                fractions.Fraction(-1, 3),
                [1],
                None,
                True,
                complex(1, 1),
            ]
            + [random_value(rng)]
        )
    if rng.random() < 0.8:
        kwargs["seed"] = rng.choice(
            [-1, 2**64, 2**64 - 1, -(2**64), 10**5000, 1.0, 1.5, math.nan, "1", "\ud800", b"1", None, True, [1]]
            + [random_value(rng)]
        )
    if rng.random() < 0.1:
        kwargs["progress"] = rng.choice([1, "print", None])
    until = kwargs.get("until")
    if until is None or until is True:
        kwargs["until"] = 1.0  # never the whole horizon
    return f"{scenario.name}.run(**{short(kwargs)})", lambda: scenario.run(**kwargs), RUN_ERRORS


KINDS: dict[str, Callable[[random.Random, pathlib.Path], Case]] = {
    "text": text_case,
    "mutated": mutated_case,
    "replace": replace_case,
    "construct": construct_case,
    "run": run_case,
}


def main(argv: list[str]) -> int:
    kind, seed, count = argv[1], int(argv[2]), int(argv[3])
    only = int(argv[5]) if len(argv) > 5 and argv[4] == "--only" else None
    make = KINDS[kind]
    with tempfile.TemporaryDirectory(prefix="drsim_hostile_") as tmp:
        for n in range(count) if only is None else [only]:
            rng = random.Random(f"{kind}:{seed}:{n}")
            description, call, allowed = make(rng, pathlib.Path(tmp))
            print(f"START {n} {description}", flush=True)
            try:
                call()
                outcome = "ok"
            except allowed as e:
                outcome = type(e).__name__
            except BaseException as e:  # anything undocumented, even a KeyboardInterrupt subclass
                last = traceback.extract_tb(e.__traceback__)[-1]
                detail = " ".join(f"{type(e).__name__}: {e}".split())[:300]
                print(f"BAD {n} {detail} (at {os.path.basename(last.filename)}:{last.lineno})", flush=True)
                outcome = "bad"
            print(f"DONE {n} {outcome}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

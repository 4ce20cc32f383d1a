#!/usr/bin/python3
"""Runs the drsim command on mutated copies of the shipped scenarios and
topologies and reports every outcome that breaks the command's promise:
exit 1 (internal error), a signal, a hang or a memory blow-up.

The libFuzzer targets (fuzz/) explore the loader byte by byte; this sweep
makes the mistakes a person makes in a whole file (a line deleted,
duplicated or swapped, a number set to 0, -1, huge or NaN, a name changed),
with the files it refers to beside it, and goes on through validate, run
and check. It is deterministic for a given --seed.

  /usr/bin/python3 scripts/mutation_sweep.py --drsim build/cli/drsim --mutants 2000
"""
import argparse
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NUMBER = re.compile(r"(?<![\w.])-?\d+(\.\d+)?(?=[a-zµ%]*\b)")
NAME_VALUE = re.compile(r"((?:name|zone|region|service|database|to|from|monitorZone|preferredZone|"
                        r"preferredRegion|population|vendor|link)\s*:\s*)([A-Za-z0-9_.-]+)")
HOSTILE_NUMBERS = ["0", "-1", "1e300", "nan", "inf", "18446744073709551616", "4294967295",
                   "2147483648", "100000", "0.0000001"]
HOSTILE_UNIT_VALUES = ["0s", "-1s", "100000d", "1ns", "10ns", "1us", "9223372036854775807ns",
                       "1e300s", "nans", "0%", "101%", "1e300rps"]
HOSTILE_NAMES = ["nowhere", "", "..", "../../escaped", "/abs", "a" * 300, "x y", "é"]


def mutate(text, rng):
    lines = text.split("\n")
    kind = rng.randrange(7)
    if kind == 0 and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
    elif kind == 1:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    elif kind == 2 and len(lines) > 2:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind in (3, 4):
        spots = [(i, m) for i, line in enumerate(lines) for m in NUMBER.finditer(line)]
        if spots:
            i, m = rng.choice(spots)
            value = rng.choice(HOSTILE_NUMBERS if kind == 3 else HOSTILE_UNIT_VALUES)
            end = m.end()
            if kind == 4:  # replace the number and its unit
                while end < len(lines[i]) and (lines[i][end].isalpha() or lines[i][end] in "µ%"):
                    end += 1
            lines[i] = lines[i][:m.start()] + value + lines[i][end:]
    elif kind == 5:
        spots = [(i, m) for i, line in enumerate(lines) for m in NAME_VALUE.finditer(line)]
        if spots:
            i, m = rng.choice(spots)
            name = rng.choice(HOSTILE_NAMES)
            lines[i] = lines[i][:m.start(2)] + (f'"{name}"' if name else '""') + lines[i][m.end(2):]
    else:  # two mutations at once
        return mutate(mutate(text, rng), rng)
    return "\n".join(lines)


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def run(cmd, cwd, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                           preexec_fn=limit_memory, errors="replace")
        return p.returncode, (p.stderr or p.stdout).strip().splitlines()[-1:] or [""]
    except subprocess.TimeoutExpired:
        return "timeout", [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--drsim", default=str(ROOT / "build/cli/drsim"))
    ap.add_argument("--mutants", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--until", default="2m", help="simulated time for run (keeps each mutant short)")
    ap.add_argument("--keep", default=None, help="folder to copy the failing mutants into")
    args = ap.parse_args()
    drsim = str(Path(args.drsim).resolve())
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="drsim-mutants-"))
    for folder in ("scenarios", "topologies"):
        shutil.copytree(ROOT / folder, work / folder)
    sources = sorted((work / "scenarios").glob("*.yaml")) + sorted((work / "topologies").glob("*.yaml"))
    scenarios = sorted((work / "scenarios").glob("*.yaml"))
    failures = []
    valid = 0
    for n in range(args.mutants):
        source = rng.choice(sources)
        original = source.read_text()
        mutant_text = mutate(original, rng)
        if source.parent.name == "topologies":
            # Mutate a topology in place and run a scenario that uses it.
            users = [s for s in scenarios if f"../topologies/{source.name}" in s.read_text()]
            if not users:
                continue
            scenario = rng.choice(users)
            source.write_text(mutant_text)
        else:
            scenario = source.parent / f"mutant_{n}.yaml"
            scenario.write_text(mutant_text)
        try:
            rc, msg = run([drsim, "validate", str(scenario)], work, args.timeout)
            outcomes = [("validate", rc, msg)]
            if rc == 0:
                valid += 1
                out = work / "out"
                outcomes.append(("run",) + run([drsim, "run", str(scenario), "--quiet", "--until", args.until,
                                                "--out", str(out), "--set", "spec.guards.maxWallTime=20s"],
                                               work, args.timeout))
                outcomes.append(("check",) + run([drsim, "check", str(scenario)], work, args.timeout))
            for command, rc, msg in outcomes:
                if rc not in (0, 2, 3, 4):
                    failures.append((command, rc, msg[0], source.name, mutant_text))
                    print(f"[{n}] {command} {source.name}: {rc}: {msg[0][:200]}", flush=True)
                    if args.keep:
                        Path(args.keep).mkdir(parents=True, exist_ok=True)
                        (Path(args.keep) / f"{n}_{command}_{source.name}").write_text(mutant_text)
        finally:
            if source.parent.name == "topologies":
                source.write_text(original)
            else:
                scenario.unlink()
    shutil.rmtree(work, ignore_errors=True)
    print(f"{args.mutants} mutants, {valid} valid, {len(failures)} broken promises")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

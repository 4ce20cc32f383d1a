#!/usr/bin/python3
"""Byte-for-byte behaviour check for refactors (issue 16).

Runs every shipped scenario and every test scenario through a drsim binary
and records a SHA-256 of each output that states behaviour: timeseries.csv,
events.csv and kpis.json (plus the exit code, so a scenario that is refused
stays refused). `record` writes the digests to a JSON file; `compare` runs
again and lists every scenario whose outputs differ from the recorded ones.

    scripts/compare_outputs.py record  build/cli/drsim bench/outputs_before.json
    scripts/compare_outputs.py compare build/cli/drsim bench/outputs_before.json

Scenarios run with their own seed and horizon (the whole set takes a few
minutes on two cores).
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Where scenarios live; topology-only files and bad inputs are not runs.
SCENARIO_GLOBS = [
    "scenarios/*.yaml",
    "tests/data/scenarios/good/*.yaml",
    "tests/data/scenarios/csv/*.yaml",
    "bench/*.yaml",
    "docs/*.yaml",
]
OUTPUTS = ["timeseries.csv", "events.csv", "kpis.json"]


def scenarios():
    found = []
    for pattern in SCENARIO_GLOBS:
        found.extend(sorted(ROOT.glob(pattern)))
    # Topology documents (kind: Topology) are not runs.
    return [p for p in found if "kind: Scenario" in p.read_text(encoding="utf-8", errors="replace")]


def digest(path):
    if not path.exists():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_one(binary, scenario):
    with tempfile.TemporaryDirectory() as out:
        cmd = [binary, "run", str(scenario), "--out", out]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        record = {"exit": done.returncode}
        for name in OUTPUTS:
            record[name] = digest(pathlib.Path(out) / name)
        if done.returncode not in (0, 3):
            record["stderr"] = done.stderr.strip().replace(str(ROOT) + "/", "").splitlines()[-1:]
        return str(scenario.relative_to(ROOT)), record


def run_all(binary, jobs):
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_one, binary, s) for s in scenarios()]
        for f in futures:
            name, record = f.result()
            results[name] = record
    return dict(sorted(results.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["record", "compare"])
    parser.add_argument("binary")
    parser.add_argument("digests")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    binary = str(pathlib.Path(args.binary).resolve())
    results = run_all(binary, args.jobs)
    if args.mode == "record":
        pathlib.Path(args.digests).write_text(json.dumps({"runs": results}, indent=1) + "\n")
        print(f"recorded {len(results)} scenarios in {args.digests}")
        return 0
    before = json.loads(pathlib.Path(args.digests).read_text())
    differ = []
    for name in sorted(set(before["runs"]) | set(results)):
        if before["runs"].get(name) != results.get(name):
            differ.append(name)
            was, now = before["runs"].get(name) or {}, results.get(name) or {}
            changed = [key for key in sorted(set(was) | set(now)) if was.get(key) != now.get(key)]
            print(f"DIFFERS {name}: {', '.join(changed)}")
    same = len(results) - len(differ)
    print(f"{same} of {len(results)} scenarios byte-identical (timeseries.csv, events.csv, kpis.json)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

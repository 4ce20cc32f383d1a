#!/usr/bin/python3
"""Byte-for-byte behaviour check for refactors (issue 16).

Runs every shipped scenario and every test scenario through a drsim binary
and records a SHA-256 of each output that states behaviour: timeseries.csv,
events.csv, kpis.json, faults.csv and objectives.json (plus the exit code,
so a scenario that is refused stays refused; records made before the last
two were added are compared on the three they hold). `record` writes the digests to a JSON file; `compare` runs
again and lists every scenario whose outputs differ from the recorded ones.

    scripts/compare_outputs.py record  build/cli/drsim bench/outputs_before.json
    scripts/compare_outputs.py compare build/cli/drsim bench/outputs_before.json

`compare --drop-kind KIND` leaves the rows of an event kind out of the new
events.csv before hashing it: for a change that adds events of a new kind
and nothing else.

`renamed` checks a change that renames event kinds and nothing else: it runs
the old and the new binary on every scenario and requires timeseries.csv,
kpis.json and the exit code to be byte-identical, and the old events.csv,
once the kind column is mapped old -> new, to be byte-identical to the new
one. The map is the new binary's event kind catalog (`drsim docs --format
event-kinds`, each kind's `formerly`). With --reference, the old binary's
digests must first match that record, so the old run is the recorded one.

    scripts/compare_outputs.py renamed OLD_BINARY build/cli/drsim \
        --reference bench/refactor/outputs_after_describe.json

Scenarios run with their own seed and horizon (the whole set takes a few
minutes on two cores).
"""

import argparse
import collections
import concurrent.futures
import csv
import hashlib
import io
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
# faults.csv and objectives.json (the fault report and the judge's verdicts)
# joined after the first records were made: a record is compared on the
# outputs it holds, so older records stay usable.
OUTPUTS = ["timeseries.csv", "events.csv", "kpis.json", "faults.csv", "objectives.json"]


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


def run_one(binary, scenario, keep_events=False):
    with tempfile.TemporaryDirectory() as out:
        cmd = [binary, "run", str(scenario), "--out", out]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        record = {"exit": done.returncode}
        for name in OUTPUTS:
            record[name] = digest(pathlib.Path(out) / name)
        if done.returncode not in (0, 3):
            record["stderr"] = done.stderr.strip().replace(str(ROOT) + "/", "").splitlines()[-1:]
        events = pathlib.Path(out) / "events.csv"
        text = events.read_bytes() if keep_events and events.exists() else None
        return str(scenario.relative_to(ROOT)), record, text


def run_all(binary, jobs, keep_events=False):
    results, events = {}, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_one, binary, s, keep_events) for s in scenarios()]
        for f in futures:
            name, record, text = f.result()
            results[name] = record
            events[name] = text
    results = dict(sorted(results.items()))
    return (results, events) if keep_events else results


def report_differences(before, results):
    """Prints each scenario whose record differs; returns their names."""
    differ = []
    for name in sorted(set(before) | set(results)):
        was, now = before.get(name), results.get(name)
        if was is None or now is None:
            differ.append(name)
            print(f"DIFFERS {name}: {'new scenario' if was is None else 'no longer run'}")
            continue
        # The outputs the record holds (older records hold fewer), and stderr either way.
        keys = set(was) | ({"stderr"} & set(now))
        changed = [key for key in sorted(keys) if was.get(key) != now.get(key)]
        if changed:
            differ.append(name)
            print(f"DIFFERS {name}: {', '.join(changed)}")
    return differ


def kind_renames(binary):
    """old spelling -> kind, from the binary's event kind catalog."""
    done = subprocess.run([binary, "docs", "--format", "event-kinds"], capture_output=True, text=True, check=True)
    renames = {}
    for kind in json.loads(done.stdout)["eventKinds"]:
        if kind["formerly"]:
            renames[kind["formerly"]] = kind["name"]
    return renames


def csv_field(text):
    # As io/result_writer.cc writes a field: quoted only when it must be.
    if not any(c in text for c in ',"\n\r'):
        return text
    return '"' + text.replace('"', '""') + '"'


def rename_kinds(events, renames, counts):
    """events.csv with its kind column mapped; counts the renamed rows per old kind."""
    text = events.decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))

    def rewrite(rows):
        return "".join(",".join(csv_field(f) for f in row) + "\n" for row in rows)

    # The mapping re-writes every row, so the writing must give back the file as it was.
    if rewrite(rows) != text:
        raise SystemExit("events.csv does not round-trip through csv: cannot map its kinds")
    kind = rows[0].index("kind")
    for row in rows[1:]:
        if row[kind] in renames:
            counts[row[kind]] += 1
            row[kind] = renames[row[kind]]
    return rewrite(rows).encode("utf-8")


def drop_kinds(events, kinds):
    """events.csv without the rows of the given kinds, and how many rows went."""
    text = events.decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    kind = rows[0].index("kind")
    kept = [rows[0]] + [row for row in rows[1:] if row[kind] not in kinds]
    out = "".join(",".join(csv_field(f) for f in row) + "\n" for row in kept)
    return out.encode("utf-8"), len(rows) - len(kept)


def compare_renamed(old_binary, new_binary, reference, jobs):
    old, old_events = run_all(old_binary, jobs, keep_events=True)
    if reference is not None:
        recorded = json.loads(pathlib.Path(reference).read_text())["runs"]
        if report_differences(recorded, old):
            print(f"the old binary does not reproduce {reference}")
            return 1
        print(f"old binary: {len(old)} of {len(old)} scenarios byte-identical to {reference}")
    new, new_events = run_all(new_binary, jobs, keep_events=True)
    renames = kind_renames(new_binary)
    counts = collections.Counter()
    mapped = {}
    for name, record in old.items():
        # objectives.json names the detecting event's kind: this mode checks the three files it always has.
        mapped[name] = {key: value for key, value in record.items() if key not in ("faults.csv", "objectives.json")}
        if old_events[name] is not None:
            mapped[name]["events.csv"] = hashlib.sha256(rename_kinds(old_events[name], renames, counts)).hexdigest()
    differ = report_differences(mapped, new)
    events_changed = sum(1 for name in new if old[name].get("events.csv") != new[name].get("events.csv"))
    print(f"{len(new) - len(differ)} of {len(new)} scenarios: timeseries.csv, kpis.json and exit byte-identical, "
          f"events.csv byte-identical once the old kinds are renamed ({events_changed} events.csv files changed)")
    print(f"{sum(counts.values())} events renamed, {len(counts)} of {len(renames)} renamed kinds seen:")
    for was, n in sorted(counts.items()):
        print(f"  {was} -> {renames[was]}: {n}")
    return 1 if differ else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["record", "compare", "renamed"])
    parser.add_argument("binary", help="the binary to run (renamed: the old one)")
    parser.add_argument("digests", help="the record to write or compare with (renamed: the new binary)")
    parser.add_argument("--reference", help="renamed: the record the old binary must reproduce")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--drop-kind",
        action="append",
        default=[],
        help="compare: leave the events of this kind out of events.csv first (a change that only adds a kind)",
    )
    args = parser.parse_args()
    binary = str(pathlib.Path(args.binary).resolve())
    if args.mode == "renamed":
        return compare_renamed(binary, str(pathlib.Path(args.digests).resolve()), args.reference, args.jobs)
    if args.drop_kind and args.mode == "compare":
        results, events = run_all(binary, args.jobs, keep_events=True)
        dropped = 0
        for name, text in events.items():
            if text is not None:
                kept, n = drop_kinds(text, set(args.drop_kind))
                results[name]["events.csv"] = hashlib.sha256(kept).hexdigest()
                dropped += n
        print(f"left out {dropped} events of kinds {', '.join(args.drop_kind)} before comparing events.csv")
    else:
        results = run_all(binary, args.jobs)
    if args.mode == "record":
        pathlib.Path(args.digests).write_text(json.dumps({"runs": results}, indent=1) + "\n")
        print(f"recorded {len(results)} scenarios in {args.digests}")
        return 0
    before = json.loads(pathlib.Path(args.digests).read_text())
    differ = report_differences(before["runs"], results)
    same = len(results) - len(differ)
    compared = [name for name in OUTPUTS if any(name in r for r in before["runs"].values())]
    print(f"{same} of {len(results)} scenarios byte-identical ({', '.join(compared)})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

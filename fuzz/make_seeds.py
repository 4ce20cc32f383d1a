#!/usr/bin/python3
"""Writes the seed corpus of the fuzz targets: make_seeds.py OUT_DIR.

OUT_DIR/<target>/ gets, for the targets that read a scenario file, every
shipped scenario (scenarios/, tests/data/scenarios/good and bad) with its
file references rewritten relative to scenarios/ (where the targets resolve
them), and a copy of each with its topology file written inline (so the
mutator sees the topology's text too); fuzz_import_kubernetes gets the
manifests of tests/data/manifests and the worked example, fuzz_import_experiment
their experiments, fuzz_import_traces their traces; fuzz_overrides gets override lines
for its base scenarios (fuzz/fuzz_overrides.cc). Deterministic: the same
tree gives the same files.
"""
import os
import pathlib
import re
import shutil
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
BASE_DIR = ROOT / "scenarios"  # DRSIM_FUZZ_BASE_DIR
SCENARIO_TARGETS = ["fuzz_scenario_loader", "fuzz_check", "fuzz_run"]
SOURCES = [ROOT / "scenarios", ROOT / "tests/data/scenarios/good", ROOT / "tests/data/scenarios/bad"]
FILE_REF = re.compile(r"(\b(?:topology|file):[ \t]*)([A-Za-z0-9_./-]+\.(?:yaml|csv))")

# fuzz_import_kubernetes: every manifest the tests and the worked example hold.
MANIFEST_SOURCES = [ROOT / "tests/data/manifests", ROOT / "examples/online_boutique/kubernetes"]

# fuzz_import_experiment: the experiments of the tests and the worked example.
EXPERIMENT_SOURCES = [ROOT / "tests/data/experiments", ROOT / "examples/online_boutique/experiments"]
# fuzz_import_traces: the traces of the tests and the worked example.
TRACE_SOURCES = [ROOT / "tests/data/traces", ROOT / "examples/online_boutique/traces"]

# fuzz_overrides: the first byte picks the base scenario (its index in
# kBaseScenarios), the lines are --set overrides.
OVERRIDE_SEEDS = [
    (0, ["spec.seed=7", "spec.duration=5m"]),
    (0, ["spec.timeline[north-a-outage].at=1m", "spec.timeline[1].delay=30s"]),
    (0, ["spec.topology.regions[0].zones[0].name=x"]),
    (0, ["spec.topology.services[0].replicas[0].replicas=0", "spec.load[0].load={kind: constant, rate: 10rps}"]),
    (0, ["spec.topology=../topologies/three_zones_one_region.yaml"]),
    (1, ["spec.topology.databases[0].replication=sync", "spec.guards.maxEvents=1000"]),
    (1, ["spec.timeline[0].target={zone: x}"]),
    (2, ["spec.topology.topics[0].partitions=3", "spec.metricsWindow=10s"]),
    (3, ["spec.kubernetes.nodePools[0].nodes=1", "spec.objectives={}"]),
]


def relative_to_base(path, source_dir):
    return os.path.relpath((source_dir / path).resolve(), BASE_DIR)


def rewrite_refs(text, source_dir):
    return FILE_REF.sub(lambda m: m.group(1) + relative_to_base(m.group(2), source_dir), text)


def rewrite_tree(node, source_dir):
    """The `file:` values of a loaded topology, relative to scenarios/."""
    if isinstance(node, dict):
        return {k: (relative_to_base(v, source_dir) if k == "file" and isinstance(v, str) else rewrite_tree(v, source_dir))
                for k, v in node.items()}
    if isinstance(node, list):
        return [rewrite_tree(v, source_dir) for v in node]
    return node


def inlined(text, source_dir):
    """The scenario with its topology file inline, or None (inline already, or not loadable)."""
    if not re.search(r"^  topology:[ \t]*[A-Za-z0-9_./-]+\.yaml", text, re.M):
        return None
    try:
        doc = yaml.safe_load(text)
        ref = doc["spec"]["topology"]
        if not isinstance(ref, str):
            return None
        topology_file = (source_dir / ref).resolve()
        topology = yaml.safe_load(topology_file.read_text())
        doc["spec"]["topology"] = rewrite_tree(topology["spec"], topology_file.parent)
    except (yaml.YAMLError, OSError, KeyError, TypeError, UnicodeDecodeError, RecursionError):
        return None
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


def main():
    out = pathlib.Path(sys.argv[1])
    shutil.rmtree(out, ignore_errors=True)
    for target in SCENARIO_TARGETS + ["fuzz_overrides"]:
        (out / target).mkdir(parents=True)
    for source in SOURCES:
        prefix = source.relative_to(ROOT).as_posix().replace("/", "-")
        for path in sorted(source.glob("*.yaml")):
            data = path.read_bytes()
            seeds = {f"{prefix}-{path.name}": data}
            try:
                text = data.decode()
            except UnicodeDecodeError:
                text = None
            if text is not None:
                seeds[f"{prefix}-{path.name}"] = rewrite_refs(text, path.parent).encode()
                inline = inlined(text, path.parent)
                if inline is not None:
                    seeds[f"{prefix}-inline-{path.name}"] = inline.encode()
            for target in SCENARIO_TARGETS:
                for name, seed in seeds.items():
                    (out / target / name).write_bytes(seed)
    (out / "fuzz_import_kubernetes").mkdir(parents=True)
    for source in MANIFEST_SOURCES:
        for path in sorted(p for p in source.rglob("*") if p.suffix in (".yaml", ".json")):
            name = path.relative_to(ROOT).as_posix().replace("/", "-")
            (out / "fuzz_import_kubernetes" / name).write_bytes(path.read_bytes())
    (out / "fuzz_import_experiment").mkdir(parents=True)
    for source in EXPERIMENT_SOURCES:
        for path in sorted(p for p in source.rglob("*") if p.suffix in (".yaml", ".json")):
            name = path.relative_to(ROOT).as_posix().replace("/", "-")
            (out / "fuzz_import_experiment" / name).write_bytes(path.read_bytes())
    (out / "fuzz_import_traces").mkdir(parents=True)
    for source in TRACE_SOURCES:
        for path in sorted(p for p in source.rglob("*.json")):
            name = path.relative_to(ROOT).as_posix().replace("/", "-")
            (out / "fuzz_import_traces" / name).write_bytes(path.read_bytes())
    for number, (base, lines) in enumerate(OVERRIDE_SEEDS):
        (out / "fuzz_overrides" / f"overrides-{number}").write_bytes(bytes([base]) + "\n".join(lines).encode())


if __name__ == "__main__":
    main()

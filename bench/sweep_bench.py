#!/usr/bin/python3
"""Wall time of a drsim.sweep of many one-hour runs of a small scenario.

Issue 7 asks that 1,000 one-hour runs of a small scenario finish on a
2-core machine in minutes. The scenario is scenarios/two_cell_region_failover.yaml
(7 zones in Ireland, Oregon and Spain, Route 53 latency routing with health
checks, one client population at 20 requests/s, Ireland lost at 70 s),
run for one simulated hour (``until="1h"``, past its 5-minute default).
The grid is the health-check interval, 10 s or 30 s, and the seeds make up
the rest, so --runs 1000 is 2 x 500 seeds. Not part of `make test`.

    PYTHONPATH=<build>/python /usr/bin/python3 bench/sweep_bench.py --runs 1000
    ... --dask 2        # the same sweep on a Dask LocalCluster of 2 worker processes
    ... --out DIR       # with a results folder (run it again to see a resume read it back)
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

import drsim

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "two_cell_region_failover.yaml"
CHECKS = "spec.load[spain].routing.healthCheck.requestInterval"
UNTIL = "1h"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="total runs, even (default 1000)")
    parser.add_argument("--workers", type=int, default=None, help="local processes (default: the CPU count)")
    parser.add_argument("--dask", type=int, default=0, metavar="N",
                        help="run on a Dask LocalCluster of N single-threaded worker processes instead")
    parser.add_argument("--out", default=None, help="results folder (default: none)")
    parser.add_argument("--progress", action="store_true", help="show the tqdm bar")
    args = parser.parse_args()
    if args.runs < 2 or args.runs % 2:
        parser.error("--runs is an even number >= 2 (two health-check intervals x runs/2 seeds)")

    scenario = drsim.load(SCENARIO)
    started = time.perf_counter()
    one = scenario.run(until=UNTIL)
    print(f"one run in this process: {time.perf_counter() - started:.3f} s "
          f"({one.outcome.events} events, {one.horizon_s:.0f} simulated s)")

    grid = {CHECKS: ["10s", "30s"]}
    seeds = range(args.runs // 2)
    kw = dict(until=UNTIL, progress=args.progress, out=args.out, kpis=["client.availability"])
    started = time.perf_counter()
    if args.dask:
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=args.dask, processes=True, threads_per_worker=1,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            cluster_up = time.perf_counter() - started
            sw = drsim.sweep(scenario, grid, seeds, client=client, **kw)
        where = f"Dask LocalCluster, {args.dask} worker processes (cluster start {cluster_up:.1f} s included)"
    else:
        sw = drsim.sweep(scenario, grid, seeds, workers=args.workers, **kw)
        where = f"local process pool, {args.workers or os.cpu_count()} workers"
    wall = time.perf_counter() - started
    per_run = sw.runs["wall_s"]
    print(f"{len(sw.runs)} runs ({sw.executed} executed) of {UNTIL} each on {where}: {wall:.1f} s wall, "
          f"{sw.executed / wall:.2f} runs/s")
    if sw.executed:
        print(f"per run in the workers: median {statistics.median(per_run):.3f} s, max {per_run.max():.3f} s; "
              f"load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    rto = sw.runs.groupby(CHECKS)["ireland-cell-deleted.rto_s"].mean()
    print("mean RTO by health-check interval:", ", ".join(f"{k}: {v:.1f} s" for k, v in rto.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

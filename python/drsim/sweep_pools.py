"""Where a sweep's runs execute: a local process pool, or a Dask cluster.

Both yield ``(task, value)`` pairs as runs finish, in whatever order they
finish (the sweep sorts its rows afterwards), and both survive a worker
process that dies in the middle of a run:

- the local pool is a :class:`concurrent.futures.ProcessPoolExecutor`; a
  dead worker breaks the whole pool (``BrokenProcessPool`` on every pending
  future), so the pool is replaced and the runs not finished yet are
  submitted again. A run that kills its worker every time would loop
  forever, so after ``max_breaks`` breaks in a row with no run finishing in
  between the sweep stops with :class:`SweepWorkerLost`;
- on Dask the scheduler itself reruns the tasks of a lost worker (up to
  ``distributed.scheduler.allowed-failures`` times, then the task fails
  with ``KilledWorker``, which is re-raised here).

Processes, not threads, for the local pool: a run spends part of its time
in Python (building the figures with pandas) under the GIL, and a killed
run must not take the caller down with it. Workers are started by
``forkserver`` where there is one (else ``spawn``): never ``fork``, which
would copy the caller's threads' locks (tqdm's, Dask's) into the child.

The generators clean up when closed (``contextlib.closing``): pending runs
are cancelled, so an exception in the caller's loop (Ctrl-C, a callback
that raises) stops the sweep promptly.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import uuid
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Generator, Sequence, TypeVar

__all__ = ["SweepWorkerLost", "run_local", "run_dask"]

T = TypeVar("T")


class SweepWorkerLost(RuntimeError):
    """Local worker processes kept dying: the runs left are named in the message."""


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def usable_cores() -> int:
    """The cores this process may run on: the CPU affinity mask (a container's
    or taskset's limit), not os.cpu_count()'s count of the machine's."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def run_local(
    tasks: Sequence[T],
    fn: Callable[[T], Any],
    *,
    key: Callable[[T], str],
    workers: int,
    max_breaks: int = 3,
) -> Generator[tuple[T, Any], None, None]:
    """Runs ``fn(task)`` for every task on ``workers`` local processes,
    yielding ``(task, value)`` as each finishes; restarts the pool and
    resubmits the unfinished tasks when a worker dies. An exception raised by
    ``fn`` is re-raised (after the pool is shut down)."""
    pending: dict[str, T] = {key(t): t for t in tasks}
    breaks = 0
    while pending:
        pool = concurrent.futures.ProcessPoolExecutor(max_workers=min(workers, len(pending)), mp_context=_context())
        broken = False
        try:
            futures = {pool.submit(fn, t): k for k, t in pending.items()}
            for future in concurrent.futures.as_completed(futures):
                if isinstance(future.exception(), BrokenProcessPool):
                    broken = True
                    break
                value = future.result()  # a run's own error is raised here
                k = futures.pop(future)
                breaks = 0
                yield pending.pop(k), value
            if broken:
                # Runs that finished before the pool broke keep their results.
                for future, k in list(futures.items()):
                    if future.done() and not future.cancelled() and future.exception() is None:
                        breaks = 0
                        yield pending.pop(k), future.result()
                breaks += 1
                if breaks > max_breaks:
                    left = ", ".join(sorted(pending)[:10]) + (" ..." if len(pending) > 10 else "")
                    raise SweepWorkerLost(
                        f"a worker process died {breaks} times in a row with no run finishing in between; "
                        f"{len(pending)} run(s) left: {left}"
                    )
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def run_dask(
    tasks: Sequence[T],
    fn: Callable[[T], Any],
    *,
    key: Callable[[T], str],
    client: Any,
) -> Generator[tuple[T, Any], None, None]:
    """Submits ``fn(task)`` for every task to the Dask ``client``'s cluster
    and yields ``(task, value)`` as each finishes. Each task's Dask key is
    ``drsim-sweep-<run key>-<token>`` (one token per call, so two sweeps in
    one session never share a key); ``pure=False`` since the key already
    says which run it is."""
    from distributed import as_completed

    token = uuid.uuid4().hex[:8]
    futures = {client.submit(fn, t, key=f"drsim-sweep-{key(t)}-{token}", pure=False): t for t in tasks}
    try:
        for future in as_completed(list(futures)):
            value = future.result()  # a run's error, or KilledWorker after too many lost workers
            yield futures.pop(future), value
            future.release()
    finally:
        if futures:
            client.cancel(list(futures))

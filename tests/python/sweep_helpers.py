"""Task functions for tests/python/test_sweep.py that worker processes import.

They live in a module of their own (not a test file) so that a spawned or
forked-from-server worker, local or Dask, can unpickle them by name; their
parameters travel with them through functools.partial, because a worker
started before a test may not see environment variables set by it."""

from __future__ import annotations

import os
import signal
from typing import Any

from drsim.sweep import RunTask, run_task


def kill_once(task: RunTask, *, run: str, marker: str) -> dict[str, Any]:
    """Kills its own worker process (SIGKILL, as the OOM killer would) the
    first time it is given run ``run``: ``marker`` is created atomically on
    that attempt, so the retry runs normally."""
    if task.key == run:
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            pass
        else:
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)
    return run_task(task)


def kill_always(task: RunTask, *, run: str) -> dict[str, Any]:
    """Kills its worker every time it is given run ``run``."""
    if task.key == run:
        os.kill(os.getpid(), signal.SIGKILL)
    return run_task(task)


def fail_on(task: RunTask, *, run: str) -> dict[str, Any]:
    """Gives run ``run`` a seed the engine refuses, so that run raises."""
    if task.key == run:
        task = task._replace(seed=-1)
    return run_task(task)

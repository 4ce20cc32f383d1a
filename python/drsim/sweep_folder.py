"""A sweep's results folder: what makes an interrupted sweep resumable.

A sweep of a thousand runs can be stopped by Ctrl-C, a closed laptop or a
lost cluster. With ``drsim.sweep(..., out=DIR)`` every finished run is
appended to ``DIR/runs.jsonl`` as soon as it arrives, so starting the same
sweep again skips what is already there. ``DIR/manifest.json`` records what
the sweep is (the resolved scenario's hash, the grid as override text, the
seeds, ``until`` and the KPIs): resuming with anything different would mix
rows of two different sweeps, so it is refused.

Only the calling process writes (workers return plain dicts), so a line is
appended with a single ``write`` on an ``O_APPEND`` descriptor and flushed;
a line cut short by a crash has no trailing newline and is dropped (and cut
off the file) when the folder is opened again.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
from typing import Any, Iterator

__all__ = ["FORMAT", "SweepFolder", "SweepFolderError"]

#: ``manifest.json``'s ``format``; a folder of another format is refused.
FORMAT = "drsim-sweep/1"
MANIFEST = "manifest.json"
RUNS = "runs.jsonl"


class SweepFolderError(ValueError):
    """The results folder belongs to another sweep or is not a sweep folder."""


def _write_atomic(path: pathlib.Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _plain(value: Any) -> Any:
    """NaN and infinities as JSON null: runs.jsonl is strict JSON, readable anywhere."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class SweepFolder:
    """``manifest.json`` and ``runs.jsonl`` in one directory.

    :meth:`open` creates the folder or checks its manifest; :meth:`done`
    reads the runs already recorded; :meth:`append` records one more.
    """

    def __init__(self, path: pathlib.Path) -> None:
        self.path = path
        self._fd: int | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str], manifest: dict[str, Any]) -> SweepFolder:
        """The folder at ``path`` for the sweep ``manifest`` describes:
        created (with its parents) when missing or empty; when it already
        holds that sweep, reopened for resuming. Raises
        :class:`SweepFolderError` for a folder of another sweep (naming the
        fields that differ) or a non-empty folder without a manifest."""
        folder = cls(pathlib.Path(os.fsdecode(os.fspath(path))))
        p = folder.path
        if p.exists() and not p.is_dir():
            raise SweepFolderError(f"sweep results folder {str(p)!r} is a file, not a directory")
        p.mkdir(parents=True, exist_ok=True)
        wanted = {"format": FORMAT, **manifest}
        manifest_path = p / MANIFEST
        if manifest_path.exists():
            try:
                found = json.loads(manifest_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise SweepFolderError(f"{manifest_path}: not a readable sweep manifest ({e})") from e
            if not isinstance(found, dict) or found.get("format") != FORMAT:
                raise SweepFolderError(f"{manifest_path}: not a {FORMAT} manifest")
            differ = [k for k in sorted(set(wanted) | set(found)) if wanted.get(k) != found.get(k)]
            if differ:
                raise SweepFolderError(
                    f"{p} holds a different sweep ({', '.join(differ)} differ{'s' if len(differ) == 1 else ''}); "
                    "resume it with the same scenario, grid, seeds, until and kpis, or use another folder"
                )
        else:
            others = [e.name for e in p.iterdir()]
            if others:
                raise SweepFolderError(
                    f"{p} is not empty and has no {MANIFEST} ({', '.join(sorted(others)[:5])}); "
                    "a sweep writes only into an empty or missing folder, or one of its own"
                )
            _write_atomic(manifest_path, json.dumps(wanted, indent=2, sort_keys=True) + "\n")
        folder._drop_torn_line()
        return folder

    @property
    def runs_path(self) -> pathlib.Path:
        return self.path / RUNS

    def _drop_torn_line(self) -> None:
        """Cuts a last line without its newline (a write interrupted by a crash)."""
        runs = self.runs_path
        if not runs.exists():
            return
        data = runs.read_bytes()
        if data and not data.endswith(b"\n"):
            with open(runs, "r+b") as f:
                f.truncate(data.rfind(b"\n") + 1)

    def done(self) -> Iterator[dict[str, Any]]:
        """The records already in ``runs.jsonl``, in file order."""
        runs = self.runs_path
        if not runs.exists():
            return
        with open(runs, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError as e:
                    raise SweepFolderError(f"{runs}:{number}: not a JSON line ({e})") from e
                if not isinstance(record, dict) or "run" not in record:
                    raise SweepFolderError(f"{runs}:{number}: a run record is an object with a 'run' key")
                yield record

    def append(self, record: dict[str, Any]) -> None:
        """Appends one run's record as one line, in one write."""
        plain = {k: ({n: _plain(v) for n, v in value.items()} if isinstance(value, dict) else _plain(value))
                 for k, value in record.items()}
        line = (json.dumps(plain, sort_keys=False, allow_nan=False) + "\n").encode("utf-8")
        if self._fd is None:
            self._fd = os.open(self.runs_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        view = memoryview(line)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

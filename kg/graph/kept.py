"""Read-only databases that a read worker keeps open between calls (kg/graph/guard.py).

Opening a Kuzu database costs about 0.1 s even for a small graph (its catalog and indexes are
read), more than most reads a web page or an agent asks for. So a worker of a ReadPool keeps the
read-only database it opened for its next call, and lets it go as soon as a writer wants the
graph: a writer writes .kg/lock.json before opening the database and waits while readers still
hold it (kg/graph/store.py), and the worker looks for that file between calls and before each
reuse. A database whose files changed on disk since it was opened (`kg compact` and `kg doctor`
swap them in) is opened again. Other processes (a CLI command) open and close per use, as before.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_keeping = {"on": False}


@dataclass
class Kept:
    """One open read-only database: its connection, the statements prepared on it, and what is known of
    it (node offsets, its schema checked), which stays true while it is open: nothing writes it then."""

    db: Any
    conn: Any
    stamp: tuple[Any, ...]
    prepared: dict[str, Any] = field(default_factory=dict)
    offsets: dict[tuple[str, str], int | None] = field(default_factory=dict)  # Store.offsets: (table, key) -> offset
    schema_checked: bool = False


_open: dict[str, Kept] = {}
_inherited: list[Kept] = []  # a forked child's copies of its parent's: never used, never closed (not its own)


def _forget_inherited() -> None:
    _inherited.extend(_open.values())
    _open.clear()


os.register_at_fork(after_in_child=_forget_inherited)


def keep_reads_open() -> None:
    """From now on this process keeps its read-only databases open between uses."""
    _keeping["on"] = True


def keeping() -> bool:
    return _keeping["on"]


def stamp(path: Path) -> tuple[Any, ...]:
    """What identifies the graph's files as they are now (inode, size, modification time)."""
    marks: list[Any] = []
    for file in (str(path), f"{path}.wal"):
        try:
            info = os.stat(file)
            marks.append((info.st_ino, info.st_size, info.st_mtime_ns))
        except OSError:
            marks.append(None)
    return tuple(marks)


def take(path: Path, open_new: Callable[[], tuple[Any, Any]]) -> Kept:
    """The kept database of `path`, opened by `open_new()` -> (db, conn) when there is none or
    its files changed since."""
    key = str(path)
    now = stamp(path)
    kept = _open.get(key)
    if kept is not None and kept.stamp != now:
        release(path)
        kept = None
    if kept is None:
        db, conn = open_new()
        kept = _open[key] = Kept(db, conn, now)
    return kept


def held() -> list[Path]:
    return [Path(key) for key in _open]


def release(path: Path | None = None) -> None:
    """Close the kept database of `path` (every one when None)."""
    for key in [str(path)] if path is not None else list(_open):
        kept = _open.pop(key, None)
        if kept is None:
            continue
        kept.prepared.clear()
        kept.offsets.clear()
        with contextlib.suppress(Exception):
            kept.conn.close()
        with contextlib.suppress(Exception):
            kept.db.close()

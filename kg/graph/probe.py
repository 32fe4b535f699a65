"""Read every column of every table in a child process, so that a native crash becomes a finding.

Kuzu 0.11.3 can leave a column that segfaults any process that scans it (issue 24: a STRING
column SET on rows where it was NULL, then checkpointed). A crash cannot be caught in the process
that suffers it, so the reading happens in a child (`python -m kg.graph.probe DB`), which prints
one line before and after each column; when it dies, the column it had begun is the broken one,
and a new child goes on with the columns not yet read.
"""

from __future__ import annotations

import importlib.util  # noqa: F401  (kuzu's Arrow results need importlib.util loaded)
import json
import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Column = tuple[str, str]  # (table, property); property "*" is the table's rows themselves
MAX_CHILDREN = 64  # a graph with more broken columns than this is reported as unreadable


@dataclass
class ProbeReport:
    """What a probe found: columns read whole, columns whose scan crashed, and a failure to open."""

    readable: list[Column] = field(default_factory=list)
    broken: list[Column] = field(default_factory=list)
    unopenable: str = ""  # why the graph could not be opened at all ("" when it opened)

    @property
    def ok(self) -> bool:
        return not self.broken and not self.unopenable

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "readable": [f"{t}.{c}" for t, c in self.readable],
                "broken": [f"{t}.{c}" for t, c in self.broken], "unopenable": self.unopenable}


def probe(db_path: Path, only: Iterable[Column] | None = None) -> ProbeReport:
    """Scan every column (or `only` these) of the graph at `db_path` in child processes.
    The graph must not be open in this process or another one."""
    report = ProbeReport()
    skip: set[Column] = set()
    wanted = sorted(set(only)) if only is not None else None
    for _ in range(MAX_CHILDREN):
        args = [sys.executable, "-m", "kg.graph.probe", str(db_path), json.dumps(sorted(skip))]
        if wanted is not None:
            args.append(json.dumps(wanted))
        child = subprocess.run(args, capture_output=True, text=True, env={**os.environ, "PYTHONFAULTHANDLER": ""})
        begun: Column | None = None
        for line in child.stdout.splitlines():
            kind, _, rest = line.partition(" ")
            if kind in ("begin", "ok"):
                table, column = json.loads(rest)
                if kind == "begin":
                    begun = (table, column)
                else:
                    report.readable.append((table, column))
                    skip.add((table, column))
                    begun = None
        if child.returncode == 0:
            return report
        if begun is None:  # died before any column: the graph cannot be opened
            detail = (child.stderr.strip().splitlines() or [f"exit code {child.returncode}"])[-1]
            report.unopenable = f"opening it {'crashed' if _crashed(child.returncode) else 'failed'}: {detail}"
            return report
        report.broken.append(begun)
        skip.add(begun)
    report.unopenable = f"more than {MAX_CHILDREN} columns crashed when read"
    return report


def _crashed(returncode: int) -> bool:
    return returncode < 0 or returncode > 128


def _columns(conn: Any) -> list[Column]:
    out: list[Column] = []
    for name, kind in sorted(conn.execute("CALL show_tables() RETURN name, type").get_all()):
        if kind not in ("NODE", "REL"):
            continue
        out.append((name, "*"))
        props = conn.execute(f"CALL table_info('{name}') RETURN name").get_all()
        out.extend((name, prop) for (prop,) in props)
    return out


def _scan(conn: Any, table: str, column: str, kinds: dict[str, str]) -> None:
    pattern = f"(n:{table})" if kinds[table] == "NODE" else f"()-[n:{table}]->()"
    what = "count(*)" if column == "*" else f"n.{column}"
    result = conn.execute(f"MATCH {pattern} RETURN {what}")
    while result.has_next():  # every value is materialised: a damaged one crashes here
        result.get_next()


def _child(db_path: str, skip: list[Column], only: list[Column] | None) -> int:
    import kuzu

    db = kuzu.Database(db_path, read_only=True, buffer_pool_size=512 * 1024 * 1024)
    conn: Any = kuzu.Connection(db)
    kinds = dict(conn.execute("CALL show_tables() RETURN name, type").get_all())
    done = set(skip)
    for column in (only if only is not None else _columns(conn)):
        table, prop = column
        if (table, prop) in done or table not in kinds:
            continue
        print("begin", json.dumps([table, prop]), flush=True)
        _scan(conn, table, prop, kinds)
        print("ok", json.dumps([table, prop]), flush=True)
    conn.close()
    db.close()
    return 0


if __name__ == "__main__":
    _skip: list[Column] = [(t, c) for t, c in json.loads(sys.argv[2])] if len(sys.argv) > 2 else []
    _only: list[Column] | None = [(t, c) for t, c in json.loads(sys.argv[3])] if len(sys.argv) > 3 else None
    sys.exit(_child(sys.argv[1], _skip, _only))

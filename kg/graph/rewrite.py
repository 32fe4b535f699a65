"""Copy a graph into a new file of the current schema, then swap it in.

Used to move an older graph to the current schema (Kuzu 0.11.3 cannot be trusted with ALTER ADD:
kg/graph/schema.py), to repair one with a column that crashes when read (the probe names it; its
values are taken again or derived, never read), and to compact: Kuzu keeps old copies of
rewritten column data and has no VACUUM, and a copy holds only what is live.

Rows are read page by page (node offsets) as Arrow and written with COPY FROM; row counts are
compared table by table before the new file replaces the old one, and anything that fails
before leaves the graph as it was. Full-text indexes are not copied: the next search builds them.
"""

from __future__ import annotations

import importlib.util  # noqa: F401  (kuzu's Arrow scans need importlib.util loaded)
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import StoreError
from kg.graph.probe import ProbeReport
from kg.graph.schema import (
    HISTORY,
    KEYS,
    NEVER_NULL,
    NODES,
    RELS,
    SEARCH_TERMS,
    UNSET,
    arrow_schema,
    create_statements,
    search_terms,
)

if TYPE_CHECKING:
    import pyarrow as pa

PAGE_ROWS = 200_000  # nodes read per query (by offset range): bounds the memory of a large copy
CHECKPOINT_MB = 128


@dataclass
class RewriteReport:
    bytes_before: int
    bytes_after: int = 0
    seconds: float = 0.0
    rows: dict[str, int] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)  # "Table.column" not copied: unreadable (the probe)

    def as_dict(self) -> dict[str, Any]:
        return {"bytes_before": self.bytes_before, "bytes_after": self.bytes_after, "seconds": round(self.seconds, 3),
                "rows": self.rows, "dropped": self.dropped}


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def rewrite(path: Path, found: ProbeReport | None = None, buffer_pool_mb: int = 1024) -> RewriteReport:
    """Rewrite the (closed) graph at `path` into the current schema. `found`: a probe of its
    columns; those it found broken are not read."""
    import kuzu

    started = time.perf_counter()
    wal = Path(f"{path}.wal")
    report = RewriteReport(path.stat().st_size + (wal.stat().st_size if wal.exists() else 0))
    for stale in (*path.parent.glob("rewrite-*"), *path.parent.glob("compact-*")):  # left by a killed copy
        shutil.rmtree(stale, ignore_errors=True)  # (the caller holds the writer lock)
    work = path.parent / f"rewrite-{os.getpid()}"
    work.mkdir(parents=True)
    fresh = work / path.name
    old_db = kuzu.Database(str(path), buffer_pool_size=buffer_pool_mb * 1024 * 1024)
    old = kuzu.Connection(old_db)
    new_db = kuzu.Database(str(fresh), buffer_pool_size=buffer_pool_mb * 1024 * 1024,
                           checkpoint_threshold=CHECKPOINT_MB * 1024 * 1024)
    new = kuzu.Connection(new_db)
    copied = False
    try:
        old.execute("CHECKPOINT")  # what the WAL holds is read from the file from here on
        for statement in create_statements():
            new.execute(statement)
        existing = _old_columns(old)
        usable = {table: [c for c in cols if found is None or (table, c) not in found.broken]
                  for table, cols in existing.items()}
        report.dropped = sorted(f"{t}.{c}" for t, cols in existing.items() for c in cols if c not in usable[t])
        for table in NODES:
            if table in existing:
                report.rows[table] = _copy_nodes(old, new, table, usable[table])
        report.rows["Migration"] = _record_history(new, report.rows.get("Migration", 0))
        for table in RELS:
            if table in existing:
                report.rows[table] = _copy_rels(old, new, table, usable[table], usable)
        expected = {t: n for t, n in table_counts(old).items() if t in NODES or t in RELS}
        got = table_counts(new)
        expected["Migration"] = got["Migration"]  # versions were added
        if any(got.get(t, 0) != n for t, n in expected.items()):
            raise StoreError(f"Rewriting the graph changed row counts ({expected} -> {got}); it was left as it was. "
                             "Please report this.")
        new.execute("CHECKPOINT")
        copied = True
    except RuntimeError as exc:
        raise StoreError(f"Could not rewrite the graph at {path}: {exc}. It was left as it was; "
                         "`kg doctor` rebuilds it from raw/.") from exc
    finally:
        for conn, db in ((old, old_db), (new, new_db)):
            conn.close()
            db.close()
        if not copied:
            shutil.rmtree(work, ignore_errors=True)
    try:
        wal.unlink(missing_ok=True)  # checkpointed above: holds nothing
        os.replace(fresh, path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.bytes_after = path.stat().st_size
    report.seconds = time.perf_counter() - started
    return report


def _old_columns(conn: Any) -> dict[str, list[str]]:
    out = {}
    for name, _kind in conn.execute("CALL show_tables() RETURN name, type").get_all():
        if name in NODES or name in RELS:
            out[name] = [row[0] for row in conn.execute(f"CALL table_info('{name}') RETURN name").get_all()]
    return out


def table_counts(conn: Any) -> dict[str, int]:
    out = {}
    for name, kind in conn.execute("CALL show_tables() RETURN name, type").get_all():
        pattern = f"(n:{name})" if kind == "NODE" else f"()-[n:{name}]->()"
        out[name] = int(conn.execute(f"MATCH {pattern} RETURN count(*)").get_next()[0])
    return out


def _fill(table: str, data: dict[str, pa.Array], rows: int, derive: dict[str, Callable[[], pa.Array]]) -> pa.Table:
    """A table of `table`'s write schema from the columns read; the others derived or empty."""
    import pyarrow as pa

    schema = arrow_schema(table)
    unset = NEVER_NULL.get(table, ())
    columns = []
    for fld in schema:
        column = data.get(fld.name)
        if column is None:
            column = derive[fld.name]() if fld.name in derive else pa.nulls(rows, fld.type)
        column = column.cast(fld.type)
        if fld.name in unset:
            column = column.fill_null(UNSET)
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=schema)


def _copy_nodes(old: Any, new: Any, table: str, usable: list[str]) -> int:
    import pyarrow as pa  # a rewrite copies through Arrow; nothing else in this module needs it

    key = KEYS[table]
    if key not in usable:
        raise StoreError(f"The keys of {table} cannot be read, so the graph cannot be copied. "
                         "Run `kg doctor` to rebuild it from raw/.")
    # a row's search terms are derived from its text, never read: a copy recomputes them (schema 9 holds more)
    wanted = [name for name, _ in NODES[table] if name in usable and not (name == "terms" and table in SEARCH_TERMS)]
    last = old.execute(f"MATCH (n:{table}) RETURN max(offset(id(n)))").get_next()[0]
    copied = 0
    for start in range(0, (last + 1) if last is not None else 0, PAGE_ROWS):
        result = old.execute(f"MATCH (n:{table}) WHERE offset(id(n)) >= {start} AND offset(id(n)) < {start + PAGE_ROWS} "
                             f"RETURN " + ", ".join(f"n.{c} AS {c}" for c in wanted))
        page = result.get_as_arrow(chunk_size=PAGE_ROWS)
        if not page.num_rows:
            continue
        data = {c: page.column(c).combine_chunks() for c in wanted}
        derive: dict[str, Callable[[], pa.Array]] = {}
        if table == "Claim" and "retracted_at" not in usable and "status" in data:
            now = _now()
            derive["retracted_at"] = lambda d=data, n=now: pa.array(  # type: ignore[misc]
                [n if s == "retracted" else UNSET for s in d["status"].to_pylist()], pa.string())
        if table in SEARCH_TERMS:
            derive["terms"] = lambda d=data, t=table: pa.array(  # type: ignore[misc]
                [search_terms(t, dict(zip(d, row, strict=True))) for row in zip(*(d[c].to_pylist() for c in d), strict=True)],
                pa.string())
        new.execute(f"COPY {table} FROM $rows", {"rows": _fill(table, data, page.num_rows, derive)})
        copied += page.num_rows
    return copied


def _copy_rels(old: Any, new: Any, table: str, usable: list[str], usable_of: dict[str, list[str]]) -> int:
    src, dst, props = RELS[table]
    if KEYS[src] not in usable_of.get(src, []) or KEYS[dst] not in usable_of.get(dst, []):
        raise StoreError(f"The keys of {src} or {dst} cannot be read, so the graph cannot be copied. "
                         "Run `kg doctor` to rebuild it from raw/.")
    wanted = [name for name, _ in props if name in usable]
    returns = [f"a.{KEYS[src]} AS src", f"b.{KEYS[dst]} AS dst", *(f"r.{c} AS {c}" for c in wanted)]
    if table == "EXTRACTED_FROM" and "retracted_at" not in usable:
        # unreadable: evidence of a source's older version, or of a removed source, was retracted
        returns.append(f"CASE WHEN r.source_sha256 <> b.sha256 OR b.status = 'removed' THEN '{_now()}' "
                       "ELSE '' END AS retracted_at")
        wanted.append("retracted_at")
    last = old.execute(f"MATCH (a:{src}) RETURN max(offset(id(a)))").get_next()[0]
    copied = 0
    for start in range(0, (last + 1) if last is not None else 0, PAGE_ROWS):
        result = old.execute(f"MATCH (a:{src})-[r:{table}]->(b:{dst}) WHERE offset(id(a)) >= {start} "
                             f"AND offset(id(a)) < {start + PAGE_ROWS} RETURN " + ", ".join(returns))
        page = result.get_as_arrow(chunk_size=PAGE_ROWS)
        if not page.num_rows:
            continue
        data = {c: page.column(c).combine_chunks() for c in ("src", "dst", *wanted)}
        filled = _fill(table, data, page.num_rows, {})
        renamed = filled.rename_columns(["from", "to", *filled.column_names[2:]])
        new.execute(f"COPY {table} FROM $rows", {"rows": renamed})
        copied += page.num_rows
    return copied


def _record_history(new: Any, copied: int) -> int:
    """Migration rows for the versions the old graph did not record (all of them for a new file)."""
    have = {row[0] for row in new.execute("MATCH (m:Migration) RETURN m.version").get_all()}
    now = _now()
    for version, name in HISTORY:
        if version not in have:
            new.execute("CREATE (:Migration {version: $v, name: $n, applied_at: $t})", {"v": version, "n": name, "t": now})
    return int(new.execute("MATCH (m:Migration) RETURN count(*)").get_next()[0])

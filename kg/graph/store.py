"""The graph database: opening, locking, migrations, batched writes, reads.

kg/graph is the only package that imports kuzu or holds Cypher. Writes go through
`LOAD FROM <arrow table>` with separate MATCH clauses (an index lookup per row); per-row
statements and `UNWIND ... MATCH (a), (b)` are orders of magnitude slower (measured with
100k rows: about 260,000 relationships/s against 13-47/s).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.util  # kuzu's LOAD FROM on Arrow needs importlib.util loaded
import json
import os
import re
import sys
import threading
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import DatabaseLocked, GraphOutdated, QueryError, StoreError
from kg.graph import kept
from kg.graph.journal import Journal, read_kept
from kg.graph.probe import probe
from kg.graph.rewrite import RewriteReport, rewrite
from kg.graph.schema import (
    HISTORY,
    KEYS,
    NEVER_NULL,
    REBUILD_BELOW,
    RELS,
    SCHEMA_VERSION,
    SEARCH_TERMS,
    UNSET,
    arrow_schema,
    create_statements,
    search_terms,
)
from kg.kb import LOCK_FILE

if TYPE_CHECKING:
    import pyarrow as pa  # imported by the writes that build Arrow tables: a read starts without it


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")



# Updates and id lookups of at most this many rows run one keyed statement per row (a primary-key
# index lookup, ~0.3-0.5 ms each). Kuzu 0.11.3 plans `LOAD FROM`/`UNWIND` + `MATCH (n {key: x})` as
# a hash join over a scan of the whole table: ~20 ms at 180k claims, growing with the graph, which
# a one-source compile would pay for its handful of rows.
SMALL_BATCH = 32
PREPARED_CACHE = 256  # parameterised query texts kept prepared per open store
# Kuzu checkpoints when its WAL passes this size (its default is 16 MB). Each checkpoint rewrites
# the partly filled node groups of every table written since the last one, and in rel tables with
# string properties (EXTRACTED_FROM: quotes) the rewritten regions leave dead string data behind:
# 25k synthetic sources compiled with the default gave a 606 MB graph whose every later edit paid a
# 0.8 s checkpoint; with 128 MB, 271 MB and 0.1 s, for +180 MB peak RSS (256 MB: 235 MB, +520 MB).
CHECKPOINT_MB = 128
# Closing the database checkpoints by default: at 50k sources that cost 0.5-1.1 s and +67 MB on
# disk per one-source edit, because Kuzu 0.11.3 rewrites (and keeps the old copy of) the whole
# column of every string property SET since the last checkpoint, for the row's node group of up
# to 131k rows. Below this WAL size a writer closes without checkpointing, so that rewrite is
# shared by the edits since. The trade-off, measured at 50k: every open replays the WAL (~0.25 ms
# per KB; an edit adds ~9 KB), and a checkpoint costs more the more edits it folds in (17 edits:
# 1.2 s; 100 edits: 6.4 s) because each edit touches other regions of the evidence table.
CLOSE_CHECKPOINT_KB = 256
_SCHEMA_CHANGE = re.compile(r"\s*(CREATE\s+(NODE|REL)|ALTER|DROP|CALL\s+(CREATE|DROP)_FTS_INDEX)", re.IGNORECASE)
KEYED_LOOKUPS = 32  # up to this many keys are looked up one by one through the primary-key index
OFFSET_CACHE = 200_000  # node offsets kept by a Store (see Store.offsets), then forgotten at once
# A statement that only reads: a writer's known node offsets stay true across it (any other
# statement forgets them; see Store.offsets).
_READ_ONLY = re.compile(r"\s*(MATCH|UNWIND|RETURN)\b(?!.*\b(CREATE|SET|DELETE|DETACH|MERGE|REMOVE)\b)",
                        re.IGNORECASE | re.DOTALL)
NO_OFFSETS = [-1]  # for `offset(id(n)) IN $list` when nothing matched (Kuzu cannot type an empty list)
CLAIM_LINKS = "CONTRADICTS|SUPERSEDES"  # the edges between claims (see Store.has_edges)
# Set in a read worker (kg/graph/guard.py): every store it opens stops a query at this many
# milliseconds (Kuzu's timeout interrupts between operators) and keeps its page cache within the
# worker's memory ceiling. (0, 0): no limits, as in a compile.
_READ_LIMITS = {"timeout_ms": 0, "buffer_pool_mb": 0}
# A writer waits this long for readers to close the graph (Kuzu refuses a writer while any process
# holds it open): a read worker lets go within kg/graph/guard.py's KEPT_POLL_SECONDS of seeing the
# writer's lock file, or when its call ends (served calls: 30 s at most by default).
WRITER_WAIT_SECONDS = 40.0


def limit_reads(timeout_ms: int, buffer_pool_mb: int) -> None:
    """Every Store this process opens from now on runs queries under these limits."""
    _READ_LIMITS.update(timeout_ms=max(0, timeout_ms), buffer_pool_mb=max(0, buffer_pool_mb))


def let_writers_in() -> None:
    """Close each kept read-only database (kg/graph/kept.py) whose knowledge base a writer has locked."""
    for path in kept.held():
        if Lock(path.parent / LOCK_FILE).holder():
            kept.release(path)


def _row_bytes(row: Sequence[Any]) -> int:
    """About what a row costs in memory once converted (strings by length, anything else a little)."""
    return sum(len(v) if isinstance(v, str | bytes) else 16 for v in row) + 64


@dataclass
class WriteBatch:
    """Everything one compile step writes, applied in a single transaction."""

    nodes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # created
    updates: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # SET on existing nodes
    rels: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    statements: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # run first
    after: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # run last

    def add(self, table: str, row: dict[str, Any]) -> None:
        self.nodes.setdefault(table, []).append(row)

    def update(self, table: str, row: dict[str, Any]) -> None:
        self.updates.setdefault(table, []).append(row)

    def relate(self, table: str, row: dict[str, Any]) -> None:
        self.rels.setdefault(table, []).append(row)


class _NoPandas(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname == "pandas":
            raise ModuleNotFoundError("pandas is not looked at while kg writes the graph", name="pandas")


@contextlib.contextmanager
def _pandas_unseen() -> Iterator[None]:
    """pandas, unless something imported it already, looks absent to pyarrow and Kuzu while a batch
    is written: both import it (a quarter of a second of CPU, a third of a one-edit compile's own
    work) only to ask whether the lists and Arrow tables kg hands them are pandas objects, and kg
    hands them none. pyarrow asks once per process and keeps the answer (its explicit pandas calls,
    `to_pandas`, import pandas all the same); Kuzu asks importlib at each `LOAD FROM`."""
    if "pandas" in sys.modules or _other_threads():
        yield
        return
    import pyarrow as pa

    finder = _NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        pa.array([], type=pa.null())  # pyarrow's question, answered
    finally:
        sys.meta_path.remove(finder)
    sys.modules["pandas"] = None  # type: ignore[assignment]  # importlib.util.find_spec: not installed
    try:
        yield
    finally:
        if "pandas" in sys.modules and sys.modules["pandas"] is None:
            del sys.modules["pandas"]


def _other_threads() -> bool:
    """Whether a thread besides this one (and a progress bar's redraw) runs: kg serve, kg watch or
    an embedder's load might import pandas during the write, and must find it."""
    me = threading.current_thread()
    return any(t is not me and not type(t).__module__.startswith("rich.") for t in threading.enumerate())


def _value(value: Any, never_null: bool) -> Any:
    return UNSET if value is None and never_null else value


def _param(type_: pa.DataType, value: Any) -> Any:
    """A Cypher parameter of the column's type (as the Arrow schema makes a LOAD FROM column)."""
    import pyarrow as pa

    if value is None:
        return None
    if pa.types.is_floating(type_):
        return float(value)
    if pa.types.is_integer(type_):
        return int(value)
    return value


class Lock:
    """A pid file next to the database, so a second process gets a clear message."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.held = False

    def holder(self) -> dict[str, Any] | None:
        try:
            info = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        pid = int(info.get("pid", 0))
        if pid <= 0 or pid == os.getpid() or not _alive(pid):
            return None  # stale: the process is gone
        return info

    def raise_if_held(self) -> None:
        """DatabaseLocked naming the process that holds the knowledge base, if one does."""
        holder = self.holder()
        if holder:
            raise DatabaseLocked(_locked_message(holder))

    def acquire(self) -> None:
        self.raise_if_held()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"pid": os.getpid(), "command": " ".join(sys.argv), "since": now_iso()}))
        os.replace(tmp, self.path)
        self.held = True

    def release(self) -> None:
        if self.held:
            with contextlib.suppress(OSError):
                self.path.unlink()
            self.held = False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _locked_message(holder: dict[str, Any]) -> str:
    return (
        f"The knowledge base is in use by process {holder.get('pid')} "
        f"(`{holder.get('command', '?')}`, since {holder.get('since', '?')}). "
        "Wait for it to finish, or stop it, then run your command again."
    )


class Store:
    """The Kuzu graph of one knowledge base. One instance (one Database) per process."""

    def __init__(self, path: Path, read_only: bool = False, buffer_pool_mb: int = 1024,
                 journal: Journal | None = None) -> None:
        self.path = path
        self.read_only = read_only
        self.journal = journal  # gets a copy of what each write adds that cannot be recomputed
        self._lock = Lock(path.parent / LOCK_FILE)
        if read_only and not path.exists():
            raise StoreError(f"No graph at {path} yet. Run `kg compile` first.")
        holder = self._lock.holder()
        if holder:
            kept.release(path)  # a writer waits for readers to let go (see _open_waiting)
            raise DatabaseLocked(_locked_message(holder))
        if not read_only:
            self._lock.acquire()
        if not read_only and not path.exists():
            # A WAL left beside a deleted graph belongs to that graph; replayed into a new one it fails.
            Path(f"{path}.wal").unlink(missing_ok=True)
        self._buffer_pool_mb = buffer_pool_mb
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._open_waiting()
        except RuntimeError as exc:
            self._lock.release()
            if journal is not None:
                journal.close()
            if "lock" in str(exc).lower():
                raise DatabaseLocked(
                    f"The graph at {path} is open in another process. "
                    "Wait for the other kg command to finish, then try again."
                ) from exc
            raise StoreError(f"Cannot open the graph at {path}: {exc}. Run `kg doctor` to check it and rebuild it "
                             "from raw/ (merges, answers and the log are kept).") from exc
        if not read_only:
            try:
                self.migrate()
            except BaseException:
                self.close()  # one Database per file per process: never leave a refused one open
                raise
            if journal is not None and not journal.filled:  # a journal new beside an older graph
                saved = read_kept(self)
                journal.fill(saved["log"], saved["pages"], saved["cites"], saved["about"], saved["merges"])
        elif not self._schema_known:
            if self.schema_version() < SCHEMA_VERSION:
                self.close()
                raise StoreError("The graph uses an older schema. Run `kg compile` once to upgrade it.")
            self._schema_known = True

    # lifecycle -----------------------------------------------------------------------------

    def _open_waiting(self) -> None:
        """Open the database; a writer waits up to WRITER_WAIT_SECONDS while readers hold it (their
        calls end, and read workers let go once they see this process's lock file)."""
        deadline = time.monotonic() + (0 if self.read_only else WRITER_WAIT_SECONDS)
        while True:
            try:
                self._open_database()
                return
            except RuntimeError as exc:
                if "lock" not in str(exc).lower() or time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

    def _open_database(self) -> None:
        if self.read_only and kept.keeping():  # a read worker: the database stays open between calls
            entry = kept.take(self.path, self._new_database)
            self._db, self._conn, self._prepared, self._kept = entry.db, entry.conn, entry.prepared, True
            # what is known of the open database stays known: nothing can write it while it is open
            self._offsets = entry.offsets
            self._entry: kept.Kept | None = entry
        else:
            kept.release(self.path)  # never a writer beside a kept reader of its own
            self._db, self._conn = self._new_database()
            self._prepared, self._kept = {}, False  # query text -> prepared statement (see _exec)
            self._entry = None
            self._offsets = {}  # (table, key) -> offset or None (see offsets)
        if _READ_LIMITS["timeout_ms"]:
            self._conn.set_query_timeout(_READ_LIMITS["timeout_ms"])
        # Schema and index changes are checkpointed on close: replayed from the WAL, Kuzu 0.11.3
        # brings back a dropped full-text index ("Index with name claim_fts already exists").
        self._schema_changed = False

    @property
    def _schema_known(self) -> bool:
        """Whether this database's schema was checked already (once per kept database)."""
        return bool(self._entry is not None and self._entry.schema_checked)

    @_schema_known.setter
    def _schema_known(self, value: bool) -> None:
        if self._entry is not None:
            self._entry.schema_checked = value

    def _new_database(self) -> tuple[Any, Any]:
        import kuzu  # heavy native module: imported on first use only

        # Kuzu's default buffer pool is 80% of the machine's memory; cap it (pages spill to disk).
        pool_mb = min(self._buffer_pool_mb, _READ_LIMITS["buffer_pool_mb"] or self._buffer_pool_mb)
        db = kuzu.Database(str(self.path), read_only=self.read_only, buffer_pool_size=pool_mb * 1024 * 1024,
                           checkpoint_threshold=CHECKPOINT_MB * 1024 * 1024)
        return db, kuzu.Connection(db)

    def close(self) -> None:
        self._close_database()
        if self.journal is not None:
            self.journal.close()
            self.journal = None
        self._lock.release()

    def _close_database(self) -> None:
        conn, db = getattr(self, "_conn", None), getattr(self, "_db", None)
        self._prepared = {}
        if getattr(self, "_kept", False):  # kg/graph/kept.py closes it when a writer wants the graph
            self._conn = self._db = None
            return
        if (conn is not None and not self.read_only and not getattr(self, "_schema_changed", True)
                and self.wal_bytes() < CLOSE_CHECKPOINT_KB * 1024):
            with contextlib.suppress(RuntimeError):
                conn.execute("CALL force_checkpoint_on_close=false")
        if conn is not None:
            conn.close()
            self._conn = None
        if db is not None:
            db.close()
            self._db = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # migrations ----------------------------------------------------------------------------

    def schema_version(self) -> int:
        try:
            rows = self.query("MATCH (m:Migration) RETURN max(m.version) AS v")
        except QueryError:
            return 0
        return int(rows[0]["v"] or 0) if rows else 0

    def migrate(self) -> list[int]:
        """Bring the graph to SCHEMA_VERSION; returns the versions applied (recorded in Migration).

        A new graph is created whole (kg/graph/schema.py); an older one is copied into a new file
        of the current schema (kg/graph/rewrite.py), after a probe in a child process has found
        which of its columns can be read: a column Kuzu 0.11.3 broke is left behind, not read."""
        current = self.schema_version()
        if current == SCHEMA_VERSION:
            return []
        if current > SCHEMA_VERSION:
            raise StoreError(f"The graph at {self.path} was made by a newer kg (schema {current}, this kg knows "
                             f"{SCHEMA_VERSION}). Upgrade kg.")
        if 0 < current < REBUILD_BELOW:
            raise GraphOutdated(f"The graph at {self.path} was made by an older kg (schema {current}) and must be built "
                                "again from raw/: run `kg compile` (LLM replies come from the reply cache; merges, "
                                "answers and the log are kept).")
        if current == 0:
            existing = {r["name"] for r in self.query("CALL show_tables() RETURN name")}
            with self.transaction():
                for statement in create_statements():
                    if statement.split()[3].split("(")[0] not in existing:
                        self._exec(statement)
                for version, name in HISTORY:
                    self._exec("CREATE (:Migration {version: $v, name: $n, applied_at: $t})",
                               {"v": version, "n": name, "t": now_iso()})
            self.checkpoint()  # schema changes never wait in the WAL (see _SCHEMA_CHANGE)
        else:
            self.upgrade()
        return [version for version, _ in HISTORY if version > current]

    def upgrade(self) -> RewriteReport:
        """Copy the graph into a new file of the current schema, leaving unreadable columns behind."""
        self._close_database()
        try:
            found = probe(self.path)
            if found.unopenable:
                raise StoreError(f"The graph at {self.path} cannot be read ({found.unopenable}). "
                                 "Run `kg doctor` to rebuild it from raw/.")
            return rewrite(self.path, found, self._buffer_pool_mb)
        finally:
            self._open_database()

    # execution -----------------------------------------------------------------------------

    def _exec(self, cypher: str, params: dict[str, Any] | None = None) -> Any:
        if self._conn is None:
            raise StoreError("The graph is closed.")
        if not self._schema_changed and _SCHEMA_CHANGE.match(cypher):
            self._schema_changed = True
        if self._offsets and not self.read_only and not _READ_ONLY.match(cypher):
            self._offsets.clear()  # a write may delete a node, or create one under a key looked up before
        try:
            if not params or "LOAD FROM $" in cypher:  # a scanned table binds only with its value
                return self._conn.execute(cypher, params or {})
            # Kuzu 0.11.3 leaks about 20 KB of native memory on every `execute(text, params)` (it
            # prepares a statement that is never freed: 50k sources took 6.7 GB), but not when a
            # prepared statement is executed again. So each parameterised query is prepared once.
            with warnings.catch_warnings():  # Kuzu deprecates prepare + execute, the calls that do not leak
                warnings.simplefilter("ignore", DeprecationWarning)
                statement = self._prepared.pop(cypher, None) or self._conn.prepare(cypher)
                self._prepared[cypher] = statement  # most recently used last
                if len(self._prepared) > PREPARED_CACHE:
                    del self._prepared[next(iter(self._prepared))]
                return self._conn.execute(statement, params)
        except RuntimeError as exc:
            raise QueryError(f"{exc}".strip()) from exc

    def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run Cypher and return rows as dicts keyed by the RETURN names."""
        result = self._exec(cypher, params)
        if isinstance(result, list):  # several statements: keep the last result
            result = result[-1]
        columns = result.get_column_names()
        rows = []
        while result.has_next():
            rows.append(dict(zip(columns, result.get_next(), strict=True)))
        return rows

    def rows(self, cypher: str, params: dict[str, Any] | None = None, max_rows: int = 1000,
             max_bytes: int = 64 * 2**20) -> tuple[list[str], list[list[Any]], bool]:
        """(columns, rows, cut): rows fetched one by one until `max_rows` or about `max_bytes`, so a
        huge result is never converted whole; `cut` says more rows were left unread."""
        result = self._exec(cypher, params)
        if isinstance(result, list):
            result = result[-1]
        columns: list[str] = result.get_column_names()
        rows: list[list[Any]] = []
        size = 0
        while result.has_next():
            if len(rows) >= max_rows or size > max_bytes:
                return columns, rows, True
            row = result.get_next()
            size += _row_bytes(row)
            rows.append(row)
        return columns, rows, False

    def table(self, cypher: str, params: dict[str, Any] | None = None) -> pa.Table:
        """Run a read query and return an Arrow table (fast for bulk reads)."""
        result = self._exec(cypher, params)
        return result.get_as_arrow(chunk_size=100_000)

    def file_signature(self) -> str:
        """Size and mtime of the database file and its WAL: any committed write changes one of them
        (an open store cannot be written by another process), so a cache of something read from
        the graph is valid while this is unchanged (kg/retrieve/walk.py)."""
        parts = []
        for name in (str(self.path), f"{self.path}.wal"):
            try:
                stat = os.stat(name)
                parts.append(f"{stat.st_size}:{stat.st_mtime_ns}")
            except OSError:
                parts.append("-")
        return " ".join(parts)

    def wal_bytes(self) -> int:
        """Size of the write-ahead log: committed changes not yet checkpointed into the database file."""
        try:
            return os.path.getsize(f"{self.path}.wal")
        except OSError:
            return 0

    def checkpoint(self) -> None:
        """Write committed changes from the WAL into the database file (and free the memory holding them)."""
        self._exec("CHECKPOINT")
        self._schema_changed = False  # now in the database file: nothing left for the close to fold in

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        if self.read_only:
            raise StoreError("The graph is open read-only.")
        self._exec("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            with contextlib.suppress(QueryError):
                self._exec("ROLLBACK")
            raise
        self._exec("COMMIT")

    # batched writes ------------------------------------------------------------------------

    def write(self, batch: WriteBatch) -> None:
        """Apply a batch in one transaction: all of it or none of it (an empty one: nothing at all)."""
        if not (batch.statements or batch.updates or batch.nodes or batch.rels or batch.after):
            return
        with _pandas_unseen(), self.transaction():
            for cypher, params in batch.statements:
                self._exec(cypher, params)
            for table, rows in batch.updates.items():
                self._update(table, rows)
            for table, rows in batch.nodes.items():
                self._create_nodes(table, rows)
            for table, rows in batch.rels.items():
                self._create_rels(table, rows)
            for cypher, params in batch.after:
                self._exec(cypher, params)
        if self.journal is not None:
            self.journal.keep(batch.nodes, batch.rels, batch.updates)

    def _arrow(self, table: str, rows: Sequence[dict[str, Any]]) -> pa.Table:
        import pyarrow as pa

        schema = arrow_schema(table)
        unset = NEVER_NULL.get(table, ())
        if table in SEARCH_TERMS:  # derived here, so every writer (compile, doctor, journal replay) has them
            rows = [row if "terms" in row else {**row, "terms": search_terms(table, row)} for row in rows]
        return pa.table({name: [_value(row.get(name), name in unset) for row in rows] for name in schema.names},
                        schema=schema)

    def _create_nodes(self, table: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        names = arrow_schema(table).names
        props = ", ".join(f"{n}: {n}" for n in names)
        self._exec(f"LOAD FROM $rows CREATE (:{table} {{{props}}})", {"rows": self._arrow(table, rows)})

    def _update(self, table: str, rows: list[dict[str, Any]]) -> None:
        """SET the given columns on existing nodes (rows may name different columns)."""
        by_columns: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for row in rows:
            by_columns.setdefault(tuple(row), []).append(row)
        for group in by_columns.values():
            self._update_columns(table, group)

    def _update_columns(self, table: str, rows: list[dict[str, Any]]) -> None:
        import pyarrow as pa

        key = KEYS[table]
        columns = [c for c in rows[0] if c != key]
        schema = arrow_schema(table)
        unset = NEVER_NULL.get(table, ())
        if stray := [c for c in columns if pa.types.is_string(schema.field(c).type) and c not in unset]:
            raise StoreError(f"Internal error: {table}.{', '.join(stray)} would be SET but may hold NULL, which "
                             "Kuzu 0.11.3 corrupts (see NEVER_NULL in kg/graph/store.py). Please report this.")
        if len(rows) <= SMALL_BATCH and not any(pa.types.is_list(schema.field(c).type) for c in columns):
            sets = ", ".join(f"n.{c} = ${c}" for c in columns)
            cypher = f"MATCH (n:{table} {{{key}: ${key}}}) SET {sets}"
            for row in rows:
                self._exec(cypher, {c: _param(schema.field(c).type, _value(row[c], c in unset))
                                    for c in [key, *columns]})
            return
        arrow = pa.table(
            {c: pa.array([_value(r[c], c in unset) for r in rows], type=schema.field(c).type) for c in [key, *columns]}
        )
        sets = ", ".join(f"n.{c} = {c}" for c in columns)
        self._exec(f"LOAD FROM $rows MATCH (n:{table} {{{key}: {key}}}) SET {sets}", {"rows": arrow})

    def _create_rels(self, table: str, rows: list[dict[str, Any]]) -> None:
        import pyarrow as pa

        if not rows:
            return
        src, dst = RELS[table][:2]
        src_key, dst_key = KEYS[src], KEYS[dst]
        names = [n for n in arrow_schema(table).names if n not in ("src", "dst")]
        schema = arrow_schema(table)
        if len(rows) <= SMALL_BATCH and not any(pa.types.is_list(schema.field(n).type) for n in names):
            # keyed: two primary-key lookups per row instead of a join over both whole tables
            props = " {" + ", ".join(f"{n}: ${n}" for n in names) + "}" if names else ""
            cypher = f"MATCH (a:{src} {{{src_key}: $src}}), (b:{dst} {{{dst_key}: $dst}}) CREATE (a)-[:{table}{props}]->(b)"
            unset = NEVER_NULL.get(table, ())
            for row in rows:
                self._exec(cypher, {n: _param(schema.field(n).type, _value(row.get(n), n in unset))
                                    for n in ("src", "dst", *names)})
            return
        props = " {" + ", ".join(f"{n}: {n}" for n in names) + "}" if names else ""
        self._exec(
            f"LOAD FROM $rows MATCH (a:{src} {{{src_key}: src}}) MATCH (b:{dst} {{{dst_key}: dst}}) "
            f"CREATE (a)-[:{table}{props}]->(b)",
            {"rows": self._arrow(table, rows)},
        )

    # reads used by the compiler ------------------------------------------------------------

    def existing_ids(self, table: str, ids: Sequence[str]) -> set[str]:
        """Those of these keys that `table` has: looked up as `offsets` does (the same statement, one
        planned statement fewer in a process, and the offsets remembered for the reads that follow)."""
        wanted = sorted(set(ids))
        if not wanted:
            return set()
        return set(self._known_offsets(table, wanted))

    def values(self, table: str, keys: Iterable[str], column: str) -> dict[str, Any]:
        """{primary key: value of `column`} for the rows of `table` with these keys (others left
        out): one keyed lookup per key up to KEYED_LOOKUPS, else one join (see `offsets`)."""
        wanted = sorted(set(keys))
        key = KEYS[table]
        if len(wanted) <= KEYED_LOOKUPS:
            cypher = f"MATCH (n:{table} {{{key}: $k}}) RETURN n.{key} AS k, n.{column} AS v"
            return {r["k"]: r["v"] for k in wanted for r in self.query(cypher, {"k": k})}
        return {r["k"]: r["v"] for r in self.query(
            f"UNWIND $k AS k MATCH (n:{table} {{{key}: k}}) RETURN n.{key} AS k, n.{column} AS v", {"k": wanted})}

    def offsets(self, table: str, keys: Iterable[str]) -> list[int]:
        """Node offsets, `offset(id(n))`, of the rows of `table` with these primary keys (sorted; keys
        not found are left out; never empty), for queries filtered with `WHERE offset(id(n)) IN $list`.

        Why: Kuzu 0.11.3 runs `UNWIND $keys AS k MATCH (n {id: k})-[...]` as a scan and hash join over
        the whole table (100-400 ms per query at 50k sources), and `n.id IN $keys` tests every row
        against the list (640 ms for 1,000 keys). A single keyed MATCH uses the primary-key index
        (0.2-0.25 ms at any size); above KEYED_LOOKUPS keys one UNWIND join (15 ms at 50k, whatever
        the number of keys) is cheaper. A filter on offsets then reads only internal ids."""
        wanted = sorted(set(keys))
        if not wanted:
            return list(NO_OFFSETS)
        return sorted(self._known_offsets(table, wanted).values()) or list(NO_OFFSETS)

    def _known_offsets(self, table: str, wanted: list[str]) -> dict[str, int]:
        """{key: offset} of those keys `table` has. An offset stays what it was until a write: each key
        is looked up once per process when open read-only (`kg query` asks for a claim's offset two or
        three times), and once between writes by a writer (a one-source compile's regroup, detection and
        render ask for the same entities and claims: half of its 200-300 lookups). The answer is taken
        before the cache may be forgotten (past OFFSET_CACHE keys), so it never loses a cached key."""
        known = {k: self._offsets[(table, k)] for k in wanted if (table, k) in self._offsets}
        if missing := [k for k in wanted if (table, k) not in self._offsets]:
            found = self._lookup_offsets(table, missing)
            if len(self._offsets) > OFFSET_CACHE:
                self._offsets.clear()
            self._offsets.update({(table, k): found.get(k) for k in missing})
            known.update({k: found.get(k) for k in missing})
        return {k: o for k, o in known.items() if o is not None}

    def offsets_or_none(self, table: str, keys: Iterable[str]) -> list[int] | None:
        """`offsets`, or None when no row has these keys: a statement filtered on them would match
        nothing, and is not run (each statement a process runs the first time costs 1-5 ms to plan)."""
        found = self.offsets(table, keys)
        return None if found == NO_OFFSETS else found

    def has_edges(self, tables: str) -> bool:
        """Whether the graph holds an edge of `tables` (`CLAIM_LINKS`), remembered as offsets are
        (until a write): a read of edges that the graph has none of is answered without planning it
        (most knowledge bases have few contradictions or none; their reads were 6 statements of an edit)."""
        known = ("edges", tables)
        if known not in self._offsets:
            self._offsets[known] = 1 if self.query(f"MATCH ()-[:{tables}]->() RETURN 1 AS one LIMIT 1") else None
        return self._offsets[known] is not None

    def _lookup_offsets(self, table: str, wanted: list[str]) -> dict[str, int]:
        """{key: offset(id(n))} of the rows of `table` with these keys (see `offsets`)."""
        key = KEYS[table]
        if len(wanted) <= KEYED_LOOKUPS:
            cypher = f"MATCH (n:{table} {{{key}: $k}}) RETURN n.{key} AS k, offset(id(n)) AS o"
            return {r["k"]: r["o"] for k in wanted for r in self.query(cypher, {"k": k})}
        return {r["k"]: r["o"] for r in self.query(
            f"UNWIND $k AS k MATCH (n:{table} {{{key}: k}}) RETURN n.{key} AS k, offset(id(n)) AS o", {"k": wanted})}

    def counts(self) -> dict[str, int]:
        out = {}
        for table in ("Source", "Entity", "Claim", "Page"):
            out[table] = int(self.query(f"MATCH (n:{table}) RETURN count(n) AS c")[0]["c"])
        out["Contradiction"] = int(self.query("MATCH ()-[r:CONTRADICTS]->() RETURN count(r) AS c")[0]["c"])
        return out

    def next_log_seq(self) -> int:
        rows = self.query("MATCH (l:LogEntry) RETURN max(l.seq) AS s")
        value = rows[0]["s"] if rows else None
        return int(value) + 1 if value is not None else 1


@dataclass
class CompactReport:
    bytes_before: int
    bytes_after: int
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return {"bytes_before": self.bytes_before, "bytes_after": self.bytes_after, "seconds": round(self.seconds, 3)}


def compact(path: Path) -> CompactReport:
    """Rewrite the graph without the dead data Kuzu 0.11.3 keeps (it has no VACUUM: every checkpoint
    after a SET of a string property keeps the old copy of that column; see CLOSE_CHECKPOINT_KB):
    a copy into a new file, swapped in once its row counts match (kg/graph/rewrite.py)."""
    store = Store(path)  # holds the writer lock until the new file is in place
    try:
        store._close_database()
        done = rewrite(path, buffer_pool_mb=store._buffer_pool_mb)
    except OSError as exc:
        raise StoreError(f"Could not compact the graph at {path}: {exc}. It was left as it was.") from exc
    finally:
        store.close()
    return CompactReport(done.bytes_before, done.bytes_after, done.seconds)

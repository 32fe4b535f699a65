"""A persistent index of claims' content stems (SQLite), for incremental contradiction detection.

Claim ids are content hashes and claims are never deleted, so the stems of a claim id never
change: the index only grows, and it is a derived cache (delete it and the next compile rebuilds
it). `kg.contradict.detect` decides when it is complete; this module only stores and reads:

- `claims(id)`: every claim whose stems are stored (claims without content words included);
- `stems(stem, claim)`: the postings, clustered by stem;
- `df(stem, n)`: how many claims have the stem (all statuses), so a common stem is skipped
  without reading its postings;
- `meta(key, value)`: what the index was built for (the stemmer and the graph).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS claims (id TEXT PRIMARY KEY) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS stems (stem TEXT NOT NULL, claim TEXT NOT NULL, PRIMARY KEY (stem, claim)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS df (stem TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID",
)
_CHUNK = 500  # host parameters per statement


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


class StemIndex:
    def __init__(self, path: Path | None) -> None:
        """`path=None` keeps the index in memory (tests). An unreadable file is deleted and rebuilt."""
        self.path = path
        self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except sqlite3.DatabaseError:  # not a database, or corrupt: it is only a cache
            self._delete_files()
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        target = ":memory:" if self.path is None else str(self.path)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(target, timeout=30)
        try:
            with db:
                for statement in _SCHEMA:
                    db.execute(statement)
            db.execute("SELECT count(*) FROM meta").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _delete_files(self) -> None:
        if self.path is not None:
            for suffix in ("", "-journal", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def reset(self) -> None:
        """Start over with an empty index (after an error reading it)."""
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        self._delete_files()
        self._db = self._connect()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> StemIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # what the index was built for -----------------------------------------------------------

    def identity(self) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        return str(row[0]) if row else None

    def clear(self, identity: str) -> None:
        """Drop everything; the index is now for `identity` (see kg.contradict)."""
        with self._db:
            for table in ("meta", "claims", "stems", "df"):
                self._db.execute(f"DELETE FROM {table}")
            self._db.execute("INSERT INTO meta (key, value) VALUES ('identity', ?)", (identity,))

    # writes -------------------------------------------------------------------------------

    def add(self, items: Iterable[tuple[str, Iterable[str]]]) -> int:
        """Store (claim id, stems) pairs; claims already stored are skipped. Returns how many were new."""
        fresh: dict[str, set[str]] = {}
        for claim, stems in items:
            if claim not in fresh:
                fresh[claim] = set(stems)
        for known in self.known(list(fresh)):
            del fresh[known]
        if not fresh:
            return 0
        df = Counter(s for stems in fresh.values() for s in stems)
        with self._db:
            self._db.executemany("INSERT INTO claims (id) VALUES (?)", ((c,) for c in fresh))
            self._db.executemany("INSERT INTO stems (stem, claim) VALUES (?, ?)",
                                 ((s, c) for c, stems in fresh.items() for s in sorted(stems)))
            self._db.executemany("INSERT INTO df (stem, n) VALUES (?, ?) ON CONFLICT (stem) DO UPDATE SET n = n + excluded.n",
                                 sorted(df.items()))
        return len(fresh)

    # reads --------------------------------------------------------------------------------

    def count(self) -> int:
        """Claims stored."""
        return int(self._db.execute("SELECT count(*) FROM claims").fetchone()[0])

    def ids(self) -> set[str]:
        return {row[0] for row in self._db.execute("SELECT id FROM claims")}

    def known(self, claims: Sequence[str]) -> set[str]:
        """Which of these claim ids are stored."""
        out: set[str] = set()
        for part in _chunks(claims):
            marks = ",".join("?" * len(part))
            out.update(row[0] for row in self._db.execute(f"SELECT id FROM claims WHERE id IN ({marks})", part))
        return out

    def df(self, stems: Sequence[str]) -> dict[str, int]:
        """Claims (of any status) having each stem; 0 for a stem no claim has."""
        out = dict.fromkeys(stems, 0)
        for part in _chunks(stems):
            marks = ",".join("?" * len(part))
            out.update(self._db.execute(f"SELECT stem, n FROM df WHERE stem IN ({marks})", part))
        return out

    def postings(self, stems: Sequence[str]) -> dict[str, list[str]]:
        """The claim ids having each stem, in id order."""
        out: dict[str, list[str]] = {s: [] for s in stems}
        for part in _chunks(stems):
            marks = ",".join("?" * len(part))
            for stem, claim in self._db.execute(f"SELECT stem, claim FROM stems WHERE stem IN ({marks}) ORDER BY stem, claim", part):
                out[stem].append(claim)
        return out

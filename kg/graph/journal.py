"""What a person made, kept outside the graph file: the log, filed answers and entity merges.

The graph (.kg/graph.kuzu) is derived: raw/, kg.toml and the LLM reply cache give it back
(`kg compile --rebuild`). These rows are not derived from raw/: they record what happened and
what a person decided. Every write of the graph that adds them copies them here too
(`Store.write`), in a SQLite file that a Kuzu crash cannot take with it, and a rebuild puts
them back (kg/maintain/doctor.py). A journal started beside an older graph is filled from it once.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY, at TEXT, op TEXT, subject TEXT, detail TEXT);
CREATE TABLE IF NOT EXISTS answers (id TEXT PRIMARY KEY, row TEXT NOT NULL, cites TEXT NOT NULL, about TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS merges (n INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, alias TEXT NOT NULL,
                                   target TEXT, score REAL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
"""
MANUAL = "manual"  # ALIAS_OF.method of a merge a person made (`kg entity merge`)


@dataclass
class ReplayReport:
    log_entries: int = 0
    answers: int = 0
    merges: int = 0  # decisions of `kg entity merge` / `unmerge` put back
    skipped: list[str] = field(default_factory=list)  # merges or citations whose entities or claims are gone

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


class Journal:
    """.kg/journal.sqlite: append-mostly, one transaction per graph write."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    @property
    def filled(self) -> bool:
        """True once it holds everything the graph beside it held (see `fill`)."""
        return self._db.execute("SELECT value FROM meta WHERE key = 'filled'").fetchone() is not None

    def keep(self, nodes: Mapping[str, list[dict[str, Any]]], rels: Mapping[str, list[dict[str, Any]]],
             updates: Mapping[str, list[dict[str, Any]]] | None = None) -> None:
        """Copy what a graph write adds that cannot be recomputed (a WriteBatch's rows)."""
        log = nodes.get("LogEntry", [])
        pages = nodes.get("Page", [])
        decisions = [*nodes.get("Decision", []), *(updates or {}).get("Decision", [])]
        legacy = [r for r in rels.get("ALIAS_OF", []) if r.get("method") == MANUAL]  # filled from an older graph
        if not (log or pages or decisions or legacy):
            return
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO log VALUES (?, ?, ?, ?, ?)",
                                 [(r["seq"], r["at"], r["op"], r["subject"], r["detail"]) for r in log])
            for page in pages:
                cites = sorted(r["dst"] for r in rels.get("CITES", []) if r["src"] == page["id"])
                about = sorted(r["dst"] for r in rels.get("PAGE_ABOUT", []) if r["src"] == page["id"])
                self._db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)",
                                 (page["id"], json.dumps(page, sort_keys=True), json.dumps(cites), json.dumps(about)))
            self._db.executemany("INSERT INTO merges (op, alias, target, score) VALUES ('merge', ?, ?, ?)",
                                 [(r["src"], r["dst"], r.get("score")) for r in legacy])
            self._db.executemany("INSERT INTO merges (op, alias, target) VALUES (?, ?, ?)",
                                 [("merge" if r["merged_into"] else "unmerge", r["entity"], r["merged_into"])
                                  for r in decisions])

    def fill(self, log: Iterable[dict[str, Any]], pages: Iterable[dict[str, Any]], cites: Iterable[dict[str, Any]],
             about: Iterable[dict[str, Any]], merges: Iterable[dict[str, Any]]) -> None:
        """Take in what an older graph holds (read by the caller), once."""
        log, merges = list(log), list(merges)
        with self._db:
            self._db.execute("DELETE FROM log")
            self._db.execute("DELETE FROM answers")
            self._db.execute("DELETE FROM merges")
        self.keep({"LogEntry": log, "Page": list(pages)},
                  {"CITES": list(cites), "PAGE_ABOUT": list(about), "ALIAS_OF": merges})
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('filled', '1')")

    def mark_filled(self) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('filled', '1')")

    # reading back ----------------------------------------------------------------------------

    def log_entries(self) -> list[dict[str, Any]]:
        cur = self._db.execute("SELECT seq, at, op, subject, detail FROM log ORDER BY seq")
        return [dict(zip(("seq", "at", "op", "subject", "detail"), row, strict=True)) for row in cur]

    def answers(self) -> list[tuple[dict[str, Any], list[str], list[str]]]:
        return [(json.loads(row), json.loads(cites), json.loads(about))
                for row, cites, about in self._db.execute("SELECT row, cites, about FROM answers ORDER BY id")]

    def merges(self) -> dict[str, str]:
        """What a person decided that still stands: entity id -> the entity it was merged into
        (`kg entity merge`), or '' when it is kept apart (`kg entity unmerge`); latest decision wins."""
        standing: dict[str, str] = {}
        for op, alias, target in self._db.execute("SELECT op, alias, target FROM merges ORDER BY n"):
            standing[alias] = target if op == "merge" else ""
        return standing

    def counts(self) -> dict[str, int]:
        return {"log_entries": len(self.log_entries()), "answers": len(self.answers()), "merges": len(self.merges())}


def read_kept(conn: Any) -> dict[str, list[dict[str, Any]]]:
    """What a graph holds that the journal keeps, read on a Kuzu connection (or a Store's `query`)."""
    def rows(cypher: str) -> list[dict[str, Any]]:
        if hasattr(conn, "query"):
            return list(conn.query(cypher))
        result = conn.execute(cypher)
        names = result.get_column_names()
        return [dict(zip(names, values, strict=True)) for values in result.get_all()]

    return {
        "log": rows("MATCH (l:LogEntry) RETURN l.seq AS seq, l.at AS at, l.op AS op, l.subject AS subject, "
                    "l.detail AS detail ORDER BY seq"),
        "pages": rows("MATCH (p:Page) RETURN p.id AS id, p.kind AS kind, p.title AS title, p.body AS body, "
                      "p.body_sha256 AS body_sha256, p.created_at AS created_at ORDER BY id"),
        "cites": rows("MATCH (p:Page)-[:CITES]->(c:Claim) RETURN p.id AS src, c.id AS dst"),
        "about": rows("MATCH (p:Page)-[:PAGE_ABOUT]->(e:Entity) RETURN p.id AS src, e.id AS dst"),
        "merges": rows(f"MATCH (a:Entity)-[m:ALIAS_OF]->(b:Entity) WHERE m.method = '{MANUAL}' "
                       "RETURN a.id AS src, b.id AS dst, m.method AS method, m.score AS score ORDER BY src"),
    }


def fill_from_graph(journal_path: Path, db_path: Path) -> None:
    """Fill a journal from a graph that may be damaged: run in a child process (`salvage`)."""
    import importlib.util  # noqa: F401  (kuzu's results need it)

    import kuzu

    db = kuzu.Database(str(db_path), read_only=True, buffer_pool_size=512 * 1024 * 1024)
    conn = kuzu.Connection(db)
    kept = read_kept(conn)
    journal = Journal(journal_path)
    try:
        journal.fill(kept["log"], kept["pages"], kept["cites"], kept["about"], kept["merges"])
    finally:
        journal.close()
        conn.close()
        db.close()


def salvage(journal_path: Path, db_path: Path) -> str:
    """Fill the journal from a graph that may crash when read, in a child process; '' when it
    worked, else what went wrong."""
    import subprocess

    child = subprocess.run([sys.executable, "-m", "kg.graph.journal", str(journal_path), str(db_path)],
                           capture_output=True, text=True)
    if child.returncode == 0:
        return ""
    crashed = child.returncode < 0 or child.returncode > 128
    last = (child.stderr.strip().splitlines() or [""])[-1]
    return f"reading them from the damaged graph {'crashed' if crashed else 'failed'} {last}".strip()


if __name__ == "__main__":
    fill_from_graph(Path(sys.argv[1]), Path(sys.argv[2]))

"""Issue 24: the Kuzu 0.11.3 crash (a STRING column SET where it was NULL, checkpointed, then more
rows) cannot be reached through the store, and a graph it already broke is repaired on open."""

from __future__ import annotations

import importlib.util  # noqa: F401  (kuzu's LOAD FROM on Arrow needs it)
import shutil
from pathlib import Path

import pyarrow as pa
import pytest

from kg import api
from kg.errors import GraphOutdated
from kg.graph.probe import probe
from kg.graph.schema import NEVER_NULL, NODES, SCHEMA_VERSION
from kg.graph.store import Store, WriteBatch
from kg.kb import KnowledgeBase
from tests.conftest import EXAMPLES

# The schema of version 5, as migrations 1-5 built it (file_stat and checked_at added by ALTER).
V5 = [
    "CREATE NODE TABLE Migration(version INT64 PRIMARY KEY, name STRING, applied_at STRING)",
    "CREATE NODE TABLE Source(path STRING PRIMARY KEY, slug STRING, sha256 STRING, title STRING, kind STRING, "
    "bytes INT64, authority INT64, ingested_at STRING, compiled_at STRING, status STRING, error STRING, "
    "extractor STRING, chunks INT64, unverified INT64)",
    "CREATE NODE TABLE Entity(id STRING PRIMARY KEY, name STRING, type STRING, aliases STRING[], summary STRING, "
    "status STRING, created_at STRING)",
    "CREATE NODE TABLE Claim(id STRING PRIMARY KEY, text STRING, claim_type STRING, predicate STRING, object STRING, "
    "value DOUBLE, unit STRING, polarity INT64, confidence DOUBLE, extractor STRING, prompt_version STRING, "
    "valid_from STRING, valid_to STRING, recorded_at STRING, retracted_at STRING, status STRING)",
    "CREATE NODE TABLE Page(id STRING PRIMARY KEY, kind STRING, title STRING, body STRING, body_sha256 STRING, "
    "created_at STRING)",
    "CREATE NODE TABLE LogEntry(seq INT64 PRIMARY KEY, at STRING, op STRING, subject STRING, detail STRING)",
    "CREATE REL TABLE ABOUT(FROM Claim TO Entity, role STRING)",
    "CREATE REL TABLE EXTRACTED_FROM(FROM Claim TO Source, source_sha256 STRING, quote STRING, char_start INT64, "
    "char_end INT64, recorded_at STRING, retracted_at STRING)",
    "CREATE REL TABLE MENTIONS(FROM Source TO Entity, count INT64)",
    "CREATE REL TABLE RELATED(FROM Entity TO Entity, predicate STRING, claim_id STRING)",
    "CREATE REL TABLE CONTRADICTS(FROM Claim TO Claim, reason STRING, confidence DOUBLE, method STRING, detected_at STRING)",
    "CREATE REL TABLE SUPERSEDES(FROM Claim TO Claim, reason STRING)",
    "CREATE REL TABLE ALIAS_OF(FROM Entity TO Entity, method STRING, score DOUBLE)",
    "CREATE REL TABLE CITES(FROM Page TO Claim)",
    "ALTER TABLE Claim ADD checked_at STRING",
    "CREATE NODE TABLE Chunk(id STRING PRIMARY KEY, source_path STRING, idx INT64, text STRING, char_start INT64, "
    "char_end INT64, sha256 STRING)",
    "CREATE REL TABLE HAS_CHUNK(FROM Source TO Chunk)",
    "CREATE REL TABLE PAGE_ABOUT(FROM Page TO Entity)",
    "ALTER TABLE Source ADD file_stat STRING",
    "CREATE NODE TABLE EntityKey(key STRING PRIMARY KEY, entity STRING)",
]


def source(path: str) -> dict[str, object]:
    return {"path": path, "slug": path, "sha256": "a" * 64, "title": path, "kind": "markdown", "bytes": 1,
            "authority": 0, "ingested_at": "t", "compiled_at": "t", "status": "compiled", "error": None,
            "extractor": "heuristic", "chunks": 1, "unverified": 0, "file_stat": None}


def test_the_history_that_broke_kuzu_reads_fine_through_the_store(tmp_path: Path) -> None:
    path = tmp_path / "g.kuzu"
    previous: list[str] = []
    for step in range(5):  # rows created without a stat, the stat SET one compile later
        with Store(path) as store:
            if previous:
                batch = WriteBatch()
                for p in previous:
                    batch.update("Source", {"path": p, "file_stat": f"stat of {p}"})
                store.write(batch)
                store.checkpoint()
            previous = [f"p{step}-{i:03d}" for i in range(60)]
            batch = WriteBatch()
            for p in previous:
                batch.add("Source", source(p))
            store.write(batch)
            store.checkpoint()
        assert probe(path, [("Source", "file_stat"), ("Source", "error")]).ok, f"unreadable after step {step}"
    with Store(path, read_only=True) as store:
        rows = store.query("MATCH (s:Source) RETURN count(*) AS n, count(s.file_stat) AS stats")
        assert rows == [{"n": 300, "stats": 300}]  # '' where no stat was recorded, never NULL


def test_every_updated_text_column_is_written_without_nulls(tmp_path: Path) -> None:
    with Store(tmp_path / "g.kuzu") as store:
        batch = WriteBatch()
        batch.add("Source", source("a.md"))
        store.write(batch)
        row = store.query("MATCH (s:Source) RETURN s.error AS error, s.file_stat AS stat")[0]
        assert row == {"error": "", "stat": ""}
    for table, columns in NEVER_NULL.items():
        names = dict(NODES.get(table, []))
        assert all(names.get(c, "STRING") == "STRING" for c in columns)


def broken_v5_graph(path: Path) -> None:
    """A schema-5 graph whose Source.file_stat crashes any scan (the pattern of issue 24)."""
    import kuzu

    db = kuzu.Database(str(path))
    conn = kuzu.Connection(db)
    for statement in V5:
        conn.execute(statement)
    for version in range(1, 6):
        conn.execute("CREATE (:Migration {version: $v, name: 'old', applied_at: 't'})", {"v": version})
    conn.execute("CREATE (:Claim {id: 'c1', text: 'x', status: 'retracted', retracted_at: 'when', checked_at: 'seen'})")
    conn.execute("CHECKPOINT")
    conn.close()
    db.close()
    previous: list[str] = []
    for step in range(4):
        db = kuzu.Database(str(path))
        conn = kuzu.Connection(db)
        if previous:
            rows = pa.table({"path": previous, "fs": [f"v{p}" for p in previous]})
            conn.execute("LOAD FROM $rows MATCH (n:Source {path: path}) SET n.file_stat = fs", {"rows": rows})
            conn.execute("CHECKPOINT")
        previous = [f"p{step}-{i:04d}" for i in range(60)]
        rows = pa.table({"path": previous, "fs": pa.array([None] * 60, pa.string())})
        conn.execute("LOAD FROM $rows CREATE (:Source {path: path, file_stat: fs, status: 'compiled'})", {"rows": rows})
        conn.execute("MATCH (c:Claim {id: 'c1'}), (s:Source {path: $p}) CREATE (c)-[:EXTRACTED_FROM "
                     "{source_sha256: 'a', quote: 'x', char_start: $i, char_end: 1, recorded_at: 't', retracted_at: 'gone'}]->(s)",
                     {"p": previous[0], "i": step})
        conn.execute("CHECKPOINT")
        conn.close()
        db.close()


def test_an_older_graph_kuzu_broke_is_rebuilt_by_the_next_compile(kb: KnowledgeBase) -> None:
    shutil.copyfile(EXAMPLES / "eniac.md", kb.raw / "eniac.md")
    broken_v5_graph(kb.db_path)
    found = probe(kb.db_path)
    assert found.broken == [("Source", "file_stat")] and not found.unopenable
    with pytest.raises(GraphOutdated, match="run `kg compile`"):
        Store(kb.db_path)
    report, _ = api.compile_kb(kb)  # built again from raw/, the old file kept aside
    assert report.compiled == 1 and list(kb.broken_dir.iterdir())
    with Store(kb.db_path) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.query("MATCH (s:Source) RETURN count(*) AS n") == [{"n": 1}]
    assert probe(kb.db_path).ok and (kb.wiki / "sources" / "eniac.md").exists()

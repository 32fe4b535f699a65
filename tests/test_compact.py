"""`kg compact`: the graph rewritten without Kuzu's dead copies, same rows, same wiki; a failed
compaction leaves the graph as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.errors import StoreError
from kg.graph import rewrite as rewrite_module
from kg.graph.schema import SCHEMA_VERSION
from kg.graph.store import Store
from kg.kb import KnowledgeBase
from tests.conftest import tree_digest


def counts(kb: KnowledgeBase) -> dict[str, int]:
    with Store(kb.db_path, read_only=True) as store:
        return rewrite_module.table_counts(store._conn)


def test_compact_keeps_every_row_and_the_wiki(fresh: KnowledgeBase) -> None:
    note = fresh.raw / "colossus.md"
    for i in range(3):  # edits whose updates leave dead copies behind in Kuzu
        note.write_text(note.read_text(encoding="utf-8") + f"\nColossus ran {i + 2} new programs in 1945.\n", encoding="utf-8")
        api.compile_kb(fresh, "heuristic")
    before, wiki = counts(fresh), tree_digest(fresh.wiki)
    report = api.compact_kb(fresh)
    assert 0 < report.bytes_after < report.bytes_before
    assert counts(fresh) == before and not Path(f"{fresh.db_path}.wal").exists()
    assert not list(fresh.state.glob("rewrite-*"))
    with Store(fresh.db_path) as store:
        assert store.schema_version() == SCHEMA_VERSION and store.migrate() == []
    api.render_kb(fresh)
    assert tree_digest(fresh.wiki) == wiki
    assert api.search_kb(fresh, "Colossus programs", "bm25").hits  # indexes rebuilt by the first search
    api.compile_kb(fresh, "heuristic")  # and the graph keeps compiling
    note.write_text(note.read_text(encoding="utf-8") + "\nColossus was dismantled in 1960.\n", encoding="utf-8")
    assert api.compile_kb(fresh, "heuristic")[0].compiled == 1


def test_a_failed_compaction_leaves_the_graph_as_it_was(fresh: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    claims = "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) RETURN c.id AS id, c.text AS text, s.path AS path ORDER BY id, path"
    before, rows = counts(fresh), api.cypher(fresh, claims)
    real = rewrite_module.table_counts
    calls: list[int] = []

    def miscounting(conn: Any) -> dict[str, int]:
        calls.append(1)
        found = real(conn)
        return found if len(calls) == 1 else {**found, "Claim": found["Claim"] - 1}

    monkeypatch.setattr(rewrite_module, "table_counts", miscounting)
    with pytest.raises(StoreError, match="left as it was"):
        api.compact_kb(fresh)
    monkeypatch.setattr(rewrite_module, "table_counts", real)
    assert counts(fresh) == before and api.cypher(fresh, claims) == rows
    assert not list(fresh.state.glob("rewrite-*")) and not (fresh.state / "lock.json").exists()


def test_cli_compact(fresh: KnowledgeBase, kb: KnowledgeBase) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["compact", "--kb", str(fresh.root), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["bytes_after"] > 0 and data["seconds"] >= 0
    text = runner.invoke(app, ["compact", "--kb", str(fresh.root)])
    assert text.exit_code == 0 and "Compacted the graph" in text.stdout
    kb.db_path.unlink(missing_ok=True)
    missing = runner.invoke(app, ["compact", "--kb", str(kb.root)])
    assert missing.exit_code != 0 and "Run `kg compile` first" in missing.output

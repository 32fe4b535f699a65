"""Issue 24: a graph that cannot be read is found in a child process and rebuilt from raw/, the
reply cache and the journal (merges, filed answers, the log), the old file kept aside."""

from __future__ import annotations

import json
import shutil

from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.graph.journal import Journal
from kg.kb import KnowledgeBase
from tests.conftest import is_log, tree_digest
from tests.test_graph_repair import broken_v5_graph

runner = CliRunner()


def merged_and_answered(kb: KnowledgeBase) -> None:
    api.entity_merge(kb, "colossi", "colossus")
    api.query_kb(kb, "How many vacuum tubes did ENIAC use?", save=True, offline=True, mode="bm25")


def test_the_journal_keeps_merges_answers_and_the_log(fresh: KnowledgeBase) -> None:
    merged_and_answered(fresh)
    journal = Journal(fresh.journal_path)
    try:
        assert journal.filled
        merges, answers, log = journal.merges(), journal.answers(), journal.log_entries()
    finally:
        journal.close()
    assert merges == {"colossi": "colossus"}
    assert [page["title"] for page, _, _ in answers] == ["How many vacuum tubes did ENIAC use?"]
    graph_log = api.cypher(fresh, "MATCH (l:LogEntry) RETURN l.seq AS seq, l.at AS at, l.op AS op, "
                                  "l.subject AS subject, l.detail AS detail ORDER BY seq")
    assert log == graph_log and {"merge", "answer", "ingest"} <= {e["op"] for e in log}
    api.entity_merge(fresh, "colossi")  # unmerge: no longer standing
    journal = Journal(fresh.journal_path)
    assert journal.merges() == {"colossi": ""}  # kept apart
    journal.close()


def test_rebuild_gives_the_same_wiki_and_keeps_what_a_person_made(fresh: KnowledgeBase) -> None:
    merged_and_answered(fresh)
    before = tree_digest(fresh.wiki)
    log_before = api.cypher(fresh, "MATCH (l:LogEntry) RETURN l.op AS op, l.subject AS s ORDER BY l.seq")
    result = runner.invoke(app, ["compile", "--rebuild", "--kb", str(fresh.root), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["replayed"]["merges"] == 1 and report["replayed"]["answers"] == 1 and report["llm_requests"] == 0
    assert report["kept_old_graph"].startswith(".kg/broken/graph-") and (fresh.root / report["kept_old_graph"]).exists()
    after = tree_digest(fresh.wiki)
    assert {p for p in before if before[p] != after.get(p) and not is_log(p)} == set()  # the log gained one entry
    log_after = api.cypher(fresh, "MATCH (l:LogEntry) RETURN l.op AS op, l.subject AS s ORDER BY l.seq")
    assert log_after == [*log_before, {"op": "rebuild", "s": "graph"}]
    shown = api.entity_show(fresh, "colossi")
    assert [a["id"] for a in shown["alias_of"]] == ["colossus"]


def test_doctor_finds_a_crashing_column_and_rebuilds(kb: KnowledgeBase) -> None:
    shutil.copyfile("examples/notes/eniac.md", kb.raw / "eniac.md")
    broken_v5_graph(kb.db_path)
    check = runner.invoke(app, ["doctor", "--check", "--kb", str(kb.root)])
    assert check.exit_code == 1 and "Source.file_stat crashed when read" in check.stdout
    fixed = runner.invoke(app, ["doctor", "--kb", str(kb.root)])
    assert fixed.exit_code == 0, fixed.output
    assert "Rebuilt the graph" in fixed.stdout and "compiled 1 source(s)" in fixed.stdout
    again = runner.invoke(app, ["doctor", "--kb", str(kb.root), "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["healthy"] is True
    assert api.status(kb).counts["Source"] == 1 and list((kb.state / "broken").iterdir())
    assert (kb.wiki / "sources" / "eniac.md").exists()

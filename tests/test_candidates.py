"""Contradiction candidates (kg/compile/contradict.py): claims about one group of entities that
share content words, a relation of the two claims only; after a small edit, detection loads only
the new claims' groups and finds exactly what loading every live claim finds."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kg import api
from kg.compile import contradict
from kg.compile import pipeline as compiler
from kg.compile.contradict import (
    ClaimRecord,
    ContradictionReport,
    Finding,
    RuleJudge,
    candidate_pairs,
    detect,
)
from kg.graph.store import Store
from kg.kb import KnowledgeBase

EXTRA = """# More about early computers

ENIAC weighed 40 tonnes. ENIAC was not a general-purpose machine. ENIAC was programmed with patch cables.
The Intel 4004 ran at 800 kHz. The Intel 4004 had 2300 transistors. Colossus was the first programmable computer.
The transistor reduced the size of computers. The Manchester Baby ran its first program in 1949.
Alan Turing never proposed a stored-program design.
"""
ACME_OLD = "# Acme\n\n| Company | CEO |\n|---|---|\n| Acme | Alice Smith |\n"
ACME_NEW = "# Acme news\n\n| Company | CEO |\n|---|---|\n| Acme | Bob Jones |\n"


class RecordingJudge(RuleJudge):
    """The rules, remembering every pair they were asked about, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, str]] = []

    def judge(self, pairs: Sequence[tuple[ClaimRecord, ClaimRecord]]) -> list[Finding | None]:
        self.asked += [(a.id, b.id) for a, b in pairs]
        return super().judge(pairs)


def rec(id_: str, text: str, subject: str) -> ClaimRecord:
    return ClaimRecord(id=id_, text=text, subject=subject, predicate="p", claim_type="fact", polarity=1, object="",
                       confidence=0.8, entities=frozenset({subject}))


def test_candidates_are_pairs_about_one_group_sharing_words() -> None:
    claims = [rec("c1", "ENIAC weighed 27 tonnes", "eniac"), rec("c2", "ENIAC weighed 30 tons", "eniac-computer"),
              rec("c3", "Colossus weighed 5 tonnes", "colossus"), rec("c4", "ENIAC used vacuum tubes", "eniac")]
    grouped = {"eniac-computer": "eniac"}
    assert candidate_pairs(claims, {"c2"}, grouped) == [(0, 1)]  # same group, shared words
    assert candidate_pairs(claims, {"c2"}, {}) == []  # different subjects are never compared
    assert candidate_pairs(claims, {"c1"}, grouped) == candidate_pairs(claims, {"c2"}, grouped)  # either side


def graph_state(kb: KnowledgeBase) -> dict[str, Any]:
    return {
        "contradicts": sorted((r["a"], r["b"], r["reason"], r["confidence"], r["method"]) for r in api.cypher(
            kb, "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) RETURN a.id AS a, b.id AS b, r.reason AS reason, "
                "r.confidence AS confidence, r.method AS method")),
        "supersedes": sorted((r["a"], r["b"], r["reason"]) for r in api.cypher(
            kb, "MATCH (a:Claim)-[r:SUPERSEDES]->(b:Claim) RETURN a.id AS a, b.id AS b, r.reason AS reason")),
        "claims": sorted((r["id"], r["status"], r["unchecked"]) for r in api.cypher(
            kb, "MATCH (c:Claim) RETURN c.id AS id, c.status AS status, c.checked_at = '' AS unchecked")),
    }


def edited_pair(fresh: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[KnowledgeBase, KnowledgeBase]:
    """Two identical knowledge bases: the compiled examples with two live CEOs of Acme, retracted
    claims, then new claims (a third CEO once "ceo" is single-valued) compiled without
    contradiction detection, left to the test."""
    (fresh.raw / "acme.md").write_text(ACME_OLD)
    (fresh.raw / "acme-board.md").write_text(ACME_OLD.replace("Alice Smith", "Carol White"))
    (fresh.raw / "eniac.md").write_text("# ENIAC\n\nENIAC weighed 27 tonnes. ENIAC used vacuum tubes.\n")  # retracts claims
    api.compile_kb(fresh, render=False)
    fresh.config_path.write_text(fresh.config_path.read_text().replace("[predicates]\n", '[predicates]\nsingle_valued = ["ceo"]\n'))
    (fresh.raw / "extra.md").write_text(EXTRA)
    (fresh.raw / "acme-news.md").write_text(ACME_NEW)
    monkeypatch.setattr(compiler, "detect", lambda *args, **kwargs: ContradictionReport())
    api.compile_kb(fresh, render=False)
    monkeypatch.undo()
    other = tmp_path / "other"
    shutil.copytree(fresh.root, other)
    return fresh, KnowledgeBase(other)


def test_incremental_detection_finds_what_full_detection_finds(
    fresh: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full, incremental = edited_pair(fresh, tmp_path, monkeypatch)
    assert graph_state(full) == graph_state(incremental)
    judges = RecordingJudge(), RecordingJudge()
    with Store(full.db_path) as store:
        live = len(contradict.load_claim_records(store))
        monkeypatch.setattr(contradict, "INCREMENTAL_MAX_NEW", 0)  # every live claim loaded
        expected = detect(store, judges[0], ("ceo",))
        monkeypatch.undo()
    with Store(incremental.db_path) as store:
        report = detect(store, judges[1], ("ceo",))
    assert expected.loaded == live and report.loaded < live / 2  # the new claims' groups only
    assert (report.candidates, report.found, report.superseded) == (expected.candidates, expected.found, expected.superseded)
    assert judges[0].asked == judges[1].asked and report.candidates >= 3
    assert expected.superseded == 2 and expected.found >= 1
    assert graph_state(full) == graph_state(incremental)

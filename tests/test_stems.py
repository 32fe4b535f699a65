"""The persistent stem index (kg/compile/stems.py) and incremental contradiction detection: after a small
edit, detection loads only the new claims' neighbourhood and finds exactly what loading every
live claim finds."""

from __future__ import annotations

import random
import shutil
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kg import api
from kg.compile import contradict
from kg.compile import pipeline as compiler
from kg.compile.contradict import (
    CandidateIndex,
    ClaimRecord,
    ContradictionReport,
    Finding,
    RuleJudge,
    candidate_pairs,
    detect,
    lexical_neighbours,
)
from kg.compile.stems import StemIndex
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


def postings_of(claims: Sequence[ClaimRecord]) -> dict[str, list[str]]:
    postings: dict[str, list[str]] = defaultdict(list)
    for claim in claims:
        for s in claim.stem_set:
            postings[s].append(claim.id)
    return postings


def graph_state(kb: KnowledgeBase) -> dict[str, Any]:
    return {
        "contradicts": sorted((r["a"], r["b"], r["reason"], r["confidence"], r["method"]) for r in api.cypher(
            kb, "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) RETURN a.id AS a, b.id AS b, r.reason AS reason, "
                "r.confidence AS confidence, r.method AS method")),
        "supersedes": sorted((r["a"], r["b"], r["reason"]) for r in api.cypher(
            kb, "MATCH (a:Claim)-[r:SUPERSEDES]->(b:Claim) RETURN a.id AS a, b.id AS b, r.reason AS reason")),
        "claims": sorted((r["id"], r["status"], r["unchecked"]) for r in api.cypher(
            kb, "MATCH (c:Claim) RETURN c.id AS id, c.status AS status, c.checked_at IS NULL AS unchecked")),
    }


def copy_kb(kb: KnowledgeBase, to: Path) -> KnowledgeBase:
    shutil.copytree(kb.root, to)
    return KnowledgeBase(to)


def spy_detect(monkeypatch: pytest.MonkeyPatch) -> list[ContradictionReport]:
    """Record the report of every detect() the compiler runs."""
    reports: list[ContradictionReport] = []

    def spy(*args: Any, **kwargs: Any) -> ContradictionReport:
        reports.append(detect(*args, **kwargs))
        return reports[-1]

    monkeypatch.setattr(compiler, "detect", spy)
    return reports


# the lexical neighbours -----------------------------------------------------------------------


@pytest.mark.parametrize("max_df", [500, 12, 10])
def test_lexical_neighbours_from_postings_equal_the_sparse_index(max_df: int) -> None:
    rng = random.Random(max_df)
    words = [f"word{i}" for i in range(100)]  # each in about 9 of the claims
    claims = sorted((rec(f"c{i:03d}", " ".join(rng.choices(words, k=rng.randint(3, 9))) + ".", f"s{i % 7}")
                     for i in range(150)), key=lambda c: c.id)
    rows = list(range(0, 150, 3))
    expected = CandidateIndex(claims, max_df).neighbours_of(rows, k=5)
    postings = {s: ids for s, ids in postings_of(claims).items() if len(ids) <= max_df}  # the rest: never read
    found = lexical_neighbours({claims[i].id: claims[i].stems for i in rows}, postings, len(claims), k=5, max_df=max_df)
    assert found == {claims[i].id: [claims[j].id for j in expected[i]] for i in rows}
    assert any(found.values())


def test_neighbours_of_a_tiny_graph_whose_stems_are_all_shared() -> None:
    """A stem every claim has weighs log(1) = 0; such pairs keep their shared-stem counts aligned."""
    claims = [rec("a", "ENIAC weighed 27 tonnes.", "x"), rec("b", "ENIAC weighed 30 tons.", "y"),
              rec("c", "ENIAC weighed 30 tons and more.", "z")]
    index = CandidateIndex(claims)
    assert index.neighbours_of([0, 1, 2]) == {0: [1, 2], 1: [2, 0], 2: [1, 0]}
    assert lexical_neighbours({c.id: c.stems for c in claims}, postings_of(claims), 3, k=10) == {
        "a": ["b", "c"], "b": ["c", "a"], "c": ["b", "a"]}
    pairs = candidate_pairs(claims, {"a"})
    assert [(claims[i].id, claims[j].id) for i, j in pairs] == [("a", "b"), ("a", "c")]


# the stem index -------------------------------------------------------------------------------


def test_stem_index_stores_stems_once_per_claim(tmp_path: Path) -> None:
    with StemIndex(tmp_path / "stems.sqlite") as index:
        index.clear("graph 1")
        assert index.add([("c1", ["eniac", "weigh", "eniac"]), ("c2", ["eniac", "tube"]), ("c3", [])]) == 3
        assert index.add([("c1", ["other"]), ("c4", ["tube"])]) == 1  # c1 is known: its stems never change
        assert index.count() == 4 and index.ids() == {"c1", "c2", "c3", "c4"}
        assert index.df(["eniac", "tube", "weigh", "nothing"]) == {"eniac": 2, "tube": 2, "weigh": 1, "nothing": 0}
        assert index.postings(["tube", "eniac"]) == {"tube": ["c2", "c4"], "eniac": ["c1", "c2"]}
        assert index.identity() == "graph 1"
    with StemIndex(tmp_path / "stems.sqlite") as index:  # persistent
        assert index.count() == 4
        index.clear("graph 2")
        assert index.count() == 0 and index.identity() == "graph 2"


def test_an_unreadable_stem_index_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "stems.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with StemIndex(path) as index:
        assert index.count() == 0 and index.identity() is None
        index.clear("g")
        index.add([("c1", ["x"])])
        index.reset()
        assert index.count() == 0


# incremental detection equals full detection ---------------------------------------------------


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
    return fresh, copy_kb(fresh, tmp_path / "other")


@pytest.mark.parametrize("limits", [None, (8, 3, 1), (2, 2, 1)])
def test_incremental_detection_finds_what_full_detection_finds(
    fresh: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limits: tuple[int, int, int] | None
) -> None:
    full, incremental = edited_pair(fresh, tmp_path, monkeypatch)
    if limits:  # tiny limits: common stems skipped, neighbour and same-subject lists cut short
        for name, value in zip(("MAX_DF", "NEIGHBOURS", "PER_SUBJECT"), limits, strict=True):
            monkeypatch.setattr(contradict, name, value)
    assert graph_state(full) == graph_state(incremental)
    judges = RecordingJudge(), RecordingJudge()
    with Store(full.db_path) as store:
        live = len(contradict.load_claim_records(store))
        expected = detect(store, judges[0], ("ceo",))
    with Store(incremental.db_path) as store, StemIndex(incremental.state / "stems.sqlite") as stems:
        report = detect(store, judges[1], ("ceo",), stems)
        assert stems.count() == store.query("MATCH (c:Claim) RETURN count(*) AS n")[0]["n"]
    assert expected.loaded == live and report.loaded < live / 2  # the neighbourhood only
    assert (report.candidates, report.found, report.superseded) == (expected.candidates, expected.found, expected.superseded)
    assert judges[0].asked == judges[1].asked and report.candidates >= 5
    assert expected.superseded == 2 and (limits or expected.found >= 3)
    assert graph_state(full) == graph_state(incremental)
    retracted = api.cypher(full, "MATCH (c:Claim) WHERE c.status <> 'live' RETURN count(*) AS n")[0]["n"]
    assert retracted >= 2  # the index holds claims that are no longer live


def test_a_lost_stem_index_is_rebuilt_with_the_same_findings(
    fresh: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    intact, lost = fresh, copy_kb(fresh, tmp_path / "lost")
    (lost.state / "stems.sqlite").unlink()
    reports = spy_detect(monkeypatch)
    for kb in (intact, lost):
        (kb.raw / "extra.md").write_text(EXTRA)
        api.compile_kb(kb, render=False)
    assert reports[0].loaded < reports[1].loaded  # without the index: every live claim
    assert graph_state(intact) == graph_state(lost)
    with StemIndex(lost.state / "stems.sqlite") as stems:
        assert stems.count() == api.cypher(lost, "MATCH (c:Claim) RETURN count(*) AS n")[0]["n"]
    (lost.state / "stems.sqlite").write_bytes(b"garbage" * 1000)  # corrupt: rebuilt too
    for kb in (intact, lost):
        (kb.raw / "more.md").write_text("# UNIVAC\n\nThe UNIVAC I weighed 13 tonnes. UNIVAC I was not delivered in 1951.\n")
        api.compile_kb(kb, render=False)
    assert reports[2].loaded < reports[3].loaded and graph_state(intact) == graph_state(lost)
    (lost.raw / "last.md").write_text("# EDVAC\n\nEDVAC used binary arithmetic. EDVAC was never a stored-program computer.\n")
    api.compile_kb(lost, render=False)
    assert reports[4].loaded < reports[3].loaded / 2  # back to incremental


def test_a_stem_index_of_another_graph_is_not_used(fresh: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Delete the graph but keep .kg/stems.sqlite: the recompiled graph dates differently."""
    with StemIndex(fresh.state / "stems.sqlite") as stems:
        before = stems.identity()
        stems.add([("c-not-in-this-graph", ["eniac", "weigh"])])
    for path in fresh.state.glob("graph.kuzu*"):
        path.unlink()
    reports = spy_detect(monkeypatch)
    api.compile_kb(fresh, render=False)
    (fresh.raw / "extra.md").write_text(EXTRA)
    api.compile_kb(fresh, render=False)
    with StemIndex(fresh.state / "stems.sqlite") as stems:
        assert stems.identity() != before and not stems.known(["c-not-in-this-graph"])
        assert stems.count() == api.cypher(fresh, "MATCH (c:Claim) RETURN count(*) AS n")[0]["n"]
    assert reports[1].loaded < reports[0].loaded / 2

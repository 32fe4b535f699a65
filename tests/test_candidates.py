"""Contradiction candidates (kg/compile/candidates.py) and detection over the claim-key index: claims
that say nearly the same thing, whatever their subjects, and what one subject measures; after a
small edit, detection reads only the changed claims' neighbourhood and leaves the graph exactly as
judging every live claim does, also when a key's bucket crosses MAX_BUCKET or a compile is killed; and the contradictions
found are the same whatever order the sources arrived in and wherever detection was killed."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg import api
from kg.compile import candidates, contradict
from kg.compile import pipeline as compiler
from kg.compile.candidates import KeyIndex, candidate_pairs
from kg.compile.contradict import (
    ClaimRecord,
    ContradictionReport,
    Finding,
    RuleJudge,
    detect,
)
from kg.graph.store import Store
from kg.kb import KnowledgeBase, init

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


def test_candidates_say_the_same_thing_or_measure_the_same_thing() -> None:
    claims = [rec("c1", "ENIAC weighed 27 tonnes", "eniac"), rec("c2", "ENIAC weighed 30 tons", "eniac-computer"),
              rec("c3", "Colossus weighed 5 tonnes", "colossus"), rec("c4", "ENIAC used vacuum tubes", "eniac")]
    grouped = {"eniac-computer": "eniac"}
    assert candidate_pairs(claims, {"c2"}, grouped) == [(0, 1)]  # nearly the same words, and the same attribute
    assert candidate_pairs(claims, {"c2"}, {}) == [(0, 1)]  # whatever the extractor made their subjects
    assert (0, 1) in candidate_pairs(claims, {"c1"}, grouped)  # either side
    measured = [rec("c1", "ENIAC weighed 27 tonnes", "eniac"), rec("c2", "It weighed 30 tons when finished", "eniac")]
    assert candidate_pairs(measured, {"c2"}, {}) == [(0, 1)]  # one word shared: what one subject measures
    assert candidate_pairs([measured[0], rec("c2", measured[1].text, "colossus")], {"c2"}, {}) == []


def test_key_index_keeps_departures_until_settled(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite"
    with KeyIndex(path) as index:
        assert index.rebuilt
        index.stage({"a": {2, 4}, "b": {2}, "c": {6}})
        index.settle()
    with KeyIndex(path) as index:
        assert not index.rebuilt and index.live_count() == 3
        index.stage({"b": {4}}, leaving={"c"})  # b changed keys, c left
        assert index.members([2, 4, 6]) == {2: ["a"], 4: ["a", "b"]}
        assert index.keys_of(["b", "c"], leaving=True) == {"b": {2}, "c": {6}}
        assert index.live_count() == 2
    with KeyIndex(path) as index:  # a kill before the graph write: the departures are still known
        assert index.keys_of(["b", "c"], leaving=True) == {"b": {2}, "c": {6}}
        index.settle()
        assert index.keys_of(["b", "c"], leaving=True) == {}
    with KeyIndex(path) as index:
        index.rebuild({"a": {2}, "d": {8}})  # then killed before the graph write: judge everything next time
    with KeyIndex(path) as index:
        assert index.rebuilt and index.members([2, 8]) == {2: ["a"], 8: ["d"]}
        index.settle()
    with KeyIndex(path) as index:
        assert not index.rebuilt and index.live_count() == 2
    path.write_bytes(b"not a database at all" * 100)
    with KeyIndex(path) as index:
        assert index.rebuilt and index.live_count() == 0
    with KeyIndex(path, salt="other rules") as index:  # made under other rules: judged again from scratch
        assert index.rebuilt


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


def live_edges(kb: KnowledgeBase) -> list[tuple[str, str, str, float]]:
    """The contradictions a reader sees: between live claims."""
    return sorted((r["a"], r["b"], r["reason"], r["confidence"]) for r in api.cypher(
        kb, "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) WHERE a.status = 'live' AND b.status = 'live' "
            "RETURN a.text AS a, b.text AS b, r.reason AS reason, r.confidence AS confidence"))


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
        monkeypatch.setattr(contradict, "INCREMENTAL_MAX_NEW", 0)  # every live claim loaded and judged again
        expected = detect(store, judges[0], ("ceo",))
        monkeypatch.undo()
    with Store(incremental.db_path) as store:
        report = detect(store, judges[1], ("ceo",))
    assert expected.loaded == live and report.loaded < live / 2  # the changed claims' neighbourhood only
    assert expected.rechecked > 2 * report.rechecked and report.candidates >= 3
    assert set(judges[1].asked) < set(judges[0].asked)
    assert expected.superseded == report.superseded == 2 and report.found >= 1
    assert graph_state(full) == graph_state(incremental)


def test_a_bucket_crossing_its_bound_gives_the_graph_of_one_compile(
        kb: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Claims arriving until their shared keys hold more than MAX_BUCKET claims (then those keys
    pair nobody), and leaving again: the graph equals one compile of the same sources each time."""
    monkeypatch.setattr(candidates, "MAX_BUCKET", 3)
    notes = {f"n{i}.md": f"Serum glucose in Zucker mice rose by {i + 1} percent after the assay.\n" for i in range(6)}
    notes["low.md"] = "Serum glucose in Zucker mice fell by 9 percent after the assay.\n"
    history = [["n0.md", "low.md"], ["n1.md", "n2.md"], ["n3.md", "n4.md", "n5.md"], ["-n3.md", "-n4.md", "-n5.md"],
               ["-n2.md"], ["n4.md"], ["-n1.md"]]
    seen = []
    for number, step in enumerate(history):
        for name in step:
            if name.startswith("-"):
                (kb.raw / name[1:]).unlink()
            else:
                (kb.raw / name).write_text(notes[name], encoding="utf-8")
        api.compile_kb(kb, "heuristic", render=False)
        once, _ = init(tmp_path / f"once-{number}")
        for note in sorted(kb.raw.iterdir()):
            shutil.copyfile(note, once.raw / note.name)
        api.compile_kb(once, "heuristic", render=False)
        assert live_edges(kb) == live_edges(once), step
        seen.append(len(live_edges(kb)))
    assert seen[0] and not seen[2] and seen[-1]  # found, then none while the keys pair nobody, then found again


def test_a_compile_killed_after_the_index_was_written_leaves_nothing_behind(
        fresh: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    full, killed = edited_pair(fresh, tmp_path, monkeypatch)

    def kill(store: Store, batch: Any) -> None:
        raise KeyboardInterrupt

    with Store(killed.db_path) as store:
        monkeypatch.setattr(Store, "write", kill)
        with pytest.raises(KeyboardInterrupt):
            detect(store, RuleJudge(), ("ceo",))
        monkeypatch.undo()
        detect(store, RuleJudge(), ("ceo",))
    with Store(full.db_path) as store:
        detect(store, RuleJudge(), ("ceo",))
    assert graph_state(full) == graph_state(killed)
    full.claim_keys_path.unlink()  # a lost index is rebuilt from the graph, with the same findings
    (full.raw / "late.md").write_text("ENIAC weighed 31 tonnes.\n")
    (killed.raw / "late.md").write_text("ENIAC weighed 31 tonnes.\n")
    api.compile_kb(full, "heuristic", render=False)
    api.compile_kb(killed, "heuristic", render=False)
    assert graph_state(full) == graph_state(killed)


# Conflicts whose two claims the extractor gives different subjects ("Metformin" / "In obese mice"),
# a denied effect, a date; one note that conflicts with nothing.
ORDER_NOTES = {
    "a.md": "Metformin reduces hepatic glucose output in obese mice.\n",
    "b.md": "In obese mice, metformin increases hepatic glucose output.\n",
    "c.md": "Daily aspirin has no effect on colorectal polyp growth in older adults.\n",
    "d.md": "Colorectal polyp growth in older adults is reduced by daily aspirin.\n",
    "e.md": "The Harbour Bridge in Kelso opened in 1932.\n",
    "f.md": "The Harbour Bridge in Kelso opened in 1936.\n",
    "g.md": "Vitamin D supplements lower fracture risk in elderly women.\n",
}


def compile_in_parts(root: Path, parts: list[list[str]], killed: int | None, where: str) -> KnowledgeBase:
    """Compile the notes part by part; the compile of part `killed` is interrupted in contradiction
    detection (at the graph write, or after it before the claim-key index settles), then run again."""
    kb, _ = init(root)
    real_detect = compiler.detect

    def dying_detect(*args: Any, **kwargs: Any) -> ContradictionReport:
        def die(*_: Any) -> None:
            raise KeyboardInterrupt

        owner: type = Store if where == "write" else KeyIndex
        with mock.patch.object(owner, where, die):
            return real_detect(*args, **kwargs)

    for number, part in enumerate(parts):
        for name in part:
            (kb.raw / name).write_text(ORDER_NOTES[name], encoding="utf-8")
        if number == killed:
            with mock.patch.object(compiler, "detect", dying_detect), pytest.raises(KeyboardInterrupt):
                api.compile_kb(kb, "heuristic", render=False)
        api.compile_kb(kb, "heuristic", render=False)
    return kb


@pytest.fixture(scope="module")
def one_compile(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str, str, float]]:
    edges = live_edges(compile_in_parts(tmp_path_factory.mktemp("once") / "kb", [sorted(ORDER_NOTES)], None, ""))
    assert len(edges) == 3  # the three conflicts, whatever their subjects
    return edges


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.permutations(sorted(ORDER_NOTES)), st.lists(st.integers(1, len(ORDER_NOTES) - 1), max_size=2, unique=True),
       st.one_of(st.none(), st.integers(0, 2)), st.sampled_from(["write", "settle"]))
def test_contradictions_do_not_depend_on_arrival_order_or_kills(
        tmp_path_factory: pytest.TempPathFactory, one_compile: list[tuple[str, str, str, float]],
        order: list[str], cuts: list[int], killed: int | None, where: str) -> None:
    bounds = [0, *sorted(cuts), len(order)]
    parts = [order[a:b] for a, b in itertools.pairwise(bounds)]
    kb = compile_in_parts(tmp_path_factory.mktemp("parts") / "kb", parts, killed if killed is None else killed % len(parts), where)
    assert live_edges(kb) == one_compile

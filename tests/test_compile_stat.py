"""The compile plan reads a known source only when its stat changed (git's index check), and
never misses an edit: racy (too recent) stats are not trusted, and the stat recorded with a
source is the one taken before its bytes were read."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from kg import api
from kg.compile import pipeline as compiler
from kg.compile.pipeline import (
    RACY_NS,
    Compiler,
    load_source_states,
    plan_compile,
    trusted_signature,
)
from kg.compile.sources import stat_signature
from kg.kb import KnowledgeBase
from kg.llm.backends import make_extractor

HOUR_NS = 3600 * 1_000_000_000


def age(path: Path, ns_ago: int = HOUR_NS) -> int:
    """Set a file's mtime back (as if last edited an hour ago); returns the new mtime_ns."""
    mtime = time.time_ns() - ns_ago
    os.utime(path, ns=(mtime, mtime))
    return mtime


@pytest.fixture
def trust_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """No racy margin: a stat is trusted as soon as it is older than the read. Setting an old
    mtime is not enough to make a test file trusted at once, because that sets its ctime to now."""
    monkeypatch.setattr(compiler, "RACY_NS", 0)


def file_stats(kb: KnowledgeBase) -> dict[str, Any]:
    return {r["path"]: r["stat"] for r in api.cypher(kb, "MATCH (s:Source) RETURN s.path AS path, s.file_stat AS stat")}


def plan_of(kb: KnowledgeBase) -> compiler.CompilePlan:
    with api.open_store(kb, read_only=True) as store:
        return plan_compile(kb.raw, load_source_states(store))


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the plan reads and hashes."""
    calls: list[str] = []
    real = compiler.sha256_file

    def counting(path: str | Path) -> str:
        calls.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(compiler, "sha256_file", counting)
    return calls


def log_count(kb: KnowledgeBase) -> int:
    return int(api.cypher(kb, "MATCH (l:LogEntry) RETURN count(l) AS n")[0]["n"])


@pytest.mark.usefixtures("trust_at_once")
def test_recorded_stat_skips_reading_unchanged_files(example_kb: KnowledgeBase, hashed: list[str]) -> None:
    api.compile_kb(example_kb, "heuristic", render=False)
    stats = file_stats(example_kb)
    assert stats and all(stats.values())  # old enough to be trusted: recorded
    for rel, recorded in stats.items():
        assert recorded == stat_signature(os.stat(example_kb.raw / rel))
    hashed.clear()
    report, _ = api.compile_kb(example_kb, "heuristic", render=False)
    assert not report.changed_anything and hashed == []  # nothing read


@pytest.mark.usefixtures("trust_at_once")
def test_touch_without_a_content_change_is_not_recompiled(example_kb: KnowledgeBase, hashed: list[str]) -> None:
    api.compile_kb(example_kb, "heuristic")
    logged = log_count(example_kb)
    before = file_stats(example_kb)
    age(example_kb.raw / "eniac.md", ns_ago=HOUR_NS // 2)  # touched: new mtime, same bytes
    hashed.clear()
    report, rendered = api.compile_kb(example_kb, "heuristic")
    assert hashed == ["eniac.md"]  # read once to find that its bytes are the same
    assert not report.changed_anything and report.compiled == 0 and rendered is None
    assert "eniac.md" in report.plan.unchanged and log_count(example_kb) == logged
    after = file_stats(example_kb)
    assert after["eniac.md"] == stat_signature(os.stat(example_kb.raw / "eniac.md")) != before["eniac.md"]
    assert {k: v for k, v in after.items() if k != "eniac.md"} == {k: v for k, v in before.items() if k != "eniac.md"}
    hashed.clear()
    assert plan_of(example_kb).unchanged == sorted(before) and hashed == []  # the new stat is trusted


def test_same_size_and_mtime_but_new_bytes_right_after_a_compile_is_changed(kb: KnowledgeBase) -> None:
    """The racy case: an edit in the same timestamp tick as the compiled version (coarse mtime)."""
    path = kb.raw / "a.md"
    path.write_text("# A\n\nAlpha Corp employs 100 people.\n")
    api.compile_kb(kb, "heuristic", render=False)
    assert file_stats(kb) == {"a.md": ""}  # edited just now: the stat cannot vouch for the bytes
    stat = os.stat(path)
    path.write_text("# A\n\nAlpha Corp employs 900 people.\n")  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same mtime
    assert os.stat(path).st_size == stat.st_size and os.stat(path).st_mtime_ns == stat.st_mtime_ns
    assert plan_of(kb).changed == ["a.md"]
    report, _ = api.compile_kb(kb, "heuristic", render=False)
    assert report.compiled == 1
    texts = [r["t"] for r in api.cypher(kb, "MATCH (c:Claim {status: 'live'}) RETURN c.text AS t")]
    assert any("900" in t for t in texts) and not any("100" in t for t in texts)


@pytest.mark.usefixtures("trust_at_once")
def test_old_mtime_set_back_after_an_edit_is_changed(kb: KnowledgeBase) -> None:
    """Tools that restore mtimes (touch -d, cp -p, rsync -t) cannot restore ctime."""
    path = kb.raw / "a.md"
    path.write_text("# A\n\nAlpha Corp employs 100 people.\n")
    mtime = age(path)
    api.compile_kb(kb, "heuristic", render=False)
    assert file_stats(kb)["a.md"]
    path.write_text("# A\n\nAlpha Corp employs 900 people.\n")
    os.utime(path, ns=(mtime, mtime))
    assert plan_of(kb).changed == ["a.md"]


@pytest.mark.usefixtures("trust_at_once")
def test_the_recorded_stat_is_taken_before_the_bytes_are_read(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit that lands after the compile read the file must show as a change next time."""
    path = kb.raw / "a.md"
    path.write_text("# A\n\nAlpha Corp employs 100 people.\n")
    age(path)
    real = compiler.read_source

    def read_then_edit(*args: Any, **kwargs: Any) -> Any:
        doc = real(*args, **kwargs)
        path.write_text("# A\n\nAlpha Corp employs 900 people.\n")  # same size
        age(path, ns_ago=HOUR_NS // 2)  # an old, trusted-looking mtime
        return doc

    monkeypatch.setattr(compiler, "read_source", read_then_edit)
    api.compile_kb(kb, "heuristic", render=False)
    monkeypatch.setattr(compiler, "read_source", real)
    assert file_stats(kb)["a.md"]
    assert plan_of(kb).changed == ["a.md"]


@pytest.mark.usefixtures("trust_at_once")
def test_a_graph_without_recorded_stats_hashes_once_then_records_them(example_kb: KnowledgeBase, hashed: list[str]) -> None:
    """A graph compiled before stats were recorded (migration 4 leaves them NULL)."""
    api.compile_kb(example_kb, "heuristic", render=False)
    api.cypher(example_kb, "MATCH (s:Source) SET s.file_stat = NULL", write=True)
    hashed.clear()
    report, _ = api.compile_kb(example_kb, "heuristic", render=False)
    assert not report.changed_anything and len(hashed) == len(report.plan.unchanged) > 0
    assert all(file_stats(example_kb).values())
    hashed.clear()
    api.compile_kb(example_kb, "heuristic", render=False)
    assert hashed == []


@pytest.mark.usefixtures("trust_at_once")
def test_failed_sources_keep_their_stat_and_are_retried(kb: KnowledgeBase, hashed: list[str]) -> None:
    (kb.raw / "empty.md").write_text("   \n")
    (kb.raw / "good.md").write_text("# Good\n\nGood Corp employs 5 people.\n")
    report, _ = api.compile_kb(kb, "heuristic", render=False)
    assert list(report.failed) == ["empty.md"]
    assert all(file_stats(kb).values())
    hashed.clear()
    plan = plan_of(kb)
    assert plan.retry == ["empty.md"] and plan.unchanged == ["good.md"] and hashed == []


def test_trusted_signature_refuses_recent_and_future_stats(tmp_path: Path) -> None:
    path = tmp_path / "f.md"
    path.write_text("x")
    now = time.time_ns()
    assert trusted_signature(os.stat(path), now) is None  # just written
    assert trusted_signature(None, now) is None
    age(path)
    stat = os.stat(path)
    assert stat.st_mtime_ns < now - RACY_NS and trusted_signature(stat, now) is None  # an old mtime, but ctime is now
    old = os.stat_result((stat.st_mode, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0.0, 0.0, 0.0,
                          now - HOUR_NS, now - HOUR_NS, now - HOUR_NS))
    assert trusted_signature(old, now) == stat_signature(old) == f"1:{now - HOUR_NS}:{now - HOUR_NS}"
    recent = os.stat_result((*old[:10], 0.0, 0.0, 0.0, now - HOUR_NS, now - RACY_NS // 2, now - HOUR_NS))
    assert trusted_signature(recent, now) is None  # mtime within the margin
    future = os.stat_result((*old[:10], 0.0, 0.0, 0.0, now - HOUR_NS, now + HOUR_NS, now - HOUR_NS))
    assert trusted_signature(future, now) is None


def test_compile_reuses_the_planned_states(example_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = compiler.load_source_states

    def counting(store: Any, only: Any = None) -> Any:
        calls.append(1)
        return real(store, only)

    monkeypatch.setattr(compiler, "load_source_states", counting)
    api.compile_kb(example_kb, "heuristic", render=False)  # plan() then compile(plan)
    assert len(calls) == 1
    config = example_kb.config()
    with api.open_store(example_kb) as store:
        Compiler(example_kb, store, make_extractor(config, "heuristic"), config).compile()  # no plan: loads them
    assert len(calls) == 2


def test_an_edited_source_sets_only_the_columns_that_can_change(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every SET of a string column costs Kuzu a rewrite of that column's node group at the next
    checkpoint (kg/compile/pipeline.py): slug never changes, the title only with the first heading."""
    from kg.graph.store import Store

    path = kb.raw / "a.md"
    path.write_text("# A\n\nAlpha Corp employs 100 people.\n")
    api.compile_kb(kb, "heuristic", render=False)
    updates: list[dict[str, Any]] = []
    real = Store.write
    monkeypatch.setattr(Store, "write", lambda self, batch: (updates.extend(batch.updates.get("Source", [])),
                                                             real(self, batch))[1])
    path.write_text("# A\n\nAlpha Corp employs 200 people.\n")
    api.compile_kb(kb, "heuristic", render=False)
    assert len(updates) == 1 and not {"slug", "title", "ingested_at"} & set(updates[0]) and updates[0]["sha256"]
    path.write_text("# Alpha\n\nAlpha Corp employs 300 people.\n")
    updates.clear()
    api.compile_kb(kb, "heuristic", render=False)
    assert len(updates) == 1 and updates[0]["title"] == "Alpha" and "slug" not in updates[0]
    assert api.cypher(kb, "MATCH (s:Source) RETURN s.title AS t, s.slug AS slug") == [{"t": "Alpha", "slug": "a"}]


def test_source_states_read_like_the_source_rows(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb, "heuristic", render=False)
    (example_kb.raw / "eniac.md").unlink()
    api.compile_kb(example_kb, "heuristic", render=False)  # a removed row among the live ones
    rows = api.cypher(example_kb, "MATCH (s:Source) RETURN s.path AS path, s.sha256 AS sha256, s.status AS status, "
                                  "s.slug AS slug, s.file_stat AS file_stat, s.title AS title")
    with api.open_store(example_kb, read_only=True) as store:
        states = load_source_states(store)
        assert dict(states) == {row["path"]: compiler.SourceState(**row) for row in rows}
        assert states["eniac.md"].status == "removed" and states.value("status", states.rows["eniac.md"]) == "removed"
        assert "nothing.md" not in states and states.get("nothing.md") is None and len(states) == len(rows)
    assert plan_compile(example_kb.raw).new == plan_compile(example_kb.raw, compiler.SourceStates()).new != []

"""The parts under `kg serve`: evidence spans cut into marked segments (a property), source parts,
read workers that keep the graph open yet let writers in (kg/graph/kept.py), and rendering."""

from __future__ import annotations

import itertools
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg import api
from kg.api.marks import Parts, Span, segments
from kg.errors import ConfigError, DatabaseLocked
from kg.graph import kept
from kg.graph.store import Store
from kg.kb import KnowledgeBase
from kg.serve.vectors import Vectors, VectorsNotReady
from kg.serve.web.render import link, markdown, pager, source_url

TEXT = st.text(alphabet="ab \n", min_size=0, max_size=60)


@st.composite
def text_and_spans(draw: st.DrawFn) -> tuple[str, int, list[Span]]:
    text = draw(TEXT)
    offset = draw(st.integers(0, 20))
    spans = []
    for n in range(draw(st.integers(0, 6))):
        a = draw(st.integers(0, offset + len(text) + 5))
        b = draw(st.integers(a, offset + len(text) + 10))
        spans.append(Span(f"c{n % 4}", a, b))
    return text, offset, spans


@given(text_and_spans())
def test_segments_cover_the_text_and_know_their_claims(case: tuple[str, int, list[Span]]) -> None:
    text, offset, spans = case
    cut = segments(text, offset, spans)
    assert "".join(s.text for s in cut) == text and all(s.text for s in cut)
    at = offset
    for seg in cut:
        for pos in range(at, at + len(seg.text)):
            expected = {s.claim for s in spans if s.start <= pos < s.end}
            assert set(seg.claims) == expected
        for claim in seg.starts:
            assert any(s.claim == claim and max(s.start, offset) == at and s.start == at for s in spans)
        at += len(seg.text)


@given(st.text(alphabet="xy\n", max_size=400), st.integers(10, 60))
def test_parts_cut_a_text_in_order_and_find_each_offset(text: str, size: int) -> None:
    parts = Parts.of(text, size)
    ranges = [parts.range(n, len(text)) for n in range(1, len(parts) + 1)]
    assert ranges[0][0] == 0 and ranges[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    assert all(end - start <= size for start, end in ranges)
    for pos in range(len(text)):
        start, end = ranges[parts.part_of(pos) - 1]
        assert start <= pos < end


def test_links_pager_and_markdown_escape() -> None:
    assert link("sources/notes-eniac#^c123") == "/sources/notes-eniac#c123"
    assert link("entities/a b/../x") == "/entities/a%20b/../x"
    assert source_url("s", "c1", 10) == "/sources/s#c1" and source_url("s", "c1", 90_000) == "/sources/s?at=90000#c1"
    assert pager(0, 1, 50) == {"page": 1, "pages": 1, "prev": None, "next": None, "first": 0, "last": 0}
    assert pager(120, 2, 50) == {"page": 2, "pages": 3, "prev": 1, "next": 3, "first": 51, "last": 100}
    html = str(markdown("Said [[sources/eniac#^c1|ENIAC *1946*]] <script>x</script> [a](javascript:alert(1))"))
    assert '<a href="/sources/eniac#c1">ENIAC *1946*</a>' in html and "<script>" not in html
    assert 'href="javascript' not in html


def test_a_kept_database_is_reused_until_its_files_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[int] = []
    graph = tmp_path / "graph.kuzu"
    graph.write_bytes(b"one")

    def open_new() -> tuple[object, object]:
        opened.append(1)
        return _Closable(), _Closable()

    monkeypatch.setitem(kept._keeping, "on", True)
    try:
        first = kept.take(graph, open_new)
        assert kept.take(graph, open_new) is first and len(opened) == 1 and kept.held() == [graph]
        graph.write_bytes(b"two, longer")  # kg compact or kg doctor put another file in place
        second = kept.take(graph, open_new)
        assert second is not first and len(opened) == 2 and first.db.closed  # type: ignore[attr-defined]
    finally:
        kept.release()
    assert kept.held() == []


class _Closable:
    closed = False

    def close(self) -> None:
        self.closed = True


def test_a_compile_gets_in_beside_a_reader_that_keeps_the_graph_open(fresh: KnowledgeBase) -> None:
    with api.reader(fresh, served=True, size=2) as pool:
        assert pool.call(api.search_kb, fresh, "ENIAC", "bm25", 3).hits  # the worker now holds the graph open
        (fresh.raw / "zuse.md").write_text("# Zuse Z3\n\nThe Zuse Z3 was completed in 1941 in Berlin.\n", encoding="utf-8")
        started = time.monotonic()
        report, _ = api.compile_kb(fresh, "heuristic")  # waits for the worker to let go (kg/graph/kept.py)
        assert report.compiled == 1 and time.monotonic() - started < 30
        hits = pool.call(api.search_kb, fresh, "Zuse Z3 Berlin", "bm25", 3).hits
        assert any("Zuse" in h.text for h in hits)


def test_a_writer_waits_for_readers_then_says_so(fresh: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that reads the graph and never looks for writers (another program) holds it: a
    writer waits WRITER_WAIT_SECONDS, then gets DatabaseLocked; once it is closed, the writer gets in."""
    import kg.graph.store as store_module

    monkeypatch.setattr(store_module, "WRITER_WAIT_SECONDS", 1.0)
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from kg.graph.store import Store
        store = Store(Path({str(fresh.db_path)!r}), read_only=True)
        print("ready", flush=True)
        sys.stdin.read()
        store.close()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        started = time.monotonic()
        with pytest.raises(DatabaseLocked, match="open in another process"):
            Store(fresh.db_path)
        assert time.monotonic() - started >= 1.0
        assert not (fresh.state / "lock.json").exists()  # a writer that gave up leaves no lock behind
    finally:
        holder.communicate("", timeout=60)
    Store(fresh.db_path).close()


class _SlowPool:
    """A ReadPool stand-in: prepare_vectors calls wait until released (or fail), each recorded."""

    def __init__(self, fail: bool = False) -> None:
        import threading

        self.calls: list[tuple[Any, ...]] = []
        self.called, self.release = threading.Event(), threading.Event()
        self.fail = fail

    def call(self, fn: Any, *args: Any, timeout_seconds: float | None = None, progress: Any = None) -> int:
        self.calls.append((fn.__name__, args, timeout_seconds))
        progress(10, 40, 10)
        self.called.set()
        self.release.wait(10)
        if self.fail:
            raise ConfigError("no model here")
        return 40


def _settled(vectors: Any) -> None:
    assert vectors._running is not None
    vectors._running.join(10)


def test_served_vectors_are_embedded_once_in_the_background(tmp_path: Path) -> None:
    """Until the vectors cover the graph a default search runs as BM25 and one asking for vectors
    gets VectorsNotReady (503) saying how far the embedding is; a writer's change starts it again."""
    kb = KnowledgeBase(tmp_path)
    pool = _SlowPool()
    vectors = Vectors(kb, pool, "hashing", "hybrid")
    assert vectors.needed
    assert vectors.mode_for(None) == "bm25" and vectors.mode_for("bm25") == "bm25"
    assert pool.called.wait(10)
    with pytest.raises(VectorsNotReady, match="10 of 40 texts"):
        vectors.mode_for("vector")
    assert len(pool.calls) == 1 and pool.calls[0][0] == "prepare_vectors" and pool.calls[0][2] >= 600  # once, not per request
    pool.release.set()
    _settled(vectors)
    assert vectors.mode_for(None) == "hybrid" and vectors.mode_for("vector") == "vector"
    kb.db_path.parent.mkdir(parents=True, exist_ok=True)
    kb.db_path.write_bytes(b"changed")  # as a compile beside the server changes the graph's files
    assert vectors.mode_for(None) == "bm25"
    _settled(vectors)
    assert len(pool.calls) == 2 and vectors.mode_for(None) == "hybrid"
    assert Vectors(kb, pool, "hashing", "bm25").mode_for(None) == "bm25"  # kg serve --mode bm25: no embedding


def test_served_vectors_that_fail_are_not_tried_again_until_the_graph_changes(tmp_path: Path) -> None:
    kb = KnowledgeBase(tmp_path)
    pool = _SlowPool(fail=True)
    pool.release.set()
    vectors = Vectors(kb, pool, "minilm", "hybrid")
    vectors.start()
    _settled(vectors)
    assert vectors.mode_for(None) == "bm25"
    with pytest.raises(VectorsNotReady, match="no model here"):
        vectors.mode_for("hybrid")
    assert len(pool.calls) == 1


@pytest.mark.parametrize("server", ["serve", "mcp"])
def test_an_unknown_embedder_is_refused_before_the_server_starts(kb: KnowledgeBase, server: str) -> None:
    """It used to start and answer every vector search with 'still embedding ... the last attempt failed'."""
    from kg.serve.mcp import build_server
    from kg.serve.web.app import build_app
    from kg.serve.web.site import ServeOptions

    with pytest.raises(ConfigError, match="Unknown embedder 'bogus'"):
        if server == "serve":
            build_app(kb, ServeOptions(port=0, embedder="bogus"))
        else:
            build_server(kb, embedder="bogus")


# one wait for a writer, for every face (kg/serve/reading.py) ------------------------------------


class LockedFor:
    """A read pool whose graph a writer holds for the first `times` calls."""

    def __init__(self, times: int) -> None:
        self.times, self.calls = times, 0

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls <= self.times:
            raise DatabaseLocked("kg compile holds the knowledge base; try again in a moment.")
        return fn(*args, **kwargs)


def test_a_read_waits_for_a_writer_as_long_as_its_face_allows() -> None:
    from kg.serve.reading import PAGE_PATIENCE, RETRY_SECONDS, TOOL_PATIENCE, patient_read

    assert PAGE_PATIENCE < TOOL_PATIENCE
    pool = LockedFor(2)
    assert patient_read(pool, 1.0, sum, [1, 2]) == 3 and pool.calls == 3  # the writer finished meanwhile
    started = time.monotonic()
    with pytest.raises(DatabaseLocked):
        patient_read(LockedFor(10**6), 3 * RETRY_SECONDS, sum, [1])  # still held: the writer's message
    assert 3 * RETRY_SECONDS <= time.monotonic() - started < 3 * RETRY_SECONDS + 2.0
    assert patient_read(None, 1.0, sum, [4]) == 4  # no pool (tests, scripts): in this process

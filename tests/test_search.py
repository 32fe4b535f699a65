"""Search: chunks in the graph, FTS indexes rebuilt by bulk compiles or the first search, BM25 / vector / hybrid, expand."""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.embed import HashingEmbedder
from kg.graph.fts import FTS_INDEXES, SearchIndexMissing, ensure_indexes, existing_indexes
from kg.graph.store import Store
from kg.kb import KnowledgeBase
from kg.retrieve.search import CLAIM_WEIGHT, Hit, Searcher, by_source_first, fts_query, page_of, rrf
from tests.conftest import EXAMPLES


@pytest.fixture
def store(compiled: KnowledgeBase) -> Iterator[Store]:
    with Store(compiled.db_path, read_only=True) as s:
        yield s


def test_compile_writes_exact_chunks(compiled: KnowledgeBase, store: Store) -> None:
    rows = store.query("MATCH (s:Source)-[:HAS_CHUNK]->(k:Chunk) RETURN s.path AS path, k.text AS text, "
                       "k.char_start AS a, k.char_end AS b, k.sha256 AS sha, s.sha256 AS ssha")
    assert {r["path"] for r in rows} == {p.name for p in EXAMPLES.iterdir()}
    for r in rows:
        text = (compiled.raw / r["path"]).read_text(encoding="utf-8")
        assert text[r["a"] : r["b"]] == r["text"] and r["sha"] == r["ssha"]


def test_a_small_compile_leaves_the_indexes_to_the_first_search_and_a_bulk_one_builds_them(kb: KnowledgeBase) -> None:
    names = {name for name, _ in FTS_INDEXES.values()}
    (kb.raw / "a.md").write_text("# Zebra\n\nThe zebra grazes on the savanna.\n")
    api.compile_kb(kb, "heuristic")
    with Store(kb.db_path, read_only=True) as store:
        assert not names & existing_indexes(store)
        with pytest.raises(SearchIndexMissing, match="kg search"):
            Searcher(store).search("savanna", "bm25")
    assert api.search_kb(kb, "savanna", "bm25").hits  # builds them
    assert not ensure_indexes(kb.db_path)
    with Store(kb.db_path, read_only=True) as store:
        assert names <= existing_indexes(store)
    (kb.state.parent / "kg.toml").write_text("[compile]\nindex_rebuild_sources = 2\n")
    (kb.raw / "b.md").write_text("# Okapi\n\nThe okapi lives in the rainforest.\n")
    (kb.raw / "c.md").write_text("# Tapir\n\nThe tapir swims in rivers.\n")
    api.compile_kb(kb, "heuristic")  # two sources: a bulk change for this configuration
    with Store(kb.db_path, read_only=True) as store:
        assert names <= existing_indexes(store)
        assert {h.source_path for h in Searcher(store).search("rainforest", "bm25").hits} == {"b.md"}


def test_bm25_finds_claims_and_chunks_with_citations(store: Store) -> None:
    result = Searcher(store).search("vacuum tubes", "bm25", k=10)
    kinds = {h.kind for h in result.hits}
    assert {"claim", "chunk"} <= kinds
    claim = next(h for h in result.hits if h.kind == "claim")
    assert "vacuum tube" in claim.text.lower()
    assert claim.citation.startswith("[[sources/") and f"#^{claim.id}|" in claim.citation
    assert claim.char_start is not None and claim.page.startswith("entities/")


def test_punctuation_and_empty_queries() -> None:
    assert fts_query("ENIAC's (1946) \"tubes\"!") == "eniac s 1946 tubes zzcmgj"
    assert fts_query("?!") == ""


def test_vector_and_hybrid_are_deterministic(store: Store) -> None:
    searcher = Searcher(store, HashingEmbedder())
    first = searcher.search("stored program computer", "hybrid", k=8).as_dict()
    again = Searcher(store, HashingEmbedder()).search("stored program computer", "hybrid", k=8).as_dict()
    assert first == again and len(first["hits"]) == 8
    assert all("bm25" in h["ranks"] or "vector" in h["ranks"] for h in first["hits"])
    vector = searcher.search("stored program computer", "vector", k=3)
    assert len(vector.hits) == 3 and vector.hits[0].score >= vector.hits[-1].score


def test_rrf_rewards_agreement() -> None:
    fused = rrf([[("claim", "a"), ("claim", "b")], [("claim", "b"), ("claim", "c")]])
    assert fused[0][0] == ("claim", "b")


def test_expand_walks_entities(store: Store) -> None:
    result = Searcher(store).search("ENIAC vacuum tubes", "bm25", k=3, expand=True)
    assert result.expanded and all(h.via for h in result.expanded)
    ids = {(h.kind, h.id) for h in result.hits}
    assert not any((h.kind, h.id) in ids for h in result.expanded)


def test_changed_source_replaces_chunks_and_index(kb: KnowledgeBase) -> None:
    (kb.raw / "a.md").write_text("# Zebra\n\nThe zebra grazes on the savanna.\n")
    api.compile_kb(kb, "heuristic")
    (kb.raw / "a.md").write_text("# Okapi\n\nThe okapi lives in the rainforest.\n")
    api.compile_kb(kb, "heuristic")
    ensure_indexes(kb.db_path)
    with Store(kb.db_path, read_only=True) as store:
        assert store.query("MATCH (k:Chunk) RETURN count(k) AS n")[0]["n"] == 1
        searcher = Searcher(store)
        assert searcher.search("savanna", "bm25").hits == []
        assert {h.kind for h in searcher.search("rainforest", "bm25").hits} >= {"chunk"}
    (kb.raw / "a.md").unlink()
    api.compile_kb(kb, "heuristic")
    ensure_indexes(kb.db_path)
    with Store(kb.db_path, read_only=True) as store:
        assert Searcher(store).search("rainforest", "bm25").hits == []


def test_batched_inserts_are_indexed_correctly(kb: KnowledgeBase) -> None:
    """Kuzu 0.11.3 mis-indexes multi-row inserts; compile drops the indexes, a rebuild fixes it."""
    (kb.raw / "one.md").write_text("# Alpha\n\nAlpha machines used punched cards.\n")
    (kb.raw / "two.md").write_text("# Beta\n\nBeta machines used magnetic drums.\n")
    api.compile_kb(kb, "heuristic")
    ensure_indexes(kb.db_path)
    with Store(kb.db_path, read_only=True) as store:
        hits = Searcher(store).search("magnetic drums", "bm25").hits
        assert hits and all(h.source_path == "two.md" for h in hits)


def test_cli_search_json_and_text(compiled: KnowledgeBase) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["search", "vacuum tubes", "--kb", str(compiled.root), "--embedder", "hashing",
                                 "--mode", "hybrid", "--k", "4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["mode"] == "hybrid" and len(data["hits"]) == 4 and data["embedder"] == "hashing-v1"
    text = runner.invoke(app, ["search", "vacuum tubes", "--kb", str(compiled.root), "--mode", "bm25", "--expand"])
    assert text.exit_code == 0 and "[[sources/" in text.stdout and "via" in text.stdout
    bad = runner.invoke(app, ["search", "x", "--kb", str(compiled.root), "--mode", "fuzzy"])
    assert bad.exit_code == 1 and "Unknown search mode" in bad.output
    blank = runner.invoke(app, ["search", "  ", "--kb", str(compiled.root), "--mode", "bm25"])
    assert blank.exit_code == 1 and "search text is empty" in blank.output  # as kg mcp and /api/search refuse it


def test_vectors_are_cached_once_per_text(compiled: KnowledgeBase) -> None:
    api.search_kb(compiled, "tubes", "vector", 3, embedder="hashing")
    from kg.embed import VectorCache

    cache = VectorCache(compiled.state / "vectors.sqlite")
    embedder = HashingEmbedder(cache)
    with Store(compiled.db_path, read_only=True) as store:
        Searcher(store, embedder).search("a query never seen before", "vector", 3)
    cache.close()
    assert embedder.embedded == 0  # the corpus came from the cache (queries bypass it)


def test_minilm_hybrid_finds_paraphrase(compiled: KnowledgeBase) -> None:
    pytest.importorskip("sentence_transformers")
    result = api.search_kb(compiled, "first machine that kept its program in memory", "vector", 5, embedder="minilm")
    assert any("stored-program" in h.text.lower() or "stored program" in h.text.lower() for h in result.hits)


def test_missing_indexes_are_built_on_first_search(kb: KnowledgeBase) -> None:
    (kb.raw / "a.md").write_text("# Zebra\n\nThe zebra grazes on the savanna.\n")
    api.compile_kb(kb, "heuristic")
    ensure_indexes(kb.db_path)
    with Store(kb.db_path) as store:  # dropped by hand, then reopened: a replayed drop must stay dropped
        for table, (name, _) in FTS_INDEXES.items():
            store.query(f"CALL DROP_FTS_INDEX('{table}', '{name}')")
    assert api.search_kb(kb, "savanna", "bm25").hits
    answer = api.query_kb(kb, "Where does the zebra graze?", mode="bm25").answer
    assert answer.claims


def test_a_crash_after_the_indexes_were_dropped_leaves_search_working(kb: KnowledgeBase) -> None:
    """Replayed from the WAL, Kuzu 0.11.3 half-restores a dropped FTS index ("already exists" on
    every later rebuild), so index changes are checkpointed at once."""
    (kb.raw / "a.md").write_text("# Zebra\n\nThe zebra grazes on the savanna.\n")
    api.compile_kb(kb, "heuristic")
    ensure_indexes(kb.db_path)
    crash = ("import os, pathlib\nfrom kg.graph.store import Store\nfrom kg.graph.fts import drop_indexes\n"
             f"store = Store(pathlib.Path({str(kb.db_path)!r}))\ndrop_indexes(store, ('Claim', 'Chunk'))\nos._exit(0)\n")
    subprocess.run([sys.executable, "-c", crash], check=True)  # killed before closing the database
    (kb.state / "lock.json").unlink()  # as a stale lock of a dead process is
    assert api.search_kb(kb, "savanna", "bm25").hits


def test_a_first_vector_search_reports_its_embedding(fresh: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    import kg.retrieve.search

    (fresh.state / "vectors.sqlite").unlink(missing_ok=True)
    monkeypatch.setattr(kg.retrieve.search, "VECTOR_SLICE", 50)
    calls: list[tuple[int, int, int]] = []
    api.search_kb(fresh, "tubes", "vector", 3, embedder="hashing", progress=lambda *step: calls.append(step))
    total = calls[-1][1]
    assert total > 100 and [done for done, _, _ in calls] == [*range(50, total, 50), total]
    assert calls[-1][2] == total  # every text embedded: nothing was cached
    calls.clear()
    api.search_kb(fresh, "tubes", "vector", 3, embedder="hashing", progress=lambda *step: calls.append(step))
    assert calls and all(embedded == 0 for _, _, embedded in calls)  # the second time, all from the cache
    (fresh.state / "vectors.sqlite").unlink()
    shown = CliRunner().invoke(app, ["search", "tubes", "--mode", "vector", "--embedder", "hashing", "--kb", str(fresh.root)])
    assert shown.exit_code == 0 and f"Embedding {total:,} claims and chunks" in shown.output
    quiet = CliRunner().invoke(app, ["search", "tubes", "--mode", "vector", "--embedder", "hashing", "--kb", str(fresh.root)])
    assert quiet.exit_code == 0 and "Embedding" not in quiet.output


def test_the_search_that_rebuilds_the_indexes_says_so(kb: KnowledgeBase) -> None:
    (kb.raw / "a.md").write_text("# Zebra\n\nThe zebra grazes on the savanna.\n")
    api.compile_kb(kb, "heuristic")  # a small compile: the indexes are left to the first search
    runner = CliRunner()
    first = runner.invoke(app, ["search", "savanna", "--mode", "bm25", "--kb", str(kb.root)])
    assert first.exit_code == 0 and "Rebuilding the search indexes" in first.output and "savanna" in first.output
    again = runner.invoke(app, ["query", "Where does the zebra graze?", "--mode", "bm25", "--kb", str(kb.root)])
    assert again.exit_code == 0 and "Rebuilding" not in again.output and "zebra" in again.output.lower()
    (kb.raw / "a.md").write_text("# Zebra\n\nThe zebra grazes on the savanna at dawn.\n")
    api.compile_kb(kb, "heuristic")
    asked = runner.invoke(app, ["query", "Where does the zebra graze?", "--mode", "bm25", "--kb", str(kb.root)])
    assert asked.exit_code == 0 and "Rebuilding the search indexes" in asked.output


def test_expand_follows_a_filed_answer_to_its_entities(fresh: KnowledgeBase) -> None:
    """An answer page among the top hits is expanded through the entities it is about (its query
    ordered by the node itself, which Kuzu refuses, until this was fixed)."""
    api.query_kb(fresh, "How many vacuum tubes did ENIAC use?", save=True, offline=True, mode="bm25")
    result = api.search_kb(fresh, "vacuum tubes ENIAC use", "bm25", k=5, expand=True)
    assert any(h.kind == "page" for h in result.hits)
    assert result.expanded and all(h.via for h in result.expanded)


def test_claim_entities_within_a_query_do_not_load_every_claim(store: Store) -> None:
    # a one-question `kg query` process must not read every claim of a large graph: only a second query does
    searcher = Searcher(store)
    hits = searcher.search("How many vacuum tubes did ENIAC use?", "bm25", 5).hits
    claims = [h.id for h in hits if h.kind == "claim"]
    about, sources = searcher.claim_entities(claims)
    assert claims and searcher._meta is None
    assert all(about[c] and sources[c][0] for c in claims) and about[claims[0]][0][1] is True  # subject first
    searcher.search("Who designed Colossus?", "bm25", 5)
    assert searcher._meta is not None and searcher.claim_entities(claims) == (about, sources)


def test_vector_search_reads_a_claim_after_its_subject_when_the_sentence_does_not_name_it(store: Store) -> None:
    keys, texts = Searcher(store, HashingEmbedder()).corpus()
    text_of = dict(zip(keys, texts, strict=True))
    [weight] = store.query("MATCH (c:Claim) WHERE c.text STARTS WITH 'It could perform about 5,000' RETURN c.id AS id")
    assert text_of[("claim", weight["id"])].startswith("ENIAC: It could perform about 5,000")  # the claim's text stays the sentence
    named = store.query("MATCH (c:Claim) WHERE c.text STARTS WITH 'ENIAC was' RETURN c.id AS id, c.text AS text")
    assert named and all(text_of[("claim", r["id"])] == r["text"] for r in named)


def _hit(kind: str, ident: str, source: str) -> Hit:
    return Hit(kind, ident, ident, 0.0, source_path=source)


def test_each_sources_best_hit_comes_before_any_second_one() -> None:
    hits = [_hit("chunk", "k1", "a.md"), _hit("claim", "c1", "a.md"), _hit("claim", "c2", "a.md"),
            _hit("claim", "c3", "b.md"), _hit("page", "p1", ""), _hit("page", "p2", ""), _hit("chunk", "k2", "b.md")]
    assert [h.id for h in by_source_first(hits)] == ["k1", "c3", "p1", "p2", "c1", "c2", "k2"]
    assert by_source_first([]) == []


@given(st.lists(st.sampled_from(["a.md", "b.md", "c.md", "d.md", ""]), max_size=12))
def test_by_source_first_is_a_stable_permutation_with_distinct_sources_first(sources: list[str]) -> None:
    hits = [_hit("claim" if s else "page", f"h{i}", s) for i, s in enumerate(sources)]
    ordered = by_source_first(hits)
    place = [h.source_path or h.id for h in ordered]
    distinct = len(set(h.source_path or h.id for h in hits))
    assert sorted(h.id for h in ordered) == sorted(h.id for h in hits)  # nothing lost, nothing added
    assert len(set(place[:distinct])) == distinct  # every source once before any twice
    index = {h.id: i for i, h in enumerate(hits)}
    firsts, seconds = ordered[:distinct], ordered[distinct:]
    for part in (firsts, seconds):  # score order kept within each tier
        assert [index[h.id] for h in part] == sorted(index[h.id] for h in part)
    assert [h.id for h in by_source_first(ordered)] == [h.id for h in ordered]  # idempotent


def test_one_note_does_not_fill_the_top_hits_while_another_matches(kb: KnowledgeBase) -> None:
    (kb.raw / "zebra.md").write_text("# Zebra\n\nThe zebra grazes on the savanna. The zebra herd crosses the savanna. "
                                      "A zebra foal stays near the savanna river.\n")
    (kb.raw / "lion.md").write_text("# Lion\n\nThe lion rests on the savanna at noon.\n")
    api.compile_kb(kb, "heuristic")
    ensure_indexes(kb.db_path)
    with Store(kb.db_path, read_only=True) as store:
        searcher = Searcher(store)
        assert [h.source_path for h in searcher.search("zebra savanna", "bm25", k=2).hits] == ["zebra.md", "lion.md"]
        by_score = searcher.search("zebra savanna", "bm25", k=2, by_source=False).hits
        assert [h.source_path for h in by_score] == ["zebra.md", "zebra.md"]  # what kg query's navigator reads
        scores = dict(searcher.bm25_keys("zebra savanna", 5))
        best = {kind: max(s for (k, _), s in scores.items() if k == kind) for kind in ("claim", "chunk")}
        assert best == {"chunk": 1.0, "claim": CLAIM_WEIGHT}


def test_numbers_are_found_by_search(kb: KnowledgeBase) -> None:
    """Kuzu's index drops digits ("1979" found nothing, "GPT-4" was "GPT"): numbers are indexed spelt in letters."""
    (kb.raw / "a.md").write_text("# Ada\n\nThe engine was designed in 1837 by Charles Babbage.\n", encoding="utf-8")
    (kb.raw / "b.md").write_text("# Bits\n\nThe 8086 ran at 5 MHz; the 80286 followed in 1982.\n", encoding="utf-8")
    (kb.raw / "c.md").write_text("# Models\n\nGPT4 and GPT3 are models; the engine ran in 1982 too.\n", encoding="utf-8")
    api.compile_kb(kb, "heuristic")
    assert {h.source_path for h in api.search_kb(kb, "1837", "bm25").hits} == {"a.md"}
    assert {h.source_path for h in api.search_kb(kb, "8086", "bm25").hits} == {"b.md"}
    assert {h.source_path for h in api.search_kb(kb, "1982", "bm25").hits} == {"b.md", "c.md"}
    assert api.search_kb(kb, "gpt4", "bm25").hits[0].source_path == "c.md"
    assert api.search_kb(kb, "engine 1837", "bm25").hits[0].source_path == "a.md"


@given(st.lists(st.text(alphabet="0123456789ab１９", min_size=1, max_size=6), min_size=1, max_size=4))
def test_a_numbers_spelling_is_letters_and_the_same_in_text_and_query(tokens: list[str]) -> None:
    from kg.text import index_terms, number_terms

    text = " ".join(tokens)
    spelt = number_terms(tokens)
    assert all(t.isalpha() and t.startswith("zz") for t in spelt)
    # two numbers share a spelling only when they are one number ('9' and the full-width '９')
    numeric = sorted({unicodedata.normalize("NFKC", t) for t in tokens if any(c.isdecimal() for c in t)})
    assert len(set(number_terms(numeric))) == len(numeric)
    assert set(spelt) <= set(index_terms(text).split())  # what a query asks for, the index holds
    assert set(spelt) <= set(fts_query(text).split())
    assert len(spelt) == sum(any(c.isdecimal() for c in t) for t in tokens)


@given(total=st.integers(0, 60), seeds=st.lists(st.integers(0, 3), min_size=1, max_size=8),
       window=st.integers(1, 12), limits=st.lists(st.integers(1, 9), min_size=1, max_size=12))
def test_pages_of_a_search_neither_repeat_nor_skip(total: int, seeds: list[int], window: int, limits: list[int]) -> None:
    """Whatever the ranking of k hits does as k grows (here: shuffled by k), paging on with next offsets
    gives each hit at most once, pages are slices of one order, and the first page is search(window)."""
    universe = [Hit("chunk", f"c{i:02d}", "", 0.0) for i in range(total)]

    def search(k: int) -> list[Hit]:  # a ranking whose order changes with k, as fusion and by_source_first do
        seed = seeds[k % len(seeds)]
        return sorted(universe, key=lambda h: (int(h.id[1:]) * (seed + 1)) % 7 + int(h.id[1:]) / 100)[:k]

    whole, _ = page_of(search, 0, max(total, 1), window)
    first, _ = page_of(search, 0, window, window)
    assert first == search(window)
    assert len({h.id for h in whole}) == len(whole) == total  # every hit, once
    offset, shown, more = 0, [], True
    for limit in limits * 20:
        page, more = page_of(search, offset, limit, window)
        assert page == whole[offset : offset + limit]
        shown.extend(page)
        offset += len(page)
        if not more:
            break
    assert [h.id for h in shown] == [h.id for h in whole[: len(shown)]]
    assert more or offset == total  # no more only when every hit was shown

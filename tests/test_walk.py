"""The graph walk (kg.walk) and its use by the navigator, on a four-source knowledge base.

The two-hop question names the Analytical Engine and asks where its designer was born: the
answer is in charles-babbage.md, which shares no name with the question and is reached only
through the Analytical Engine's source mentioning Charles Babbage. grace-hopper.md is the
lexical distractor ("born", "city", "designed").
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg import api
from kg.graph.fts import ensure_indexes
from kg.graph.store import Store
from kg.kb import KnowledgeBase, init
from kg.maintain.entities import merge
from kg.retrieve import walk as walk_module
from kg.retrieve.navigate import Navigator
from kg.retrieve.walk import (
    GraphWalk,
    WalkGraph,
    WalkSettings,
    load_walk_graph,
    question_ngrams,
    sorted_quantile,
)

SOURCES = {
    "analytical-engine.md": "# Analytical Engine\n\nThe Analytical Engine was a mechanical general-purpose computer "
                            "designed by Charles Babbage. It was first described in 1837.\n",
    "charles-babbage.md": "# Charles Babbage\n\nCharles Babbage was an English mathematician. He was born in "
                          "Walworth, a district of London, in 1791.\n",
    "jacquard-loom.md": "# Jacquard Loom\n\nThe Jacquard Loom was invented by Joseph Marie Jacquard in Lyon. Punched "
                        "cards controlled the weaving of the pattern.\n",
    "grace-hopper.md": "# Grace Hopper\n\nGrace Hopper was born in New York City. She was a pioneer of computer "
                       "programming and designed the first compiler.\n",
}
TWO_HOP = "In which city was the designer of the Analytical Engine born?"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    kb, _ = init(tmp_path_factory.mktemp("walk") / "kb")
    for name, text in SOURCES.items():
        (kb.raw / name).write_text(text, encoding="utf-8")
    api.compile_kb(kb, "heuristic")
    ensure_indexes(kb.db_path)
    return kb


@pytest.fixture
def tiny_copy(tmp_path: Path, tiny: KnowledgeBase) -> KnowledgeBase:
    shutil.copytree(tiny.root, tmp_path / "kb")
    return KnowledgeBase(tmp_path / "kb")


def test_two_hop_question_reaches_the_bridge_source_and_not_the_lexical_distractor(tiny: KnowledgeBase) -> None:
    with Store(tiny.db_path, read_only=True) as store:
        result = GraphWalk(store).walk(TWO_HOP)
    assert result.source_paths[:2] == ["analytical-engine.md", "charles-babbage.md"]
    assert "grace-hopper.md" not in result.source_paths and "jacquard-loom.md" not in result.source_paths
    assert result.linked_entities.keys() == {"analytical-engine"}
    assert result.linked_sources.keys() == {"analytical-engine.md"}  # by its title
    assert {"charles-babbage", "walworth"} <= set(result.entity_ids)  # reached, not named
    masses = [mass for _, mass in result.sources]
    assert masses == sorted(masses, reverse=True) and all(m > 0 for m in masses)


@pytest.mark.parametrize("question", ["What is it?", "zebra quantum chromodynamics", "", "?!"])
def test_question_with_no_linked_name_gives_an_empty_ranking(tiny: KnowledgeBase, question: str) -> None:
    with Store(tiny.db_path, read_only=True) as store:
        result = GraphWalk(store).walk(question)
    assert result.sources == [] and result.entities == []
    assert result.linked_entities == {} and result.linked_sources == {}


def test_a_source_prior_alone_starts_the_walk(tiny: KnowledgeBase) -> None:
    with Store(tiny.db_path, read_only=True) as store:
        result = GraphWalk(store).walk("zebra quantum chromodynamics", source_prior={"analytical-engine.md": 1.0})
    assert result.source_paths[:2] == ["analytical-engine.md", "charles-babbage.md"]


def test_walk_is_deterministic_across_walkers(tiny: KnowledgeBase) -> None:
    with Store(tiny.db_path, read_only=True) as store:
        first = GraphWalk(store)
        a, b = first.walk(TWO_HOP), first.walk(TWO_HOP)
        c = GraphWalk(store).walk(TWO_HOP)
    assert a == b == c
    assert [path for path, _ in a.sources] == a.source_paths


def test_walk_follows_the_live_graph_after_an_edit_and_a_deletion(tiny_copy: KnowledgeBase) -> None:
    kb = tiny_copy
    with Store(kb.db_path, read_only=True) as store:
        assert "charles-babbage.md" in GraphWalk(store).walk("Where is Walworth?").source_paths
    # Walworth leaves the source (its claim is retracted, its RELATED edge must not count) and
    # the loom's source is deleted
    (kb.raw / "charles-babbage.md").write_text("# Charles Babbage\n\nCharles Babbage was an English mathematician.\n")
    (kb.raw / "jacquard-loom.md").unlink()
    api.compile_kb(kb, "heuristic")
    with Store(kb.db_path, read_only=True) as store:
        walk = GraphWalk(store)
        assert walk.walk("Where is Walworth?").source_paths == []
        assert "jacquard-loom.md" not in walk.walk("Who invented the Jacquard Loom?").source_paths
        assert walk.walk(TWO_HOP).source_paths[:2] == ["analytical-engine.md", "charles-babbage.md"]


def test_an_entity_merge_joins_the_graph(tiny_copy: KnowledgeBase) -> None:
    with Store(tiny_copy.db_path, read_only=True) as store:
        assert "charles-babbage.md" not in GraphWalk(store).walk("Tell me about Grace Hopper").source_paths
    with Store(tiny_copy.db_path) as store:
        merge(store, "New York City", "London")  # nonsense, but an ALIAS_OF edge all the same
    with Store(tiny_copy.db_path, read_only=True) as store:
        assert "charles-babbage.md" in GraphWalk(store).walk("Tell me about Grace Hopper").source_paths


def test_question_ngrams_are_longest_first_without_edge_punctuation() -> None:
    grams = question_ngrams('Who built "Colossus", the machine?', max_n=2)
    assert grams[0] == (0, 2, "Who built")
    assert (2, 3, "Colossus") in grams and (4, 5, "machine") in grams
    assert all(len(text.split()) == end - start for start, end, text in grams)


def test_navigator_ranks_the_bridge_source_above_the_distractor_and_reads_from_its_top_sources(tiny: KnowledgeBase) -> None:
    with Store(tiny.db_path, read_only=True) as store:
        navigator = Navigator(store)
        small = navigator.navigate(TWO_HOP, 120, "bm25")
        large = navigator.navigate(TWO_HOP, 2000, "bm25")
    assert small.source_paths[:2] == ["analytical-engine.md", "charles-babbage.md"]
    assert small.source_paths == large.source_paths  # the ranking does not depend on the budget
    assert 0 < small.tokens_read <= 120 and small.tokens_read == sum(r.tokens for r in small.reads)
    assert set(small.source_paths[:2]) <= set(small.sources_read)  # evidence for the ranking was read
    assert "entities/charles-babbage" in small.pages  # reached by the walk, not named
    assert any("Walworth" in claim.text for claim in small.claims)


# the graph saved between processes (kg/retrieve/walk.py cached_graph) ---------------------------------------------

def same_graph(a: WalkGraph, b: WalkGraph) -> bool:
    return (a.entity_ids == b.entity_ids and a.entity_names == b.entity_names and a.source_paths == b.source_paths
            and a.names.keys == b.names.keys and all(a.names.get(k) == b.names.get(k) for k in a.names.keys)
            and (a.degree == b.degree).all() and a.transition.same(b.transition) and a.edge_count == b.edge_count)


def test_a_saved_graph_is_the_graph_and_is_used_while_the_database_is_unchanged(
        tiny_copy: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tiny_copy.state / "walk-graph.npz"
    with Store(tiny_copy.db_path, read_only=True) as store:
        fresh, expected = load_walk_graph(store, WalkSettings()), GraphWalk(store).walk(TWO_HOP)
        saved = GraphWalk(store, cache=cache).graph  # read, then saved
        assert cache.is_file() and same_graph(saved, fresh)
        monkeypatch.setattr(walk_module, "load_walk_graph", lambda *_: pytest.fail("read again"))
        loaded = GraphWalk(store, cache=cache)
        assert same_graph(loaded.graph, fresh) and loaded.walk(TWO_HOP) == expected
    monkeypatch.undo()
    (tiny_copy.raw / "ada-lovelace.md").write_text("# Ada Lovelace\n\nAda Lovelace wrote about the Analytical Engine.\n")
    api.compile_kb(tiny_copy, "heuristic")  # the database files change: the saved graph is stale
    with Store(tiny_copy.db_path, read_only=True) as store:
        walked = GraphWalk(store, cache=cache)
        assert "ada-lovelace.md" in walked.graph.source_paths and same_graph(walked.graph, load_walk_graph(store, WalkSettings()))
        other = GraphWalk(store, WalkSettings(home_weight=1.0), cache=cache)  # other settings: not that graph either
        assert same_graph(other.graph, load_walk_graph(store, WalkSettings(home_weight=1.0)))


def test_a_damaged_saved_graph_is_read_around(tiny_copy: KnowledgeBase) -> None:
    cache = tiny_copy.state / "walk-graph.npz"
    cache.write_bytes(b"PK\x03\x04 not really a zip file")
    with Store(tiny_copy.db_path, read_only=True) as store:
        assert same_graph(GraphWalk(store, cache=cache).graph, load_walk_graph(store, WalkSettings()))
    assert cache.read_bytes()[:2] == b"PK" and cache.stat().st_size > 100  # saved again


def test_the_hub_degree_is_the_floor_or_the_top_share_of_a_large_graph() -> None:
    from types import SimpleNamespace

    import numpy as np

    walk = GraphWalk.__new__(GraphWalk)
    walk._hub_degree = {}
    walk._graph = SimpleNamespace(entity_ids=[f"e{i}" for i in range(2000)],  # type: ignore[assignment]
                                  degree=np.array([5] * 1990 + [400] * 10 + [1] * 50))  # then sources
    assert walk.hub_degree(100) == 400  # 10 of 2,000 entities (0.5%) have 400 neighbours: above 0.1%
    assert walk.hub_degree(100, share=0.01) == 100  # the top 1% starts at 5: the floor holds
    assert walk.hub_degree(500) == 500


@given(st.lists(st.integers(0, 10**6) | st.integers(0, 5), min_size=1, max_size=80),
       st.floats(0, 1) | st.sampled_from([0.999, 0.5, 1.0 - 1e-6]))
def test_sorted_quantile_is_numpys_quantile(degrees: list[int], q: float) -> None:
    """The hub threshold is np.quantile's float, bit for bit, without np.quantile (which loads numpy.ma)."""
    values = np.array(degrees, dtype=np.int64)
    assert sorted_quantile(np.sort(values), q) == float(np.quantile(values, q))

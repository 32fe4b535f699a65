"""EntityKey rows (kg/compile/entity_keys.py): kept equal to what loading every entity computes, and a
lazy index over them resolves names exactly as the loaded index does."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg import api
from kg.compile.entity_keys import COMPLETE, lazy_entity_index
from kg.compile.pipeline import load_entity_index
from kg.graph.store import Store
from kg.kb import KnowledgeBase
from kg.models import ExtractedEntity


def key_rows(store: Store) -> dict[str, str]:
    return {r["k"]: r["e"] for r in store.query("MATCH (k:EntityKey) RETURN k.key AS k, k.entity AS e")}


def expected_rows(store: Store) -> dict[str, str]:
    return {**load_entity_index(store).graph_keys(), COMPLETE: ""}


def append(kb: KnowledgeBase, name: str, text: str) -> None:
    with (kb.raw / name).open("a", encoding="utf-8") as handle:
        handle.write(f"\n{text}\n")


EDITS = [
    ("eniac.md", "The ENIAC team included Kathleen McNulty and Betty Jennings of the Moore School."),
    ("colossus.md", "Tommy Flowers of the General Post Office Research Station built Colossus."),
    ("notes.md", "# Notes\n\nThe Electronic Delay Storage Automatic Calculator (EDSAC) ran in 1949. "
                 "Kathleen McNulty married John Mauchly in 1948."),
    ("alan-turing.md", "Turing worked at the Government Code and Cypher School (GC&CS) at Bletchley Park."),
]


def test_rows_stay_what_loading_every_entity_gives(fresh: KnowledgeBase) -> None:
    with api.open_store(fresh, read_only=True) as store:
        assert key_rows(store) == expected_rows(store) and len(key_rows(store)) > 150
    for name, text in EDITS:  # one-source compiles: the lazy index, writing the new names' rows
        append(fresh, name, text)
        report, _ = api.compile_kb(fresh, only=[name])
        assert report.compiled == 1
        with api.open_store(fresh, read_only=True) as store:
            assert key_rows(store) == expected_rows(store), name


def test_a_lazy_compile_gives_what_a_loaded_one_gives(fresh: KnowledgeBase, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    twin = KnowledgeBase(tmp_path / "twin")
    shutil.copytree(fresh.root, twin.root)
    (twin.root / "kg.toml").write_text((twin.root / "kg.toml").read_text().replace(
        "index_rebuild_sources = 25", "index_rebuild_sources = 1"))  # every compile loads every entity
    assert twin.config().compile.index_rebuild_sources == 1
    for kb in (fresh, twin):
        for name, text in EDITS:
            append(kb, name, text)
            api.compile_kb(kb, only=[name])
    for query in ("MATCH (e:Entity) RETURN e.id AS id, e.name AS name, e.type AS type, e.aliases AS aliases ORDER BY id",
                  "MATCH (c:Claim)-[a:ABOUT]->(e:Entity) RETURN c.id AS claim, e.id AS entity, a.role AS role "
                  "ORDER BY claim, entity",
                  "MATCH (a:Entity)-[m:ALIAS_OF]->(b:Entity) RETURN a.id AS alias, b.id AS target, m.method AS how "
                  "ORDER BY alias, target",
                  "MATCH (k:EntityKey) RETURN k.key AS key, k.entity AS entity ORDER BY key"):
        assert api.cypher(fresh, query) == api.cypher(twin, query), query


def test_a_graph_without_rows_gets_them_from_the_next_compile(fresh: KnowledgeBase) -> None:
    api.cypher(fresh, "MATCH (k:EntityKey) DELETE k", write=True)  # as migrated from schema 4
    append(fresh, "eniac.md", EDITS[0][1])
    api.compile_kb(fresh, only=["eniac.md"])  # not complete: loads every entity, fills the rows
    with api.open_store(fresh, read_only=True) as store:
        assert key_rows(store) == expected_rows(store)


# the lazy index resolves as the loaded one ------------------------------------------------------

def variants(name: str) -> list[str]:
    words = name.split()
    out = [name, name.upper(), name.lower(), f"The {name}", f"{name}s", f"Dr. {name}", name[:-1], f"{name} Jr"]
    if len(words) >= 2:
        out.append("".join(w[0] for w in words).upper())  # an acronym
        out.append(" ".join(words[::-1]))
    return out


@pytest.fixture(scope="module")
def names(compiled: KnowledgeBase) -> list[str]:
    rows = api.cypher(compiled, "MATCH (e:Entity) RETURN e.name AS name, e.aliases AS aliases ORDER BY name")
    return sorted({n for r in rows for n in (r["name"], *(r["aliases"] or []))})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_lazy_and_loaded_indexes_resolve_alike(compiled: KnowledgeBase, names: list[str], data: st.DataObject) -> None:
    picks = data.draw(st.lists(st.tuples(st.sampled_from(names), st.integers(0, 9),
                                         st.sampled_from(["concept", "person", "organization", "machine"]),
                                         st.lists(st.sampled_from(names), max_size=1)), min_size=1, max_size=6))
    entities = [ExtractedEntity(name=variants(name)[i % len(variants(name))], type=kind, aliases=aliases)
                for name, i, kind, aliases in picks]
    with api.open_store(compiled, read_only=True) as store:
        loaded, lazy = load_entity_index(store), lazy_entity_index(store)
        found = []
        for entity in entities:
            found.append(lazy.resolve(entity))
            assert found[-1] == loaded.resolve(entity), entity
        assert lazy.links == loaded.links and lazy.key_claims == loaded.key_claims
        for entity_id, _ in found:
            assert lazy.records[entity_id] == loaded.records[entity_id]


def test_every_variant_of_every_name_resolves_alike(compiled: KnowledgeBase, names: list[str]) -> None:
    """Each tier on its own (exact, plural, title, acronym, fuzzy, new), without the state one
    resolution leaves for the next: every name's variants, each on fresh indexes."""
    with api.open_store(compiled, read_only=True) as store:
        base = load_entity_index(store)
        for name in names[::3]:  # a third of them: each probe needs fresh indexes
            for variant in variants(name):
                entity = ExtractedEntity(name=variant, type="concept")
                loaded, lazy = copy.deepcopy(base), lazy_entity_index(store)
                assert lazy.resolve(entity) == loaded.resolve(entity) and lazy.links == loaded.links, variant

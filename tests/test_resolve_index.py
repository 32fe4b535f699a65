"""Loading the entity index cheaply must not change it: the same keys, blocking words and
acronyms as registering the entities one by one always gave, so names resolve to the same ids."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kg.compile.resolve import EntityIndex, fast_name_key, fast_name_keys
from kg.models import ExtractedEntity
from kg.names import name_key

ascii_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=40)
names = st.one_of(
    ascii_text,
    st.text(alphabet=string.ascii_letters + string.digits + " -_'.&+#:()", max_size=40),
    st.text(max_size=30),
    st.sampled_from(["The Beatles", "the", "The ", "A", "a b", "An apple", "an", "Anne", "The The", "the-the",
                     "theatre", "a-ha", "A. Turing", "ENIAC's", "O'Brien", "rock'n'roll", "C++", "AT&T", "C#",
                     "  spaced   out  ", "tab\tsep", "x\x1fy", "dots...", "_under_score_", "--", "Café", "ŒUVRE"]),
)


@settings(max_examples=2000)
@given(names)
def test_fast_name_key_is_name_key(name: str) -> None:
    assert fast_name_key(name) == name_key(name)


@settings(max_examples=500)
@given(st.lists(st.one_of(names, st.sampled_from(["a\nb", "The\n", "x'\ny", "\n", ""])), max_size=12))
def test_fast_name_keys_of_a_column_are_name_keys(column: list[str]) -> None:
    assert fast_name_keys(column) == [name_key(name) for name in column]


def test_fast_name_key_on_every_pair_of_ascii_characters() -> None:
    chars = [chr(c) for c in range(128)]
    column = [name for a in chars for b in chars for name in (a + b, f"the{a}{b}x", f"{a}an {b}", f" a{a}{b} ")]
    expected = [name_key(name) for name in column]
    assert [fast_name_key(name) for name in column] == expected
    assert fast_name_keys(column) == expected


def reference_index(rows: list[dict[str, Any]]) -> tuple[dict[str, str], dict[str, set[str]], dict[str, str]]:
    """by_key, by_word and acronyms as EntityIndex built them before loading was made lazy."""
    by_key: dict[str, str] = {}
    by_word: dict[str, set[str]] = {}
    acronyms: dict[str, str] = {}
    for row in sorted(rows, key=lambda r: r["id"]):
        for name in (row["name"], *(row["aliases"] or [])):
            key = name_key(name)
            if key:
                by_key.setdefault(key, row["id"])
                for word in set(key.split()):
                    by_word.setdefault(word, set()).add(key)
        words = name_key(row["name"]).split()
        if len(words) >= 2:
            acronyms.setdefault("".join(w[0] for w in words if w not in ("of", "and", "the", "for")), row["id"])
    return by_key, by_word, acronyms


entity_name = st.one_of(names, st.sampled_from(["Alan Turing", "alan turing", "The Alan Turing", "Bletchley Park",
                                                "Bletchley Parks", "Big Bang Theory", "BBT", "Alan's"]))
entity_rows = st.dictionaries(
    st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True),
    st.tuples(entity_name, st.one_of(st.none(), st.lists(entity_name, max_size=3)), st.sampled_from(["person", "named"])),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(entity_rows)
def test_loaded_index_equals_one_by_one_registration(entities: dict[str, tuple[str, list[str] | None, str]]) -> None:
    rows = [{"id": k, "name": n, "type": t, "aliases": a, "summary": None, "status": None}
            for k, (n, a, t) in reversed(list(entities.items()))]  # not in id order: loading sorts
    index = EntityIndex.from_rows(rows, [{"src": k, "dst": "x"} for k in list(entities)[:1]])
    by_key, by_word, acronyms = reference_index(rows)
    assert index.by_key == by_key  # each key to the first entity (in id order) with it (order unused)
    assert index.by_word == by_word
    for word, keys in by_word.items():  # what the fuzzy tier asks (found by search, not by the dict)
        assert index._keys_with(word) == keys
    assert index._keys_with("zzz-not-a-word") == set()
    assert list(index.acronyms.items()) == list(acronyms.items())
    assert list(index.records) == sorted(entities) and index.slugs == set(entities)
    for k, (n, a, t) in entities.items():
        record = index.records[k]
        assert (record.name, record.type, record.aliases, record.summary, record.status) == (n, t, list(a or []), "", "live")
    assert index.canonical == ({next(iter(entities)): "x"} if entities else {})


def test_columns_and_rows_load_the_same_index() -> None:
    rows = [{"id": "b", "name": "Bletchley Park", "type": "place", "aliases": ["BP"], "summary": "s", "status": "live"},
            {"id": "a", "name": "Alan Turing", "type": "person", "aliases": None, "summary": None, "status": "merged"}]
    from_rows = EntityIndex.from_rows(rows, [{"src": "a", "dst": "b"}])
    from_columns = EntityIndex.from_columns(*([r[c] for r in rows] for c in ("id", "name", "type", "aliases", "summary", "status")),
                                            alias_edges=[("a", "b")])
    for index in (from_rows, from_columns):
        assert list(index.records) == ["a", "b"] and index.records["a"].aliases == [] and index.records["a"].summary == ""
        assert index.records["a"].status == "merged" and index.resolve_id("a") == "b"
    assert list(from_rows.by_key.items()) == list(from_columns.by_key.items())


def entity(name: str, type_: str = "named", aliases: tuple[str, ...] = ()) -> ExtractedEntity:
    return ExtractedEntity(name=name, type=type_, aliases=list(aliases))


MENTIONS = [entity("Electronic Numerical Integrator and Computer", aliases=("ENIAC",)), entity("Alan Turing", "person"),
            entity("University of Manchester", "organization"), entity("Harvard Mark I"), entity("Mercury", "place")]
LATER = [entity("ENIAC's"), entity("Electronic Numerical Integrators and Computer"), entity("Dr. Alan Turing", "person"),
         entity("University of Manchestre", "organization"), entity("Harvard Mark II"), entity("Mercury", "substance"),
         entity("EN", aliases=("Electronic Numerical",)), entity("UoM"), entity("Turing", "person", aliases=("A. M. Turing",))]


def test_a_loaded_index_resolves_like_the_index_that_made_the_entities() -> None:
    """Resolve the same later mentions against (a) the index that created the entities and
    (b) an index loaded from their rows (as the next compile does): same ids, same links."""
    live = EntityIndex()
    for mention in MENTIONS:
        live.resolve(mention)
    rows = [{"id": r.id, "name": r.name, "type": r.type, "aliases": list(r.aliases), "summary": r.summary,
             "status": r.status} for r in live.records.values()]
    edges = [{"src": link.alias, "dst": link.canonical} for link in live.links]
    loaded = EntityIndex.from_rows(rows, edges)
    live.links.clear()
    assert [live.resolve(m) for m in LATER] == [loaded.resolve(m) for m in LATER]
    assert live.links == loaded.links and live.links  # some merges were made by rules/fuzzy tiers
    assert live.by_word == loaded.by_word  # (acronyms: first registered wins, and loading registers in id order)


def test_aliases_learned_by_update_are_keys_but_not_blocking_words() -> None:
    """As before: an alias added to a known entity is found by exact key, not by fuzzy blocking."""
    index = EntityIndex.from_rows([{"id": "e", "name": "Bletchley Park", "type": "place", "aliases": [], "summary": "",
                                    "status": "live"}])
    assert index.resolve(entity("Bletchley Park", "place", aliases=("Station X",))) == ("e", "updated")
    assert index.lookup("station x") == "e"
    assert "station" not in index.by_word and "bletchley" in index.by_word


def test_a_word_in_too_many_names_blocks_nothing() -> None:
    limit = EntityIndex.BLOCK_LIMIT
    rows = [{"id": f"e{i:04d}", "name": f"Report {i} of Acme", "type": "named", "aliases": None, "summary": None,
             "status": None} for i in range(limit)]
    index = EntityIndex.from_rows(rows)
    assert len(index._keys_with("report") or ()) == limit  # at the limit: still blocks
    assert index._keys_with("7") == {"report 7 of acme"}
    index.resolve(entity("Report Extra of Acme"))  # one more, registered after loading
    assert index._keys_with("report") is None and index.by_word["report"].__len__() == limit + 1
    assert index._keys_with("extra") == {"report extra of acme"}
    bigger = EntityIndex.from_rows([*rows, {**rows[0], "id": "z", "name": "Report Z of Acme"}])
    assert bigger._keys_with("report") is None and bigger._keys_with("acme") is None


def test_many_word_lookups_switch_to_a_word_dict_with_the_same_answers() -> None:
    rows = [{"id": f"e{i:03d}", "name": f"Word{i} Shared{i % 7} Common", "type": "named", "aliases": [f"Alias{i}"],
             "summary": None, "status": None} for i in range(3 * EntityIndex.SEARCH_LIMIT)]
    index = EntityIndex.from_rows(rows)
    expected = reference_index(rows)[1]
    words = [*sorted(expected), "missing"]
    answers = [index._keys_with(w) for w in words]
    assert index._loaded_words is not None  # switched part-way
    assert answers == [expected.get(w, set()) for w in words]
    assert [index._keys_with(w) for w in words] == answers

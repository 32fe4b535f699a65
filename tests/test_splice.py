"""exporters.splice: pages parsed into entries and patched give what building them from scratch gives."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exporters.splice import (
    IndexEntries,
    WikiEdited,
    assemble_contradictions,
    contradiction_key,
    parse_contradictions,
)

CONTRADICTION_HEADING = re.compile(rb"(?m)^## \d+\. ")


def by_regex(text: bytes) -> dict[tuple[bytes, bytes], bytes]:
    return {contradiction_key(block): block for block in CONTRADICTION_HEADING.split(text)[1:]}


entry = st.builds(
    lambda n, body, a, b, extra: f"## {n}. {body} ^{a}--{b}\n{extra}",
    st.integers(0, 120), st.text(alphabet="ab #.\n19é", max_size=30), st.from_regex(r"[a-z0-9]{1,6}", fullmatch=True),
    st.from_regex(r"[a-z0-9]{1,6}", fullmatch=True), st.sampled_from(["", "\n", "## Note. x\n", "## 7 x\n", "text\n"]),
)


@given(st.text(alphabet="-#ab\n ", max_size=40), st.lists(entry, max_size=6))
def test_parse_contradictions_splits_like_the_heading_regex(header: str, entries: list[str]) -> None:
    text = (header + "\n" + "".join(entries)).encode("utf-8")
    try:
        expected = by_regex(text)
    except WikiEdited:
        with pytest.raises(WikiEdited):
            parse_contradictions(text)
        return
    assert parse_contradictions(text) == expected


def test_parse_contradictions_of_a_rendered_page() -> None:
    page = (b"---\ntitle: Contradictions\n---\n# Contradictions\n\n2 open.\n\n"
            b"## 1. A vs B ^c1--c2\nrules \xc2\xb7 confidence 0.9 \xc2\xb7 open\n\n"
            b"## 2. C vs D ^c3--c4\nrules \xc2\xb7 confidence 0.45 \xc2\xb7 open\n")
    blocks = parse_contradictions(page)
    # Keyed by rank (1 - confidence) first: the most confident sorts first, then by claim ids.
    assert sorted(blocks) == [(b"0.1000", b"c1", b"c2"), (b"0.5500", b"c3", b"c4")]
    assert blocks[(b"0.1000", b"c1", b"c2")] == b"A vs B ^c1--c2\nrules \xc2\xb7 confidence 0.9 \xc2\xb7 open\n\n"
    assert assemble_contradictions(page[: page.index(b"## 1.")], [blocks[k] for k in sorted(blocks)], b"none\n") == page


def test_a_contradiction_block_without_its_confidence_is_an_edited_wiki() -> None:
    with pytest.raises(WikiEdited):
        parse_contradictions(b"---\n---\n# Contradictions\n\n## 1. A vs B ^c1--c2\n- a\n")


# index.md ---------------------------------------------------------------------------------------

ids = st.from_regex(r"[a-z0-9][a-z0-9-]{0,6}", fullmatch=True)
labels = st.text(alphabet="abAB éÉ-1·", min_size=1, max_size=6)
titles = st.sampled_from(["Named", "Concept", "Event", "Other"])
Entities = dict[str, tuple[str, str]]  # id -> (group title, label)


def entity_lines(entities: Entities) -> list[tuple[str, str]]:
    return [(title, f"- [[entities/{e}|{label}]] — {label} said so. ({len(label)})") for e, (title, label) in entities.items()]


def source_lines(sources: dict[str, str]) -> list[tuple[str, str]]:
    return [(slug, f"- [[sources/{slug}|{title}]] — `{slug}.md`, 1 claim") for slug, title in sources.items()]


def page(index: IndexEntries) -> bytes:
    return b"---\ntype: index\n---\n# Index\n\n## Entities\n\n" + index.entity_block() + b"## Sources\n\n" + index.source_block()


@given(st.dictionaries(ids, st.tuples(titles, labels), max_size=12), st.dictionaries(ids, labels, max_size=6), st.data())
def test_a_patched_index_is_the_index_built_from_scratch(entities: Entities, sources: dict[str, str], data: st.DataObject) -> None:
    text = page(IndexEntries.build(entity_lines(entities), source_lines(sources)))
    parsed = IndexEntries.parse(text)
    assert page(parsed) == text
    assert parsed.entity_count == len(entities) and len(parsed.sources) == len(sources)

    removed = data.draw(st.sets(st.sampled_from(sorted(entities))) if entities else st.just(set[str]()))
    changed = data.draw(st.dictionaries(ids, st.tuples(titles, labels), max_size=5))
    new_sources = data.draw(st.dictionaries(ids, labels, max_size=4))
    for entity_id in sorted(removed | set(changed)):
        parsed.remove_entity(entity_id)
    for title, line in entity_lines(changed):
        parsed.put_entity(title, line)
    for slug, line in source_lines(new_sources):
        parsed.put_source(slug, line)
    after = {e: v for e, v in entities.items() if e not in removed} | changed
    assert page(parsed) == page(IndexEntries.build(entity_lines(after), source_lines(sources | new_sources)))


def test_an_index_edited_by_hand_is_not_patched() -> None:
    text = page(IndexEntries.build(entity_lines({"a": ("Named", "A")}), source_lines({"s": "S"})))
    with pytest.raises(WikiEdited):
        IndexEntries.parse(text.replace(b"- [[entities/a|", b"* [[entities/a|"))
    with pytest.raises(WikiEdited):
        IndexEntries.parse(text.replace(b"## Sources", b"## Files"))
    with pytest.raises(WikiEdited):
        IndexEntries.parse(text + b"a note of mine\n")

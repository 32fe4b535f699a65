"""exporters.splice parses the pages it splices exactly as the regex definitions say."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exporters.splice import (
    CONTRADICTION_HEADING,
    WikiEdited,
    contradiction_key,
    parse_contradictions,
)


def by_regex(text: str) -> dict[tuple[str, str], str]:
    return {contradiction_key(block): block for block in CONTRADICTION_HEADING.split(text)[1:]}


entry = st.builds(
    lambda n, body, a, b, extra: f"## {n}. {body} ^{a}--{b}\n{extra}",
    st.integers(0, 120), st.text(alphabet="ab #.\n19", max_size=30), st.from_regex(r"[a-z0-9]{1,6}", fullmatch=True),
    st.from_regex(r"[a-z0-9]{1,6}", fullmatch=True), st.sampled_from(["", "\n", "## Note. x\n", "## 7 x\n", "text\n"]),
)


@given(st.text(alphabet="-#ab\n ", max_size=40), st.lists(entry, max_size=6))
def test_parse_contradictions_splits_like_the_heading_regex(header: str, entries: list[str]) -> None:
    text = header + "\n" + "".join(entries)
    try:
        expected = by_regex(text)
    except WikiEdited:
        with pytest.raises(WikiEdited):
            parse_contradictions(text)
        return
    assert parse_contradictions(text) == expected


def test_parse_contradictions_of_a_rendered_page() -> None:
    page = ("---\ntitle: Contradictions\n---\n# Contradictions\n\n2 open.\n\n"
            "## 1. A vs B ^c1--c2\n- a\n\n## 2. C vs D ^c3--c4\n- b\n")
    assert parse_contradictions(page) == {("c1", "c2"): "A vs B ^c1--c2\n- a\n\n", ("c3", "c4"): "C vs D ^c3--c4\n- b\n"}

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kg.compile.chunk import chunk_text
from kg.text import sentences, to_plain

DOC = """---
title: T
---
# Title

First paragraph. Second sentence here.

```python
x = 1

y = 2
```

## Section two

- item one
- item two
"""


def test_chunks_are_exact_slices_and_skip_frontmatter() -> None:
    chunks = chunk_text("d.md", DOC, chunk_chars=200)
    assert chunks and all(DOC[c.start : c.end] == c.text for c in chunks)
    assert not chunks[0].text.startswith("---")


def test_fences_are_never_split() -> None:
    for size in (200, 300, 1000):
        for c in chunk_text("d.md", DOC, chunk_chars=size):
            assert c.text.count("```") % 2 == 0


def test_headings_start_chunks_and_are_remembered() -> None:
    text = "# A\n\n" + "word " * 100 + "\n\n## B\n\nmore text here."
    chunks = chunk_text("d.md", text, chunk_chars=300)
    assert chunks[-1].headings == ("A", "B")


@settings(max_examples=60)
@given(st.text(alphabet=st.sampled_from(list("ab .\n#-*`[]|")), max_size=600), st.integers(200, 800))
def test_chunking_never_loses_offsets(text: str, size: int) -> None:
    for c in chunk_text("d.md", text, chunk_chars=size):
        assert text[c.start : c.end] == c.text
        assert c.end - c.start <= size * 2


def test_plain_view_maps_back_to_markdown() -> None:
    md = "The **program counter (PC)** is a [[Register|register]]. See `x`! Then [a](http://e.com) b."
    plain = to_plain(md)
    assert "**" not in plain.text and "[[" not in plain.text
    spans = sentences(plain.text)
    first = plain.source_span(*spans[0])
    assert md[first[0] : first[1]] == "The **program counter (PC)** is a [[Register|register]]."
    assert plain.links[0][2] == "Register"


def test_sentences_respect_abbreviations_and_initials() -> None:
    text = "Dr. Smith met J. Presper Eckert in 1946. They talked."
    assert [text[s:e] for s, e in sentences(text)] == ["Dr. Smith met J. Presper Eckert in 1946.", "They talked."]


def test_markup_inside_a_link_or_bold_phrase_is_read_too() -> None:
    """"[`bfloat16`](...)" and "**[platform.claude.com](...)**" made names with backquotes and
    brackets: a link's text and a bold phrase are read as inline markdown again."""
    md = "Docs at **[platform.claude.com/docs](https://platform.claude.com/docs)**. See [`bfloat16`](https://w.org/b) now."
    plain = to_plain(md)
    assert plain.text == "Docs at platform.claude.com/docs. See bfloat16 now."
    code = [plain.text[start:end] for start, end in plain.code]
    assert code == ["bfloat16"] and [plain.text[s:e] for s, e in plain.strong] == ["platform.claude.com/docs"]
    first = plain.source_span(*sentences(plain.text)[0])
    assert md[first[0] : first[1]].startswith("Docs at **[platform") and md[first[0] : first[1]].endswith("/docs)**.")


@settings(max_examples=100)
@given(st.text(alphabet=st.sampled_from(list("ab .\n*_`[]()")), max_size=200))
def test_every_plain_character_maps_to_itself_in_the_markdown(md: str) -> None:
    plain = to_plain(md)
    assert len(plain.offsets) == len(plain.text) + 1
    for i, char in enumerate(plain.text):
        assert char in "\n " or md[plain.offsets[i]] == char

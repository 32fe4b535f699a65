"""Issue 17: a wiki navigable at any size: bounded index and pages, every page within three links."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exporters import paging
from exporters.paging import chunk_by_size, clip, partition, prefix_name, split_page
from exporters.shape import link_depths, wiki_shape
from kg import api
from kg.graph.store import Store
from kg.kb import KnowledgeBase
from kg.maintain.lint import lint
from tests.conftest import tree_digest
from tests.test_incremental import _corpus, small_pages

SAFE_NAME = re.compile(r"[a-z0-9_-]{1,255}")


@given(st.lists(st.text(alphabet="ab c1é_", max_size=6), max_size=80), st.integers(1, 6))
def test_partition_covers_the_sorted_keys_in_bounded_leaves_with_safe_distinct_names(keys: list[str], limit: int) -> None:
    keys = sorted(keys)
    leaves = partition(keys, limit)
    assert leaves[0].start == 0 and leaves[-1].end == len(keys)
    assert all(a.end == b.start for a, b in itertools.pairwise(leaves))
    assert all(leaf.end - leaf.start <= limit for leaf in leaves)
    names = [leaf.name for leaf in leaves]
    assert len(set(names)) == len(names)
    assert len(leaves) == 1 or all(SAFE_NAME.fullmatch(name) for name in names)
    assert partition(keys, limit) == leaves  # a function of the keys


@given(st.text(max_size=30), st.text(max_size=30))
def test_prefix_names_are_safe_and_distinct(a: str, b: str) -> None:
    assert SAFE_NAME.fullmatch(prefix_name(a)) and SAFE_NAME.fullmatch(prefix_name(a, terminal=True))
    assert prefix_name(a) != prefix_name(a, terminal=True)
    if a != b:
        assert prefix_name(a) != prefix_name(b)
    assert prefix_name("con") != "con" and prefix_name("") != ""  # not a reserved or empty file name


@given(st.text(max_size=60), st.integers(4, 40))
def test_clip_bounds_utf8_bytes(text: str, limit: int) -> None:
    clipped = clip(text, limit)
    assert len(clipped.encode("utf-8")) <= limit
    assert clipped == text or clipped.endswith("…")


def test_chunk_by_size_keeps_order_and_bounds() -> None:
    items = [b"x" * n for n in (3, 4, 5, 9, 1, 1)]
    chunks = chunk_by_size(items, 8)
    assert [i for c in chunks for i in c] == items
    assert all(sum(map(len, c)) <= 8 or len(c) == 1 for c in chunks)


def test_a_page_too_large_becomes_an_overview_and_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paging, "PAGE_LIMIT", 4_000)
    items = [f"- claim {i} " + "word " * 20 for i in range(300)]
    text = "---\ntype: entity\n---\n# Big\n\nSummary.\n\n## Other statements\n\n" + "\n".join(items) + \
           "\n\n## Backlinks\n\n- [[sources/a|A]]\n"
    pages = dict(split_page("entities/big", text, "Big"))
    assert all(len(t.encode()) <= 4_000 for t in pages.values())
    overview = pages.pop("entities/big.md")
    assert "- claim 0 " in overview and "more on [[entities/big.2|part 2]]" in overview
    assert "## Backlinks\n\n- [[sources/a|A]]" in overview  # a short section stays whole
    shown = [line for page in [overview, *pages.values()] for line in page.splitlines() if line.startswith("- claim ")]
    assert sorted(shown) == sorted(items) and len(shown) == len(set(shown))  # every item once
    assert list(pages) == [f"entities/big.{n}.md" for n in range(2, len(pages) + 2)]
    assert split_page("entities/small", "# Small\n", "Small") == [("entities/small.md", "# Small\n")]


def test_the_example_wiki_is_within_bounds_and_three_links(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    shape = wiki_shape(example_kb.wiki)
    assert shape["index_bytes"] <= 64 * 1024 and not shape["pages_over_256k"] and not shape["index_pages_over_64k"]
    assert shape["within_three_links"] == shape["content_pages"] > 100
    for page in (example_kb.wiki / "indexes").rglob("*.md"):
        assert "\ntags: [kg-index]\n" in page.read_text()[:200], page  # Obsidian can filter index pages out
    assert "\ntags: [kg-index]\n" in (example_kb.wiki / "index.md").read_text()


def test_small_page_bounds_cut_every_list_and_keep_the_wiki_consistent(
        example_kb: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small_pages(monkeypatch)
    _corpus(example_kb.raw, 30)
    api.compile_kb(example_kb)
    wiki = example_kb.wiki
    shape = wiki_shape(wiki)
    content = [p[:-3] for p in tree_digest(wiki) if p.startswith(("entities/", "sources/")) and p.count(".") == 1]
    depths = link_depths(wiki, 12)  # lists of more than ROOT_LINKS leaves: index -> list -> range(s) -> leaf -> page
    assert all(p in depths for p in content) and max(depths[p] for p in content) >= 4
    assert any(p.startswith("indexes/sources.ranges/") for p in tree_digest(wiki))
    assert shape["within_three_links"] < shape["content_pages"]
    leaves = list((wiki / "indexes/sources").glob("*.md"))
    assert all(len(re.findall(r"^- \[\[indexes/", p.read_text(), re.M)) <= 2 for p in wiki.glob("indexes/**/*.md")
               if ".ranges" in p.parent.name or p.parent.name in ("indexes", "entities"))  # ROOT_LINKS per list page
    entry_bytes = [sum(len(line.encode()) + 1 for line in re.findall(r"^- \[\[sources/.*$", p.read_text(), re.M))
                   for p in leaves]
    assert len(leaves) > 5 and all(n <= 600 or p.read_text().count("\n- [[sources/") == 1
                                   for n, p in zip(entry_bytes, leaves, strict=True))  # LEAF_BYTES
    # the log: every entry on exactly one month page, the latest on log.md
    log = (wiki / "log.md").read_text()
    months = "".join(p.read_text() for p in sorted((wiki / "log").glob("*.md")))
    entries = re.findall(r"^## \[.*$", months, re.M)
    assert len(entries) == len(set(entries)) == int(re.search(r"\nentries: (\d+)\n", log)[1])  # type: ignore[index]
    assert len(re.findall(r"^## \[", log, re.M)) == 3
    # contradictions: all on the range pages, the most certain on the overview
    ranges = "".join(p.read_text() for p in (wiki / "contradictions").glob("*.md"))
    overview = (wiki / "contradictions.md").read_text()
    total = int(re.search(r"\nopen: (\d+)\n", overview)[1])  # type: ignore[index]
    assert total > 1 and len(re.findall(r"^## \d+\. ", ranges, re.M)) == total
    assert len(re.findall(r"^## \d+\. ", overview, re.M)) == 1
    # lint finds no broken links and no orphans made by the lists
    with Store(example_kb.db_path, read_only=True) as store:
        report = lint(example_kb, store)
    kinds = {f.check for f in report.findings}
    assert "broken-link" not in kinds and "wiki-outdated" not in kinds
    assert not [f for f in report.findings if f.check == "orphan" and f.subject.startswith("wiki/indexes/")]
    before = tree_digest(wiki)
    api.render_kb(example_kb)
    assert tree_digest(wiki) == before  # a second render: the same bytes


@given(st.lists(st.tuples(st.text(alphabet="ab c", max_size=5), st.integers(1, 9)), max_size=60), st.integers(5, 30))
def test_weighted_partition_bounds_each_leaf_by_weight(entries: list[tuple[str, int]], limit: int) -> None:
    entries.sort()
    keys, weights = [k for k, _ in entries], [w for _, w in entries]
    leaves = partition(keys, limit, weights)
    assert leaves[0].start == 0 and leaves[-1].end == len(keys)
    assert all(a.end == b.start for a, b in itertools.pairwise(leaves))
    assert all(sum(weights[leaf.start:leaf.end]) <= limit or leaf.end - leaf.start == 1 for leaf in leaves)
    assert len({leaf.name for leaf in leaves}) == len(leaves)

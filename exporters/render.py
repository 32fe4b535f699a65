"""The render entry point: the whole wiki, or only what a compile's changes reach."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from exporters.incremental import render_incremental
from exporters.splice import WikiEdited
from exporters.wiki import RENDER_FORMAT, TEMPLATES, RenderReport, frontmatter_head, render_full
from kg.graph.store import Store
from kg.kb import KnowledgeBase


def render_wiki(store: Store, wiki: Path, changed_sources: set[str] | None = None,
                changed_entities: Iterable[str] = ()) -> RenderReport:
    """Render the whole wiki, or (given the sources a compile changed, and the entities whose
    groups it changed) only the blast radius. A wiki in another format, or whose index or
    contradictions page is missing or was edited by hand, or an entity that gained or lost its page
    by a change of group, is rendered whole."""
    if (changed_sources is not None and (wiki / "contradictions.md").is_file()
            and f"\nrender: {RENDER_FORMAT}\n".encode() in frontmatter_head(wiki / "index.md")):
        try:
            return render_incremental(store, wiki, changed_sources, set(changed_entities))
        except WikiEdited:
            pass
    return render_full(store, wiki)


def render_kb_wiki(store: Store, kb: KnowledgeBase, changed_sources: set[str] | None = None,
                   changed_entities: Iterable[str] = ()) -> RenderReport:
    """A knowledge base's wiki (see `render_wiki`); then nothing is left waiting for its render."""
    report = render_wiki(store, kb.wiki, changed_sources, changed_entities)
    kb.clear_pending()
    return report


def agents_md() -> str:
    """The AGENTS.md `kg init` writes: how the knowledge base works, for an LLM agent."""
    return (TEMPLATES / "AGENTS.md").read_text(encoding="utf-8")

"""Incremental render: after a compile changed some sources, rewrite only the pages whose bytes
depend on them (the blast radius), reading only the part of the graph those pages show.

A full `kg render` of the same graph gives the same bytes: pages are rendered by the same
`WikiBuilder` from a subgraph that holds everything they show, pages whose only change is a
backlink are patched, and index, contradictions and log are spliced entry by entry
(exporters/splice.py). tests/test_incremental.py checks this after random edits.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections import defaultdict
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from exporters import paging
from exporters.indexes import contradiction_pages, read_contradictions, read_index_entries
from exporters.logpages import log_pages_after
from exporters.pages import Aliases, WikiGraph, load_subgraph
from exporters.splice import WikiEdited
from exporters.wiki import (
    RenderReport,
    WikiBuilder,
    compute_links,
    link_label,
    linking_pages,
    page_links,
    yaml_str,
)
from kg.errors import KgError
from kg.graph.pages import (
    changed_claims,
    claimed_entities,
    claims_about,
    entities_of_claims,
    mentioned_entities,
    mentioning_source_slugs,
    retired_entities,
    source_slugs,
    source_slugs_of_claims,
)
from kg.graph.store import NO_OFFSETS, Store


def render_incremental(store: Store, wiki: Path, changed_sources: set[str],
                       changed_entities: set[str] | None = None) -> RenderReport:
    with folders_listed_once():  # until the writes
        radius = blast_radius(store, changed_sources, wiki, changed_entities)
        builder = WikiBuilder(radius.graph)
        files = builder.build(only=radius.pages, links=radius.links)
        for page, changes in sorted(radius.backlinks.items()):
            files[f"{page}.md"] = patch_backlinks((wiki / f"{page}.md").read_text(encoding="utf-8"), changes)
        files |= splice_pages(builder, store, wiki, radius.pages)
        stale = stale_pages(wiki, files, GENERATED_FOLDERS)
        stale += [rel for page in sorted(radius.pages) for p in continuation_files(wiki, page)
                  if (rel := p.relative_to(wiki).as_posix()) not in files]  # parts of a page that shrank
        stale += [f"{page}.md" for page in sorted(radius.pages) if page.startswith("entities/")
                  and f"{page}.md" not in files and (wiki / f"{page}.md").is_file()]  # lost its page (its group's claims left)
    size, written = write_in_place(files, wiki, remove=stale)
    entities = {p[9:] for p in radius.pages if p.startswith("entities/")}
    return RenderReport(pages=len(files), bytes=size, path=wiki, written=written, entities=entities)


def seed_pages(store: Store, changed_sources: set[str], aliases: Aliases, changed_entities: set[str] | None = None,
               wiki: Path | None = None) -> set[str]:
    """Pages whose own content a change to these sources may alter: their source pages, the pages
    of the entities they mention, and the entity and source pages of every claim with evidence in
    them (retracted evidence included) or contradicting, superseding or superseded by such a claim;
    and the pages of the groups of `changed_entities` (their members are listed there). When such
    an entity has a page but is no longer its group's canonical entity, raises WikiEdited: the
    pages linking to it are not known from here, so the caller renders everything. When a group
    kept its canonical entity but members left or joined it, `regrouped_pages`."""
    source_o = store.offsets("Source", changed_sources)
    touched = changed_claims(store, source_o)
    claim_o = sorted(touched.values()) or NO_OFFSETS
    claimed = set(entities_of_claims(store, claim_o))
    pages = {f"entities/{aliases.canon(e)}" for e in claimed}
    pages |= {f"sources/{slug}" for slug in source_slugs_of_claims(store, claim_o)}
    pages |= {f"sources/{slug}" for slug in source_slugs(store, source_o)}
    # Entities the sources mention may have been updated (aliases, type, summary): those with a page.
    mentioned = {aliases.canon(e) for e in mentioned_entities(store, source_o)}
    pages |= {f"entities/{aliases.canon(e)}" for e in claimed_entities(store, store.offsets("Entity", aliases.expand(mentioned)))}
    in_groups = sorted(aliases.expand({aliases.canon(e) for e in claimed | mentioned}))
    if wiki is not None and any((wiki / f"entities/{e}.md").is_file() and aliases.canon(e) != e for e in in_groups):
        raise WikiEdited("an entity joined another's group: its page and the links to it move")
    retired = retired_entities(store, store.offsets("Entity", in_groups)) if wiki is not None and in_groups else []
    for entity in retired:
        # a retired entity that was its group's canonical one ("American" with "Americans": when the
        # source saying "American" goes, the links to it move to "Americans"): render what links to it
        page = f"entities/{entity}"
        if wiki is not None and _had_group(wiki / f"{page}.md"):
            parts = [wiki / f"{page}.md", *continuation_files(wiki, page)]
            pages.add(page)
            pages |= _page_kind(set().union(*(linking_pages(p.read_text(encoding="utf-8")) for p in parts)))
    if changed_entities:
        grouped = {aliases.canon(e) for e in changed_entities}
        shown = {aliases.canon(e) for e in claimed_entities(store, store.offsets("Entity", aliases.expand(grouped)))}
        if wiki is not None and any((wiki / f"entities/{e}.md").is_file() and aliases.canon(e) != e
                                    for e in changed_entities | grouped):
            raise WikiEdited("an entity with a page joined another's group: its page and the links to it move")
        pages |= {f"entities/{e}" for e in shown}
        if wiki is not None:
            pages |= regrouped_pages(store, aliases, wiki, grouped)
    return pages


def regrouped_pages(store: Store, aliases: Aliases, wiki: Path, canonical: set[str]) -> set[str]:
    """Pages to render because a group changed: for each of these canonical entities whose page
    lists other members than its group has now (one left, joined or is gone), its page (it may lose
    it), every page linking to it (they show a member that may have moved) and the pages showing
    the members that came or went (sources mentioning them, the entity and source pages of their
    claims: they now link elsewhere)."""
    pages: set[str] = set()
    moved: set[str] = set()
    for entity in sorted(canonical):
        page = f"entities/{entity}"
        path = wiki / f"{page}.md"
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        shown, members = merged_ids(text), aliases.expand({entity}) - {entity}
        if shown == members:
            continue
        parts = [text] + [p.read_text(encoding="utf-8") for p in continuation_files(wiki, page)]
        pages.add(page)
        pages |= _page_kind(set().union(*map(linking_pages, parts)))
        moved |= shown ^ members
    if moved:
        offsets = store.offsets("Entity", sorted(moved))
        claims = sorted(claims_about(store, offsets).values()) or NO_OFFSETS
        pages |= {f"entities/{aliases.canon(e)}" for e in entities_of_claims(store, claims)}
        pages |= {f"sources/{slug}" for slug in source_slugs_of_claims(store, claims)}
        pages |= {f"sources/{slug}" for slug in mentioning_source_slugs(store, offsets)}
    return pages


_MERGED = re.compile(r"^Merged into this page: (.*)$", re.MULTILINE)
_MERGED_ID = re.compile(r"\(`([^`\s]+)`, (?:manual|alias|plain|fuzzy|llm)[ )]")


def merged_ids(page_text: str) -> set[str]:
    """The ids of the entities a rendered entity page lists as merged into it (its group's other
    members when it was rendered)."""
    head = page_text.split("\n## ", 1)[0]
    line = _MERGED.search(head)
    return set(_MERGED_ID.findall(line.group(1))) if line else set()


def _had_group(page: Path) -> bool:
    """Whether a rendered entity page lists aliases (its group's other names) in its front matter."""
    if not page.is_file():
        return False
    with page.open(encoding="utf-8") as handle:
        head = handle.read(4096)
    aliases = re.search(r"^aliases: (.*)$", head, re.MULTILINE)
    return aliases is not None and aliases.group(1).strip() not in ("[]", "")


def _page_kind(pages: set[str]) -> set[str]:
    """Entity and source pages (not their continuation parts: ids and slugs hold no ".")."""
    return {p for p in pages if p.startswith(("entities/", "sources/")) and "." not in p}


def continuation_files(wiki: Path, page: str) -> list[Path]:
    """The continuation parts of a rendered page (<page>.2.md, ...), in order."""
    folder, _, stem = page.rpartition("/")
    return _continuations(wiki / folder).get(stem, [])


# While set, each folder's continuation parts, listed once: a render asks for the parts of dozens
# of pages, and listing a folder of 2,500 entity pages each time cost a one-edit compile 50 ms.
_LISTED: ContextVar[dict[Path, dict[str, list[Path]]] | None] = ContextVar("_LISTED", default=None)


@contextlib.contextmanager
def folders_listed_once() -> Iterator[None]:
    """Folders are listed once inside this block (which must not add or remove pages)."""
    if _LISTED.get() is not None:
        yield
        return
    token = _LISTED.set({})
    try:
        yield
    finally:
        _LISTED.reset(token)


def _continuations(folder: Path) -> dict[str, list[Path]]:
    """{page's file stem: its continuation parts in order} of one folder."""
    listed = _LISTED.get()
    if listed is not None and folder in listed:
        return listed[folder]
    parts: dict[str, list[tuple[int, Path]]] = {}
    with contextlib.suppress(FileNotFoundError, NotADirectoryError), os.scandir(folder) as entries:
        for entry in entries:
            stem, dot, number = entry.name[:-3].rpartition(".")
            if entry.name.endswith(".md") and dot and number.isdigit():
                parts.setdefault(stem, []).append((int(number), folder / entry.name))
    found = {stem: [p for _, p in sorted(numbered)] for stem, numbered in parts.items()}
    if listed is not None:
        listed[folder] = found
    return found


def _patchable(wiki: Path, page: str, changes: dict[str, str | None]) -> bool:
    """Whether a page's backlink changes can be patched in: not a page cut into parts, and not one the
    added lines could push past the page limit (those are rendered, as a full render would cut them)."""
    path = wiki / f"{page}.md"
    added = sum(len(f"- [[{p}|{link_label(t)}]]\n".encode()) for p, t in changes.items() if t is not None)
    return (path.is_file() and path.stat().st_size + added <= paging.PAGE_LIMIT
            and not continuation_files(wiki, page))


def _subgraph(store: Store, pages: set[str], aliases: Aliases) -> WikiGraph:
    return load_subgraph(store, {p[9:] for p in pages if p.startswith("entities/")},
                         {p[8:] for p in pages if p.startswith("sources/")}, aliases)


@dataclass
class BlastRadius:
    """What an incremental render rewrites: `pages` rendered from `graph` (the subgraph that holds
    everything they show, with its `links`), and `backlinks`: pages whose only change is in their
    Backlinks section, {page: {linking page: its title, or None when it no longer links}}."""

    pages: set[str]
    backlinks: dict[str, dict[str, str | None]]
    graph: WikiGraph
    links: dict[str, set[str]]

    def all_pages(self) -> set[str]:
        return self.pages | set(self.backlinks)


def blast_radius(store: Store, changed_sources: set[str], wiki: Path,
                 changed_entities: set[str] | None = None) -> BlastRadius:
    """Pages whose bytes a change to these sources can alter: the seed pages (`seed_pages`), the
    pages a seed page starts or stops linking to (their backlinks change), every page a seed links
    to if the seed's title changed (backlinks show titles), every page linking to an entity whose
    name changed (its links show the name), and the sources that mention an entity that gets its
    first page (they start linking to it)."""
    aliases = Aliases(store)  # ALIAS_OF edges: few, read once
    seeds = seed_pages(store, changed_sources, aliases, changed_entities, wiki)
    graph = _subgraph(store, seeds, aliases)
    links = compute_links(graph)
    titles = {f"sources/{s['slug']}": s["title"] for s in graph.sources.values()}
    titles |= {f"entities/{e}": entity["name"] for e, entity in graph.entities.items()}
    backlinks: dict[str, dict[str, str | None]] = defaultdict(dict)
    pages, born, renamed = set(seeds), [], set()
    for page in sorted(seeds):
        current = wiki / f"{page}.md"
        new = _page_kind(links.get(page, set())) - {page}
        old: set[str] = set()
        retitled = False
        if current.is_file():
            text = current.read_text(encoding="utf-8")
            parts = [text] + [p.read_text(encoding="utf-8") for p in continuation_files(wiki, page)]
            old = _page_kind(set().union(*map(page_links, parts))) - {page}
            retitled = page.startswith("sources/") and f"\ntitle: {yaml_str(titles[page])}\n" not in text
            if page.startswith("entities/") and page[9:] in graph.entities and f"\n# {titles[page]}\n" not in text:
                # the links to it show its name: render them
                renamed.update(_page_kind(set().union(*map(linking_pages, parts))))
        else:
            born.append(page)
        for target in (old | new) if retitled else (old ^ new):
            backlinks[target][page] = titles[page] if target in new else None
    born_entities = [p[9:] for p in born if p.startswith("entities/") and graph.has_page(p[9:])]
    if born_entities:  # sources mentioning an entity that gets its first page start linking to it
        pages |= {f"sources/{slug}" for slug in mentioning_source_slugs(store, store.offsets("Entity", aliases.expand(born_entities)))}
    pages |= {p for p in renamed if (wiki / f"{p}.md").is_file()}
    pages |= {p for p, changes in backlinks.items() if not _patchable(wiki, p, changes)}  # render, not patch
    if pages != seeds:
        graph = _subgraph(store, pages, aliases)
        links = compute_links(graph)
    return BlastRadius(pages, {p: b for p, b in backlinks.items() if p not in pages}, graph, links)


def patch_backlinks(text: str, changes: dict[str, str | None]) -> str:
    """A rendered page with its Backlinks section updated: {linking page: title, or None to drop it}.
    Gives the bytes a full render would, because the section is the sorted list of linking pages."""
    head, marker, tail = text.partition("\n## Backlinks\n\n")
    lines = {m.group(1): line for line in tail.split("\n") if (m := _BACKLINK.match(line))}
    for page, title in changes.items():
        if title is None:
            lines.pop(page, None)
        else:
            lines[page] = f"- [[{page}|{link_label(title)}]]"
    return head + marker + ("\n".join(lines[p] for p in sorted(lines)) or "- none") + "\n"


_BACKLINK = re.compile(r"^- \[\[([^|\]]+)\|")


def splice_pages(builder: WikiBuilder, store: Store, wiki: Path, radius: set[str]) -> dict[str, str | bytes]:
    """index.md, contradictions.md and log.md after a change: the current pages with the entries
    of the pages in `radius` (and the contradictions of their claims) replaced, and new log entries
    appended. The subgraph holds every claim of those pages with all its contradictions."""
    g = builder.g
    complete = {claim.encode() for claim in g.complete or ()}
    blocks = read_contradictions(wiki)
    blocks = {key: block for key, block in blocks.items() if key[1] not in complete and key[2] not in complete}
    blocks |= dict(builder.contradiction_entry(row) for row in g.contradictions)
    index = read_index_entries(wiki)
    slugs = {source["slug"]: path for path, source in g.sources.items()}
    for page in sorted(radius):
        kind, name = page.split("/", 1)
        if kind == "entities":
            index.remove_entity(name)
            if name in g.entities and g.has_page(name) and (entry := builder.index_entity_entry(name)) is not None:
                index.put_entity(*entry)
        elif name in slugs:
            index.put_source(*builder.index_source_entry(slugs[name]))
    files: dict[str, str | bytes] = dict(builder.index_pages(index, len(blocks)))
    files |= dict(contradiction_pages(builder.env, blocks))
    files |= log_pages_after(builder.env, builder.log_entries, store, wiki)
    return files


GENERATED_FOLDERS = ("indexes", "contradictions", "contradictions.ranges")  # folders of pages that exist only as parts of a list: a render drops the others


def stale_pages(wiki: Path, files: dict[str, str | bytes], folders: tuple[str, ...]) -> list[str]:
    """Pages under these folders of the wiki that the new render does not write (a leaf that was split
    or joined)."""
    stale = []
    for folder in folders:
        if (wiki / folder).is_dir():
            stale += [rel for p in (wiki / folder).rglob("*.md") if (rel := p.relative_to(wiki).as_posix()) not in files]
    return sorted(stale)


def write_in_place(files: dict[str, str | bytes], wiki: Path, remove: list[str] | None = None) -> tuple[int, int]:
    """Replace the given pages, all or nothing as far as the file system allows, then delete the
    pages in `remove`.

    Used for the blast radius of an incremental compile. Every changed page is first written to a
    temporary file beside it; only when all are written (a full disk fails here, and the wiki is
    left as it was) are they renamed over the old pages. The caller keeps a marker of the changed
    sources until this returns, so a crash during the renames is finished by the next compile.
    Pages whose bytes did not change are not touched. Returns (bytes written, files written).
    """
    staged: list[tuple[Path, Path]] = []
    total = 0
    try:
        for rel in sorted(files):
            text = files[rel]
            data = text.encode("utf-8") if isinstance(text, str) else text
            target = wiki / rel
            if target.is_file() and target.stat().st_size == len(data) and target.read_bytes() == data:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
            staged.append((tmp, target))
            tmp.write_bytes(data)
            total += len(data)
        for tmp, target in staged:
            os.replace(tmp, target)
        for rel in remove or ():
            (wiki / rel).unlink(missing_ok=True)
    except OSError as exc:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise KgError(f"Could not write the wiki at {wiki}: {exc.strerror or exc}. The wiki was left as it was; "
                      "free disk space or fix write permission, then run `kg compile` again to finish.") from exc
    return total, len(staged)

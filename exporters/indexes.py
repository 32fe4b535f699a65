"""The hierarchical index: index.md (bounded: counts, the most connected entities of each type,
answers, entry points) over sub-indexes (one list per entity type and one of sources, cut into
bounded leaves by exporters/paging.py). Every entity and source page is three links from index.md:
index.md -> the list of a type -> a leaf -> the page.

The pages are assembled from the entries of `IndexEntries` (exporters/splice.py), so a full and
an incremental render give the same bytes, and an edit rewrites only the leaves it touches.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from jinja2 import Environment

from exporters.paging import clip, partition
from exporters.splice import (
    ENTITY_LINE,
    SOURCE_LINE,
    ContradictionKey,
    IndexEntries,
    WikiEdited,
    assemble_contradictions,
    parse_contradictions,
)
from kg.names import slugify

ROOT_LINKS = 400  # leaves listed on a list's page (about 110 bytes each): past it, range pages between
LEAF_BYTES = 60_000  # of entry lines on a leaf (lines are at most ~450 bytes: labels and summaries are clipped)
RANGE_LABEL_BYTES = 48  # each end of a leaf's name range, on its list's root page
TOP_PER_TYPE = 10  # the most connected entities of each type, on index.md
ANSWERS_ON_INDEX = 20
INDEX_BUDGET = 60_000  # index.md in bytes; fewer top entities per type are shown past it
ENTITY_LISTS, SOURCE_LIST, ANSWER_LIST = "indexes/entities", "indexes/sources", "indexes/answers"
TYPE_LIST = "indexes/types"
TYPES_ON_INDEX = 40  # entity types with a section on index.md; past it, all of them on indexes/types.md
UNTYPED_TITLES = frozenset({"Concept", "Named", "Thing", "Other"})  # listed after the types a reader can use
_COUNT = re.compile(rb"\((\d+)\)$")
_LEAF_LINK = re.compile(rb"^- \[\[(indexes/[^|\]]+)\|", re.MULTILINE)
_GROUP = re.compile(rb"\ngroup: (\".*\")\n")


def _label_text(text: str) -> str:
    """A type's name as a link label (types are free text when an LLM extracts)."""
    return " ".join(text.split()).replace("|", "¦").replace("[", "(").replace("]", ")").replace("<", "&lt;")


def type_slugs(titles: list[str]) -> dict[str, str]:
    """Type title -> the file stem of its list (distinct even where two titles slugify alike)."""
    slugs: dict[str, str] = {}
    for title in sorted(titles):
        slug = slugify(title)
        while slug in slugs.values():
            slug += "-"
        slugs[title] = slug
    return slugs


def _label(line: bytes, pattern: re.Pattern[bytes]) -> str:
    match = pattern.match(line)
    return match["label"].decode("utf-8") if match else ""


def _leaf_range(lines: list[bytes], pattern: re.Pattern[bytes]) -> str:
    first, last = clip(_label(lines[0], pattern), RANGE_LABEL_BYTES), clip(_label(lines[-1], pattern), RANGE_LABEL_BYTES)
    return first if first == last else f"{first} … {last}"


def list_pages(env: Environment, folder: str, title: str, group: str, lines: list[bytes], keys: list[str],
               pattern: re.Pattern[bytes]) -> Iterator[tuple[str, bytes]]:
    """The root page `folder`.md and its leaves `folder`/<leaf>.md of one sorted list of lines.
    A list of more than ROOT_LINKS leaves gets range pages between its root and its leaves
    (`folder`.ranges/<first leaf>.md, ROOT_LINKS links each; more levels, .ranges2/..., if need be):
    a link more from index.md per level."""
    root = env.get_template("index_list.md.j2")
    leaves = partition(keys, LEAF_BYTES, [len(line) + 1 for line in lines])
    if len(leaves) == 1:
        head = root.render(title=title, group=group, entries=len(lines), folder=folder, leaves=[], parent=None)
        yield f"{folder}.md", head.encode("utf-8") + b"".join(line + b"\n" for line in lines)
        return
    links = [(f"{folder}/{leaf.name}", _leaf_range(lines[leaf.start:leaf.end], pattern), leaf.end - leaf.start)
             for leaf in leaves]
    parent_of = {page: folder for page, _, _ in links}
    top, level = links, 0
    while len(top) > ROOT_LINKS:  # range pages of ROOT_LINKS links, as many levels as it takes
        level += 1
        above = []
        for at in range(0, len(top), ROOT_LINKS):
            group_links = top[at:at + ROOT_LINKS]
            page = f"{folder}.ranges{level if level > 1 else ''}/{group_links[0][0].rsplit('/', 1)[1]}"
            first, last = group_links[0][1].split(" … ")[0], group_links[-1][1].split(" … ")[-1]
            label, count = f"{first} … {last}", sum(n for _, _, n in group_links)
            above.append((page, label, count))
            parent_of |= {child: page for child, _, _ in group_links}
        for (page, label, count), at in zip(above, range(0, len(top), ROOT_LINKS), strict=True):
            yield f"{page}.md", root.render(title=f"{title}: {label}", group=group, entries=count, folder=folder,
                                            leaves=top[at:at + ROOT_LINKS], parent=folder).encode("utf-8")
        top = above
    yield f"{folder}.md", root.render(title=title, group=group, entries=len(lines), folder=folder, leaves=top,
                                      parent=None).encode("utf-8")
    for leaf, (page, label, count) in zip(leaves, links, strict=True):
        head = root.render(title=f"{title}: {label}", group=group, entries=count, folder=folder, leaves=[],
                           parent=parent_of[page])
        yield f"{page}.md", head.encode("utf-8") + b"".join(line + b"\n" for line in lines[leaf.start:leaf.end])


def top_lines(lines: list[bytes], n: int) -> list[bytes]:
    """The `n` lines of the entities with the most live claims (ties in index order)."""
    counted = []
    for i, line in enumerate(lines):
        match = _COUNT.search(line)
        counted.append((-int(match[1]) if match else 0, i))
    return [lines[i] for _, i in sorted(counted)[:n]]


def index_pages(env: Environment, index: IndexEntries, answers: list[tuple[str, str]], contradictions: int,
                render_format: str) -> Iterator[tuple[str, bytes]]:
    """index.md and every sub-index page; `answers` are (id, link label) of the saved answers, by id."""
    slugs = type_slugs(list(index.groups))
    for title in sorted(index.groups):
        lines = index.groups[title]
        keys = [ENTITY_LINE.match(line)["label"].decode("utf-8").casefold() for line in lines]  # type: ignore[index]
        yield from list_pages(env, f"{ENTITY_LISTS}/{slugs[title]}", f"{title} entities", title, lines, keys,
                              ENTITY_LINE)
    source_keys = [SOURCE_LINE.match(line)["label"].decode("utf-8").casefold() for line in index.sources]  # type: ignore[index]
    yield from list_pages(env, SOURCE_LIST, "Sources", "sources", index.sources, source_keys, SOURCE_LINE)
    answer_lines = [f"- [[answers/{page}|{label}]]".encode() for page, label in answers]
    if len(answers) > ANSWERS_ON_INDEX:
        yield from list_pages(env, ANSWER_LIST, "Answers", "answers", answer_lines, [page for page, _ in answers],
                              _ANSWER_LINE)
    template = env.get_template("index.md.j2")
    # the types a reader navigates by, largest first; what could not be typed last
    by_size = sorted(index.groups, key=lambda t: (t in UNTYPED_TITLES, -len(index.groups[t]), t))
    if len(by_size) > TYPES_ON_INDEX:  # free-form types (an LLM's): all of them on one page
        rows = "".join(f"- [[{ENTITY_LISTS}/{slugs[t]}|{_label_text(t)}]] ({len(index.groups[t]):,})\n" for t in by_size)
        yield f"{TYPE_LIST}.md", (f"---\ntype: index\ntags: [kg-index]\n---\n# Entity types\n\n"
                                  f"{len(by_size):,} types, the largest first · [[index|Index]]\n\n{rows}").encode()
    for top in (TOP_PER_TYPE, 5, 3, 1, 0):
        types = [{"title": title, "list": f"{ENTITY_LISTS}/{slugs[title]}", "count": len(index.groups[title]),
                  "top": [line.decode("utf-8") for line in top_lines(index.groups[title], top)]}
                 for title in by_size[:TYPES_ON_INDEX]]
        page = template.render(types=types, type_count=len(by_size), type_list=TYPE_LIST, answers=[line.decode("utf-8") for line in answer_lines[:ANSWERS_ON_INDEX]], answer_count=len(answers),
                               answer_list=ANSWER_LIST, contradictions=contradictions, entity_count=index.entity_count,
                               source_count=len(index.sources), source_list=SOURCE_LIST,
                               render_format=render_format).encode("utf-8")
        if len(page) <= INDEX_BUDGET:
            break
    yield "index.md", page


_ANSWER_LINE = re.compile(rb"- \[\[answers/(?P<id>[^|\]]+)\|(?P<label>.*?)\]\]")


def read_index_entries(wiki: Path) -> IndexEntries:
    """The entries of the rendered sub-indexes (for an incremental render): the lines of every leaf
    of every type list and of the source list. Raises WikiEdited when they are not as rendered."""
    sections = [b"\n## Entities\n\n"]
    folder = wiki / ENTITY_LISTS
    roots = sorted(folder.glob("*.md")) if folder.is_dir() else []
    groups = []
    for root in roots:
        data = root.read_bytes()
        match = _GROUP.search(data[:1024])
        if match is None:
            raise WikiEdited(f"{root.name}: a type list without its group")
        groups.append((json.loads(match[1]), _list_lines(wiki, data, b"\n- [[entities/")))
    for title, lines in sorted(groups):
        if lines:
            sections.append(b"### %s\n\n%s\n" % (title.encode("utf-8"), lines))  # lines end with "\n"
    sources = wiki / f"{SOURCE_LIST}.md"
    if not sources.is_file():
        raise WikiEdited("no source list")
    sections.append(b"## Sources\n\n" + _list_lines(wiki, sources.read_bytes(), b"\n- [[sources/"))
    return IndexEntries.parse(b"".join(sections))


def _list_lines(wiki: Path, root: bytes, prefix: bytes, depth: int = 0) -> bytes:
    """The entry lines (newline-terminated) of a list: on its root page, or on the leaves it links
    to (through its range pages, if it has them)."""
    leaves = _LEAF_LINK.findall(root)
    if not leaves:
        at = root.find(prefix)
        return root[at + 1:] if at >= 0 else b""
    out = []
    for leaf in leaves:
        path = wiki / f"{leaf.decode('utf-8')}.md"
        if not path.is_file() or depth > 8:
            raise WikiEdited(f"{leaf.decode('utf-8')}: a sub-index page is missing")
        page = path.read_bytes()
        if _LEAF_LINK.search(page):
            out.append(_list_lines(wiki, page, prefix, depth + 1))
            continue
        at = page.find(prefix)
        if at < 0:
            raise WikiEdited("a sub-index leaf without entries")
        out.append(page[at + 1:])
    return b"".join(out)


def listing_pages(wiki: Path, pages: set[str]) -> set[str]:
    """The sub-index pages (without .md) that list any of these entity or source pages now, with
    their lists' root pages: what an edit of those pages rewrites in the index (an estimate: a new
    page's leaf is not known before it is rendered)."""
    needles = [f"[[{page}|".encode() for page in pages]
    found = set()
    folder = wiki / "indexes"
    for path in sorted(folder.rglob("*.md")) if folder.is_dir() else ():
        data = path.read_bytes()
        if any(needle in data for needle in needles):
            rel = path.relative_to(wiki).with_suffix("").as_posix()
            found.add(rel)
            if rel.count("/") > (1 if rel.startswith(SOURCE_LIST) else 2):
                found.add(rel.rsplit("/", 1)[0])
    return found


# contradictions: the most certain on contradictions.md, all of them on range pages by claim ids ----

CONTRADICTIONS_ON_OVERVIEW = 25
CONTRADICTIONS_PER_PAGE = 60  # an entry is 1-3 KB: a range page stays well under 256 KB
CONTRADICTION_LIST = "contradictions"
_RANGE_LINK = re.compile(rb"^- \[\[(contradictions(?:\.ranges)?/[^|\]]+)\|", re.MULTILINE)


def contradiction_pages(env: Environment, blocks: dict[ContradictionKey, bytes]) -> Iterator[tuple[str, bytes]]:
    """contradictions.md (the most certain first, and the range pages) and the range pages, each
    holding the contradictions of a range of claim ids."""
    header = env.get_template("contradictions.md.j2")
    ranked = sorted(blocks)
    if len(ranked) <= CONTRADICTIONS_ON_OVERVIEW:
        yield "contradictions.md", assemble_contradictions(
            header.render(count=len(ranked), ranges=[]).encode("utf-8"), [blocks[k] for k in ranked],
            b"No open contradictions.\n")
        return
    by_claims = sorted(ranked, key=lambda k: (k[1], k[2]))
    anchors = [f"{k[1].decode()}--{k[2].decode()}" for k in by_claims]
    leaves = partition(anchors, CONTRADICTIONS_PER_PAGE)
    ranges = []
    for leaf in leaves:
        first, last = anchors[leaf.start].split("--")[0], anchors[leaf.end - 1].split("--")[0]
        ranges.append((f"{CONTRADICTION_LIST}/{leaf.name or 'all'}", f"claims {first[:8]}… to {last[:8]}…",
                       leaf.end - leaf.start))
    listed = ranges
    if len(ranges) > ROOT_LINKS:  # the overview lists pages of range links, not every range
        listed = []
        for at in range(0, len(ranges), ROOT_LINKS):
            group = ranges[at:at + ROOT_LINKS]
            page = f"{CONTRADICTION_LIST}.ranges/{group[0][0].rsplit('/', 1)[1]}"
            label = f"{group[0][1].split(' to ')[0]} to {group[-1][1].split(' to ')[-1]}"
            listed.append((page, label, sum(n for _, _, n in group)))
            body = "".join(f"- [[{p}|{lab}]] ({n})\n" for p, lab, n in group)
            yield f"{page}.md", (f"---\ntype: contradictions\ntags: [kg-index]\n---\n# Contradictions: {label}\n\n"
                                 f"[[contradictions|Most certain first]] · [[index|Index]]\n\n{body}").encode()
    overview = header.render(count=len(ranked), ranges=listed, shown=CONTRADICTIONS_ON_OVERVIEW).encode("utf-8")
    yield "contradictions.md", assemble_contradictions(overview, [blocks[k] for k in ranked[:CONTRADICTIONS_ON_OVERVIEW]], b"")
    page_header = env.get_template("contradictions_range.md.j2")
    for leaf, (page, label, count) in zip(leaves, ranges, strict=True):
        head = page_header.render(label=label, count=count).encode("utf-8")
        yield f"{page}.md", assemble_contradictions(head, [blocks[k] for k in by_claims[leaf.start:leaf.end]], b"")


def read_contradictions(wiki: Path) -> dict[ContradictionKey, bytes]:
    """Every contradiction entry of the rendered pages (for an incremental render)."""
    data = (wiki / "contradictions.md").read_bytes()
    first = data.find(b"\n## 1. ")
    ranges = _RANGE_LINK.findall(data[: first if first >= 0 else len(data)])
    if not ranges:
        return parse_contradictions(data)
    blocks: dict[ContradictionKey, bytes] = {}
    pending = list(ranges)
    while pending:
        page = pending.pop(0)
        path = wiki / f"{page.decode('utf-8')}.md"
        if not path.is_file():
            raise WikiEdited(f"{page.decode('utf-8')} is missing")
        data = path.read_bytes()
        if page.startswith(b"contradictions.ranges/"):
            pending += _RANGE_LINK.findall(data)
        else:
            blocks |= parse_contradictions(data)
    return blocks

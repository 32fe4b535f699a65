"""index.md, contradictions.md and log.md as lists of independent entries.

Each entry (an entity's or a source's index line, one contradiction, one log entry) depends
only on its own part of the graph, and the pages are assembled from entries in a fixed order.
A full render builds every entry; an incremental render parses the current page into entries,
replaces those of the changed entities, sources and claims, and assembles the page the same
way, so both give the same bytes without the incremental one reading the whole graph.

The pages are handled as UTF-8 bytes and parsed with C-level string operations: at 50k sources
index.md is 7 MB and contradictions.md 34 MB (45k entries), and decoding them, matching a regex
per line and encoding them again took 0.6 s of a one-source edit. Sorted entries are found by
binary search, so an index line's sort key is computed only for the lines a search looks at.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

ENTITY_LINE = re.compile(rb"- \[\[entities/(?P<id>[^|\]]+)\|(?P<label>.*?)\]\] \xe2\x80\x94 ")  # "— " in UTF-8
SOURCE_LINE = re.compile(rb"- \[\[sources/(?P<slug>[^|\]]+)\|(?P<label>.*?)\]\]")
CONTRADICTION_HEADING = re.compile(rb"\n## \d+\. ")  # after a newline: the page starts with its frontmatter
CONTRADICTION_ANCHOR = re.compile(rb" \^(?P<a>\w+)--(?P<b>\w+)$", re.MULTILINE)
ENTITY_PREFIX, SOURCE_PREFIX = b"\n- [[entities/", b"\n- [[sources/"
ENTITIES, SOURCES = b"\n## Entities\n\n", b"\n## Sources\n\n"

# (rank, claim a, claim b): the most confident first (rank = 1 - confidence, as shown), then by ids
# (ASCII: bytes sort as the strings do).
ContradictionKey = tuple[bytes, bytes, bytes]
CONTRADICTION_CONFIDENCE = re.compile(" · confidence (?P<c>[0-9.]+) ·".encode())


class WikiEdited(ValueError):
    """A page kg rendered no longer has the shape kg gave it (edited by hand): render everything."""


def entity_line_key(line: bytes) -> tuple[str, str]:
    """Index order of an entity line: by its label, case-insensitively, then by id."""
    match = ENTITY_LINE.match(line)
    if match is None:
        raise WikiEdited(f"not an index entity line: {line[:80]!r}")
    return match["label"].decode("utf-8").casefold(), match["id"].decode("utf-8")


def source_line_key(line: bytes) -> tuple[str, bytes]:
    """Index order of a source line: by its title, case-insensitively, then by page slug."""
    match = SOURCE_LINE.match(line)
    if match is None:
        raise WikiEdited(f"not an index source line: {line[:80]!r}")
    return match["label"].decode("utf-8").casefold(), match["slug"]


def contradiction_anchor(a: str, b: str) -> str:
    """An Obsidian block id for one contradiction (claim ids are letters and digits)."""
    return f"{a}--{b}"


def contradiction_key(block: bytes) -> ContradictionKey:
    match = CONTRADICTION_ANCHOR.search(block)
    confidence = CONTRADICTION_CONFIDENCE.search(block)
    if match is None or confidence is None:
        raise WikiEdited("a contradiction without its block id or confidence")
    return b"%.4f" % (1 - float(confidence["c"])), match["a"], match["b"]


def _lines(body: bytes, prefix: bytes) -> list[bytes]:
    """The newline-terminated lines of `body`, each of which must start with `prefix` (minus its newline)."""
    if not body:
        return []
    if not body.endswith(b"\n") or (b"\n" + body).count(prefix) != body.count(b"\n"):
        raise WikiEdited(f"a line in an index section that does not start with {prefix[1:]!r}")
    return body[:-1].split(b"\n")


class IndexEntries:
    """The entity lines of the index grouped by type title, each group sorted by `entity_line_key`,
    and its source lines sorted by `source_line_key` (UTF-8, without their newline)."""

    def __init__(self) -> None:
        self.groups: dict[str, list[bytes]] = {}
        self.sources: list[bytes] = []
        self._section = b""  # the Entities section as parsed, and where each group starts in it
        self._starts: list[tuple[int, str]] = []

    @classmethod
    def build(cls, entities: Iterable[tuple[str, str]], sources: Iterable[tuple[str, str]]) -> IndexEntries:
        """From (group title, line) of every entity and (slug, line) of every source (a full render)."""
        index = cls()
        for title, line in entities:
            index.groups.setdefault(title, []).append(line.encode("utf-8"))
        for lines in index.groups.values():
            lines.sort(key=entity_line_key)
        index.sources = sorted((line.encode("utf-8") for _, line in sources), key=source_line_key)
        return index

    @classmethod
    def parse(cls, data: bytes) -> IndexEntries:
        """The entries of a rendered index.md."""
        begin, end = data.find(ENTITIES), data.find(SOURCES)
        if begin < 0 or end < begin:
            raise WikiEdited("index.md without its Entities and Sources sections")
        index = cls()
        index._section = section = data[begin + len(ENTITIES) : end + 1]
        at = 0
        while at < len(section):
            if not section.startswith(b"### ", at):
                raise WikiEdited("index.md: an entity section that is not a group of lines")
            title_end = section.find(b"\n\n", at)
            group_end = section.find(b"\n\n", title_end + 2)
            if title_end < 0 or group_end < 0:
                raise WikiEdited("index.md: an unfinished entity group")
            title = section[at + 4 : title_end].decode("utf-8")
            index._starts.append((at, title))
            index.groups[title] = _lines(section[title_end + 2 : group_end + 1], ENTITY_PREFIX)
            at = group_end + 2
        index.sources = _lines(data[end + len(SOURCES) :], SOURCE_PREFIX)
        return index

    @property
    def entity_count(self) -> int:
        return sum(len(lines) for lines in self.groups.values())

    def remove_entity(self, entity_id: str) -> None:
        """Drop the line of this entity, if the parsed page had one."""
        needle = b"- [[entities/" + entity_id.encode("utf-8") + b"|"
        at = self._section.find(needle)
        while at > 0 and self._section[at - 1] != 0x0A:  # not at a line start: look further
            at = self._section.find(needle, at + 1)
        if at < 0:
            return
        line = self._section[at : self._section.index(b"\n", at)]
        title = self._starts[bisect_right(self._starts, (at, "\uffff")) - 1][1]
        lines = self.groups.get(title, [])
        i = bisect_left(lines, entity_line_key(line), key=entity_line_key)
        if i < len(lines) and lines[i] == line:
            del lines[i]
            if not lines:
                del self.groups[title]

    def put_entity(self, title: str, line: str) -> None:
        """Add an entity's line (after `remove_entity` of its old one)."""
        data = line.encode("utf-8")
        lines = self.groups.setdefault(title, [])
        lines.insert(bisect_left(lines, entity_line_key(data), key=entity_line_key), data)

    def put_source(self, slug: str, line: str) -> None:
        """Add or replace a source's line (its title, and so its place, may have changed)."""
        needle = b"- [[sources/" + slug.encode("utf-8") + b"|"
        old = next((i for i, current in enumerate(self.sources) if current.startswith(needle)), None)
        if old is not None:
            del self.sources[old]
        data = line.encode("utf-8")
        self.sources.insert(bisect_left(self.sources, source_line_key(data), key=source_line_key), data)

    def entity_block(self) -> bytes:
        return b"".join(b"### %s\n\n%s\n\n" % (title.encode("utf-8"), b"\n".join(self.groups[title]))
                        for title in sorted(self.groups))

    def source_block(self) -> bytes:
        return b"".join(line + b"\n" for line in self.sources)


def parse_contradictions(data: bytes) -> dict[ContradictionKey, bytes]:
    """contradictions.md -> {(claim a, claim b): entry without its numbered heading}.

    An entry starts with a line "## <number>. "; a "## " line without a number belongs to the
    entry above it (tests/test_splice.py checks this against a regex split)."""
    heads = [(m.start() + 1, m.end()) for m in CONTRADICTION_HEADING.finditer(data)]  # ("## N. ", its text)
    ends = [start for start, _ in heads[1:]] + [len(data)] if heads else []
    blocks = [data[text:end] for (_, text), end in zip(heads, ends, strict=True)]
    return {contradiction_key(block): block for block in blocks}


def assemble_contradictions(header: bytes, blocks: Sequence[bytes], empty: bytes) -> bytes:
    """A page of contradiction entries, numbered in the order given."""
    if not blocks:
        return header + empty
    parts = [header]
    for n, block in enumerate(blocks, start=1):
        parts.append(b"## %d. " % n)
        parts.append(block)
    return b"".join(parts)

"""Bounded pages for lists of any length: the sub-indexes, contradiction ranges and continuation
pages.

A sorted list of entries (index lines, contradictions) is cut into leaves by a trie over the
entries' sort keys: a prefix whose entries fit on a page is a leaf, a larger one is split by the
next character. The cut depends only on the set of entries, so a full render and an incremental
one agree, and an edit changes the one leaf its entry falls in (and, rarely, splits or joins a
leaf), not every page after it, as cutting the sorted list every N entries would.

Leaves are listed flat on the list's root page: index.md -> root page -> leaf -> entity page is
three links for up to `MAX_LEAVES` x `limit` entries of one kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kg.names import RESERVED_NAMES

MAX_DEPTH = 24  # a prefix this long is not split further: its entries are cut into numbered parts
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


@dataclass(frozen=True)
class Leaf:
    """Entries [start, end) of a sorted list, on the page named `name` ("" when the whole list
    fits on its root page)."""

    name: str
    start: int
    end: int


def prefix_name(prefix: str, terminal: bool = False, part: int = 1) -> str:
    """A safe, lowercase file stem for a key prefix: letters and digits kept, anything else as
    `_<hex code>_`; `terminal` marks the entries whose key is exactly the prefix; parts after the
    first get `-<n>`."""
    name = "".join(c if c in _SAFE else f"_{ord(c):x}_" for c in prefix) + ("_" if terminal else "")
    if not name or name in RESERVED_NAMES:
        name = "x-" + name  # "-" appears in no other name but a part's suffix
    return name if part == 1 else f"{name}-{part}"


def partition(keys: Sequence[str], limit: int, weights: Sequence[int] | None = None) -> list[Leaf]:
    """Leaves covering the sorted `keys` in order, each weighing at most `limit` (an entry weighs
    its `weights` item, by default 1: then `limit` counts entries)."""
    sums = [0]
    for w in weights if weights is not None else [1] * len(keys):
        sums.append(sums[-1] + w)
    if sums[-1] <= limit:
        return [Leaf("", 0, len(keys))]
    leaves: list[Leaf] = []
    _split(keys, sums, limit, 0, len(keys), 0, leaves)
    return leaves


def _split(keys: Sequence[str], sums: list[int], limit: int, lo: int, hi: int, depth: int, out: list[Leaf]) -> None:
    """Cut keys[lo:hi] (which share their first `depth` characters) by the next character. Runs
    of consecutive small children are packed into one leaf (named by its first child) while they
    fit, so leaves are well filled; packing looks only at siblings, so an edit moves at most the
    leaves of one parent. `sums`: prefix sums of the entries' weights."""
    pack: list[tuple[str, bool, int, int]] = []  # (prefix, terminal, start, end) of children packed so far

    def flush() -> None:
        if pack:
            first_prefix, terminal, start, _ = pack[0]
            out.append(Leaf(prefix_name(first_prefix, terminal=terminal), start, pack[-1][3]))
            pack.clear()

    i = lo
    while i < hi:
        c = keys[i][depth] if len(keys[i]) > depth else ""
        j = i + 1
        while j < hi and (keys[j][depth] if len(keys[j]) > depth else "") == c:
            j += 1
        prefix = keys[i][: depth + 1]
        if sums[j] - sums[i] <= limit:
            if pack and sums[j] - sums[pack[0][2]] > limit:
                flush()
            pack.append((prefix, not c, i, j))
        else:
            flush()
            if c and depth + 1 < MAX_DEPTH:
                _split(keys, sums, limit, i, j, depth + 1, out)
            else:  # keys alike this far: numbered parts of at most `limit` each (an entry alone if heavier)
                part, start = 1, i
                for k in range(i + 1, j + 1):
                    if k == j or sums[k + 1] - sums[start] > limit:
                        out.append(Leaf(prefix_name(prefix, terminal=not c, part=part), start, k))
                        part, start = part + 1, k
        i = j
    flush()


def clip(text: str, max_bytes: int) -> str:
    """`text` cut to at most `max_bytes` of UTF-8 (with an ellipsis when cut), never mid-character."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[: max_bytes - 3].decode("utf-8", "ignore").rstrip() + "…"


def chunk_by_size(items: Sequence[bytes], max_bytes: int) -> list[list[bytes]]:
    """Consecutive runs of `items` of at most `max_bytes` together (an item larger than that alone)."""
    chunks: list[list[bytes]] = []
    size = 0
    for item in items:
        if not chunks or size + len(item) > max_bytes:
            chunks.append([])
            size = 0
        chunks[-1].append(item)
        size += len(item)
    return chunks


# continuation pages: an entity or source page too large to read is cut -------------------------

PAGE_LIMIT = 240_000  # bytes of a generated page; past it an overview and continuation pages
KEEP_ITEMS = (20, 10, 5, 2, 1)  # items kept per section on an overview: the first count that fits


def _sections(text: str) -> tuple[str, list[tuple[str, list[str]]]]:
    """(head, [(section title, items)]): a page's text before its first "## " heading, and each
    section's list items ("- " lines with the indented lines under them)."""
    head, *parts = text.split("\n## ")
    sections = []
    for part in parts:
        title, _, body = part.partition("\n")
        items: list[str] = []
        for line in body.split("\n"):
            if line.startswith("- ") or not items:
                if line:
                    items.append(line)
            elif line:
                items[-1] += "\n" + line
        sections.append((title, items))
    return head, sections


def continuation_name(page: str, part: int) -> str:
    return f"{page}.{part}"


def split_page(page: str, text: str, title: str) -> list[tuple[str, str]]:
    """[(path, text)] of a rendered page (`title`: its name, safe as a link label): itself when it fits in PAGE_LIMIT, else an overview
    (each section's first items, and where the rest continue) and continuation pages holding the
    rest of every cut section in order."""
    if len(text.encode("utf-8")) <= PAGE_LIMIT:
        return [(f"{page}.md", text)]
    head, sections = _sections(text)
    for keep in KEEP_ITEMS:
        rest = [(name, item) for name, items in sections for item in items[keep:]]
        parts = chunk_by_size([f"{name}\0{item}\n".encode() for name, item in rest], PAGE_LIMIT - 2_000)
        starts: dict[str, int] = {}  # the part where each cut section continues
        for n, chunk in enumerate(parts, start=2):
            for entry in chunk:
                starts.setdefault(entry.split(b"\0", 1)[0].decode("utf-8"), n)
        overview = [head]
        for name, items in sections:
            body = "\n".join(items[:keep])
            if len(items) > keep:
                more = f"- … {len(items) - keep:,} more on [[{continuation_name(page, starts[name])}|part {starts[name]}]]"
                body = f"{body}\n{more}" if body else more
            overview.append(f"\n## {name}\n\n{body}\n")
        text_out = "".join(overview)
        if len(text_out.encode("utf-8")) <= PAGE_LIMIT or keep == KEEP_ITEMS[-1]:
            break
    pages = [(f"{page}.md", text_out)]
    for n, chunk in enumerate(parts, start=2):
        lines = [f"---\ntype: continuation\ntags: [kg-index]\nof: {page}\npart: {n}\n---\n"
                 f"# {title} (part {n})\n\n[[{page}|{title}]], part {n} of {len(parts) + 1}\n"]
        current = None
        for entry in chunk:
            name, item = entry.decode("utf-8").split("\0", 1)
            if name != current:
                lines.append(f"\n## {name}\n\n")
                current = name
            lines.append(item)
        pages.append((f"{continuation_name(page, n)}.md", "".join(lines)))
    return pages

"""A source's text cut into parts a page can show, and into segments that evidence spans cover.

Spans may overlap (two claims quote the same sentence), so the text is cut at every span's start
and end: each segment carries the claims whose spans cover it (none for plain text), and a page
marks each covered segment once (`<mark>`), whatever the overlaps.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

PART_CHARS = 100_000  # characters of a source a page shows at most (a part: `?part=N`)


@dataclass(frozen=True)
class Segment:
    text: str
    claims: tuple[str, ...] = ()  # the claims whose evidence covers this segment
    starts: tuple[str, ...] = ()  # the claims whose evidence starts here (their anchors)


@dataclass(frozen=True)
class Span:
    claim: str
    start: int
    end: int


@dataclass
class Parts:
    """Where each part of a text starts: parts end at a line break where there is one."""

    bounds: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, text: str, size: int = PART_CHARS) -> Parts:
        bounds = [0]
        while len(text) - bounds[-1] > size:
            cut = text.rfind("\n", bounds[-1] + size // 2, bounds[-1] + size)
            bounds.append(cut + 1 if cut >= 0 else bounds[-1] + size)
        return cls(bounds)

    def __len__(self) -> int:
        return len(self.bounds)

    def range(self, part: int, length: int) -> tuple[int, int]:
        """[start, end) of part `part` (1-based) of a text of `length` characters."""
        start = self.bounds[part - 1]
        end = self.bounds[part] if part < len(self.bounds) else length
        return start, end

    def part_of(self, offset: int) -> int:
        """The part (1-based) that holds character `offset`."""
        part = 1
        for n, start in enumerate(self.bounds, 1):
            if start <= offset:
                part = n
        return part


def segments(text: str, offset: int, spans: Sequence[Span]) -> list[Segment]:
    """`text` (which starts at character `offset` of the source) cut where `spans` start and end;
    each segment knows the claims covering it. Spans are clipped to the text; one sweep over the cuts."""
    end = offset + len(text)
    opening: dict[int, list[str]] = defaultdict(list)
    closing: dict[int, list[str]] = defaultdict(list)
    anchors: dict[int, set[str]] = defaultdict(set)
    for span in spans:
        a, b = max(span.start, offset), min(span.end, end)
        if a < b:
            opening[a].append(span.claim)
            closing[b].append(span.claim)
            if span.start == a:
                anchors[a].add(span.claim)
    cuts = sorted({offset, end, *opening, *closing})
    active: Counter[str] = Counter()
    out: list[Segment] = []
    for a, b in pairwise(cuts):
        active.subtract(closing.get(a, ()))
        active.update(opening.get(a, ()))
        covering = tuple(sorted(claim for claim, n in active.items() if n > 0))
        out.append(Segment(text[a - offset : b - offset], covering, tuple(sorted(anchors.get(a, ())))))
    return out

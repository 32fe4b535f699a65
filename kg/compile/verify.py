"""Evidence verification: every quote must occur in the chunk it came from.

Comparison ignores differences of white space and of quote characters (models often
retype “curly” quotes); the span stored is the one in the original source text. In CJK text
it also ignores full-width against ASCII punctuation (（，） and (,)), 「」『』 against quotes,
and a space put in or left out beside a CJK letter ("用 Claude" and "用Claude").
"""

from __future__ import annotations

from dataclasses import dataclass

from kg.models import Chunk, ExtractedClaim
from kg.text import CJK_RUN

_QUOTE_CHARS = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "‚": "'", "`": "'", "\u00a0": " ",
                               "「": '"', "」": '"', "『": '"', "』": '"', "\u3000": " ",
                               **{chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)}})  # full-width forms


@dataclass(frozen=True)
class Evidence:
    quote: str  # the exact source text of the span
    char_start: int  # offsets into the whole source text
    char_end: int


def _normalise(text: str) -> tuple[str, list[int]]:
    """Collapse white space runs to one space and unify quote characters, keeping an offset map."""
    out: list[str] = []
    offsets: list[int] = []
    in_space = False
    for i, ch in enumerate(text.translate(_QUOTE_CHARS)):
        if ch.isspace():
            if not in_space and out:  # in_space: the space just written is out[-1], a letter before it
                out.append(" ")
                offsets.append(i)
                in_space = True
            continue
        if in_space and (CJK_RUN.match(ch) or CJK_RUN.match(out[-2])):  # no space beside a CJK letter
            out.pop()
            offsets.pop()
        in_space = False
        out.append(ch)
        offsets.append(i)
    return "".join(out), offsets


class ChunkVerifier:
    """Finds quotes in one chunk; normalises the chunk once."""

    def __init__(self, chunk: Chunk) -> None:
        self.chunk = chunk
        self.normal, self.offsets = _normalise(chunk.text)

    def locate(self, quote: str) -> Evidence | None:
        needle, _ = _normalise(quote.strip())
        if len(needle) < 3:
            return None
        at = self.normal.find(needle)
        if at < 0:
            return None
        start = self.offsets[at]
        end = self.offsets[at + len(needle) - 1] + 1
        return Evidence(self.chunk.text[start:end], self.chunk.start + start, self.chunk.start + end)

    def verify(self, claim: ExtractedClaim) -> list[Evidence]:
        """The located evidence of a claim; empty when no quote is found (not stored as fact)."""
        found = [e for e in (self.locate(q) for q in claim.quotes) if e is not None]
        return list({(e.char_start, e.char_end): e for e in found}.values())

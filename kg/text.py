"""Markdown -> plain text with an offset map back to the markdown, and sentence splitting.

Extraction runs on the plain view; evidence quotes are cut from the markdown through the
offset map, so every quote is verbatim source text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HARD_BREAK = "\n\n"

_MARKUP = re.compile(
    r"(?P<fence>^[ \t]{0,3}(?:```|~~~)[^\n]*\n.*?(?:^[ \t]{0,3}(?:```|~~~)[ \t]*$|\Z))"
    r"|(?P<table>^[ \t]*\|[^\n]*\|[ \t]*$)"
    r"|(?P<block>^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,3}[.)][ \t]+|>[ \t]?))"
    r"|(?P<blank>\n[ \t]*\n)"
    r"|(?P<image>!\[[^\]\n]*\]\([^)\n]*\))"
    r"|(?P<wiki>\[\[(?P<wtarget>[^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|(?P<walias>[^\]\n]+))?\]\])"
    r"|(?P<link>\[(?P<ltext>[^\]\n]+)\]\([^)\n]*\))"
    r"|(?P<code>`+)(?P<ctext>[^`\n]+?)(?P=code)"
    r"|(?P<strong>\*\*|__)(?P<stext>[^\n]+?)(?P=strong)"
    r"|(?P<em>(?<![\w*])\*(?![\s*])|(?<![\w_])_(?![\s_]))(?P<etext>[^\n*_]+?)(?P=em)(?![\w])"
    r"|(?P<html></?[A-Za-z][^>\n]*>)"
    r"|(?P<url>https?://[^\s)>\]]+)",
    re.MULTILINE | re.DOTALL,
)


@dataclass
class PlainText:
    """`text` is the plain view; `offsets[i]` is the markdown index of plain character i."""

    text: str
    offsets: list[int]
    links: list[tuple[int, int, str]] = field(default_factory=list)  # plain span -> link target
    strong: list[tuple[int, int]] = field(default_factory=list)  # bold spans (defined terms)
    code: list[tuple[int, int]] = field(default_factory=list)  # code spans: never entities
    tables: list[tuple[int, int]] = field(default_factory=list)  # markdown spans of table rows
    # Markup wrapped around inline text: plain start/end -> markdown start/end of the markup,
    # so a quote that starts or ends at a link or bold term includes its brackets or stars.
    wrap_starts: dict[int, int] = field(default_factory=dict)
    wrap_ends: dict[int, int] = field(default_factory=dict)

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The markdown span covering plain text[start:end]."""
        return (
            self.wrap_starts.get(start, self.offsets[start]),
            self.wrap_ends.get(end, self.offsets[end - 1] + 1),
        )


def to_plain(markdown: str) -> PlainText:
    parts: list[str] = []
    offsets: list[int] = []
    plain = PlainText("", offsets)
    length = 0

    def emit(text: str, start: int, synthetic: bool = False) -> None:
        nonlocal length
        parts.append(text)
        if synthetic:
            offsets.extend([start] * len(text))
        else:
            offsets.extend(range(start, start + len(text)))
        length += len(text)

    pos = 0
    for match in _MARKUP.finditer(markdown):
        if match.start() > pos:
            emit(markdown[pos : match.start()], pos)
        wrapped_from = length
        kind = match.lastgroup if match.lastgroup in {"fence", "table", "block", "blank", "image", "html", "url"} else None
        if match.group("fence") is not None or match.group("blank") is not None or match.group("block") is not None:
            emit(HARD_BREAK, match.start(), synthetic=True)
        elif match.group("table") is not None:
            plain.tables.append((match.start(), match.end()))
            emit(HARD_BREAK, match.start(), synthetic=True)
        elif match.group("wiki") is not None:
            target = match.group("wtarget").strip()
            shown = (match.group("walias") or match.group("wtarget")).strip()
            at = match.start("walias") if match.group("walias") else match.start("wtarget")
            at += len(markdown[at:]) - len(markdown[at:].lstrip())
            begin = length
            emit(shown, at)
            plain.links.append((begin, length, target))
        elif match.group("link") is not None:
            emit(match.group("ltext"), match.start("ltext"))
        elif match.group("code") is not None:
            begin = length
            emit(match.group("ctext"), match.start("ctext"))
            plain.code.append((begin, length))
        elif match.group("strong") is not None:
            begin = length
            emit(match.group("stext"), match.start("stext"))
            plain.strong.append((begin, length))
        elif match.group("em") is not None:
            emit(match.group("etext"), match.start("etext"))
        elif kind in {"image", "html", "url"}:
            emit(" ", match.start(), synthetic=True)
        if match.lastgroup in {"wiki", "wtarget", "walias", "link", "ltext", "code", "ctext", "strong", "stext", "em", "etext"}:
            plain.wrap_starts.setdefault(wrapped_from, match.start())
            plain.wrap_ends[length] = match.end()
        pos = match.end()
    if pos < len(markdown):
        emit(markdown[pos:], pos)
    plain.text = "".join(parts)
    offsets.append(len(markdown))
    return plain


_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "al", "fig", "figs",
    "no", "nos", "inc", "ltd", "co", "corp", "approx", "ca", "cf", "u.s", "u.k", "vol", "pp", "ed", "eds",
    "gen", "col", "lt", "sgt", "capt", "rev", "hon", "mt", "ft", "jan", "feb", "mar", "apr", "jun", "jul",
    "aug", "sep", "sept", "oct", "nov", "dec", "est", "dept", "univ", "assn", "bros", "op",
}
_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s+[\"'“‘(\[]?[A-Z0-9])")


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of the plain view: blocks split at hard breaks, then at sentence ends."""
    spans: list[tuple[int, int]] = []
    for block in re.finditer(r"(?:(?!\n[ \t]*\n).)+", text, re.DOTALL):
        start = block.start()
        for end_match in _END.finditer(text, block.start(), block.end()):
            word = re.search(r"([\w.]+)[.!?]+[\"'”’)\]]*$", text[start : end_match.end()])
            token = word.group(1).lower() if word else ""
            if text[end_match.start()] == "." and (token in _ABBREVIATIONS or re.fullmatch(r"[a-z]", token)):
                continue  # "Dr. Smith", "J. Presper Eckert"
            spans.append(_trim(text, start, end_match.end()))
            start = end_match.end()
        spans.append(_trim(text, start, block.end()))
    return [(s, e) for s, e in spans if e > s]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end

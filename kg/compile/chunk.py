"""Markdown-aware chunking. Every chunk is an exact slice text[start:end] of the source,
so evidence found in a chunk maps back to the source by adding `start`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kg.compile.sources import frontmatter_end
from kg.models import Chunk

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass
class _Block:
    start: int
    end: int
    heading_level: int = 0
    heading: str = ""


def _blocks(text: str, offset: int) -> list[_Block]:
    """Paragraphs, headings and fenced code blocks, with offsets. Fences are never split."""
    blocks: list[_Block] = []
    pos = offset
    current: _Block | None = None
    in_fence = False
    for line in text[offset:].splitlines(keepends=True):
        line_end = pos + len(line)
        stripped = line.strip()
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line.rstrip("\r\n"))
        if heading:
            if current:
                blocks.append(current)
                current = None
            blocks.append(_Block(pos, pos + len(line.rstrip("\r\n")), len(heading.group(1)), heading.group(2)))
        elif not stripped and not in_fence:
            if current:
                blocks.append(current)
                current = None
        elif current is None:
            current = _Block(pos, line_end)
        else:
            current.end = line_end
        pos = line_end
    if current:
        blocks.append(current)
    for block in blocks:  # trim trailing newlines so slices are tidy
        while block.end > block.start and text[block.end - 1] in "\r\n":
            block.end -= 1
    return blocks


def _split_long(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """Split an over-long block at sentence ends (or hard, as a last resort)."""
    pieces: list[tuple[int, int]] = []
    piece_start = start
    last_cut = start
    for match in _SENTENCE_END.finditer(text, start, end):
        if match.start() - piece_start > limit and last_cut > piece_start:
            pieces.append((piece_start, last_cut))
            piece_start = last_cut
        last_cut = match.end()
    while end - piece_start > limit:
        if last_cut > piece_start and last_cut - piece_start <= limit:
            pieces.append((piece_start, last_cut))
            piece_start = last_cut
            continue
        pieces.append((piece_start, piece_start + limit))
        piece_start += limit
    if end > piece_start:
        pieces.append((piece_start, end))
    return pieces


def chunk_text(source_path: str, text: str, chunk_chars: int = 4000) -> list[Chunk]:
    """Group blocks into chunks of at most about `chunk_chars`, starting a chunk at headings."""
    body = frontmatter_end(text)
    headings: list[tuple[int, str]] = []
    chunks: list[Chunk] = []
    spans: list[tuple[int, int]] = []
    chunk_headings: tuple[str, ...] = ()

    def flush() -> None:
        if spans:
            start, end = spans[0][0], spans[-1][1]
            chunks.append(Chunk(source_path, len(chunks), text[start:end], start, end, chunk_headings))
            spans.clear()

    for block in _blocks(text, body):
        if block.heading_level:
            if spans and spans[-1][1] - spans[0][0] > chunk_chars // 4:
                flush()
            headings[:] = [h for h in headings if h[0] < block.heading_level]
            headings.append((block.heading_level, block.heading))
        pieces = (
            _split_long(text, block.start, block.end, chunk_chars)
            if block.end - block.start > chunk_chars
            else [(block.start, block.end)]
        )
        for piece in pieces:
            if spans and piece[1] - spans[0][0] > chunk_chars:
                flush()
            if not spans:
                chunk_headings = tuple(h[1] for h in headings)
            spans.append(piece)
    flush()
    return chunks

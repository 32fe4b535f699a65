"""log.md and the log by month: log.md keeps the latest entries and lists the months; each month's
entries are on log/<YYYY-MM>.md, in parts of `LOG_PER_PAGE` (log/<YYYY-MM>-p2.md, ...), so no page
grows without end. Entries keep their `## [YYYY-MM-DD] op | subject` form.

The log only grows, so an incremental render rewrites log.md and the last part of the months that
gained entries: the new entries are appended to that part as it is on disk (a part that does not
hold the entries log.md counts is rendered again from the graph).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import groupby
from pathlib import Path
from typing import Any

from jinja2 import Environment

from exporters.splice import WikiEdited
from kg.graph.pages import log_entry_count, log_rows, log_rows_after, log_rows_of_month, log_tail
from kg.graph.store import Store

LOG_RECENT = 50
LOG_PER_PAGE = 500
LOG_FOLDER = "log"
_MONTH_LINE = re.compile(rb"^- (\d{4}-\d{2}) \((\d+)\): ", re.MULTILINE)
_TOTAL = re.compile(rb"\nentries: (\d+)\n")
_ENTRY_START = "\n## ["  # each entry's heading (log_entry.md.j2)

Entries = Callable[[list[dict[str, Any]]], str]  # renders log entries


def month_of(row: dict[str, Any]) -> str:
    return str(row["at"])[:7]


def part_page(month: str, part: int) -> str:
    return f"{LOG_FOLDER}/{month}" if part == 1 else f"{LOG_FOLDER}/{month}-p{part}"


def month_pages(env: Environment, entries: Entries, month: str, rows: list[dict[str, Any]],
                first_part: int = 1) -> Iterator[tuple[str, str]]:
    """The parts of a month from `first_part` on; `rows` are the month's entries from that part's start."""
    template = env.get_template("log_month.md.j2")
    for at in range(0, len(rows), LOG_PER_PAGE):
        part = first_part + at // LOG_PER_PAGE
        yield f"{part_page(month, part)}.md", template.render(month=month, part=part) + entries(rows[at:at + LOG_PER_PAGE])


def log_index(env: Environment, entries: Entries, counts: dict[str, int], recent: list[dict[str, Any]]) -> str:
    months = [(m, [part_page(m, p) for p in range(1, (n - 1) // LOG_PER_PAGE + 2)], n) for m, n in sorted(counts.items())]
    head = env.get_template("log.md.j2").render(total=sum(counts.values()), recent=len(recent), months=months)
    return head + entries(recent)


def log_pages(env: Environment, entries: Entries, rows: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """log.md and every month page of the whole log (`rows` in sequence order)."""
    counts = {}
    for month, group in groupby(sorted(rows, key=month_of), key=month_of):  # sorted() is stable: seq order kept
        month_rows = list(group)
        counts[month] = len(month_rows)
        yield from month_pages(env, entries, month, month_rows)
    yield "log.md", log_index(env, entries, counts, rows[-LOG_RECENT:])


def log_pages_after(env: Environment, entries: Entries, store: Store, wiki: Path) -> dict[str, str]:
    """log.md and the month parts that change after the log grew past what log.md says it holds."""
    current = (wiki / "log.md").read_bytes() if (wiki / "log.md").is_file() else b""
    total = log_entry_count(store)
    match = _TOTAL.search(current[:512])
    counts = {m.decode(): int(n) for m, n in _MONTH_LINE.findall(current)}
    logged = int(match[1]) if match else -1
    if logged < 0 or logged > total or sum(counts.values()) != logged:
        if current:
            raise WikiEdited("log.md does not say how many entries it holds")
        return dict(log_pages(env, entries, log_rows(store)))
    files: dict[str, str] = {}
    new = log_rows_after(store, logged, total)
    for month in sorted({month_of(row) for row in new}):
        before = counts.get(month, 0)
        first_part = before // LOG_PER_PAGE + 1
        kept = before - (first_part - 1) * LOG_PER_PAGE  # entries already on the part that grows
        page = wiki / f"{part_page(month, first_part)}.md"
        text = page.read_text(encoding="utf-8") if kept and page.is_file() else ""
        if kept and text.count(_ENTRY_START) == kept:
            # the log only grows: the part keeps its entries and the month's new ones follow them,
            # the bytes a render of all its entries gives, without reading or rendering those again
            rows = [row for row in new if month_of(row) == month]
            files[f"{part_page(month, first_part)}.md"] = text + entries(rows[: LOG_PER_PAGE - kept])
            files |= dict(month_pages(env, entries, month, rows[LOG_PER_PAGE - kept :], first_part + 1))
            counts[month] = before + len(rows)
            continue
        rows = log_rows_of_month(store, month, (first_part - 1) * LOG_PER_PAGE)
        files |= dict(month_pages(env, entries, month, rows, first_part))
        counts[month] = (first_part - 1) * LOG_PER_PAGE + len(rows)
    files["log.md"] = log_index(env, entries, counts, log_tail(store, LOG_RECENT))
    return files


def latest_parts(wiki: Path, now: str) -> list[str]:
    """The month pages new log entries may go to: the part after the last entry of the latest month
    log.md lists, and this month's first page (`now`: "YYYY-MM")."""
    path = wiki / "log.md"
    data = path.read_bytes() if path.is_file() else b""
    months = {m.decode(): int(n) for m, n in _MONTH_LINE.findall(data)}
    parts = {part_page(now, 1)}
    if months:
        month = max(months)
        parts.add(part_page(month, months[month] // LOG_PER_PAGE + 1))  # a full part: the next one
        parts.add(part_page(month, max(1, (months[month] - 1) // LOG_PER_PAGE + 1)))
    return sorted(parts)

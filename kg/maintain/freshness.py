"""Freshness limits ([freshness] in kg.toml): sources older than their limit. A source's age is its
front matter `updated:` or `date:`, else its file's modification time. Read by `kg status` and
`kg lint`; never by the renderer (the wiki is a function of raw/, not of the clock)."""

from __future__ import annotations

import fnmatch
import re
import time
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from kg.compile.sources import parse_frontmatter, scan_files
from kg.config import Config

_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_HEAD_BYTES = 4096  # front matter sits at the top: no need to read a whole file


@dataclass(frozen=True)
class Overdue:
    path: str  # relative to raw/
    age_days: int
    limit_days: int
    pattern: str  # the [freshness] glob that set the limit (the strictest that matches)
    dated_by: str  # "updated", "date" or "mtime"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def limit_for(rel: str, rules: dict[str, int]) -> tuple[str, int] | None:
    """The strictest limit among the patterns that match `rel` (ties: the first pattern by name)."""
    matching = [(days, pattern) for pattern, days in rules.items() if fnmatch.fnmatchcase(rel, pattern)]
    if not matching:
        return None
    days, pattern = min(matching)
    return pattern, days


def source_date(path: Path) -> tuple[float, str]:
    """(seconds since the epoch, what dated it): front matter `updated:`, then `date:`, then mtime."""
    if path.suffix.lower() in (".md", ".markdown"):
        try:
            with path.open("rb") as handle:
                head = handle.read(_HEAD_BYTES).decode("utf-8", errors="replace")
        except OSError:
            head = ""
        meta = parse_frontmatter(head)
        for key in ("updated", "date"):
            value = meta.get(key)
            found = _ISO_DATE.match(value.strip()) if isinstance(value, str) else None
            if found:
                try:
                    when = date(int(found.group(1)), int(found.group(2)), int(found.group(3)))
                except ValueError:
                    continue
                return datetime(when.year, when.month, when.day, tzinfo=UTC).timestamp(), key
    return path.stat().st_mtime, "mtime"


def overdue_sources(raw: Path, config: Config, now: float | None = None) -> list[Overdue]:
    """Sources of raw/ past the freshness limit of their path, sorted by path."""
    if not config.freshness:
        return []
    now = time.time() if now is None else now
    found = []
    for rel, _, _ in scan_files(raw):
        limit = limit_for(rel, config.freshness)
        if limit is None:
            continue
        try:
            stamp, dated_by = source_date(raw / rel)
        except OSError:
            continue  # vanished while we looked: `kg status` reports it as such
        age = int((now - stamp) // 86400)
        if age > limit[1]:
            found.append(Overdue(rel, age, limit[1], limit[0], dated_by))
    return found

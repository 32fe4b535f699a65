"""The shape of a rendered wiki, as a reader meets it: page sizes, and how many links each entity
and source page is from index.md (issue 17's bounds: index.md and sub-indexes at most 64 KB, no
page over 256 KB, every entity and source page within three links)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

INDEX_LIMIT = 64 * 1024
PAGE_LIMIT = 256 * 1024
_LINK = re.compile(r"\[\[([^\]|#\n]+)")


def is_content_page(page: str) -> bool:
    """An entity or source page (not a continuation part: ids and slugs hold no ".")."""
    return page.startswith(("entities/", "sources/")) and "." not in page


def link_depths(wiki: Path, max_depth: int = 3) -> dict[str, int]:
    """Page (without .md) -> the fewest links from index.md to it, for pages within `max_depth`."""
    depth = {"index": 0}
    frontier = ["index"]
    for level in range(1, max_depth + 1):
        following = []
        for page in frontier:
            path = wiki / f"{page}.md"
            if not path.is_file():
                continue
            for target in _LINK.findall(path.read_text(encoding="utf-8")):
                target = target.strip().removesuffix(".md")
                if target not in depth:
                    depth[target] = level
                    following.append(target)
        frontier = following
    return depth


def wiki_shape(wiki: Path) -> dict[str, Any]:
    sizes = {p.relative_to(wiki).as_posix(): p.stat().st_size for p in wiki.rglob("*.md")}
    index_pages = {p: n for p, n in sizes.items() if p == "index.md" or p.startswith("indexes/")}
    content = sorted(p[:-3] for p in sizes if is_content_page(p[:-3]))
    depths = link_depths(wiki)
    unreachable = [p for p in content if p not in depths]
    largest = max(sizes.items(), key=lambda kv: (kv[1], kv[0]), default=("", 0))
    largest_index = max(index_pages.items(), key=lambda kv: (kv[1], kv[0]), default=("", 0))
    return {
        "pages": len(sizes), "bytes": sum(sizes.values()), "index_bytes": sizes.get("index.md", 0),
        "largest_page": {"path": largest[0], "bytes": largest[1]},
        "largest_index_page": {"path": largest_index[0], "bytes": largest_index[1]},
        "pages_over_256k": sorted(p for p, n in sizes.items() if n > PAGE_LIMIT),
        "index_pages_over_64k": sorted(p for p, n in index_pages.items() if n > INDEX_LIMIT),
        "content_pages": len(content), "within_three_links": len(content) - len(unreachable),
        "max_links_to_a_page": max((depths[p] for p in content if p in depths), default=0),
        "unreachable": unreachable[:20],
    }

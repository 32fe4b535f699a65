"""Filed-back answers (`Page` nodes of kind "answer") -> wiki/answers/<id>.md.

The page body is stored in the graph when the answer is saved (`kg query --save`), so a
re-render gives the same bytes; only the front matter and the title are added here.
"""

from __future__ import annotations

import re
from typing import Any

from jinja2 import Environment

_LINK = re.compile(r"\[\[([^\]|#\n]+)")


def answer_pages(env: Environment, pages: list[dict[str, Any]]) -> dict[str, str]:
    template = env.get_template("answer.md.j2")
    return {f"answers/{p['id']}.md": template.render(page=p) for p in sorted(pages, key=lambda p: p["id"])
            if p.get("kind") == "answer"}


def answer_links(pages: list[dict[str, Any]]) -> dict[str, set[str]]:
    """answers/<id> -> the pages its body links to (for the backlinks of those pages)."""
    return {f"answers/{p['id']}": {m.group(1) for m in _LINK.finditer(p.get("body") or "")}
            for p in pages if p.get("kind") == "answer"}

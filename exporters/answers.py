"""Filed-back answers (`Page` nodes of kind "answer") -> wiki/answers/<id>.md.

The page body is stored in the graph when the answer is saved (`kg query --save`), so a
re-render gives the same bytes; only the front matter and the title are added here. An answer
saved in another form keeps that form's data in its body (exporters/forms.py), from which its
companion file is drawn: answers/<id>.png (chart), .canvas (canvas) or .slides.md (Marp deck).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jinja2 import Environment

# the files an answer's form draws beside its page, and their media types (kg serve sends them)
ANSWER_FILES = {".png": "image/png", ".canvas": "application/json", ".slides.md": "text/markdown; charset=utf-8"}
_LINK = re.compile(r"\[\[([^\]|#\n]+)")


def answer_pages(env: Environment, pages: list[dict[str, Any]], companions: bool = True) -> dict[str, str | bytes]:
    """answers/<id>.md of every saved answer, and with `companions` the files their forms draw."""
    template = env.get_template("answer.md.j2")
    out: dict[str, str | bytes] = {}
    for page in sorted(pages, key=lambda p: p["id"]):
        if page.get("kind") != "answer":
            continue
        text = template.render(page=page)
        out[f"answers/{page['id']}.md"] = text
        if companions:
            out |= companion_files(page["id"], page.get("body") or "", text)
    return out


def companion_files(page_id: str, body: str, page_text: str) -> dict[str, str | bytes]:
    """The chart, canvas or deck an answer's form draws from its page (nothing for a plain page)."""
    from exporters.forms import form_spec

    found = form_spec(body)
    if found is None:
        return {}
    form, data = found
    if form == "chart" and data.get("points"):
        from exporters.chart import chart_png

        return {f"answers/{page_id}.png": chart_png(data.get("title", ""), data.get("unit", ""),
                                                    [(str(label), float(value)) for label, value in data["points"]])}
    if form == "canvas" and isinstance(data.get("canvas"), dict):
        from exporters.canvas import dumps

        return {f"answers/{page_id}.canvas": dumps(data["canvas"])}
    if form == "slides":
        from exporters.slides import marp

        return {f"answers/{page_id}.slides.md": marp(page_text, f"answers/{page_id}")[0]}
    return {}


def answer_links(pages: list[dict[str, Any]]) -> dict[str, set[str]]:
    """answers/<id> -> the pages its body links to (for the backlinks of those pages)."""
    return {f"answers/{p['id']}": {m.group(1) for m in _LINK.finditer(p.get("body") or "")}
            for p in pages if p.get("kind") == "answer"}

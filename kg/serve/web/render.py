"""HTML from templates/ (Jinja, every value escaped) and from the markdown of filed answers
(markdown-it-py with raw HTML off; the wiki's [[links]] become links to these pages)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from kg.api.marks import PART_CHARS

# a "\|" before the label: a link inside a markdown table cell (answers in table form)
_WIKILINK = re.compile(r"\[\[([^\]|#\\]+)(?:#\^?([^\]|\\]*))?(?:\\?\|([^\]]*))?\]\]")
_FORM_DATA = re.compile(r"\n<!-- kg-form \w+ .*? -->\s*\Z", re.DOTALL)
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!<>|])")


@cache
def environment() -> Environment:
    env = Environment(loader=PackageLoader("kg.serve.web", "templates"), autoescape=select_autoescape(default=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["link"] = link
    env.filters["pct"] = lambda value: f"{float(value or 0):.2f}"
    env.globals["pager"] = pager
    env.globals["source_url"] = source_url
    return env


def page(name: str, **values: Any) -> str:
    return environment().get_template(name).render(**values)


def link(target: str) -> str:
    """The URL of a wiki path: entities/<id>, sources/<slug>, answers/<id> (a `#anchor` kept)."""
    path, _, anchor = target.partition("#")
    url = "/" + "/".join(quote(part, safe="") for part in path.strip("/").split("/"))
    return url + ("#" + quote(anchor.lstrip("^"), safe="") if anchor else "")


def source_url(slug: str, claim: str, start: int) -> str:
    """Where a claim's evidence is marked on its source's page: the part holding `start` (a long
    source is shown in parts; `?at=` picks it) and the claim's anchor."""
    at = f"?at={int(start)}" if start >= PART_CHARS // 2 else ""
    return f"/sources/{quote(slug, safe='')}{at}#{quote(claim, safe='')}"


def pager(total: int, page: int, size: int) -> dict[str, Any]:
    """Which pages exist around `page` (1-based) of `total` items, `size` a page."""
    pages = max(1, -(-total // size))
    return {"page": page, "pages": pages, "prev": page - 1 if page > 1 else None,
            "next": page + 1 if page < pages else None, "first": (page - 1) * size + 1 if total else 0,
            "last": min(total, page * size)}


@cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table")


def without_form_data(body: str) -> str:
    """A saved answer's body less the data its form's file is drawn from (a trailing comment)."""
    return _FORM_DATA.sub("\n", body)


def markdown(text: str) -> Markup:
    """A filed answer's markdown as HTML: raw HTML in it stays text, [[wiki links]] become links."""

    def to_link(found: re.Match[str]) -> str:
        target, anchor, label = found.group(1), found.group(2), found.group(3)
        shown = _MD_SPECIAL.sub(r"\\\1", label or target)
        return f"[{shown}](<{link(target + ('#' + anchor if anchor else ''))}>)"

    return Markup(_markdown().render(_WIKILINK.sub(to_link, text)))  # markdown-it escapes text; raw HTML is off

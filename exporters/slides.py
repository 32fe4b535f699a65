"""A rendered wiki page as a Marp deck: a title slide, then one slide per section, its list items
(claims with their citations) at most SLIDE_ITEMS to a slide (`kg export slides`, and answers
saved with `kg query --form slides`)."""

from __future__ import annotations

SLIDE_ITEMS = 5


def marp(page_text: str, page: str) -> tuple[str, int]:
    """(the deck's markdown, the number of slides after the title)."""
    body = page_text.split("\n---\n", 1)[1] if page_text.startswith("---\n") else page_text
    body = body.split("\n## Backlinks\n", 1)[0].split("\n<!-- kg-form ", 1)[0]
    title = next((line[2:] for line in body.splitlines() if line.startswith("# ")), page)
    out = ["---", "marp: true", "paginate: true", "---", "", f"# {title}", "", f"From `wiki/{page}.md`", ""]
    slides = 0
    for section in body.split("\n## ")[1:]:
        heading, _, rest = section.partition("\n")
        items = [line for line in rest.splitlines() if line.startswith("- ")]
        prose = [line for line in rest.splitlines() if line.strip() and not line.startswith(("- ", "    "))]
        chunks = [items[i:i + SLIDE_ITEMS] for i in range(0, len(items), SLIDE_ITEMS)] or [[]]
        for n, chunk in enumerate(chunks, start=1):
            suffix = f" ({n}/{len(chunks)})" if len(chunks) > 1 else ""
            out += ["---", "", f"## {heading}{suffix}", ""] + (prose if n == 1 else []) + chunk + [""]
            slides += 1
    return "\n".join(out), slides

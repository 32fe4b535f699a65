"""The Jinja wiki exporter: graph -> wiki/ (entity, source and answer pages, index, log,
contradictions, backlinks), byte-identical for the same graph, written atomically."""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import os
import re
import shutil
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader, StrictUndefined
from jinja2.bccache import Bucket

from exporters.answers import answer_links, answer_pages, companion_files
from exporters.indexes import contradiction_pages, index_pages
from exporters.logpages import log_pages
from exporters.pages import (
    CLAIM_TYPE_TITLES,
    ClaimView,
    WikiGraph,
    load_wiki_graph,
)
from exporters.paging import clip, split_page
from exporters.splice import (
    ContradictionKey,
    IndexEntries,
    contradiction_anchor,
    contradiction_key,
)
from kg.cache import user_cache_dir
from kg.errors import KgError
from kg.graph.store import Store
from kg.names import name_key

TEMPLATES = Path(__file__).parent / "templates"


def yaml_str(value: object) -> str:
    """A YAML scalar that survives any characters: JSON strings are valid YAML."""
    return json.dumps("" if value is None else str(value), ensure_ascii=False)


_LINE_START = re.compile(r"^([#>+\-*]|\d+\.)")


@functools.lru_cache(maxsize=200_000)
def _md_inline(text: str) -> str:
    text = " ".join(text.split())
    text = text.replace("[[", "\\[\\[").replace("]]", "\\]\\]").replace("<", "&lt;")
    return _LINE_START.sub(r"\\\1", text)


def md_inline(value: object) -> str:
    """Source text shown inline: one line, no accidental links, headings or HTML."""
    return _md_inline(str(value or ""))


@functools.lru_cache(maxsize=200_000)
def link_label(value: object) -> str:
    """Text that is safe inside [[target|label]]."""
    return md_inline(value).replace("|", "¦").replace("\\[", "(").replace("\\]", ")").replace("[", "(").replace("]", ")")


_OPTIONS: dict[str, Any] = {"keep_trailing_newline": True, "trim_blocks": True, "lstrip_blocks": True, "autoescape": False}


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), undefined=StrictUndefined,
                      bytecode_cache=_compiled_templates(), **_OPTIONS)
    env.filters.update(yaml=yaml_str, md=md_inline, label=link_label, clip=clip)
    return env


class _CompiledTemplates(FileSystemBytecodeCache):
    """Templates compiled once and kept in the user's cache folder: a process that renders a few
    pages loads the ones it uses instead of compiling them (30 ms of a one-edit compile). Jinja
    keys each by the template's name and checks its source's checksum; the folder's name holds
    Jinja's version and the environment's options, which decide the compiled code too. A file that
    cannot be read or written is compiled anew, never an error."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # a damaged file fails in pickle or marshal, in any of their errors
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


@functools.cache
def _compiled_templates() -> _CompiledTemplates | None:
    base = user_cache_dir()
    if base is None:
        return None
    options = hashlib.sha256(repr(sorted(_OPTIONS.items())).encode()).hexdigest()[:12]
    folder = base / f"templates-{jinja2.__version__}-{options}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return _CompiledTemplates(str(folder))


@dataclass
class RenderReport:
    pages: int  # pages rendered (the whole wiki, or the blast radius of an incremental compile)
    bytes: int  # bytes written
    path: Path
    written: int = 0  # files actually rewritten (unchanged bytes are left alone)
    entities: set[str] | None = None  # the entities whose pages an incremental render rewrote (None: all)


FRONT_MATTER_MAX = 100  # sources and aliases listed in an entity page's front matter (the count says the rest)
INDEX_LABEL_BYTES = 120  # names, titles and paths on index lines are clipped: a leaf of the index stays bounded
POSSIBLE_BELOW = 0.5  # a finding less sure than this is shown as a possible conflict


def _confidence(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "?"


def verdict(claim: ClaimView, other: ClaimView) -> str:
    """Which of two contradicting claims stands, by the authority of their sources."""
    if claim.authority == other.authority:
        return "unresolved: equal source authority"
    if claim.authority > other.authority:
        return f"this claim stands (source authority {claim.authority} > {other.authority})"
    return f"this claim is overruled (source authority {claim.authority} < {other.authority})"


class WikiBuilder:
    """Turns a loaded WikiGraph into {relative path: text}."""

    def __init__(self, graph: WikiGraph) -> None:
        self.g = graph
        self.env = environment()

    def entity_page(self, entity_id: str) -> str:
        return f"entities/{entity_id}"

    def source_page(self, path: str) -> str:
        return f"sources/{self.g.sources[path]['slug']}"

    def entity_link(self, entity_id: str) -> str:
        return f"[[{self.entity_page(entity_id)}|{link_label(self.g.entities[entity_id]['name'])}]]"

    def build(self, only: set[str] | None = None, links: dict[str, set[str]] | None = None) -> dict[str, str | bytes]:
        """{path: text} of every page, or only of the entity and source pages named in `only`."""
        return dict(self.pages(only, links))

    def pages(self, only: set[str] | None = None, links: dict[str, set[str]] | None = None) -> Iterator[tuple[str, str | bytes]]:
        """(path, text) of every page, one at a time (a large wiki is never all in memory), or only
        of the entity and source pages named in `only` (an incremental render splices index,
        contradictions and log: see exporters/incremental.py). Backlinks come from
        `compute_links`, so a partial build writes exactly the bytes a full build would."""
        g = self.g
        visible_entities = sorted(e for e in g.entities if g.has_page(e))
        wanted = (lambda page: True) if only is None else (lambda page: page in only)
        backlinks: dict[str, set[str]] = defaultdict(set)
        for page, targets in (links if links is not None else compute_links(g)).items():
            for target in targets:
                if target != page:
                    backlinks[target].add(page)
        titles = {self.entity_page(e): g.entities[e]["name"] for e in visible_entities}
        titles |= {self.source_page(p): g.sources[p]["title"] for p in g.sources}
        titles["contradictions"] = "Contradictions"
        titles |= {f"answers/{p['id']}": p["title"] for p in g.pages}

        def backlink_list(page: str) -> list[tuple[str, str]]:
            return sorted((p, titles.get(p, p)) for p in backlinks.get(page, set()))

        entity_tpl = self.env.get_template("entity.md.j2")
        for entity_id in visible_entities:
            page = self.entity_page(entity_id)
            if wanted(page):
                text = entity_tpl.render(**self._entity_model(entity_id), backlinks=backlink_list(page))
                yield from split_page(page, text, link_label(g.entities[entity_id]["name"]))
        source_tpl = self.env.get_template("source.md.j2")
        for path in sorted(g.sources):
            page = self.source_page(path)
            if wanted(page):
                text = source_tpl.render(**self._source_model(path), backlinks=backlink_list(page))
                yield from split_page(page, text, link_label(g.sources[path]["title"]))
        if only is None:
            blocks = dict(self.contradiction_entry(row) for row in g.contradictions)
            yield from contradiction_pages(self.env, blocks)
            entries = (self.index_entity_entry(entity_id) for entity_id in visible_entities)
            index = IndexEntries.build((e for e in entries if e is not None), map(self.index_source_entry, g.sources))
            yield from self.index_pages(index, len(blocks))
            yield from log_pages(self.env, self.log_entries, g.log)
        # an answer's companion file (chart, canvas, deck) depends on its page alone: a full render
        # draws it, an incremental one leaves it (saving an answer writes its own, kg/api.py)
        yield from answer_pages(self.env, g.pages, companions=only is None).items()

    # index, contradictions and log: one entry at a time (exporters/splice.py) -------------------

    def index_entity_entry(self, entity_id: str) -> tuple[str, str] | None:
        """(type group title, index line) of an entity (a retired one too: its page stays reachable)."""
        g = self.g
        claims = [g.claims[c] for c in g.claims_of_entity.get(entity_id, [])]
        live = sum(1 for c in claims if c.status == "live")
        entity = g.entities[entity_id]
        label = clip(link_label(entity["name"]), INDEX_LABEL_BYTES)
        summary = self._summary(entity, claims) if live else "retired: every claim about it was retracted"
        line = self.env.get_template("index_entity.md.j2").render(
            link=f"[[{self.entity_page(entity_id)}|{label}]]", summary=summary, claims=live)
        return (entity["type"] or "other").capitalize(), line.rstrip("\n")

    def index_source_entry(self, path: str) -> tuple[str, str]:
        g = self.g
        source = g.sources[path]
        line = self.env.get_template("index_source.md.j2").render(
            link=f"[[{self.source_page(path)}|{clip(link_label(source['title']), INDEX_LABEL_BYTES)}]]",
            path=clip(path, INDEX_LABEL_BYTES), status=source["status"],
            claims=len(g.claims_of_source.get(path, [])))
        return source["slug"], line.rstrip("\n")

    def index_pages(self, index: IndexEntries, contradictions: int) -> Iterator[tuple[str, bytes]]:
        """index.md and the sub-indexes (exporters/indexes.py)."""
        answers = sorted((p["id"], clip(link_label(p["title"]), INDEX_LABEL_BYTES)) for p in self.g.pages
                         if p.get("kind") == "answer")
        return index_pages(self.env, index, answers, contradictions, RENDER_FORMAT)

    def contradiction_entry(self, row: dict[str, Any]) -> tuple[ContradictionKey, bytes]:
        a, b = self.g.claims[row["a"]], self.g.claims[row["b"]]
        if a.authority != b.authority:
            stands, overruled = (a, b) if a.authority > b.authority else (b, a)
            outcome = (f"Stands: “{md_inline(stands.text)}” (authority {stands.authority}); overruled: "
                       f"“{md_inline(overruled.text)}” (authority {overruled.authority}).")
        else:
            outcome = "Unresolved: both sources have the same authority."
        item = {"a": self._claim_row(a, "contradictions", False), "b": self._claim_row(b, "contradictions", False),
                "reason": row["reason"], "confidence": _confidence(row["confidence"]), "method": row["method"],
                "outcome": outcome, "anchor": contradiction_anchor(a.id, b.id),
                "possible": (row["confidence"] or 0.0) < POSSIBLE_BELOW}
        block = self.env.get_template("contradiction.md.j2").render(item=item).encode("utf-8")
        return contradiction_key(block), block

    def log_entries(self, entries: list[dict[str, Any]]) -> str:
        template = self.env.get_template("log_entry.md.j2")
        return "".join(template.render(e=e) for e in entries)

    def _claim_row(self, claim: ClaimView, for_page: str, with_conflicts: bool = True) -> dict[str, Any]:
        citations = []
        for ev in claim.evidence:
            if ev.retracted:
                continue
            target = f"sources/{ev.source_slug}"
            if target == for_page:  # on its own source page a claim cites only its span
                citations.append({"link": "source", "span": f"{ev.char_start}–{ev.char_end}"})
                continue
            citations.append({"link": f"[[{target}#^{claim.id}|{link_label(ev.source_title)}]]",
                              "span": f"{ev.char_start}–{ev.char_end}"})
        entities = []
        for entity_id, _role in claim.entities:
            if self.entity_page(entity_id) != for_page:
                entities.append(self.entity_link(entity_id))
        against = []
        for other_id, reason in claim.contradicts if with_conflicts else ():
            other = self.g.claims[other_id]
            cite = next((ev for ev in other.evidence if not ev.retracted), None)
            link = f"[[sources/{cite.source_slug}#^{other.id}|{link_label(cite.source_title)}]]" if cite else ""
            against.append({"text": other.text, "link": link, "reason": reason,
                            "verdict": verdict(claim, other)})
        superseded = [{"text": self.g.claims[o].text, "reason": r} for o, r in claim.superseded_by]
        return {"id": claim.id, "text": claim.text, "confidence": _confidence(claim.confidence),
                "polarity": claim.polarity, "citations": citations, "entities": entities,
                "value": claim.value, "unit": claim.unit, "status": claim.status,
                "contradicts": against, "superseded_by": superseded, "authority": claim.authority}

    def _entity_model(self, entity_id: str) -> dict[str, Any]:
        g = self.g
        entity = g.entities[entity_id]
        page = self.entity_page(entity_id)
        claim_ids = g.claims_of_entity.get(entity_id, [])
        claims = [g.claims[c] for c in claim_ids]
        groups = []
        for claim_type, title in CLAIM_TYPE_TITLES:
            rows = [self._claim_row(c, page) for c in sorted(claims, key=lambda c: (-c.confidence, c.id))
                    if c.claim_type == claim_type and c.status == "live" and c.subject == entity_id]
            if rows:
                groups.append({"title": title, "claims": rows})
        mentioned_in = [self._claim_row(c, page) for c in sorted(claims, key=lambda c: c.id)
                        if c.status == "live" and c.subject != entity_id]
        retracted = [self._claim_row(c, page) for c in sorted(claims, key=lambda c: c.id) if c.status != "live"]
        related = set(g.related.get(entity_id, set()))
        for claim in claims:
            related.update(e for e, _ in claim.entities)
        related.discard(entity_id)
        related_links = sorted((g.entities[e]["name"].casefold(), self.entity_link(e)) for e in related if g.has_page(e))
        sources = sorted({ev.source_path for c in claims for ev in c.evidence if not ev.retracted})
        open_contradictions = sum(1 for c in claims if c.contradicts)
        summary = self._summary(entity, claims)
        live = sum(1 for c in claims if c.status == "live")
        return {"entity": entity, "summary": summary, "groups": groups, "mentioned_in": mentioned_in,
                "retracted": retracted, "related": [link for _, link in related_links],
                "sources": [(self.source_page(s), g.sources[s]["title"], s) for s in sources],
                "claim_count": live, "contradiction_count": open_contradictions,
                "retired": live == 0, "front_matter_max": FRONT_MATTER_MAX}

    def _summary(self, entity: dict[str, Any], claims: list[ClaimView]) -> str:
        """The entity's own note's definition, else its stored summary, else its best claim."""
        names = {name_key(n) for n in (entity["name"], *(entity["aliases"] or []))}
        live = [c for c in claims if c.status == "live" and c.subject == entity["id"]]

        def own(c: ClaimView) -> bool:
            return any(name_key(ev.source_title) in names for ev in c.evidence if not ev.retracted)

        definitions = sorted((c for c in live if c.claim_type == "definition" and c.polarity > 0),
                             key=lambda c: (not own(c), -c.confidence, c.id))
        if definitions and own(definitions[0]):
            return definitions[0].text
        if entity["summary"]:
            return str(entity["summary"])
        if definitions:
            return definitions[0].text
        best = sorted(live or [c for c in claims if c.status == "live"], key=lambda c: (-c.confidence, c.id))
        return best[0].text if best else ""

    def _source_model(self, path: str) -> dict[str, Any]:
        g = self.g
        source = g.sources[path]
        page = self.source_page(path)
        claims = sorted((g.claims[c] for c in g.claims_of_source.get(path, [])),
                        key=lambda c: min((e.char_start for e in c.evidence if e.source_path == path), default=0))
        rows = [self._claim_row(c, page) for c in claims]
        # an LLM extractor's offline fallback made some claims (kg/llm/extractor.py): each says so
        by_others: dict[str, int] = defaultdict(int)
        for claim, row in zip(claims, rows, strict=True):
            if claim.extractor and source.get("extractor") and claim.extractor != source["extractor"]:
                row["by"] = claim.extractor
                by_others[claim.extractor] += 1
        entities = [(self.entity_link(e), n) for e, n in sorted(g.mentions.get(path, []), key=lambda x: (-x[1], x[0]))
                    if g.has_page(e)]
        return {"source": source, "claims": rows, "entities": entities, "by_others": sorted(by_others.items())}


def compute_links(g: WikiGraph) -> dict[str, set[str]]:
    """Every page's outgoing links, straight from the graph (without rendering anything).

    Mirrors what the templates link to; a test checks it against the rendered pages.
    """
    links: dict[str, set[str]] = defaultdict(set)
    first_cite: dict[str, str | None] = {}

    def cite_of(claim_id: str) -> str | None:
        if claim_id not in g.claims:  # a subgraph: a claim that links to none of its pages
            return None
        if claim_id not in first_cite:
            ev = next((e for e in g.claims[claim_id].evidence if not e.retracted), None)
            first_cite[claim_id] = f"sources/{ev.source_slug}" if ev else None
        return first_cite[claim_id]

    def row_links(claim: ClaimView, page: str) -> set[str]:
        out = {f"sources/{ev.source_slug}" for ev in claim.evidence if not ev.retracted}
        out |= {f"entities/{e}" for e, _ in claim.entities}
        out |= {t for o, _ in claim.contradicts if (t := cite_of(o))}
        out.discard(page)
        return out

    for entity_id, claim_ids in g.claims_of_entity.items():
        if not claim_ids:
            continue
        page = f"entities/{entity_id}"
        related = set(g.related.get(entity_id, set()))
        for claim_id in claim_ids:
            claim = g.claims[claim_id]
            links[page] |= row_links(claim, page)
            related.update(e for e, _ in claim.entities)
            if claim.contradicts:
                links[page].add("contradictions")
        related.discard(entity_id)
        links[page] |= {f"entities/{e}" for e in related if g.has_page(e)}
    for path, source in g.sources.items():
        page = f"sources/{source['slug']}"
        for claim_id in g.claims_of_source.get(path, []):
            links[page] |= row_links(g.claims[claim_id], page)
        links[page] |= {f"entities/{e}" for e, _ in g.mentions.get(path, []) if g.has_page(e)}
    for row in g.contradictions:
        links["contradictions"] |= row_links(g.claims[row["a"]], "contradictions") | row_links(g.claims[row["b"]], "contradictions")
    for page, targets in answer_links(g.pages).items():
        links[page] |= targets
    return links


def write_atomically(files: Iterable[tuple[str, str | bytes]], wiki: Path) -> tuple[int, int]:
    """Write the wiki, page by page as `files` yields them, into a fresh folder beside `wiki`,
    then swap it in. Hidden entries of the old wiki (an `.obsidian/` vault config) are carried
    over. A crash before the swap leaves the old wiki untouched; stale temporary folders are
    cleared on the next render. Returns (bytes written, files written)."""
    parent = wiki.parent
    tmp = parent / f".wiki.tmp-{os.getpid()}"
    old = parent / f".wiki.old-{os.getpid()}"
    for stale in list(parent.glob(".wiki.tmp-*")) + list(parent.glob(".wiki.old-*")):
        shutil.rmtree(stale, ignore_errors=True)
    total = count = 0
    try:
        tmp.mkdir(parents=True)
        folders: set[Path] = set()
        for rel, text in files:
            target = tmp / rel
            if target.parent not in folders:
                target.parent.mkdir(parents=True, exist_ok=True)
                folders.add(target.parent)
            data = text.encode("utf-8") if isinstance(text, str) else text
            target.write_bytes(data)
            total += len(data)
            count += 1
        if wiki.exists():
            for entry in sorted(wiki.iterdir()):
                if entry.name.startswith("."):
                    if entry.is_dir():
                        shutil.copytree(entry, tmp / entry.name, symlinks=True)
                    else:
                        shutil.copy2(entry, tmp / entry.name)
            os.rename(wiki, old)
        os.rename(tmp, wiki)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not wiki.exists():
            os.rename(old, wiki)
        raise KgError(f"Could not write the wiki at {wiki}: {exc.strerror or exc}. The previous wiki is unchanged; "
                      "check free disk space and write permission on the folder.") from exc
    shutil.rmtree(old, ignore_errors=True)
    return total, count


_LINK = re.compile(r"\[\[([^\]|#\n]+)")


def page_links(text: str) -> set[str]:
    """Targets of the [[wikilinks]] of a rendered page, its Backlinks section excluded."""
    body = text.split("\n## Backlinks\n", 1)[0]
    return {m.group(1) for m in _LINK.finditer(body)}


def linking_pages(text: str) -> set[str]:
    """The pages a rendered page's Backlinks section lists: those that link to it."""
    parts = text.split("\n## Backlinks\n", 1)
    return {m.group(1) for m in _LINK.finditer(parts[1])} if len(parts) == 2 else set()


RENDER_FORMAT = "4"  # index.md records it; an incremental render of a wiki in another format renders everything


def frontmatter_head(page: Path) -> bytes:
    """The first bytes of a page, enough for its frontmatter (b"" if there is no such page)."""
    try:
        with page.open("rb") as handle:
            return handle.read(512)
    except OSError:
        return b""


def render_full(store: Store, wiki: Path) -> RenderReport:
    """Every page, built in a temporary folder and swapped in."""
    graph = load_wiki_graph(store)
    gc.freeze()  # the graph is long-lived: keep the collector from rescanning it while pages are built
    try:
        size, count = write_atomically(WikiBuilder(graph).pages(), wiki)
    finally:
        gc.unfreeze()
    return RenderReport(pages=count, bytes=size, path=wiki, written=count)


def drawn_files(page: dict[str, Any]) -> dict[str, str | bytes]:
    """The files an answer's form draws, from its page as the wiki renders it (the same bytes as
    `kg render` writes, wherever they are asked for)."""
    text = environment().get_template("answer.md.j2").render(page=page)
    return companion_files(page["id"], page.get("body") or "", text)

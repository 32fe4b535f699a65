"""The Jinja wiki exporter: graph -> wiki/ (entity, source and answer pages, index, log,
contradictions, backlinks), byte-identical for the same graph, written atomically."""

from __future__ import annotations

import functools
import gc
import json
import os
import re
import shutil
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from exporters.graphdata import CLAIM_TYPE_TITLES, ClaimView, Graph, load_graph
from kg.errors import KgError
from kg.names import name_key
from kg.store import Store

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


def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters.update(yaml=yaml_str, md=md_inline, label=link_label)
    return env


@dataclass
class RenderReport:
    pages: int
    bytes: int
    path: Path


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
    """Turns a loaded Graph into {relative path: text}."""

    def __init__(self, graph: Graph) -> None:
        self.g = graph
        self.env = environment()
        self.links: dict[str, set[str]] = defaultdict(set)  # page -> pages it links to

    def entity_page(self, entity_id: str) -> str:
        return f"entities/{entity_id}"

    def source_page(self, path: str) -> str:
        return f"sources/{self.g.sources[path]['slug']}"

    def entity_link(self, entity_id: str) -> str:
        return f"[[{self.entity_page(entity_id)}|{link_label(self.g.entities[entity_id]['name'])}]]"

    def live_claims(self, ids: list[str]) -> list[ClaimView]:
        return [self.g.claims[c] for c in ids if self.g.claims[c].status == "live"]

    def build(self) -> dict[str, str]:
        g = self.g
        visible_entities = sorted(e for e in g.entities if g.claims_of_entity.get(e))
        entity_models = {e: self._entity_model(e) for e in visible_entities}
        source_models = {p: self._source_model(p) for p in sorted(g.sources)}
        contradiction_model = self._contradictions_model()
        backlinks: dict[str, set[str]] = defaultdict(set)
        for page, targets in self.links.items():
            for target in targets:
                if target != page:
                    backlinks[target].add(page)
        titles = {self.entity_page(e): g.entities[e]["name"] for e in visible_entities}
        titles |= {self.source_page(p): g.sources[p]["title"] for p in g.sources}
        titles["contradictions"] = "Contradictions"

        def backlink_list(page: str) -> list[tuple[str, str]]:
            return sorted((p, titles.get(p, p)) for p in backlinks.get(page, set()))

        files: dict[str, str] = {}
        entity_tpl = self.env.get_template("entity.md.j2")
        for entity_id, model in entity_models.items():
            page = self.entity_page(entity_id)
            files[page + ".md"] = entity_tpl.render(**model, backlinks=backlink_list(page))
        source_tpl = self.env.get_template("source.md.j2")
        for path, model in source_models.items():
            page = self.source_page(path)
            files[page + ".md"] = source_tpl.render(**model, backlinks=backlink_list(page))
        files["contradictions.md"] = self.env.get_template("contradictions.md.j2").render(**contradiction_model)
        files["index.md"] = self.env.get_template("index.md.j2").render(**self._index_model(entity_models, source_models))
        files["log.md"] = self.env.get_template("log.md.j2").render(entries=g.log)
        return files

    def _claim_row(self, claim: ClaimView, for_page: str) -> dict[str, Any]:
        citations = []
        for ev in claim.evidence:
            if ev.retracted:
                continue
            target = f"sources/{ev.source_slug}"
            if target == for_page:  # on its own source page a claim cites only its span
                citations.append({"link": "source", "span": f"{ev.char_start}–{ev.char_end}"})
                continue
            self.links[for_page].add(target)
            citations.append({"link": f"[[{target}#^{claim.id}|{link_label(ev.source_title)}]]",
                              "span": f"{ev.char_start}–{ev.char_end}"})
        entities = []
        for entity_id, _role in claim.entities:
            if self.entity_page(entity_id) != for_page:
                entities.append(self.entity_link(entity_id))
                self.links[for_page].add(self.entity_page(entity_id))
        against = []
        for other_id, reason in claim.contradicts:
            other = self.g.claims[other_id]
            cite = next((ev for ev in other.evidence if not ev.retracted), None)
            link = f"[[sources/{cite.source_slug}#^{other.id}|{link_label(cite.source_title)}]]" if cite else ""
            if cite:
                self.links[for_page].add(f"sources/{cite.source_slug}")
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
        related_links = sorted((g.entities[e]["name"].casefold(), self.entity_link(e)) for e in related if g.claims_of_entity.get(e))
        for _, link in related_links:
            self.links[page].add(link[2:].split("|")[0])
        sources = sorted({ev.source_path for c in claims for ev in c.evidence if not ev.retracted})
        open_contradictions = sum(1 for c in claims if c.contradicts)
        if open_contradictions:
            self.links[page].add("contradictions")
        summary = self._summary(entity, claims)
        live = sum(1 for c in claims if c.status == "live")
        return {"entity": entity, "summary": summary, "groups": groups, "mentioned_in": mentioned_in,
                "retracted": retracted, "related": [link for _, link in related_links],
                "sources": [(self.source_page(s), g.sources[s]["title"], s) for s in sources],
                "claim_count": live, "contradiction_count": open_contradictions,
                "retired": live == 0}

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
        entities = [(self.entity_link(e), n) for e, n in sorted(g.mentions.get(path, []), key=lambda x: (-x[1], x[0]))
                    if g.claims_of_entity.get(e)]
        for link, _ in entities:
            self.links[page].add(link[2:].split("|")[0])
        return {"source": source, "claims": rows, "entities": entities}

    def _contradictions_model(self) -> dict[str, Any]:
        g = self.g
        items = []
        for row in sorted(g.contradictions, key=lambda r: (r["a"], r["b"])):
            a, b = g.claims[row["a"]], g.claims[row["b"]]
            if a.authority != b.authority:
                stands, overruled = (a, b) if a.authority > b.authority else (b, a)
                outcome = (f"Stands: “{md_inline(stands.text)}” (authority {stands.authority}); overruled: "
                           f"“{md_inline(overruled.text)}” (authority {overruled.authority}).")
            else:
                outcome = "Unresolved: both sources have the same authority."
            items.append({"a": self._claim_row(a, "contradictions"), "b": self._claim_row(b, "contradictions"),
                          "reason": row["reason"], "confidence": _confidence(row["confidence"]), "method": row["method"],
                          "outcome": outcome})
        return {"items": items}

    def _index_model(self, entity_models: dict[str, dict[str, Any]], source_models: dict[str, dict[str, Any]]) -> dict[str, Any]:
        g = self.g
        by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for entity_id, model in entity_models.items():
            if model["retired"]:
                continue
            by_type[g.entities[entity_id]["type"] or "other"].append(
                {"link": self.entity_link(entity_id), "summary": model["summary"], "sort": g.entities[entity_id]["name"].casefold(),
                 "claims": model["claim_count"]})
        entity_groups: list[dict[str, Any]] = [
            {"type": t, "items": sorted(items, key=lambda i: (i["sort"], i["link"]))} for t, items in sorted(by_type.items())
        ]
        sources = [{"link": f"[[{self.source_page(p)}|{link_label(m['source']['title'])}]]", "path": p,
                    "status": m["source"]["status"], "claims": len(m["claims"])} for p, m in source_models.items()]
        return {"entity_groups": entity_groups, "sources": sources, "contradictions": len(g.contradictions),
                "answers": sorted(g.pages, key=lambda p: p["id"]),
                "entity_count": sum(len(gr["items"]) for gr in entity_groups), "source_count": len(sources)}


def build_pages(store: Store) -> dict[str, str]:
    graph = load_graph(store)
    gc.freeze()  # the graph is long-lived: keep the collector from rescanning it while pages are built
    try:
        return WikiBuilder(graph).build()
    finally:
        gc.unfreeze()


def write_atomically(files: dict[str, str], wiki: Path) -> int:
    """Write all files into a fresh folder beside `wiki`, then swap it in.

    Hidden entries of the old wiki (an `.obsidian/` vault config) are carried over.
    A crash before the swap leaves the old wiki untouched; stale temporary folders are
    cleared on the next render.
    """
    parent = wiki.parent
    tmp = parent / f".wiki.tmp-{os.getpid()}"
    old = parent / f".wiki.old-{os.getpid()}"
    for stale in list(parent.glob(".wiki.tmp-*")) + list(parent.glob(".wiki.old-*")):
        shutil.rmtree(stale, ignore_errors=True)
    total = 0
    try:
        tmp.mkdir(parents=True)
        folders = {str(Path(rel).parent) for rel in files}
        for folder in sorted(folders):
            (tmp / folder).mkdir(parents=True, exist_ok=True)
        for rel in sorted(files):
            data = files[rel].encode("utf-8")
            (tmp / rel).write_bytes(data)
            total += len(data)
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
    return total


def render_wiki(store: Store, wiki: Path) -> RenderReport:
    files = build_pages(store)
    size = write_atomically(files, wiki)
    return RenderReport(pages=len(files), bytes=size, path=wiki)

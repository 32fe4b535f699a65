"""What the web pages of `kg serve` show, read from the graph (kg/graph/browse.py): each call opens
the graph read-only (a read worker keeps it open between calls: kg/graph/kept.py), reads a bounded
page of it and returns plain data. The pages run them in a read worker (api.reader), as the other
faces do their reads; `entity_with_claims` is what the MCP tool kg_entity reads.

Every list is bounded: a page of claims, sources, entities or log entries at a time, the most
connected neighbours of an entity, a part of a source's text. Names not found raise NotFound.
"""

from __future__ import annotations

import difflib
from typing import Any

from exporters.answers import ANSWER_FILES
from kg.api.marks import Parts, Span, segments
from kg.api.reads import claim_show, search_kb
from kg.api.stores import open_store
from kg.errors import QueryError, SourceError
from kg.kb import KnowledgeBase
from kg.names import name_key

PAGE_SIZE = 50  # claims, contradictions and log entries per page
LIST_SIZE = 100  # entities or sources per page of a list
NEIGHBOURS = 30  # nodes drawn around an entity (the most connected first)
EVIDENCE_SHOWN = 3  # evidence links per claim on an entity page
TYPES_SHOWN = 40  # entity types on the home page
TOP_PER_TYPE = 8  # entities listed under each type on the home page (of the TOP_READ most claimed)
TOP_READ = 2000
SEARCH_HITS = 20
NAME_MATCHES = 20
SPANS_PER_PART = 1000  # evidence spans marked in a part of a source


class NotFound(QueryError):
    """What a page names is not in the graph."""


def _store(kb: KnowledgeBase) -> Any:
    return open_store(kb, read_only=True)


def _skip(page: int, size: int) -> int:
    return (max(1, page) - 1) * size


def open_graph(kb: KnowledgeBase) -> None:
    """Open the graph (a read worker keeps it open): run once by each worker as the server starts."""
    with _store(kb) as store:
        store.counts()


def home_page(kb: KnowledgeBase) -> dict[str, Any]:
    from kg.graph import browse

    with _store(kb) as store:
        counts = store.counts()
        types = browse.entity_type_counts(store)
        top: dict[str, list[dict[str, Any]]] = {}
        for row in browse.most_claimed_entities(store, TOP_READ):
            if len(top.setdefault(row["type"], [])) < TOP_PER_TYPE:
                top[row["type"]].append(row)
        _, log = browse.log_page(store, 0, 10)
        answers = browse.answer_list(store, 10)
    return {"counts": counts, "types": types[:TYPES_SHOWN], "types_total": len(types), "top": top, "log": log,
            "answers": answers}


def entity_list_page(kb: KnowledgeBase, entity_type: str, page: int) -> dict[str, Any]:
    from kg.graph import browse

    with _store(kb) as store:
        total, rows = browse.entities_of_type(store, entity_type, _skip(page, LIST_SIZE), LIST_SIZE)
    return {"type": entity_type, "total": total, "rows": rows, "page": page, "size": LIST_SIZE}


def source_list_page(kb: KnowledgeBase, page: int) -> dict[str, Any]:
    from kg.graph import browse

    with _store(kb) as store:
        total, rows = browse.source_list(store, _skip(page, LIST_SIZE), LIST_SIZE)
    return {"total": total, "rows": rows, "page": page, "size": LIST_SIZE}


def entity_page(kb: KnowledgeBase, entity_id: str, page: int) -> dict[str, Any]:
    """An entity's page: the entity, a page of its group's live claims with their evidence, the
    neighbourhood to draw, its sources. {"redirect": id} for an entity merged into another."""
    from kg.graph import browse
    from kg.graph.entities import alias_target_ids, aliases_of, entity_by_id

    with _store(kb) as store:
        row = entity_by_id(store, entity_id)
        if row is None:
            raise NotFound(f"No entity with id {entity_id!r}. Search for it by name.")
        targets = alias_target_ids(store, entity_id)
        if targets:
            return {"redirect": targets[0]}
        merged = aliases_of(store, entity_id)
        group = [entity_id, *(m["id"] for m in merged)]
        total, claims = browse.claims_about_page(store, group, _skip(page, PAGE_SIZE), PAGE_SIZE)
        ids = [c["id"] for c in claims]
        evidence = browse.live_evidence_of(store, ids)
        contradicted = browse.contradiction_counts(store, ids)
        near = browse.neighbours(store, group, NEIGHBOURS)
        links = browse.links_among(store, [n["id"] for n in near])  # the centre's links are `near` itself
        sources_total, sources = browse.sources_of_entities(store, group, 20)
    for claim in claims:
        claim["evidence"] = [e for e in evidence if e["claim"] == claim["id"]][:EVIDENCE_SHOWN]
        claim["contradicted"] = contradicted.get(claim["id"], 0)
    return {"entity": row, "merged": merged, "claims": claims, "claims_total": total, "page": page, "size": PAGE_SIZE,
            "neighbours": near, "links": links, "sources": sources, "sources_total": sources_total}


def entity_id_named(kb: KnowledgeBase, name: str) -> str | None:
    """The id of the entity a name or alias names (for /entities/<name> typed by hand); None when
    it names several (the search page lists them)."""
    from kg.maintain.entities import find_entity

    with _store(kb) as store:
        try:
            return str(find_entity(store, name)["id"])
        except QueryError as exc:
            if str(exc).startswith("No entity"):
                raise NotFound(f"No entity named {name!r}. Search for it.") from exc
            return None


def source_page(kb: KnowledgeBase, slug: str, part: int, at: int | None = None) -> dict[str, Any]:
    """A source's page: a part of its text (the one holding character `at` when given) cut into
    segments its evidence spans cover, the claims whose evidence starts in that part, and the
    entities it mentions."""
    from kg.graph import browse

    with _store(kb) as store:
        row = browse.source_by_slug(store, slug)
        if row is None:
            raise NotFound(f"No source {slug!r}. Find sources on the home page or by searching.")
        text, notice = _text_of(kb, row)
        parts = Parts.of(text)
        part = parts.part_of(at) if at is not None else min(max(1, part), len(parts))
        start, end = parts.range(part, len(text))
        rows = browse.evidence_in_source(store, row["path"], start, end, SPANS_PER_PART) if not notice else []
        mentioned_total, mentioned = browse.entities_in_source(store, row["path"], 100)
    spans = [Span(r["claim"], r["span_start"], r["span_end"]) for r in rows]
    return {"source": row, "notice": notice, "part": part, "parts": len(parts), "offset": start,
            "segments": segments(text[start:end], start, spans), "claims": rows, "mentioned": mentioned,
            "mentioned_total": mentioned_total}


def _text_of(kb: KnowledgeBase, row: dict[str, Any]) -> tuple[str, str]:
    """The compiled text of a source, and a notice when raw/ no longer holds it as compiled (then
    no span is marked: the offsets point into the text as it was)."""
    from kg.compile.sources import sha256_bytes, source_text

    path = kb.raw / row["path"]
    if not path.is_file():
        return "", f"raw/{row['path']} is no longer there: the claims below were compiled from it."
    data = path.read_bytes()
    try:
        text = source_text(kb.raw, row["path"], data, kb.converted_path)
    except SourceError as exc:
        return "", str(exc)
    if sha256_bytes(data) != row["sha256"]:
        return text, (f"raw/{row['path']} changed since it was compiled: quotes are not marked. "
                      "Run `kg compile` to bring the graph up to date.")
    return text, ""


def search_page(kb: KnowledgeBase, text: str) -> dict[str, Any]:
    """The search page: BM25 hits (claims, passages, answers), entities named like the words, the
    entities of the claims found, and the sources of the hits or titled like the words."""
    from kg.graph import browse
    from kg.graph.retrieval import source_slugs

    found = search_kb(kb, text, "bm25", SEARCH_HITS)
    words = " ".join(text.casefold().split())
    with _store(kb) as store:
        named = browse.entities_named(store, words, 200) if words else []
        about = [e for h in found.hits for e in h.entities]
        names = browse.names_of(store, about)
        slugs = source_slugs(store, sorted({h.source_path for h in found.hits if h.source_path}))
        titled = browse.sources_titled(store, words, NAME_MATCHES) if words else []
    named.sort(key=lambda e: (e["name"].casefold() != words, not e["name"].casefold().startswith(words), len(e["name"]), e["id"]))
    entities = {e["id"]: e["name"] for e in named[:NAME_MATCHES]}
    for eid in about:
        if eid in names and len(entities) < 2 * NAME_MATCHES:
            entities.setdefault(eid, names[eid])
    sources = {r["slug"]: r["title"] for r in titled}
    hits = []
    for h in found.hits:
        slug = slugs.get(h.source_path, "")
        if slug and len(sources) < 2 * NAME_MATCHES:
            sources.setdefault(slug, h.title or h.source_path)
        hits.append({**h.as_dict(), "slug": slug})
    return {"query": text, "hits": hits, "entities": entities, "sources": sources}


def contradictions_page(kb: KnowledgeBase, page: int) -> dict[str, Any]:
    from kg.graph import browse

    with _store(kb) as store:
        total, rows = browse.open_contradictions(store, _skip(page, PAGE_SIZE), PAGE_SIZE)
        ids = sorted({r["a_id"] for r in rows} | {r["b_id"] for r in rows})
        evidence = browse.live_evidence_of(store, ids)
    first: dict[str, dict[str, Any]] = {}
    for e in evidence:
        first.setdefault(e["claim"], e)
    for r in rows:
        r["a_source"], r["b_source"] = first.get(r["a_id"]), first.get(r["b_id"])
    return {"total": total, "rows": rows, "page": page, "size": PAGE_SIZE}


def log_page(kb: KnowledgeBase, page: int) -> dict[str, Any]:
    from kg.graph import browse

    with _store(kb) as store:
        total, rows = browse.log_page(store, _skip(page, PAGE_SIZE), PAGE_SIZE)
    return {"total": total, "rows": rows, "page": page, "size": PAGE_SIZE}


def answer_page(kb: KnowledgeBase, page_id: str) -> dict[str, Any]:
    from kg.graph import browse

    with _store(kb) as store:
        row = browse.answer_by_id(store, page_id)
    if row is None:
        raise NotFound(f"No filed answer {page_id!r}. Answers are filed with `kg query --save`.")
    return row


def answer_file(kb: KnowledgeBase, name: str) -> tuple[str, bytes]:
    """(media type, bytes) of the file a saved answer's form draws (answers/<id>.png, .canvas,
    .slides.md), drawn from its page as `kg render` draws it."""
    from exporters.wiki import drawn_files

    suffix = next((s for s in ANSWER_FILES if name.endswith(s)), "")
    page_id = name.removesuffix(suffix)
    row = answer_page(kb, page_id)
    content = drawn_files({**row, "id": page_id}).get(f"answers/{name}")
    if not suffix or content is None:
        raise NotFound(f"The answer {page_id!r} draws no {suffix or name!r}: save it with `kg query --form chart|canvas|slides --save`.")
    return ANSWER_FILES[suffix], content.encode("utf-8") if isinstance(content, str) else content


def claim_page(kb: KnowledgeBase, claim_id: str) -> dict[str, Any]:
    """A claim with its evidence checked against raw/ (as `kg claim show`), and its sources' slugs."""
    from kg.graph.retrieval import source_slugs

    try:
        report = claim_show(kb, claim_id).as_dict()
    except QueryError as exc:
        if str(exc).startswith("No claim"):
            raise NotFound(str(exc)) from exc
        raise
    with _store(kb) as store:
        report["slugs"] = source_slugs(store, sorted({e["source_path"] for e in report["evidence"]}))
    return report


def entity_with_claims(kb: KnowledgeBase, name: str, offset: int, max_claims: int) -> tuple[Any, ...]:
    """What the MCP tool kg_entity reads, in one open of the graph: (entity, sources, claims total,
    a page of claims, neighbours); an unknown name suggests close ones."""
    from kg.graph.entities import count_live_claims_about, live_claims_about, neighbour_entities
    from kg.maintain.entities import show

    with _store(kb) as store:
        try:
            entity = show(store, name)
        except QueryError as exc:
            if "No entity" not in str(exc):
                raise
            close = _close_names(store, name)
            hint = f" Close names: {', '.join(close)}." if close else " Try kg_search to find it."
            raise QueryError(f"No entity named {name!r}.{hint}") from exc
        group = [entity["id"], *(m["id"] for m in entity["merged_here"])]
        total = count_live_claims_about(store, group)
        claims = live_claims_about(store, group, offset, max_claims)
        neighbours = neighbour_entities(store, group, 20)
    sources = entity.pop("sources")
    entity.pop("claims")
    return entity, sources, total, claims, neighbours


def _close_names(store: Any, name: str, n: int = 5) -> list[str]:
    """Names of live entities close to `name` (sharing a word with it when any do)."""
    from kg.graph.entities import live_entity_names

    rows = live_entity_names(store)
    key = name_key(name)
    words = {w for w in key.split() if len(w) >= 3}
    pool = [r for r in rows if words & set(r["key"].split())] or rows
    keys = {r["key"]: r["name"] for r in pool}
    return [keys[k] for k in difflib.get_close_matches(key, sorted(keys), n=n, cutoff=0.5)]

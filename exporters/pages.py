"""Read the graph into plain, sorted page models: all of it (`load_wiki_graph`, for a full render)
or the part a set of pages depends on (`load_subgraph`, for an incremental render).

Everything the templates show is computed here, in a fixed order, so that the same graph
always gives the same pages: no clock, no dict or file-system order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kg.graph.pages import (
    about_rows,
    alias_rows,
    claim_rows,
    claims_about,
    claims_from_sources,
    contradiction_rows,
    entities_with_claims,
    entity_rows,
    evidence_rows,
    linked_claims,
    log_rows,
    mention_rows,
    page_rows,
    related_rows,
    source_paths,
    source_rows,
    supersession_rows,
)
from kg.graph.store import NO_OFFSETS, Store

CLAIM_TYPE_TITLES = [
    ("definition", "Definitions"),
    ("quantity", "Quantities and measurements"),
    ("date", "Dates and events"),
    ("relation", "Relations"),
    ("comparison", "Comparisons"),
    ("causal", "Causes and effects"),
    ("opinion", "Opinions and hedged claims"),
    ("fact", "Other statements"),
]


@dataclass
class EvidenceView:
    source_path: str
    source_slug: str
    source_title: str
    quote: str
    char_start: int
    char_end: int
    sha256: str
    retracted: bool
    authority: int = 0


@dataclass
class ClaimView:
    id: str
    text: str
    claim_type: str
    predicate: str
    object: str
    value: float | None
    unit: str
    polarity: int
    confidence: float
    status: str
    extractor: str
    prompt_version: str
    valid_from: str | None
    valid_to: str | None
    subject: str | None = None  # entity id
    entities: list[tuple[str, str]] = field(default_factory=list)  # (entity id, role)
    evidence: list[EvidenceView] = field(default_factory=list)
    contradicts: list[tuple[str, str]] = field(default_factory=list)  # (claim id, reason), open ones only
    superseded_by: list[tuple[str, str]] = field(default_factory=list)  # (claim id, reason)

    @property
    def authority(self) -> int:
        return max((e.authority for e in self.evidence if not e.retracted), default=0)


@dataclass
class WikiGraph:
    sources: dict[str, dict[str, Any]]
    entities: dict[str, dict[str, Any]]
    claims: dict[str, ClaimView]
    mentions: dict[str, list[tuple[str, int]]]  # source path -> [(entity id, count)]
    related: dict[str, set[str]]  # entity id -> related entity ids
    contradictions: list[dict[str, Any]]
    pages: list[dict[str, Any]]
    log: list[dict[str, Any]]
    claims_of_entity: dict[str, list[str]]
    claims_of_source: dict[str, list[str]]
    # A subgraph holds only some claims, so claims_of_entity cannot say which other entities
    # have a page; it lists them here. None: the whole graph is loaded.
    visible: set[str] | None = None
    # A subgraph's claims that are loaded with all their contradictions (the claims shown on its
    # pages); the others are there only as the other side of a contradiction or a link.
    complete: set[str] | None = None

    def has_page(self, entity_id: str) -> bool:
        """Whether the entity gets a page: it (or an entity merged into it) has claims."""
        if self.visible is not None:
            return entity_id in self.visible
        return bool(self.claims_of_entity.get(entity_id))


_ROLE_RANK = {"subject": 0, "object": 1, "mention": 2}


class Aliases:
    """ALIAS_OF edges (few: merges above exact matching), folded so that a merged entity's
    claims, mentions and relations belong to the entity it is an alias of."""

    def __init__(self, store: Store) -> None:
        self.parent = {r["a"]: (r["b"], r["method"], r["score"]) for r in alias_rows(store)}
        self.members: dict[str, set[str]] = defaultdict(set)  # canonical id -> ids merged into it
        for alias_id in self.parent:
            self.members[self.canon(alias_id)].add(alias_id)

    def canon(self, entity_id: str) -> str:
        seen = set()
        while entity_id in self.parent and entity_id not in seen:
            seen.add(entity_id)
            entity_id = self.parent[entity_id][0]
        return entity_id

    def closure(self, entity_ids: Iterable[str]) -> set[str]:
        """The given entities, the entities they are merged into, and everything merged into those:
        the rows `fold` needs to show them."""
        given = set(entity_ids)
        return given | self.expand({self.canon(e) for e in given})

    def expand(self, canonical_ids: Iterable[str]) -> set[str]:
        """The given canonical entities and every entity merged into them."""
        out = set()
        for entity_id in canonical_ids:
            out.add(entity_id)
            out |= self.members.get(entity_id, set())
        return out

    def fold(self, entities: dict[str, dict[str, Any]]) -> None:
        """Record on each canonical entity what was merged into it (names become its aliases)."""
        for entity in entities.values():
            entity["aliases"] = list(entity["aliases"] or [])
            entity["merged"] = []
            entity["merged_into"] = None
        for alias_id in sorted(self.parent):
            target = self.canon(alias_id)
            if target == alias_id or alias_id not in entities or target not in entities:
                continue
            alias, canonical = entities[alias_id], entities[target]
            alias["merged_into"] = target
            canonical["merged"].append({"id": alias_id, "name": alias["name"], "method": self.parent[alias_id][1],
                                        "score": self.parent[alias_id][2]})
            known = {n.casefold() for n in (canonical["name"], *canonical["aliases"])}
            for name in (alias["name"], *alias["aliases"]):
                if name.casefold() not in known:
                    canonical["aliases"].append(name)
                    known.add(name.casefold())


def load_wiki_graph(store: Store) -> WikiGraph:
    """The whole graph."""
    aliases = Aliases(store)
    return _assemble(store, aliases, _Offsets(), log=True)


@dataclass
class _Offsets:
    """The node offsets a subgraph is read by (see kg/graph/pages.py): its claims, the core ones
    among them (those shown on its pages: their contradictions and supersessions are read), and its
    entities and sources (their mentions and relations are read). None: the whole graph."""

    claims: list[int] | None = None
    core: list[int] | None = None
    entities: list[int] | None = None
    sources: list[int] | None = None


def load_subgraph(store: Store, entity_ids: Iterable[str], source_slugs: Iterable[str],
                  aliases: Aliases | None = None) -> WikiGraph:
    """What the pages of the given (canonical) entities and sources depend on: every claim shown
    on them, fully (evidence, entities, contradictions, supersession), the claims these contradict
    or supersede, and every claim, mention or relation through which another page links to them
    (their backlinks). Index, contradictions and log are not loaded (see exporters/splice.py).
    Rows are found from node offsets (`Store.offsets`: primary-key lookups), so what is read
    follows the pages, not the size of the graph."""
    aliases = aliases if aliases is not None else Aliases(store)
    entity_ids = aliases.expand(entity_ids)
    paths = source_paths(store, source_slugs)
    entity_o, path_o = store.offsets("Entity", entity_ids), store.offsets("Source", paths)
    core = claims_about(store, entity_o)
    core |= claims_from_sources(store, path_o)
    core_o = sorted(core.values()) or NO_OFFSETS
    partners = linked_claims(store, core_o)
    offsets = _Offsets(claims=sorted((core | partners).values()) or NO_OFFSETS, core=core_o, entities=entity_o, sources=path_o)
    graph = _assemble(store, aliases, offsets, log=False, wanted_entities=entity_ids, wanted_sources=paths)
    graph.complete = set(core)
    return graph


def _assemble(store: Store, aliases: Aliases, offsets: _Offsets, log: bool,
              wanted_entities: set[str] | None = None, wanted_sources: set[str] | None = None) -> WikiGraph:
    canon = aliases.canon
    claims: dict[str, ClaimView] = {}
    for r in claim_rows(store, offsets.claims):
        claims[r["id"]] = ClaimView(**r)
    claims_of_entity = _attach_roles(claims, about_rows(store, offsets.claims), canon)
    evidence = evidence_rows(store, offsets.claims)
    mentioned = mention_rows(store, offsets.sources, offsets.entities)
    relations = related_rows(store, offsets.entities)

    if wanted_sources is None:
        sources = {r["path"]: r for r in source_rows(store)}
    else:
        needed = wanted_sources | {r["path"] for r in evidence} | {r["s"] for r in mentioned}
        sources = {r["path"]: r for r in source_rows(store, store.offsets("Source", needed))}
    claims_of_source: dict[str, list[str]] = defaultdict(list)
    for r in evidence:
        source = sources[r["path"]]
        claims[r["c"]].evidence.append(EvidenceView(r["path"], source["slug"], source["title"], r["quote"], r["cs"], r["ce"],
                                                r["sha"], bool(r["retracted"]), source["authority"] or 0))
        if not r["retracted"]:
            claims_of_source[r["path"]].append(r["c"])
    counted: dict[tuple[str, str], int] = defaultdict(int)
    for r in mentioned:
        counted[(r["s"], canon(r["e"]))] += r["n"]
    mentions: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for (path, entity_id), count in counted.items():
        mentions[path].append((entity_id, count))
    related: dict[str, set[str]] = defaultdict(set)
    for r in relations:
        a, b = canon(r["a"]), canon(r["b"])
        if a != b:
            related[a].add(b)
            related[b].add(a)

    visible: set[str] | None = None
    if wanted_entities is None:
        entities = {r["id"]: r for r in entity_rows(store)}
    else:
        shown = set(claims_of_entity) | set(related) | {e for pairs in mentions.values() for e, _ in pairs}
        needed = aliases.closure(shown | wanted_entities)
        entities = {r["id"]: r for r in entity_rows(store, store.offsets("Entity", needed))}
        unknown = aliases.expand(shown - set(claims_of_entity))
        visible = set(claims_of_entity) | {canon(e) for e in entities_with_claims(store, store.offsets("Entity", unknown))}
    aliases.fold(entities)

    contradictions = _attach_edges(store, offsets, claims)
    pages = page_rows(store)
    log_entries = log_rows(store) if log else []
    _sort_views(claims, claims_of_entity, claims_of_source, mentions)
    return WikiGraph(sources, entities, claims, dict(mentions), dict(related), contradictions, pages, log_entries,
                 dict(claims_of_entity), dict(claims_of_source), visible)

def _attach_roles(claims: dict[str, ClaimView], rows: list[dict[str, Any]],
                  canon: Callable[[str], str]) -> dict[str, list[str]]:
    """Each claim's entities with their best role (a merged entity's claims belong to the entity it
    is an alias of); returns the claims of each entity."""
    roles: dict[str, dict[str, str]] = defaultdict(dict)
    for r in rows:
        entity_id = canon(r["e"])
        best = roles[r["c"]].get(entity_id)
        if best is None or _ROLE_RANK[r["role"]] < _ROLE_RANK[best]:
            roles[r["c"]][entity_id] = r["role"]
    claims_of_entity: dict[str, list[str]] = defaultdict(list)
    for claim_id, by_entity in roles.items():
        claim = claims[claim_id]
        for entity_id, role in by_entity.items():
            claim.entities.append((entity_id, role))
            if role == "subject":
                claim.subject = entity_id
            claims_of_entity[entity_id].append(claim_id)
    return claims_of_entity


def _attach_edges(store: Store, offsets: _Offsets, claims: dict[str, ClaimView]) -> list[dict[str, Any]]:
    """Open contradictions (both claims still live: a retracted or superseded claim closes one) and
    supersessions, written onto the claims; returns the open contradictions."""
    contradictions = [r for r in contradiction_rows(store, offsets.core) if r["a"] in claims and r["b"] in claims
                      and claims[r["a"]].status == "live" and claims[r["b"]].status == "live"]
    for row in contradictions:
        claims[row["a"]].contradicts.append((row["b"], row["reason"]))
        claims[row["b"]].contradicts.append((row["a"], row["reason"]))
    for r in supersession_rows(store, offsets.core):
        if r["b"] in claims:
            claims[r["b"]].superseded_by.append((r["a"], r["reason"]))
    return contradictions


def _sort_views(claims: dict[str, ClaimView], claims_of_entity: dict[str, list[str]],
                claims_of_source: dict[str, list[str]], mentions: dict[str, list[tuple[str, int]]]) -> None:
    """Every list in one order, whatever order the rows came in: the wiki's bytes depend on it."""
    for claim in claims.values():
        claim.entities.sort()
        claim.evidence.sort(key=lambda e: (e.retracted, e.source_path, e.char_start, e.char_end))
        claim.contradicts.sort()
        claim.superseded_by.sort()
    for values in (*claims_of_entity.values(), *claims_of_source.values()):
        values.sort()
    for pairs in mentions.values():
        pairs.sort()

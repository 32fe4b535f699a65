"""Read the graph into plain, sorted page models: all of it (`load_wiki_graph`, for a full render)
or the part a set of pages depends on (`load_subgraph`, for an incremental render).

Everything the templates show is computed here, in a fixed order, so that the same graph
always gives the same pages: no clock, no dict or file-system order.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

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


def id_list(values: Iterable[str]) -> list[str]:
    """A sorted list parameter for `x IN $list`; never empty (Kuzu cannot type an empty list)."""
    return sorted(set(values)) or [""]


def _rows(store: Store, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    used = {k: v for k, v in (params or {}).items() if re.search(rf"\${k}\b", cypher)}  # Kuzu rejects unused ones
    return store.table(cypher, used).to_pylist()


_ROLE_RANK = {"subject": 0, "object": 1, "mention": 2}

SOURCE_FIELDS = ("s.path AS path, s.slug AS slug, s.title AS title, s.sha256 AS sha256, s.kind AS kind, s.bytes AS bytes, "
                 "s.authority AS authority, s.status AS status, s.error AS error, s.extractor AS extractor, "
                 "s.chunks AS chunks, s.unverified AS unverified")
ENTITY_FIELDS = "e.id AS id, e.name AS name, e.type AS type, e.aliases AS aliases, e.summary AS summary, e.status AS status"
CLAIM_FIELDS = ("c.id AS id, c.text AS text, c.claim_type AS claim_type, c.predicate AS predicate, c.object AS object, "
                "c.value AS value, c.unit AS unit, c.polarity AS polarity, c.confidence AS confidence, c.status AS status, "
                "c.extractor AS extractor, c.prompt_version AS prompt_version, c.valid_from AS valid_from, "
                "c.valid_to AS valid_to")


class Aliases:
    """ALIAS_OF edges (few: merges above exact matching), folded so that a merged entity's
    claims, mentions and relations belong to the entity it is an alias of."""

    def __init__(self, store: Store) -> None:
        self.parent = {r["a"]: (r["b"], r["method"], r["score"]) for r in _rows(
            store, "MATCH (a:Entity)-[m:ALIAS_OF]->(b:Entity) RETURN a.id AS a, b.id AS b, m.method AS method, m.score AS score")}
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
    return _assemble(store, aliases, _Scope(), log=True)


@dataclass
class _Scope:
    """The MATCH clauses of each bulk query: the whole graph, or (for a subgraph) primary-key
    lookups of given ids. Several clauses are unioned; the rows are de-duplicated."""

    claims: tuple[str, ...] = ("MATCH (c:Claim)",)
    about: tuple[str, ...] = ("MATCH (c:Claim)-[a:ABOUT]->(e:Entity)",)
    evidence: tuple[str, ...] = ("MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source)",)
    mentions: tuple[str, ...] = ("MATCH (s:Source)-[m:MENTIONS]->(e:Entity)",)
    related: tuple[str, ...] = ("MATCH (a:Entity)-[:RELATED]->(b:Entity)",)
    contradicts: tuple[str, ...] = ("MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim)",)
    supersedes: tuple[str, ...] = ("MATCH (a:Claim)-[s:SUPERSEDES]->(b:Claim)",)
    params: dict[str, Any] = field(default_factory=dict)

    def rows(self, store: Store, matches: tuple[str, ...], returns: str) -> list[dict[str, Any]]:
        if len(matches) == 1:
            return _rows(store, f"{matches[0]} RETURN {returns}", self.params)
        seen: dict[tuple[Any, ...], dict[str, Any]] = {}
        for match in matches:
            for row in _rows(store, f"{match} RETURN {returns}", self.params):
                seen.setdefault(tuple(row.values()), row)
        return list(seen.values())


def _keyed(store: Store, cypher: str, offsets: list[int]) -> dict[str, int]:
    """id -> node offset of what `cypher` (filtered by `$o`, returning `id` and `o`) finds."""
    return {r["id"]: r["o"] for r in _rows(store, cypher, {"o": offsets})}


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
    paths = {r["path"] for r in _rows(store, "UNWIND $slugs AS k MATCH (s:Source {slug: k}) RETURN s.path AS path",
                                       {"slugs": id_list(source_slugs)})}  # one join: `IN` tests each row against the list
    entity_o, path_o = store.offsets("Entity", entity_ids), store.offsets("Source", paths)
    core = _keyed(store, "MATCH (c:Claim)-[:ABOUT]->(e:Entity) WHERE offset(id(e)) IN $o "
                  "RETURN DISTINCT c.id AS id, offset(id(c)) AS o", entity_o)
    core |= _keyed(store, "MATCH (c:Claim)-[:EXTRACTED_FROM]->(s:Source) WHERE offset(id(s)) IN $o "
                   "RETURN DISTINCT c.id AS id, offset(id(c)) AS o", path_o)
    core_o = sorted(core.values()) or NO_OFFSETS
    partners = _keyed(store, "MATCH (a:Claim)-[:CONTRADICTS|SUPERSEDES]-(c:Claim) WHERE offset(id(a)) IN $o "
                      "RETURN DISTINCT c.id AS id, offset(id(c)) AS o", core_o)
    by_claim = "WHERE offset(id(c)) IN $claims"
    scope = _Scope(
        claims=(f"MATCH (c:Claim) {by_claim}",),
        about=(f"MATCH (c:Claim)-[a:ABOUT]->(e:Entity) {by_claim}",),
        evidence=(f"MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) {by_claim}",),
        mentions=("MATCH (s:Source)-[m:MENTIONS]->(e:Entity) WHERE offset(id(s)) IN $paths",
                  "MATCH (s:Source)-[m:MENTIONS]->(e:Entity) WHERE offset(id(e)) IN $ids"),
        related=("MATCH (a:Entity)-[:RELATED]->(b:Entity) WHERE offset(id(a)) IN $ids",
                 "MATCH (a:Entity)-[:RELATED]->(b:Entity) WHERE offset(id(b)) IN $ids"),
        contradicts=("MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) WHERE offset(id(a)) IN $core",
                     "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) WHERE offset(id(b)) IN $core"),
        supersedes=("MATCH (a:Claim)-[s:SUPERSEDES]->(b:Claim) WHERE offset(id(a)) IN $core",
                    "MATCH (a:Claim)-[s:SUPERSEDES]->(b:Claim) WHERE offset(id(b)) IN $core"),
        params={"ids": entity_o, "paths": path_o, "claims": sorted((core | partners).values()) or NO_OFFSETS,
                "core": core_o},
    )
    graph = _assemble(store, aliases, scope, log=False, wanted_entities=entity_ids, wanted_sources=paths)
    graph.complete = set(core)
    return graph


def _assemble(store: Store, aliases: Aliases, scope: _Scope, log: bool,
              wanted_entities: set[str] | None = None, wanted_sources: set[str] | None = None) -> WikiGraph:
    canon = aliases.canon
    claims: dict[str, ClaimView] = {}
    for r in scope.rows(store, scope.claims, CLAIM_FIELDS):
        claims[r["id"]] = ClaimView(**r)
    roles: dict[str, dict[str, str]] = defaultdict(dict)
    for r in scope.rows(store, scope.about, "c.id AS c, e.id AS e, a.role AS role"):
        entity_id = canon(r["e"])  # a merged entity's claims belong to the entity it is an alias of
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
    evidence_rows = scope.rows(store, scope.evidence, "c.id AS c, s.path AS path, x.quote AS quote, x.char_start AS cs, "
                               "x.char_end AS ce, x.source_sha256 AS sha, x.retracted_at AS retracted")
    mention_rows = scope.rows(store, scope.mentions, "s.path AS s, e.id AS e, m.count AS n")
    related_rows = scope.rows(store, scope.related, "a.id AS a, b.id AS b")

    if wanted_sources is None:
        sources = {r["path"]: r for r in _rows(store, f"MATCH (s:Source) RETURN {SOURCE_FIELDS}")}
    else:
        needed = wanted_sources | {r["path"] for r in evidence_rows} | {r["s"] for r in mention_rows}
        sources = {r["path"]: r for r in _rows(
            store, f"MATCH (s:Source) WHERE offset(id(s)) IN $o RETURN {SOURCE_FIELDS}", {"o": store.offsets("Source", needed)})}
    claims_of_source: dict[str, list[str]] = defaultdict(list)
    for r in evidence_rows:
        source = sources[r["path"]]
        claims[r["c"]].evidence.append(EvidenceView(r["path"], source["slug"], source["title"], r["quote"], r["cs"], r["ce"],
                                                r["sha"], bool(r["retracted"]), source["authority"] or 0))
        if not r["retracted"]:
            claims_of_source[r["path"]].append(r["c"])
    counted: dict[tuple[str, str], int] = defaultdict(int)
    for r in mention_rows:
        counted[(r["s"], canon(r["e"]))] += r["n"]
    mentions: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for (path, entity_id), count in counted.items():
        mentions[path].append((entity_id, count))
    related: dict[str, set[str]] = defaultdict(set)
    for r in related_rows:
        a, b = canon(r["a"]), canon(r["b"])
        if a != b:
            related[a].add(b)
            related[b].add(a)

    visible: set[str] | None = None
    if wanted_entities is None:
        entities = {r["id"]: r for r in _rows(store, f"MATCH (e:Entity) RETURN {ENTITY_FIELDS}")}
    else:
        shown = set(claims_of_entity) | set(related) | {e for pairs in mentions.values() for e, _ in pairs}
        needed = aliases.closure(shown | wanted_entities)
        entities = {r["id"]: r for r in _rows(
            store, f"MATCH (e:Entity) WHERE offset(id(e)) IN $o RETURN {ENTITY_FIELDS}", {"o": store.offsets("Entity", needed)})}
        unknown = aliases.expand(shown - set(claims_of_entity))
        visible = set(claims_of_entity) | {canon(r["id"]) for r in _rows(
            store, "MATCH (:Claim)-[:ABOUT]->(e:Entity) WHERE offset(id(e)) IN $o RETURN DISTINCT e.id AS id",
            {"o": store.offsets("Entity", unknown)})}
    aliases.fold(entities)

    contradictions = scope.rows(store, scope.contradicts, "a.id AS a, b.id AS b, r.reason AS reason, "
                                "r.confidence AS confidence, r.method AS method")
    # Open contradictions: both claims still live (a retracted or superseded claim closes it).
    contradictions = [r for r in contradictions if r["a"] in claims and r["b"] in claims
                      and claims[r["a"]].status == "live" and claims[r["b"]].status == "live"]
    for row in contradictions:
        claims[row["a"]].contradicts.append((row["b"], row["reason"]))
        claims[row["b"]].contradicts.append((row["a"], row["reason"]))
    for r in scope.rows(store, scope.supersedes, "a.id AS a, b.id AS b, s.reason AS reason"):
        if r["b"] in claims:
            claims[r["b"]].superseded_by.append((r["a"], r["reason"]))
    pages = _rows(store, "MATCH (p:Page) RETURN p.id AS id, p.kind AS kind, p.title AS title, p.body AS body")
    log_rows = _rows(store, "MATCH (l:LogEntry) RETURN l.seq AS seq, l.at AS at, l.op AS op, l.subject AS subject, "
                     "l.detail AS detail ORDER BY l.seq") if log else []
    for claim in claims.values():
        claim.entities.sort()
        claim.evidence.sort(key=lambda e: (e.retracted, e.source_path, e.char_start, e.char_end))
        claim.contradicts.sort()
        claim.superseded_by.sort()
    for values in (*claims_of_entity.values(), *claims_of_source.values()):
        values.sort()
    for pairs in mentions.values():
        pairs.sort()
    return WikiGraph(sources, entities, claims, dict(mentions), dict(related), contradictions, pages, log_rows,
                 dict(claims_of_entity), dict(claims_of_source), visible)


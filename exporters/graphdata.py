"""Read the whole graph once (a handful of bulk queries) into plain, sorted page models.

Everything the templates show is computed here, in a fixed order, so that the same graph
always gives the same pages: no clock, no dict or file-system order.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from kg.store import Store

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
class Evidence:
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
    evidence: list[Evidence] = field(default_factory=list)
    contradicts: list[tuple[str, str]] = field(default_factory=list)  # (claim id, reason), open ones only
    superseded_by: list[tuple[str, str]] = field(default_factory=list)  # (claim id, reason)

    @property
    def authority(self) -> int:
        return max((e.authority for e in self.evidence if not e.retracted), default=0)


@dataclass
class Graph:
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


def _rows(store: Store, cypher: str) -> list[dict[str, Any]]:
    return store.table(cypher).to_pylist()


_ROLE_RANK = {"subject": 0, "object": 1, "mention": 2}


def _fold_aliases(store: Store, entities: dict[str, dict[str, Any]]) -> Any:
    """Entities merged by ALIAS_OF edges: return id -> canonical id, and record on each
    canonical entity what was merged into it (names become its aliases; merged ones get no page)."""
    parent = {r["a"]: (r["b"], r["method"], r["score"]) for r in _rows(
        store, "MATCH (a:Entity)-[m:ALIAS_OF]->(b:Entity) RETURN a.id AS a, b.id AS b, m.method AS method, m.score AS score")}

    def canon(entity_id: str) -> str:
        seen = set()
        while entity_id in parent and entity_id not in seen:
            seen.add(entity_id)
            entity_id = parent[entity_id][0]
        return entity_id

    for entity in entities.values():
        entity["aliases"] = list(entity["aliases"] or [])
        entity["merged"] = []
        entity["merged_into"] = None
    for alias_id in sorted(parent):
        target = canon(alias_id)
        if target == alias_id:
            continue
        alias, canonical = entities[alias_id], entities[target]
        alias["merged_into"] = target
        canonical["merged"].append({"id": alias_id, "name": alias["name"], "method": parent[alias_id][1],
                                    "score": parent[alias_id][2]})
        known = {n.casefold() for n in (canonical["name"], *canonical["aliases"])}
        for name in (alias["name"], *alias["aliases"]):
            if name.casefold() not in known:
                canonical["aliases"].append(name)
                known.add(name.casefold())
    return canon


def load_graph(store: Store) -> Graph:
    sources = {r["path"]: r for r in _rows(store, "MATCH (s:Source) RETURN s.path AS path, s.slug AS slug, s.title AS title, "
               "s.sha256 AS sha256, s.kind AS kind, s.bytes AS bytes, s.authority AS authority, s.status AS status, "
               "s.error AS error, s.extractor AS extractor, s.chunks AS chunks, s.unverified AS unverified")}
    entities = {r["id"]: r for r in _rows(store, "MATCH (e:Entity) RETURN e.id AS id, e.name AS name, e.type AS type, "
                "e.aliases AS aliases, e.summary AS summary, e.status AS status")}
    canon = _fold_aliases(store, entities)
    claims: dict[str, ClaimView] = {}
    for r in _rows(store, "MATCH (c:Claim) RETURN c.id AS id, c.text AS text, c.claim_type AS claim_type, "
                   "c.predicate AS predicate, c.object AS object, c.value AS value, c.unit AS unit, "
                   "c.polarity AS polarity, c.confidence AS confidence, c.status AS status, c.extractor AS extractor, "
                   "c.prompt_version AS prompt_version, c.valid_from AS valid_from, c.valid_to AS valid_to"):
        claims[r["id"]] = ClaimView(**r)
    claims_of_entity: dict[str, list[str]] = defaultdict(list)
    roles: dict[str, dict[str, str]] = defaultdict(dict)
    for r in _rows(store, "MATCH (c:Claim)-[a:ABOUT]->(e:Entity) RETURN c.id AS c, e.id AS e, a.role AS role"):
        entity_id = canon(r["e"])  # a merged entity's claims belong to the entity it is an alias of
        best = roles[r["c"]].get(entity_id)
        if best is None or _ROLE_RANK[r["role"]] < _ROLE_RANK[best]:
            roles[r["c"]][entity_id] = r["role"]
    for claim_id, by_entity in roles.items():
        claim = claims[claim_id]
        for entity_id, role in by_entity.items():
            claim.entities.append((entity_id, role))
            if role == "subject":
                claim.subject = entity_id
            claims_of_entity[entity_id].append(claim_id)
    claims_of_source: dict[str, list[str]] = defaultdict(list)
    for r in _rows(store, "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) RETURN c.id AS c, s.path AS path, "
                   "x.quote AS quote, x.char_start AS cs, x.char_end AS ce, x.source_sha256 AS sha, "
                   "x.retracted_at AS retracted"):
        source = sources[r["path"]]
        claims[r["c"]].evidence.append(Evidence(r["path"], source["slug"], source["title"], r["quote"], r["cs"], r["ce"],
                                                r["sha"], r["retracted"] is not None, source["authority"] or 0))
        if r["retracted"] is None:
            claims_of_source[r["path"]].append(r["c"])
    mentions: dict[str, list[tuple[str, int]]] = defaultdict(list)
    counted: dict[tuple[str, str], int] = defaultdict(int)
    for r in _rows(store, "MATCH (s:Source)-[m:MENTIONS]->(e:Entity) RETURN s.path AS s, e.id AS e, m.count AS n"):
        counted[(r["s"], canon(r["e"]))] += r["n"]
    for (path, entity_id), count in counted.items():
        mentions[path].append((entity_id, count))
    related: dict[str, set[str]] = defaultdict(set)
    for r in _rows(store, "MATCH (a:Entity)-[:RELATED]->(b:Entity) RETURN a.id AS a, b.id AS b"):
        a, b = canon(r["a"]), canon(r["b"])
        if a != b:
            related[a].add(b)
            related[b].add(a)
    contradictions = _rows(store, "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) RETURN a.id AS a, b.id AS b, "
                           "r.reason AS reason, r.confidence AS confidence, r.method AS method")
    # Open contradictions: both claims still live (a retracted or superseded claim closes it).
    contradictions = [r for r in contradictions if claims[r["a"]].status == "live" and claims[r["b"]].status == "live"]
    for row in contradictions:
        claims[row["a"]].contradicts.append((row["b"], row["reason"]))
        claims[row["b"]].contradicts.append((row["a"], row["reason"]))
    for r in _rows(store, "MATCH (a:Claim)-[s:SUPERSEDES]->(b:Claim) RETURN a.id AS a, b.id AS b, s.reason AS reason"):
        claims[r["b"]].superseded_by.append((r["a"], r["reason"]))
    pages = _rows(store, "MATCH (p:Page) RETURN p.id AS id, p.kind AS kind, p.title AS title, p.body AS body")
    log = _rows(store, "MATCH (l:LogEntry) RETURN l.seq AS seq, l.at AS at, l.op AS op, l.subject AS subject, "
                "l.detail AS detail ORDER BY l.seq")
    for claim in claims.values():
        claim.entities.sort()
        claim.evidence.sort(key=lambda e: (e.retracted, e.source_path, e.char_start, e.char_end))
        claim.contradicts.sort()
        claim.superseded_by.sort()
    for values in (*claims_of_entity.values(), *claims_of_source.values()):
        values.sort()
    for pairs in mentions.values():
        pairs.sort()
    return Graph(sources, entities, claims, dict(mentions), dict(related), contradictions, pages, log,
                 dict(claims_of_entity), dict(claims_of_source))

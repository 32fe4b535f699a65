"""The queries behind the web pages of `kg serve` (kg/api/browse.py calls them): each returns a
bounded page of rows.

Entities and claims are filtered by node offsets (`Store.offsets`: primary-key lookups), never by
`n.id IN $list`, which Kuzu 0.11.3 answers by testing every row of the table. A list a page shows
is read a page at a time (SKIP / LIMIT) with its total counted apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kg.graph.store import Store

# A canonical entity: live, and no alias of another (its claims show on its group's page).
_CANONICAL = "e.status = 'live' AND NOT EXISTS { MATCH (e)-[:ALIAS_OF]->(:Entity) }"
_SOURCE = "s.path AS path, s.slug AS slug, s.title AS title, s.kind AS kind, s.status AS status, s.sha256 AS sha256"


def _count(store: Store, cypher: str, params: dict[str, Any] | None = None) -> int:
    rows = store.query(cypher, params)
    return int(rows[0]["n"]) if rows else 0


# the home page and lists ----------------------------------------------------------------------


def entity_type_counts(store: Store) -> list[dict[str, Any]]:
    """Rows (type, n) of the canonical live entities, the largest types first."""
    return store.query(f"MATCH (e:Entity) WHERE {_CANONICAL} RETURN e.type AS type, count(*) AS n "
                       "ORDER BY n DESC, type")


def most_claimed_entities(store: Store, limit: int) -> list[dict[str, Any]]:
    """Rows (type, id, name, claims) of the canonical live entities with the most live claims, of any
    type (one read of the ABOUT edges: the home page's lists)."""
    return store.query(f"MATCH (c:Claim)-[:ABOUT]->(e:Entity) WHERE c.status = 'live' AND {_CANONICAL} "
                       "RETURN e.type AS type, e.id AS id, min(e.name) AS name, count(DISTINCT c.id) AS claims "
                       "ORDER BY claims DESC, id LIMIT $limit", {"limit": limit})


def entities_of_type(store: Store, entity_type: str, skip: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """(how many, a page of rows (id, name, summary) by name) of the canonical live entities of a type."""
    where = f"WHERE e.type = $t AND {_CANONICAL}"
    total = _count(store, f"MATCH (e:Entity) {where} RETURN count(*) AS n", {"t": entity_type})
    rows = store.query(f"MATCH (e:Entity) {where} RETURN e.id AS id, e.name AS name, e.summary AS summary "
                       "ORDER BY lower(e.name), e.id SKIP $skip LIMIT $limit", {"t": entity_type, "skip": skip, "limit": limit})
    return total, rows


def source_list(store: Store, skip: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """(how many, a page of rows by title) of the sources that are not removed."""
    where = "WHERE s.status <> 'removed'"
    total = _count(store, f"MATCH (s:Source) {where} RETURN count(*) AS n")
    rows = store.query(f"MATCH (s:Source) {where} RETURN {_SOURCE} ORDER BY lower(s.title), s.path SKIP $skip LIMIT $limit",
                       {"skip": skip, "limit": limit})
    return total, rows


def entities_named(store: Store, words: str, limit: int) -> list[dict[str, Any]]:
    """Rows (id, name, type) of live entities whose name contains `words` (lower case), at most `limit`."""
    return store.query("MATCH (e:Entity) WHERE e.status = 'live' AND lower(e.name) CONTAINS $w "
                       "RETURN e.id AS id, e.name AS name, e.type AS type LIMIT $limit", {"w": words, "limit": limit})


def names_of(store: Store, entity_ids: Sequence[str]) -> dict[str, str]:
    """{id: name} of these entities (one read by offsets, which a read worker keeps between calls)."""
    rows = store.query("MATCH (e:Entity) WHERE offset(id(e)) IN $o RETURN e.id AS id, e.name AS name",
                       {"o": store.offsets("Entity", entity_ids)})
    return {r["id"]: r["name"] for r in rows}


def sources_titled(store: Store, words: str, limit: int) -> list[dict[str, Any]]:
    """Rows of the sources whose title contains `words` (lower case), at most `limit`."""
    return store.query(f"MATCH (s:Source) WHERE s.status <> 'removed' AND lower(s.title) CONTAINS $w RETURN {_SOURCE} "
                       "LIMIT $limit", {"w": words, "limit": limit})


# an entity's page -----------------------------------------------------------------------------


def claims_about_page(store: Store, entity_ids: Sequence[str], skip: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """(how many, a page of rows (id, text, claim_type, confidence, subject)) of the live claims about
    these entities (a group), the most confident first."""
    offsets = {"o": store.offsets("Entity", entity_ids)}
    match = "MATCH (c:Claim)-[a:ABOUT]->(e:Entity) WHERE offset(id(e)) IN $o AND c.status = 'live'"
    total = _count(store, f"{match} RETURN count(DISTINCT c.id) AS n", offsets)
    rows = store.query(f"{match} RETURN c.id AS id, min(c.text) AS text, min(c.claim_type) AS claim_type, "
                       "max(c.confidence) AS confidence, max(CASE WHEN a.role = 'subject' THEN 1 ELSE 0 END) AS subject "
                       "ORDER BY confidence DESC, id SKIP $skip LIMIT $limit", {**offsets, "skip": skip, "limit": limit})
    return total, rows


def live_evidence_of(store: Store, claim_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Rows (claim, slug, title, path, span_start, span_end) of the live evidence of these claims, by claim and place."""
    return store.query("MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) WHERE offset(id(c)) IN $o AND x.retracted_at = '' "
                       "RETURN c.id AS claim, s.slug AS slug, s.title AS title, s.path AS path, x.char_start AS span_start, "
                       "x.char_end AS span_end ORDER BY claim, path, span_start", {"o": store.offsets("Claim", claim_ids)})


def contradiction_counts(store: Store, claim_ids: Sequence[str]) -> dict[str, int]:
    """{claim id: how many live claims contradict it} for those of these claims that have any."""
    rows = store.query("MATCH (c:Claim)-[:CONTRADICTS]-(o:Claim) WHERE offset(id(c)) IN $o AND o.status = 'live' "
                       "RETURN c.id AS id, count(DISTINCT o.id) AS n", {"o": store.offsets("Claim", claim_ids)})
    return {r["id"]: int(r["n"]) for r in rows}


def neighbours(store: Store, entity_ids: Sequence[str], limit: int) -> list[dict[str, Any]]:
    """Rows (id, name, type, claims): the entities most often in the same live claims as these."""
    return store.query("MATCH (e:Entity)<-[:ABOUT]-(c:Claim)-[:ABOUT]->(o:Entity) WHERE offset(id(e)) IN $o "
                       "AND NOT offset(id(o)) IN $o AND c.status = 'live' RETURN o.id AS id, min(o.name) AS name, "
                       "min(o.type) AS type, count(DISTINCT c.id) AS claims ORDER BY claims DESC, id LIMIT $limit",
                       {"o": store.offsets("Entity", entity_ids), "limit": limit})


def links_among(store: Store, entity_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Rows (a_id, b_id, claims): pairs of these entities (a_id < b_id) that live claims are about together."""
    return store.query("MATCH (a:Entity)<-[:ABOUT]-(c:Claim)-[:ABOUT]->(b:Entity) WHERE offset(id(a)) IN $o "
                       "AND offset(id(b)) IN $o AND a.id < b.id AND c.status = 'live' "
                       "RETURN a.id AS a_id, b.id AS b_id, count(DISTINCT c.id) AS claims ORDER BY a_id, b_id",
                       {"o": store.offsets("Entity", entity_ids)})


def sources_of_entities(store: Store, entity_ids: Sequence[str], limit: int) -> tuple[int, list[dict[str, Any]]]:
    """(how many, rows of the sources mentioning these entities, the most mentioning first)."""
    offsets = {"o": store.offsets("Entity", entity_ids)}
    match = "MATCH (s:Source)-[m:MENTIONS]->(e:Entity) WHERE offset(id(e)) IN $o"
    total = _count(store, f"{match} RETURN count(DISTINCT s.path) AS n", offsets)
    rows = store.query(f"{match} RETURN {_SOURCE}, sum(m.count) AS count ORDER BY count DESC, path LIMIT $limit",
                       {**offsets, "limit": limit})
    return total, rows


# a source's page ------------------------------------------------------------------------------


def source_by_slug(store: Store, slug: str) -> dict[str, Any] | None:
    rows = store.query(f"MATCH (s:Source) WHERE s.slug = $slug RETURN {_SOURCE} LIMIT 1", {"slug": slug})
    return rows[0] if rows else None


def evidence_in_source(store: Store, path: str, start: int, end: int, limit: int) -> list[dict[str, Any]]:
    """Rows (claim, text, confidence, status, span_start, span_end, quote) of the live evidence spans in a source that
    start in [start, end), by place, at most `limit`."""
    return store.query("MATCH (s:Source {path: $path})<-[x:EXTRACTED_FROM]-(c:Claim) WHERE x.retracted_at = '' "
                       "AND x.char_start >= $from_char AND x.char_start < $to_char RETURN c.id AS claim, c.text AS text, "
                       "c.confidence AS confidence, c.status AS status, x.char_start AS span_start, x.char_end AS span_end, "
                       "x.quote AS quote ORDER BY span_start, claim LIMIT $limit",
                       {"path": path, "from_char": start, "to_char": end, "limit": limit})


def entities_in_source(store: Store, path: str, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """(how many, rows (id, name, type, count) of the entities a source mentions, the most mentioned first)."""
    match = "MATCH (s:Source {path: $path})-[m:MENTIONS]->(e:Entity)"
    total = _count(store, f"{match} RETURN count(*) AS n", {"path": path})
    rows = store.query(f"{match} RETURN e.id AS id, e.name AS name, e.type AS type, m.count AS count "
                       "ORDER BY count DESC, id LIMIT $limit", {"path": path, "limit": limit})
    return total, rows


# contradictions, the log, answers -------------------------------------------------------------

_OPEN = "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) WHERE a.status = 'live' AND b.status = 'live'"


def open_contradictions(store: Store, skip: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """(how many, a page of rows (a_id, a_text, b_id, b_text, reason, confidence, method), the most certain first)."""
    total = _count(store, f"{_OPEN} RETURN count(*) AS n")
    rows = store.query(f"{_OPEN} RETURN a.id AS a_id, a.text AS a_text, b.id AS b_id, b.text AS b_text, r.reason AS reason, "
                       "r.confidence AS confidence, r.method AS method ORDER BY confidence DESC, a_id, b_id SKIP $skip LIMIT $limit",
                       {"skip": skip, "limit": limit})
    return total, rows


def log_page(store: Store, skip: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """(how many, a page of log entries (seq, at, op, subject, detail), the latest first)."""
    total = _count(store, "MATCH (l:LogEntry) RETURN count(*) AS n")
    rows = store.query("MATCH (l:LogEntry) RETURN l.seq AS seq, l.at AS at, l.op AS op, l.subject AS subject, "
                       "l.detail AS detail ORDER BY seq DESC SKIP $skip LIMIT $limit", {"skip": skip, "limit": limit})
    return total, rows


def answer_by_id(store: Store, page_id: str) -> dict[str, Any] | None:
    rows = store.query("MATCH (p:Page {id: $id}) RETURN p.id AS id, p.kind AS kind, p.title AS title, p.body AS body, "
                       "p.created_at AS created_at", {"id": page_id})
    return rows[0] if rows else None


def answer_list(store: Store, limit: int) -> list[dict[str, Any]]:
    """Rows (id, title) of the latest filed answers."""
    return store.query("MATCH (p:Page) RETURN p.id AS id, p.title AS title ORDER BY p.created_at DESC, id LIMIT $limit",
                       {"limit": limit})

"""Reads of the graph for rendering wiki pages: the rows exporters/pages.py builds its page models
from (the whole graph, or the part some pages depend on), and the reads of an incremental render
(exporters/incremental.py): which pages a change reaches, and the log entries it appends.

A subgraph is read by node offsets, `WHERE offset(id(n)) IN $o`, found with `Store.offsets`
(primary-key lookups), so that what is read follows the pages, not the size of the graph: on
Kuzu 0.11.3 a filter on keys or a join on them scans the whole table (see `Store.offsets`).
Where a read takes offsets, None reads the whole graph.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from kg.graph.store import CLAIM_LINKS, NO_OFFSETS, Store

SOURCE_FIELDS = ("s.path AS path, s.slug AS slug, s.title AS title, s.sha256 AS sha256, s.kind AS kind, s.bytes AS bytes, "
                 "s.authority AS authority, s.status AS status, s.error AS error, s.extractor AS extractor, "
                 "s.chunks AS chunks, s.unverified AS unverified, s.file_stat AS file_stat")
ENTITY_FIELDS = "e.id AS id, e.name AS name, e.type AS type, e.aliases AS aliases, e.summary AS summary, e.status AS status"
CLAIM_FIELDS = ("c.id AS id, c.text AS text, c.claim_type AS claim_type, c.predicate AS predicate, c.object AS object, "
                "c.value AS value, c.unit AS unit, c.polarity AS polarity, c.confidence AS confidence, c.status AS status, "
                "c.extractor AS extractor, c.prompt_version AS prompt_version, c.valid_from AS valid_from, "
                "c.valid_to AS valid_to")
LOG_FIELDS = "l.seq AS seq, l.at AS at, l.op AS op, l.subject AS subject, l.detail AS detail"

# Queries run both for a subgraph (through `_rows`) and for the seeds of an incremental render
# (through `Store.query`, row by row).
_CLAIMS_FROM_SOURCES = ("MATCH (c:Claim)-[:EXTRACTED_FROM]->(s:Source) WHERE offset(id(s)) IN $o "
                        "RETURN DISTINCT c.id AS id, offset(id(c)) AS o")
_LINKED_CLAIMS = ("MATCH (a:Claim)-[:CONTRADICTS|SUPERSEDES]-(c:Claim) WHERE offset(id(a)) IN $o "
                  "RETURN DISTINCT c.id AS id, offset(id(c)) AS o")
_ENTITIES_WITH_CLAIMS = "MATCH (:Claim)-[:ABOUT]->(e:Entity) WHERE offset(id(e)) IN $o RETURN DISTINCT e.id AS id"


def id_list(values: Iterable[str]) -> list[str]:
    """A sorted list parameter for `x IN $list`; never empty (Kuzu cannot type an empty list)."""
    return sorted(set(values)) or [""]


def _rows(store: Store, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The rows of a read, as an Arrow table turned into dicts (fast for bulk reads)."""
    used = {k: v for k, v in (params or {}).items() if re.search(rf"\${k}\b", cypher)}  # Kuzu rejects unused ones
    return store.table(cypher, used).to_pylist()


def _union(store: Store, matches: tuple[str, ...], returns: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of `returns` for one MATCH clause, or for several unioned (rows de-duplicated)."""
    if len(matches) == 1:
        return _rows(store, f"{matches[0]} RETURN {returns}", params)
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for match in matches:
        for row in _rows(store, f"{match} RETURN {returns}", params):
            seen.setdefault(tuple(row.values()), row)
    return list(seen.values())


def _keyed(store: Store, cypher: str, offsets: list[int]) -> dict[str, int]:
    """id -> node offset of what `cypher` (filtered by `$o`, returning `id` and `o`) finds."""
    return {r["id"]: r["o"] for r in _rows(store, cypher, {"o": offsets})}


# the page models: which claims a subgraph holds ---------------------------------------------

def alias_rows(store: Store) -> list[dict[str, Any]]:
    """Every ALIAS_OF edge: the merged entity `a`, the entity `b` it is an alias of, `method`, `score`."""
    return _rows(store, "MATCH (a:Entity)-[m:ALIAS_OF]->(b:Entity) RETURN a.id AS a, b.id AS b, m.method AS method, m.score AS score")


def source_paths(store: Store, slugs: Iterable[str]) -> set[str]:
    """The paths of the sources with these slugs."""
    return {r["path"] for r in _rows(store, "UNWIND $slugs AS k MATCH (s:Source {slug: k}) RETURN s.path AS path",
                                     {"slugs": id_list(slugs)})}  # one join: `IN` tests each row against the list


def claims_about(store: Store, entity_offsets: list[int]) -> dict[str, int]:
    """id -> node offset of the claims about these entities."""
    return _keyed(store, "MATCH (c:Claim)-[:ABOUT]->(e:Entity) WHERE offset(id(e)) IN $o "
                  "RETURN DISTINCT c.id AS id, offset(id(c)) AS o", entity_offsets)


def claims_from_sources(store: Store, source_offsets: list[int]) -> dict[str, int]:
    """id -> node offset of the claims with evidence in these sources (retracted evidence included)."""
    return _keyed(store, _CLAIMS_FROM_SOURCES, source_offsets)


def linked_claims(store: Store, claim_offsets: list[int]) -> dict[str, int]:
    """id -> node offset of the claims contradicting, superseding or superseded by these claims."""
    if not store.has_edges(CLAIM_LINKS):
        return {}
    return _keyed(store, _LINKED_CLAIMS, claim_offsets)


# the page models: their rows ----------------------------------------------------------------
# Each read is of the whole graph, or (given node offsets) of the rows a subgraph needs: its claims
# are given by `claim_offsets`; its mentions and relations are those of its sources and entities;
# its contradictions and supersessions those of its core claims (the ones shown on its pages).

_BY_CLAIM = "WHERE offset(id(c)) IN $claims"


def claim_rows(store: Store, claim_offsets: list[int] | None = None) -> list[dict[str, Any]]:
    """Claims, with the fields of a ClaimView."""
    if claim_offsets is None:
        return _union(store, ("MATCH (c:Claim)",), CLAIM_FIELDS, {})
    return _union(store, (f"MATCH (c:Claim) {_BY_CLAIM}",), CLAIM_FIELDS, {"claims": claim_offsets})


def about_rows(store: Store, claim_offsets: list[int] | None = None) -> list[dict[str, Any]]:
    """ABOUT edges of claims: claim `c`, entity `e`, `role`."""
    returns = "c.id AS c, e.id AS e, a.role AS role"
    if claim_offsets is None:
        return _union(store, ("MATCH (c:Claim)-[a:ABOUT]->(e:Entity)",), returns, {})
    return _union(store, (f"MATCH (c:Claim)-[a:ABOUT]->(e:Entity) {_BY_CLAIM}",), returns, {"claims": claim_offsets})


def evidence_rows(store: Store, claim_offsets: list[int] | None = None) -> list[dict[str, Any]]:
    """EXTRACTED_FROM edges of claims: claim `c`, source `path`, `quote`, `cs`, `ce`, `sha`, `retracted`."""
    returns = ("c.id AS c, s.path AS path, x.quote AS quote, x.char_start AS cs, "
               "x.char_end AS ce, x.source_sha256 AS sha, x.retracted_at AS retracted")
    if claim_offsets is None:
        return _union(store, ("MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source)",), returns, {})
    return _union(store, (f"MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) {_BY_CLAIM}",), returns, {"claims": claim_offsets})


def mention_rows(store: Store, source_offsets: list[int] | None = None,
                 entity_offsets: list[int] | None = None) -> list[dict[str, Any]]:
    """MENTIONS edges (source `s`, entity `e`, count `n`): all, or those of these sources or entities."""
    returns = "s.path AS s, e.id AS e, m.count AS n"
    if source_offsets is None and entity_offsets is None:
        return _union(store, ("MATCH (s:Source)-[m:MENTIONS]->(e:Entity)",), returns, {})
    return _union(store, ("MATCH (s:Source)-[m:MENTIONS]->(e:Entity) WHERE offset(id(s)) IN $paths",
                          "MATCH (s:Source)-[m:MENTIONS]->(e:Entity) WHERE offset(id(e)) IN $ids"),
                  returns, {"ids": entity_offsets, "paths": source_offsets})


def related_rows(store: Store, entity_offsets: list[int] | None = None) -> list[dict[str, Any]]:
    """RELATED edges (entities `a`, `b`): all, or those with either end in these entities."""
    returns = "a.id AS a, b.id AS b"
    if entity_offsets is None:
        return _union(store, ("MATCH (a:Entity)-[:RELATED]->(b:Entity)",), returns, {})
    return _union(store, ("MATCH (a:Entity)-[:RELATED]->(b:Entity) WHERE offset(id(a)) IN $ids",
                          "MATCH (a:Entity)-[:RELATED]->(b:Entity) WHERE offset(id(b)) IN $ids"),
                  returns, {"ids": entity_offsets})


def contradiction_rows(store: Store, claim_offsets: list[int] | None = None) -> list[dict[str, Any]]:
    """CONTRADICTS edges (claims `a`, `b`, `reason`, `confidence`, `method`): all, or those with either end in these claims."""
    returns = "a.id AS a, b.id AS b, r.reason AS reason, r.confidence AS confidence, r.method AS method"
    if claim_offsets is not None and not store.has_edges(CLAIM_LINKS):
        return []
    if claim_offsets is None:
        return _union(store, ("MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim)",), returns, {})
    return _union(store, ("MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) WHERE offset(id(a)) IN $core",
                          "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) WHERE offset(id(b)) IN $core"),
                  returns, {"core": claim_offsets})


def supersession_rows(store: Store, claim_offsets: list[int] | None = None) -> list[dict[str, Any]]:
    """SUPERSEDES edges (claim `a` supersedes `b`, `reason`): all, or those with either end in these claims."""
    returns = "a.id AS a, b.id AS b, s.reason AS reason"
    if claim_offsets is not None and not store.has_edges(CLAIM_LINKS):
        return []
    if claim_offsets is None:
        return _union(store, ("MATCH (a:Claim)-[s:SUPERSEDES]->(b:Claim)",), returns, {})
    return _union(store, ("MATCH (a:Claim)-[s:SUPERSEDES]->(b:Claim) WHERE offset(id(a)) IN $core",
                          "MATCH (a:Claim)-[s:SUPERSEDES]->(b:Claim) WHERE offset(id(b)) IN $core"),
                  returns, {"core": claim_offsets})


def source_rows(store: Store, source_offsets: list[int] | None = None) -> list[dict[str, Any]]:
    """Sources (all, or these), with the fields a page shows."""
    if source_offsets is None:
        rows = _rows(store, f"MATCH (s:Source) RETURN {SOURCE_FIELDS}")
    else:
        rows = _rows(store, f"MATCH (s:Source) WHERE offset(id(s)) IN $o RETURN {SOURCE_FIELDS}", {"o": source_offsets})
    for row in rows:
        # the shard holding a source `kg merge` wrote (file_stat 'shard:<id>'; kg/share/merge.py), else ''.
        # Here, not in the query: Kuzu 0.11.3 takes 10 ms to bind a CASE of string functions in a new process
        stat = row.pop("file_stat") or ""
        row["shard"] = stat[len("shard:"):] if stat.startswith("shard:") else ""
    return rows


def entity_rows(store: Store, entity_offsets: list[int] | None = None) -> list[dict[str, Any]]:
    """Entities (all, or these), with the fields a page shows."""
    if entity_offsets is None:
        return _rows(store, f"MATCH (e:Entity) RETURN {ENTITY_FIELDS}")
    return _rows(store, f"MATCH (e:Entity) WHERE offset(id(e)) IN $o RETURN {ENTITY_FIELDS}", {"o": entity_offsets})


def entities_with_claims(store: Store, entity_offsets: list[int]) -> list[str]:
    """The ids of those of these entities that some claim is about."""
    if entity_offsets == NO_OFFSETS:  # none: nothing to ask
        return []
    return [r["id"] for r in _rows(store, _ENTITIES_WITH_CLAIMS, {"o": entity_offsets})]


def page_rows(store: Store) -> list[dict[str, Any]]:
    """Every saved page (answers): `id`, `kind`, `title`, `body`."""
    return _rows(store, "MATCH (p:Page) RETURN p.id AS id, p.kind AS kind, p.title AS title, p.body AS body")


def log_rows(store: Store) -> list[dict[str, Any]]:
    """The whole log, in sequence order."""
    return _rows(store, f"MATCH (l:LogEntry) RETURN {LOG_FIELDS} ORDER BY l.seq")


# an incremental render: the pages a change reaches, and the log it appends --------------------
# These read few rows, row by row (Store.query).

def changed_claims(store: Store, source_offsets: list[int]) -> dict[str, int]:
    """id -> node offset of the claims with evidence in these sources (retracted evidence included)
    and of the claims contradicting, superseding or superseded by them."""
    touched = {r["id"]: r["o"] for r in store.query(_CLAIMS_FROM_SOURCES, {"o": source_offsets})}
    if store.has_edges(CLAIM_LINKS):
        touched |= {r["id"]: r["o"] for r in store.query(_LINKED_CLAIMS, {"o": sorted(touched.values()) or NO_OFFSETS})}
    return touched


def entities_of_claims(store: Store, claim_offsets: list[int]) -> list[str]:
    """The ids of the entities these claims are about."""
    return [r["id"] for r in store.query(
        "MATCH (c:Claim)-[:ABOUT]->(e:Entity) WHERE offset(id(c)) IN $o RETURN DISTINCT e.id AS id", {"o": claim_offsets})]


def source_slugs_of_claims(store: Store, claim_offsets: list[int]) -> list[str]:
    """The slugs of the sources these claims have evidence in."""
    return [r["slug"] for r in store.query(
        "MATCH (c:Claim)-[:EXTRACTED_FROM]->(s:Source) WHERE offset(id(c)) IN $o RETURN DISTINCT s.slug AS slug",
        {"o": claim_offsets})]


def source_slugs(store: Store, source_offsets: list[int]) -> list[str]:
    """The slugs of these sources."""
    return [r["slug"] for r in store.query("MATCH (s:Source) WHERE offset(id(s)) IN $o RETURN s.slug AS slug",
                                           {"o": source_offsets})]


def mentioned_entities(store: Store, source_offsets: list[int]) -> list[str]:
    """The ids of the entities these sources mention."""
    return [r["id"] for r in store.query(
        "MATCH (s:Source)-[:MENTIONS]->(e:Entity) WHERE offset(id(s)) IN $o RETURN DISTINCT e.id AS id",
        {"o": source_offsets})]


def mentioning_source_slugs(store: Store, entity_offsets: list[int]) -> list[str]:
    """The slugs of the sources that mention these entities."""
    return [r["slug"] for r in store.query(
        "MATCH (s:Source)-[:MENTIONS]->(e:Entity) WHERE offset(id(e)) IN $o RETURN DISTINCT s.slug AS slug",
        {"o": entity_offsets})]


def claimed_entities(store: Store, entity_offsets: list[int]) -> list[str]:
    """`entities_with_claims`, read row by row: the ids of those of these entities that some claim is about."""
    if entity_offsets == NO_OFFSETS:
        return []
    return [r["id"] for r in store.query(_ENTITIES_WITH_CLAIMS, {"o": entity_offsets})]


def retired_entities(store: Store, entity_offsets: list[int]) -> list[str]:
    """The ids of those of these entities that are retired (no live claim or mention left)."""
    return [r["id"] for r in store.query("MATCH (e:Entity) WHERE offset(id(e)) IN $o AND e.status = 'retired' "
                                         "RETURN e.id AS id ORDER BY id", {"o": entity_offsets})]


def log_entry_count(store: Store) -> int:
    """The number of log entries."""
    return store.query("MATCH (l:LogEntry) RETURN count(*) AS n")[0]["n"]


def log_rows_after(store: Store, logged: int, total: int) -> list[dict[str, Any]]:
    """The log entries after the first `logged` of `total`, in sequence order."""
    # Sequence numbers run 1, 2, 3, ... (Store.next_log_seq): the page's n entries are seq 1..n, and
    # the new ones are found without sorting the whole log. Should that not hold, skip n in order.
    entries = store.query(f"MATCH (l:LogEntry) WHERE l.seq > $n RETURN {LOG_FIELDS} ORDER BY l.seq", {"n": logged})
    if logged + len(entries) != total:
        entries = store.query(f"MATCH (l:LogEntry) RETURN {LOG_FIELDS} ORDER BY l.seq SKIP {logged}")
    return entries


def log_rows_of_month(store: Store, month: str, skip: int) -> list[dict[str, Any]]:
    """The log entries of a month ("YYYY-MM"), in sequence order, after the first `skip` of them."""
    return store.query(f"MATCH (l:LogEntry) WHERE l.at STARTS WITH $m RETURN {LOG_FIELDS} ORDER BY l.seq SKIP {int(skip)}",
                       {"m": month})


def log_tail(store: Store, n: int) -> list[dict[str, Any]]:
    """The last `n` log entries, in sequence order."""
    rows = store.query(f"MATCH (l:LogEntry) RETURN {LOG_FIELDS} ORDER BY l.seq DESC LIMIT {int(n)}")
    return rows[::-1]

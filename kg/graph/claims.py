"""Claims: what contradiction detection and supersession read and write (live claims with their
subject, evidence and entities; CONTRADICTS edges; checked_at marks), and the claim reports of
`kg claim`, `kg status` and `kg lint`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from kg.graph.store import CLAIM_LINKS, Store, WriteBatch

# contradiction detection ---------------------------------------------------------------------

_CLAIM_COLUMNS = ("c.id AS id, c.text AS text, e.id AS subject, c.predicate AS predicate, c.claim_type AS claim_type, "
                  "c.polarity AS polarity, c.object AS object, c.confidence AS confidence")
_RECORD_ROWS = (
    "MATCH (c:Claim)-[:ABOUT {role: 'subject'}]->(e:Entity) WHERE c.status = 'live' "
    "OPTIONAL MATCH (c)-[x:EXTRACTED_FROM]->(s:Source) WHERE x.retracted_at = '' "
    "OPTIONAL MATCH (c)-[:ABOUT]->(m:Entity) "
    f"RETURN {_CLAIM_COLUMNS}, max(s.authority) AS authority, c.valid_from AS valid_from, c.recorded_at AS recorded_at, "
    "collect(DISTINCT s.path) AS sources, collect(DISTINCT m.id) AS entities ORDER BY id"
)
# The live claims with a subject: every claim is written with exactly one subject ABOUT edge
# (kg/compile/pipeline.py), so counting live claims counts them without the join (3 ms at 50k, not 30).
_LIVE_ROWS = "MATCH (c:Claim) WHERE c.status = 'live' RETURN count(*) AS n"


def live_claim_rows(store: Store, ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Rows (id, text, subject, predicate, claim_type, polarity, object, confidence, authority,
    valid_from, recorded_at, sources, entities) of the live claims with a subject entity, sorted by
    id: all of them, or those among `ids`."""
    return store.query(_RECORD_ROWS) if ids is None else _record_rows(store, store.offsets("Claim", ids))


def _record_rows(store: Store, offsets: list[int]) -> list[dict[str, Any]]:
    """`_RECORD_ROWS` for the claims at these node offsets, as three flat queries: Kuzu plans the
    OPTIONAL MATCHes of the one query over every evidence edge of the graph (270 ms at 50k sources)."""
    where = {"o": offsets}
    evidence: dict[str, list[tuple[str, int | None]]] = defaultdict(list)
    for r in store.query("MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) WHERE offset(id(c)) IN $o "
                         "AND x.retracted_at = '' RETURN c.id AS id, s.path AS path, s.authority AS authority", where):
        evidence[r["id"]].append((r["path"], r["authority"]))
    entities: dict[str, list[str]] = defaultdict(list)
    for r in store.query("MATCH (c:Claim)-[:ABOUT]->(m:Entity) WHERE offset(id(c)) IN $o RETURN c.id AS id, m.id AS m",
                         where):
        entities[r["id"]].append(r["m"])
    rows = []
    for r in store.query(f"MATCH (c:Claim)-[:ABOUT {{role: 'subject'}}]->(e:Entity) WHERE c.status = 'live' "
                         f"AND offset(id(c)) IN $o RETURN {_CLAIM_COLUMNS}, c.valid_from AS valid_from, "
                         "c.recorded_at AS recorded_at ORDER BY id, subject", where):
        authorities = [a for _, a in evidence[r["id"]] if a is not None]
        rows.append({**{k: r[k] for k in ("id", "text", "subject", "predicate", "claim_type", "polarity", "object",
                                          "confidence")},
                     "authority": max(authorities) if authorities else None, "valid_from": r["valid_from"],
                     "recorded_at": r["recorded_at"], "sources": [p for p, _ in evidence[r["id"]]],
                     "entities": entities[r["id"]]})
    return rows


def count_live_claims(store: Store) -> int:
    """How many claims are live (every one of them has a subject)."""
    return int(store.query(_LIVE_ROWS)[0]["n"])


def unchecked_live_claims(store: Store) -> list[dict[str, Any]]:
    """Rows (id, text) of the live claims contradiction detection has not seen yet."""
    return store.query(
        "MATCH (c:Claim) WHERE c.status = 'live' AND c.checked_at = '' RETURN c.id AS id, c.text AS text")


def departed_claims(store: Store) -> list[dict[str, Any]]:
    """Rows (id) of the claims that left the live ones (retracted, superseded) since contradiction
    detection last saw them: it marks them with `mark_claims_departed`."""
    return store.query("MATCH (c:Claim) WHERE c.status <> 'live' AND c.checked_at <> '' RETURN c.id AS id")


def mark_claims_departed(store: Store, batch: WriteBatch, ids: Iterable[str]) -> None:
    """Queue, last in the batch, clearing checked_at on these claims: detection saw them leave."""
    if (offsets := store.offsets_or_none("Claim", ids)) is not None:
        batch.after.append(("MATCH (c:Claim) WHERE offset(id(c)) IN $o SET c.checked_at = ''", {"o": offsets}))


def live_claims_of_subjects(store: Store, entity_ids: Iterable[str]) -> list[dict[str, Any]]:
    """Rows (id, subject, predicate) of the live claims whose subject is one of these entities."""
    return store.query("MATCH (c:Claim)-[:ABOUT {role: 'subject'}]->(e:Entity) WHERE offset(id(e)) IN $o "
                       "AND c.status = 'live' RETURN c.id AS id, e.id AS subject, c.predicate AS predicate",
                       {"o": store.offsets("Entity", entity_ids)})


def contradiction_edges_of(store: Store, ids: Iterable[str]) -> list[dict[str, Any]]:
    """Rows (a, b, reason, confidence, method) of the CONTRADICTS edges, either way, of these claims."""
    if not store.has_edges(CLAIM_LINKS):
        return []
    return store.query(
        "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) WHERE offset(id(a)) IN $o OR offset(id(b)) IN $o "
        "RETURN a.id AS a, b.id AS b, r.reason AS reason, r.confidence AS confidence, r.method AS method",
        {"o": store.offsets("Claim", ids)})


def claim_source_paths(store: Store, ids: Iterable[str]) -> list[str]:
    """The paths of the sources these claims have evidence in, retracted evidence included."""
    if (offsets := store.offsets_or_none("Claim", ids)) is None:
        return []
    return [r["path"] for r in store.query(
        "MATCH (c:Claim)-[:EXTRACTED_FROM]->(s:Source) WHERE offset(id(c)) IN $o RETURN DISTINCT s.path AS path",
        {"o": offsets})]


def drop_contradictions_of(store: Store, batch: WriteBatch, ids: Iterable[str]) -> None:
    """Queue deleting the CONTRADICTS edges of these claims, either way (they are judged again)."""
    offsets = {"o": store.offsets("Claim", ids)}  # Kuzu deletes directed matches only: each way
    batch.statements.append(("MATCH (a:Claim)-[r:CONTRADICTS]->(:Claim) WHERE offset(id(a)) IN $o DELETE r", offsets))
    batch.statements.append(("MATCH (:Claim)-[r:CONTRADICTS]->(a:Claim) WHERE offset(id(a)) IN $o DELETE r", offsets))


def uncheck_claims_about(store: Store, batch: WriteBatch, entities: Iterable[str]) -> None:
    """Queue marking the live claims about these entities unchecked: their subject changed groups."""
    batch.after.append(("MATCH (c:Claim)-[:ABOUT {role: 'subject'}]->(e:Entity) WHERE offset(id(e)) IN $o "
                        "AND c.status = 'live' SET c.checked_at = ''", {"o": store.offsets("Entity", entities)}))


def mark_claims_checked(store: Store, batch: WriteBatch, ids: Iterable[str], now: str) -> None:
    """Queue, last in the batch, setting checked_at on these claims (seen by contradiction detection)."""
    batch.after.append(("MATCH (c:Claim) WHERE offset(id(c)) IN $o SET c.checked_at = $now",
                        {"o": store.offsets("Claim", ids), "now": now}))


# claim reports -------------------------------------------------------------------------------


def claim_by_id(store: Store, claim_id: str) -> dict[str, Any] | None:
    """Every property of a claim, by name, or None when there is no such claim."""
    rows = store.query("MATCH (c:Claim {id: $id}) RETURN c.* ", {"id": claim_id})
    if not rows:
        return None
    return {k.removeprefix("c."): v for k, v in rows[0].items()}


def claim_entities(store: Store, claim_id: str) -> list[dict[str, Any]]:
    """Rows (id, name, role) of the entities a claim is about, subject first."""
    return store.query(
        "MATCH (c:Claim {id: $id})-[a:ABOUT]->(e:Entity) RETURN e.id AS id, e.name AS name, a.role AS role ORDER BY role DESC, id",
        {"id": claim_id})


def claim_evidence(store: Store, claim_id: str) -> list[dict[str, Any]]:
    """Rows (path, sha, cs, ce, quote, retracted) of a claim's evidence, retracted or not."""
    return store.query(
        "MATCH (c:Claim {id: $id})-[x:EXTRACTED_FROM]->(s:Source) RETURN s.path AS path, x.source_sha256 AS sha, "
        "x.char_start AS cs, x.char_end AS ce, x.quote AS quote, x.retracted_at AS retracted ORDER BY path, cs",
        {"id": claim_id},
    )


def claim_contradictions(store: Store, claim_id: str) -> list[dict[str, Any]]:
    """Rows (id, text, status, reason, method, confidence) of the claims contradicting this one."""
    return store.query(
        "MATCH (c:Claim {id: $id})-[r:CONTRADICTS]-(o:Claim) RETURN o.id AS id, o.text AS text, o.status AS status, "
        "r.reason AS reason, r.method AS method, r.confidence AS confidence ORDER BY id", {"id": claim_id})


def claim_supersession(store: Store, claim_id: str) -> list[dict[str, Any]]:
    """Rows (id, text, reason, supersedes) of the claims this one supersedes (supersedes: True),
    then of those superseding it."""
    return [
        {**row, "supersedes": direction == "out"}
        for direction, pattern in (("out", "(c)-[r:SUPERSEDES]->(o:Claim)"), ("in", "(c)<-[r:SUPERSEDES]-(o:Claim)"))
        for row in store.query(f"MATCH (c:Claim {{id: $id}}) MATCH {pattern} RETURN o.id AS id, o.text AS text, "
                               "r.reason AS reason ORDER BY id", {"id": claim_id})
    ]


def live_claims_from_sources(store: Store, paths: Iterable[str]) -> list[dict[str, Any]]:
    """Rows (id, text, source) of the live claims with live evidence from these sources."""
    return store.query(
        "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) WHERE offset(id(s)) IN $o AND x.retracted_at = '' "
        "AND c.status = 'live' RETURN c.id AS id, c.text AS text, s.path AS source ORDER BY source, id",
        {"o": store.offsets("Source", paths)})


def live_evidence_paths(store: Store) -> list[dict[str, Any]]:
    """Rows (path): the source of each live evidence edge of a live claim."""
    return store.query(
        "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) WHERE c.status = 'live' AND x.retracted_at = '' "
        "RETURN s.path AS path")

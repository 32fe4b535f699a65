"""Entities: their rows, what sources say about them (MENTIONS), their groups (ALIAS_OF edges, to
the canonical entity of each group) and what a person decided (`kg entity merge` / `unmerge`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kg.graph.store import Store, WriteBatch

_ENTITY_FIELDS = "e.id AS id, e.name AS name, e.type AS type, e.aliases AS aliases, e.summary AS summary, e.status AS status"

# entity rows ---------------------------------------------------------------------------------


def entity_rows(store: Store) -> list[dict[str, Any]]:
    """Rows (id, name, type, aliases, summary, status) of every entity, by id."""
    return store.query(f"MATCH (e:Entity) RETURN {_ENTITY_FIELDS} ORDER BY id")


def entity_by_id(store: Store, entity_id: str) -> dict[str, Any] | None:
    """The row (id, name, type, aliases, summary, status) of an entity, or None."""
    rows = store.query(f"MATCH (e:Entity {{id: $id}}) RETURN {_ENTITY_FIELDS}", {"id": entity_id})
    return rows[0] if rows else None


def claim_counts_about(store: Store, entity_id: str) -> list[dict[str, Any]]:
    """Rows (status, role, n): how many claims are about an entity, by claim status and role."""
    return store.query("MATCH (c:Claim)-[a:ABOUT]->(e:Entity {id: $id}) RETURN c.status AS status, a.role AS role, "
                       "count(c) AS n ORDER BY status, role", {"id": entity_id})


def sources_mentioning(store: Store, entity_id: str) -> list[str]:
    """Paths of the sources that mention an entity, sorted."""
    return [r["path"] for r in store.query(
        "MATCH (s:Source)-[:MENTIONS]->(e:Entity {id: $id}) RETURN s.path AS path ORDER BY path", {"id": entity_id})]


# ALIAS_OF edges ------------------------------------------------------------------------------


def alias_edge_rows(store: Store) -> list[dict[str, Any]]:
    """Rows (src, dst) of every ALIAS_OF edge."""
    return store.query("MATCH (a:Entity)-[:ALIAS_OF]->(b:Entity) RETURN a.id AS src, b.id AS dst")


def alias_target_ids(store: Store, entity_id: str) -> list[str]:
    """Ids of the entities this one is an alias of (at most one, unless the graph was edited)."""
    return [r["id"] for r in store.query("MATCH (a:Entity {id: $id})-[:ALIAS_OF]->(b:Entity) RETURN b.id AS id",
                                         {"id": entity_id})]


def alias_targets(store: Store, entity_id: str) -> list[dict[str, Any]]:
    """Rows (id, name, method, score) of the entities this one is an alias of."""
    return store.query("MATCH (a:Entity {id: $id})-[m:ALIAS_OF]->(b:Entity) RETURN b.id AS id, b.name AS name, "
                       "m.method AS method, m.score AS score", {"id": entity_id})


def aliases_of(store: Store, entity_id: str) -> list[dict[str, Any]]:
    """Rows (id, name, method, score) of the entities merged into this one, by id."""
    return store.query("MATCH (a:Entity)-[m:ALIAS_OF]->(b:Entity {id: $id}) RETURN a.id AS id, a.name AS name, "
                       "m.method AS method, m.score AS score ORDER BY id", {"id": entity_id})


# groups (kg/compile/groups.py) --------------------------------------------------------------


def all_entity_ids(store: Store) -> set[str]:
    """The id of every entity, live or not."""
    return set(store.table("MATCH (e:Entity) RETURN e.id AS id").column("id").to_pylist())


def live_entity_keys(store: Store) -> dict[str, str]:
    """{name key: entity id} of every live entity (one a live source mentions)."""
    table = store.table("MATCH (e:Entity) WHERE e.status = 'live' RETURN e.key AS key, e.id AS id")
    return dict(zip(table.column("key").to_pylist(), table.column("id").to_pylist(), strict=True))


# More ids than this are read by reading every row and keeping theirs: `offset(id(n)) IN $list`
# tests each row against the list, which costs more than a scan past a few thousand ids.
WHOLE_TABLE_IDS = 2000
_ALIAS_ROWS = "MATCH (a:Entity)-[m:ALIAS_OF]->(b:Entity) {where} RETURN a.id AS a, b.id AS b, m.method AS method, " \
              "m.score AS score"


def _alias_rows(store: Store, end: str, ids: Sequence[str]) -> list[dict[str, Any]]:
    """ALIAS_OF rows whose `end` ("a" or "b") is one of `ids`."""
    if len(ids) > WHOLE_TABLE_IDS:
        wanted = set(ids)
        return [r for r in store.query(_ALIAS_ROWS.format(where="")) if r[end] in wanted]
    return store.query(_ALIAS_ROWS.format(where=f"WHERE offset(id({end})) IN $o"), {"o": store.offsets("Entity", ids)})


def group_edges_of(store: Store, ids: Iterable[str]) -> dict[str, tuple[str, str, float]]:
    """{entity: (its canonical entity, method, score)} for every member of the groups of `ids`
    (a canonical entity maps to itself, method '')."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    out: dict[str, tuple[str, str, float]] = {}
    for r in _alias_rows(store, "a", wanted):
        out[r["a"]] = (r["b"], r["method"] or "", float(r["score"] or 0.0))
    heads = sorted({out[e][0] if e in out else e for e in wanted})
    for head in heads:
        out.setdefault(head, (head, "", 0.0))
    for r in _alias_rows(store, "b", heads):
        out[r["a"]] = (r["b"], r["method"] or "", float(r["score"] or 0.0))
    return out


_MENTION_ROWS = ("MATCH (s:Source)-[m:MENTIONS]->(e:Entity) {where} RETURN e.id AS id, e.key AS key, s.path AS path, "
                 "m.name AS name, m.type AS type, m.description AS description, m.aliases AS aliases, m.role AS role")


def entity_mentions(store: Store, ids: Sequence[str]) -> list[dict[str, Any]]:
    """Rows (id, key, path, name, type, description, aliases, role) of the MENTIONS edges into
    these entities, by id and path (every edge is live: a changed or removed source's are deleted)."""
    if not ids:
        return []
    if len(ids) > WHOLE_TABLE_IDS:
        wanted = set(ids)
        rows = [r for r in store.query(_MENTION_ROWS.format(where="")) if r["id"] in wanted]
    else:
        rows = store.query(_MENTION_ROWS.format(where="WHERE offset(id(e)) IN $o"), {"o": store.offsets("Entity", ids)})
    return sorted(rows, key=lambda r: (r["id"], r["path"]))


def entity_names(store: Store, ids: Sequence[str]) -> dict[str, str]:
    """{entity id: name} of these entities."""
    return store.values("Entity", ids, "name")


def mentioned_by(store: Store, path: str) -> list[str]:
    """Ids of the entities a source mentions now (before a recompile replaces its mentions)."""
    return [r["id"] for r in store.query(
        "MATCH (s:Source {path: $p})-[:MENTIONS]->(e:Entity) RETURN e.id AS id", {"p": path})]


def decision_rows(store: Store, ids: Sequence[str]) -> list[dict[str, Any]]:
    """Rows (entity, merged_into) of what a person decided about these entities, or merged into them."""
    rows = store.query("MATCH (d:Decision) RETURN d.entity AS entity, d.merged_into AS merged_into ORDER BY entity")
    wanted = set(ids)
    return [r for r in rows if r["entity"] in wanted or r["merged_into"] in wanted]


def set_groups(batch: WriteBatch, changed: dict[str, tuple[str, str, float] | None]) -> None:
    """Queue replacing the ALIAS_OF edges of these entities: to (canonical, method, score), or none."""
    if not changed:
        return
    batch.statements.append(("UNWIND $ids AS i MATCH (a:Entity {id: i})-[m:ALIAS_OF]->() DELETE m",
                             {"ids": sorted(changed)}))
    for entity, target in sorted(changed.items()):
        if target is not None:
            canonical, method, score = target
            batch.relate("ALIAS_OF", {"src": entity, "dst": canonical, "method": method, "score": score})


def decide(batch: WriteBatch, entity: str, merged_into: str, at: str, existing: bool) -> None:
    """Queue recording what a person decided about an entity ('': keep it apart)."""
    row = {"entity": entity, "merged_into": merged_into, "at": at}
    if existing:
        batch.update("Decision", row)
    else:
        batch.add("Decision", row)


# an entity for agents (kg/serve) -------------------------------------------------------------


def live_claims_about(store: Store, entity_ids: Sequence[str], skip: int, limit: int) -> list[dict[str, Any]]:
    """Rows (id, text, claim_type, confidence, role) of the live claims about these entities (a
    group), by claim id, a page at a time."""
    return store.query("MATCH (c:Claim)-[a:ABOUT]->(e:Entity) WHERE e.id IN $ids AND c.status = 'live' "
                       "RETURN c.id AS id, min(c.text) AS text, min(c.claim_type) AS claim_type, "
                       "min(c.confidence) AS confidence, min(a.role) AS role ORDER BY id SKIP $skip LIMIT $limit",
                       {"ids": list(entity_ids), "skip": skip, "limit": limit})


def count_live_claims_about(store: Store, entity_ids: Sequence[str]) -> int:
    rows = store.query("MATCH (c:Claim)-[:ABOUT]->(e:Entity) WHERE e.id IN $ids AND c.status = 'live' "
                       "RETURN count(DISTINCT c.id) AS n", {"ids": list(entity_ids)})
    return int(rows[0]["n"]) if rows else 0


def neighbour_entities(store: Store, entity_ids: Sequence[str], limit: int) -> list[dict[str, Any]]:
    """Rows (id, name, claims): the entities most often in the same live claims as these."""
    return store.query("MATCH (e:Entity)<-[:ABOUT]-(c:Claim)-[:ABOUT]->(o:Entity) WHERE e.id IN $ids "
                       "AND NOT o.id IN $ids AND c.status = 'live' RETURN o.id AS id, min(o.name) AS name, "
                       "count(DISTINCT c.id) AS claims ORDER BY claims DESC, id LIMIT $limit",
                       {"ids": list(entity_ids), "limit": limit})


def live_entity_names(store: Store) -> list[dict[str, Any]]:
    """Rows (id, key, name) of every live entity."""
    return store.query("MATCH (e:Entity) WHERE e.status = 'live' RETURN e.id AS id, e.key AS key, e.name AS name")

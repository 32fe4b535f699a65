"""Entities: their rows and ALIAS_OF edges (the compile's entity index, `kg entity show`, merge
and unmerge) and the EntityKey rows a small compile resolves names with."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from kg.graph.store import Store, WriteBatch

_ENTITY_FIELDS = "e.id AS id, e.name AS name, e.type AS type, e.aliases AS aliases, e.summary AS summary, e.status AS status"

# entity rows ---------------------------------------------------------------------------------


def entity_table(store: Store) -> pa.Table:
    """Columns id, name, type, aliases, summary, status of every entity (in no order)."""
    return store.table(f"MATCH (e:Entity) RETURN {_ENTITY_FIELDS}")


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


def alias_edge_table(store: Store) -> pa.Table:
    """Columns src (the alias) and dst (its target) of every ALIAS_OF edge."""
    return store.table("MATCH (a:Entity)-[:ALIAS_OF]->(b:Entity) RETURN a.id AS src, b.id AS dst")


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


def drop_alias_edges(batch: WriteBatch, entity_id: str) -> None:
    """Queue deleting the ALIAS_OF edges from this entity (first in the batch)."""
    batch.statements.append(("MATCH (a:Entity {id: $id})-[m:ALIAS_OF]->() DELETE m", {"id": entity_id}))


# EntityKey rows ------------------------------------------------------------------------------


def name_key_table(store: Store) -> pa.Table:
    """Column key: every EntityKey key of a name ('name:<key>')."""
    return store.table("MATCH (k:EntityKey) WHERE starts_with(k.key, 'name:') RETURN k.key AS key")


def drop_entity_keys(batch: WriteBatch) -> None:
    """Queue deleting every EntityKey row (first in the batch)."""
    batch.statements.append(("MATCH (k:EntityKey) DELETE k", {}))

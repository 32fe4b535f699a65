"""The graph's entity key index: EntityKey rows that let a small compile resolve names without
reading every entity (0.3 s at 50k sources, most of a one-source edit's resolution).

A row maps a lookup key to the smallest id of the entities it belongs to, which is what
`EntityIndex.from_columns` computes when it loads them all (kg/compile/resolve.py):

- "name:<key>": the name_key of an entity's name or of one of its aliases;
- "acronym:<ABC>": the initials of a multi-word name (kg/compile/resolve.py acronym_of);
- "index:complete": written once the rows cover every entity.

An entity's name never changes and aliases are only added, so rows are only ever added, or
given a smaller entity id. Every compile writes the rows its new names ask for in the same
transaction as the entities (`add_key_rows`); a graph made before migration 5 gets all of
them from the first compile that loads every entity (`backfill`).
"""

from __future__ import annotations

from typing import Any

from kg.compile.bulk import gc_paused
from kg.compile.resolve import NAME_KEY, EntityIndex, EntityJudge, EntityRecord
from kg.graph.entities import alias_edge_rows, drop_entity_keys, entity_by_id, name_key_table
from kg.graph.store import Store, WriteBatch

COMPLETE = "index:complete"


def is_complete(store: Store) -> bool:
    return bool(store.values("EntityKey", [COMPLETE], "entity"))


def lazy_entity_index(store: Store, judge: EntityJudge | None = None) -> EntityIndex:
    """An EntityIndex reading the graph per name looked up (see EntityIndex.lazy)."""

    def fetch_key(key: str) -> str | None:
        return store.values("EntityKey", [key], "entity").get(key)

    def fetch_record(entity_id: str) -> EntityRecord | None:
        row = entity_by_id(store, entity_id)
        return _record(row) if row else None

    def load_keys() -> list[str]:
        table = name_key_table(store)
        with gc_paused():
            return [key[len(NAME_KEY) :] for key in table.column("key").to_pylist()]

    edges = alias_edge_rows(store)
    return EntityIndex.lazy(fetch_key, fetch_record, load_keys, [(e["src"], e["dst"]) for e in edges], judge=judge)


def _record(row: dict[str, Any]) -> EntityRecord:
    return EntityRecord(row["id"], row["name"], row["type"], list(row["aliases"] or []), row["summary"] or "",
                        row["status"] or "live")


def backfill(store: Store, index: EntityIndex) -> None:
    """Write every row of a graph without them, from an index of all its entities (just loaded)."""
    rows = index.graph_keys()
    rows[COMPLETE] = ""
    batch = WriteBatch()
    drop_entity_keys(batch)  # a partial set, if any: start over
    batch.nodes["EntityKey"] = [{"key": key, "entity": entity} for key, entity in sorted(rows.items())]
    store.write(batch)


def add_key_rows(store: Store, index: EntityIndex, batch: WriteBatch) -> None:
    """Put the rows this compile's new names, aliases and acronyms ask for into `batch` (the one
    writing those entities): a new key's row, or a smaller entity id for a known key."""
    claims, index.key_claims = index.key_claims, {}
    if not claims:
        return
    known = store.values("EntityKey", claims, "entity")
    for key, entity in sorted(claims.items()):
        if key not in known:
            batch.add("EntityKey", {"key": key, "entity": entity})
        elif entity < known[key]:
            batch.update("EntityKey", {"key": key, "entity": entity})

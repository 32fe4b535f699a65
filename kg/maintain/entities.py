"""Entity maintenance: show, merge (an ALIAS_OF edge, never a deletion) and unmerge."""

from __future__ import annotations

from typing import Any

from kg.errors import QueryError
from kg.graph.entities import (
    alias_target_ids,
    alias_targets,
    aliases_of,
    claim_counts_about,
    drop_alias_edges,
    entity_by_id,
    entity_rows,
    sources_mentioning,
)
from kg.graph.store import Store, WriteBatch, now_iso
from kg.names import name_key


def find_entity(store: Store, ref: str) -> dict[str, Any]:
    """An entity by id, else by exact normalised name or alias."""
    row = entity_by_id(store, ref)
    if row:
        return row
    key = name_key(ref)
    matches = [r for r in entity_rows(store)
               if key in {name_key(n) for n in (r["name"], *(r["aliases"] or []))}]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise QueryError(f"No entity {ref!r}. Use an id from wiki/entities/<id>.md or `kg search`.")
    raise QueryError(f"{ref!r} names {len(matches)} entities ({', '.join(m['id'] for m in matches)}); pass an id.")


def show(store: Store, ref: str) -> dict[str, Any]:
    entity = find_entity(store, ref)
    eid = entity["id"]
    entity["alias_of"] = alias_targets(store, eid)
    entity["merged_here"] = aliases_of(store, eid)
    entity["claims"] = claim_counts_about(store, eid)
    entity["sources"] = sources_mentioning(store, eid)
    return entity


def _canonical(store: Store, eid: str) -> str:
    seen = set()
    while eid not in seen:
        seen.add(eid)
        targets = alias_target_ids(store, eid)
        if not targets:
            return eid
        eid = targets[0]
    return eid


def merge(store: Store, alias_ref: str, target_ref: str) -> dict[str, Any]:
    """Make `alias` an alias of `target`: its claims show on the target's page. Undo with unmerge."""
    alias, target = find_entity(store, alias_ref), find_entity(store, target_ref)
    if _canonical(store, target["id"]) == alias["id"] or alias["id"] == target["id"]:
        raise QueryError(f"{alias['id']} and {target['id']} are already the same entity (or merging would make a loop).")
    batch = WriteBatch()
    drop_alias_edges(batch, alias["id"])
    batch.relate("ALIAS_OF", {"src": alias["id"], "dst": target["id"], "method": "manual", "score": 1.0})
    _log(store, batch, "merge", alias["id"], f"{alias['name']} is now an alias of {target['name']} ({target['id']})")
    store.write(batch)
    return {"alias": alias["id"], "target": target["id"]}


def unmerge(store: Store, alias_ref: str) -> dict[str, Any]:
    """Undo merges of this entity: it gets its own page and claims back."""
    alias = find_entity(store, alias_ref)
    targets = alias_target_ids(store, alias["id"])
    if not targets:
        raise QueryError(f"{alias['id']} is not merged into another entity; nothing to undo.")
    batch = WriteBatch()
    drop_alias_edges(batch, alias["id"])
    _log(store, batch, "unmerge", alias["id"], f"{alias['name']} is no longer an alias of {', '.join(targets)}")
    store.write(batch)
    return {"entity": alias["id"], "was_alias_of": targets}


def _log(store: Store, batch: WriteBatch, op: str, subject: str, detail: str) -> None:
    batch.add("LogEntry", {"seq": store.next_log_seq(), "at": now_iso(), "op": op, "subject": subject, "detail": detail})

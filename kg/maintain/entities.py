"""Entity maintenance: show, merge and unmerge (decisions a regroup applies; nothing is deleted)."""

from __future__ import annotations

from typing import Any

from kg.compile.groups import regroup
from kg.compile.resolve import EntityJudge
from kg.errors import QueryError
from kg.graph.entities import (
    alias_targets,
    aliases_of,
    claim_counts_about,
    decide,
    decision_rows,
    entity_by_id,
    entity_rows,
    group_edges_of,
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


def merge(store: Store, alias_ref: str, target_ref: str, judge: EntityJudge | None = None) -> dict[str, Any]:
    """Make `alias` one entity with `target`: its claims show on their group's page. Recorded as a
    decision (kept by the journal) that every later regroup applies; undo with unmerge."""
    alias, target = find_entity(store, alias_ref), find_entity(store, target_ref)
    if alias["id"] == target["id"] or _canonical(store, alias["id"]) == _canonical(store, target["id"]):
        raise QueryError(f"{alias['id']} and {target['id']} are already the same entity (or merging would make a loop).")
    batch = WriteBatch()
    decide(batch, alias["id"], target["id"], now_iso(), existing=bool(decision_rows(store, [alias["id"]])))
    _log(store, batch, "merge", alias["id"], f"{alias['name']} is now an alias of {target['name']} ({target['id']})")
    store.write(batch)
    _regroup(store, [alias["id"], target["id"]], judge)
    return {"alias": alias["id"], "target": target["id"]}


def unmerge(store: Store, alias_ref: str, judge: EntityJudge | None = None) -> dict[str, Any]:
    """Keep this entity apart from the entities it is grouped with: it gets its own page back."""
    alias = find_entity(store, alias_ref)
    group = group_edges_of(store, [alias["id"]])
    others = sorted(e for e in group if e != alias["id"])
    if not others:
        raise QueryError(f"{alias['id']} is not merged with another entity; nothing to undo.")
    batch = WriteBatch()
    decide(batch, alias["id"], "", now_iso(), existing=bool(decision_rows(store, [alias["id"]])))
    _log(store, batch, "unmerge", alias["id"], f"{alias['name']} is no longer an alias of {', '.join(others)}")
    store.write(batch)
    _regroup(store, [alias["id"], *others], judge)
    return {"entity": alias["id"], "was_alias_of": others}


def _canonical(store: Store, entity: str) -> str:
    return group_edges_of(store, [entity])[entity][0]


def _regroup(store: Store, entities: list[str], judge: EntityJudge | None) -> None:
    batch, _ = regroup(store, entities, judge)
    store.write(batch)


def _log(store: Store, batch: WriteBatch, op: str, subject: str, detail: str) -> None:
    batch.add("LogEntry", {"seq": store.next_log_seq(), "at": now_iso(), "op": op, "subject": subject, "detail": detail})

"""Source rows: what a compile plan compares, slugs, failed sources; retracting a source's
evidence and marking a source removed (queued in a compile's write batch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kg.graph.store import Store, WriteBatch

if TYPE_CHECKING:
    import pyarrow as pa

SELECTED_PATHS_QUERIED = 32  # more paths than this: read every row rather than one OR per path


def source_state_table(store: Store, only: Sequence[str] | None = None) -> pa.Table:
    """Path, sha256, status, slug, file_stat and title of every Source, or (`only`: paths relative
    to raw/, at most SELECTED_PATHS_QUERIED of them) of the sources at or under those paths."""
    fields = ("s.path AS path, s.sha256 AS sha256, s.status AS status, s.slug AS slug, s.file_stat AS file_stat, "
              "s.title AS title")
    if only is None or len(only) > SELECTED_PATHS_QUERIED:
        return store.table(f"MATCH (s:Source) RETURN {fields}")
    under = " OR ".join(f"starts_with(s.path, $under{i})" for i in range(len(only)))
    params = {"paths": list(only) or [""], **{f"under{i}": f"{rel}/" for i, rel in enumerate(only)}}
    return store.table(f"MATCH (s:Source) WHERE s.path IN $paths{' OR ' + under if under else ''} RETURN {fields}",
                       params)


def source_slugs(store: Store) -> list[str]:
    """The slug of every Source row."""
    return store.table("MATCH (s:Source) RETURN s.slug AS slug").column("slug").to_pylist()


def failed_sources(store: Store) -> list[dict[str, Any]]:
    """Rows (path, error) of the sources whose last compile failed, by path."""
    return store.query(
        "MATCH (s:Source) WHERE s.status = 'failed' RETURN s.path AS path, s.error AS error ORDER BY s.path")


def retract_source_evidence(batch: WriteBatch, path: str, now: str) -> None:
    """Queue the withdrawal of a source's evidence and mentions; claims left unsupported are retracted."""
    batch.statements.append((
        "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source {path: $p}) WHERE x.retracted_at = '' "
        "SET x.retracted_at = $now", {"p": path, "now": now}))
    batch.statements.append(("MATCH (s:Source {path: $p})-[m:MENTIONS]->(:Entity) DELETE m", {"p": path}))
    batch.after.append((
        "MATCH (c:Claim)-[:EXTRACTED_FROM]->(:Source {path: $p}) WHERE c.status = 'live' "
        "AND NOT EXISTS { MATCH (c)-[x:EXTRACTED_FROM]->(:Source) WHERE x.retracted_at = '' } "
        "SET c.status = 'retracted', c.retracted_at = $now", {"p": path, "now": now}))
    # Claims the source supported that stay live (another source supports them) changed evidence:
    # contradiction detection judges them again (one source giving two figures, for one, depends on it).
    batch.after.append((
        "MATCH (c:Claim)-[:EXTRACTED_FROM]->(:Source {path: $p}) WHERE c.status = 'live' SET c.checked_at = ''",
        {"p": path}))


def mark_source_removed(batch: WriteBatch, path: str, now: str) -> None:
    """Queue setting a source's status to 'removed' (its file is gone from raw/)."""
    batch.statements.append(("MATCH (s:Source {path: $p}) SET s.status = 'removed', s.compiled_at = $now", {"p": path, "now": now}))

"""Kuzu's full-text indexes, kept usable on Kuzu 0.11.3, and the chunks they index.

Kuzu 0.11.3 does update an FTS index on insert, but a multi-row insert (`LOAD FROM` or
`UNWIND ... CREATE`, which is how kg writes) indexes every row of the batch with the first
row's terms, and deleting such a row later crashes the process (both measured with kuzu
0.11.3; tests/test_search.py guards the first). So a compile that changes something drops
the claim and chunk indexes before it writes and rebuilds them once at the end
(`drop_indexes`, `refresh_indexes`; about 5 s for SciFact's 43k claims + 5k chunks on
2 busy cores); `kg query --save` does the same for the small page index. Queries never
rebuild them, unless they are missing (a compile killed half-way, an older graph), through
`indexed_store`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import QueryError
from kg.graph.journal import Journal
from kg.graph.store import Store, WriteBatch

if TYPE_CHECKING:
    from kg.models import Chunk as TextChunk  # pydantic: a read loads none of it

# table -> (index name, indexed properties)
# `terms` holds the tokens of the CJK text (its bigrams, and words glued to them; kg/graph/schema.py SEARCH_TERMS; '' for text without CJK, which
# is then indexed and scored exactly as before): Kuzu's FTS splits at whitespace and takes no tokenizer.
FTS_INDEXES: dict[str, tuple[str, list[str]]] = {
    "Claim": ("claim_fts", ["text", "terms"]),
    "Chunk": ("chunk_fts", ["text", "terms"]),
    "Page": ("page_fts", ["title", "body", "terms"]),
}


class SearchIndexMissing(QueryError):
    """The full-text indexes are not built yet (a graph compiled by an older kg)."""


# compile-time hooks --------------------------------------------------------------------------


def chunk_id(path: str, sha256: str, index: int) -> str:
    return "k" + hashlib.sha256(f"{path}\x1f{sha256}\x1f{index}".encode()).hexdigest()[:16]


def add_chunks(batch: WriteBatch, path: str, sha256: str, chunks: Sequence[TextChunk]) -> None:
    """Queue a source's chunks (replacing its old ones) in the compile's write batch."""
    batch.statements.append(("MATCH (s:Source {path: $p})-[:HAS_CHUNK]->(k:Chunk) DETACH DELETE k", {"p": path}))
    for chunk in chunks:
        cid = chunk_id(path, sha256, chunk.index)
        batch.add("Chunk", {"id": cid, "source_path": path, "idx": chunk.index, "text": chunk.text,
                            "char_start": chunk.start, "char_end": chunk.end, "sha256": sha256})
        batch.relate("HAS_CHUNK", {"src": path, "dst": cid})


def existing_indexes(store: Store) -> set[str]:
    return {r["name"] for r in store.query("CALL SHOW_INDEXES() RETURN index_name AS name")}


def refresh_indexes(store: Store, tables: Sequence[str] = tuple(FTS_INDEXES)) -> None:
    """Drop and rebuild the FTS indexes of `tables`, and create any index that is missing.

    Creating an index costs about 0.35 s even on an empty table, plus the indexing itself.
    Index changes are checkpointed at once: replayed from the WAL (after a crash, or a close that
    did not checkpoint), Kuzu 0.11.3 half-restores a dropped index, and every later CREATE of it
    fails with "Index with name claim_fts already exists"."""
    have = existing_indexes(store)
    for table, (name, props) in FTS_INDEXES.items():
        if name in have and table not in tables:
            continue
        if name in have:
            store.query(f"CALL DROP_FTS_INDEX('{table}', '{name}')")
        store.query(f"CALL CREATE_FTS_INDEX('{table}', '{name}', {props!r}, stemmer := 'porter')")
    store.checkpoint()


def drop_indexes(store: Store, tables: Sequence[str]) -> None:
    """Drop the FTS indexes of `tables` before a batched write (rebuilt by `refresh_indexes`).

    Measured on kuzu 0.11.3: rows inserted several at a time into a table with an FTS index are
    indexed under the first row's terms, and a later DETACH DELETE of such a row crashes the
    process (segmentation fault). Rows indexed by CREATE_FTS_INDEX are deleted safely.
    """
    have = existing_indexes(store)
    dropped = False
    for table in tables:
        name = FTS_INDEXES[table][0]
        if name in have:
            store.query(f"CALL DROP_FTS_INDEX('{table}', '{name}')")
            dropped = True
    if dropped:
        store.checkpoint()  # see refresh_indexes


def indexes_ready(store: Store) -> bool:
    return {name for name, _ in FTS_INDEXES.values()} <= existing_indexes(store)


@contextmanager
def indexed_store(db_path: Path, writable: bool = False, on_rebuild: Callable[[], None] | None = None,
                  journal: Path | None = None) -> Iterator[Store]:
    """The graph, open with its full-text indexes in place: read-only unless `writable` (with the
    `journal` file, kg/graph/journal.py), or when a compile left the indexes dropped (a small change
    leaves them to the first search: kg/compile/pipeline.py) and they have to be built first (`on_rebuild`
    is told: seconds on a large graph)."""
    store = Store(db_path, read_only=not writable, journal=Journal(journal) if writable and journal else None)
    try:
        if not indexes_ready(store):
            if on_rebuild is not None:
                on_rebuild()
            if not writable:
                store.close()
                store = Store(db_path)
            refresh_indexes(store)
        yield store
    finally:
        store.close()


def ensure_indexes(db_path: Path) -> bool:
    """Build the full-text indexes if a compile left them dropped. Returns whether they were built."""
    with Store(db_path, read_only=True) as store:
        if indexes_ready(store):
            return False
    with indexed_store(db_path, writable=True):
        return True

"""Opening the graph for the library's calls: for writing with its journal, or read-only; and what
the faces may know of it without opening it (its stamp, a writer's lock)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kg.errors import QueryError
from kg.kb import KnowledgeBase

if TYPE_CHECKING:
    from kg.graph.store import Store


def open_store(kb: KnowledgeBase, read_only: bool = False) -> Store:
    """The graph; opened for writing, with the journal that keeps what cannot be recomputed."""
    from kg.graph.journal import Journal
    from kg.graph.store import Store

    return Store(kb.db_path, read_only=read_only, journal=None if read_only else Journal(kb.journal_path))


def graph_store(kb: KnowledgeBase) -> Store:
    """The graph read-only, or QueryError when there is none yet."""
    if not kb.db_path.exists():
        raise QueryError("No graph yet. Run `kg compile` first.")
    return open_store(kb, read_only=True)


def graph_stamp(kb: KnowledgeBase) -> tuple[Any, ...]:
    """What identifies the graph's files as they are now: it changes when a writer changes them
    (a server's caches and its vectors are for one stamp)."""
    from kg.graph.kept import stamp

    return stamp(kb.db_path)


def writer_lock(kb: KnowledgeBase, name: str) -> Any:
    """A pid file in .kg/ that keeps a second process of one kind out (`kg watch`): kg/graph/store.py Lock."""
    from kg.graph.store import Lock

    return Lock(kb.state / name)

"""Limits on every read (issue 32): the size of what a face may pass in, and the time and memory
a read may take, enforced by worker processes (kg/graph/guard.py) that the faces share."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kg.errors import QueryError
from kg.graph.guard import ReadTimeout as ReadTimeout  # a stopped read's errors, for the faces
from kg.graph.guard import ReadTooLarge as ReadTooLarge
from kg.kb import KnowledgeBase

if TYPE_CHECKING:
    from kg.graph.guard import Limits, ReadPool

MAX_CYPHER_CHARS = 100_000  # a Cypher query (and its parameters, as JSON)
MAX_TEXT_CHARS = 5_000  # a search string or a question: a long paragraph, not a document
MAX_NAME_CHARS = 1_000  # an entity name, a claim id, a wiki page path
MIN_BUDGET, MAX_BUDGET = 200, 50_000  # tokens kg query's navigator may read

Read = TypeVar("Read", bound=Callable[..., Any])
_LOADS: dict[Callable[..., Any], tuple[str, ...]] = {}  # a read -> the modules it loads (see `loads`)


def loads(*modules: str) -> Callable[[Read], Read]:
    """Marks a read with the modules it loads as it runs (its imports are inside it, so that a command
    that does not make it starts without them). `bounded` loads them before forking the read's worker."""
    def mark(fn: Read) -> Read:
        _LOADS[fn] = modules
        return fn

    return mark


def check_text(value: str, what: str, limit: int, name: bool = False) -> str:
    """`value` when it is within `limit` characters (and, for a `name`, holds no control characters)."""
    if len(value) > limit:
        raise QueryError(f"{what} is {len(value):,} characters long; at most {limit:,} are accepted. "
                         "Shorten it to what matters.")
    if name and any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in value):
        raise QueryError(f"{what} holds control characters; pass the name as it is written on a page.")
    return value


def read_limits(kb: KnowledgeBase, served: bool = False, timeout: float | None = None) -> Limits:
    """The limits of one read: [limits] in kg.toml for the CLI (`served`: for kg mcp and kg serve),
    `timeout` (seconds) overriding the time limit."""
    from kg.graph.guard import Limits

    cfg = kb.config().limits
    prefix = "serve_" if served else ""
    seconds = cfg.serve_timeout_seconds if served else cfg.timeout_seconds
    time_setting = f"[limits] {prefix}timeout_seconds in kg.toml"
    if timeout is not None:
        seconds, time_setting = timeout, "--timeout" if not served else "the call's timeout"
    return Limits(seconds, cfg.serve_memory_mb if served else cfg.memory_mb, time_setting,
                  f"[limits] {prefix}memory_mb in kg.toml")


def reader(kb: KnowledgeBase, served: bool = False, timeout: float | None = None, size: int = 1,
           idle_seconds: float | None = None) -> ReadPool:
    """A ReadPool (kg/graph/guard.py) for `size` concurrent reads under this knowledge base's limits;
    `idle_seconds`: how long an idle worker waits for work before it exits (default: the pool's).
    The modules the reads load (`loads`) are loaded once by a server's fork server, for all its workers."""
    from kg.graph.guard import IDLE_SECONDS, ReadPool, preload

    preload(module for modules in _LOADS.values() for module in modules)
    return ReadPool(read_limits(kb, served, timeout), size, IDLE_SECONDS if idle_seconds is None else idle_seconds)


def bounded(kb: KnowledgeBase, timeout: float | None, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` once, in a worker process under the CLI's limits (kg cypher, search, query).

    The modules the read loads (`loads`) are loaded here first, and the worker is forked after them
    (kg/graph/guard.py): it starts with them, and this process reads the result back (unpickling
    it loads its classes' modules) without loading them a second time after the worker did."""
    for module in _LOADS.get(fn, ()):
        importlib.import_module(module)
    with reader(kb, timeout=timeout) as pool:
        return pool.call(fn, *args, **kwargs)


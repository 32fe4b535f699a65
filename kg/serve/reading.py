"""What the served faces share (kg/serve/web: pages and JSON; kg/serve/mcp: the MCP tools): every
read goes to a ReadPool's worker processes through one call that waits a while for a writer, and
searches are bounded alike."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from kg.errors import DatabaseLocked
from kg.retrieve.settings import SEARCH_MODES

MODES = SEARCH_MODES
MAX_SEARCH_LIMIT = 50  # hits a search returns at most (/api/search's k, kg_search's limit)
# Seconds a read waits for a writer (an index rebuild after a small compile, a short compile) before it
# fails with DatabaseLocked. A page waits less: it answers 503 with Retry-After and reloads itself, so
# a person sees why at once. A tool's error costs an agent a turn, with no Retry-After to follow: it
# waits longer for the writer to finish.
PAGE_PATIENCE = 2.0
TOOL_PATIENCE = 5.0
RETRY_SECONDS = 0.2  # how often a waiting read tries again


def patient_read(pool: Any, patience: float, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` in a worker of `pool` (in this process when there is none: tests,
    scripts), tried again while a writer holds the graph, for up to `patience` seconds."""
    if pool is None:
        return fn(*args, **kwargs)
    give_up = time.monotonic() + patience
    while True:
        try:
            return pool.call(fn, *args, **kwargs)
        except DatabaseLocked:
            if time.monotonic() >= give_up:
                raise
            time.sleep(RETRY_SECONDS)

"""Vector search on a server: the knowledge base embedded once, in the background, not by a request.

A first vector search embeds everything vector search covers (300 hotpotqa passages: minutes of
MiniLM on a busy machine, about 1 GB of resident memory while it runs); inside a served read's time
limit (30 s) it would be stopped again and again, in every worker that meets it. So the server
embeds what `.kg/vectors.sqlite` lacks in one read worker as it starts, and again after a writer
changed the graph (only the new texts), under a longer time limit. Meanwhile a search in the
default mode runs as BM25 (its JSON says `"mode": "bm25"`), and one that asks for vectors gets 503
with Retry-After. Once ready, each worker reads the vectors from the cache once and keeps them
(kg/retrieve/search.py), so a hybrid search costs a query embedding more than BM25.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from kg import api
from kg.errors import KgError
from kg.kb import KnowledgeBase

PREPARE_SECONDS = 3600.0  # the time limit of the background embedding (its progress restarts it too)
VECTOR_MODES = ("vector", "hybrid")
log = logging.getLogger("uvicorn.error")


class VectorsNotReady(KgError):
    """A vector search asked for while the server still embeds the knowledge base (503)."""


class Vectors:
    """The state of the server's vectors: which graph they cover, the embedding under way, its failure."""

    def __init__(self, kb: KnowledgeBase, pool: Any, embedder: str | None, mode: str) -> None:
        self.kb, self.pool, self.embedder, self.mode = kb, pool, embedder, mode
        self.covered: tuple[Any, ...] | None = None  # the graph's stamp the vectors were made for
        self.done, self.total = 0, 0
        self.failure: str | None = None
        self.failed_for: tuple[Any, ...] | None = None  # the graph's stamp an embedding failed on (not tried again)
        self._running: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def needed(self) -> bool:
        return self.mode in VECTOR_MODES

    def ready(self) -> bool:
        """True when the vectors cover the graph as it is now; otherwise starts embedding them (once
        per state of the graph: a failure is not tried again until a writer changes it)."""
        now = api.graph_stamp(self.kb)
        if self.covered == now:
            return True
        if self.failed_for != now:
            self.start()
        return False

    def start(self) -> None:
        with self._lock:
            if self._running is None or not self._running.is_alive():
                self._running = threading.Thread(target=self._prepare, name="kg-vectors", daemon=True)
                self._running.start()

    def _prepare(self) -> None:
        before = api.graph_stamp(self.kb)
        started = time.monotonic()
        try:
            embedded = self.pool.call(api.prepare_vectors, self.kb, self.embedder, timeout_seconds=PREPARE_SECONDS,
                                      progress=self._progress)
        except Exception as exc:  # said in the log, and to whoever asks for vectors
            self.failure, self.failed_for = str(exc), before
            log.warning("kg serve: vector search is not available, searches run as BM25: %s", exc)
            return
        self.failure = None
        self.covered = before  # a writer that came in meanwhile: the next search starts again
        log.info("kg serve: vector search ready (%d texts embedded in %.1f s)", embedded, time.monotonic() - started)

    def _progress(self, done: int, total: int, embedded: int) -> None:
        self.done, self.total = done, total

    def mode_for(self, requested: str | None) -> str:
        """The mode a search or a question runs in: the one asked for, else the server's; the
        server's vector mode as BM25 until the vectors are ready; VectorsNotReady for a vector
        mode asked for meanwhile."""
        if requested is None:
            return self.mode if not self.needed or self.ready() else "bm25"
        if requested in VECTOR_MODES and not self.ready():
            state = f"{self.done:,} of {self.total:,} texts" if self.total else "starting"
            why = f" (the last attempt failed: {self.failure})" if self.failure else ""
            raise VectorsNotReady(f"The server is still embedding the knowledge base for vector search ({state}){why}. "
                                  "Retry in a minute, or ask with mode=bm25 meanwhile.")
        return requested

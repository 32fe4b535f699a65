"""`kg watch`: compile the paths of raw/ that change, as `kg compile PATH...` would, a burst of
events at a time. The graph's lock is held only while compiling, so searches, questions and
`kg mcp` work in between; `.kg/watch.pid` keeps a second watch of the same knowledge base out."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg import api
from kg.compile.sources import is_supported
from kg.errors import ConfigError, DatabaseLocked, KgError
from kg.kb import KnowledgeBase

WATCH_LOCK = "watch.pid"


@dataclass
class WatchEvent:
    """What one compile of a burst did (or why it failed)."""

    paths: list[str]
    report: Any = None
    rendered: Any = None
    error: str = ""
    seconds: float = 0.0


@dataclass
class PendingPaths:
    """Paths of raw/ touched since the last compile, and when the last event came."""

    paths: set[str] = field(default_factory=set)
    last_event: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, rel: str) -> None:
        with self.lock:
            self.paths.add(rel)
            self.last_event = time.monotonic()

    def take_if_quiet(self, quiet_seconds: float) -> list[str]:
        with self.lock:
            if not self.paths or time.monotonic() - self.last_event < quiet_seconds:
                return []
            taken, self.paths = sorted(self.paths), set()
            return taken

    def put_back(self, paths: list[str]) -> None:
        with self.lock:
            self.paths.update(paths)


def _handler(raw: Path, pending: PendingPaths) -> Any:
    from watchdog.events import FileSystemEventHandler

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: Any) -> None:
            if event.event_type in ("opened", "closed_no_write") or event.is_directory:
                return
            for name in (event.src_path, getattr(event, "dest_path", "")):
                if not name:
                    continue
                path = Path(name)
                try:
                    rel = path.relative_to(raw).as_posix()
                except ValueError:
                    continue
                if is_supported(path) and not any(part.startswith(".") for part in rel.split("/")):
                    pending.add(rel)

    return Handler()


def watch(kb: KnowledgeBase, on_compile: Callable[[WatchEvent], None], stop: threading.Event,
          debounce: float = 1.0, on_ready: Callable[[], None] | None = None) -> None:
    """Watch raw/ until `stop` is set; after `debounce` quiet seconds, compile the touched paths.
    A failed compile is reported and the watch goes on (a busy graph: tried again on the next
    round). Raises DatabaseLocked if another `kg watch` holds this knowledge base."""
    from watchdog.observers import Observer

    holder = api.writer_lock(kb, WATCH_LOCK)
    running = holder.holder()
    if running:
        raise DatabaseLocked(f"kg watch is already running on {kb.root} (process {running.get('pid')}, since "
                             f"{running.get('since', '?')}). Stop it first, or use that one.")
    holder.acquire()
    pending = PendingPaths()
    observer = Observer()
    try:
        observer.schedule(_handler(kb.raw.resolve(), pending), str(kb.raw.resolve()), recursive=True)
        observer.start()
    except OSError as exc:  # e.g. inotify's limit of watches per user
        holder.release()
        raise ConfigError(f"Cannot watch {kb.raw}: {exc}. On Linux, raise fs.inotify.max_user_watches "
                          "(sysctl), or compile with `kg compile` instead.") from exc
    try:
        if on_ready:
            on_ready()
        while not stop.wait(0.2):
            paths = pending.take_if_quiet(debounce)
            if not paths:
                continue
            event = WatchEvent(paths)
            started = time.perf_counter()
            try:
                event.report, event.rendered = _compile(kb, paths)
            except DatabaseLocked as exc:  # a compile or a writer elsewhere: try again shortly
                pending.put_back(paths)
                event.error = str(exc)
            except KgError as exc:
                event.error = str(exc)
            event.seconds = time.perf_counter() - started
            on_compile(event)
    finally:
        observer.stop()
        observer.join(timeout=5)
        holder.release()


def _compile(kb: KnowledgeBase, paths: list[str]) -> tuple[Any, Any]:
    """Compile these paths of raw/; a file made and deleted within one burst (never compiled) is
    not an error here, as it is on the command line."""
    try:
        return api.compile_kb(kb, None, only=paths)
    except ConfigError:
        present = [p for p in paths if (kb.raw / p).exists()]
        if len(present) == len(paths):
            raise
    result: tuple[Any, Any] = (None, None)
    for batch in ([present] if present else []) + [[p] for p in paths if p not in present]:
        try:
            result = api.compile_kb(kb, None, only=batch)
        except ConfigError:
            if batch is not present:
                continue  # gone, and never compiled: nothing to do
            raise
    return result

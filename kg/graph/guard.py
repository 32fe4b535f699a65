"""Reads that kg runs on someone's behalf run under a time limit and a memory ceiling.

Kuzu's query timeout stops most queries, but not one that builds a huge value in a single step
(`UNWIND range(1, 100000000)` grew to 24 GB before the kernel killed it), and no in-process check
can stop native code that never returns. So a read runs in a worker process that the caller
watches: past the time limit or the memory ceiling the worker is killed, the call fails with a
message, and the next call gets a new worker. A native crash of the database library becomes a
message the same way.

`ReadPool(limits, size)` keeps `size` workers (one per concurrent reader) and restarts them
lazily. A call sends a picklable function (a module-level function or a bound method of a
picklable object) with its arguments; callables among the keyword arguments (progress bars,
"rebuilding" notices) stay in the caller and are relayed to, not pickled. While a call reports
`progress` (a first vector search embedding the whole knowledge base), the time limit counts from
the last report: the limit is for answering, not for building an index whose work is kept.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kg.errors import KgError, QueryError, StoreError

POLL_SECONDS = 0.02  # how often a running call's memory is read: at 400 MB/s growth, ~8 MB past the ceiling
GRACE_SECONDS = 2.0  # Kuzu's own timeout stops a query gracefully first (the worker survives); then a kill
STARTUP_SECONDS = 120.0  # a new worker says it is ready within this (a loaded machine); its start is not the call's time
IDLE_SECONDS = 300.0  # an idle worker exits (and is started again when needed): no process outlives its use for long
KEPT_POLL_SECONDS = 0.1  # an idle worker holding the graph open looks this often for a writer waiting for it
PROGRESS_KEY = "progress"  # a relayed keyword argument whose calls restart the clock (see the module docs)
_PRELOAD = ["kg.graph.guard", "kg.graph.store", "kg.api"]  # what a fork server loads once for all its workers


class ReadTimeout(QueryError):
    """A read was stopped at its time limit."""


class ReadTooLarge(QueryError):
    """A read was stopped at its memory ceiling."""


@dataclass(frozen=True)
class Limits:
    """How long and how much memory one read may take, and which setting says so (for messages)."""

    timeout_seconds: float
    memory_mb: int
    timeout_setting: str = "--timeout"
    memory_setting: str = "[limits] memory_mb"

    def __post_init__(self) -> None:
        if self.timeout_seconds <= 0 or self.memory_mb < 128:
            raise KgError(f"Read limits must be a positive time and at least 128 MB (got {self.timeout_seconds} s, "
                          f"{self.memory_mb} MB): fix [limits] in kg.toml or --timeout.")

    @property
    def buffer_pool_mb(self) -> int:
        """Kuzu's page cache inside the ceiling: a quarter of it, leaving room for results and models."""
        return max(64, self.memory_mb // 4)

    def stopped_message(self, seconds: float) -> str:
        return (f"The read was stopped after {_seconds(seconds)} (the limit, {self.timeout_setting}). Ask for less "
                "(a LIMIT, a narrower MATCH, fewer words), or raise the limit.")

    def too_large_message(self) -> str:
        return (f"The read needed more than {self.memory_mb:,} MB of memory and was stopped (the ceiling, "
                f"{self.memory_setting}). Ask for less (a LIMIT, fewer columns, no cross product), or raise it.")


def _seconds(value: float) -> str:
    return f"{value:.0f} s" if value >= 10 else f"{value:.1f} s"


class _Relay:
    """Stands in a child for a callable of the caller's: calls become messages to the caller."""

    def __init__(self, key: str) -> None:
        self.key = key


def _run_in_worker(conn: Any, limits: Limits, idle_seconds: float = IDLE_SECONDS) -> None:
    """The worker's loop: one call at a time until told to stop (None) or the caller goes."""
    import faulthandler

    from kg.graph.kept import keep_reads_open, release
    from kg.graph.store import limit_reads

    faulthandler.disable()  # a native crash is the caller's message, not a dump on the user's terminal
    gc.enable()  # whatever the caller's collector does (kg/cli.py keeps a read command's off)
    limit_reads(int(limits.timeout_seconds * 1000), limits.buffer_pool_mb)
    keep_reads_open()
    conn.send(("ready", None))
    try:
        _serve_calls(conn, limits, idle_seconds)
    finally:
        release()


def _next_task(conn: Any, idle_seconds: float) -> Any:
    """The next call sent (None: stop), looking out for writers between calls (kg/graph/kept.py)."""
    from kg.graph.kept import held
    from kg.graph.store import let_writers_in

    idle_since = time.monotonic()
    while True:
        try:
            if conn.poll(KEPT_POLL_SECONDS if held() else idle_seconds):
                return conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return None
        let_writers_in()
        if time.monotonic() - idle_since >= idle_seconds:
            return None


def _serve_calls(conn: Any, limits: Limits, idle_seconds: float) -> None:
    from kg.graph.store import limit_reads

    while True:
        task = _next_task(conn, idle_seconds)
        if task is None:
            return
        fn, args, kwargs, timeout_ms = task
        limit_reads(timeout_ms, limits.buffer_pool_mb)
        for key, value in list(kwargs.items()):
            if isinstance(value, _Relay):
                kwargs[key] = _relayed(conn, value.key)
        try:
            reply: tuple[str, Any] = ("ok", fn(*args, **kwargs))
        except BaseException as exc:  # everything goes back to the caller, which decides
            reply = ("error", _portable(exc))
        try:
            conn.send(reply)
        except Exception as exc:  # a result that cannot be pickled
            conn.send(("error", KgError(f"The read's result could not be sent back ({exc}).")))


def _relayed(conn: Any, key: str) -> Callable[..., None]:
    def relay(*args: Any) -> None:
        conn.send(("relay", key, args))

    return relay


def _portable(exc: BaseException) -> BaseException:
    """The exception itself when it survives pickling, else a KgError or RuntimeError saying what it was."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return KgError(text) if isinstance(exc, KgError) else RuntimeError(text)


def preload(modules: Iterable[str]) -> None:
    """Adds modules a fork server loads once for all its workers (a server's reads need them; its
    workers then share their pages). Only a fork server started after this loads them."""
    _PRELOAD.extend(module for module in modules if module not in _PRELOAD)


def _context() -> Any:
    """fork when this process has one thread (a CLI command: no second import of kg and Kuzu);
    otherwise a fork server (a server's threads may hold locks a forked child would inherit held)."""
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(list(_PRELOAD))
        return ctx
    return multiprocessing.get_context("spawn")


class _Worker:
    def __init__(self, limits: Limits, idle_seconds: float = IDLE_SECONDS) -> None:
        ctx = _context()
        self.conn, child_conn = ctx.Pipe()
        self.process = ctx.Process(target=_run_in_worker, args=(child_conn, limits, idle_seconds), daemon=True, name="kg-read")
        # A forked worker's collections leave the objects it was forked with alone (gc.freeze, as
        # Python's docs advise before a fork): they are not its garbage, and traversing them would
        # copy their pages. The caller's own objects are collected as before (unfreeze).
        forked = ctx.get_start_method() == "fork"
        if forked:
            gc.freeze()
        try:
            self.process.start()
        finally:
            if forked:
                gc.unfreeze()
        child_conn.close()
        try:
            ready = self.conn.poll(STARTUP_SECONDS) and self.conn.recv()[0] == "ready"
        except (EOFError, OSError):
            ready = False
        if not ready:
            self.kill()
            raise StoreError(f"A read worker did not start within {STARTUP_SECONDS:.0f} s (exit {self.process.exitcode}). "
                             "The machine may be overloaded: try again.")
        # A forked worker starts with its parent's pages counted in its RSS: the ceiling is on what
        # it adds to them (reading smaps for private memory costs ~9 ms a time, too slow to poll).
        self.baseline_mb = self.rss_mb()

    def grown_mb(self) -> float:
        return self.rss_mb() - self.baseline_mb

    def rss_mb(self) -> float:
        """Resident memory of the worker (0 when it cannot be read, e.g. it just exited)."""
        if sys.platform == "linux":  # what psutil reads there, without its import (20-50 ms a command)
            try:
                with open(f"/proc/{self.process.pid}/statm", "rb") as statm:
                    return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
            except (OSError, ValueError, IndexError):
                return 0.0
        import psutil

        try:
            return float(psutil.Process(self.process.pid).memory_info().rss) / 2**20
        except (psutil.Error, OSError):
            return 0.0

    def alive(self) -> bool:
        return self.process.is_alive()

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
            self.process.join(5)
        with contextlib.suppress(Exception):
            self.conn.close()

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.send(None)
            self.process.join(2)
        if self.process.is_alive():
            self.kill()
        with contextlib.suppress(Exception):
            self.conn.close()


class ReadPool:
    """Workers that run reads under `limits`, `size` at a time; see the module's docs."""

    def __init__(self, limits: Limits, size: int = 1, idle_seconds: float = IDLE_SECONDS) -> None:
        self.limits = limits
        self.size = max(1, size)
        self.idle_seconds = idle_seconds  # a worker idle this long exits (a server keeps its workers longer)
        self._idle: list[_Worker] = []
        self._slots = threading.BoundedSemaphore(self.size)
        self._guard = threading.Lock()
        self._closed = False

    def call(self, fn: Callable[..., Any], *args: Any, timeout_seconds: float | None = None, **kwargs: Any) -> Any:
        """`fn(*args, **kwargs)` in a worker; ReadTimeout / ReadTooLarge when it passes the limits."""
        limit = self.limits.timeout_seconds if timeout_seconds is None else timeout_seconds
        if limit <= 0:
            raise QueryError(f"The time limit must be positive (got {limit} s).")
        callbacks = {key: value for key, value in kwargs.items() if callable(value)}
        sent = {key: _Relay(key) if key in callbacks else value for key, value in kwargs.items()}
        with self._slots:
            worker = self._take()
            try:
                worker.conn.send((fn, args, sent, int(limit * 1000)))
                reply = self._wait(worker, limit, callbacks)
            except BaseException:
                worker.kill()  # a stopped, crashed or interrupted worker is never reused
                raise
            self._give_back(worker)
        kind, value = reply
        if kind == "error":
            raise self._translated(value, limit)
        return value

    def _wait(self, worker: _Worker, limit: float, callbacks: dict[str, Callable[..., Any]]) -> tuple[str, Any]:
        clock = time.monotonic()
        while True:
            if worker.conn.poll(POLL_SECONDS):
                try:
                    message = worker.conn.recv()
                except (EOFError, OSError):
                    raise self._crashed(worker) from None
                if message[0] == "relay":
                    _, key, relay_args = message
                    callbacks[key](*relay_args)
                    if key == PROGRESS_KEY:
                        clock = time.monotonic()
                    continue
                return message[0], message[1]
            if not worker.alive():
                raise self._crashed(worker)
            if time.monotonic() - clock > limit + GRACE_SECONDS:
                raise ReadTimeout(self.limits.stopped_message(limit))
            if worker.grown_mb() > self.limits.memory_mb:
                raise ReadTooLarge(self.limits.too_large_message())

    def _translated(self, exc: BaseException, limit: float) -> BaseException:
        """Kuzu's own timeout ("Interrupted") as the message a stopped read gets."""
        if isinstance(exc, QueryError) and "interrupted" in str(exc).lower():
            return ReadTimeout(self.limits.stopped_message(limit))
        if isinstance(exc, QueryError) and "buffer pool is full" in str(exc).lower():
            return ReadTooLarge(self.limits.too_large_message())
        return exc

    def _crashed(self, worker: _Worker) -> StoreError:
        worker.process.join(1)
        code = worker.process.exitcode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit {code}"
        return StoreError(f"The read stopped: its worker process ended ({how}). The knowledge base is unharmed; "
                          "try again, and if it happens again run `kg doctor`.")

    def _take(self) -> _Worker:
        with self._guard:
            if self._closed:
                raise StoreError("This reader was closed.")
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
                worker.kill()
        return _Worker(self.limits, self.idle_seconds)

    def _give_back(self, worker: _Worker) -> None:
        with self._guard:
            # A worker that kept more than half its ceiling after a call (Python seldom gives memory
            # back) would meet the ceiling early in the next call: a new one serves instead.
            keep = (not self._closed and len(self._idle) < self.size
                    and worker.grown_mb() <= self.limits.memory_mb / 2)
            if keep:
                self._idle.append(worker)
        if not keep:
            worker.stop()

    def warm(self, fn: Callable[..., Any], *args: Any) -> None:
        """Start every worker now, in parallel, each running `fn(*args)` once (opening the graph): a
        server's first reads then pay for neither. Failures are left for the reads to meet."""
        def one() -> None:
            worker = None
            try:
                worker = _Worker(self.limits, self.idle_seconds)
                worker.conn.send((fn, args, {}, int(self.limits.timeout_seconds * 1000)))
                self._wait(worker, self.limits.timeout_seconds, {})
                self._give_back(worker)
            except Exception:
                if worker is not None:
                    worker.kill()

        threads = [threading.Thread(target=one, daemon=True) for _ in range(self.size)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def close(self) -> None:
        with self._guard:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.stop()

    def __enter__(self) -> ReadPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


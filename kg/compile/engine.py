"""Where a compile's per-source work runs: in this process (the default), or fanned out over Ray.

An engine is one method, `map(fn, items)`: `fn` applied to each item, the results yielded in the
order of `items`, whatever order they finish in. The compiler maps its pure per-source step
(read -> chunk -> extract -> verify, `kg.compile.pipeline.SourceWork`) over the sources to compile
and writes each result through its one writer, in that order: so the same raw/ gives the same
graph and wiki on either engine.

`LocalEngine` is lazy: `fn(item)` runs when its result is asked for, so a source is read just
before it is written, as in a compile without engines. `RayEngine` (`kg compile --engine ray`)
sends `fn` once to the cluster, items in groups of `group` per task, and keeps at most `window`
tasks in flight, so memory stays bounded however many sources there are. Ray is imported only
here, only when asked for (`pip install 'kg[ray]'`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

from kg.errors import ConfigError, KgError

T = TypeVar("T")
R = TypeVar("R")

ENGINES = ("local", "ray")


class EngineError(KgError):
    """The engine lost work it was given (exit 1): what was written stands, the next compile redoes the rest."""


class Engine(Protocol):
    name: str
    #: Whether `fn` runs in other processes (it and its results are pickled; it sees no live store).
    remote: bool

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]: ...

    def close(self) -> None: ...


class LocalEngine:
    name = "local"
    remote = False

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        return (fn(item) for item in items)

    def close(self) -> None:
        pass


def _apply(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    return [fn(item) for item in items]


class RayEngine:
    name = "ray"
    remote = True

    def __init__(self, address: str | None = None, num_cpus: int | None = None, group: int = 8,
                 window: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise ConfigError("--engine ray needs Ray, which is not installed: pip install 'kg[ray]'") from None
        self._ray = ray
        if address:
            _reachable(address)
        self.address = address
        self.num_cpus = num_cpus
        self.group = max(1, group)
        self.window = window
        self._started = False

    def _init(self) -> None:
        ray = self._ray
        if ray.is_initialized():  # a caller (a test, a notebook) started it: use it, leave it running
            return
        try:
            if self.address:
                ray.init(address=self.address, log_to_driver=False)
            else:
                ray.init(num_cpus=self.num_cpus, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            where = f"the Ray cluster at {self.address}" if self.address else "a local Ray"
            raise ConfigError(f"--engine ray could not start or reach {where}: {exc}") from None
        self._started = True

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        ray = self._ray
        self._init()
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        window = self.window or 4 * cpus
        remote = ray.remote(_apply)
        fn_ref = ray.put(fn)  # sent once, not with every task
        pending: deque[Any] = deque()
        group: list[T] = []

        def results(ref: Any) -> list[Any]:
            try:
                return list(ray.get(ref))
            except ray.exceptions.RayError as exc:  # a worker died, the cluster went away...
                raise EngineError(f"--engine ray: a task failed ({type(exc).__name__}: {exc}). The batches "
                                  "written so far stand; run the compile again to finish.") from None

        def submit() -> None:
            pending.append(remote.remote(fn_ref, list(group)))
            group.clear()

        for item in items:
            group.append(item)
            if len(group) >= self.group:
                submit()
                while len(pending) >= window:  # results in submission order: the first is waited for
                    yield from results(pending.popleft())
        if group:
            submit()
        while pending:
            yield from results(pending.popleft())

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Fail at once when nothing answers at a Ray cluster's HOST:PORT (ray.init would retry for
    minutes); "auto" and "ray://" addresses are left to Ray."""
    import socket

    host, _, port = address.rpartition(":")
    if address == "auto" or "://" in address or not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ConfigError(f"--engine ray: nothing answers at {address} ({exc.strerror or exc}). Start the cluster "
                          "(`ray start --head`) or give its address as HOST:PORT.") from None


def make_engine(name: str = "local", address: str | None = None, num_cpus: int | None = None) -> Engine:
    """The engine by name (`kg compile --engine`)."""
    if name == "local":
        if address:
            raise ConfigError("--address is the Ray cluster's address: it goes with --engine ray.")
        return LocalEngine()
    if name == "ray":
        return RayEngine(address, num_cpus)
    raise ConfigError(f"unknown engine {name!r}: choose one of {', '.join(ENGINES)}.")

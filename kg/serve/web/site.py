"""The server's side of a request: every read goes to the ReadPool's worker processes (never Kuzu in
this process) through kg/serve/reading.py, the knowledge base's errors become pages or JSON with a
status, and a graph held by a compile gets 503 with Retry-After once a short wait has not freed it."""

from __future__ import annotations

import functools
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from kg import api
from kg.errors import ConfigError, DatabaseLocked, KgError, QueryError, StoreError
from kg.kb import KnowledgeBase
from kg.serve.reading import PAGE_PATIENCE, patient_read
from kg.serve.vectors import Vectors, VectorsNotReady
from kg.serve.web import render
from kg.serve.web.auth import SESSION_COOKIE

RETRY_AFTER = 5
MAX_PAGE = 10_000
CACHED = 256  # page reads kept in memory while the graph is unchanged (see Site.read_cached)


@dataclass(frozen=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    allow_writes: bool = False
    readers: int = 4  # concurrent reads: worker processes of the ReadPool
    timeout: float | None = None  # seconds per read (default [limits] serve_timeout_seconds)
    embedder: str | None = None  # None: [search] embedder in kg.toml
    mode: str | None = None  # the default of /api/search, /api/query and /mcp (None: kg search's); pages use BM25


Handler = Callable[["Site", Request], Awaitable[Response]]


def endpoint(site: Site, handler: Handler, as_json: bool) -> Callable[[Request], Awaitable[Response]]:
    """A route's endpoint: the handler, with a KgError as an error page (or JSON) with its status."""
    async def run(request: Request) -> Response:
        try:
            return await handler(site, request)
        except KgError as exc:
            return site.failed(request, exc, as_json=as_json)

    return run


def status_of(exc: KgError) -> int:
    if isinstance(exc, api.NotFound):
        return 404
    if isinstance(exc, DatabaseLocked | StoreError | api.ReadTimeout | api.ReadTooLarge | VectorsNotReady):
        return 503
    if isinstance(exc, QueryError | ConfigError):
        return 400
    return 500


class Site:
    """One knowledge base served: its read pool, its pages and its errors."""

    def __init__(self, kb: KnowledgeBase, pool: Any, options: ServeOptions) -> None:
        from kg.retrieve.settings import DEFAULT_MODE

        self.kb, self.pool, self.options = kb, pool, options
        self.vectors = Vectors(kb, pool, options.embedder, options.mode or DEFAULT_MODE)
        self.name = kb.root.name
        self._cached: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._stamp: tuple[Any, ...] = ()

    async def read(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """`fn(*args, **kwargs)` in a read worker, waiting up to PAGE_PATIENCE for a writer."""
        return await anyio.to_thread.run_sync(functools.partial(patient_read, self.pool, PAGE_PATIENCE, fn, *args, **kwargs))

    async def read_cached(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(kb, *args)`, a read that depends on the graph alone (not on raw/ or the clock): answered
        again from memory while the graph's files are unchanged (a writer changes them), the CACHED
        latest kept."""
        now = api.graph_stamp(self.kb)
        if now != self._stamp:
            self._cached.clear()
            self._stamp = now
        key = (fn.__name__, *args)
        if key in self._cached:
            self._cached.move_to_end(key)
            return self._cached[key]
        value = await self.read(fn, self.kb, *args)
        if api.graph_stamp(self.kb) == now:  # not when a writer came in meanwhile
            self._cached[key] = value
            while len(self._cached) > CACHED:
                self._cached.popitem(last=False)
        return value

    def html(self, request: Request, template: str, status: int = 200, headers: dict[str, str] | None = None,
             **values: Any) -> HTMLResponse:
        from kg import __version__

        text = render.page(template, site=self.name, version=__version__, max_query=api.MAX_TEXT_CHARS,
                           signed_in=bool(self.options.token and request.cookies.get(SESSION_COOKIE)), **values)
        return HTMLResponse(text, status, headers=headers)

    def failed(self, request: Request, exc: KgError, as_json: bool) -> Response:
        status = status_of(exc)
        later = isinstance(exc, DatabaseLocked | VectorsNotReady)
        headers = {"Retry-After": str(RETRY_AFTER)} if later else None
        if as_json:
            return JSONResponse({"error": str(exc)}, status, headers=headers)
        heading = {404: "Not found", 400: "Cannot do that", 503: "Not available just now"}.get(status, "Something failed")
        return self.html(request, "error.html", status, headers, heading=heading, message=str(exc),
                         refresh=RETRY_AFTER if later else 0)


def json_response(data: Any) -> Response:
    """JSON as the CLI's --json prints it (UTF-8, values it cannot encode as text)."""
    return Response(json.dumps(data, ensure_ascii=False, default=str), media_type="application/json")


def page_number(request: Request, name: str = "page", top: int = MAX_PAGE) -> int:
    raw = request.query_params.get(name, "1")
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if not 1 <= value <= top:
        raise QueryError(f"{name}={raw!r} is not a page number between 1 and {top:,}.")
    return value


def text_param(request: Request, name: str, what: str, required: bool = True) -> str:
    value = request.query_params.get(name, "")
    api.check_text(value, what, api.MAX_TEXT_CHARS)
    if required and not value.strip():
        raise QueryError(f"{what} is empty: pass ?{name}=<words>.")
    return value.strip()


def name_param(value: str, what: str) -> str:
    api.check_text(value, what, api.MAX_NAME_CHARS, name=True)
    if not value.strip():
        raise QueryError(f"{what} is empty.")
    return value

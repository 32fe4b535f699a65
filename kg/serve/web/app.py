"""The `kg serve` application: pages, JSON and MCP over streamable HTTP (/mcp) in one Starlette
app behind one Gate (kg/serve/web/auth.py), run by uvicorn. Every read goes through one ReadPool
of `readers` worker processes, which the MCP tools share."""

from __future__ import annotations

import contextlib
import hmac
import signal
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from kg import api
from kg.embed import check_embedder
from kg.errors import ConfigError, KgError
from kg.kb import KnowledgeBase
from kg.serve.mcp import build_server
from kg.serve.reading import MODES
from kg.serve.web import json_api, pages
from kg.serve.web.auth import (
    SESSION_COOKIE,
    SESSION_SECONDS,
    Gate,
    check_exposure,
    login_form,
    mcp_security,
    safe_next,
    session_value,
)
from kg.serve.web.site import ServeOptions, Site

STATIC = Path(__file__).with_name("static")
MAX_READERS = 32
WORKER_IDLE_SECONDS = 3600.0  # a server's read workers stay up through quiet spells (a new one takes seconds)


def build_app(kb: KnowledgeBase, options: ServeOptions) -> Any:
    """The ASGI app (Gate around Starlette). Refuses (ConfigError) a server others could reach
    without a token, before anything starts."""
    check_exposure(options.host, options.token)
    if not 1 <= options.readers <= MAX_READERS:
        raise ConfigError(f"--readers {options.readers}: give 1 to {MAX_READERS} (each is a worker process).")
    if options.mode is not None and options.mode not in MODES:
        raise ConfigError(f"--mode {options.mode}: use one of {', '.join(MODES)}.")
    check_embedder(options.embedder or kb.config().search.embedder, installed=options.mode != "bm25")
    pool = api.reader(kb, served=True, timeout=options.timeout, size=options.readers, idle_seconds=WORKER_IDLE_SECONDS)
    site = Site(kb, pool, options)
    mcp = build_server(kb, options.allow_writes, options.embedder, options.timeout, reader=pool,
                       mode_for=site.vectors.mode_for)
    mcp_app = mcp.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True,
                                      host=options.host, transport_security=mcp_security(options.host))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            await anyio.to_thread.run_sync(pool.warm, api.open_graph, kb)  # every worker up, the graph open
            if site.vectors.needed:
                site.vectors.start()  # embedded in the background (kg/serve/vectors.py)
            async with mcp.session_manager.run():
                yield
        finally:
            pool.close()  # the read workers stop with the server

    routes: list[BaseRoute] = [*pages.routes(site), *json_api.routes(site), *_login_routes(site),
                               Mount("/static", StaticFiles(directory=STATIC)), *mcp_app.routes]
    app = Starlette(routes=routes, lifespan=lifespan)
    return Gate(app, options.token, site.name)


def _login_routes(site: Site) -> list[Route]:
    async def login_page(request: Request) -> Response:
        if not site.options.token:
            return RedirectResponse("/", 303)
        return site.html(request, "login.html", next=safe_next(request.query_params.get("next", "/")), failed=False)

    async def login(request: Request) -> Response:
        token = site.options.token
        if not token:
            return RedirectResponse("/", 303)
        given, target = login_form(await _body(request))
        if not hmac.compare_digest(given.encode("utf-8"), token.encode("utf-8")):
            return site.html(request, "login.html", 401, next=target, failed=True)
        response = RedirectResponse(target, 303)
        response.set_cookie(SESSION_COOKIE, session_value(token), max_age=SESSION_SECONDS, httponly=True,
                            samesite="strict", secure=request.url.scheme == "https")
        return response

    async def logout(request: Request) -> Response:
        response = RedirectResponse("/login" if site.options.token else "/", 303)
        response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="strict")
        return response

    return [Route("/login", login_page, methods=["GET"]), Route("/login", login, methods=["POST"]),
            Route("/logout", logout, methods=["POST"])]


async def _body(request: Request, limit: int = 4096) -> bytes:
    """The request body, at most `limit` bytes read (a login form is small)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            break
    return body[:limit]


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, or ConfigError naming the port in use (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"Cannot listen on {host}:{port} ({exc.strerror or exc}). Choose another with --port, "
                          "or stop what uses it.") from exc
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _server_class() -> Any:
    import uvicorn

    class Server(uvicorn.Server):
        """Stops on SIGINT or SIGTERM like uvicorn's, then returns (exit 0) instead of raising the signal again."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True
            self.should_exit = True

    return Server


def serve(kb: KnowledgeBase, options: ServeOptions, on_ready: Any = None) -> None:
    """Run the server until SIGINT or SIGTERM. `on_ready(url)` is told where it listens."""
    import uvicorn

    app = build_app(kb, options)
    sock = bind(options.host, options.port)
    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(app, host=host, port=port, log_level="info", access_log=True, lifespan="on",
                            server_header=False, timeout_graceful_shutdown=5)
    server = _server_class()(config)
    if on_ready is not None:
        on_ready(f"http://{'[' + host + ']' if ':' in host else host}:{port}")
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    if not server.started:
        raise KgError("The server did not start (the lines above say why).")

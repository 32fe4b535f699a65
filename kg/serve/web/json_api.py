"""JSON for programs, in the shapes the CLI's --json prints (the same library results, the same
`as_dict`): /api/search (`kg search --json`), /api/query (`kg query --json`), /api/entity/<id>
(`kg entity show --json`), /api/claim/<id> (`kg claim show --json`). Errors are {"error": message}
with a status: 400 bad input, 404 not found, 503 (with Retry-After while a compile holds the graph)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from kg import api
from kg.errors import QueryError
from kg.serve.reading import MAX_SEARCH_LIMIT, MODES
from kg.serve.web.site import Handler, Site, endpoint, json_response, name_param, text_param

MAX_SOURCES = 1000  # /api/entity lists at most this many sources (then says how many there are)


def routes(site: Site) -> list[Route]:
    def bind(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        return endpoint(site, handler, as_json=True)

    return [Route("/api/search", bind(search)), Route("/api/query", bind(query)),
            Route("/api/entity/{entity_id:path}", bind(entity)), Route("/api/claim/{claim_id}", bind(claim))]


def _number(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name, str(default))
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise QueryError(f"{name}={raw!r} must be a whole number between {low:,} and {high:,}.")
    return value


def _mode(site: Site, request: Request) -> str:
    """The mode asked for, else the server's (kg/serve/vectors.py: BM25 until the vectors are ready)."""
    mode = request.query_params.get("mode")
    if mode is not None and mode not in MODES:
        raise QueryError(f"mode={mode!r} is not one of {', '.join(MODES)}.")
    return site.vectors.mode_for(mode)


def _embedding(mode: str) -> dict[str, Any]:
    """A first vector search embeds the whole knowledge base (kept in .kg/vectors.sqlite): its
    progress, relayed by the read pool, restarts the time limit, which is for answering."""
    def progress(done: int, total: int, embedded: int) -> None:
        return None

    return {"progress": progress} if mode != "bm25" else {}


async def search(site: Site, request: Request) -> Response:
    text = text_param(request, "q", "The search text")
    k = _number(request, "k", 10, 1, MAX_SEARCH_LIMIT)
    expand = request.query_params.get("expand", "") in ("1", "true", "yes")
    mode = _mode(site, request)
    result = await site.read(api.search_kb, site.kb, text, mode, k, expand, site.options.embedder, **_embedding(mode))
    return json_response(result.as_dict())


async def query(site: Site, request: Request) -> Response:
    question = text_param(request, "q", "The question")
    budget = _number(request, "budget", 2000, api.MIN_BUDGET, api.MAX_BUDGET)
    mode = _mode(site, request)
    form = request.query_params.get("form", "page")
    if form not in api.ANSWER_FORMS:
        raise QueryError(f"form must be one of {', '.join(api.ANSWER_FORMS)} (got {form!r}).")
    result = await site.read(api.answer_question, site.kb, question, budget, site.options.embedder, mode=mode,
                             form=form, **_embedding(mode))
    return json_response(result.as_dict())


async def entity(site: Site, request: Request) -> Response:
    ref = name_param(request.path_params["entity_id"], "The entity")
    try:
        data = await site.read(api.entity_show, site.kb, ref)
    except QueryError as exc:
        raise api.NotFound(str(exc)) if str(exc).startswith("No entity") else exc from None
    if len(data["sources"]) > MAX_SOURCES:  # a hub of a large knowledge base: the reply stays bounded
        data["sources_total"], data["sources"] = len(data["sources"]), data["sources"][:MAX_SOURCES]
    return json_response(data)


async def claim(site: Site, request: Request) -> Response:
    claim_id = name_param(request.path_params["claim_id"], "The claim id").lstrip("^")
    try:
        report = await site.read(api.claim_show, site.kb, claim_id)
    except QueryError as exc:
        raise api.NotFound(str(exc)) if str(exc).startswith("No claim") else exc from None
    return json_response(report.as_dict())

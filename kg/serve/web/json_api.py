"""JSON for programs, in the shapes the CLI's --json prints (the same library results, the same
`as_dict`): /api/search (`kg search --json`), /api/query (`kg query --json`), /api/entity/<id>
(`kg entity show --json`), /api/claim/<id> (`kg claim show --json`). Errors are {"error": message}
with a status: 400 bad input, 404 not found, 503 (with Retry-After while a compile holds the graph)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from kg import api
from kg.errors import KgError, QueryError
from kg.serve.tools import MAX_SEARCH_LIMIT, MODES
from kg.serve.web.reads import NotFound
from kg.serve.web.site import Site, json_response, name_param, text_param

Handler = Callable[[Site, Request], Awaitable[Response]]


def routes(site: Site) -> list[Route]:
    def bind(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(site, request)
            except KgError as exc:
                return site.failed(request, exc, as_json=True)

        return endpoint

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


def _mode(request: Request) -> str:
    mode = request.query_params.get("mode", "bm25")
    if mode not in MODES:
        raise QueryError(f"mode={mode!r} is not one of {', '.join(MODES)}.")
    return mode


async def search(site: Site, request: Request) -> Response:
    text = text_param(request, "q", "The search text")
    k = _number(request, "k", 10, 1, MAX_SEARCH_LIMIT)
    expand = request.query_params.get("expand", "") in ("1", "true", "yes")
    result = await site.read(api.search_kb, site.kb, text, _mode(request), k, expand, site.options.embedder)
    return json_response(result.as_dict())


async def query(site: Site, request: Request) -> Response:
    question = text_param(request, "q", "The question")
    budget = _number(request, "budget", 2000, 200, 50_000)
    answer, nav = await site.read(api.answer_question, site.kb, question, budget, site.options.embedder,
                                  mode=_mode(request))
    return json_response(api.query_json(answer, nav))


async def entity(site: Site, request: Request) -> Response:
    ref = name_param(request.path_params["entity_id"], "The entity")
    try:
        return json_response(await site.read(api.entity_show, site.kb, ref))
    except QueryError as exc:
        raise NotFound(str(exc)) if str(exc).startswith("No entity") else exc from None


async def claim(site: Site, request: Request) -> Response:
    claim_id = name_param(request.path_params["claim_id"], "The claim id").lstrip("^")
    try:
        report = await site.read(api.claim_show, site.kb, claim_id)
    except QueryError as exc:
        raise NotFound(str(exc)) if str(exc).startswith("No claim") else exc from None
    return json_response(report.as_dict())

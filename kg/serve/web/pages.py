"""The HTML pages: each handler validates its inputs, reads through the Site (a read worker) and
renders a template. Errors become pages with a status (kg/serve/web/site.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from kg import api
from kg.api.browse import NEIGHBOURS
from kg.serve.web import render
from kg.serve.web.site import Handler, Site, endpoint, name_param, page_number, text_param


def routes(site: Site) -> list[Route]:
    def bind(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        return endpoint(site, handler, as_json=False)

    return [
        Route("/", bind(home)), Route("/search", bind(search)), Route("/entities", bind(entity_list)),
        Route("/entities/{entity_id:path}", bind(entity)), Route("/sources", bind(source_list)),
        Route("/sources/{slug:path}", bind(source)), Route("/claims/{claim_id}", bind(claim)),
        Route("/contradictions", bind(contradictions)), Route("/log", bind(log)),
        Route("/answers/{page_id:path}", bind(answer)),
    ]


async def home(site: Site, request: Request) -> Response:
    data = await site.read_cached(api.home_page)
    return site.html(request, "home.html", data=data)


async def search(site: Site, request: Request) -> Response:
    query = text_param(request, "q", "The search text", required=False)
    data = await site.read_cached(api.search_page, query) if query else {}
    return site.html(request, "search.html", query=query, data=data)


async def entity(site: Site, request: Request) -> Response:
    ref = name_param(request.path_params["entity_id"], "The entity")
    page = page_number(request)
    try:
        data = await site.read_cached(api.entity_page, ref, page)
    except api.NotFound:  # a name typed by hand: its entity's page, if the name is one
        found = await site.read(api.entity_id_named, site.kb, ref)
        target = render.link(f"entities/{found}") if found else f"/search?q={quote(ref, safe='')}"
        return RedirectResponse(target, 302)
    if "redirect" in data:
        return RedirectResponse(render.link(f"entities/{data['redirect']}"), 302)
    return site.html(request, "entity.html", data=data, graph=_graph(data), neighbours_max=NEIGHBOURS)


def _graph(data: dict[str, Any]) -> dict[str, Any]:
    """What kg.js draws: the entity (and the names merged into it), its neighbours, each linked to it
    by the claims they share (the weight), and the links among the neighbours."""
    centre, near = data["entity"]["id"], data["neighbours"]
    top = max([n["claims"] for n in near] or [1])
    nodes = [{"id": centre, "name": data["entity"]["name"], "weight": top, "center": True}]
    nodes += [{"id": n["id"], "name": n["name"], "weight": n["claims"], "center": False} for n in near]
    edges = [{"source": centre, "target": n["id"], "weight": n["claims"]} for n in near]
    edges += [{"source": r["a_id"], "target": r["b_id"], "weight": r["claims"]} for r in data["links"]]
    return {"nodes": nodes, "edges": edges}


async def entity_list(site: Site, request: Request) -> Response:
    kind = name_param(request.query_params.get("type", ""), "The entity type (?type=)")
    data = await site.read_cached(api.entity_list_page, kind, page_number(request))
    return site.html(request, "list.html", data=data, kind="entities", heading=f"Entities: {kind}",
                     base=f"?type={quote(kind, safe='')}&")


async def source_list(site: Site, request: Request) -> Response:
    data = await site.read_cached(api.source_list_page, page_number(request))
    return site.html(request, "list.html", data=data, kind="sources", heading="Sources", base="?")


async def source(site: Site, request: Request) -> Response:
    slug = name_param(request.path_params["slug"], "The source")
    part = page_number(request, "part", 100_000)
    at = request.query_params.get("at")
    data = await site.read(api.source_page, site.kb, slug, part, int(at) if at and at.isdigit() else None)
    return site.html(request, "source.html", data=data)


async def claim(site: Site, request: Request) -> Response:
    claim_id = name_param(request.path_params["claim_id"], "The claim id").lstrip("^")
    data = await site.read(api.claim_page, site.kb, claim_id)
    return site.html(request, "claim.html", data=data)


async def contradictions(site: Site, request: Request) -> Response:
    data = await site.read_cached(api.contradictions_page, page_number(request))
    return site.html(request, "contradictions.html", data=data)


async def log(site: Site, request: Request) -> Response:
    data = await site.read_cached(api.log_page, page_number(request))
    return site.html(request, "log.html", data=data)


async def answer(site: Site, request: Request) -> Response:
    page_id = name_param(request.path_params["page_id"], "The answer")
    if page_id.endswith(tuple(api.ANSWER_FILES)):  # the chart, canvas or deck a saved answer's form draws
        media, content = await site.read_cached(api.answer_file, page_id)
        shown = "inline" if media == "image/png" else "attachment"
        return Response(content, media_type=media,
                        headers={"Content-Disposition": f'{shown}; filename="{page_id.rsplit("/", 1)[-1]}"'})
    data = await site.read_cached(api.answer_page, page_id)
    return site.html(request, "answer.html", data=data, body=render.markdown(render.without_form_data(data["body"])))


"""JSON Canvas 1.0 (jsoncanvas.org), the .canvas files Obsidian opens: an entity's neighbourhood
drawn from the graph.

File nodes name wiki pages relative to the wiki folder (the Obsidian vault): an entity page for
each entity, a source page for the first live source of each claim. Text nodes hold the claims,
their text verbatim with a link to their source. Edges run subject -> claim (labelled with the
claim's predicate), claim -> each other entity it names (labelled with the role) and claim ->
source. The layout is columns, left to right: the centre entity, its claims, the entities one hop
away, then two hops, with sources last; rows follow the graph's own order (claims as the entity
page lists them, entities by id), so the same graph gives the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exporters.pages import ClaimView, WikiGraph

ENTITY_SIZE = (320, 120)
CLAIM_SIZE = (420, 160)
SOURCE_SIZE = (320, 100)
COLUMN_GAP = 120
ROW_GAP = 40
MAX_ENTITIES = 24  # past this a canvas is a hairball; the entity pages list the rest
MAX_CLAIMS = 16


@dataclass(frozen=True)
class Neighbourhood:
    center: str
    rings: list[list[str]]  # entity ids by hop: rings[0] == [center]
    claims: list[ClaimView]


def neighbourhood(graph: WikiGraph, center: str, hops: int = 1, max_entities: int = MAX_ENTITIES,
                  max_claims: int = MAX_CLAIMS) -> Neighbourhood:
    """The centre, the entities up to `hops` related steps away (nearest first, at most
    max_entities in all) and the claims that join them: the centre's own claims first, then
    claims between other entities drawn, in the entity pages' order."""
    seen, rings = {center}, [[center]]
    for _ in range(max(hops, 0)):
        ring = sorted({n for e in rings[-1] for n in graph.related.get(e, ()) if n not in seen and n in graph.entities})
        ring = ring[:max(max_entities - len(seen), 0)]
        if not ring:
            break
        seen.update(ring)
        rings.append(ring)
    chosen: dict[str, ClaimView] = {}
    for entity_id in (e for ring in rings for e in ring):
        for claim_id in graph.claims_of_entity.get(entity_id, []):
            claim = graph.claims.get(claim_id)
            if claim is None or claim.id in chosen or len(chosen) >= max_claims:
                continue
            others = {e for e, _ in claim.entities} - {entity_id}
            if entity_id == center or others & seen:
                chosen[claim.id] = claim
    return Neighbourhood(center, rings, list(chosen.values()))


def canvas(graph: WikiGraph, hood: Neighbourhood) -> dict[str, Any]:
    """The JSON Canvas document of a neighbourhood."""
    drawn = {e for ring in hood.rings for e in ring}
    lead = [_entity_node(graph, hood.center)]
    return _draw(graph, [lead], hood.claims, [[_entity_node(graph, e) for e in ring] for ring in hood.rings[1:]],
                 drawn, hood.center, [])


def claims_canvas(graph: WikiGraph, question: str, subjects: list[str], others: list[str],
                  claims: list[ClaimView]) -> dict[str, Any]:
    """The claims an answer cites: the question, the entities they are about, the claims, the other
    entities they name, their sources."""
    question_node = _node("question", "text", ENTITY_SIZE, text=f"**{question}**")
    drawn = set(subjects) | set(others)
    about = [_edge("question", f"entity-{e}", "") for e in subjects]
    return _draw(graph, [[question_node], [_entity_node(graph, e) for e in subjects]], claims,
                 [[_entity_node(graph, e) for e in others]], drawn, "", about)


def _draw(graph: WikiGraph, lead: list[list[dict[str, Any]]], claims: list[ClaimView],
          after: list[list[dict[str, Any]]], drawn: set[str], anchor: str, edges: list[dict[str, Any]]) -> dict[str, Any]:
    """Columns: `lead`, the claims, `after`, then the claims' sources; edges subject -> claim ->
    other entities and source (a subject not drawn hangs the claim on `anchor`, if any)."""
    claim_nodes: list[dict[str, Any]] = []
    source_nodes: dict[str, dict[str, Any]] = {}
    edges = list(edges)
    for claim in claims:
        node_id = f"claim-{claim.id}"
        live = next((ev for ev in claim.evidence if not ev.retracted), None)
        cite = f"\n\n[[sources/{live.source_slug}#^{claim.id}|{_label(live.source_title)}]]" if live else ""
        claim_nodes.append(_node(node_id, "text", CLAIM_SIZE, text=f"{claim.text}{cite}"))
        subject = claim.subject if claim.subject in drawn else anchor
        if subject:
            edges.append(_edge(f"entity-{subject}", node_id, claim.predicate or claim.claim_type))
        for entity_id, role in claim.entities:
            if entity_id != subject and entity_id in drawn:
                edges.append(_edge(node_id, f"entity-{entity_id}", role))
        if live:
            source_id = f"source-{live.source_slug}"
            source_nodes.setdefault(source_id, _node(source_id, "file", SOURCE_SIZE, file=f"sources/{live.source_slug}.md"))
            edges.append(_edge(node_id, source_id, "source"))
    columns = [*lead, claim_nodes, *after, [source_nodes[k] for k in sorted(source_nodes)]]
    nodes = _laid_out([c for c in columns if c])
    named = {n["id"] for n in nodes}
    unique = {e["id"]: e for e in edges if e["fromNode"] in named and e["toNode"] in named}
    return {"nodes": nodes, "edges": list(unique.values())}


def dumps(document: dict[str, Any]) -> bytes:
    """Canvas bytes: tab-indented like Obsidian's own files, keys in a fixed order, UTF-8."""
    return (json.dumps(document, indent="\t", ensure_ascii=False) + "\n").encode("utf-8")


def problems(document: dict[str, Any], vault: Path) -> list[str]:
    """What makes a document no valid JSON Canvas 1.0 for this vault: a node without id, type, x,
    y, width and height (integers), a duplicate id, a file node whose file is not in the vault, an
    edge naming a node that does not exist."""
    found, ids = [], set()
    for node in document.get("nodes", []):
        missing = [k for k in ("id", "type", "x", "y", "width", "height") if k not in node]
        if missing:
            found.append(f"node {node.get('id', '?')} lacks {', '.join(missing)}")
            continue
        if not all(isinstance(node[k], int) for k in ("x", "y", "width", "height")):
            found.append(f"node {node['id']} has a non-integer position or size")
        if node["id"] in ids:
            found.append(f"node id {node['id']} is used twice")
        ids.add(node["id"])
        if node["type"] not in {"text", "file", "link", "group"}:
            found.append(f"node {node['id']} has unknown type {node['type']!r}")
        if node["type"] == "file" and not (vault / node.get("file", "")).is_file():
            found.append(f"node {node['id']} names {node.get('file')!r}, which is not in {vault}")
    for edge in document.get("edges", []):
        for end in ("fromNode", "toNode"):
            if edge.get(end) not in ids:
                found.append(f"edge {edge.get('id', '?')} names node {edge.get(end)!r}, which does not exist")
    return found


def _entity_node(graph: WikiGraph, entity_id: str) -> dict[str, Any]:
    node_id = f"entity-{entity_id}"
    if graph.has_page(entity_id):
        return _node(node_id, "file", ENTITY_SIZE, file=f"entities/{entity_id}.md")
    entity = graph.entities.get(entity_id, {})
    return _node(node_id, "text", ENTITY_SIZE, text=f"**{entity.get('name', entity_id)}** ({entity.get('type', 'concept')})")


def _node(node_id: str, kind: str, size: tuple[int, int], **content: str) -> dict[str, Any]:
    return {"id": node_id, "type": kind, **content, "x": 0, "y": 0, "width": size[0], "height": size[1]}


def _edge(from_node: str, to_node: str, label: str) -> dict[str, Any]:
    edge = {"id": f"{from_node}->{to_node}", "fromNode": from_node, "fromSide": "right", "toNode": to_node,
            "toSide": "left", "toEnd": "arrow"}
    return {**edge, "label": label} if label else edge


def _laid_out(columns: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Columns left to right, each centred on y = 0."""
    nodes, x = [], 0
    for column in columns:
        height = sum(n["height"] for n in column) + ROW_GAP * (len(column) - 1)
        y = -height // 2
        for node in column:
            node["x"], node["y"] = x, y
            y += node["height"] + ROW_GAP
            nodes.append(node)
        x += max(n["width"] for n in column) + COLUMN_GAP
    return nodes


def _label(title: str) -> str:
    return title.replace("|", "-").replace("]", ")").replace("[", "(")

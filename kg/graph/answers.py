"""Writes of filed-back answers (`kg query --save`, kg/retrieve/answer.py): the Cypher they need."""

from __future__ import annotations

from kg.graph.store import WriteBatch

_DELETE_PAGE = "MATCH (p:Page {id: $id}) DETACH DELETE p"


def replace_page(batch: WriteBatch, page_id: str) -> None:
    """First in `batch`: delete the page `page_id` and its edges, so the page written next replaces it."""
    batch.statements.append((_DELETE_PAGE, {"id": page_id}))

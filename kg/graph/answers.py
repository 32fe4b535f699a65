"""Writes of filed-back answers (`kg query --save`, kg/retrieve/answer.py) and of the log a rebuild
puts back (kg/maintain/doctor.py)."""

from __future__ import annotations

from kg.graph.store import WriteBatch

_DELETE_PAGE = "MATCH (p:Page {id: $id}) DETACH DELETE p"


def replace_page(batch: WriteBatch, page_id: str) -> None:
    """First in `batch`: delete the page `page_id` and its edges, so the page written next replaces it."""
    batch.statements.append((_DELETE_PAGE, {"id": page_id}))


def clear_log(batch: WriteBatch) -> None:
    """First in `batch`: delete every log entry (a rebuild writes the journal's back)."""
    batch.statements.append(("MATCH (l:LogEntry) DELETE l", {}))

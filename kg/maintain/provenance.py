"""Provenance of a claim: its evidence cut from the raw file, checked against the hash it was
compiled from; and which claims are stale because their source changed on disk."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.compile.convert import page_of
from kg.compile.sources import sha256_bytes, source_text
from kg.errors import QueryError, SourceError
from kg.graph.claims import (
    claim_by_id,
    claim_contradictions,
    claim_entities,
    claim_evidence,
    claim_supersession,
    live_claims_from_sources,
)
from kg.graph.store import Store


@dataclass
class EvidenceCheck:
    source_path: str
    source_sha256: str
    char_start: int
    char_end: int
    quote: str
    retracted: bool
    state: str  # "verified" | "changed" | "missing" | "mismatch"
    current_text: str | None = None
    note: str = ""
    page: int | None = None  # of a PDF: the page the span starts on


@dataclass
class ClaimReport:
    claim: dict[str, Any]
    entities: list[dict[str, Any]] = field(default_factory=list)
    evidence: list[EvidenceCheck] = field(default_factory=list)
    contradictions: list[dict[str, Any]] = field(default_factory=list)
    supersession: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "entities": self.entities, "evidence": [e.__dict__ for e in self.evidence],
                "contradictions": self.contradictions, "supersession": self.supersession}


def check_evidence(raw: Path, row: dict[str, Any], converted: Path | None = None) -> EvidenceCheck:
    """Cut the span from the raw file as it is now (from its conversion, for a document such as a
    PDF); say whether it is still the compiled version."""
    check = EvidenceCheck(row["path"], row["sha"], row["cs"], row["ce"], row["quote"], bool(row["retracted"]), "verified")
    path = raw / row["path"]
    if not path.is_file():
        check.state, check.note = "missing", f"raw/{row['path']} no longer exists."
        return check
    data = path.read_bytes()
    try:
        text = source_text(raw, row["path"], data, converted)
    except SourceError as exc:
        check.state, check.note = "changed", f"{exc}"
        return check
    if Path(row["path"]).suffix.lower() == ".pdf":
        check.page = page_of(text, row["cs"])
    if sha256_bytes(data) != row["sha"]:
        at = text.find(row["quote"])
        check.state = "changed"
        check.note = (f"raw/{row['path']} changed since this claim was compiled (sha256 {row['sha'][:12]}…); "
                      + (f"the quote now stands at chars {at}–{at + len(row['quote'])}." if at >= 0 else "the quote is no longer in it.")
                      + " Run `kg compile` to bring the graph up to date.")
        check.current_text = text[at : at + len(row["quote"])] if at >= 0 else None
        return check
    check.current_text = text[row["cs"] : row["ce"]]
    if check.current_text != row["quote"]:
        check.state, check.note = "mismatch", "The stored span does not match the stored quote: recompile this source."
    return check


def claim_report(store: Store, raw: Path, claim_id: str, converted: Path | None = None) -> ClaimReport:
    claim = claim_by_id(store, claim_id)
    if claim is None:
        raise QueryError(f"No claim with id {claim_id!r}. Claim ids are shown on wiki pages (^c…) and by `kg cypher`.")
    report = ClaimReport(claim)
    report.entities = claim_entities(store, claim_id)
    for row in claim_evidence(store, claim_id):
        report.evidence.append(check_evidence(raw, row, converted))
    report.contradictions = claim_contradictions(store, claim_id)
    report.supersession = claim_supersession(store, claim_id)
    return report


def stale_claims(store: Store, changed_or_gone: list[str]) -> list[dict[str, Any]]:
    """Live claims supported by a source whose file changed or vanished since it was compiled."""
    if not changed_or_gone:
        return []
    return live_claims_from_sources(store, changed_or_gone)

"""Exports of the compiled knowledge: an Anki deck (genanki), fine-tuning JSONL (OpenAI chat,
Bedrock conversation, Alpaca) with a sidecar of claim ids per line, Marp slides of a page, and a
JSON Canvas of an entity's neighbourhood (exporters/canvas.py).

Each export is a function of the knowledge base's state: the same state gives the same bytes
(stable deck and model ids, a pinned timestamp, zip entries with a fixed date), and each says
what it left out and why.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import tempfile
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exporters import canvas as canvas_doc
from exporters.pages import Aliases, WikiGraph, load_subgraph
from exporters.slides import marp
from kg.errors import KgError
from kg.graph.store import Store
from kg.learn.cards import Card, standalone

ANKI_EPOCH = 1_700_000_000.0  # the pinned timestamp of every note and card (genanki's ids count from it)
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
FORMATS = ("openai", "bedrock", "alpaca")
SYSTEM = "You answer questions from a compiled knowledge base, stating the fact asked for and citing its source."


@dataclass
class ExportReport:
    path: Path
    written: int
    left_out: Counter[str] = field(default_factory=Counter)  # reason -> count
    sidecar: Path | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "written": self.written, "left_out": dict(sorted(self.left_out.items())),
                "sidecar": str(self.sidecar) if self.sidecar else None}


def stable_id(text: str) -> int:
    """A positive 31-bit id from a name (Anki deck and model ids)."""
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:7], 16) + (1 << 30)


def anki(cards: list[Card], deck_name: str, path: Path) -> ExportReport:
    import genanki

    model = genanki.Model(stable_id("kg card model"), "kg card", fields=[{"name": "Question"}, {"name": "Answer"},
                          {"name": "Citation"}, {"name": "Card"}],
                          templates=[{"name": "Card 1", "qfmt": "{{Question}}",
                                      "afmt": "{{FrontSide}}<hr id=answer>{{Answer}}<br><br><small>{{Citation}}</small>"}])
    deck = genanki.Deck(stable_id(f"kg deck {deck_name}"), deck_name)
    report = ExportReport(path, 0)
    for card in cards:
        if card.status != "live":
            report.left_out["retired (every claim retracted)"] += 1
            continue
        citation = "; ".join(c for c in card.citations if c) + f" (claims {', '.join(card.claims)})"
        deck.add_note(genanki.Note(model=model, fields=[_html(card.question), _html(card.answer), _html(citation), card.id],
                                   guid=genanki.guid_for(card.id), tags=[card.kind]))
        report.written += 1
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "deck.apkg"
        genanki.Package(deck).write_to_file(str(raw), timestamp=ANKI_EPOCH)
        write_file(path, _pinned_zip(raw.read_bytes()))
    return report


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _pinned_zip(data: bytes) -> bytes:
    """The same archive with fixed entry dates (genanki stamps them with the time)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name in sorted(source.namelist()):
            target.writestr(zipfile.ZipInfo(name, ZIP_DATE), source.read(name))
    return out.getvalue()


def write_file(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as exc:
        raise KgError(f"Could not write {path}: {exc.strerror or exc}. Check the folder exists and is writable.") from exc


def finetune(cards: list[Card], g: WikiGraph, path: Path, fmt: str, min_confidence: float = 0.0,
             include_contradicted: bool = False) -> ExportReport:
    """One chat example per card, per live claim (a question about its subject) and per saved
    answer; a sidecar `<FILE>.claims.jsonl` maps each line to the claim ids it rests on."""
    if fmt not in FORMATS:
        raise KgError(f"Unknown format {fmt!r}: use one of {', '.join(FORMATS)}.")
    report = ExportReport(path, 0)
    examples: list[tuple[str, str, list[str], str]] = []  # question, answer, claim ids, origin

    def usable(claim_ids: list[str]) -> str | None:
        for claim_id in claim_ids:
            claim = g.claims.get(claim_id)
            if claim is None or claim.status != "live":
                return "claim retracted or superseded"
            if claim.confidence < min_confidence:
                return f"claim confidence below {min_confidence}"
            if claim.contradicts and not include_contradicted:
                return "claim contradicted (--include-contradicted keeps it)"
        return None

    for card in cards:
        reason = "card retired" if card.status != "live" else usable(card.claims)
        if reason:
            report.left_out[f"card: {reason}"] += 1
            continue
        examples.append((card.question, card.answer, card.claims, f"card {card.id}"))
    for claim in sorted(g.claims.values(), key=lambda c: c.id):
        if claim.subject is None or claim.subject not in g.entities:
            continue
        reason = usable([claim.id])
        if reason:
            report.left_out[f"claim: {reason}"] += 1
            continue
        name = " ".join(str(g.entities[claim.subject]["name"]).split())
        examples.append((f"What do the sources say about {name}?", standalone(claim, name), [claim.id], f"claim {claim.id}"))
    for page in sorted((p for p in g.pages if p.get("kind") == "answer"), key=lambda p: p["id"]):
        claim_ids = sorted(set(re.findall(r"#\^(\w+)", page.get("body") or "")))
        reason = usable(claim_ids) if claim_ids else "answer cites no claim"
        if reason:
            report.left_out[f"answer: {reason}"] += 1
            continue
        examples.append((str(page["title"]), _answer_text(str(page.get("body") or "")), claim_ids, f"answer {page['id']}"))
    lines, sidecar = [], []
    for n, (question, answer, claim_ids, origin) in enumerate(examples, start=1):
        lines.append(json.dumps(_example(fmt, question, answer), ensure_ascii=False, sort_keys=True))
        sidecar.append(json.dumps({"line": n, "origin": origin, "claims": claim_ids}, ensure_ascii=False))
    write_file(path, "".join(line + "\n" for line in lines).encode("utf-8"))
    report.sidecar = path.with_name(path.name + ".claims.jsonl")
    write_file(report.sidecar, "".join(line + "\n" for line in sidecar).encode("utf-8"))
    report.written = len(lines)
    return report


def _answer_text(body: str) -> str:
    """A saved answer's body as plain text: links shown by their labels."""
    text = re.sub(r"\[\[[^\]|]*\|([^\]]*)\]\]", r"\1", body)
    text = re.sub(r"\[\[([^\]]*)\]\]", r"\1", text)
    return "\n".join(line for line in text.splitlines() if line.strip()).strip()


def _example(fmt: str, question: str, answer: str) -> dict[str, Any]:
    if fmt == "openai":
        return {"messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question},
                             {"role": "assistant", "content": answer}]}
    if fmt == "bedrock":
        return {"schemaVersion": "bedrock-conversation-2024", "system": [{"text": SYSTEM}],
                "messages": [{"role": "user", "content": [{"text": question}]},
                             {"role": "assistant", "content": [{"text": answer}]}]}
    return {"instruction": question, "input": "", "output": answer}


def slides(page_text: str, page: str, path: Path) -> ExportReport:
    """Marp slides of a rendered entity or answer page (exporters/slides.py)."""
    deck, count = marp(page_text, page)
    write_file(path, deck.encode("utf-8"))
    return ExportReport(path, count)


def canvas(store: Store, entity_id: str, hops: int, path: Path) -> ExportReport:
    """The neighbourhood of an entity (`hops` related steps) as a JSON Canvas file; its file nodes
    name pages relative to wiki/, so it opens from inside the vault."""
    aliases = Aliases(store)
    center = aliases.canon(entity_id)
    wanted = {center}
    graph = load_subgraph(store, wanted, [], aliases)
    for hop in range(1, hops + 1):  # each ring's relations are loaded with the ring's own pages
        hood = canvas_doc.neighbourhood(graph, center, hop)
        reached = {e for ring in hood.rings for e in ring}
        if reached == wanted:
            break
        wanted = reached
        graph = load_subgraph(store, wanted, [], aliases)
    document = canvas_doc.canvas(graph, canvas_doc.neighbourhood(graph, center, hops))
    write_file(path, canvas_doc.dumps(document))
    return ExportReport(path, len(document["nodes"]))

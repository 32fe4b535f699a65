"""Flashcards generated from the graph, like the wiki: a function of the graph, written to
learning/cards.jsonl (for programs) and learning/cards.md (to read).

For each entity with a page, up to one card of each kind, from its typed claims:

- definitional: "What is X?" ("Who is X?" for a person) from its definition claims
- mechanistic: "What does X cause or explain, and how?" from its causal claims
- relational: "How is X related to Y?" from a relation claim naming another entity with a page
- applied: "When would you use X?" written only by an LLM (not offline)

With an LLM configured, `kg cards` asks it (kg/learn/writer.py) to write the cards of each entity
with at least MIN_CLAIMS_FOR_WRITER claims of its own: the kinds it writes replace the templates'.

A card's id is `<entity id>:<kind>`, so it survives rewording and recompiles, and its review
history (learning/reviews.jsonl) stays with it. It cites the claims it rests on; its confidence is
the lowest of theirs. A card whose claims were all retracted is kept, retired, citing them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from exporters.pages import ClaimView, WikiGraph
from kg.models import CardDraft
from kg.names import name_key

MAX_CLAIMS = 2  # claims an answer is made of
CARDS_JSONL, CARDS_MD = "cards.jsonl", "cards.md"


@dataclass
class Card:
    id: str
    kind: str
    entity: str
    entity_name: str
    question: str
    answer: str
    claims: list[str]
    confidence: float
    status: str  # live | retired
    citations: list[str] = field(default_factory=list)  # raw/<path> chars a-b of each claim
    made_by: str = "template"  # or the version of the prompt an LLM wrote it with (kg/learn/writer.py)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def standalone(claim: ClaimView, name: str) -> str:
    """The claim as an answer that names its subject ("ENIAC: It weighed ...")."""
    text = " ".join(claim.text.split())
    return text if name_key(name) in name_key(text) else f"{name}: {text}"


def _citation(claim: ClaimView) -> str:
    ev = next((e for e in claim.evidence if not e.retracted), claim.evidence[0] if claim.evidence else None)
    return f"raw/{ev.source_path} chars {ev.char_start}-{ev.char_end}" if ev else ""


def _card(entity_id: str, name: str, kind: str, question: str, claims: list[ClaimView]) -> Card:
    live = [c for c in claims if c.status == "live"]
    used = (live or claims)[:MAX_CLAIMS]
    return Card(id=f"{entity_id}:{kind}", kind=kind, entity=entity_id, entity_name=name, question=question,
                answer=" ".join(standalone(c, name) for c in used), claims=[c.id for c in used],
                confidence=round(min(c.confidence for c in used), 4), status="live" if live else "retired",
                citations=[_citation(c) for c in used])


def _strongest(claims: list[ClaimView]) -> list[ClaimView]:
    """Live claims first, then by confidence, then id."""
    return sorted(claims, key=lambda c: (c.status != "live", -c.confidence, c.id))


class CardWriter(Protocol):
    """Writes cards from an entity's claims (kg/learn/writer.py: an LLM)."""

    label: str

    def drafts(self, name: str, entity_type: str, claims: list[ClaimView]) -> list[CardDraft]: ...


MIN_CLAIMS_FOR_WRITER = 2  # an entity with fewer live claims of its own keeps its template cards


def entity_cards(g: WikiGraph, entity_id: str, writer: CardWriter | None = None) -> list[Card]:
    """The entity's template cards; with a writer, the kinds it writes replace them (and it may add
    the applied kind)."""
    cards = _template_cards(g, entity_id)
    if writer is None:
        return cards
    entity = g.entities[entity_id]
    name = " ".join(str(entity["name"]).split())
    own = _strongest([g.claims[c] for c in g.claims_of_entity.get(entity_id, [])
                      if g.claims[c].subject == entity_id and g.claims[c].status == "live"])
    if len(own) < MIN_CLAIMS_FOR_WRITER:
        return cards
    by_id = {c.id: c for c in own}
    written = {}
    for draft in writer.drafts(name, str(entity.get("type") or ""), own):
        used = [by_id[i] for i in draft.claim_ids if i in by_id]
        if used:
            written[draft.kind] = Card(id=f"{entity_id}:{draft.kind}", kind=draft.kind, entity=entity_id,
                                       entity_name=name, question=" ".join(draft.question.split()),
                                       answer=" ".join(draft.answer.split()), claims=[c.id for c in used],
                                       confidence=round(min(c.confidence for c in used), 4), status="live",
                                       citations=[_citation(c) for c in used], made_by=writer.label)
    return sorted([c for c in cards if c.kind not in written] + list(written.values()), key=lambda c: c.id)


def _template_cards(g: WikiGraph, entity_id: str) -> list[Card]:
    entity = g.entities[entity_id]
    name = " ".join(str(entity["name"]).split())
    own = [g.claims[c] for c in g.claims_of_entity.get(entity_id, []) if g.claims[c].subject == entity_id]
    own = [c for c in own if c.status in ("live", "retracted")]
    cards = []
    definitions = _strongest([c for c in own if c.claim_type == "definition" and c.polarity > 0])
    if definitions:
        verb = "Who is" if entity.get("type") == "person" else "What is"
        cards.append(_card(entity_id, name, "definitional", f"{verb} {name}?", definitions))
    causes = _strongest([c for c in own if c.claim_type == "causal"])
    if causes:
        cards.append(_card(entity_id, name, "mechanistic", f"What does {name} cause or explain, and how?", causes))
    related = []
    for claim in _strongest([c for c in own if c.claim_type in ("relation", "comparison")]):
        others = [e for e, role in claim.entities if e != entity_id and role == "object" and e in g.entities]
        if others:
            related.append((claim, others[0]))
    if related:
        claim, other = related[0]
        other_name = " ".join(str(g.entities[other]["name"]).split())
        cards.append(_card(entity_id, name, "relational", f"How is {name} related to {other_name}?",
                           [c for c, o in related if o == other]))
    return cards


def build_cards(g: WikiGraph, writer: CardWriter | None = None) -> list[Card]:
    """Every card of the graph, by id."""
    cards = [card for entity_id in sorted(g.entities) if g.has_page(entity_id)
             for card in entity_cards(g, entity_id, writer)]
    return sorted(cards, key=lambda c: c.id)


def cards_jsonl(cards: list[Card]) -> str:
    return "".join(json.dumps(card.as_dict(), ensure_ascii=False, sort_keys=True) + "\n" for card in cards)


def cards_markdown(cards: list[Card]) -> str:
    live = [c for c in cards if c.status == "live"]
    lines = ["---", "type: cards", f"cards: {len(live)}", "---", "# Flashcards", "",
             f"{len(live)} cards from the graph (`kg review` to study them; ids are `<entity>:<kind>`)."
             f"{f' {len(cards) - len(live)} retired: their claims were retracted.' if len(cards) > len(live) else ''}", ""]
    for card in cards:
        status = "" if card.status == "live" else " *(retired)*"
        lines += [f"## {card.question}{status}", "", f"{card.answer}", "",
                  f"`{card.id}` · {card.kind} · confidence {card.confidence:.2f} · "
                  f"[[entities/{card.entity}|{card.entity_name}]] · claims {', '.join(card.claims)}", ""]
    return "\n".join(lines)


def read_cards(learning: Path) -> list[Card]:
    """The cards `kg cards` last wrote (empty if none)."""
    path = learning / CARDS_JSONL
    if not path.is_file():
        return []
    return [Card(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

"""The deck of a knowledge base: writing learning/ from the graph, and what is due when."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from exporters.pages import WikiGraph, load_subgraph, load_wiki_graph
from kg.errors import KgError
from kg.graph.store import Store
from kg.kb import KnowledgeBase
from kg.learn.cards import (
    CARDS_JSONL,
    CARDS_MD,
    Card,
    CardWriter,
    build_cards,
    cards_jsonl,
    cards_markdown,
    entity_cards,
    read_cards,
)
from kg.learn.gaps import GAPS_MD, gap_findings, gaps_markdown
from kg.learn.reviews import (
    Review,
    append_review,
    as_dict,
    parse_time,
    rating_of,
    read_reviews,
    schedule,
)

CLOCK_SKEW = timedelta(minutes=5)  # a rating "at" a time this far ahead of the clock is refused


def _write_if_changed(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    if path.is_file() and path.read_bytes() == data:
        return
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def write_learning(kb: KnowledgeBase, store: Store, graph: WikiGraph | None = None,
                   writer: CardWriter | None = None) -> dict[str, Any]:
    """learning/cards.jsonl, cards.md and gaps.md from the graph (the review history is not touched)."""
    g = graph or load_wiki_graph(store)
    cards = build_cards(g, writer)
    try:
        kb.learning.mkdir(parents=True, exist_ok=True)
        _write_if_changed(kb.learning / CARDS_JSONL, cards_jsonl(cards))
        _write_if_changed(kb.learning / CARDS_MD, cards_markdown(cards))
        findings = gap_findings(kb, g)
        _write_if_changed(kb.learning / GAPS_MD, gaps_markdown(findings))
    except OSError as exc:
        raise KgError(f"Could not write {kb.learning}: {exc.strerror or exc}. Check free space and permissions.") from exc
    live = [c for c in cards if c.status == "live"]
    return {"cards": len(live), "retired": len(cards) - len(live), "by_kind": dict(sorted(Counter(c.kind for c in live).items())),
            "gaps": len(findings), "path": str(kb.learning), "written_by": writer.label if writer else "template",
            "llm_failures": len(getattr(writer, "failures", ())), "llm_requests": getattr(writer, "requests", 0)}


def update_learning(kb: KnowledgeBase, store: Store, entities: set[str] | None,
                    writer: CardWriter | None = None) -> None:
    """After a compile: the cards of these entities made again and spliced into learning/ (all of
    them when `entities` is None, as after a full render). gaps.md is left to `kg cards`."""
    if entities is None:
        write_learning(kb, store, writer=writer)
        return
    if not entities:
        return
    g = load_subgraph(store, entities, [])
    fresh = [card for e in sorted(entities) if e in g.entities and g.has_page(e) for card in entity_cards(g, e, writer)]
    cards = [c for c in load_cards(kb) if c.entity not in entities] + fresh
    cards.sort(key=lambda c: c.id)
    try:
        _write_if_changed(kb.learning / CARDS_JSONL, cards_jsonl(cards))
        _write_if_changed(kb.learning / CARDS_MD, cards_markdown(cards))
    except OSError as exc:
        raise KgError(f"Could not write {kb.learning}: {exc.strerror or exc}. Check free space and permissions.") from exc


def load_cards(kb: KnowledgeBase) -> list[Card]:
    try:
        cards = read_cards(kb.learning)
    except (ValueError, TypeError) as exc:
        raise KgError(f"learning/{CARDS_JSONL} is damaged ({exc}): run `kg cards` to write it again "
                      "(your review history, learning/reviews.jsonl, is kept).") from exc
    if not cards and not (kb.learning / CARDS_JSONL).is_file():
        raise KgError("No cards yet: run `kg cards` first (it writes learning/cards.jsonl from the graph).")
    return cards


def due(kb: KnowledgeBase, now: datetime | None = None, limit: int | None = None) -> dict[str, Any]:
    """The live cards due at `now` (default: the clock), soonest due first, with the problems of the
    review history."""
    now = now or datetime.now(UTC)
    cards = [c for c in load_cards(kb) if c.status == "live"]
    reviews, problems = read_reviews(kb.learning)
    plan = schedule([c.id for c in cards], reviews)
    rows = sorted(((plan[c.id].due, c.id, c) for c in cards if plan[c.id].due <= now), key=lambda r: (r[0], r[1]))
    due_cards = [{**_card_row(card), **as_dict(plan[card.id])} for _, _, card in rows[:limit]]
    return {"now": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "due": due_cards, "due_count": len(rows), "cards": len(cards),
            "problems": problems}


def _card_row(card: Card) -> dict[str, Any]:
    return {"id": card.id, "kind": card.kind, "question": card.question, "answer": card.answer, "claims": card.claims,
            "citations": card.citations, "confidence": card.confidence}


def rate(kb: KnowledgeBase, ratings: list[tuple[str, str]], at: str | datetime | None = None,
         now: datetime | None = None) -> list[dict[str, Any]]:
    """Record ratings [(card id, rating)], each appended and synced to learning/reviews.jsonl, and
    return each card's next due time. All are checked before any is recorded."""
    now = now or datetime.now(UTC)
    when = parse_time(at) if isinstance(at, str) else (at or now)
    if when > now + CLOCK_SKEW:
        raise KgError(f"The time {when.isoformat()} is in the future: a rating records a review that happened.")
    cards = {c.id: c for c in load_cards(kb)}
    checked = []
    for card_id, rating in ratings:
        word = rating_of(rating)
        card = cards.get(card_id)
        if card is None:
            near = sorted(c for c in cards if c.split(":")[0] == card_id.split(":")[0])
            hint = f" Cards of that entity: {', '.join(near)}." if near else " `kg review --json` lists the due cards."
            raise KgError(f"No card {card_id!r}; nothing was recorded.{hint}")
        if card.status != "live":
            raise KgError(f"Card {card_id!r} is retired (its claims were retracted); nothing was recorded.")
        checked.append(Review(card_id, word, when))
    for review in checked:
        append_review(kb.learning, review)
    reviews, _ = read_reviews(kb.learning)
    plan = schedule(sorted({r.card for r in checked}), reviews)
    return [{"card": r.card, "rating": r.rating, "at": when.strftime("%Y-%m-%dT%H:%M:%SZ"), **as_dict(plan[r.card])}
            for r in checked]

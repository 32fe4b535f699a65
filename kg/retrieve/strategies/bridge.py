"""A bridge question's second hop: the answer is a claim about an entity the best claims name.

"Who created the soap opera Kate Ramsay is from?" is answered by a claim about Neighbours, which the
best claim about Kate Ramsay names. The best claims that share a name with the question (and the best
claims of the sources the question names by title) lead on to their entities (not those the question
names, nor hubs), to the entity their source is about, and to the names their text holds. A bridge
entity's claims are followed when it is their subject, or when it was the leading claim's subject
(then a claim that merely names it will do: "Hannah Gross is the daughter of Paul Gross"), and so
are the claims of its own short source. A claim that answers after the claim that led to it
(`ParsedQuestion.answers_after`) scores as that claim plus the share of the question's words it adds.
"""

from __future__ import annotations

import re

from kg.retrieve.question import ParsedQuestion, terms
from kg.retrieve.settings import DEFAULT_SETTINGS, NavigatorSettings
from kg.retrieve.strategies.base import Bridged, Context, Findings, HopAnswer, Row, Strategy

_TRAILING_PARENTHETICAL = re.compile(r"\s*\([^()]*\)\s*$")  # "Charmed (TV series)" is about Charmed


class BridgeStrategy(Strategy):
    name = "bridge"

    def __init__(self, settings: NavigatorSettings = DEFAULT_SETTINGS) -> None:
        self.settings = settings

    def applies(self, question: ParsedQuestion) -> bool:
        # a question with topic words: only a claim's words can tell that it answers after a first one
        return bool(question.topic_words) and question.kind != "definition"

    def run(self, question: ParsedQuestion, found: Findings, context: Context) -> Bridged | None:
        first = self.first_hop(question, found)
        via = bridges(first, found, context)
        if not via:
            return None
        answers: dict[str, HopAnswer] = {}
        for row, lead in hop_rows(first, via, context):
            text, kind, lead_text = row["text"], row.get("type") or "", found.texts[lead]
            if row["id"] in first or not question.answers_after(text, kind, lead_text, self.settings.hop_topic_share):
                continue
            known = question.words & terms(lead_text)
            gain = len(question.words & terms(row["text"]) - known) / len(question.words)
            score = found.scores[lead] + gain
            if row["id"] not in answers or answers[row["id"]].score < score:
                answers[row["id"]] = HopAnswer(row["id"], score, lead)
        best = sorted(answers.values(), key=lambda a: (-a.score, a.claim))[: self.settings.bridge_answers]
        return Bridged(tuple(best)) if best else None

    def first_hop(self, question: ParsedQuestion, found: Findings) -> list[str]:
        """The best relevant claims sharing a name with the question, then the openings."""
        start = question.name_words or question.words
        first = [c for c in sorted(found.relevant, key=lambda c: (-found.scores[c], c))
                 if c in found.texts and start & terms(found.texts[c])][: self.settings.first_hop]
        return first + [c for c in found.openings if c not in first and c in found.texts]


def bridges(first: list[str], found: Findings, context: Context) -> dict[str, tuple[str, bool]]:
    """Bridge entity -> (the first claim that leads to it, whether that claim was about it): its
    entities, the entity its source is about, and the capitalised names in its text (the extractor
    may have split one: "Dunkin' Brands")."""
    about, sources = context.claim_origins(first)
    via: dict[str, tuple[str, bool]] = {}
    for claim in first:
        title = _TRAILING_PARENTHETICAL.sub("", sources.get(claim, ("", ""))[1])
        home = [(entity, True) for entity in sorted(context.entities_named(title))] if title else []
        spotted = [(entity, False) for entity in sorted(context.names_in(found.texts[claim], capitalised=True))]
        for entity, subject in [*about.get(claim, []), *home, *spotted]:
            if entity not in found.linked and entity not in via and context.is_bridge(entity):
                via[entity] = (claim, subject)
    return via


def hop_rows(first: list[str], via: dict[str, tuple[str, bool]], context: Context) -> list[tuple[Row, str]]:
    """(claim row, the first claim that led to it) of every claim the bridges lead to."""
    _, sources = context.claim_origins(first)
    own_source = {sources[c][0] for c in first if c in sources}  # its claims are scored already
    led_from: dict[str, str] = {}  # a bridge entity's own source -> the claim that led there
    for entity, (claim, _) in via.items():
        for path in context.titled_sources(context.entity_name(entity)):
            led_from.setdefault(path, claim)
    rows = [(row, via[row["eid"]][0]) for row in context.entity_claims(sorted(via))
            if row["role"] == "subject" or via[row["eid"]][1]]
    # the claims of a bridge entity's own short source that name it otherwise ("It is headquartered in ...")
    rows += [(row, led_from[row["path"]]) for row in context.source_claims(sorted(set(led_from) - own_source))]
    return rows

""""Are A and B both C?": yes when a claim about each holds every word of C, else no."""

from __future__ import annotations

from kg.retrieve.question import BOTH_WORDS, ParsedQuestion, terms
from kg.retrieve.strategies.base import Compared, Context, Findings, Strategy, Verdict
from kg.retrieve.strategies.pair import compared_pair, defining_claims


class BothStrategy(Strategy):
    name = "both"

    def applies(self, question: ParsedQuestion) -> bool:
        return question.shape == "both"

    def run(self, question: ParsedQuestion, found: Findings, context: Context) -> Verdict | None:
        """For the two things the question names first, a defining claim about each that holds every
        word of the property: "yes" when both have one, else "no" (as far as the claims say)."""
        if len(found.linked) < 2:
            return None
        pair, names, named = compared_pair(question, found.linked, context)
        prop = property_words(question, named)
        if len(pair) < 2 or not prop:
            return None
        claims = defining_claims(pair, names, context)
        compared = []
        for entity in pair:
            having = [r["id"] for r in claims[entity] if prop <= terms(r["text"])]
            compared.append(Compared(entity, names[entity], having[0] if having else ""))
        first, second = compared
        return Verdict("yes" if first.claim and second.claim else "no", "both", tuple(sorted(prop)), (first, second))


def property_words(question: ParsedQuestion, named: list[str]) -> set[str]:
    """The property a "both" question asks about: its words less the names of the things compared
    (a capitalised adjective such as "British" stays a property word): "both towns" asks about towns."""
    names = {w for name in named for w in terms(name)}
    return {w for w in question.words if w not in names and w not in BOTH_WORDS}

""""Are A and B in the same province?": compares the value each thing's claims give for the property."""

from __future__ import annotations

from kg.names import name_key
from kg.retrieve.question import ParsedQuestion, property_value
from kg.retrieve.strategies.base import Compared, Context, Findings, Strategy, Verdict
from kg.retrieve.strategies.pair import compared_pair, defining_claims


class SameStrategy(Strategy):
    name = "same"

    def applies(self, question: ParsedQuestion) -> bool:
        return question.shape == "same" and bool(question.compares)

    def run(self, question: ParsedQuestion, found: Findings, context: Context) -> Verdict | None:
        """For the two things the question names first, the first claim about each that names a value
        next to the property word ("a city in Jiangsu province"): "yes" when the two values are the same
        name, "no" when not, nothing when either says none."""
        if len(found.linked) < 2:
            return None
        pair, names, _ = compared_pair(question, found.linked, context)
        if len(pair) < 2:
            return None
        claims = defining_claims(pair, names, context)
        compared = []
        for entity in pair:
            values = [(r["id"], v) for r in claims[entity] if (v := property_value(r["text"], question.compares, names[entity]))]
            if not values:
                return None
            compared.append(Compared(entity, names[entity], values[0][0], values[0][1]))
        first, second = compared
        same = name_key(first.value) == name_key(second.value)
        return Verdict("yes" if same else "no", "same", (question.compares,), (first, second))

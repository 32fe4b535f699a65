"""Who "It", "He" or "The company" is: reference resolution for the offline extractor.

Most sentences after a text's first refer to their subject by a pronoun or a description
("It weighed about 27 tonnes", "The band released ..."). The referent is taken from what the
reader has at hand: the paragraph's last subject, the last person it named, and the nearest
heading's entity, the first of them whose type fits the reference (He/She a person, It not
one, "the city" a place). The referent becomes the claim's subject; the claim's text stays the
source's own sentence ("It weighed about 27 tonnes", subject ENIAC): nothing is glued onto it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kg.extract import patterns as P
from kg.extract import vocab as V
from kg.extract.entity_types import UNTYPED

# "It is believed that ...", "It was not until 1950 that ...": "it" refers to nothing. ("It is
# known as ..." and "It was designed to ..." do refer.)
_EXPLETIVE = P.pattern("expletive_it")


@dataclass(frozen=True)
class Reference:
    """How a sentence opens when it does not name its subject."""

    kind: str  # pronoun | possessive | description
    words: int  # how many words the reference takes ("It" 1, "The machine" 2)
    wants: str  # the entity type it expects: person, place, organization, work, thing ("" any)


def reference_at_start(words: Sequence[str], is_verb: Callable[[str], bool]) -> Reference | None:
    """The pronoun or description a sentence opens with, if any."""
    if not words:
        return None
    first = words[0].lower().strip(",")
    second = words[1].lower().strip(",;:.") if len(words) > 1 else ""
    if first in ("it", "he", "she", "they"):
        if first == "it" and _EXPLETIVE.match(" ".join(words[:6])):
            return None
        wants = "person" if first in V.PERSONAL_PRONOUNS else "thing" if first in V.NEUTER_PRONOUNS else ""
        return Reference("pronoun", 1, wants)
    if first in V.POSSESSIVE_PRONOUNS:
        wants = "person" if first in V.PERSONAL_PRONOUNS else "thing" if first in V.NEUTER_PRONOUNS else ""
        return Reference("possessive", 1, wants)
    noun = re.sub(r"['’]s$", "", second)
    if first in V.DEMONSTRATIVES and noun in V.DESCRIPTIONS and not words[1][:1].isupper():
        following = words[2] if len(words) > 2 else ""
        if following.lower() == "of" or following[:1].isupper():
            return None  # "The city of Paris", "The band Queen": a name follows
        if noun != second:  # "The film's director ..."
            return Reference("possessive", 2, V.DESCRIPTIONS[noun] or "thing")
        # "the machine", "the program": not a person, whatever else it may be
        return Reference("description", 2, V.DESCRIPTIONS[noun] or "thing")
    if first in ("this", "these", "that", "those") and (not second or is_verb(second)):
        return Reference("pronoun", 1, "")  # "This led to ...": the paragraph's subject, loosely
    return None


_PERSON_NAME = P.pattern("person_name")


_SINGLE_NAME = P.pattern("single_name")  # "Aurangzeb", "Palestrina": may be a person's name


def fit(reference: Reference, entity_type: str, name: str = "") -> int:
    """How well an entity can be what `reference` refers to: 2 its type is the one expected (or,
    for a person, its untyped name reads as one: "Grace Hopper", not "Mark 2"), 1 it may be (an
    untyped single name for a person: "Aurangzeb"), 0 no."""
    if reference.wants in ("", "thing"):
        return 0 if reference.wants == "thing" and entity_type == "person" else 2
    if entity_type == reference.wants:
        return 2
    if reference.wants == "person":
        if entity_type not in UNTYPED:
            return 0
        return 2 if _PERSON_NAME.fullmatch(name) else 1 if _SINGLE_NAME.fullmatch(name) else 0
    return 1 if entity_type in UNTYPED else 0


def referent(reference: Reference, candidates: Sequence[tuple[str, str, str]]) -> str | None:
    """The first (key, type, name) candidate that fits best, None when none can."""
    scores = [fit(reference, type_, name) for _, type_, name in candidates]
    best = max(scores, default=0)
    return next(c[0] for c, score in zip(candidates, scores, strict=True) if score == best) if best else None

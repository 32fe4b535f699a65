"""Evidence that contradicts the type model's type (issue 46): what the text says of a name that the
type cannot be, read from the pooled features of kg/extract/type_model.py. The model weighs name
evidence (a given name, a town in a gazetteer) above context it seldom saw in training, so a source's
own words can outvote it here: a check either gives the type the words say or abstains (a concept),
since a wrong type misleads more than none. On the labelled, held-out examples of
benchmarks/train_types.py (`--folds documents`, 18,421 gold-matched names, 2026-11-29 at 651746b) the
person checks change one type (a Re-DocRED person to its gold organisation) and cost none.
"""

from __future__ import annotations

from collections.abc import Mapping

from kg.extract import vocab as V
from kg.extract.entity_types import CONTEXT_RULES


def checked_type(type_: str, features: Mapping[str, float], technical: bool) -> str:
    """`type_` (the model's), or what the name's contexts say instead: an organisation for a "person"
    the text describes as a company; a concept for a "person" a text puts after "at" as a place of
    work, and for a town's name with no place context in a source about software ("Jinja
    templates"). `features`: the entity's pooled features; `technical`: its source shows code
    (where a town's name is as often a program's; in prose without code, as if it showed some, the
    check would cost 294 right places of the 18,421 labelled held-out examples of
    benchmarks/train_types.py, 109 in CrossNER politics, for 19 wrong)."""
    if type_ == "person":
        return _person(features)
    if type_ == "place" and technical and _settlement(features) and not _place_context(features):
        return "concept"
    return type_


def _person(features: Mapping[str, float]) -> str:
    """"Busicom, a Japanese calculator maker": a company's description makes no person of a name,
    whatever its words share with given names or WordNet's agent nouns ("maker" is a person too).
    "worked at Eckert–Mauchly and later at Remington Rand": people are not where one works (unless
    a possessive follows: "at Smith's house")."""
    heads = {feature.removeprefix("desc:") for feature in features if feature.startswith("desc:")}
    if heads & V.CORPORATE_DESCRIPTIONS:
        return "organization"
    possessive = any(feature.startswith(("poss:", "R1:'s", "R1:’s")) for feature in features)
    if "L1:at" in features and not possessive:
        return "concept"
    return "person"


def _settlement(features: Mapping[str, float]) -> bool:
    """A one-word name a gazetteer knows as a town's or a city's ("Jinja", "Salt", "Flask"): the
    kind of name programs take. Countries, regions and longer names ("Lombardy", "Western Asia",
    "Congonhas Airport") are seldom a program's, and keep their type where a README lists them."""
    return "words:1" in features and ("gaz:town" in features or "gaz:city" in features)


def _place_context(features: Mapping[str, float]) -> bool:
    """Whether some mention reads as a place's: after a preposition of place ("in Jinja", "moved to
    Leeds", the noun before it: "LP:born in"), described as one (a location's noun: "a town"), or
    typed place by a rule reading its sentence ("Springfield, Illinois"). A country needs none: no
    program is named after one."""
    context_rules = {rule.name for rule in CONTEXT_RULES}
    if "gaz:country" in features or "desc-file:location" in features:
        return True
    for feature in features:
        kind, _, value = feature.partition(":")
        if (kind == "L1" and value in V.LOCATIVE_PREPOSITIONS) or (kind == "LP" and value.rsplit(" ", 1)[-1] in V.LOCATIVE_PREPOSITIONS):
            return True
        if kind == "rule" and value.endswith("=place") and value.removesuffix("=place") in context_rules:
            return True
    return False

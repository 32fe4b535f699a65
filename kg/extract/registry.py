"""The entities of one chunk, as the offline extractor finds them: names keyed by their normalised
form, aliases pointing at canonical keys, and the type votes of each (kg/extract/entity_types.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kg.extract import gazetteer
from kg.extract import vocab as V
from kg.extract.entity_types import DEFAULT, common_head, decide, name_votes, typed
from kg.extract.filters import not_a_name
from kg.names import name_key, name_variants

# The type a discovery rule knows a name to have: a quoted title, a role's holder, an office; a
# nationality above all ("the Swedish government": what follows does not make it a person).
GIVEN_WEIGHT = 3.0
GIVEN_WEIGHTS = {"nationality": 6.0}
# A demonym used as a nationality names its country's place ("a German skeleton racer": from
# Germany), as Wikidata's "country of citizenship" and Re-DocRED's LOC read it; only where the
# chunk uses it for a language ("in German", "German-language") is it that instead.
DEMONYM_TYPE = "place"


@dataclass
class Entity:
    name: str
    type: str = DEFAULT
    aliases: set[str] = field(default_factory=set)
    description: str = ""
    votes: dict[str, float] = field(default_factory=dict)  # type -> weight of the rules voting for it
    voted: set[tuple[str, str]] = field(default_factory=set)  # (name, rule) pairs counted once
    demonym: bool = False  # found as a nationality ("American"): never a claim's subject
    # what the type model reads (kg/extract/type_model.py): "rule=type" -> summed weight of the
    # rules' votes, and the words around each mention ("L1:by", "R2:was born")
    evidence: dict[str, float] = field(default_factory=dict)
    around: set[str] = field(default_factory=set)
    mentions: int = 0  # sentences' mentions found in the chunk
    surfaces: set[str] = field(default_factory=set)  # every form it was added as ("UNIVAC", "Univac"): all are mentions

    def declared_aliases(self) -> list[str]:
        """Its aliases, and the country a demonym used as a place names ("American" -> "United
        States"), so that the graph joins the two (kg/compile/groups.py)."""
        country = gazetteer.demonym_country(self.name) if self.demonym and self.type == DEMONYM_TYPE else None
        return sorted(self.aliases | {country} if country and name_key(country) != name_key(self.name) else self.aliases)

    def vote(self, type_: str, weight: float, rule: str = "other") -> None:
        if not typed(type_):
            return
        self.evidence[f"{rule}={type_}"] = self.evidence.get(f"{rule}={type_}", 0.0) + weight
        if type_ == "organization" and common_head(self.name):
            return  # "DNA damage response is a network of ...": a body's name ends in a proper word
        self.votes[type_] = self.votes.get(type_, 0.0) + weight
        self.type = decide(self.votes)

    def vote_once(self, name: str, rule: str, type_: str, weight: float) -> None:
        """A vote that a name earns once, however often it is added: its form says the same each time."""
        if (name, rule) not in self.voted:
            self.voted.add((name, rule))
            self.vote(type_, weight, rule)

    def absorb(self, other: Entity) -> None:
        """Take the votes of an entity folded into this one."""
        for type_, weight in sorted(other.votes.items()):
            self.vote(type_, weight, "folded")
        for feature, weight in other.evidence.items():
            self.evidence[feature] = self.evidence.get(feature, 0.0) + weight
        self.around |= other.around
        self.mentions += other.mentions
        self.surfaces |= other.surfaces


class Registry:
    """The chunk's entities, keyed by normalised name; aliases point at canonical keys."""

    def __init__(self) -> None:
        self.entities: dict[str, Entity] = {}
        self.alias_to_key: dict[str, str] = {}
        self.kept: set[str] = set()  # keys of names inside longer names, kept though never mentioned alone

    def key_of(self, name: str) -> str | None:
        for key in name_variants(name_key(name)):  # "Transistors" -> "transistor"
            found = self.alias_to_key.get(key, key if key in self.entities else None)
            if found:
                return found
        return None

    def add(self, name: str, type_: str = "", alias: str | None = None) -> str | None:
        """The key of `name`'s entity (added if new), or None for no name. `type_`: what the rule
        that found it knows it to be ("nationality", "work", ...); its form votes too (entity_types)."""
        name = " ".join(name.split()).strip(" .,;:")
        if re.search(r"(?:^|[\s.])[A-Z]\.[A-Z]$", name):
            name += "."  # a dotted initialism keeps its last dot: "U.S.", not "U.S"
        key = name_key(name)
        if not key or len(key) < 2 or len(name) > 120 or key in V.STOP_CAPS or not_a_name(name):
            return None
        existing = self.key_of(name)
        if existing is None and alias and name_key(alias) in self.alias_to_key:
            # "Electronic Numerical Integrator and Computer (ENIAC)" after "ENIAC": one entity.
            existing = self.alias_to_key[name_key(alias)]
            self.entities[existing].aliases.add(name)
            self.alias_to_key[key] = existing
            return existing
        if existing is None:
            self.entities[key] = Entity(name)
            self.alias_to_key[key] = key
            existing = key
        entity = self.entities[existing]
        entity.surfaces.add(name)
        weight = GIVEN_WEIGHTS.get(type_, GIVEN_WEIGHT)
        if type_ == "nationality":  # a people with no country of its own ("Kurdish", "Arab") stays one
            entity.demonym = True
            if name_key(name) in V.LANGUAGES_ONLY:
                type_ = "language"
            elif gazetteer.demonym_country(name):
                type_ = DEMONYM_TYPE
        entity.vote_once(name, "found as", type_, weight)
        if (name, "") not in entity.voted:
            entity.voted.add((name, ""))
            for rule, voted_type, weight in name_votes(name):
                entity.vote(voted_type, weight, rule)
        if alias and name_key(alias) and name_key(alias) != existing:
            entity.aliases.add(" ".join(alias.split()))
            self.alias_to_key.setdefault(name_key(alias), existing)
        return existing

    def fold(self, key: str, into: str) -> None:
        """`key`'s entity becomes an alias of `into`'s: its names, aliases and votes move there."""
        owner, folded = self.entities[into], self.entities.pop(key)
        owner.aliases.add(folded.name)
        owner.aliases.update(folded.aliases)
        owner.absorb(folded)
        for alias, target in list(self.alias_to_key.items()):
            if target == key:
                self.alias_to_key[alias] = into

"""Entity resolution as a function of the set of names, whatever order they arrived in.

Every name has one entity: its id is a function of the name's key (`entity_id`), so the claims a
source makes about "ENIAC" attach to the same entity whichever source came first. What the
extractor says about a name in a source (its surface form, type, description and the aliases it
declares, such as "British Broadcasting Corporation (BBC)") is kept on that source's MENTIONS edge
(`SourceEntities`), and an entity's name, type, summary and aliases are recomputed from its live
mentions (kg/compile/groups.py), never kept from the first one seen.

Entities that are the same thing are grouped by symmetric rules over pairs of names
(kg/compile/groups.py): an alias declared in a source, plural or singular, a title ("Dr."), fuzzy
similarity of long names, and the LLM judge for the ambiguous cases. Initials never join names on
their own: "CA" is "Congonhas Airport" only where a source defines it so. A group's canonical entity
(its page) is chosen by a rule that ignores arrival: the most sources naming it, then the
smallest id; the others get ALIAS_OF edges to it.
"""

from __future__ import annotations

import hashlib
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kg.extract.vocab import SURNAME_PARTICLES
from kg.models import ExtractedEntity
from kg.names import MAX_SLUG, name_key, slugify

GENERIC_TYPES = {"named", "concept", "thing", "other", ""}  # "named": graphs from before heuristic-4
UNTYPED = "concept"  # what an entity is when nothing says what it is
# A specific type counts when at least this share of the mentions of an entity give it: a few
# stray votes among many abstracts that say nothing of what "NANOG" is make no organisation of it.
MIN_TYPE_SHARE = 0.2
# ... and, among five mentions or more, at least two of them: one source's stray vote ("Pearson",
# a person in one abstract of five that cite a Pearson correlation) types nothing.
MIN_TYPE_MENTIONS = 2
# Titles of people ("Saint" and "St" are left out: "St Louis" is not "Louis").
TITLE_WORDS = ("mr", "mrs", "ms", "dr", "prof", "professor", "sir", "dame", "lord", "lady", "president", "general",
               "captain")
_TITLES = re.compile(rf"^(?:{'|'.join(TITLE_WORDS)})\.?\s+")
_PLAIN_KEY = re.compile(r"[a-z0-9]+(?: [a-z0-9]+)*")


def entity_id(key: str) -> str:
    """The id (and page name) of the entity of a name key: its slug, with a short hash of the key
    when the slug loses something (punctuation, letters outside ASCII, a cut), so that two keys
    never share an id whichever came first."""
    slug = slugify(key)
    if _PLAIN_KEY.fullmatch(key) and slug == key.replace(" ", "-"):
        return slug
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]
    return f"{slug[: MAX_SLUG - 9].rstrip('-')}-{digest}"


def plural_stem(key: str) -> str:
    """The singular of a key's last word, by rule: names that differ only in a plural are one."""
    if key.endswith("ies") and len(key) > 4:
        return key[:-3] + "y"
    if key.endswith("es") and len(key) > 4 and key[-3] in "sxz":
        return key[:-2]
    if key.endswith("s") and not key.endswith("ss") and len(key) > 3:
        return key[:-1]
    return key


def plain_form(key: str) -> str:
    """A key without a title and in the singular: keys with the same plain form are one entity."""
    return plural_stem(_TITLES.sub("", key))


# fast_name_key: ASCII letters and digits and "&+#" stay, "-", "_" and whitespace become spaces,
# all other ASCII is dropped (what name_key does to an ASCII name without an apostrophe).
_ASCII_KEY = {
    c: (chr(c).lower() if chr(c).isalnum() or chr(c) in "&+#" else " " if chr(c) in "-_" or chr(c).isspace() else None)
    for c in range(128)
}
_ARTICLES = ("the ", "a ", "an ")


def fast_name_key(name: str) -> str:
    """`name_key(name)`, several times faster for the common ASCII name (looking up every word
    n-gram of a text costs thousands of keys). Always name_key's result (tests/test_resolve_index.py)."""
    if not name.isascii() or "'" in name:
        return name_key(name)
    key = " ".join(name.translate(_ASCII_KEY).split())
    return key.split(" ", 1)[1] if key.startswith(_ARTICLES) else key


def specific(type_: str) -> bool:
    return type_ not in GENERIC_TYPES


# A family name as a document writes it: capitalised, with a lowercase letter ("Karpathy", "McDonald",
# "O'Brien"; not "RNA" or "BC1"), after any particles ("von Neumann").
_FAMILY_NAME = re.compile(r"[A-Z][A-Za-z'’-]*[a-z][A-Za-z'’-]*")


def _family_word(name: str) -> str | None:
    """The family name `name` is when used alone ("Karpathy", "von Neumann" -> "Neumann"), else None."""
    words = name.split()
    if not words or not all(w.lower() in SURNAME_PARTICLES for w in words[:-1]):
        return None
    return words[-1] if _FAMILY_NAME.fullmatch(words[-1]) else None


def lone_family_names(entities: Iterable[ExtractedEntity]) -> dict[str, str]:
    """Family names one document uses alone, by key, each to the one person's full name in the same
    document that ends in it: "Karpathy" -> "Andrej Karpathy" wherever the article names him in
    full once. Two full names ending in it ("John Smith", "Jane Smith") leave "Smith" alone, and so
    does a type other than a person's ("Ford" the company beside "Henry Ford")."""
    found = list(entities)
    full_names: dict[str, dict[str, str]] = {}  # family name key -> {full name key: full name}
    for entity in found:
        words = entity.name.split()
        if entity.type == "person" and len(words) >= 2 and _FAMILY_NAME.fullmatch(words[-1]):
            full_names.setdefault(name_key(words[-1]), {})[name_key(entity.name)] = entity.name
    owners: dict[str, str] = {}
    for entity in found:
        family = _family_word(entity.name)
        if family is None or (entity.type != "person" and specific(entity.type)):
            continue
        named = full_names.get(name_key(family), {})
        if len(named) == 1 and name_key(entity.name) not in named:
            owners[name_key(entity.name)] = next(iter(named.values()))
    return owners


# the LLM judge's interface (kg/llm/judges.py) ------------------------------------------------


@dataclass
class EntityRecord:
    id: str
    name: str
    type: str
    aliases: list[str] = field(default_factory=list)
    summary: str = ""
    status: str = "live"


@dataclass(frozen=True)
class Judgement:
    verdict: str  # "same" | "different" | "unsure"
    confidence: float
    reason: str = ""


class EntityJudge(ABC):
    @abstractmethod
    def judge(self, pairs: Sequence[tuple[ExtractedEntity, EntityRecord]]) -> list[Judgement | None]:
        """For each (name, known entity) pair: are they the same thing? None means unsure."""


# what one source says about its names -------------------------------------------------------


@dataclass
class Mention:
    """A name as one source uses it: what its MENTIONS edge records."""

    key: str
    name: str  # the surface form seen first in the source
    type: str
    description: str = ""
    aliases: list[str] = field(default_factory=list)  # surface forms the source declares for it
    count: int = 0  # claims of the source that name it
    declared_only: bool = True  # only ever an alias in this source, never a name of its own

    def row(self, path: str, entity: str) -> dict[str, object]:
        return {"src": path, "dst": entity, "count": max(self.count, 1) if not self.declared_only else 0,
                "name": self.name, "type": self.type, "description": self.description,
                "aliases": sorted(set(self.aliases)), "role": "alias" if self.declared_only else "name"}


class SourceEntities:
    """The entities one source names, by id. An alias a source declares gets its own entity too
    (grouped with the name that declares it), so that a later source naming "BBC" finds the
    entity of "British Broadcasting Corporation (BBC)" whichever came first."""

    def __init__(self) -> None:
        self.mentions: dict[str, Mention] = {}

    def add(self, entity: ExtractedEntity) -> str | None:
        """The id of the entity's name (None for a name with an empty key); records its aliases."""
        key = name_key(entity.name)
        if not key:
            return None
        node = entity_id(key)
        mention = self.mentions.get(node)
        if mention is None:
            mention = self.mentions[node] = Mention(key, entity.name, entity.type, entity.description)
        elif mention.declared_only:  # first an alias here, now a name: what the name says counts
            mention.name, mention.type, mention.description = entity.name, entity.type, entity.description
        mention.declared_only = False
        if not specific(mention.type) and specific(entity.type):
            mention.type = entity.type
        if not mention.description and entity.description:
            mention.description = entity.description
        for alias in entity.aliases:
            alias_key = name_key(alias)
            if not alias_key or alias_key == key:
                continue
            if alias not in mention.aliases:
                mention.aliases.append(alias)
            alias_node = entity_id(alias_key)
            if alias_node not in self.mentions:  # an alias is the same thing: it has the name's type
                self.mentions[alias_node] = Mention(alias_key, " ".join(alias.split()), entity.type)
            declared = self.mentions[alias_node]
            if declared.declared_only and entity.name not in declared.aliases:
                declared.aliases.append(entity.name)  # who declares it: found from either side
        return node

    def count(self, node: str) -> None:
        """One more claim of the source names this entity."""
        self.mentions[node].count += 1

"""What a strategy is, what it may read, and the evidence it returns.

A strategy answers one shape of question a general search cannot: "Are A and B both C?" (a
verdict), "Are A and B in the same province?" (a verdict on values), a bridge question whose answer
is one entity away from what it names (second-hop claims). Each says whether it applies to a parsed
question and returns typed evidence, reading the knowledge base only through a `Context` (the graph
in kg/retrieve/context.py; a few dicts in tests).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from kg.retrieve.question import ParsedQuestion

Row = dict[str, Any]


class Context(Protocol):
    """What strategies read of a knowledge base. Claim rows are dicts with id, text, type, polarity,
    and eid + role (claims about entities) or path (claims of a source)."""

    def entity_name(self, entity: str) -> str:
        """The entity's name (its id when unknown)."""

    def entity_aliases(self, entity: str) -> list[str]:
        """The entity's aliases."""

    def entities_named(self, name: str) -> list[str]:
        """Entities with a page whose name or alias is this name (by name key)."""

    def names_in(self, text: str, capitalised: bool = False) -> dict[str, float]:
        """Entities whose name occurs in a text (with `capitalised`, only in words starting with a capital)."""

    def is_bridge(self, entity: str) -> bool:
        """Whether a hop may go through this entity (it has a page, is no nationality, is no hub)."""

    def entity_claims(self, entities: list[str]) -> list[Row]:
        """Live claims about these entities, a row per claim and entity (eid, role)."""

    def titled_sources(self, name: str) -> list[str]:
        """Paths of the sources titled with this name (a trailing parenthetical aside)."""

    def source_claims(self, paths: list[str]) -> list[Row]:
        """Every live claim of those of these sources that are short (path)."""

    def claim_origins(self, ids: list[str]) -> tuple[dict[str, list[tuple[str, bool]]], dict[str, tuple[str, str]]]:
        """Per claim: its entities (entity, whether the subject), subject first; and (path, title) of
        the source it was first extracted from."""


@dataclass(frozen=True)
class Findings:
    """What the navigator found before the strategies run."""

    linked: Mapping[str, float]  # entities the question names -> weight
    scores: Mapping[str, float]  # candidate claim id -> score
    relevant: frozenset[str]  # candidates that share a word with the question, are hits or come from a top source
    texts: Mapping[str, str]  # claim id -> text, of the candidates and the claim hits
    openings: tuple[str, ...] = ()  # best claims of the sources the question names by title


@dataclass(frozen=True)
class Compared:
    """One of the two things a yes/no question compares."""

    entity: str
    name: str
    claim: str  # the claim the verdict rests on for this thing ("" when none says it)
    value: str = ""  # a `same` question: the value that claim gives ("Jiangsu")


@dataclass(frozen=True)
class Verdict:
    """A yes or no, as far as the claims say, and what it rests on."""

    answer: Literal["yes", "no"]
    shape: Literal["both", "same"]
    prop: tuple[str, ...]  # `both`: the property's words (stemmed); `same`: the property ("province",)
    compared: tuple[Compared, Compared]

    @property
    def claims(self) -> list[str]:
        return [c.claim for c in self.compared if c.claim]

    def as_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "shape": self.shape, "property": list(self.prop),
                "compared": [{"entity": c.entity, "name": c.name, "claim": c.claim, "value": c.value}
                             for c in self.compared]}


@dataclass(frozen=True)
class HopAnswer:
    claim: str  # a claim that answers after the claim that led to it
    score: float
    lead: str  # the first-hop claim that led there


@dataclass(frozen=True)
class Bridged:
    """Claims one entity away from the question's that answer it (best first)."""

    answers: tuple[HopAnswer, ...] = field(default_factory=tuple)


Evidence = Verdict | Bridged


class Strategy(ABC):
    """One shape of question: whether it applies, and the evidence it finds (None: nothing found)."""

    name: str = ""

    def applies(self, question: ParsedQuestion) -> bool:
        return True

    @abstractmethod
    def run(self, question: ParsedQuestion, found: Findings, context: Context) -> Evidence | None:
        """Evidence for the question from what the navigator found and what the context reads."""

"""The data every extractor returns, and the verified records the store keeps.

`ExtractionResult` is the contract between an extractor backend (heuristic or LLM) and the
rest of the pipeline; the LLM prompt in prompts/ is paired with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, get_args

from pydantic import BaseModel, Field, PrivateAttr, ValidationInfo, field_validator, model_validator


class ClaimType(StrEnum):
    definition = "definition"
    quantity = "quantity"
    date = "date"
    relation = "relation"
    comparison = "comparison"
    causal = "causal"
    opinion = "opinion"
    fact = "fact"


# The entity types of both extractors (issue 46): the LLM's reply schema lists them as an enum, the
# offline extractor's type model predicts them (kg/extract/type_model.py). "product": software,
# services, models, platforms, programming languages, devices and machines. "concept": none of these.
EntityType = Literal["person", "organization", "place", "product", "work", "event", "nationality", "language",
                     "religion", "office", "disease", "gene or protein", "cell type", "organism", "chemical",
                     "concept"]
ENTITY_TYPES: tuple[str, ...] = get_args(EntityType)


class ExtractedEntity(BaseModel):
    name: str = Field(min_length=1, max_length=200, description="Canonical name as written in the text")
    type: EntityType = Field(default="concept", description="What kind of thing it is; concept when none of the others fits")
    aliases: list[str] = Field(default_factory=list, description="Other names used in the text, acronyms included")
    description: str = Field(default="", description="One line saying what it is, from the text")

    @field_validator("name")
    @classmethod
    def _strip(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("entity name is blank")
        return value

    @field_validator("type", mode="before")
    @classmethod
    def _known_type(cls, value: object) -> object:
        """A type outside the vocabulary (an old reply's "thing", a model's "software") reads as concept."""
        lowered = " ".join(str(value).lower().replace("_", " ").split()) if isinstance(value, str) else value
        if lowered == "organisation":
            return "organization"
        return lowered if lowered in ENTITY_TYPES else "concept"


class ExtractedClaim(BaseModel):
    claim_type: ClaimType = ClaimType.fact
    subject: str = Field(description="Name of the entity the claim is about; must be one of `entities`")
    predicate: str = Field(default="", description="Short snake_case relation, e.g. is_a, weighed, founded_in")
    object: str = Field(default="", description="What the subject is related to, as text")
    object_entity: str | None = Field(default=None, description="The object when it is one of `entities`")
    value: float | None = None
    unit: str = ""
    polarity: int = Field(default=1, description="1 if asserted, -1 if negated")
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    text: str = Field(min_length=1, description="The claim as one standalone sentence")
    quotes: list[str] = Field(min_length=1, description="Verbatim evidence copied from the text")
    mentions: list[str] = Field(default_factory=list, description="Other entities the claim names")
    valid_from: str | None = None
    valid_to: str | None = None

    @field_validator("polarity")
    @classmethod
    def _polarity(cls, value: int) -> int:
        return -1 if value < 0 else 1


class ExtractionResult(BaseModel):
    entities: list[ExtractedEntity] = Field(default_factory=list)
    claims: list[ExtractedClaim] = Field(default_factory=list)
    # (extractor label, version) when another extractor than the source's made this result: an LLM
    # extractor's offline fallback (kg/llm/extractor.py). Not part of the reply, never cached.
    _maker: tuple[str, str] | None = PrivateAttr(default=None)

    @property
    def maker(self) -> tuple[str, str] | None:
        return self._maker

    def made_by(self, label: str, version: str) -> ExtractionResult:
        """This result, marked as made by the extractor `label` at `version` (its claims say so)."""
        self._maker = (label, version)
        return self

    @model_validator(mode="after")
    def _claims_name_known_entities(self) -> ExtractionResult:
        known = {e.name.casefold() for e in self.entities}
        known |= {a.casefold() for e in self.entities for a in e.aliases}
        for claim in self.claims:
            for name in (claim.subject, claim.object_entity, *claim.mentions):
                if name is not None and " ".join(name.split()).casefold() not in known:
                    raise ValueError(
                        f"claim {claim.text!r} names entity {name!r}, which is not in `entities`; "
                        "add it to `entities` or use one of their names"
                    )
        return self


@dataclass(frozen=True)
class Chunk:
    """A slice of one source, with its offsets into the source text."""

    source_path: str
    index: int
    text: str
    start: int
    end: int
    headings: tuple[str, ...] = ()


@dataclass(frozen=True)
class SourceDoc:
    """A source file read and validated: its text, hash and front matter."""

    path: str  # relative to raw/, with forward slashes
    text: str
    sha256: str
    bytes: int
    title: str
    kind: str
    frontmatter: dict[str, object] = field(default_factory=dict)
    authority: int = 0


# LLM judges' replies (prompts/contradict_v1.md.j2, prompts/entity_v1.md.j2) -----------------


class _Verdict(BaseModel):
    pair: int = Field(description="The number of the pair, as given in the question.")
    reason: str = Field(default="", description="One short sentence: why.")
    confidence: float = Field(default=0.5, description="0 to 1: how sure you are of the verdict.")

    @field_validator("confidence", mode="before")
    @classmethod
    def _clamp(cls, value: object) -> float:
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return 0.5
        return min(1.0, max(0.0, number))


def _only_pairs_asked(verdicts: list[_Verdict], info: ValidationInfo) -> None:
    """The pair numbers asked about travel in the validation context; anything else is re-asked."""
    asked = (info.context or {}).get("pairs") if isinstance(info.context, dict) else None
    numbers = [v.pair for v in verdicts]
    if len(set(numbers)) != len(numbers):
        raise ValueError("each pair number must appear once; give exactly one verdict per pair")
    if asked is not None:
        unknown = sorted(set(numbers) - set(asked))
        if unknown:
            raise ValueError(f"pair number(s) {unknown} were not asked about; the pairs are numbered "
                             f"{min(asked)} to {max(asked)}: answer for those only")


class ClaimPairVerdict(_Verdict):
    verdict: Literal["contradicts", "compatible", "unsure"] = Field(
        description="contradicts: both claims cannot be true together; compatible: they can; unsure: cannot tell.")


class ContradictionVerdicts(BaseModel):
    """One verdict per numbered pair of claims."""

    verdicts: list[ClaimPairVerdict] = Field(default_factory=list)

    @model_validator(mode="after")
    def _asked(self, info: ValidationInfo) -> ContradictionVerdicts:
        _only_pairs_asked(list(self.verdicts), info)
        return self


class EntityPairVerdict(_Verdict):
    verdict: Literal["same", "different", "unsure"] = Field(
        description="same: both names refer to the same thing; different: they do not; unsure: cannot tell.")


class EntityVerdicts(BaseModel):
    """One verdict per numbered pair of entity names."""

    verdicts: list[EntityPairVerdict] = Field(default_factory=list)

    @model_validator(mode="after")
    def _asked(self, info: ValidationInfo) -> EntityVerdicts:
        _only_pairs_asked(list(self.verdicts), info)
        return self


# A synthesised answer (prompts/answer_v1.md.j2, kg/retrieve/answer.py) ------------------------


def given_claim_ids(ids: list[str], info: ValidationInfo) -> list[str]:
    """Cited claim ids, each among `context["claim_ids"]` (the claims the request showed), deduplicated."""
    allowed = set((info.context or {}).get("claim_ids", ()))
    unknown = [i for i in ids if i not in allowed]
    if unknown:
        raise ValueError(f"unknown claim ids {unknown}: cite only ids from the list of claims given")
    if not ids:
        raise ValueError("cite at least one claim id from the list given")
    return list(dict.fromkeys(ids))


class SynthesisedAnswer(BaseModel):
    """What the LLM must return for `kg query`: cited ids must be among `context["claim_ids"]`."""

    answer: str = Field(description="The answer in a few sentences of markdown. Cite claims inline as [claim id], "
                                    "e.g. [c0123456789abcde]. Say so if the claims do not answer the question.")
    claim_ids: list[str] = Field(description="Ids of every claim the answer relies on, from the list given.")

    @field_validator("claim_ids")
    @classmethod
    def _known(cls, ids: list[str], info: ValidationInfo) -> list[str]:
        return given_claim_ids(ids, info)


CardKind = Literal["definitional", "mechanistic", "relational", "applied"]


class CardDraft(BaseModel):
    """One flashcard an LLM wrote for `kg cards`; its claim ids must be among those it was given."""

    kind: CardKind = Field(description="definitional, mechanistic, relational or applied")
    question: str = Field(description="The question, answerable from the cited claims, not giving the answer away.")
    answer: str = Field(description="The answer in one or two sentences, naming the entity.")
    claim_ids: list[str] = Field(description="Ids of the claims the card rests on, from the list given.")

    @field_validator("claim_ids")
    @classmethod
    def _known(cls, ids: list[str], info: ValidationInfo) -> list[str]:
        return given_claim_ids(ids, info)


class CardDrafts(BaseModel):
    """What the LLM must return for `kg cards`: at most one card of each kind."""

    cards: list[CardDraft] = Field(description="At most one card of each kind; none where the claims do not support it.")

    @field_validator("cards")
    @classmethod
    def _one_per_kind(cls, cards: list[CardDraft]) -> list[CardDraft]:
        kinds = [c.kind for c in cards]
        if len(set(kinds)) != len(kinds):
            raise ValueError(f"more than one card of a kind ({', '.join(sorted(kinds))}): write at most one of each")
        return cards

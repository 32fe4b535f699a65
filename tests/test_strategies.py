"""Each strategy of kg/retrieve/strategies on a small fake context: a few claims in dicts, no compile."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kg.names import name_key
from kg.retrieve.question import parse_question, tokenize
from kg.retrieve.strategies import (
    BothStrategy,
    Bridged,
    BridgeStrategy,
    Findings,
    SameStrategy,
    Verdict,
)
from kg.retrieve.strategies.pair import compared_pair


@dataclass
class Claim:
    id: str
    text: str
    about: list[tuple[str, str]]  # (entity, role)
    path: str
    type: str = "fact"
    polarity: int = 1


@dataclass
class FakeContext:
    """The `Context` of kg/retrieve/strategies/base.py over a few entities, sources and claims."""

    entities: dict[str, str]  # id -> name
    sources: dict[str, str]  # path -> title
    claims: list[Claim]
    hubs: set[str] = field(default_factory=set)

    def entity_name(self, entity: str) -> str:
        return self.entities.get(entity, entity)

    def entity_aliases(self, entity: str) -> list[str]:
        return []

    def entities_named(self, name: str) -> list[str]:
        return sorted(e for e, n in self.entities.items() if name_key(n) == name_key(name))

    def names_in(self, text: str, capitalised: bool = False) -> dict[str, float]:
        tokens = tokenize(text)
        grams = {name_key(" ".join(tokens[i:j])) for i in range(len(tokens)) for j in range(i + 1, len(tokens) + 1)
                 if not capitalised or tokens[i][:1].isupper()}
        return {e: 1.0 for e, n in self.entities.items() if name_key(n) in grams}

    def is_bridge(self, entity: str) -> bool:
        return entity in self.entities and entity not in self.hubs

    def entity_claims(self, entities: list[str]) -> list[dict[str, Any]]:
        return [self._row(c, eid=e, role=role) for c in self.claims for e, role in c.about if e in entities]

    def titled_sources(self, name: str) -> list[str]:
        return sorted(p for p, t in self.sources.items() if name_key(t) == name_key(name))

    def source_claims(self, paths: list[str]) -> list[dict[str, Any]]:
        return [self._row(c) for c in self.claims if c.path in paths]

    def claim_origins(self, ids: list[str]) -> tuple[dict[str, list[tuple[str, bool]]], dict[str, tuple[str, str]]]:
        chosen = [c for c in self.claims if c.id in ids]
        return ({c.id: [(e, role == "subject") for e, role in c.about] for c in chosen},
                {c.id: (c.path, self.sources[c.path]) for c in chosen})

    def _row(self, claim: Claim, **extra: Any) -> dict[str, Any]:
        return {"id": claim.id, "text": claim.text, "type": claim.type, "polarity": claim.polarity, "path": claim.path,
                "conf": 0.9, **extra}


def radio() -> FakeContext:
    return FakeContext(
        entities={"ada-finch": "Ada Finch", "ben-gray": "Ben Gray", "benjamin-gray": "Benjamin Arthur Gray",
                  "mira-holt": "Mira Holt", "harbour-lights": "Harbour Lights", "edith-crane": "Edith Crane",
                  "england": "England", "port-ellis": "Port Ellis", "dunmore": "Dunmore", "kell": "Kell"},
        sources={"ada.md": "Ada Finch", "ben.md": "Ben Gray", "mira.md": "Mira Holt", "harbour.md": "Harbour Lights",
                 "places.md": "Places"},
        claims=[
            Claim("c1", "Ada Finch is an English radio actor.", [("ada-finch", "subject")], "ada.md", "definition"),
            # the extractor gave the defining claim of Ben Gray's page another subject
            Claim("c2", "Benjamin Arthur Gray is an English radio actor and writer.", [("benjamin-gray", "subject")],
                  "ben.md", "definition"),
            Claim("c3", "Ada Finch is not a radio writer.", [("ada-finch", "subject")], "ada.md", "fact", -1),
            Claim("c4", "Mira Holt is a character from the radio drama Harbour Lights.",
                  [("mira-holt", "subject"), ("harbour-lights", "object")], "mira.md", "definition"),
            Claim("c5", "Harbour Lights was created by the producer Edith Crane in 1986.",
                  [("harbour-lights", "subject"), ("edith-crane", "object")], "harbour.md", "relation"),
            Claim("c6", "Harbour Lights is set in England.", [("harbour-lights", "subject"), ("england", "object")],
                  "harbour.md"),
            Claim("c7", "Port Ellis is a fishing town in the province of Aster.", [("port-ellis", "subject")], "places.md"),
            Claim("c8", "Dunmore is a market town in northern Aster province.", [("dunmore", "subject")], "places.md"),
            Claim("c9", "Kell is a village in Bray province.", [("kell", "subject")], "places.md"),
        ])


def findings(linked: list[str], scores: dict[str, float] | None = None, context: FakeContext | None = None) -> Findings:
    scores = scores or {}
    texts = {c.id: c.text for c in (context or radio()).claims}
    return Findings({e: 1.0 for e in linked}, scores, frozenset(scores), texts)


def test_both_says_yes_when_a_defining_claim_of_each_holds_the_property() -> None:
    question = parse_question("Are Ben Gray and Ada Finch both radio actors?")
    assert BothStrategy().applies(question) and not SameStrategy().applies(question)
    verdict = BothStrategy().run(question, findings(["ben-gray", "ada-finch"]), radio())
    assert isinstance(verdict, Verdict) and verdict.answer == "yes" and verdict.shape == "both"
    assert [(c.name, c.claim) for c in verdict.compared] == [("Ben Gray", "c2"), ("Ada Finch", "c1")]  # c2: Ben Gray's own page
    assert verdict.as_dict()["compared"][0] == {"entity": "ben-gray", "name": "Ben Gray", "claim": "c2", "value": ""}


def test_both_says_no_when_one_lacks_it_and_a_negated_claim_is_no_yes() -> None:
    verdict = BothStrategy().run(parse_question("Are Ben Gray and Ada Finch both radio writers?"),
                                 findings(["ben-gray", "ada-finch"]), radio())
    assert verdict is not None and verdict.answer == "no"
    assert [c.claim for c in verdict.compared] == ["c2", ""]  # "Ada Finch is not a radio writer" says no such thing


def test_both_needs_two_things_named() -> None:
    assert BothStrategy().run(parse_question("Are Ada Finch and Zed both radio actors?"), findings(["ada-finch"]),
                              radio()) is None


def test_same_compares_the_value_each_things_claims_give() -> None:
    question = parse_question("Are Port Ellis and Dunmore in the same province?")
    assert SameStrategy().applies(question) and not BothStrategy().applies(question)
    yes = SameStrategy().run(question, findings(["port-ellis", "dunmore"]), radio())
    assert yes is not None and yes.answer == "yes" and [c.value for c in yes.compared] == ["Aster", "Aster"]
    no = SameStrategy().run(parse_question("Are Dunmore and Kell in the same province?"), findings(["dunmore", "kell"]),
                            radio())
    assert no is not None and (no.answer, [c.value for c in no.compared], no.prop) == ("no", ["Aster", "Bray"], ("province",))
    # neither claim names a state: no verdict rather than a guess
    assert SameStrategy().run(parse_question("Are Dunmore and Kell in the same state?"), findings(["dunmore", "kell"]),
                              radio()) is None


def test_the_pair_is_the_two_longest_names_first_without_overlaps() -> None:
    context = radio()
    context.entities["gray"] = "Gray"
    pair, names, named = compared_pair(parse_question("Are Ben Gray and Ada Finch both actors?"),
                                       {"gray": 1.0, "ben-gray": 1.5, "ada-finch": 1.5}, context)
    assert pair == ["ben-gray", "ada-finch"] and named == ["Ben Gray", "Ada Finch"] and names["ben-gray"] == "Ben Gray"


def test_the_bridge_follows_the_entity_the_first_claim_names() -> None:
    question = parse_question("Mira Holt is a character from a radio drama created by who?")
    strategy = BridgeStrategy()
    assert question.shape == "bridge" and strategy.applies(question)
    bridged = strategy.run(question, findings(["mira-holt"], {"c4": 2.0}), radio())
    assert isinstance(bridged, Bridged) and bridged.answers[0].claim == "c5" and bridged.answers[0].lead == "c4"
    assert bridged.answers[0].score > 2.0  # the lead's score plus the share of words the hop adds
    assert all(a.claim != "c6" for a in bridged.answers)  # "set in England" holds no creator


def test_the_bridge_goes_through_no_hub_and_not_back_to_what_the_question_names() -> None:
    question = parse_question("Mira Holt is a character from a radio drama created by who?")
    hub = radio()
    hub.hubs.add("harbour-lights")
    assert BridgeStrategy().run(question, findings(["mira-holt"], {"c4": 2.0}, hub), hub) is None
    # the drama is named in the question: no hop through it
    assert BridgeStrategy().run(question, findings(["mira-holt", "harbour-lights"], {"c4": 2.0}), radio()) is None


def test_the_bridge_does_not_apply_to_definitions_or_questions_without_topic_words() -> None:
    assert not BridgeStrategy().applies(parse_question("What is Harbour Lights?"))
    assert not BridgeStrategy().applies(parse_question("Tell me about Harbour Lights"))

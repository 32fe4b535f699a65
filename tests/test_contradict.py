from __future__ import annotations

import random
import shutil
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kg import api
from kg.compile.candidates import (
    MAX_ATTRIBUTES,
    MAX_BUCKET,
    TERM_BANDS,
    candidate_pairs,
    claim_keys,
)
from kg.compile.contradict import ClaimRecord, RuleJudge
from kg.kb import KnowledgeBase


def rec(id_: str, text: str, subject: str = "s", claim_type: str = "fact", obj: str = "", polarity: int = 1,
        entities: frozenset[str] = frozenset(), confidence: float = 0.8) -> ClaimRecord:
    return ClaimRecord(id=id_, text=text, subject=subject, predicate="p", claim_type=claim_type, polarity=polarity,
                       object=obj, confidence=confidence, entities=entities or frozenset({subject}))


judge = RuleJudge()
WORDS = "insulin raises glucose lowers mice patients kinase blocks growth tumour cells in the of 40 kg 1990".split()


def test_negation_and_opposite_directions() -> None:
    assert judge.judge_one(rec("a", "MafA phosphorylation enhances its ubiquitination."),
                           rec("b", "MafA phosphorylation decreases its ubiquitination.")).reason == "opposite directions of the same effect"
    assert judge.judge_one(rec("a", "Including pharmacists in rounding teams reduces the incidence of adverse drug events."),
                           rec("b", "Including pharmacists in rounding teams does not alter the incidence of adverse drug events."))
    assert judge.judge_one(rec("a", "ENIAC was a stored-program machine."), rec("b", "ENIAC was not a stored-program machine."))
    prefixed = judge.judge_one(rec("a", "Ca2+ cycling is a UCP1-dependent thermogenic mechanism."),
                               rec("b", "Ca2+ cycling is a UCP1-independent thermogenic mechanism."))
    assert prefixed and prefixed.reason == "opposite terms: ucp1-dependent / ucp1-independent"
    reversed_ = judge.judge_one(rec("a", "Drug X is more effective than drug Y."), rec("b", "Drug Y is more effective than drug X."))
    assert reversed_ and reversed_.reason == "the same comparison the other way round"
    # A negation disagrees with anything but the opposite direction: "does not decrease" agrees with "increases".
    assert judge.judge_one(rec("a", "Klf4 is important for proper myeloid cell differentiation."),
                           rec("b", "Klf4 is not required for proper myeloid cell differentiation.")).reason == \
        "one claim denies the effect the other states"
    assert judge.judge_one(rec("a", "Statins increase plasma HDL levels in adult patients."),
                           rec("b", "Statins do not decrease plasma HDL levels in adult patients.")) is None
    assert judge.judge_one(rec("a", "Insulin raises glucose."), rec("b", "Insulin lowers glucose.")).reason == \
        "opposite directions of the same effect"  # two shared terms: what acts and what it acts on
    assert judge.judge_one(rec("a", "Exercise raises glucose uptake in muscle."),
                           rec("b", "Exercise lowers glucose levels in elderly diabetic patients.")) is None
    # Verbs of causing ("elicits", "evokes", "triggers") state an effect as "induces" does.
    assert judge.judge_one(rec("a", "Alum elicits a durable antibody response in mice."),
                           rec("b", "Alum has no effect on the antibody response in mice.")).reason == \
        "one claim denies the effect the other states"
    assert judge.judge_one(rec("a", "Chronic stress triggers relapse in abstinent smokers."),
                           rec("b", "Chronic stress prevents relapse in abstinent smokers.")).reason == \
        "opposite directions of the same effect"
    evaluative = judge.judge_one(rec("a", "Integrated care is ineffective at tackling multiple comorbidities."),
                                 rec("b", "Integrated care is successful at tackling multiple comorbidities."))
    assert evaluative and evaluative.reason.startswith("opposite terms")


def test_claims_that_agree_or_speak_of_different_cases_are_not_contradictions() -> None:
    """Issue 23's false alarms on ordinary text: each pair holds together."""
    agree = [
        ("Pharmacist attendance at ward rounds reduces adverse events.", "Pharmacist attendance at ward rounds diminishes adverse events."),
        ("Human CO2 emissions are causing global warming.", "That human CO2 is causing global warming is known with high certainty."),
        ("Sea level will rise 58 m.", "Sea level will rise about 60 m."),  # within the precision the text states
        ("ENIAC weighed about 27 tonnes.", "ENIAC weighed 28 tonnes."),
        ("Salk's vaccine came into use in 1955.", "Sabin's oral vaccine came into use in 1961."),  # not a once-only event
        ("New Delhi's average high in the warm season is above 39 °C.", "New Delhi's record high is 49.1 °C."),  # scopes
        ("Visa requirements for Thai citizens give access to 75 countries.",
         "Visa requirements for Canadian citizens give access to 172 countries."),  # different names
        ("The show ran for 390 episodes of the original series.", "The show ran for 392 episodes in the franchise."),
        ("The metropolitan area had 1 million people in 2010.", "The city had 208,880 people in 2010."),
        ("The album sold 2 million copies in 1990.", "The album sold 3 million copies in 1991."),  # different years
        ("Ethanol stress increases the expression of PSP in bacteria.", "Ethanol stress reduces the expression of SRL in bacteria."),
        ("ENIAC weighed 27 tonnes.", "ENIAC weighed 27 t."),
        # ranges, labels and bounds are not values; a sentence with several figures speaks of several cases
        ("Twenty patients aged 10 to 21 years were enrolled.", "The case patients, aged 20-74 years, were matched."),
        ("The trial enrolled patients with type 2 diabetes.", "The trial enrolled patients with type 1 diabetes."),
        ("The daily dose was more than 25 mg.", "The daily dose was 10 mg."),
        ("Thirty-day mortality was 9.6% in women and 5.3% in men.", "Thirty-day mortality was 13.6%."),
        ("Thirty-eight courses of therapy were given to 19 patients.", "A total of 115 courses of therapy were given to 50 patients."),
    ]
    for a, b in agree:
        assert judge.judge_one(rec("a", a), rec("b", b)) is None, (a, b)
    assert judge.judge_one(rec("a", "ENIAC used vacuum tubes."), rec("b", "Colossus read paper tape.", subject="t")) is None
    one_text = rec("a", "ENIAC weighed 27 tonnes."), rec("b", "ENIAC weighed 30 tonnes.")
    one_text[0].sources = one_text[1].sources = ("same.md",)
    assert judge.judge_one(*one_text) is None  # one source giving two figures speaks of two cases


def test_values_and_dates_of_the_same_thing() -> None:
    weight = judge.judge_one(rec("a", "ENIAC weighed 27 tonnes."), rec("b", "ENIAC weighed 30 tonnes."))
    assert weight and weight.reason == "different values for weigh: 27 vs 30 t"
    sales = judge.judge_one(rec("a", "The album sold 2 million copies."), rec("b", "The album sold 3 million copies."))
    assert sales and "2e+06 vs 3e+06" in sales.reason
    assert judge.judge_one(rec("a", "ENIAC weighed 27 tonnes."), rec("b", "ENIAC weighed 30 tonnes.", subject="t")) is None
    completed = judge.judge_one(rec("a", "The Baby was completed in 1948."), rec("b", "The Baby was completed in 1949."))
    assert completed and completed.reason == "different dates for complet: 1948 vs 1949"
    assert judge.judge_one(rec("a", "The album was released in 1990."), rec("b", "The album was released in 1991.")) is None
    assert judge.judge_one(rec("a", "It was completed in June 1948."), rec("b", "It was completed on June 21, 1948.")) is None


def test_what_is_most_of_its_kind() -> None:
    """A superlative head answered two ways: about a named thing, or stated as a general fact in
    the present tense; a study's finding in the past tense ("were") is of that study only."""
    named = judge.judge_one(rec("a", "The most prevalent adverse events to Semaglutide are gastrointestinal."),
                            rec("b", "The most prevalent adverse events to Semaglutide are cardiovascular."))
    assert named and named.reason.startswith("different answers for")
    general = judge.judge_one(rec("a", "The peak incidence of hip fractures occurs in the elderly."),
                              rec("b", "The peak incidence of hip fractures occurs in adolescents."))
    assert general and general.reason.startswith("different answers for")
    assert judge.judge_one(rec("a", "The most common adverse events were nausea and vomiting."),
                           rec("b", "The most common adverse events were headaches.")) is None
    # present tense, but no range it is over: some study's own dose and trial
    assert judge.judge_one(rec("a", "The highest dose is well tolerated."), rec("b", "The highest dose is toxic.")) is None
    assert judge.judge_one(rec("a", "The largest trial is ongoing."), rec("b", "The largest trial is complete.")) is None


def test_confidence_follows_the_evidence() -> None:
    near = judge.judge_one(rec("a", "ENIAC weighed 27 tonnes."), rec("b", "ENIAC weighed 28 tonnes."))
    far = judge.judge_one(rec("a", "ENIAC weighed 27 tonnes."), rec("b", "ENIAC weighed 60 tonnes."))
    assert near and far and far.confidence > near.confidence
    same_words = judge.judge_one(rec("a", "ENIAC was a stored-program machine."), rec("b", "ENIAC was not a stored-program machine."))
    fewer = judge.judge_one(rec("a", "Including pharmacists in rounding teams reduces the incidence of adverse drug events."),
                            rec("b", "Including pharmacists in rounding teams does not alter the incidence of adverse drug events."))
    assert same_words and fewer and 0.5 < fewer.confidence < same_words.confidence <= 1
    judged = RuleJudge(similarity=0.6)
    assert judged.judge_one(rec("a", "x y z w", confidence=0.25), rec("b", "x y z w not", confidence=0.25)).confidence <= 0.5


def test_candidates_say_nearly_the_same_thing_whatever_the_subject() -> None:
    """Issue 35: claims saying the same thing are compared whoever the extractor made their
    subject; a key shared by more than MAX_BUCKET claims tells nothing apart."""
    pair = [rec("a", "Energy balance requires hypothalamic glutamate neurotransmission.", subject="energy-balance"),
            rec("b", "Hypothalamic glutamate neurotransmission is unrelated to energy balance.", subject="hypothalamic")]
    assert candidate_pairs(pair, {"b"}, {}) == [(0, 1)] == candidate_pairs(pair, {"a"}, {})
    found = judge.judge_one(*pair)
    assert found and found.reason == "one claim negates the other"
    boilerplate = [rec(f"c{i:03}", f"Topic {i} has property {i * 7} of kind {i % 3}.", subject=f"s{i % 10}")
                   for i in range(300)]  # the same words about 300 topics: one key for all
    assert candidate_pairs(boilerplate, {"c000", "c001"}, {}) == []
    weight = [rec("a", "ENIAC weighed about 27 tonnes."), rec("b", "The thing weighed 30 tons and filled a room.")]
    assert candidate_pairs(weight, {"b"}, {}) == [(0, 1)]  # one shared word, but what the same subject measures
    assert candidate_pairs([weight[0], rec("b", weight[1].text, subject="t")], {"b"}, {}) == []  # another subject


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=2, max_size=6), min_size=2, max_size=60), st.randoms())
def test_candidates_are_a_bounded_function_of_the_set(sentences: list[list[str]], shuffle: random.Random) -> None:
    claims = [rec(f"c{i:03}", " ".join(words) + ".", subject=f"s{i % 4}") for i, words in enumerate(sentences)]
    ids = {c.id for c in claims}
    pairs = {(claims[i].id, claims[j].id) for i, j in candidate_pairs(claims, ids, {})}
    again = sorted(claims, key=lambda c: shuffle.random())
    assert {(again[i].id, again[j].id) for i, j in candidate_pairs(again, ids, {})} == {tuple(sorted(p)) for p in pairs}
    some = {c.id for c in claims if shuffle.random() < 0.3}  # a claim's pairs are the same asked from either side
    assert {(claims[i].id, claims[j].id) for i, j in candidate_pairs(claims, some, {})} == {p for p in pairs if set(p) & some}
    bound = (TERM_BANDS + MAX_ATTRIBUTES) * (MAX_BUCKET - 1)
    partners = Counter(i for p in pairs for i in p)
    assert max(partners.values(), default=0) <= bound
    for a, b in pairs:  # each pair shares a key of a bucket of at most MAX_BUCKET claims
        by_id = {c.id: c for c in claims}
        shared = claim_keys(by_id[a]) & claim_keys(by_id[b])
        assert any(sum(1 for c in claims if key in claim_keys(c)) <= MAX_BUCKET for key in shared)


def test_examples_disagreements_are_found_and_authority_decides(example_kb: KnowledgeBase) -> None:
    report, _ = api.compile_kb(example_kb)
    reasons = [r["reason"] for r in api.cypher(example_kb, "MATCH ()-[r:CONTRADICTS]->() RETURN r.reason AS reason")]
    assert report.contradictions == len(reasons) >= 2
    for one, other in (("27", "30 t"), ("750", "740 kHz")):  # the pair's order follows the claim ids
        assert any(f"{one} vs {other}" in r or f"{other.split()[0]} vs {one} {other.split()[1]}" in r
                   for r in reasons), (one, other)
    assert not any("2250 vs 2300" in r for r in reasons)  # "about 2,250" and "2,300" agree within "about"
    page = (example_kb.wiki / "contradictions.md").read_text()
    assert "(authority 0)." in page and "Stands: “Its maximum clock rate was 740 kHz" in page  # the sentence itself
    intel = (example_kb.wiki / "entities/intel-4004.md").read_text()
    assert "⚠ [[contradictions|Contradicted]]" in intel


def test_single_valued_predicates_are_superseded_by_authority_then_date(kb: KnowledgeBase) -> None:
    kb.config_path.write_text('[predicates]\nsingle_valued = ["ceo"]\n')
    (kb.raw / "a.md").write_text("# Acme\n\n| Company | CEO |\n|---|---|\n| Acme | Alice Smith |\n")
    api.compile_kb(kb)
    (kb.raw / "b.md").write_text("---\nauthority: 2\n---\n# Acme news\n\n| Company | CEO |\n|---|---|\n| Acme | Bob Jones |\n")
    report, _ = api.compile_kb(kb)
    assert report.superseded == 1
    rows = api.cypher(kb, "MATCH (n:Claim)-[r:SUPERSEDES]->(o:Claim) RETURN n.object AS new, o.object AS old, "
                          "o.status AS s, r.reason AS why")
    assert rows == [{"new": "Bob Jones", "old": "Alice Smith", "s": "superseded",
                     "why": "ceo is single-valued; its source has higher authority"}]
    assert "Superseded by “Acme CEO: Bob Jones”" in (kb.wiki / "entities/acme.md").read_text()


def test_claim_records_by_id_equal_the_full_load(example_kb: KnowledgeBase) -> None:
    from kg.compile.contradict import load_claim_records
    from kg.graph.store import Store

    api.compile_kb(example_kb)
    with Store(example_kb.db_path, read_only=True) as store:
        every = load_claim_records(store)
        some = [r.id for r in every[::3]] + ["no-such-claim"]
        by_id = load_claim_records(store, some)
    assert len(every) > 20 and any(r.authority for r in every) and any(len(r.sources) for r in every)
    assert by_id == [r for r in every if r.id in set(some)]


def test_every_claim_has_exactly_one_subject(compiled: KnowledgeBase) -> None:
    """kg/compile/contradict.py counts live claims with a subject as live claims: this must hold."""
    rows = api.cypher(compiled, "MATCH (c:Claim) OPTIONAL MATCH (c)-[:ABOUT {role: 'subject'}]->(e:Entity) "
                                "WITH c, count(e) AS subjects RETURN subjects, count(*) AS claims")
    assert len(rows) == 1 and rows[0]["subjects"] == 1 and rows[0]["claims"] > 100


def test_findings_do_not_depend_on_which_source_came_first(compiled: KnowledgeBase, tmp_path: Path) -> None:
    """Claims of different subjects saying the same words otherwise ("the generation of ..." / "the
    removal of ...") are compared only where detection loads both, whichever came first (a compile
    of one source into a larger graph loads only the groups its claims touch)."""
    notes = {"ros-a.md": "The generation of reactive oxygen species contributes to neuronal apoptosis in the hippocampus.\n",
             "ros-b.md": "The removal of reactive oxygen species contributes to neuronal apoptosis in the hippocampus.\n",
             "eniac-weight.md": "# ENIAC\n\nENIAC weighed 31 tonnes.\n"}

    def edges(name: str, batches: list[list[str]]) -> set[tuple[str, str]]:
        shutil.copytree(compiled.root, tmp_path / name)
        kb = KnowledgeBase(tmp_path / name)
        for batch in batches:
            for note in batch:
                (kb.raw / note).write_text(notes[note], encoding="utf-8")
            api.compile_kb(kb, "heuristic", render=False)
        rows = api.cypher(kb, "MATCH (a:Claim)-[:CONTRADICTS]->(b:Claim) RETURN a.text AS a, b.text AS b")
        return {(min(r["a"], r["b"]), max(r["a"], r["b"])) for r in rows}

    together = edges("together", [sorted(notes)])
    assert together == edges("apart", [["ros-a.md"], ["eniac-weight.md"], ["ros-b.md"]])
    assert any("31 tonnes" in a + b for a, b in together)

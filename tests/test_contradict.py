from __future__ import annotations

from kg import api
from kg.compile.contradict import ClaimRecord, RuleJudge, candidate_pairs
from kg.kb import KnowledgeBase


def rec(id_: str, text: str, subject: str = "s", claim_type: str = "fact", obj: str = "", polarity: int = 1,
        entities: frozenset[str] = frozenset()) -> ClaimRecord:
    return ClaimRecord(id=id_, text=text, subject=subject, predicate="p", claim_type=claim_type, polarity=polarity,
                       object=obj, confidence=0.8, entities=entities or frozenset({subject}))


judge = RuleJudge()


def test_negation_and_opposite_directions() -> None:
    assert judge.judge_one(rec("a", "MafA phosphorylation enhances its ubiquitination."),
                           rec("b", "MafA phosphorylation decreases its ubiquitination.")).reason == "opposite directions of effect"
    assert judge.judge_one(rec("a", "Including pharmacists in rounding teams reduces the incidence of adverse drug events."),
                           rec("b", "Including pharmacists in rounding teams does not alter the incidence of adverse drug events."))
    assert judge.judge_one(rec("a", "ENIAC was a stored-program machine."), rec("b", "ENIAC was not a stored-program machine."))


def test_paraphrases_and_unrelated_claims_are_not_contradictions() -> None:
    assert judge.judge_one(rec("a", "Pharmacist attendance at ward rounds reduces adverse events."),
                           rec("b", "Pharmacist attendance at ward rounds diminishes adverse events.")) is None
    assert judge.judge_one(rec("a", "ENIAC used vacuum tubes."), rec("b", "Colossus read paper tape.", subject="t")) is None


def test_values_dates_and_superlatives() -> None:
    weight = judge.judge_one(rec("a", "ENIAC weighed about 27 tonnes."), rec("b", "The thing weighed 30 tons."))
    assert weight and "27 vs 30 t" in weight.reason
    assert judge.judge_one(rec("a", "ENIAC weighed 27 tonnes."), rec("b", "ENIAC weighed 27 t.")) is None
    dates = judge.judge_one(rec("a", "The Baby ran its first program on June 21, 1948."),
                            rec("b", "The machine ran its first program in 1949."))
    assert dates and "1948-06-21 vs 1949" in dates.reason
    assert judge.judge_one(rec("a", "It ran its first program in June 1948."), rec("b", "It ran its first program on June 21, 1948.")) is None
    first = judge.judge_one(rec("a", "Colossus was the first electronic computer.", "colossus", "definition", "first electronic computer"),
                            rec("b", "ENIAC was the first general-purpose electronic computer.", "eniac", "definition",
                                "first general-purpose electronic computer"))
    assert first and "first" in first.reason


def test_candidates_never_all_pairs() -> None:
    claims = [rec(f"c{i}", f"Topic {i} has property {i * 7} of kind {i % 3}.", subject=f"s{i % 10}") for i in range(300)]
    pairs = candidate_pairs(claims, {"c0", "c1"}, {})
    assert pairs and all({claims[i].id, claims[j].id} & {"c0", "c1"} for i, j in pairs)
    assert all(claims[i].subject == claims[j].subject for i, j in pairs)  # about one thing, never across
    weight = [rec("a", "ENIAC weighed about 27 tonnes."), rec("b", "The thing weighed 30 tons and filled a room.")]
    assert candidate_pairs(weight, {"b"}, {}) == [(0, 1)]  # one shared word, but what both measure


def test_examples_disagreements_are_found_and_authority_decides(example_kb: KnowledgeBase) -> None:
    report, _ = api.compile_kb(example_kb)
    assert report.contradictions >= 3
    reasons = [r["reason"] for r in api.cypher(example_kb, "MATCH ()-[r:CONTRADICTS]->() RETURN r.reason AS reason")]
    for expected in ("27 vs 30 t", "750 vs 740 kHz", "2250 vs 2300 transistor"):
        assert any(expected in r for r in reasons), expected
    page = (example_kb.wiki / "contradictions.md").read_text()
    assert "(authority 0)." in page and "Stands: “Its maximum clock rate was 740 kHz" in page
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

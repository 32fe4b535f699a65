"""Query: deterministic navigation, extractive and LLM answers with citations, --save filing back."""

from __future__ import annotations

import json
import shutil

import pytest
from fakes_llm import FakeAnthropic, Reply
from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.embed import HashingEmbedder
from kg.graph.store import Store
from kg.kb import KnowledgeBase
from kg.retrieve.answer import extractive_answer, page_id
from kg.retrieve.navigate import Navigator, navigate
from tests.conftest import tree_digest

QUESTION = "How many vacuum tubes did ENIAC use?"


def test_navigate_finds_pages_sources_and_claims_within_budget(compiled: KnowledgeBase) -> None:
    nav = navigate(compiled, QUESTION, budget=800, embedder=HashingEmbedder())
    assert nav.pages[0] == "entities/eniac"
    assert "eniac.md" in nav.source_paths[:3]
    assert any("17,468" in c.text for c in nav.claims)
    assert 0 < nav.tokens_read <= 800 and nav.tokens_read == sum(r.tokens for r in nav.reads)
    assert {r.kind for r in nav.reads} >= {"index", "claim"}
    assert "eniac.md" in nav.sources_read and all(r.source for r in nav.reads if r.kind in ("claim", "span"))


def test_navigate_is_deterministic_and_respects_small_budgets(compiled: KnowledgeBase) -> None:
    with Store(compiled.db_path, read_only=True) as store:
        navigator = Navigator(store)
        a = navigator.navigate("Who invented the stored-program concept?", 300)
        b = navigator.navigate("Who invented the stored-program concept?", 300)
        assert a.trace() == b.trace() and a.tokens_read <= 300
        tiny = navigator.navigate("Who invented the stored-program concept?", 5)
        assert tiny.tokens_read <= 5 and tiny.source_paths  # ranking still works with no reading


def test_extractive_answer_says_so_and_cites(compiled: KnowledgeBase) -> None:
    answer = extractive_answer(navigate(compiled, QUESTION, 1000))
    body = answer.markdown()
    assert body.startswith("> Extractive answer") and "Nothing here is synthesised" in body
    assert "## Citations" in body and "[[sources/eniac#^" in body and "chars " in body
    assert answer.claims and all(c.citations for c in answer.claims)


def test_save_files_the_answer_back_and_renders_deterministically(fresh: KnowledgeBase) -> None:
    result = api.query_kb(fresh, QUESTION, 1000, save=True, embedder="hashing")
    answer, page = result.answer, result.saved_page
    assert page == page_id(QUESTION) == "how-many-vacuum-tubes-did-eniac-use"
    path = fresh.wiki / "answers" / f"{page}.md"
    text = path.read_text()
    assert text.startswith("---\ntype: answer\n") and f"# {QUESTION}" in text
    assert f"[[answers/{page}|{QUESTION}]]" in (fresh.wiki / "index.md").read_text()
    assert f"answer | {QUESTION}" in (fresh.wiki / "log.md").read_text()
    assert f"[[answers/{page}|" in (fresh.wiki / "entities" / "eniac.md").read_text()  # backlink
    with Store(fresh.db_path, read_only=True) as store:
        cited = store.query("MATCH (:Page {id: $p})-[:CITES]->(c:Claim) RETURN c.id AS id", {"p": page})
        about = store.query("MATCH (:Page {id: $p})-[:PAGE_ABOUT]->(e:Entity) RETURN e.id AS id", {"p": page})
    assert {r["id"] for r in cited} == {c.id for c in answer.claims}
    assert "eniac" in {r["id"] for r in about}
    before = tree_digest(fresh.wiki)
    api.render_kb(fresh)
    assert tree_digest(fresh.wiki) == before
    shutil.rmtree(fresh.wiki)
    api.render_kb(fresh)
    assert tree_digest(fresh.wiki) == before
    # a saved answer is searchable, and asking again replaces the page instead of adding one
    assert any(h.kind == "page" for h in api.search_kb(fresh, "vacuum tubes ENIAC", "bm25", 20).hits)
    api.query_kb(fresh, QUESTION, 1000, save=True, embedder="hashing")
    with Store(fresh.db_path, read_only=True) as store:
        assert store.query("MATCH (p:Page) RETURN count(p) AS n")[0]["n"] == 1


def test_llm_answer_rejects_unknown_claim_ids_then_cites(fresh: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    nav = navigate(fresh, QUESTION, 1000)
    eniac = next(c for c in nav.claims if "17,468" in c.text)
    with FakeAnthropic() as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        server.script = [
            Reply(content={"answer": "It used 18,000 tubes [cdeadbeefdeadbeef].", "claim_ids": ["cdeadbeefdeadbeef"]}),
            Reply(content={"answer": f"ENIAC used 17,468 vacuum tubes [{eniac.id}].", "claim_ids": [eniac.id]}),
        ]
        result = api.query_kb(fresh, QUESTION, 1000, save=True, embedder="hashing")
        answer, page = result.answer, result.saved_page
        assert len(server.calls("/v1/messages")) == 2  # the unknown id was sent back and retried
        retry = json.dumps(server.calls("/v1/messages")[1].body)
        assert "cdeadbeefdeadbeef" in retry
    assert answer.mode == "llm" and answer.text == "ENIAC used 17,468 vacuum tubes [1]."
    assert [c.id for c in answer.claims] == [eniac.id]
    text = (fresh.wiki / "answers" / f"{page}.md").read_text()
    assert "Synthesised by an LLM" in text and f"[[sources/eniac#^{eniac.id}|ENIAC]]" in text


def test_cli_query_json_reports_tokens(compiled: KnowledgeBase) -> None:
    result = CliRunner().invoke(app, ["query", QUESTION, "--kb", str(compiled.root), "--embedder", "hashing",
                                      "--budget", "600", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["mode"] == "extractive" and data["saved_page"] is None
    assert 0 < data["navigation"]["tokens_read"] <= 600 and "characters / 4" in data["navigation"]["counting"]
    assert data["citations"][0]["sources"][0]["page"].startswith("sources/")


def test_cli_and_mcp_give_one_shape_and_one_default_mode(compiled: KnowledgeBase) -> None:
    """`kg query --json` and the MCP kg_query tool print QueryResult.as_dict; `kg search --json` and kg_search
    print SearchResult.as_dict; all four search in the one default mode."""
    from kg.retrieve.settings import DEFAULT_MODE
    from kg.serve.mcp.tools import KgTools

    runner, kb = CliRunner(), ["--kb", str(compiled.root), "--embedder", "hashing", "--json"]
    cli = json.loads(runner.invoke(app, ["query", QUESTION, *kb]).stdout)
    mcp = KgTools(compiled, embedder="hashing").query(QUESTION)
    assert set(mcp) - {"truncated"} == set(cli) and mcp["navigation"] == cli["navigation"]
    assert cli["navigation"]["search_mode"] == DEFAULT_MODE and cli["navigation"]["shape"] == "bridge"
    assert cli["navigation"]["answer_kind"] == "quantity" and cli["navigation"]["verdict"] is None
    found = json.loads(runner.invoke(app, ["search", "vacuum tubes", *kb]).stdout)
    hits = KgTools(compiled, embedder="hashing").search("vacuum tubes")
    assert found["mode"] == hits["mode"] == DEFAULT_MODE
    assert [h["id"] for h in found["hits"]] == [h["id"] for h in hits["hits"]] and set(found["hits"][0]) == set(hits["hits"][0])


def test_a_verdict_is_typed_in_the_json(compiled: KnowledgeBase) -> None:
    result = CliRunner().invoke(app, ["query", "Are ENIAC and EDVAC both electronic computers?", "--kb", str(compiled.root),
                                      "--mode", "bm25", "--json"])
    verdict = json.loads(result.stdout)["navigation"]["verdict"]
    assert verdict["answer"] == "yes" and verdict["shape"] == "both" and [c["name"] for c in verdict["compared"]] == ["ENIAC", "EDVAC"]


def test_cli_query_save_text(fresh: KnowledgeBase) -> None:
    result = CliRunner().invoke(app, ["query", "What is a transistor?", "--kb", str(fresh.root), "--mode", "bm25", "--save"])
    assert result.exit_code == 0, result.output
    assert "Extractive answer" in result.stdout and "tokens read:" in result.stderr
    assert (fresh.wiki / "answers" / "what-is-a-transistor.md").is_file()


def test_extractive_answer_leads_with_the_claims_that_answer_and_their_contradiction(compiled: KnowledgeBase) -> None:
    # "It weighed about 27 tonnes" names neither ENIAC nor "weight": the extractor resolves "It",
    # the question's "weigh" meets "weighed", and "how much" asks for an amount
    answer = extractive_answer(navigate(compiled, "How much did ENIAC weigh?", 2000))
    first, second = answer.claims[:2]
    assert {first.subject, second.subject} == {"eniac"}
    assert all(c.answers and "weighed" in c.text for c in (first, second))
    both = first.text + " " + second.text
    assert "27 tonnes" in both and "30 tons" in both
    assert "Claims [1] and [2] contradict each other" in answer.text
    assert "None of the claims found" not in answer.text


def test_extractive_answer_says_when_no_claim_answers(compiled: KnowledgeBase) -> None:
    answer = extractive_answer(navigate(compiled, "When did Colossus win a singing contest?", 2000))
    assert answer.text.startswith("None of the claims found states what the question asks (a date)")
    assert answer.claims and not any(c.answers for c in answer.claims)


def test_a_both_question_gets_a_yes_or_no_from_each_things_claims(compiled: KnowledgeBase) -> None:
    yes = extractive_answer(navigate(compiled, "Are ENIAC and EDVAC both electronic computers?", 2000))
    assert yes.text.startswith("**Yes**, as far as the wiki says") and "ENIAC [" in yes.text and "EDVAC [" in yes.text
    # "ENIAC was not a stored-program machine" and "Colossus was not ...": negated claims are no yes
    no = extractive_answer(navigate(compiled, "Are ENIAC and Colossus both stored-program machines?", 2000))
    assert no.text.startswith("**No**, as far as the wiki says: no claim about")


@pytest.fixture(scope="module")
def two_hop(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    """Notes where a question's answer sits one entity away from what it names."""
    from kg.graph.fts import ensure_indexes
    from kg.kb import init

    kb, _ = init(tmp_path_factory.mktemp("two_hop") / "kb")
    notes = {
        "mira-holt.md": "# Mira Holt\n\nMira Holt is a fictional character from the radio drama Harbour Lights. "
                        "Mira Holt was played by Ada Finch from 1990 to 1994.\n",
        "harbour-lights.md": "# Harbour Lights\n\nHarbour Lights is a British radio drama set in a fishing town. It was "
                             "created by the producer Edith Crane in 1986. The drama ran for twelve series. "
                             "Harbour Lights was first broadcast by Radio Anglia.\n",
        "tom-holt.md": "# Tom Holt\n\nTom Holt is a fictional character from the radio drama Harbour Lights, played by Ben Gray.\n",
        "ada-finch.md": "# Ada Finch\n\nAda Finch (born 1960) is an English radio actor. The role that made her famous was "
                        "Mira Holt in Harbour Lights.\n",
        "ben-gray.md": "# Ben Gray\n\nBenjamin Arthur Gray (born 1958) is an English radio actor and writer.\n",
        "port-ellis.md": "# Port Ellis\n\nPort Ellis is a fishing town in the province of Aster. Harbour Lights is set there.\n",
        "dunmore.md": "# Dunmore\n\nDunmore is a market town in northern Aster province.\n",
        "kell.md": "# Kell\n\nKell is a village in Bray province, on the coast of the United States.\n",
        "the-quay.md": "# The Quay\n\nThe Quay is a radio drama. The Quay was first broadcast by Radio Mercia in 1990.\n",
    }
    for name, text in notes.items():
        (kb.raw / name).write_text(text, encoding="utf-8")
    api.compile_kb(kb, "heuristic")
    ensure_indexes(kb.db_path)
    return kb


@pytest.mark.parametrize("question", ["Mira Holt is a character from a radio drama created by who?",
                                      "In what year was the radio drama Mira Holt is from created?"])
def test_the_second_hop_answers_through_the_entity_the_first_claim_names(two_hop: KnowledgeBase, question: str) -> None:
    # the claim about Mira Holt names Harbour Lights but says nothing of its creation; the claim about
    # Harbour Lights says who created it and when, but names neither Mira Holt nor a character
    answer = extractive_answer(navigate(two_hop, question, 2000))
    first = answer.claims[0]
    assert first.answers and first.subject == "harbour-lights" and "Edith Crane in 1986" in first.text
    assert "None of the claims found" not in answer.text


def test_second_hop_sources_move_up_to_a_rank_and_keep_the_rest_in_order() -> None:
    from kg.retrieve.navigate import promoted

    ranked = ["a", "b", "c", "d", "e", "f", "g"]
    assert promoted(ranked, ["g", "f"], 4) == ["a", "b", "c", "g", "f", "d", "e"]
    assert promoted(ranked, ["b", "f"], 4) == ["a", "b", "c", "f", "d", "e", "g"]  # "b" is ranked better already
    assert promoted(ranked, ["x"], 2) == ["a", "x", "b", "c", "d", "e", "f", "g"]  # not ranked at all before


def test_names_spotted_in_a_claim_start_with_a_capital(compiled: KnowledgeBase) -> None:
    with Store(compiled.db_path, read_only=True) as store:
        navigator = Navigator(store)
        assert "eniac" in navigator.context.names_in("the eniac was big")
        assert "eniac" not in navigator.context.names_in("the eniac was big", capitalised=True)
        assert "eniac" in navigator.context.names_in("The ENIAC was big", capitalised=True)


def test_the_page_of_a_thing_the_question_names_opens_a_first_hop(two_hop: KnowledgeBase) -> None:
    # "The role that made her famous was Mira Holt in Harbour Lights" shares no word with the question,
    # but it is on Ada Finch's page, which the question names
    answer = extractive_answer(navigate(two_hop, "Ada Finch starred in a drama first broadcast by which station?", 2000))
    first = answer.claims[0]
    assert first.answers and first.subject == "harbour-lights" and "Radio Anglia" in first.text
    assert not any(c.answers for c in answer.claims if "Radio Mercia" in c.text)  # a drama she was not in


def test_a_both_question_reads_what_each_things_own_page_defines_it_as(two_hop: KnowledgeBase) -> None:
    # the page "Ben Gray" defines "Benjamin Arthur Gray", which the extractor keeps apart from the
    # "Ben Gray" the question names (and Tom Holt's page mentions)
    nav = navigate(two_hop, "Are Ben Gray and Ada Finch both radio actors?", 2000)
    assert nav.verdict is not None and nav.verdict.answer == "yes"
    assert [c.name for c in nav.verdict.compared] == ["Ben Gray", "Ada Finch"]
    assert extractive_answer(nav).text.startswith("**Yes**, as far as the wiki says")
    no = navigate(two_hop, "Are Ben Gray and Ada Finch both radio writers?", 2000).verdict
    assert no is not None and no.answer == "no"


def test_a_same_question_compares_the_value_each_things_claims_give(two_hop: KnowledgeBase) -> None:
    yes = navigate(two_hop, "Are Port Ellis and Dunmore in the same province?", 2000)
    assert yes.verdict is not None and yes.shape == "same"
    assert (yes.verdict.answer, [c.value for c in yes.verdict.compared], yes.verdict.prop) == ("yes", ["Aster", "Aster"], ("province",))
    assert extractive_answer(yes).text.startswith("**Yes**, as far as the wiki says: the province of each: Port Ellis: Aster [")
    no = navigate(two_hop, "Are Dunmore and Kell in the same province?", 2000)
    assert no.verdict is not None and (no.verdict.answer, [c.value for c in no.verdict.compared]) == ("no", ["Aster", "Bray"])
    assert navigate(two_hop, "Are Dunmore and Kell in the same state?", 2000).verdict is None  # "United States" is no state


def test_a_long_sources_claims_are_read_only_about_the_reached_entities(tmp_path) -> None:
    """A book-length source gives the navigator its claims about the entities a question reached, not
    all of them (a short source gives all)."""
    from kg.kb import init

    kb, _ = init(tmp_path / "kb")
    towns = [f"Town{chr(65 + i // 26)}{chr(97 + i % 26)}" for i in range(120)]
    long_note = "# Atlas\n\n" + "\n\n".join(
        f"{town} is a town in the province of Aster. {town} was founded in {1800 + i} by settlers from Port Ellis. "
        f"The market of {town} sells wool, fish and salt to the villages around it every week of the year."
        for i, town in enumerate(towns)) + "\n"
    (kb.raw / "atlas.md").write_text(long_note, encoding="utf-8")
    (kb.raw / "port-ellis.md").write_text("# Port Ellis\n\nPort Ellis is a fishing town. It has a harbour.\n",
                                          encoding="utf-8")
    api.compile_kb(kb, "heuristic")
    with Store(kb.db_path, read_only=True) as store:
        navigator = Navigator(store)
        from kg.names import name_key

        reached = set(navigator.context.names()[name_key("TownAa")])
        rows = navigator.context.candidate_source_claims(["atlas.md", "port-ellis.md"], reached)
    assert rows["atlas.md"] and all(r["eid"] in reached for r in rows["atlas.md"])
    assert len(rows["atlas.md"]) < 10  # of the atlas's 360 claims, those about TownAa
    assert {r["eid"] for r in rows["port-ellis.md"]} >= {None} and len(rows["port-ellis.md"]) >= 2


@pytest.mark.parametrize("question, budget, message", [("   ", "2000", "question is empty"),
                                                      (QUESTION, "0", "between 200 and 50,000")])
def test_cli_query_refuses_a_blank_question_or_a_budget_out_of_range(fresh: KnowledgeBase, question: str,
                                                                      budget: str, message: str) -> None:
    """As kg mcp and kg serve do: nothing is answered, and --save files no empty answer page."""
    result = CliRunner().invoke(app, ["query", question, "--budget", budget, "--save", "--mode", "bm25",
                                      "--kb", str(fresh.root)])
    assert result.exit_code == 1 and message in result.stderr
    assert not (fresh.wiki / "answers").exists() or not list((fresh.wiki / "answers").iterdir())

"""The LLM judges (kg/llm/judges.py) against the loopback fakes, through the real clients."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes_llm import (
    FakeAnthropic,
    FakeOpenAI,
    Recorded,
    Reply,
    heuristic_reply,
    is_judge_request,
    judge_pairs,
    judge_reply,
)

from kg import api
from kg.cache import ResponseCache
from kg.compile.contradict import ClaimRecord, RuleJudge
from kg.compile.groups import regroup
from kg.compile.resolve import entity_id
from kg.config import Config, LlmConfig
from kg.graph.store import Store, WriteBatch
from kg.kb import KnowledgeBase
from kg.llm.anthropic_api import AnthropicClient
from kg.llm.backends import make_entity_judge, make_judge
from kg.llm.judges import CombinedJudge, LlmContradictionJudge, LlmEntityJudge
from kg.llm.ledger import Ledger, run_ledger
from kg.llm.openai_api import OpenAIClient
from kg.llm.prompts import get_prompt
from kg.models import ContradictionVerdicts
from kg.names import name_key

KEY = "sk-ant-test-key"
FAST = {"timeout_seconds": 2, "backoff_seconds": 0.001, "max_retries": 1, "validation_retries": 2}

A_NOTE = """# Eiffel Tower

The Eiffel Tower is located in Paris. The Eiffel Tower was designed by Gustave Eiffel.
Tommy Flowers built Colossus. Konrad Zuse built the Z1.
"""
B_NOTE = """# Towers

The Eiffel Tower is located in Rome. The Eiffel Tower was designed by Maurice Koechlin.
Thomas Flowers built Colossus. Konrad Zuse Jr built the Z3.
"""


def verdicts(body: dict[str, Any]) -> dict[str, Any]:
    """A scripted model: Rome contradicts, Koechlin is unsure; Thomas Flowers is Tommy Flowers,
    Konrad Zuse Jr is not Konrad Zuse."""
    def contradiction(text: str) -> str:
        return "contradicts" if "Rome" in text and "Paris" in text else "unsure" if "Koechlin" in text else "compatible"

    def entity(text: str) -> str:
        return "same" if "Thomas Flowers" in text else "different"

    entity_question = "same entity" in json.dumps(body)
    return judge_reply(body, entity if entity_question else contradiction)


def scripted(body: dict[str, Any]) -> dict[str, Any]:
    return verdicts(body) if is_judge_request(body) else heuristic_reply(body)


def judge_calls(server: FakeAnthropic | FakeOpenAI, tool: str | None = None) -> list[Recorded]:
    calls = [r for r in server.requests if isinstance(r.body, dict) and is_judge_request(r.body)]
    return [r for r in calls if tool is None or r.body["tools"][0]["name"] == tool]


@pytest.fixture
def claude_kb(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[KnowledgeBase, FakeAnthropic]]:
    kb.config_path.write_text('[compile]\nextractor = "anthropic"\n\n[llm]\nmodel = "claude-haiku-4-5"\n'
                              "timeout_seconds = 2\nbackoff_seconds = 0.001\nmax_retries = 1\n", encoding="utf-8")
    (kb.raw / "a.md").write_text(A_NOTE, encoding="utf-8")
    (kb.raw / "b.md").write_text(B_NOTE, encoding="utf-8")
    with FakeAnthropic(responder=scripted) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        yield kb, server


def claude(server: FakeAnthropic, **cfg: object) -> AnthropicClient:
    config = LlmConfig(base_url=server.url, model="claude-haiku-4-5", **{**FAST, **cfg})  # type: ignore[arg-type]
    return AnthropicClient(config, Ledger(), env={"ANTHROPIC_API_KEY": KEY})


def record(cid: str, text: str, source: str = "a.md") -> ClaimRecord:
    return ClaimRecord(id=cid, text=text, subject="s", predicate="p", claim_type="fact", polarity=1, object="",
                       confidence=0.9, sources=(source,))


PAIRS = [
    (record("c1", "The Eiffel Tower is located in Paris."), record("c2", "The Eiffel Tower is located in Rome.", "b.md")),
    (record("c3", "The tower was designed by Gustave Eiffel."), record("c4", "The tower was designed by Maurice Koechlin.")),
    (record("c5", "Colossus was built at Bletchley Park."), record("c6", "Colossus was a codebreaking computer.")),
]


# compile, end to end --------------------------------------------------------------------------


def test_compile_records_llm_contradictions_and_merges(claude_kb: tuple[KnowledgeBase, FakeAnthropic]) -> None:
    kb, server = claude_kb
    report, _ = api.compile_kb(kb)
    assert report.compiled == 2 and not report.failed
    edges = api.cypher(kb, "MATCH (a:Claim)-[x:CONTRADICTS]->(b:Claim) RETURN a.text AS a, b.text AS b, "
                           "x.method AS method, x.reason AS reason, x.confidence AS confidence")
    llm = [e for e in edges if e["method"] == "llm"]
    assert [sorted((e["a"], e["b"])) for e in llm] == [
        ["The Eiffel Tower is located in Paris.", "The Eiffel Tower is located in Rome."]]
    assert llm[0]["reason"] == "fake verdict" and llm[0]["confidence"] == pytest.approx(0.9)
    assert not [e for e in edges if "Koechlin" in e["a"] + e["b"]]  # "unsure" is never recorded

    asked = judge_calls(server, "ContradictionVerdicts")
    assert asked and all(r.body["model"] == "claude-haiku-4-5" for r in asked)
    body = asked[0].body
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["system"][0]["text"] == get_prompt("contradict").render_with(pairs=[]).system
    assert body["tool_choice"]["name"] == "ContradictionVerdicts"
    assert set(body["tools"][0]["input_schema"]["properties"]) == {"verdicts"}
    texts = [text for r in asked for _, text in judge_pairs(r.body)]
    assert any("Source of A: a.md" in t and "Source of B: b.md" in t for t in texts)

    aliases = api.cypher(kb, "MATCH (a:Entity)-[x:ALIAS_OF]->(b:Entity) RETURN a.name AS a, b.name AS b, "
                             "x.method AS method, x.score AS score")
    assert {(r["a"], r["b"], r["method"]) for r in aliases} == {("Tommy Flowers", "Thomas Flowers", "llm")}  # a tie: smallest id
    names = {r["name"] for r in api.cypher(kb, "MATCH (e:Entity) RETURN e.name AS name")}
    assert {"Konrad Zuse", "Konrad Zuse Jr"} <= names  # "different": kept apart, no edge
    assert judge_calls(server, "EntityVerdicts")
    assert run_ledger().total.requests == len(server.requests)  # the judges' calls are in the ledger

    # A lost graph is rebuilt from the reply cache: extraction and both judges make zero requests.
    before = len(server.requests)
    (kb.state / "graph.kuzu").unlink()
    api.compile_kb(kb)
    assert len(server.requests) == before
    again = api.cypher(kb, "MATCH (a:Claim)-[x:CONTRADICTS]->(b:Claim) WHERE x.method = 'llm' RETURN count(*) AS n")
    assert again == [{"n": 1}]


def test_offline_backend_gets_rules_and_no_entity_judge() -> None:
    config = Config()
    assert isinstance(make_judge(config, "heuristic", None), RuleJudge)
    assert make_entity_judge(config, "heuristic", None) is None


def test_make_judge_for_an_llm_backend() -> None:
    env = {"ANTHROPIC_API_KEY": KEY}
    judge = make_judge(Config(), "anthropic", None, env=env)
    assert isinstance(judge, CombinedJudge) and isinstance(judge.llm, LlmContradictionJudge)
    assert isinstance(make_entity_judge(Config(), "anthropic", None, env=env), LlmEntityJudge)
    off = Config.from_dict({"llm": {"judges": False}})
    assert isinstance(make_judge(off, "anthropic", None, env=env), RuleJudge)
    assert make_entity_judge(off, "anthropic", None, env=env) is None


# the contradiction judge ----------------------------------------------------------------------


def test_verdicts_unsure_and_what_was_sent() -> None:
    with FakeAnthropic(responder=verdicts) as server:
        judge = LlmContradictionJudge(claude(server))
        found = judge.judge(PAIRS)
        assert [f and (f.a, f.b, f.method) for f in found] == [("c1", "c2", "llm"), None, None]
        [req] = server.requests
        assert req.body["model"] == "claude-haiku-4-5"
        assert [n for n, _ in judge_pairs(req.body)] == [1, 2, 3]
        assert judge.asker.client.ledger.total.requests == 1


def test_invalid_pair_number_is_reasked() -> None:
    with FakeAnthropic(responder=verdicts) as server:
        bad = {"verdicts": [{"pair": 1, "verdict": "contradicts", "reason": "x", "confidence": 0.9},
                            {"pair": 7, "verdict": "contradicts", "reason": "y", "confidence": 0.9}]}
        server.script.append(Reply(content=bad))
        found = LlmContradictionJudge(claude(server)).judge(PAIRS)
        assert [f is not None for f in found] == [True, False, False]
        assert len(server.requests) == 2
        reask = json.dumps(server.requests[1].body["messages"])
        assert "[7] were not asked about" in reask


def test_invalid_numbers_every_time_fail_softly() -> None:
    with FakeAnthropic() as server:
        server.script += [Reply(content={"verdicts": [{"pair": 9, "verdict": "contradicts"}]})] * 3
        judge = LlmContradictionJudge(claude(server, validation_retries=2))
        assert judge.judge(PAIRS[:1]) == [None]  # unsure; the compile goes on
        assert len(server.requests) == 3 and len(judge.asker.failures) == 1
        assert "contradict judge, 1 pair(s) by anthropic:claude-haiku-4-5 failed" in judge.asker.failures[0]


def test_batches_and_cache_hit_makes_zero_requests() -> None:
    pairs = [(record(f"a{i}", f"Machine {i} weighed {i} tons."), record(f"b{i}", f"Machine {i} weighed {i + 1} tons."))
             for i in range(45)]
    cache = ResponseCache(None)
    with FakeAnthropic(responder=verdicts) as server:
        first = LlmContradictionJudge(claude(server), cache, batch_size=20).judge(pairs)
        assert sorted(len(judge_pairs(r.body)) for r in server.requests) == [5, 20, 20]  # 4 at a time
        again = LlmContradictionJudge(claude(server), cache, batch_size=20)
        assert again.judge(pairs) == first and len(server.requests) == 3
        assert again.asker.requests == 0 and again.asker.client.ledger.total.requests == 0
        # A new pair among known ones: only it is asked.
        more = [*pairs, PAIRS[0]]
        assert again.judge(more)[-1] is not None and len(server.requests) == 4
        assert len(judge_pairs(server.requests[-1].body)) == 1


def test_prompt_edit_changes_the_cache_key() -> None:
    cache = ResponseCache(None)
    prompt = get_prompt("contradict")
    edited = type(prompt)(prompt.name, prompt.filename, prompt.text + "\n", prompt.response_model)
    assert edited.version != prompt.version
    with FakeAnthropic(responder=verdicts) as server:
        LlmContradictionJudge(claude(server), cache).judge(PAIRS)
        LlmContradictionJudge(claude(server), cache, prompt=edited).judge(PAIRS)
        assert len(server.requests) == 2


def test_combined_judge_confirms_every_candidate_and_its_verdict_decides() -> None:
    rule_pair = (record("r1", "Aspirin increases the risk of bleeding in adults."),
                 record("r2", "Aspirin decreases the risk of bleeding in adults.", "b.md"))
    unsure_rule = (record("r3", "Koechlin drew the tower with increased height."),
                   record("r4", "Koechlin drew the tower with decreased height.", "b.md"))
    unrelated = (record("u1", "The moon orbits the earth."), record("u2", "Paris hosts the Louvre museum."))
    with FakeAnthropic(responder=verdicts) as server:
        combined = CombinedJudge(LlmContradictionJudge(claude(server)))
        found = combined.judge([rule_pair, PAIRS[0], unsure_rule, unrelated])
        # "compatible" overrules the rules; "contradicts" finds; "unsure" leaves the rules' finding
        assert [f and f.method for f in found] == [None, "llm", "rules", None]
        assert combined.asked == 3
        [req] = server.requests
        assert [n for n, _ in judge_pairs(req.body)] == [1, 2, 3] and "Rome" in req.body["messages"][0]["content"]


def test_openai_judge_is_held_to_its_schema() -> None:
    with FakeOpenAI(responder=verdicts) as server:
        server.script.append(Reply(content="<think>hmm</think>```json\n" + json.dumps(
            judge_reply({"messages": [{"role": "user", "content": "<pair number=\"1\">\nRome\n</pair>"}]},
                        lambda t: "contradicts")) + "\n```"))
        config = LlmConfig(provider="openai", model="qwen3:4b", base_url=server.url + "/v1", **FAST)  # type: ignore[arg-type]
        judge = LlmContradictionJudge(OpenAIClient(config, Ledger(), env={}))
        found = judge.judge(PAIRS[:1])
        assert found[0] is not None and found[0].method == "llm"
        [req] = server.requests
        assert req.body["model"] == "qwen3:4b" and req.body["response_format"]["type"] == "json_schema"
        assert req.body["response_format"]["json_schema"]["schema"]["required"] == ["verdicts"]
        system = req.body["messages"][0]["content"]
        assert '"verdicts"' in system  # the schema is in the prompt too (a grammar is not shown to the model)


def test_reply_model_rejects_unknown_and_repeated_numbers() -> None:
    ok = ContradictionVerdicts.model_validate({"verdicts": [{"pair": 2, "verdict": "unsure", "confidence": 7}]},
                                              context={"pairs": [1, 2]})
    assert ok.verdicts[0].confidence == 1.0
    with pytest.raises(ValueError, match="not asked about"):
        ContradictionVerdicts.model_validate({"verdicts": [{"pair": 3, "verdict": "unsure"}]}, context={"pairs": [1, 2]})
    with pytest.raises(ValueError, match="once"):
        ContradictionVerdicts.model_validate({"verdicts": [{"pair": 1, "verdict": "unsure"}] * 2}, context={"pairs": [1]})


# the entity judge -----------------------------------------------------------------------------


def graph_with(path: Path, *names: tuple[str, str]) -> Store:
    """A graph where one source names each of `names` (name, type), as a compile writes them."""
    store = Store(path)
    batch = WriteBatch()
    batch.add("Source", {"path": "a.md", "slug": "a", "sha256": "x", "title": "A", "kind": "markdown", "bytes": 1,
                         "authority": 0, "status": "compiled", "chunks": 1, "unverified": 0})
    for name, type_ in names:
        key = name_key(name)
        batch.add("Entity", {"id": entity_id(key), "key": key, "name": name, "type": type_, "aliases": [],
                             "status": "live"})
        batch.relate("MENTIONS", {"src": "a.md", "dst": entity_id(key), "count": 1, "name": name, "type": type_,
                                  "description": "", "aliases": [], "role": "name"})
    store.write(batch)
    return store


def grouped(store: Store, judge: LlmEntityJudge | None) -> set[tuple[str, str, str, float]]:
    """Regroup every entity; the ALIAS_OF edges that gives (alias, canonical, method, score)."""
    ids = [r["id"] for r in store.query("MATCH (e:Entity) RETURN e.id AS id")]
    batch, _ = regroup(store, ids, judge)
    store.write(batch)
    return {(r["a"], r["b"], r["m"], r["s"]) for r in store.query(
        "MATCH (x:Entity)-[e:ALIAS_OF]->(y:Entity) RETURN x.id AS a, y.id AS b, e.method AS m, e.score AS s")}


def entity_server(verdict: Callable[[str], str]) -> FakeAnthropic:
    return FakeAnthropic(responder=lambda body: judge_reply(body, verdict))


NAMES = (("Tommy Flowers", "person"), ("Konrad Zuse", "person"), ("Thomas Flowers", "person"),
         ("Konrad Zuse Jr", "person"))


def test_entity_same_merges_with_method_llm_and_different_stays_apart(tmp_path: Path) -> None:
    with entity_server(lambda text: "same" if "Thomas" in text else "different") as server, \
            graph_with(tmp_path / "g.kuzu", *NAMES) as store:
        # ambiguous pairs only (similarity 0.8-0.92), all in one request; the canonical of a group
        # is the entity most sources name, then the smallest id
        assert grouped(store, LlmEntityJudge(claude(server))) == {("tommy-flowers", "thomas-flowers", "llm", 0.9)}
        bodies = [r.body for r in server.requests]
        assert [b["tools"][0]["name"] for b in bodies] == ["EntityVerdicts"]
        assert len(judge_pairs(bodies[0])) == 2 and "(type: person)" in bodies[0]["messages"][0]["content"]
        assert bodies[0]["system"][0]["cache_control"] == {"type": "ephemeral"}


def test_entity_unsure_and_no_judge_change_nothing(tmp_path: Path) -> None:
    with entity_server(lambda text: "unsure") as server, graph_with(tmp_path / "a.kuzu", *NAMES) as store:
        assert grouped(store, LlmEntityJudge(claude(server))) == set() and len(server.requests) == 1
    with graph_with(tmp_path / "b.kuzu", *NAMES) as store:
        assert grouped(store, None) == set()


def test_entity_verdicts_come_from_the_cache_the_second_time(tmp_path: Path) -> None:
    cache = ResponseCache(None)
    with entity_server(lambda text: "same" if "Thomas" in text else "different") as server:
        with graph_with(tmp_path / "a.kuzu", *NAMES) as store:
            first = grouped(store, LlmEntityJudge(claude(server), cache))
        with graph_with(tmp_path / "b.kuzu", *reversed(NAMES)) as store:
            assert grouped(store, LlmEntityJudge(claude(server), cache)) == first  # in any order
        assert len(server.requests) == 1

"""Synthesised answers through the one LLM client (kg/llm/client.py), against the loopback fakes:
the versioned `answer` prompt, kg's retry policy and ledger, and citations of given claim ids only."""

from __future__ import annotations

import json

import pytest
from fakes_llm import FakeAnthropic, FakeOpenAI, Reply, approx_tokens

from kg import api
from kg.config import Config, LlmConfig
from kg.errors import KgError
from kg.kb import KnowledgeBase
from kg.llm.anthropic_api import AnthropicClient
from kg.llm.ledger import Ledger, run_ledger
from kg.llm.openai_api import OpenAIClient
from kg.llm.prompts import get_prompt
from kg.models import SynthesisedAnswer
from kg.retrieve.answer import AnswerFailed, llm_answer, make_answer_client
from kg.retrieve.navigate import ClaimRef, NavigationResult, navigate

KEY = "sk-ant-test-SECRET-456"
FAST = {"timeout_seconds": 5, "backoff_seconds": 0.001, "max_retries": 2, "validation_retries": 2}
QUESTION = "How many vacuum tubes did ENIAC use?"
TUBES = ClaimRef("c1111111111111111", "ENIAC used 17,468 vacuum tubes.", 0.9, "eniac", "ENIAC", 1.0, entities=["eniac"])
WEIGHT = ClaimRef("c2222222222222222", "ENIAC weighed 27 tons.", 0.9, "eniac", "ENIAC", 0.5, entities=["eniac"])
NAV = NavigationResult(QUESTION, 1000, ["entities/eniac"], ["eniac.md"], [TUBES, WEIGHT], 42)
UNKNOWN = "cdeadbeefdeadbeef"


def claude(server: FakeAnthropic, ledger: Ledger | None = None, **cfg: object) -> AnthropicClient:
    config = LlmConfig(base_url=server.url, model="claude-haiku-4-5", **{**FAST, **cfg})  # type: ignore[arg-type]
    return AnthropicClient(config, ledger or Ledger(), env={"ANTHROPIC_API_KEY": KEY})


def test_answer_prompt_is_registered_with_its_reply_model() -> None:
    prompt = get_prompt("answer")
    assert prompt.response_model is SynthesisedAnswer and prompt.version.startswith("answer_v1-")
    user = prompt.render_with(question=QUESTION, claims=[{"id": TUBES.id, "about": "ENIAC", "text": TUBES.text}]).user
    assert user == f"Question: {QUESTION}\n\nClaims:\n- [{TUBES.id}] (about ENIAC) {TUBES.text}"
    ok = SynthesisedAnswer.model_validate({"answer": "x", "claim_ids": [TUBES.id, TUBES.id]}, context={"claim_ids": [TUBES.id]})
    assert ok.claim_ids == [TUBES.id]
    with pytest.raises(ValueError, match="unknown claim ids"):
        SynthesisedAnswer.model_validate({"answer": "x", "claim_ids": [UNKNOWN]}, context={"claim_ids": [TUBES.id]})


def test_answer_is_retried_after_a_529_and_recorded_in_the_ledger() -> None:
    ledger = Ledger()
    content = {"answer": f"ENIAC used 17,468 vacuum tubes [{TUBES.id}].", "claim_ids": [TUBES.id]}
    with FakeAnthropic() as server:
        server.script += [Reply(status=529), Reply(content=content)]
        client = claude(server, ledger)
        answer = llm_answer(NAV, client, client.model, "anthropic", max_retries=2)
        first, second = server.calls("/v1/messages")
    assert first.body == second.body  # the SDK's retry: the same request again
    body = second.body
    assert body["model"] == "claude-haiku-4-5" and body["max_tokens"] == 2048
    assert body["system"] == [{"type": "text", "text": get_prompt("answer").render_with(question="", claims=[]).system,
                               "cache_control": {"type": "ephemeral"}}]
    assert body["tools"][0]["name"] == "SynthesisedAnswer" and body["tool_choice"]["name"] == "SynthesisedAnswer"
    user = body["messages"][0]["content"]
    assert QUESTION in user and f"[{TUBES.id}] (about ENIAC)" in user and f"[{WEIGHT.id}]" in user
    total = ledger.total
    assert total.requests == 2  # the failed attempt counts as a request too
    assert total.output_tokens == approx_tokens(content) and total.input_tokens + total.cache_write_tokens > 0
    assert answer.mode == "llm" and answer.model == "claude-haiku-4-5"
    assert answer.text == "ENIAC used 17,468 vacuum tubes [1]." and [c.id for c in answer.claims] == [TUBES.id]
    assert answer.usage["output_tokens"] == approx_tokens(content)


def test_answer_cites_only_given_claim_ids() -> None:
    bad = {"answer": f"It used 18,000 tubes [{UNKNOWN}].", "claim_ids": [UNKNOWN]}
    good = {"answer": f"It used 17,468 tubes [{TUBES.id}] and weighed 27 tons [{WEIGHT.id}] [{UNKNOWN}].",
            "claim_ids": [TUBES.id]}
    with FakeAnthropic() as server:
        server.script += [Reply(content=bad), Reply(content=good)]
        client = claude(server)
        answer = llm_answer(NAV, client)
        reask = json.dumps(server.calls("/v1/messages")[1].body["messages"])
    assert "unknown claim ids" in reask and UNKNOWN in reask  # the error went back to the model
    assert [c.id for c in answer.claims] == [TUBES.id, WEIGHT.id]  # listed, then cited inline; never the unknown id
    assert {c.id for c in answer.claims} <= {c.id for c in NAV.claims}
    assert answer.text == "It used 17,468 tubes [1] and weighed 27 tons [2] ."
    assert client.ledger.total.requests == 2


def test_persistent_failure_is_a_clear_error() -> None:
    with FakeAnthropic() as server:
        server.script += [Reply(status=529)] * 5
        client = claude(server)
        with pytest.raises(AnswerFailed) as info:
            llm_answer(NAV, client)
        assert len(server.calls("/v1/messages")) == 3  # max_retries = 2
    assert isinstance(info.value, KgError)  # printed by the CLI without a traceback
    message = str(info.value)
    assert "The LLM answer by anthropic:claude-haiku-4-5 failed after 3 attempt(s): HTTP 529" in message
    assert "--offline" in message and KEY not in message
    assert client.ledger.total.requests == 3


def test_openai_answer_in_json_mode() -> None:
    content = json.dumps({"answer": f"17,468 [{TUBES.id}]", "claim_ids": [TUBES.id]})
    with FakeOpenAI() as server:
        server.script.append(Reply(content=f"<think>the tubes</think>\n```json\n{content}\n```"))
        config = LlmConfig(provider="openai", model="qwen3:4b", base_url=server.url + "/v1", **FAST)  # type: ignore[arg-type]
        client = OpenAIClient(config, Ledger(), env={})
        answer = llm_answer(NAV, client, "qwen3:4b", "openai")
        [req] = server.requests
    assert answer.text == "17,468 [1]" and [c.id for c in answer.claims] == [TUBES.id]
    assert req.body["response_format"]["type"] == "json_schema" and req.body["max_tokens"] == 2048
    assert req.body["response_format"]["json_schema"]["schema"]["required"] == ["answer", "claim_ids"]
    assert req.body["messages"][0]["content"].startswith(get_prompt("answer").render_with(question="", claims=[]).system)
    assert client.ledger.total.requests == 1 and client.ledger.total.input_tokens > 0


def test_answer_client_is_the_one_llm_client() -> None:
    client, model = make_answer_client(Config(), "anthropic", env={"ANTHROPIC_API_KEY": KEY})
    assert isinstance(client, AnthropicClient) and model == client.model == "claude-sonnet-4-6"
    with pytest.raises(ValueError, match="not the client's"):
        llm_answer(NAV, client, "another-model", "anthropic")


def test_query_retries_the_answer_and_records_it_in_the_run_ledger(fresh: KnowledgeBase,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """kg query through kg.api, as a user runs it: a 529, then the answer, in the run's ledger."""
    fresh.config_path.write_text("[llm]\nbackoff_seconds = 0.001\nmax_retries = 2\ntimeout_seconds = 5\n", encoding="utf-8")
    nav = navigate(fresh, QUESTION, 1000)
    eniac = next(c for c in nav.claims if "17,468" in c.text)
    with FakeAnthropic() as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        server.script += [Reply(status=529),
                          Reply(content={"answer": f"17,468 tubes [{eniac.id}].", "claim_ids": [eniac.id]})]
        answer = api.query_kb(fresh, QUESTION, 1000, embedder="hashing").answer
        assert len(server.calls("/v1/messages")) == 2
    assert answer.mode == "llm" and [c.id for c in answer.claims] == [eniac.id]
    assert run_ledger().total.requests == 2 and run_ledger().total.output_tokens > 0
    saved = json.loads(fresh.ledger_path.read_text(encoding="utf-8"))  # `kg status` shows what it cost
    assert saved["last_run"]["requests"] == 2

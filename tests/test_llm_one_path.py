"""Both providers' structured replies go through one path, `LlmClient.ask` (issue 48): the same
cases against both loopback fakes (tests/fakes_llm.py), through the real SDK clients. The SDKs
retry transport failures (Retry-After honoured); the ledger counts every attempt."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fakes_llm import FakeAnthropic, FakeOpenAI, FakeServer, Reply, structured_mode

from kg.config import LlmConfig
from kg.llm.anthropic_api import AnthropicClient
from kg.llm.client import LlmCallFailed, LlmClient
from kg.llm.ledger import Ledger
from kg.llm.openai_api import OpenAIClient
from kg.llm.prompts import get_prompt
from kg.models import ExtractionResult

KEY = "sk-ant-test-SECRET-123"
TEXT = "ENIAC was built at the University of Pennsylvania. It weighed 27 tons."
PROMPT = get_prompt().render(TEXT, "ENIAC")
GOOD = {"entities": [{"name": "ENIAC", "type": "thing"}],
        "claims": [{"subject": "ENIAC", "claim_type": "quantity", "predicate": "weighed", "value": 27, "unit": "t",
                    "text": "ENIAC weighed 27 tons.", "quotes": ["It weighed 27 tons."], "confidence": 0.95}]}
BAD = {"entities": [], "claims": GOOD["claims"]}  # the claim names an entity that is not listed
FAST = {"timeout_seconds": 5, "max_retries": 2, "validation_retries": 2}
PROVIDERS = ("anthropic", "openai")


@pytest.fixture(params=PROVIDERS)
def server(request: pytest.FixtureRequest) -> Iterator[FakeServer]:
    with (FakeAnthropic() if request.param == "anthropic" else FakeOpenAI()) as fake:
        yield fake


def client_of(server: FakeServer, **cfg: Any) -> LlmClient:
    if isinstance(server, FakeAnthropic):
        return AnthropicClient(LlmConfig(base_url=server.url, **{**FAST, **cfg}), Ledger(), env={"ANTHROPIC_API_KEY": KEY})
    config = LlmConfig(provider="openai", model="gemma-3-270m", base_url=server.url + "/v1", **{**FAST, **cfg})
    return OpenAIClient(config, Ledger(), env={})


def chat(server: FakeServer) -> list[Any]:
    return server.calls("/v1/messages") if isinstance(server, FakeAnthropic) else server.calls("/v1/chat/completions")


def empty_reply(server: FakeServer) -> Reply:
    """A reply with nothing in it: no content block (Anthropic), empty content (OpenAI)."""
    if isinstance(server, FakeOpenAI):
        return Reply(content="")
    return Reply(body={"id": "msg_empty", "type": "message", "role": "assistant", "model": "m", "content": [],
                       "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 0}})


def test_one_path_for_every_provider() -> None:
    assert AnthropicClient.ask is OpenAIClient.ask is LlmClient.ask
    assert AnthropicClient.call is OpenAIClient.call is LlmClient.call


def test_a_valid_reply(server: FakeServer) -> None:
    server.script.append(Reply(content=GOOD))
    client = client_of(server)
    reply = client.call(lambda: client.ask(PROMPT, ExtractionResult), "test")
    assert reply.claims[0].value == 27 and len(chat(server)) == 1
    assert client.ledger.total.requests == 1 and client.ledger.total.output_tokens == server.output_tokens > 0
    assert (client.ledger.replies, client.ledger.invalid_replies) == (1, 0)
    assert client.ledger.structured == {client.model: "tools" if isinstance(server, FakeAnthropic) else "json_schema"}


def test_an_invalid_reply_is_reasked_with_what_was_wrong(server: FakeServer) -> None:
    server.script += [Reply(content=BAD), Reply(content=GOOD)]
    client = client_of(server)
    reply = client.call(lambda: client.ask(PROMPT, ExtractionResult), "test")
    assert reply.entities[0].name == "ENIAC"
    first, second = chat(server)
    reask = second.body["messages"]
    assert reask[: len(first.body["messages"])] == first.body["messages"]  # the question, then the failed reply
    assert "not in `entities`" in json.dumps(reask[-1]) and "does not match the schema" in json.dumps(reask[-1])
    assert (client.ledger.total.requests, client.ledger.replies, client.ledger.invalid_replies) == (2, 2, 1)
    assert client.ledger.total.output_tokens == server.output_tokens  # the invalid reply's tokens too


def test_empty_replies_are_reasked_then_fail_clearly(server: FakeServer) -> None:
    server.script += [empty_reply(server), Reply(content=GOOD)]
    client = client_of(server)
    assert client.call(lambda: client.ask(PROMPT, ExtractionResult), "test").claims
    assert "(an empty reply)" in json.dumps(chat(server)[1].body["messages"])
    server.script += [empty_reply(server)] * 3
    with pytest.raises(LlmCallFailed) as info:
        client.call(lambda: client.ask(PROMPT, ExtractionResult), "test")
    assert info.value.reason == "unusable" and "empty replies" in str(info.value)
    assert len(chat(server)) == 5 and client.ledger.total.requests == 5


def test_a_429_is_retried_by_the_sdk_after_retry_after_and_counted(server: FakeServer,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    server.script += [Reply(status=429, headers={"retry-after": "0.3"}), Reply(content=GOOD)]
    client = client_of(server)
    started = time.monotonic()
    assert client.call(lambda: client.ask(PROMPT, ExtractionResult), "test").claims
    assert time.monotonic() - started >= 0.3  # the server's Retry-After, not the SDK's 0.5 s-ish backoff
    first, second = chat(server)
    assert first.body == second.body and client.ledger.total.requests == 2
    assert caplog.text.count("HTTP 429") == 1 and "the SDK retries it" in caplog.text  # said, as kg's retries were
    server.script += [Reply(status=429, headers={"retry-after": "0.01"})] * 3
    with pytest.raises(LlmCallFailed) as info:
        client.call(lambda: client.ask(PROMPT, ExtractionResult), "test")
    assert "failed after 3 attempt(s): HTTP 429" in str(info.value) and "busy" in str(info.value)
    assert client.ledger.total.requests == 5 and caplog.text.count("HTTP 429") == 3  # the last one is not retried


def test_a_server_that_rejects_json_schema_gets_the_next_form_at_once() -> None:
    """llama-cpp-python's server refuses json_schema with HTTP 500: the SDK would retry a 500, but a
    refusal of the form goes to the step-down at once (every request is still counted)."""
    with FakeOpenAI(accepts=("json_object+schema", "tools", "json")) as server:
        server.script.append(Reply(content=GOOD))  # a refusal consumes no scripted reply
        client = client_of(server)
        assert client.call(lambda: client.ask(PROMPT, ExtractionResult), "test").claims
        assert [structured_mode(r.body) for r in server.chat_calls()] == ["json_schema"] * 3 + ["json_object+schema"]
        assert client.ledger.total.requests == 4 and client.ledger.structured == {"gemma-3-270m": "json_object+schema"}
    with FakeOpenAI(accepts=("tools",), reject_status=422) as server:  # other servers refuse with a 4xx
        server.script.append(Reply(content=GOOD))
        client = client_of(server)
        assert client.call(lambda: client.ask(PROMPT, ExtractionResult), "test").claims
        assert [structured_mode(r.body) for r in server.chat_calls()] == ["json_schema"] * 3 + ["json_object+schema"] * 3 + ["tools"]


def test_anthropic_has_one_form_a_refused_request_is_not_retried() -> None:
    with FakeAnthropic() as server:
        server.script.append(Reply(status=400, body={"type": "error", "error": {"type": "invalid_request_error",
                                                                                "message": "tool_choice: bad"}}))
        client = client_of(server)
        with pytest.raises(LlmCallFailed, match="HTTP 400") as info:
            client.call(lambda: client.ask(PROMPT, ExtractionResult), "test")
        assert info.value.reason == "error" and len(server.requests) == 1

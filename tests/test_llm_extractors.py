"""LLM extraction (LlmExtractor over the LLM clients) against loopback fake servers, through the real
anthropic/openai SDK clients."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fakes_llm import FakeAnthropic, FakeOpenAI, Reply

from kg.cache import ResponseCache, content_key
from kg.config import Config, LlmConfig
from kg.errors import ConfigError, ExtractionError, SourceError
from kg.extract import ExtractionContext
from kg.llm.anthropic_api import AnthropicClient
from kg.llm.backends import make_extractor
from kg.llm.client import clean_reply
from kg.llm.extractor import ChunkExtractionFailed, LlmExtractor
from kg.llm.ledger import Ledger, estimate_tokens, price_for
from kg.llm.openai_api import OpenAIClient
from kg.llm.prompts import get_prompt
from kg.models import Chunk, ExtractionResult

KEY = "sk-ant-test-SECRET-123"
TEXT = "ENIAC was built at the University of Pennsylvania. It weighed 27 tons."
CHUNK = Chunk("eniac.md", 0, TEXT, 0, len(TEXT), ("ENIAC",))
CONTEXT = ExtractionContext("eniac.md", "ENIAC", known_entities=("University of Pennsylvania",))
GOOD = {"entities": [{"name": "ENIAC", "type": "thing"}],
        "claims": [{"subject": "ENIAC", "claim_type": "quantity", "predicate": "weighed", "value": 27, "unit": "t",
                    "text": "ENIAC weighed 27 tons.", "quotes": ["It weighed 27 tons."], "confidence": 0.95}]}
FAST = {"timeout_seconds": 0.5, "backoff_seconds": 0.001, "max_retries": 2, "validation_retries": 2}


@pytest.fixture
def anthropic_server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def claude(server: FakeAnthropic, cache: ResponseCache | None = None, **cfg: object) -> LlmExtractor:
    config = LlmConfig(base_url=server.url, **{**FAST, **cfg})  # type: ignore[arg-type]
    return LlmExtractor(AnthropicClient(config, Ledger(), env={"ANTHROPIC_API_KEY": KEY}), cache)


def local(server: FakeOpenAI, **cfg: object) -> LlmExtractor:
    config = LlmConfig(provider="openai", model="qwen3:4b", base_url=server.url + "/v1", **{**FAST, **cfg})  # type: ignore[arg-type]
    return LlmExtractor(OpenAIClient(config, Ledger(), env={}))


# anthropic -------------------------------------------------------------------------------


def test_valid_reply_and_what_was_sent(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script.append(Reply(content=GOOD))
    ex = claude(anthropic_server, model="claude-haiku-4-5")
    result = ex.extract_chunk(CHUNK, CONTEXT)
    assert [c.text for c in result.claims] == ["ENIAC weighed 27 tons."]
    [req] = anthropic_server.requests
    body = req.body
    assert req.path == "/v1/messages"
    assert body["model"] == "claude-haiku-4-5"
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["system"][0]["text"] == get_prompt().render("", "").system
    [tool] = body["tools"]
    assert tool["name"] == "ExtractionResult"
    assert set(tool["input_schema"]["properties"]) == {"entities", "claims"}
    assert body["tool_choice"]["type"] == "tool" and body["tool_choice"]["name"] == "ExtractionResult"
    user = body["messages"][0]["content"]
    assert TEXT in user and "Source title: ENIAC" in user and "University of Pennsylvania" in user
    assert ex.version.startswith("extract_v2-") and ex.version == get_prompt().version
    t = ex.client.ledger.total
    assert (t.requests, t.output_tokens) == (1, estimate_tokens(json.dumps(GOOD, separators=(",", ":"))))
    assert t.cache_write_tokens > 0 and t.input_tokens > 0


def test_prompt_cache_read_on_second_chunk(anthropic_server: FakeAnthropic) -> None:
    ex = claude(anthropic_server, timeout_seconds=10)  # a retried timeout would move the cache write
    ex.extract_chunk(CHUNK, CONTEXT)
    ex.extract_chunk(Chunk("x.md", 0, "The transistor was invented in 1947.", 0, 36), CONTEXT)
    t = ex.client.ledger.total
    assert t.cache_write_tokens == t.cache_read_tokens > 0
    assert ex.client.ledger.cost() > 0


def test_invalid_reply_is_reasked_with_the_error(anthropic_server: FakeAnthropic) -> None:
    bad = {"entities": [], "claims": GOOD["claims"]}  # claim names an entity not listed
    anthropic_server.script += [Reply(content=bad), Reply(content=GOOD)]
    ex = claude(anthropic_server)
    assert ex.extract_chunk(CHUNK, CONTEXT).entities[0].name == "ENIAC"
    assert len(anthropic_server.requests) == 2
    reask = json.dumps(anthropic_server.requests[1].body["messages"])
    assert "not in `entities`" in reask and "tool_result" in reask
    assert ex.client.ledger.total.requests == 2


def test_rate_limit_then_success(anthropic_server: FakeAnthropic) -> None:
    """The SDK retries (its own backoff, or the server's Retry-After); the ledger counts every attempt."""
    anthropic_server.script += [Reply(status=429, headers={"retry-after": "0.01"}), Reply(status=529)]
    ex = claude(anthropic_server)
    assert ex.extract_chunk(CHUNK, CONTEXT).claims
    assert len(anthropic_server.requests) == 3 and ex.client.ledger.total.requests == 3


def test_persistent_500_fails_clearly(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script += [Reply(status=500)] * 10
    ex = claude(anthropic_server, max_retries=2)
    with pytest.raises(ExtractionError) as info:
        ex.extract_chunk(CHUNK, CONTEXT)
    assert isinstance(info.value, SourceError)  # the compiler fails that source only
    message = str(info.value)
    assert "eniac.md" in message and "HTTP 500" in message and "after 3 attempt(s)" in message
    assert "Next:" in message and KEY not in message
    assert len(anthropic_server.requests) == 3


def test_client_error_is_not_retried(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script += [Reply(status=401)]
    with pytest.raises(ChunkExtractionFailed, match="API key"):
        claude(anthropic_server).extract_chunk(CHUNK, CONTEXT)
    assert len(anthropic_server.requests) == 1


def test_malformed_json_body_is_retried(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script += [Reply(body='{"id": "msg_1", "type": "mess')]
    assert claude(anthropic_server).extract_chunk(CHUNK, CONTEXT).claims
    assert len(anthropic_server.requests) == 2


def test_slow_reply_times_out_then_retries(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script += [Reply(delay=1.0)]
    ex = claude(anthropic_server, timeout_seconds=0.3)
    assert ex.extract_chunk(CHUNK, CONTEXT).claims
    assert len(anthropic_server.requests) == 2
    anthropic_server.script += [Reply(delay=1.0)] * 2
    with pytest.raises(ChunkExtractionFailed, match="APITimeoutError"):
        claude(anthropic_server, timeout_seconds=0.3, max_retries=1).extract_chunk(CHUNK, CONTEXT)


def test_cache_hit_makes_no_request_and_keeps_no_key(anthropic_server: FakeAnthropic) -> None:
    cache = ResponseCache(None)
    first = claude(anthropic_server, cache).extract([CHUNK], CONTEXT)
    again = claude(anthropic_server, cache)
    assert again.extract([CHUNK], CONTEXT) == first
    assert len(anthropic_server.requests) == 1 and again.client.ledger.cache_hits == 1
    stored = json.dumps([row for row in cache._db.execute("SELECT key, value FROM cache")])
    assert KEY not in stored and "SECRET" not in stored


def test_reply_cache_keys_are_unchanged(anthropic_server: FakeAnthropic, openai_server: FakeOpenAI) -> None:
    """Existing .kg/cache.sqlite files must keep hitting: content_key(provider, prompt version, model, chunk text)."""
    version = get_prompt("extract").version
    assert claude(anthropic_server).cache_key(CHUNK) == content_key("anthropic", version, "claude-sonnet-4-6", TEXT)
    assert claude(anthropic_server, model="claude-haiku-4-5").cache_key(CHUNK) == \
        content_key("anthropic", version, "claude-haiku-4-5", TEXT)
    assert local(openai_server).cache_key(CHUNK) == content_key("openai", version, "qwen3:4b", TEXT)
    assert (claude(anthropic_server).label, local(openai_server).label) == ("anthropic:claude-sonnet-4-6", "openai:qwen3:4b")


def test_concurrent_chunks_keep_their_order(anthropic_server: FakeAnthropic) -> None:
    texts = [f"Machine {n} weighed {n} tons." for n in range(6)]
    chunks = [Chunk("m.md", i, t, 0, len(t)) for i, t in enumerate(texts)]
    results = claude(anthropic_server, concurrency=3).extract(chunks, CONTEXT)
    assert [r.claims[0].quotes[0] for r in results] == texts


def test_missing_key_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        AnthropicClient(LlmConfig(), env={})


def test_base_url_from_environment(anthropic_server: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_server.url)
    ex = make_extractor(Config(), None, None, Ledger())  # auto -> anthropic, because the key is set
    assert isinstance(ex, LlmExtractor) and isinstance(ex.client, AnthropicClient)
    assert ex.extract_chunk(CHUNK, CONTEXT).claims and len(anthropic_server.requests) == 1


# openai-compatible -------------------------------------------------------------------------


def test_openai_sends_the_schema_and_tolerates_think_and_fences(openai_server: FakeOpenAI) -> None:
    openai_server.script += [Reply(content="<think>\nLet me see.\n</think>\n```json\n" + json.dumps(GOOD) + "\n```")]
    ex = local(openai_server)
    assert ex.extract_chunk(CHUNK, CONTEXT).claims[0].value == 27
    [req] = openai_server.requests
    assert req.path == "/v1/chat/completions"
    assert req.body["model"] == "qwen3:4b" and req.body["response_format"]["type"] == "json_schema"
    schema = req.body["response_format"]["json_schema"]["schema"]
    assert schema["properties"] == ExtractionResult.model_json_schema()["properties"]
    assert schema["required"] == ["entities", "claims"]  # a constrained server cannot answer {}
    assert req.body["chat_template_kwargs"] == {"enable_thinking": False} and req.body["reasoning_effort"] == "none"
    assert req.body["messages"][0]["role"] == "system" and '"ExtractedClaim"' in req.body["messages"][0]["content"]
    assert ex.client.ledger.total.input_tokens > 0 and ex.client.ledger.structured == {"qwen3:4b": "json_schema"}


def test_openai_empty_reply_retried_then_clear_failure(openai_server: FakeOpenAI) -> None:
    openai_server.script += [Reply(content=""), Reply(content=json.dumps(GOOD))]
    assert local(openai_server).extract_chunk(CHUNK, CONTEXT).claims
    openai_server.script += [Reply(content="")] * 3
    with pytest.raises(ChunkExtractionFailed, match="empty replies"):
        local(openai_server).extract_chunk(CHUNK, CONTEXT)
    assert len(openai_server.requests) == 5


def test_openai_malformed_json_then_valid(openai_server: FakeOpenAI) -> None:
    openai_server.script += [Reply(content='{"entities": [{"name": "ENIAC"'), Reply(content=json.dumps(GOOD))]
    assert local(openai_server).extract_chunk(CHUNK, CONTEXT).claims
    reask = openai_server.requests[1].body["messages"]
    assert reask[2] == {"role": "assistant", "content": '{"entities": [{"name": "ENIAC"'}
    assert "not valid JSON" in reask[3]["content"] and "does not match the schema" in reask[3]["content"]


def test_openai_needs_a_model() -> None:
    with pytest.raises(ConfigError, match="model"):
        OpenAIClient(LlmConfig(provider="openai"), env={})


def test_clean_reply() -> None:
    assert clean_reply("<think>x {y}</think> {\"a\": 1}") == '{"a": 1}'
    assert clean_reply("Sure! Here it is:\n```\n{\"a\": 1}\n```\nDone.") == '{"a": 1}'
    assert clean_reply(None) == ""


def test_prices() -> None:
    assert price_for("claude-sonnet-4-5-20250929").input == 3.0
    assert not price_for("qwen3:4b").known
    assert price_for("qwen3:4b", {"qwen3:4b": {"input": 0.1}}).input == 0.1
    with pytest.raises(ConfigError):
        Config.from_dict({"llm": {"bogus": 1}})
    assert Config.from_dict({"llm": {"prices": {"m": {"input": 1.0}}}}).llm.prices == {"m": {"input": 1.0}}


def test_anthropic_reply_cut_off_splits_the_chunk_and_is_paid_for(anthropic_server: FakeAnthropic) -> None:
    text = " ".join(f"Machine {i} weighed {i + 10} tons in {1940 + i}." for i in range(30))
    chunk = Chunk("m.md", 0, text, 0, len(text))
    anthropic_server.script.append(Reply(content={"entities": [{"name": "Machine 1"}]}, finish_reason="length"))
    ex = claude(anthropic_server, timeout_seconds=10)
    result = ex.extract_chunk(chunk, ExtractionContext("m.md", "Machines"))
    sent = anthropic_server.calls("/v1/messages")
    assert len(sent) == 3 and len(result.claims) >= 20  # the chunk, then its halves
    assert sent[0].body["max_tokens"] > max(r.body["max_tokens"] for r in sent[1:])
    assert ex.client.ledger.total.output_tokens == anthropic_server.output_tokens  # the cut-off reply's too

"""The openai provider holds replies to the schema (issue 33): the forms it sends, how it steps down
when a server refuses one and remembers what worked, cut-off replies, tokens of failed requests.
Against the loopback fake (tests/fakes_llm.py), through the real openai SDK."""

from __future__ import annotations

import json

import pytest
from fakes_llm import STRUCTURED_MODES, FakeOpenAI, Reply, request_schema, structured_mode
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.config import Config, LlmConfig
from kg.errors import ConfigError
from kg.extract import ExtractionContext
from kg.extract.heuristic import HeuristicExtractor
from kg.llm import openai_api
from kg.llm.client import ReplyCutOff
from kg.llm.extractor import ChunkExtractionFailed, LlmExtractor, halves, merge, reply_budget
from kg.llm.ledger import Ledger
from kg.llm.openai_api import OpenAIClient
from kg.llm.prompts import get_prompt
from kg.models import Chunk, ExtractionResult

TEXT = "ENIAC was built at the University of Pennsylvania. It weighed 27 tons."
CHUNK = Chunk("eniac.md", 0, TEXT, 0, len(TEXT), ("ENIAC",))
CONTEXT = ExtractionContext("eniac.md", "ENIAC")
GOOD = {"entities": [{"name": "ENIAC", "type": "thing"}],
        "claims": [{"subject": "ENIAC", "claim_type": "quantity", "predicate": "weighed", "value": 27, "unit": "t",
                    "text": "ENIAC weighed 27 tons.", "quotes": ["It weighed 27 tons."], "confidence": 0.95}]}
# a loopback fake answers at once; the time limit only bounds a hung test (2 s failed under load)
FAST = {"timeout_seconds": 15, "backoff_seconds": 0.001, "max_retries": 1, "validation_retries": 1}



def client(server: FakeOpenAI, ledger: Ledger | None = None, **cfg: object) -> OpenAIClient:
    config = LlmConfig(provider="openai", model="gemma-3-270m", base_url=server.url + "/v1", **{**FAST, **cfg})  # type: ignore[arg-type]
    return OpenAIClient(config, ledger or Ledger(), env={})


def modes(server: FakeOpenAI) -> list[str]:
    return [structured_mode(r.body) for r in server.chat_calls()]


def test_auto_steps_down_to_what_a_server_accepts_and_remembers_it() -> None:
    """llama-cpp-python's server refuses json_schema (HTTP 500, "validation error ... response_format")
    and takes json_object + schema."""
    with FakeOpenAI(accepts=("json_object+schema", "tools", "json")) as server:
        ledger = Ledger()
        reply, _ = client(server, ledger).ask(get_prompt().render(TEXT, "ENIAC"), ExtractionResult)
        assert reply.claims
        # json_schema with each set of thinking switches, then the llama-cpp-python form
        assert modes(server) == ["json_schema"] * 3 + ["json_object+schema"]
        assert ledger.structured == {"gemma-3-270m": "json_object+schema"} and ledger.total.requests == 4
        accepted = server.chat_calls()[-1].body
        assert accepted["chat_template_kwargs"] == {"enable_thinking": False}
        assert request_schema(accepted)["required"] == ["entities", "claims"]
        # remembered: a new client of the same server and model starts there
        client(server).ask(get_prompt().render(TEXT, "ENIAC"), ExtractionResult)
        assert modes(server)[4:] == ["json_object+schema"]


@pytest.mark.parametrize("accepts", [("tools", "json"), ("json",)])
def test_tools_and_bare_json_when_nothing_stronger_is_accepted(accepts: tuple[str, ...]) -> None:
    with FakeOpenAI(accepts=accepts) as server:
        ledger = Ledger()
        reply, _ = client(server, ledger).ask(get_prompt().render(TEXT, "ENIAC"), ExtractionResult)
        assert reply.claims  # tools: parsed from the tool call's arguments
        assert modes(server)[-1] == accepts[0] and ledger.structured == {"gemma-3-270m": accepts[0]}
        ledger.record("gemma-3-270m", ledger.total)  # active
        summary = ledger.summary()
        if accepts[0] == "json":
            assert ledger.unconstrained() == ["gemma-3-270m"] and "unconstrained" in summary and "bare JSON mode" in summary
        else:
            assert "held to the schema by tools" in summary


def test_a_setting_sends_only_its_forms_and_says_what_to_do_when_refused() -> None:
    with FakeOpenAI(accepts=("tools",)) as server:
        extractor = LlmExtractor(client(server, structured="json_schema"))
        with pytest.raises(ChunkExtractionFailed) as info:
            extractor.extract_chunk(CHUNK, CONTEXT)
        assert modes(server) == ["json_schema"] * 3 + ["json_object+schema"] * 3  # refused: not retried as busy
        assert "refused every form tried (json_schema, json_object+schema)" in str(info.value) and "HTTP 500" in str(info.value) and 'structured = "auto"' in str(info.value)
        assert info.value.reason == "error"
    with FakeOpenAI() as server:
        client(server, structured="tools").ask(get_prompt().render(TEXT, "ENIAC"), ExtractionResult)
        assert modes(server) == ["tools"]


def test_thinking_switches_are_dropped_when_refused_keeping_the_mode() -> None:
    with FakeOpenAI(thinking_switches=False) as server:
        client(server).ask(get_prompt().render(TEXT, "ENIAC"), ExtractionResult)
        bodies = [r.body for r in server.chat_calls()]
        assert [structured_mode(b) for b in bodies] == ["json_schema"] * 3
        assert "chat_template_kwargs" not in bodies[-1] and "reasoning_effort" not in bodies[-1]


def test_every_request_a_compile_sends_carries_a_schema_or_a_tool() -> None:
    for accepts in (STRUCTURED_MODES, ("json_object+schema",), ("tools",)):
        openai_api._accepted.clear()
        with FakeOpenAI(accepts=accepts) as server:
            extractor = LlmExtractor(client(server))
            extractor.extract_chunk(CHUNK, CONTEXT)
            answered = [r.body for r in server.chat_calls() if structured_mode(r.body) in accepts]
            assert answered and all(request_schema(b) is not None for b in answered)


def test_a_cut_off_reply_is_split_and_its_tokens_counted() -> None:
    text = " ".join(f"Machine {i} weighed {i + 10} tons in {1940 + i}." for i in range(30))
    chunk = Chunk("m.md", 0, text, 0, len(text))
    with FakeOpenAI() as server:
        server.script.append(Reply(content='{"entities": [{"name": "Mach', finish_reason="length"))
        ledger = Ledger()
        result = LlmExtractor(client(server, ledger)).extract_chunk(chunk, ExtractionContext("m.md", "Machines"))
        sent = server.chat_calls()
        assert len(sent) == 3  # the chunk, then its two halves
        budgets = [r.body["max_tokens"] for r in sent]
        assert budgets[0] == reply_budget(text, 8192) < 8192 and max(budgets[1:]) < budgets[0]
        assert len(result.claims) >= 20 and ledger.total.output_tokens == server.output_tokens  # cut-off one too
        assert ledger.invalid_replies == 1 and ledger.replies == 3


def test_a_runaway_reply_fails_the_chunk_or_falls_back() -> None:
    text = " ".join(f"Machine {i} weighed {i + 10} tons in {1940 + i}." for i in range(60))
    chunk = Chunk("m.md", 0, text, 0, len(text))
    runaway = Reply(content='{"entities": [], "claims": [{"text": "' + "x" * 50, finish_reason="length")
    with FakeOpenAI() as server:
        server.override = lambda rec: runaway
        ledger = Ledger()
        with pytest.raises(ChunkExtractionFailed) as info:
            LlmExtractor(client(server, ledger)).extract_chunk(chunk, ExtractionContext("m.md", "Machines"))
        assert info.value.reason == "cut_off" and "[compile] chunk_chars" in str(info.value)
        assert len(server.chat_calls()) == 3  # the chunk, its first half, that half's first half: given up
        assert ledger.total.output_tokens > 0  # the cut-off replies were paid for
        fell = LlmExtractor(client(server, Ledger(), fallback="heuristic"))
        result = fell.extract_chunk(chunk, ExtractionContext("m.md", "Machines"))
        assert result.claims and result.maker == ("heuristic", HeuristicExtractor.version)
        assert fell.client.ledger.fallbacks == {"m.md": {1: "a runaway reply"}}


def test_reply_cut_off_is_raised_by_the_client() -> None:
    with FakeOpenAI() as server:
        server.script.append(Reply(content="{", finish_reason="length"))
        with pytest.raises(ReplyCutOff):
            client(server).ask(get_prompt().render(TEXT, "ENIAC"), ExtractionResult)


def test_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="structured"):
        Config.from_dict({"llm": {"structured": "grammar"}})
    with pytest.raises(ConfigError, match="fallback"):
        Config.from_dict({"llm": {"fallback": "spacy"}})
    assert Config.from_dict({"llm": {"structured": "tools", "fallback": "heuristic"}}).llm.fallback == "heuristic"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["Word", "word.", "Two words.", "\n\n", " ", "A sentence! ", "x?"]), min_size=1,
                max_size=80), st.integers(min_value=0, max_value=500))
def test_halves_are_exact_slices_that_join_to_the_chunk(parts: list[str], start: int) -> None:
    text = "".join(parts)
    chunk = Chunk("a.md", 2, text, start, start + len(text), ("H",))
    pieces = halves(chunk)
    assert "".join(p.text for p in pieces) == text
    assert pieces[0].start == start and pieces[-1].end == start + len(text)
    assert all(p.end - p.start == len(p.text) and p.index == 2 and p.headings == ("H",) for p in pieces)
    assert pieces[0].end == pieces[1].start


def test_merge_joins_entities_by_name_and_keeps_every_claim() -> None:
    a = ExtractionResult.model_validate(GOOD)
    b = ExtractionResult.model_validate({"entities": [{"name": "eniac", "aliases": ["Electronic Numerical"]}],
                                         "claims": [{**GOOD["claims"][0], "subject": "eniac"}]})
    merged = merge([a, b])
    assert [e.name for e in merged.entities] == ["ENIAC"] and merged.entities[0].aliases == ["Electronic Numerical"]
    assert len(merged.claims) == 2
    assert json.loads(merged.model_dump_json())["claims"][1]["subject"] == "eniac"

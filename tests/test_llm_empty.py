"""Nothing empty passes as success (issue 33): `kg compile` through the CLI against an OpenAI-compatible
fake whose model answers `{}`, with and without `[llm] fallback = "heuristic"`, and `kg doctor --model`."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest
from fakes_llm import FakeOpenAI, heuristic_reply, is_judge_request, judge_reply, request_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg import api
from kg.cache import ResponseCache
from kg.cli import app
from kg.extract.heuristic import HeuristicExtractor
from kg.kb import KnowledgeBase, init
from kg.llm import openai_api
from kg.llm.extractor import LlmExtractor
from kg.llm.prompts import get_prompt
from tests.conftest import EXAMPLES

NOTES = ("alan-turing.md", "eniac.md", "transistor.md")
KB_TOML = """\
[compile]
extractor = "openai"

[llm]
model = "gemma-3-270m"
base_url = "{url}/v1"
timeout_seconds = 5
backoff_seconds = 0.001
max_retries = 1
validation_retries = 1
{extra}
"""


def says_nothing(body: dict[str, Any]) -> Any:
    """A model that answers every extraction with `{}` (the judges still answer)."""
    return judge_reply(body) if is_judge_request(body) else {}



def make_kb(kb: KnowledgeBase, server: FakeOpenAI, extra: str = "") -> KnowledgeBase:
    for name in NOTES:
        shutil.copyfile(EXAMPLES / name, kb.raw / name)
    kb.config_path.write_text(KB_TOML.format(url=server.url, extra=extra), encoding="utf-8")
    return kb


def extraction_calls(server: FakeOpenAI) -> list[Any]:
    return [r for r in server.chat_calls() if not is_judge_request(r.body)]


def run(kb: KnowledgeBase, *args: str) -> Any:
    return CliRunner().invoke(app, [*args, "--kb", str(kb.root)])


def test_a_model_that_gives_nothing_fails_its_sources_and_says_so(kb: KnowledgeBase) -> None:
    with FakeOpenAI(says_nothing) as server:
        make_kb(kb, server)
        result = run(kb, "compile", "--json", "-q")
        assert result.exit_code == 1, result.output
        data = json.loads(result.stdout)
        assert data["empty_extractions"] == {name: [1] for name in NOTES}
        assert data["claims_added"] == 0 and set(data["failed"]) == set(NOTES)
        assert all("empty extraction" in reason and 'fallback = "heuristic"' in reason for reason in data["failed"].values())
        sent = extraction_calls(server)
        assert len(sent) == 2 * len(NOTES)  # asked once more, with an example sentence
        assert all(request_schema(r.body) is not None for r in sent)
        assert sum("A first reply gave no claim" in json.dumps(r.body["messages"]) for r in sent) == len(NOTES)

        # never cached as the chunks' answer: the next compile asks again (the sources failed)
        extractor = LlmExtractor(openai_api.OpenAIClient(kb.config().llm, env={}))
        cache = ResponseCache(kb.cache_path)
        assert all(cache.get(key) is None for key in _chunk_keys(kb, extractor))
        cache.close()
        ledger = json.loads(kb.ledger_path.read_text(encoding="utf-8"))
        assert ledger["last_run"]["empty_extractions"] == {name: [1] for name in NOTES}
        assert ledger["last_run"]["output_tokens"] > 0

        status = run(kb, "status", "--json")
        assert json.loads(status.stdout)["empty_extractions"] == sorted(NOTES)
        assert "3 empty extraction(s)" in run(kb, "status").stdout

        text = run(kb, "compile")  # the human summary names the sources and prints config names literally
        assert text.exit_code == 1
        assert "empty extraction: the model gave no claims for 3 source(s)" in text.stderr
        assert all(name in text.stderr for name in NOTES)
        assert '[llm] fallback = "heuristic"' in text.stderr
        assert "add [llm.prices] to kg.toml" in text.stderr
        assert len(extraction_calls(server)) == 4 * len(NOTES)


def _chunk_keys(kb: KnowledgeBase, extractor: LlmExtractor) -> list[str]:
    from kg.compile.chunk import chunk_text

    return [extractor.cache_key(c) for name in NOTES
            for c in chunk_text(name, (kb.raw / name).read_text(encoding="utf-8"), kb.config().compile.chunk_chars)]


def test_the_fallback_extracts_offline_and_every_claim_says_by_what(kb: KnowledgeBase) -> None:
    def eniac_only(body: dict[str, Any]) -> Any:  # the model answers for ENIAC only
        if is_judge_request(body) or "ENIAC" in json.dumps(body["messages"][1]["content"])[:200]:
            return heuristic_reply(body)
        return {}

    with FakeOpenAI(eniac_only) as server:
        make_kb(kb, server, 'fallback = "heuristic"')
        result = run(kb, "compile", "-q")
        assert result.exit_code == 0, result.output
        assert "fallback: 2 chunk(s) extracted offline" in result.stderr
        assert "alan-turing.md (1)" in result.stderr and "transistor.md (1)" in result.stderr
        rows = api.cypher(kb, "MATCH (c:Claim)-[:EXTRACTED_FROM]->(s:Source) RETURN DISTINCT s.path AS path, "
                              "c.extractor AS extractor, c.prompt_version AS version ORDER BY path")
        made = {(r["path"], r["extractor"], r["version"]) for r in rows}
        assert ("eniac.md", "openai:gemma-3-270m", get_prompt().version) in made
        assert ("alan-turing.md", "heuristic", HeuristicExtractor.version) in made
        assert not any(r["path"] == "alan-turing.md" and r["extractor"] != "heuristic" for r in rows)
        page = (kb.wiki / "sources" / "alan-turing.md").read_text(encoding="utf-8")
        assert "Claims extracted by heuristic instead" in page and "· extracted by heuristic" in page
        assert "extracted by" not in (kb.wiki / "sources" / "eniac.md").read_text(encoding="utf-8")
        claim = next(r for r in api.cypher(kb, "MATCH (c:Claim)-[:EXTRACTED_FROM]->(s:Source {path: 'transistor.md'}) "
                                               "RETURN c.id AS id ORDER BY id LIMIT 1"))
        assert f"extractor heuristic ({HeuristicExtractor.version})" in run(kb, "claim", "show", claim["id"]).stdout

        # a rebuild from the cache asks nothing again and gives the same claims
        before = len(extraction_calls(server))
        rebuilt = run(kb, "compile", "--rebuild", "-q")
        assert rebuilt.exit_code == 0, rebuilt.output
        assert len(extraction_calls(server)) == before
        again = {(r["path"], r["extractor"], r["version"]) for r in api.cypher(
            kb, "MATCH (c:Claim)-[:EXTRACTED_FROM]->(s:Source) RETURN DISTINCT s.path AS path, "
                "c.extractor AS extractor, c.prompt_version AS version ORDER BY path")}
        assert again == made


def test_doctor_model_scores_a_model_and_gives_a_verdict(kb: KnowledgeBase) -> None:
    with FakeOpenAI() as server:  # a good model: the offline extractor's answers
        make_kb(kb, server)
        result = run(kb, "doctor", "--model", "--json")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        for key in ("schema_valid", "claims_per_chunk", "quotes_verified", "entity_recall", "seconds_per_chunk"):
            assert isinstance(data[key], float), key
        assert data["schema_valid"] == 1.0 and data["quotes_verified"] == 1.0 and data["claims_per_chunk"] > 3
        assert data["entity_recall"] == data["heuristic"]["entity_recall"] > 0.6
        assert data["verdict"] == "fit" and data["structured"] == "json_schema" and data["documents"] == 5
        assert all(request_schema(r.body) is not None for r in server.chat_calls())
        assert not (kb.state / "graph.kuzu").exists()  # nothing compiled
    openai_api._accepted.clear()
    with FakeOpenAI(says_nothing, accepts=("json",)) as server:
        make_kb(kb, server)
        result = run(kb, "doctor", "--model")
        assert result.exit_code == 1
        assert "verdict: unusable" in result.stdout and "claims_per_chunk 0.0 is below 1.0" in result.stdout
        assert "replies held by json" in result.stdout


def test_doctor_model_needs_an_llm(kb: KnowledgeBase) -> None:
    result = run(kb, "doctor", "--model", "-x", "heuristic")
    assert result.exit_code == 2 and "scores an LLM" in result.stderr


def _claims_made(kb: KnowledgeBase) -> set[tuple[str, str, str, str]]:
    return {(r["path"], r["id"], r["extractor"], r["version"]) for r in api.cypher(
        kb, "MATCH (c:Claim)-[:EXTRACTED_FROM]->(s:Source) WHERE c.status = 'live' RETURN s.path AS path, c.id AS id, "
            "c.extractor AS extractor, c.prompt_version AS version")}


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.permutations(NOTES), st.integers(1, len(NOTES)))
def test_with_the_fallback_any_order_and_split_gives_one_graph(tmp_path_factory: pytest.TempPathFactory,
                                                               order: list[str], cut: int) -> None:
    """Which chunks fell back is a function of the chunks (and the reply cache), not of arrival order."""
    def transistor_only(body: dict[str, Any]) -> Any:
        if is_judge_request(body) or "transistor" in json.dumps(body["messages"][1]["content"])[:300].casefold():
            return heuristic_reply(body)
        return {}

    with FakeOpenAI(transistor_only) as server:
        results = []
        for slices in ([list(NOTES)], [order[:cut], order[cut:]]):
            kb, _ = init(tmp_path_factory.mktemp("order") / "kb")
            kb.config_path.write_text(KB_TOML.format(url=server.url, extra='fallback = "heuristic"'), encoding="utf-8")
            for part in slices:
                for name in part:
                    shutil.copyfile(EXAMPLES / name, kb.raw / name)
                assert api.compile_kb(kb)[0].failed == {}
            results.append(_claims_made(kb))
        assert results[0] == results[1]
        assert {(path, extractor) for path, _, extractor, _ in results[0]} == {
            ("transistor.md", "openai:gemma-3-270m"), ("eniac.md", "heuristic"), ("alan-turing.md", "heuristic")}


def test_messages_print_config_names_literally(kb: KnowledgeBase) -> None:
    """Console markup would eat "[llm]", "[compile]" and "[llm.prices]" (issue 33 item 5)."""
    with FakeOpenAI() as server:
        make_kb(kb, server)
        dry = run(kb, "compile", "--dry-run")
        assert dry.exit_code == 0 and "add [llm.prices] to kg.toml" in dry.stdout
        kb.config_path.write_text(KB_TOML.format(url=server.url, extra='structured = "grammar"'), encoding="utf-8")
        bad = run(kb, "compile")
        assert bad.exit_code == 2 and "[llm] structured must be one of" in bad.stderr
        kb.config_path.write_text(KB_TOML.format(url=server.url, extra="max_tokens = 10"), encoding="utf-8")
        assert "[llm] max_tokens must be at least 256" in run(kb, "status").stderr

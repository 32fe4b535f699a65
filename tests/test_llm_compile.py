"""`kg compile` with the LLM backends: the whole pipeline against the loopback fakes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fakes_llm import (
    FakeAnthropic,
    FakeOpenAI,
    Recorded,
    Reply,
    approx_tokens,
    heuristic_reply,
    is_judge_request,
)
from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.kb import KnowledgeBase
from kg.llm import run as llm_run
from kg.llm.ledger import run_ledger
from kg.llm.prompts import get_prompt

KB_TOML = """\
[compile]
extractor = "{extractor}"

[llm]
{model}
timeout_seconds = 2
backoff_seconds = 0.001
max_retries = 1
batch_poll_seconds = 0.001
"""


@pytest.fixture
def claude_kb(example_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[KnowledgeBase, FakeAnthropic]]:
    example_kb.config_path.write_text(KB_TOML.format(extractor="anthropic", model=""), encoding="utf-8")
    with FakeAnthropic() as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        yield example_kb, server


def claims(kb: KnowledgeBase) -> list[dict[str, Any]]:
    return api.cypher(kb, "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) RETURN s.path AS path, c.id AS id, "
                          "c.text AS text, c.prompt_version AS version, c.extractor AS extractor, x.quote AS quote "
                          "ORDER BY path, id, quote")


def messages(server: FakeAnthropic) -> list[Recorded]:
    """Extraction requests (the LLM judges' questions are tested in test_llm_judge.py)."""
    return [r for r in server.calls("/v1/messages") if not is_judge_request(r.body)]


def test_compile_examples_then_recompile_from_cache(claude_kb: tuple[KnowledgeBase, FakeAnthropic]) -> None:
    kb, server = claude_kb
    report, _ = api.compile_kb(kb)
    assert report.compiled == 14 and not report.failed and report.claims_added > 20
    sent = messages(server)
    assert len(sent) == 14  # one call per chunk (each example note is one chunk)
    rows = claims(kb)
    assert {r["version"] for r in rows} == {get_prompt().version}
    assert {r["extractor"] for r in rows} == {"anthropic:claude-sonnet-4-6"}
    ledger = run_ledger()
    assert ledger.total.requests == len(server.calls("/v1/messages")) and ledger.cost() > 0 and ledger.total.cache_read_tokens > 0

    # Unchanged input: nothing to do. A lost graph: rebuilt from the reply cache, same graph, zero requests.
    assert not api.compile_kb(kb)[0].changed_anything
    (kb.state / "graph.kuzu").unlink()
    before = len(server.calls("/v1/messages"))
    report2, _ = api.compile_kb(kb)
    assert report2.compiled == 14
    assert len(server.calls("/v1/messages")) == before  # judges' verdicts came from the cache too
    assert len(messages(server)) == 14
    assert [(r["path"], r["id"], r["quote"]) for r in claims(kb)] == [(r["path"], r["id"], r["quote"]) for r in rows]
    assert run_ledger().cache_hits == 14


def test_quote_not_in_text_is_dropped_and_counted(claude_kb: tuple[KnowledgeBase, FakeAnthropic]) -> None:
    kb, server = claude_kb

    def with_invented_claim(body: dict[str, Any]) -> dict[str, Any]:
        reply = heuristic_reply(body)
        reply.setdefault("entities", []).append({"name": "Ada Lovelace", "type": "person"})
        reply.setdefault("claims", []).append({"subject": "Ada Lovelace", "text": "Ada Lovelace built ENIAC.",
                                               "quotes": ["Ada Lovelace built ENIAC in 1812."]})
        return reply

    server.responder = with_invented_claim
    report, _ = api.compile_kb(kb)
    assert report.unverified >= 14 and not report.failed
    assert not [r for r in claims(kb) if "Lovelace built" in r["text"]]
    per_source = api.cypher(kb, "MATCH (s:Source) RETURN s.unverified AS n")
    assert all(r["n"] >= 1 for r in per_source)


def test_persistent_500_fails_only_that_source(claude_kb: tuple[KnowledgeBase, FakeAnthropic]) -> None:
    kb, server = claude_kb
    server.override = lambda rec: Reply(status=500) if "Source title: Colossus\\n" in json.dumps(rec.body) else None
    result = CliRunner().invoke(app, ["compile", "--kb", str(kb.root), "--quiet"])
    assert result.exit_code == 1
    failed_lines = [line for line in result.stderr.splitlines() if line.startswith("failed:")]
    assert len(failed_lines) == 1 and "colossus.md" in failed_lines[0] and "HTTP 500" in failed_lines[0]
    assert "Traceback" not in result.output + result.stderr
    assert "LLM usage:" in result.stderr
    assert not [r for r in claims(kb) if r["path"] == "colossus.md"]
    assert len({r["path"] for r in claims(kb)}) == 13
    status = api.status(kb)
    assert list(status.failed) == ["colossus.md"] and "HTTP 500" in status.failed["colossus.md"]
    # The next compile retries the failed source only.
    server.override = None
    before = len(messages(server))
    assert api.compile_kb(kb)[0].compiled == 1
    assert len(messages(server)) == before + 1


def test_batch_round_trip(claude_kb: tuple[KnowledgeBase, FakeAnthropic]) -> None:
    kb, server = claude_kb
    sent = llm_run.prefetch_batch(kb, sleep=lambda s: None)
    assert (sent.submitted, sent.succeeded, sent.failed) == (14, 14, {})
    [create] = server.calls("/v1/messages/batches")
    request = create.body["requests"][0]
    assert len(request["custom_id"]) == 64
    assert request["params"]["tools"][0]["name"] == "ExtractionResult"
    assert request["params"]["system"][0]["cache_control"] == {"type": "ephemeral"}
    report, _ = api.compile_kb(kb)
    assert report.compiled == 14 and report.claims_added > 20
    assert messages(server) == []  # every chunk came from the batch results
    ledger = run_ledger()
    assert ledger.batch_models == {"claude-sonnet-4-6"} and ledger.cache_hits == 14
    # Nothing pending: a second --batch sends nothing.
    assert llm_run.prefetch_batch(kb).batch_id is None and len(server.calls("/v1/messages/batches")) == 1


def test_dry_run_sends_nothing(claude_kb: tuple[KnowledgeBase, FakeAnthropic], monkeypatch: pytest.MonkeyPatch) -> None:
    kb, server = claude_kb
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    result = CliRunner().invoke(app, ["compile", "--kb", str(kb.root), "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["chunks"] == 14 and data["usage"]["requests"] == 14 and data["cost_usd"] > 0
    assert server.requests == [] and not kb.db_path.exists()


def test_openai_compatible_compile(example_kb: KnowledgeBase) -> None:
    with FakeOpenAI() as server:
        example_kb.config_path.write_text(KB_TOML.format(
            extractor="openai", model=f'model = "llama3.2:3b"\nbase_url = "{server.url}/v1"'), encoding="utf-8")
        server.script.append(Reply(content="<think>hmm</think>"))  # an empty reply first: re-asked
        report, _ = api.compile_kb(example_kb)
        assert report.compiled == 14 and not report.failed
        assert len([r for r in server.requests if not is_judge_request(r.body)]) == 15
        assert {r["extractor"] for r in claims(example_kb)} == {"openai:llama3.2:3b"}


def test_token_figures_for_the_examples(claude_kb: tuple[KnowledgeBase, FakeAnthropic], capsys: pytest.CaptureFixture[str]) -> None:
    """The fake's accounting (ceil(chars/4) of system + tools + messages) for the examples."""
    kb, server = claude_kb
    kb.config_path.write_text(kb.config_path.read_text(encoding="utf-8") + "judges = false\n", encoding="utf-8")
    api.compile_kb(kb)
    sent = messages(server)
    assert len(sent) == len(server.requests)  # extraction only: the judges are off
    chunk_tokens = [approx_tokens(r.body["messages"][0]["content"].split("<chunk>\n", 1)[1].rsplit("\n</chunk>", 1)[0])
                    for r in sent]
    total_in = server.input_tokens + server.cache_read_tokens + server.cache_write_tokens
    overhead = (total_in - sum(chunk_tokens)) / len(sent)
    with capsys.disabled():
        print(f"\n[token figures] requests={len(sent)} input={total_in} (uncached {server.input_tokens}, "
              f"cache write {server.cache_write_tokens}, cache read {server.cache_read_tokens}) "
              f"output={server.output_tokens} chunk_text={sum(chunk_tokens)} overhead_per_chunk={overhead:.0f}")
    assert server.cache_write_tokens > 0 and overhead > 0


def test_cli_compile_batch(claude_kb: tuple[KnowledgeBase, FakeAnthropic]) -> None:
    kb, server = claude_kb
    result = CliRunner().invoke(app, ["compile", "--kb", str(kb.root), "--batch", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "batch msgbatch_0001: 14/14 chunk(s) extracted" in result.stderr
    assert "LLM usage:" in result.stderr and "14 chunk(s) from cache" in result.stderr
    assert messages(server) == [] and len(claims(kb)) > 20

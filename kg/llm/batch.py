"""`kg compile --batch`: extract every pending chunk through the Anthropic Message Batches API.

The batch path fills the reply cache, then the ordinary compile runs and finds every chunk
there (zero further requests), so the graph is exactly what a synchronous compile gives:

1. collect the chunks of the sources the plan will compile, skip those already cached;
2. submit one batch request per distinct chunk (custom_id = the reply-cache key), with the
   same system prompt (cache_control), tool and forced tool_choice as the synchronous path,
   through the extractor's own `AnthropicClient` (its SDK client, config and ledger);
3. poll until the batch has ended (`[llm] batch_poll_seconds`);
4. validate each succeeded result against the reply model and cache it; record its tokens in
   the ledger at the batch price (half). Errored, expired, invalid, cut-off and empty results
   (no claim with its quote in the chunk, for a chunk that states something) are left uncached,
   so the compile that follows extracts those chunks synchronously (with retries, splits, the
   second ask and the fallback of kg/llm/extractor.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from kg.compile.chunk import chunk_text
from kg.compile.sources import read_source
from kg.config import Config
from kg.errors import ConfigError, ExtractionError, SourceError
from kg.extract import ExtractionContext
from kg.kb import KnowledgeBase
from kg.llm.anthropic_api import AnthropicClient, message_params, with_tool
from kg.llm.client import describe
from kg.llm.extractor import LlmExtractor, reply_budget
from kg.llm.ledger import Usage
from kg.models import Chunk, ExtractionResult


@dataclass
class BatchReport:
    batch_id: str | None = None
    submitted: int = 0
    cached_before: int = 0
    succeeded: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # custom_id -> reason
    polls: int = 0

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def pending_chunks(kb: KnowledgeBase, config: Config, paths: Iterable[str]) -> list[tuple[Chunk, ExtractionContext]]:
    """The chunks (with their context) the compiler will extract for `paths`, as it will cut them."""
    out: list[tuple[Chunk, ExtractionContext]] = []
    for path in paths:
        try:
            doc = read_source(kb.raw, kb.raw / path, config.compile.max_source_bytes, config.authority, kb.converted_path)
        except SourceError:
            continue  # the compile reports it
        context = ExtractionContext(doc.path, doc.title, frontmatter=doc.frontmatter)
        out.extend((chunk, context) for chunk in chunk_text(doc.path, doc.text, config.compile.chunk_chars))
    return out


def run_batch(
    extractor: LlmExtractor, items: Sequence[tuple[Chunk, ExtractionContext]],
    sleep: Callable[[float], None] = time.sleep, max_wait_seconds: float = 24 * 3600,
) -> BatchReport:
    """Submit, poll, and cache the results. Nothing to do -> no request at all."""
    client = extractor.client
    if not isinstance(client, AnthropicClient):
        raise ConfigError("--batch uses the Anthropic Message Batches API: use it with --extractor anthropic.")
    report = BatchReport()
    cache = extractor.cache
    if cache is None:
        raise ExtractionError("--batch needs the reply cache (the results are delivered through it).")
    requests: dict[str, dict[str, Any]] = {}
    chunks: dict[str, tuple[Chunk, ExtractionContext]] = {}
    for chunk, context in items:
        key = extractor.cache_key(chunk)
        if key in requests:
            continue
        if cache.get(key) is not None:
            report.cached_before += 1
            continue
        prompt = extractor.render(chunk, context)
        budget = reply_budget(chunk.text, client.config.max_tokens)
        requests[key] = {"custom_id": key, "params": with_tool(message_params(prompt, client.model, budget))}
        chunks[key] = (chunk, context)
    if not requests:
        return report
    batches = client.raw_client.messages.batches
    try:
        batch = batches.create(requests=list(requests.values()))
    except Exception as exc:
        raise ExtractionError(f"Submitting the message batch failed: {describe(exc)}. Run `kg compile --batch` again, "
                              "or compile without --batch.") from None
    client.ledger.record(client.model, Usage(requests=1), batch=True)
    report.batch_id, report.submitted = batch.id, len(requests)
    waited = 0.0
    while batch.processing_status != "ended":
        if waited >= max_wait_seconds:
            raise ExtractionError(f"Message batch {batch.id} has not ended after {waited:.0f}s. Run `kg compile --batch` "
                                  "later: finished chunks are cached.")
        sleep(client.config.batch_poll_seconds)
        waited += client.config.batch_poll_seconds
        batch = batches.retrieve(batch.id)
        report.polls += 1
    for item in batches.results(batch.id):
        custom_id = item.custom_id
        result = item.result
        if result.type != "succeeded":
            report.failed[custom_id] = result.type
            continue
        message = result.message
        client.ledger.record(client.model, Usage.from_response(message.usage, requests=0), batch=True)
        if getattr(message, "stop_reason", "") == "max_tokens":
            report.failed[custom_id] = "cut off at its token limit"
            continue
        tool_input = next((b.input for b in message.content if getattr(b, "type", "") == "tool_use"), None)
        try:
            parsed = ExtractionResult.model_validate(tool_input)
        except ValidationError as exc:
            report.failed[custom_id] = f"invalid reply ({exc.error_count()} validation errors)"
            continue
        if custom_id in requests:
            if not extractor.settled(*chunks[custom_id], parsed):
                report.failed[custom_id] = "no claim with its quote in the chunk"
                continue
            cache.put(custom_id, parsed.model_dump(mode="json"))
            report.succeeded += 1
    return report

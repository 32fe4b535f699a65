"""Extraction through the LLM client: one request per chunk, the reply cache, concurrency.

`LlmExtractor` is the compiler's `Extractor` for every provider: it renders the versioned
extraction prompt (prompts/extract_v1.md.j2) for a chunk and sends it through an `LlmClient`
(kg/llm/client.py), whose `call` retries transient failures and records the ledger. A chunk that
still fails raises `ChunkExtractionFailed`, which the compiler records as the source's failure
while the other sources go on. Quote verification stays in kg/compile/verify.py.

Replies are cached under `content_key(provider name, prompt version, model, chunk text)`
(`Extractor.cache_key`), so recompiling unchanged input makes no request.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from kg.cache import ResponseCache
from kg.errors import ExtractionError, SourceError
from kg.extract import ExtractionContext, Extractor
from kg.llm.client import LlmCallFailed, LlmClient
from kg.llm.ledger import Usage
from kg.llm.prompts import PromptTemplate, RenderedPrompt, get_prompt
from kg.models import Chunk, ExtractionResult


class ChunkExtractionFailed(LlmCallFailed, ExtractionError, SourceError):
    """A chunk failed after all retries. A SourceError too: the compiler fails only that source."""


class LlmExtractor(Extractor):
    """Chunks -> ExtractionResult through `client`; the name ("anthropic", "openai") and model are the client's."""

    cacheable = True
    wants_known_entities = True

    def __init__(self, client: LlmClient, cache: ResponseCache | None = None, prompt: PromptTemplate | None = None) -> None:
        super().__init__(cache)
        self.client = client
        self.name = client.name
        self.model = client.model
        self.prompt = prompt or get_prompt("extract")
        self.version = self.prompt.version

    def render(self, chunk: Chunk, context: ExtractionContext) -> RenderedPrompt:
        lowered = chunk.text.casefold()
        known = tuple(n for n in context.known_entities if n.casefold() in lowered)  # the ones this chunk names
        return self.prompt.render(chunk.text, context.source_title, chunk.headings, known)

    def _request(self, prompt: RenderedPrompt) -> tuple[ExtractionResult, Usage]:
        """One extraction call (plus instructor's validation re-asks). Raise on failure."""
        result, usage = self.client.ask(prompt, self.prompt.response_model)
        return ExtractionResult.model_validate(result.model_dump()), usage

    def extract_chunk(self, chunk: Chunk, context: ExtractionContext) -> ExtractionResult:
        prompt = self.render(chunk, context)
        return self.client.call(lambda: self._request(prompt), f"{chunk.source_path}: extraction of chunk {chunk.index + 1}",
                                ChunkExtractionFailed)

    def extract(self, chunks: Sequence[Chunk], context: ExtractionContext) -> list[ExtractionResult]:
        """Cache lookups in this thread; misses run `[llm] concurrency` at a time, in order."""
        results: list[ExtractionResult | None] = [None] * len(chunks)
        misses: list[int] = []
        for i, chunk in enumerate(chunks):
            hit = self.cache.get(self.cache_key(chunk)) if self.cache is not None else None
            if hit is not None:
                results[i] = ExtractionResult.model_validate(hit)
                self.client.ledger.hit()
            else:
                misses.append(i)
        lock = threading.Lock()

        def one(i: int) -> ExtractionResult:
            result = self.extract_chunk(chunks[i], context)
            if self.cache is not None:  # cached at once: a later failure of a sibling chunk keeps it
                with lock:
                    self.cache.put(self.cache_key(chunks[i]), result.model_dump(mode="json"))
            return result

        workers = min(max(1, self.client.config.concurrency), len(misses))
        if workers <= 1:
            fresh = [one(i) for i in misses]
        else:
            with ThreadPoolExecutor(workers, thread_name_prefix="kg-llm") as pool:
                fresh = list(pool.map(one, misses))
        for i, result in zip(misses, fresh, strict=True):
            results[i] = result
        return [r for r in results if r is not None]

"""Extraction through the LLM client: one request per chunk, the reply cache, concurrency, and what
happens when a model gives nothing usable.

`LlmExtractor` is the compiler's `Extractor` for every provider: it renders the versioned
extraction prompt (prompts/extract_v2.md.j2) for a chunk and sends it through an `LlmClient`
(kg/llm/client.py), whose `call` retries transient failures and records the ledger. Quote
verification stays in kg/compile/verify.py. A chunk's answer (`extract_chunk`):

- The request's max_tokens follows the chunk's size (`reply_budget`, at most `[llm] max_tokens`):
  a reply many times longer than its text is a runaway, stopped early.
- A reply cut off at that limit (finish_reason "length") splits the chunk in two at the paragraph
  or sentence end nearest its middle and asks for each half (`MAX_SPLITS` levels at most); the
  halves' answers are merged into the chunk's.
- A reply without a grounded claim (one whose quote is found in the chunk, as the compiler will
  check) for a chunk that states something (the offline extractor finds a claim in it) is asked
  once more, with one of its sentences as an example.
- Still nothing is an empty extraction: the chunk is counted in the ledger, and once every chunk
  of the source is done the source fails with `EmptyExtraction` (the compile exits 1 and names it;
  the next compile asks again). With `[llm] fallback = "heuristic"` the offline extractor's answer
  for that chunk is used instead, and its claims carry that extractor's name and version. A
  runaway reply (cut off even in pieces) or an unusable one (no valid reply after the re-asks)
  falls back the same way; a failure of the server never does (`ChunkExtractionFailed`).

Replies are cached under `content_key(provider name, prompt version, model, chunk text)`
(`Extractor.cache_key`), so recompiling unchanged input makes no request. An empty answer is
cached only for a chunk that states nothing. A fallback is remembered under its own key
(`fallback_key`), so that a rebuild from the cache gives the same graph without asking again.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from kg.cache import ResponseCache, content_key
from kg.compile.verify import ChunkVerifier
from kg.errors import ExtractionError, LlmCallFailed, SourceError
from kg.extract import EmptyExtraction, ExtractionContext, Extractor
from kg.extract.heuristic import HeuristicExtractor
from kg.llm.client import LlmClient
from kg.llm.ledger import Usage, estimate_tokens
from kg.llm.prompts import PromptTemplate, RenderedPrompt, get_prompt
from kg.models import Chunk, ExtractedEntity, ExtractionResult

#: A reply may take this many tokens per token of the chunk's text, plus `REPLY_BASE_TOKENS`: a
#: thorough reply repeats each quote and adds a sentence and fields per claim (about 4x).
REPLY_TOKENS_PER_TEXT_TOKEN = 4
REPLY_BASE_TOKENS = 256
#: A chunk whose reply is cut off is halved at most this many times (halves, then quarters)...
MAX_SPLITS = 2
#: ...and never into pieces shorter than this many characters.
MIN_PIECE_CHARS = 300
_BREAK = re.compile(r"\n[ \t]*\n\s*|(?<=[.!?])\s+")


class ChunkExtractionFailed(LlmCallFailed, ExtractionError, SourceError):
    """A chunk failed after all retries. A SourceError too: the compiler fails only that source."""


def reply_budget(text: str, most: int) -> int:
    """max_tokens for the reply to a chunk of `text`: in proportion to it, at most `most`."""
    return min(most, REPLY_BASE_TOKENS + REPLY_TOKENS_PER_TEXT_TOKEN * estimate_tokens(text))


def halves(chunk: Chunk) -> list[Chunk]:
    """The chunk cut in two at the paragraph or sentence end nearest its middle (exact slices)."""
    text, middle = chunk.text, len(chunk.text) // 2
    cuts = [m.end() for m in _BREAK.finditer(text) if 0 < m.end() < len(text)]
    cut = min(cuts, key=lambda c: (abs(c - middle), c)) if cuts else middle
    return [Chunk(chunk.source_path, chunk.index, text[:cut], chunk.start, chunk.start + cut, chunk.headings),
            Chunk(chunk.source_path, chunk.index, text[cut:], chunk.start + cut, chunk.end, chunk.headings)]


def merge(results: Sequence[ExtractionResult]) -> ExtractionResult:
    """The answers for the pieces of one chunk as one: entities by name (aliases joined), claims in order."""
    entities: dict[str, ExtractedEntity] = {}
    for result in results:
        for entity in result.entities:
            key = entity.name.casefold()
            if key in entities:
                known = entities[key]
                aliases = list(dict.fromkeys([*known.aliases, *entity.aliases]))
                entities[key] = known.model_copy(update={"aliases": aliases})
            else:
                entities[key] = entity
    claims = [claim for result in results for claim in result.claims]
    return ExtractionResult(entities=list(entities.values()), claims=claims)


def grounded(result: ExtractionResult, chunk: Chunk) -> int:
    """How many of the result's claims have a quote found in the chunk (what the compiler keeps)."""
    verifier = ChunkVerifier(chunk)
    return sum(1 for claim in result.claims if verifier.verify(claim))


def nudged(prompt: RenderedPrompt, example: str) -> RenderedPrompt:
    """The prompt asked once more after a reply without grounded claims, with one sentence the chunk states."""
    example = " ".join(example.split())[:300]
    return RenderedPrompt(prompt.system, f"{prompt.user}\n\nA first reply gave no claim with a quote copied word for "
                                         f"word from this chunk, but the chunk states facts, for example: \"{example}\". "
                                         "Return every claim it makes, each with its quote copied exactly and the "
                                         "entities it names.")


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
        self.offline = HeuristicExtractor()
        self.fallback = client.config.fallback == "heuristic"
        self._cache_lock = threading.Lock()  # chunks are extracted in threads; one SQLite handle

    def render(self, chunk: Chunk, context: ExtractionContext) -> RenderedPrompt:
        lowered = chunk.text.casefold()
        known = tuple(n for n in context.known_entities if n.casefold() in lowered)  # the ones this chunk names
        return self.prompt.render(chunk.text, context.source_title, chunk.headings, known)

    def settled(self, chunk: Chunk, context: ExtractionContext, result: ExtractionResult) -> bool:
        """Whether `result` may stand as the chunk's answer: a grounded claim, or a chunk that states nothing."""
        return grounded(result, chunk) > 0 or not self.offline.extract_chunk(chunk, context).claims

    def fallback_key(self, chunk: Chunk) -> str:
        """Where a chunk the model gave nothing usable for is remembered (not its answer's key)."""
        return content_key(self.name, self.version, self.model, chunk.text, "fallback")

    # one chunk --------------------------------------------------------------------------------

    def _request(self, prompt: RenderedPrompt, budget: int) -> tuple[ExtractionResult, Usage]:
        """One extraction call (plus the provider's validation re-asks). Raise on failure."""
        result, usage = self.client.using(max_tokens=budget).ask(prompt, self.prompt.response_model)
        return ExtractionResult.model_validate(result.model_dump()), usage

    def _ask(self, chunk: Chunk, context: ExtractionContext, example: str = "") -> ExtractionResult:
        prompt = self.render(chunk, context)
        if example:
            prompt = nudged(prompt, example)
        budget = reply_budget(chunk.text, self.client.config.max_tokens)
        what = f"{chunk.source_path}: extraction of chunk {chunk.index + 1}"
        return self.client.call(lambda: self._request(prompt, budget), what, ChunkExtractionFailed)

    def answer(self, chunk: Chunk, context: ExtractionContext, example: str, depth: int = 0) -> ExtractionResult:
        """The model's answer for `chunk`, asked once more (with `example`) when it has no claims
        and the chunk states something; a reply cut off at the token limit splits the chunk."""
        try:
            result = self._ask(chunk, context)
            if example and not grounded(result, chunk):
                try:
                    result = self._ask(chunk, context, example)
                except ChunkExtractionFailed as exc:
                    if exc.reason != "unusable":  # a cut-off second ask splits the chunk too
                        raise
            return result  # (still empty after an unusable second ask: an empty extraction)
        except ChunkExtractionFailed as exc:
            if exc.reason != "cut_off" or depth >= MAX_SPLITS or len(chunk.text) < 2 * MIN_PIECE_CHARS:
                raise
        answers = []
        for piece in halves(chunk):
            sample = self._example(piece, context) if example else ""
            answers.append(self.answer(piece, context, sample, depth + 1))
        return merge(answers)

    def _example(self, chunk: Chunk, context: ExtractionContext) -> str:
        """A sentence the chunk states (the offline extractor's first quote), or '' when it states nothing."""
        claims = self.offline.extract_chunk(chunk, context).claims
        return claims[0].quotes[0] if claims else ""

    def extract_chunk(self, chunk: Chunk, context: ExtractionContext) -> ExtractionResult:
        """The chunk's answer; raises `EmptyExtraction` (for that chunk) when the model gives no
        claims for a chunk that states something, and there is no fallback."""
        offline = self.offline.extract_chunk(chunk, context)
        example = offline.claims[0].quotes[0] if offline.claims else ""
        number = chunk.index + 1
        try:
            result = self.answer(chunk, context, example)
        except ChunkExtractionFailed as exc:
            if not self.fallback or exc.reason == "error":
                raise
            return self._fell_back(chunk, offline, "a runaway reply" if exc.reason == "cut_off" else "no valid reply")
        if not offline.claims or grounded(result, chunk):
            return result
        if self.fallback:
            return self._fell_back(chunk, offline, "no claims")
        self.client.ledger.empty_chunk(chunk.source_path, number)
        raise EmptyExtraction(chunk.source_path, [number], len(offline.claims), self.label)

    def _fell_back(self, chunk: Chunk, offline: ExtractionResult, reason: str) -> ExtractionResult:
        self.client.ledger.fallback(chunk.source_path, chunk.index + 1, reason)
        if self.cache is not None:
            with self._cache_lock:
                self.cache.put(self.fallback_key(chunk), {"reason": reason})
        return offline.made_by(self.offline.label, self.offline.version)

    # every chunk of a source ------------------------------------------------------------------

    def _remembered(self, chunk: Chunk, context: ExtractionContext) -> ExtractionResult | None:
        """A cached answer, or (with a fallback) the offline answer for a chunk the model gave nothing for."""
        if self.cache is None:
            return None
        hit = self.cache.get(self.cache_key(chunk))
        if hit is not None:
            return ExtractionResult.model_validate(hit)
        if self.fallback and (fell := self.cache.get(self.fallback_key(chunk))) is not None:
            self.client.ledger.fallback(chunk.source_path, chunk.index + 1, str(fell.get("reason", "")))
            return self.offline.extract_chunk(chunk, context).made_by(self.offline.label, self.offline.version)
        return None

    def extract(self, chunks: Sequence[Chunk], context: ExtractionContext) -> list[ExtractionResult]:
        """Cache lookups in this thread; misses run `[llm] concurrency` at a time, in order. Every
        chunk is tried before a source's empty extraction is raised, so the others are cached."""
        results: list[ExtractionResult | None] = [None] * len(chunks)
        misses: list[int] = []
        for i, chunk in enumerate(chunks):
            remembered = self._remembered(chunk, context)
            if remembered is not None:
                results[i] = remembered
                self.client.ledger.hit()
            else:
                misses.append(i)
        lock = self._cache_lock
        empty: list[EmptyExtraction] = []

        def one(i: int) -> ExtractionResult | None:
            try:
                result = self.extract_chunk(chunks[i], context)
            except EmptyExtraction as exc:
                with lock:
                    empty.append(exc)
                return None
            if self.cache is not None and result.maker is None:  # cached at once: a sibling's failure keeps it
                with lock:
                    self.cache.put(self.cache_key(chunks[i]), result.model_dump(mode="json"))
            return result

        workers = min(max(1, self.client.config.concurrency), len(misses))
        if workers <= 1:
            fresh = [one(i) for i in misses]
        else:
            with ThreadPoolExecutor(workers, thread_name_prefix="kg-llm") as pool:
                fresh = list(pool.map(one, misses))
        if empty:
            numbers = sorted(n for exc in empty for n in exc.chunks)
            raise EmptyExtraction(context.source_path, numbers, sum(e.offline_claims for e in empty), self.label,
                                  of=len(chunks))
        for i, result in zip(misses, fresh, strict=True):
            results[i] = result
        return [r for r in results if r is not None]

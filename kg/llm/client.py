"""What every LLM backend shares: the prompt, the retry policy, concurrency and the ledger.

A backend implements `ask(prompt, response_model) -> (reply, Usage)`: exactly one provider
call through instructor, whose own bounded re-asks handle replies that fail validation.
Around it this base retries transport failures (timeouts, 429, 529 and 5xx) with
exponential backoff, records tokens in the run's `Ledger`, and turns a final failure into
`ChunkExtractionFailed`, which the compiler records as the source's failure while the other
sources go on (`call` is that policy; the LLM judges in kg/llm/judges.py reuse it). Quote verification stays in kg/compile/verify.py (the compiler runs it).

API keys are read from the environment by the SDK clients and never stored: they are not
part of any cache key, cached reply, ledger entry or error message.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from abc import abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from pydantic import BaseModel

from kg.cache import ResponseCache
from kg.config import LlmConfig
from kg.errors import ExtractionError, SourceError
from kg.extract import ExtractionContext, Extractor
from kg.llm.ledger import Ledger, Usage, run_ledger
from kg.llm.prompts import PromptTemplate, RenderedPrompt, get_prompt
from kg.models import Chunk, ExtractionResult

log = logging.getLogger(__name__)
T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_TRANSIENT_CLASS_NAMES = frozenset({"APIConnectionError", "APITimeoutError", "TimeoutException", "ConnectError",
                                    "ReadTimeout", "RemoteProtocolError"})


class ChunkExtractionFailed(ExtractionError, SourceError):
    """A chunk failed after all retries. A SourceError too: the compiler fails only that source."""


class RetryableReply(Exception):
    """A reply that is worth asking again (e.g. empty after instructor's re-asks)."""


def root_cause(exc: BaseException) -> BaseException:
    """instructor wraps provider errors in InstructorRetryException: find the original."""
    seen = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        nxt = exc.__cause__ or (exc.__context__ if not exc.__suppress_context__ else None)
        if nxt is None or type(exc).__name__ not in {"InstructorRetryException", "RetryError"}:
            break
        exc = nxt
    return exc


def status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def is_transient(exc: BaseException) -> bool:
    cause = root_cause(exc)
    if isinstance(cause, RetryableReply):
        return True
    status = status_of(cause)
    if status is not None:
        return status in TRANSIENT_STATUS or status >= 500
    return any(k.__name__ in _TRANSIENT_CLASS_NAMES for k in type(cause).__mro__)


def describe(exc: BaseException) -> str:
    """One line, without the request body, headers or key."""
    cause = root_cause(exc)
    status = status_of(cause)
    name = type(cause).__name__
    message = str(getattr(cause, "message", "") or cause).splitlines()[0] if str(cause) else name
    if len(message) > 300:
        message = message[:300] + "..."
    message = message.rstrip(". ")
    return f"HTTP {status} {name}: {message}" if status else f"{name}: {message}"


def usage_of(exc: BaseException) -> Any:
    """Tokens spent on a call that finally failed validation (instructor keeps the total)."""
    return getattr(exc, "total_usage", None)


class LlmExtractor(Extractor):
    """Base of the anthropic and openai backends. Thread-safe `_request` is required."""

    cacheable = True
    wants_known_entities = True
    provider = "llm"
    default_model = ""

    def __init__(
        self, config: LlmConfig, cache: ResponseCache | None = None, ledger: Ledger | None = None,
        prompt: PromptTemplate | None = None, sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(cache)
        self.config = config
        self.prompt = prompt or get_prompt("extract")
        self.version = self.prompt.version
        self.model = config.model or self.default_model
        self.ledger = ledger if ledger is not None else run_ledger(config.prices)
        self.sleep = sleep
        quiet = logging.getLogger("instructor")  # it logs every failed attempt at ERROR; kg reports them
        if quiet.level == logging.NOTSET:
            quiet.setLevel(logging.CRITICAL)

    # the one provider call -----------------------------------------------------------------

    @abstractmethod
    def ask(self, prompt: RenderedPrompt, response_model: type[M], context: dict[str, Any] | None = None) -> tuple[M, Usage]:
        """One provider call whose reply must validate against `response_model` (instructor re-asks
        up to `validation_retries` times; `context` reaches the model's validators). Raise on failure."""

    def _request(self, prompt: RenderedPrompt) -> tuple[ExtractionResult, Usage]:
        """One extraction call (plus instructor's validation re-asks). Raise on failure."""
        result, usage = self.ask(prompt, self.prompt.response_model)
        return ExtractionResult.model_validate(result.model_dump()), usage

    def hint(self, exc: BaseException) -> str:
        """What the user should do about a final failure."""
        status = status_of(root_cause(exc))
        if status in (401, 403):
            return "check the API key in the environment"
        if status == 404:
            return f"check the model name ({self.model!r}) and base_url in kg.toml"
        if type(root_cause(exc)).__name__ == "IncompleteOutputException":
            return "the reply hit max_tokens; raise [llm] max_tokens or lower [compile] chunk_chars in kg.toml"
        if is_transient(exc):
            return "the service is busy or unreachable; run `kg compile` again later (finished sources are kept)"
        return "run `kg compile` again; if it keeps failing, try another model or --extractor heuristic"

    def count_request(self, *args: Any, **kwargs: Any) -> None:
        """instructor hook (completion:response / completion:error): one HTTP call made."""
        self.ledger.record(self.model, Usage(requests=1))

    def watch(self, client: Any) -> Any:
        """Count every call instructor makes through `client` (re-asks included)."""
        client.on("completion:response", self.count_request)
        client.on("completion:error", self.count_request)
        return client

    # chunks --------------------------------------------------------------------------------

    def render(self, chunk: Chunk, context: ExtractionContext) -> RenderedPrompt:
        lowered = chunk.text.casefold()
        known = tuple(n for n in context.known_entities if n.casefold() in lowered)  # the ones this chunk names
        return self.prompt.render(chunk.text, context.source_title, chunk.headings, known)

    def extract_chunk(self, chunk: Chunk, context: ExtractionContext) -> ExtractionResult:
        prompt = self.render(chunk, context)
        return self.call(lambda: self._request(prompt), f"{chunk.source_path}: extraction of chunk {chunk.index + 1}")

    def call(self, request: Callable[[], tuple[T, Usage]], what: str,
             failure: Callable[[str], Exception] = ChunkExtractionFailed) -> T:
        """Run one provider request with kg's retry policy: transient failures are retried with
        backoff, tokens (also those of failed attempts) go to the ledger, and a final failure
        raises `failure("<what> by <backend> failed...: <cause>. Next: <hint>.")`."""
        attempts = self.config.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                result, usage = request()
            except Exception as exc:
                spent = usage_of(exc)
                if spent is not None:
                    self.ledger.record(self.model, Usage.from_response(spent, requests=0))
                if attempt < attempts and is_transient(exc):
                    delay = self.backoff(attempt, exc)
                    log.warning("%s: %s: %s; retrying in %.1fs", self.label, what, describe(exc), delay)
                    self.sleep(delay)
                    continue
                tries = f" after {attempt} attempt(s)" if attempt > 1 else ""
                raise failure(f"{what} by {self.label} failed{tries}: {describe(exc)}. Next: {self.hint(exc)}.") from None
            self.ledger.record(self.model, usage)
            return result
        raise AssertionError("unreachable")  # pragma: no cover

    def backoff(self, attempt: int, exc: BaseException) -> float:
        """Exponential, capped; honours a server's Retry-After when it sends one."""
        delay = self.config.backoff_seconds * (2 ** (attempt - 1))
        response = getattr(root_cause(exc), "response", None)
        header = getattr(response, "headers", {}).get("retry-after") if response is not None else None
        if header:
            with contextlib.suppress(ValueError):
                delay = max(delay, float(header))
        return min(delay, self.config.max_backoff_seconds)

    def extract(self, chunks: Sequence[Chunk], context: ExtractionContext) -> list[ExtractionResult]:
        """Cache lookups in this thread; misses run `concurrency` at a time, in order."""
        results: list[ExtractionResult | None] = [None] * len(chunks)
        misses: list[int] = []
        for i, chunk in enumerate(chunks):
            hit = self.cache.get(self.cache_key(chunk)) if self.cache is not None else None
            if hit is not None:
                results[i] = ExtractionResult.model_validate(hit)
                self.ledger.hit()
            else:
                misses.append(i)
        lock = threading.Lock()

        def one(i: int) -> ExtractionResult:
            result = self.extract_chunk(chunks[i], context)
            if self.cache is not None:  # cached at once: a later failure of a sibling chunk keeps it
                with lock:
                    self.cache.put(self.cache_key(chunks[i]), result.model_dump(mode="json"))
            return result

        workers = min(max(1, self.config.concurrency), len(misses))
        if workers <= 1:
            fresh = [one(i) for i in misses]
        else:
            with ThreadPoolExecutor(workers, thread_name_prefix="kg-llm") as pool:
                fresh = list(pool.map(one, misses))
        for i, result in zip(misses, fresh, strict=True):
            results[i] = result
        return [r for r in results if r is not None]

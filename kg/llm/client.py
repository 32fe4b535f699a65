"""The one LLM client: what every provider shares, used by extraction, the judges and answers.

`LlmClient` has one abstract method, `ask(prompt, response_model, context) -> (reply, Usage)`:
exactly one provider call through instructor, whose own bounded re-asks handle replies that
fail validation (`context` reaches the reply model's validators). The providers are
`AnthropicClient` (kg/llm/anthropic_api.py) and `OpenAIClient` (kg/llm/openai_api.py); build
one with `kg.llm.backends.make_client`. Around `ask`, `call` is kg's retry policy: transport
failures (timeouts, 429, 529 and 5xx) are retried with exponential backoff (a server's
Retry-After is honoured), tokens (also those of failed attempts and of replies cut off at the
token limit) and requests go to the run's `Ledger`, and a final failure raises one clear error
("... failed after N attempt(s): <cause>. Next: <hint>.") whose `reason` says what kind of failure
it was: "cut_off" (the reply hit max_tokens), "unusable" (no reply matched the schema after the
validation re-asks) or "error" (the server failed or refused). Its users: `LlmExtractor` (kg/llm/extractor.py: reply cache and concurrency
over chunks), the judges (kg/llm/judges.py), the batch path (kg/llm/batch.py) and synthesised
answers (kg/retrieve/answer.py).

API keys are read from the environment by the SDK clients and never stored: they are not
part of any cache key, cached reply, ledger entry or error message.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Self, TypeVar

from pydantic import BaseModel

from kg.config import LlmConfig
from kg.errors import KgError
from kg.llm.ledger import Ledger, Usage, run_ledger
from kg.llm.prompts import RenderedPrompt

log = logging.getLogger(__name__)
T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_TRANSIENT_CLASS_NAMES = frozenset({"APIConnectionError", "APITimeoutError", "TimeoutException", "ConnectError",
                                    "ReadTimeout", "RemoteProtocolError"})


class LlmCallFailed(KgError):
    """An LLM request failed after all retries (the message says why and what to do next)."""

    #: "cut_off": the reply hit its token limit; "unusable": no reply matched the schema after the
    #: validation re-asks; "error": the server failed, refused or could not be reached.
    reason = "error"


class RetryableReply(Exception):
    """A reply that is worth asking again (e.g. empty after instructor's re-asks)."""


class ReplyCutOff(Exception):
    """A provider's reply stopped at its token limit (finish_reason "length"): not retried as is."""

    def __init__(self, max_tokens: int, total_usage: Usage | None = None) -> None:
        super().__init__(f"the reply reached its limit of {max_tokens} tokens before it was complete")
        self.max_tokens = max_tokens
        self.total_usage = total_usage


class ReplyUnusable(Exception):
    """No reply matched the schema after the validation re-asks (empty, not JSON, invalid)."""

    def __init__(self, message: str, total_usage: Usage | None = None, empty: bool = False) -> None:
        super().__init__(message)
        self.total_usage = total_usage
        self.empty = empty  # every reply was empty


@dataclasses.dataclass(frozen=True)
class Advice:
    """The next step a final failure suggests, besides the provider-specific hints."""

    busy: str = "run `kg compile` again later (finished sources are kept)"
    other: str = "run `kg compile` again; if it keeps failing, try another model or --extractor heuristic"


COMPILE_ADVICE = Advice()


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


def usage_of(exc: BaseException) -> Usage | None:
    """Tokens spent on a call that failed: instructor keeps the total of its attempts, kg's own
    provider errors carry theirs, and a reply cut off at the limit carries its completion."""
    for candidate in (exc, root_cause(exc)):
        total = getattr(candidate, "total_usage", None)
        if isinstance(total, Usage):
            return total
        if total is not None:
            return Usage.from_response(total, requests=0)
        last = getattr(candidate, "last_completion", None)
        if last is not None and getattr(last, "usage", None) is not None:
            return Usage.from_response(last.usage, requests=0)
    return None


def failure_kind(exc: BaseException) -> str:
    """`LlmCallFailed.reason` of a final failure: cut_off, unusable or error."""
    cause = root_cause(exc)
    name = type(cause).__name__
    if isinstance(cause, ReplyCutOff) or name == "IncompleteOutputException":
        return "cut_off"
    if isinstance(cause, ReplyUnusable) or name in {"ValidationError", "JSONDecodeError"}:
        return "unusable"
    return "error"


def usage_after(result: Any) -> Usage:
    """Tokens of all attempts of a successful call (instructor sums them); requests are counted by hooks."""
    total = getattr(result, "_total_usage", None) or getattr(getattr(result, "_raw_response", None), "usage", None)
    return Usage.from_response(total, requests=0)


class LlmClient(ABC):
    """One provider and model, with kg's retry policy and ledger. Thread-safe `ask` is required."""

    #: The provider's name: in labels ("anthropic:claude-...") and in every reply-cache key.
    name = "llm"
    default_model = ""

    def __init__(self, config: LlmConfig, ledger: Ledger | None = None,
                 sleep: Callable[[float], None] | None = None) -> None:
        self.config = config
        self.model = config.model or self.default_model
        self.ledger = ledger if ledger is not None else run_ledger(config.prices)
        self.sleep = sleep or time.sleep
        quiet = logging.getLogger("instructor")  # it logs every failed attempt at ERROR; kg reports them
        if quiet.level == logging.NOTSET:
            quiet.setLevel(logging.CRITICAL)

    @property
    def label(self) -> str:
        return f"{self.name}:{self.model}" if self.model else self.name

    @abstractmethod
    def ask(self, prompt: RenderedPrompt, response_model: type[M], context: dict[str, Any] | None = None) -> tuple[M, Usage]:
        """One provider call whose reply must validate against `response_model` (instructor re-asks
        up to `validation_retries` times; `context` reaches the model's validators). Raise on failure."""

    def using(self, **changes: Any) -> Self:
        """This client with some `[llm]` settings changed for one use (e.g. `max_tokens` of a short
        answer); the SDK client, ledger and model are shared. None values change nothing."""
        changes = {k: v for k, v in changes.items() if v is not None and getattr(self.config, k) != v}
        if not changes:
            return self
        if "model" in changes:
            raise ValueError("`using` cannot change the model: build another client")
        other = copy.copy(self)
        other.config = dataclasses.replace(self.config, **changes)
        return other

    # the retry policy --------------------------------------------------------------------------

    def call(self, request: Callable[[], tuple[T, Usage]], what: str,
             failure: Callable[[str], Exception] = LlmCallFailed, advice: Advice = COMPILE_ADVICE) -> T:
        """Run one provider request with kg's retry policy: transient failures are retried with
        backoff, tokens (also those of failed attempts) go to the ledger, and a final failure
        raises `failure("<what> by <label> failed...: <cause>. Next: <hint>.")`."""
        attempts = self.config.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                result, usage = request()
            except Exception as exc:
                spent = usage_of(exc)
                if spent is not None:
                    self.ledger.record(self.model, dataclasses.replace(spent, requests=0))
                if attempt < attempts and is_transient(exc):
                    delay = self.backoff(attempt, exc)
                    log.warning("%s: %s: %s; retrying in %.1fs", self.label, what, describe(exc), delay)
                    self.sleep(delay)
                    continue
                tries = f" after {attempt} attempt(s)" if attempt > 1 else ""
                error = failure(f"{what} by {self.label} failed{tries}: {describe(exc)}. "
                                f"Next: {self.hint(exc, advice)}.")
                if isinstance(error, LlmCallFailed):
                    error.reason = failure_kind(exc)
                raise error from None
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

    def hint(self, exc: BaseException, advice: Advice = COMPILE_ADVICE) -> str:
        """What the user should do about a final failure."""
        status = status_of(root_cause(exc))
        if status in (401, 403):
            return "check the API key in the environment"
        if status == 404:
            return f"check the model name ({self.model!r}) and base_url in kg.toml"
        if failure_kind(exc) == "cut_off":
            return ("the reply hit its token limit; lower [compile] chunk_chars or raise [llm] max_tokens in "
                    "kg.toml, or try a model that keeps to the schema")
        if is_transient(exc):
            return f"the service is busy or unreachable; {advice.busy}"
        return advice.other

    # request counting ----------------------------------------------------------------------------

    def count_request(self, *args: Any, **kwargs: Any) -> None:
        """instructor hook (completion:response / completion:error): one HTTP call made."""
        self.ledger.record(self.model, Usage(requests=1))

    def watch(self, client: Any) -> Any:
        """Count every call instructor makes through `client` (re-asks included)."""
        client.on("completion:response", self.count_request)
        client.on("completion:error", self.count_request)
        return client

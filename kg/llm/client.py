"""The one LLM client: what every provider shares, used by extraction, the judges and answers.

`LlmClient.ask(prompt, response_model, context) -> (reply, Usage)` is kg's one structured-output
path, for every provider: the provider sends the request in a form that holds the reply to the
reply model's JSON schema (`send`: Anthropic a forced tool call, kg/llm/anthropic_api.py; an
OpenAI-compatible server the strongest form it accepts, stepping down when it refuses one,
kg/llm/openai_api.py) and says how to re-ask (`reask`). The reply is cleaned (`<think>` blocks,
code fences) and validated against the reply model (`context` reaches its validators); an empty
or invalid one is re-asked with what was wrong, at most `[llm] validation_retries` times, then
`ReplyUnusable` is raised. A reply that stops at its token limit raises `ReplyCutOff` at once
(the extractor splits the chunk instead of asking again). kg keeps this loop rather than
instructor's: instructor's OpenAI modes send the schema without kg's required top-level fields,
have no form for llama-cpp-python's server (json_object + schema) and do not drop `<think>`
blocks before parsing, and its hooks see one event per SDK call (see below).

Transport failures (timeouts, connection errors, 408, 409, 429 and 5xx, 529 included) are retried
by the SDKs themselves, `max_retries` = `[llm] max_retries`, with their backoff (0.5 s doubling to
8 s, with jitter) or the server's Retry-After when it sends one (the anthropic SDK waits what it
says; the openai SDK up to 2 minutes, and gives up at once on a longer wait). The ledger
counts every HTTP attempt, the SDKs' retries included, through the SDK's HTTP client's request
hook (`http_hooks`); instructor's `completion:*` hooks cannot: they fire once per SDK call
however many requests it made. Around `ask`, `call` turns a final failure into one clear error
("... failed after N attempt(s): <cause>. Next: <hint>.") whose `reason` says what kind of
failure it was: "cut_off" (the reply hit max_tokens), "unusable" (no reply matched the schema
after the re-asks) or "error" (the server failed or refused), and puts the tokens of every reply
(also those of failed and cut-off ones) in the run's `Ledger`. Its users: `LlmExtractor`
(kg/llm/extractor.py: reply cache and concurrency over chunks), the judges (kg/llm/judges.py),
the batch path (kg/llm/batch.py), card drafts (kg/learn/writer.py) and synthesised answers
(kg/retrieve/answer.py). Build a client with `kg.llm.backends.make_client`.

API keys are read from the environment by the SDK clients and never stored: they are not
part of any cache key, cached reply, ledger entry or error message.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ValidationError

from kg.config import LlmConfig
from kg.errors import LlmCallFailed
from kg.llm.ledger import Ledger, Usage, run_ledger
from kg.llm.prompts import RenderedPrompt

log = logging.getLogger(__name__)
T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

#: What the SDKs retry (and what `hint` calls busy): 425 too, though the SDKs do not retry it.
TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_TRANSIENT_CLASS_NAMES = frozenset({"APIConnectionError", "APITimeoutError", "TimeoutException", "ConnectError",
                                    "ReadTimeout", "RemoteProtocolError"})
_THINK = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.S | re.I)
_FENCE = re.compile(r"^\s*```[\w-]*\s*\n(.*?)\n?\s*```\s*$", re.S)
EMPTY = "the reply was empty"


class ReplyCutOff(Exception):
    """A provider's reply stopped at its token limit: not retried as is."""

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
class Completion:
    """One reply as `ask` reads it: its JSON text, whether it stopped at the token limit, its tokens,
    and the provider's reply object (for `reask`)."""

    text: str
    cut_off: bool
    usage: Usage
    raw: Any


@dataclasses.dataclass(frozen=True)
class Advice:
    """The next step a final failure suggests, besides the provider-specific hints."""

    busy: str = "run `kg compile` again later (finished sources are kept)"
    other: str = "run `kg compile` again; if it keeps failing, try another model or --extractor heuristic"


COMPILE_ADVICE = Advice()


def status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def is_transient(exc: BaseException) -> bool:
    status = status_of(exc)
    if status is not None:
        return status in TRANSIENT_STATUS or status >= 500
    return any(k.__name__ in _TRANSIENT_CLASS_NAMES for k in type(exc).__mro__)


def describe(exc: BaseException) -> str:
    """One line, without the request body, headers or key."""
    status = status_of(exc)
    name = type(exc).__name__
    message = str(getattr(exc, "message", "") or exc).splitlines()[0] if str(exc) else name
    if len(message) > 300:
        message = message[:300] + "..."
    message = message.rstrip(". ")
    return f"HTTP {status} {name}: {message}" if status else f"{name}: {message}"


def usage_of(exc: BaseException) -> Usage | None:
    """Tokens spent on a call that failed: `ask` attaches the total of its replies to its errors."""
    total = getattr(exc, "total_usage", None)
    return total if isinstance(total, Usage) else None


def failure_kind(exc: BaseException) -> str:
    """`LlmCallFailed.reason` of a final failure: cut_off, unusable or error."""
    if isinstance(exc, ReplyCutOff):
        return "cut_off"
    if isinstance(exc, ReplyUnusable):
        return "unusable"
    return "error"


def clean_reply(text: str | None) -> str:
    """Drop <think> blocks and a surrounding code fence; keep the JSON object."""
    if not text:
        return ""
    text = _THINK.sub("", text).strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    elif "```" in text:
        inner = re.search(r"```[\w-]*\s*\n(.*?)```", text, re.S)
        if inner:
            text = inner.group(1).strip()
    if text and not text.startswith("{"):
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            text = text[start : end + 1]
    return text


def schema_of(response_model: type[BaseModel]) -> dict[str, Any]:
    """The reply model's JSON schema with every top-level field required: a server that constrains
    decoding cannot then let a model answer `{}` (in Python the lists default to empty)."""
    schema = response_model.model_json_schema()
    schema["required"] = list(schema.get("properties", {}))
    return schema


def validation_problems(exc: Exception, limit: int = 8) -> str:
    """A short list of what was wrong with a reply, for the re-ask and for messages."""
    if isinstance(exc, ValidationError):
        errors = exc.errors(include_url=False)
        if len(errors) == 1 and errors[0]["type"] == "json_invalid":
            return f"it is not valid JSON ({errors[0]['msg']})"
        lines = [f"{'.'.join(str(p) for p in e['loc']) or 'the object'}: {e['msg']}" for e in errors[:limit]]
        more = f"; and {len(errors) - limit} more" if len(errors) > limit else ""
        return "; ".join(lines) + more
    return str(exc)


class LlmClient(ABC):
    """One provider and model: the structured-output path, its ledger and its failure messages.
    `ask` must be thread-safe (chunks are extracted in threads)."""

    #: The provider's name: in labels ("anthropic:claude-...") and in every reply-cache key.
    name = "llm"
    default_model = ""
    #: The path of the endpoint whose requests the ledger counts (not the batch API's).
    endpoint = ""

    def __init__(self, config: LlmConfig, ledger: Ledger | None = None) -> None:
        self.config = config
        self.model = config.model or self.default_model
        self.ledger = ledger if ledger is not None else run_ledger(config.prices)
        self._attempts = threading.local()  # HTTP attempts of this thread's current call

    @property
    def label(self) -> str:
        return f"{self.name}:{self.model}" if self.model else self.name

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

    # the provider's part -------------------------------------------------------------------------

    @abstractmethod
    def conversation(self, prompt: RenderedPrompt, response_model: type[BaseModel]) -> list[dict[str, Any]]:
        """The first messages of a request for `prompt`."""

    @abstractmethod
    def send(self, messages: list[dict[str, Any]], response_model: type[BaseModel]) -> Completion:
        """One request, held to `response_model`'s schema; the SDK retries transport failures."""

    @abstractmethod
    def reask(self, completion: Completion, problem: str) -> list[dict[str, Any]]:
        """The messages that follow the first ones to ask again after `completion` failed for `problem`."""

    # the one structured-output path --------------------------------------------------------------

    def ask(self, prompt: RenderedPrompt, response_model: type[M], context: dict[str, Any] | None = None) -> tuple[M, Usage]:
        """A reply that validates against `response_model`, re-asked up to `validation_retries`
        times; returns it with the tokens of every reply. Raises ReplyCutOff, ReplyUnusable, or the
        provider's error, each carrying the tokens spent (`total_usage`)."""
        first = self.conversation(prompt, response_model)
        messages = first
        spent = Usage(requests=0)
        problems: list[str] = []
        for _attempt in range(self.config.validation_retries + 1):
            try:
                completion = self.send(messages, response_model)
            except json.JSONDecodeError:
                problems.append("the server's answer was not JSON")  # a garbled body: ask the same again
                continue
            except Exception as exc:
                exc.total_usage = spent  # type: ignore[attr-defined]  # tokens of earlier replies
                raise
            spent.add(completion.usage)
            if completion.cut_off:
                self.ledger.reply(valid=False)
                raise ReplyCutOff(self.config.max_tokens, spent)
            cleaned = clean_reply(completion.text)
            try:
                if not cleaned:
                    raise ValueError(EMPTY)
                reply = response_model.model_validate_json(cleaned, context=context)
            except (ValidationError, ValueError) as exc:
                self.ledger.reply(valid=False)
                problems.append(validation_problems(exc))
                messages = [*first, *self.reask(dataclasses.replace(completion, text=cleaned), problems[-1])]
                continue
            self.ledger.reply(valid=True)
            return reply, spent
        empty = all(p == EMPTY for p in problems)
        raise ReplyUnusable(f"no reply matched the schema in {len(problems)} attempt(s) (last: {problems[-1]})",
                            spent, empty=empty)

    # failures and counting -----------------------------------------------------------------------

    def call(self, request: Callable[[], tuple[T, Usage]], what: str,
             failure: Callable[[str], Exception] = LlmCallFailed, advice: Advice = COMPILE_ADVICE) -> T:
        """Run one `ask`-like request: its tokens (also those of failed replies) go to the ledger,
        and a final failure raises `failure("<what> by <label> failed...: <cause>. Next: <hint>.")`."""
        self._attempts.sent = 0
        try:
            result, usage = request()
        except Exception as exc:
            spent = usage_of(exc)
            if spent is not None:
                self.ledger.record(self.model, dataclasses.replace(spent, requests=0))
            sent = getattr(self._attempts, "sent", 0)
            tries = f" after {sent} attempt(s)" if sent > 1 else ""
            error = failure(f"{what} by {self.label} failed{tries}: {describe(exc)}. Next: {self.hint(exc, advice)}.")
            if isinstance(error, LlmCallFailed):
                error.reason = failure_kind(exc)
            raise error from None
        self.ledger.record(self.model, dataclasses.replace(usage, requests=0))
        return result

    def hint(self, exc: BaseException, advice: Advice = COMPILE_ADVICE) -> str:
        """What the user should do about a final failure."""
        status = status_of(exc)
        if status in (401, 403):
            return "check the API key in the environment"
        if status == 404:
            return f"check the model name ({self.model!r}) and base_url in kg.toml"
        if isinstance(exc, ReplyCutOff):
            return ("the reply hit its token limit; lower [compile] chunk_chars or raise [llm] max_tokens in "
                    "kg.toml, or try a model that keeps to the schema")
        if isinstance(exc, ReplyUnusable):
            if exc.empty:
                return ("the model kept returning empty replies; check that it is loaded and can answer in JSON, "
                        "or try a larger model")
            return ("the model's replies did not match the schema; try a larger model, raise [llm] validation_retries, "
                    "or set [llm] fallback = \"heuristic\"")
        if is_transient(exc):
            return f"the service is busy or unreachable; {advice.busy}"
        return advice.other

    def http_hooks(self) -> dict[str, list[Callable[[Any], None]]]:
        """Event hooks for the SDK's HTTP client: every request to `endpoint` is counted, the
        SDK's own retries included (instructor's hooks would see one event per SDK call), and an
        answer the SDK will retry is reported, as kg's own retries were."""
        return {"request": [self._sent], "response": [self._answered]}

    def _answered(self, response: Any) -> None:
        status = response.status_code
        if (status < 500 and status not in TRANSIENT_STATUS) or response.headers.get("x-should-retry") == "false":
            return
        if int(response.request.headers.get("x-stainless-retry-count") or 0) < self.config.max_retries:
            log.warning("%s: HTTP %s from %s; the SDK retries it after its backoff or the server's Retry-After",
                        self.label, status, response.request.url.path)

    def _sent(self, request: Any) -> None:
        if request.method == "POST" and request.url.path.endswith(self.endpoint):
            self.ledger.record(self.model, Usage(requests=1))
            self._attempts.sent = getattr(self._attempts, "sent", 0) + 1

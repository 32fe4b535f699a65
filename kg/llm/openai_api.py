"""Any OpenAI-compatible chat server (OpenAI, vLLM, LM Studio, llama.cpp's servers, Ollama).

`OpenAIClient` is the `LlmClient` (kg/llm/client.py) for these servers, over the openai SDK: its
part of the one structured-output path (`LlmClient.ask`) is the request form. It sends the reply
model's JSON schema so that the server can constrain generation to it, in the strongest form the
server accepts (`[llm] structured`):

    json_schema          response_format {"type": "json_schema", "json_schema": {name, schema}}:
                         OpenAI, vLLM, LM Studio, llama.cpp's llama-server, Ollama's /v1
    json_object+schema   response_format {"type": "json_object", "schema": ...}: llama-cpp-python's
                         server (its request model refuses json_schema with HTTP 422)
    tools                one function whose parameters are the schema, forced by tool_choice
    json                 bare JSON mode (response_format json_object): the schema is only in the
                         prompt and the reply is unconstrained. Used only when a server accepts
                         nothing else; the run's summary says so (kg/llm/ledger.py).

"auto" (the default) tries them in that order; "json_schema" tries the two schema forms, "tools"
and "json" only their own. Each form is sent first with the switches that turn a thinking
model's thinking off (`chat_template_kwargs: {"enable_thinking": false}`: vLLM, SGLang and
llama.cpp's chat templates; `reasoning_effort: "none"`: Ollama, OpenAI), then with fewer of them.
A server that refuses a request's form gets the next variant: HTTP 400, 415, 422 or 501, or
another error whose message names a field kg varies (llama-cpp-python answers json_schema with
HTTP 500 and "1 validation error: ... response_format"). Such a refusal is marked final for the
SDK (`x-should-retry: false`, the header its retry obeys), which would otherwise retry a 5xx.
The first variant a server answers is remembered per server, model and setting for the life of
the process, so the steps down are paid once. The schema is also stated in the system prompt
(servers do not show a grammar to the model); a re-ask sends the failed reply back with what was
wrong with it.

`base_url` and `model` come from kg.toml (`OPENAI_BASE_URL` is the SDK's fallback); the key
from `OPENAI_API_KEY`. Local servers need no key: a placeholder is sent then.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from kg.config import LlmConfig
from kg.errors import ConfigError
from kg.llm.client import (
    COMPILE_ADVICE,
    Advice,
    Completion,
    LlmClient,
    describe,
    schema_of,
    status_of,
)
from kg.llm.ledger import Ledger, Usage
from kg.llm.prompts import RenderedPrompt

#: The ways of holding a reply to the schema, strongest first, per `[llm] structured` setting.
LADDERS: dict[str, tuple[str, ...]] = {
    "auto": ("json_schema", "json_object+schema", "tools", "json"),
    "json_schema": ("json_schema", "json_object+schema"),
    "tools": ("tools",),
    "json": ("json",),
}
#: Request switches that turn thinking off, most first; the last variant sends none.
NO_THINKING: tuple[dict[str, Any], ...] = (
    {"chat_template_kwargs": {"enable_thinking": False}, "reasoning_effort": "none"},
    {"chat_template_kwargs": {"enable_thinking": False}},
    {},
)
#: HTTP statuses with which a server refuses a request's form (not its content or the service).
REJECTED = frozenset({400, 415, 422, 501})
#: ...and what an error of another status says when it is the form that was refused.
_FORM_REFUSED = re.compile(r"response_format|json_schema|tool_choice|chat_template_kwargs|reasoning_effort|"
                           r"validation error|literal_error|unrecognized request argument", re.I)

_accepted: dict[tuple[str, str, str], int] = {}  # (server, model, setting) -> index of the variant it answered
_accepted_lock = threading.Lock()


def sdk_client(config: LlmConfig, hooks: Mapping[str, list[Any]], env: Mapping[str, str] | None = None) -> Any:
    """The `openai.OpenAI` client: it retries transport failures itself; `hooks` watch its HTTP client."""
    import openai

    env = os.environ if env is None else env
    if not config.model:
        raise ConfigError(
            "The openai provider needs a model: set [llm] model = \"...\" (and base_url for a local server, "
            "e.g. \"http://localhost:11434/v1\" for Ollama) in kg.toml."
        )
    base_url = config.base_url or env.get("OPENAI_BASE_URL") or None
    key = env.get("OPENAI_API_KEY") or "not-needed"  # local servers ignore it
    return openai.OpenAI(api_key=key, base_url=base_url, timeout=config.timeout_seconds,
                         max_retries=config.max_retries, http_client=openai.DefaultHttpxClient(event_hooks=dict(hooks)))


def structure(mode: str, response_model: type[BaseModel]) -> dict[str, Any]:
    """The request parameters that hold a reply to `response_model`'s schema in `mode`."""
    name, schema = response_model.__name__, schema_of(response_model)
    if mode == "json_schema":
        # strict: OpenAI's strict mode wants every field required and no defaults; servers that
        # constrain decoding (llama.cpp, vLLM, LM Studio, Ollama) do so either way.
        return {"response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}}
    if mode == "json_object+schema":
        return {"response_format": {"type": "json_object", "schema": schema}}
    if mode == "tools":
        function = {"name": name, "description": f"Return the {name}.", "parameters": schema}
        return {"tools": [{"type": "function", "function": function}],
                "tool_choice": {"type": "function", "function": {"name": name}}}
    return {"response_format": {"type": "json_object"}}


class RequestRefused(Exception):
    """The server refused every form of request the `[llm] structured` setting allows (not retried)."""


def refusal(status: int | None, message: str) -> bool:
    """Whether an error answer refuses the request's form (so that a weaker form may be accepted)."""
    return status is not None and (status in REJECTED or bool(_FORM_REFUSED.search(message)))


def mark_refusal(response: Any) -> None:
    """HTTP response hook: a refusal of the request's form is final for the SDK's retry."""
    if response.status_code >= 400:
        response.read()
        if refusal(response.status_code, response.text):
            response.headers["x-should-retry"] = "false"


class OpenAIClient(LlmClient):
    name = "openai"
    endpoint = "/chat/completions"

    def __init__(self, config: LlmConfig, ledger: Ledger | None = None, env: Mapping[str, str] | None = None) -> None:
        super().__init__(config, ledger)
        hooks = self.http_hooks()
        self.raw_client = sdk_client(config, {**hooks, "response": [mark_refusal, *hooks["response"]]}, env)
        self.server = str(getattr(self.raw_client, "base_url", "") or config.base_url or "")

    # the request form a server accepts ----------------------------------------------------------

    def variants(self) -> list[tuple[str, dict[str, Any]]]:
        """(mode, extra body) in the order to try: each mode with fewer no-thinking switches."""
        return [(mode, extra) for mode in LADDERS[self.config.structured] for extra in NO_THINKING]

    def _memory_key(self) -> tuple[str, str, str]:
        return (self.server, self.model, self.config.structured)

    def send(self, messages: list[dict[str, Any]], response_model: type[BaseModel]) -> Completion:
        """One chat request in the strongest form the server accepts."""
        variants = self.variants()
        with _accepted_lock:
            first = _accepted.get(self._memory_key(), 0)
        for index in range(first, len(variants)):
            mode, extra = variants[index]
            try:
                completion = self.raw_client.chat.completions.create(
                    model=self.model, max_tokens=self.config.max_tokens, messages=messages,
                    extra_body=extra or None, **structure(mode, response_model))
            except Exception as exc:
                if not refusal(status_of(exc), str(getattr(exc, "message", "") or exc)):
                    raise
                if index + 1 < len(variants):
                    continue  # this form is refused: the next, weaker one
                tried = ", ".join(dict.fromkeys(mode for mode, _ in variants[first:]))
                raise RequestRefused(f"the server refused every form tried ({tried}), the last with "
                                     f"{describe(exc)}") from exc
            if index != first:
                with _accepted_lock:
                    _accepted[self._memory_key()] = index
            self.ledger.held_by(self.model, mode)
            choice = completion.choices[0] if completion.choices else None
            return Completion(self._text(choice, mode), getattr(choice, "finish_reason", "") == "length",
                              Usage.from_response(getattr(completion, "usage", None), requests=0), completion)
        raise AssertionError("unreachable")  # pragma: no cover

    def conversation(self, prompt: RenderedPrompt, response_model: type[BaseModel]) -> list[dict[str, Any]]:
        schema = json.dumps(schema_of(response_model), separators=(",", ":"))
        system = f"{prompt.system}\n\nReply with one JSON object that matches this JSON schema:\n{schema}"
        return [{"role": "system", "content": system}, {"role": "user", "content": prompt.user}]

    def reask(self, completion: Completion, problem: str) -> list[dict[str, Any]]:
        return [{"role": "assistant", "content": completion.text or "(an empty reply)"},
                {"role": "user", "content": f"That reply does not match the schema: {problem}. "
                                            "Reply again with the whole JSON object, corrected."}]

    @staticmethod
    def _text(choice: Any, mode: str) -> str:
        """The reply's JSON text: a tool call's arguments in tools mode (or the content when a
        server answers a forced tool call in plain text), else the message content."""
        message = getattr(choice, "message", None)
        if message is None:
            return ""
        calls = getattr(message, "tool_calls", None) or []
        if mode == "tools" and calls:
            return str(getattr(calls[0].function, "arguments", "") or "")
        return str(message.content or "")

    def hint(self, exc: BaseException, advice: Advice = COMPILE_ADVICE) -> str:
        if isinstance(exc, RequestRefused):
            return (f"the server refused every form of request kg can send ([llm] structured = "
                    f"\"{self.config.structured}\"); check that base_url is an OpenAI-compatible chat server, "
                    "or set [llm] structured = \"auto\"")
        return super().hint(exc, advice)

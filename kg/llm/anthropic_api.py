"""Claude: forced use of one tool whose input schema is the reply model.

`AnthropicClient` is the `LlmClient` (kg/llm/client.py) for Anthropic: its part of the one
structured-output path (`LlmClient.ask`) is the request, a forced tool call, and the re-ask, the
tool's result marked as an error with what was wrong. Its SDK client is the real
`anthropic.Anthropic`, retrying transport failures itself (`max_retries` = `[llm] max_retries`,
honouring Retry-After). `base_url` comes from kg.toml, else the SDK reads `ANTHROPIC_BASE_URL`;
the key comes from `ANTHROPIC_API_KEY` only. The system prompt is sent as a text block marked
`cache_control: ephemeral`, so requests after the first read it from Anthropic's prompt cache.
The batch path (kg/llm/batch.py) sends the same `message_params` through the same SDK client.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from kg.config import LlmConfig
from kg.errors import ConfigError
from kg.llm.client import Completion, LlmClient, schema_of
from kg.llm.ledger import Ledger, Usage
from kg.llm.prompts import RenderedPrompt
from kg.models import ExtractionResult

DEFAULT_MODEL = "claude-sonnet-4-6"  # claude-sonnet-4-5 reaches end-of-life on 2026-11-30


def system_blocks(prompt: RenderedPrompt) -> list[dict[str, Any]]:
    return [{"type": "text", "text": prompt.system, "cache_control": {"type": "ephemeral"}}]


def tool_schema(model: type[BaseModel] = ExtractionResult) -> dict[str, Any]:
    """The one tool whose input is a reply of `model`, every top-level field required."""
    description = (model.__doc__ or "").strip() or f"Return the {model.__name__}."
    return {"name": model.__name__, "description": description, "input_schema": schema_of(model)}


def with_tool(params: dict[str, Any], model: type[BaseModel] = ExtractionResult) -> dict[str, Any]:
    """`params` with the tool of `model`, its use forced."""
    tool = tool_schema(model)
    return {**params, "tools": [tool],
            "tool_choice": {"type": "tool", "name": tool["name"], "disable_parallel_tool_use": True}}


def message_params(prompt: RenderedPrompt, model: str, max_tokens: int) -> dict[str, Any]:
    """A Messages request for `prompt` without the tool (batch requests add it with `with_tool`)."""
    return {
        "model": model,
        "max_tokens": max_tokens,
        "system": system_blocks(prompt),
        "messages": [{"role": "user", "content": prompt.user}],
    }


def sdk_client(config: LlmConfig, hooks: Mapping[str, list[Any]], env: Mapping[str, str] | None = None) -> Any:
    """The `anthropic.Anthropic` client: it retries transport failures itself; `hooks` watch its HTTP client."""
    import anthropic

    env = os.environ if env is None else env
    key = env.get("ANTHROPIC_API_KEY")
    if not key:
        raise ConfigError(
            "The anthropic provider needs ANTHROPIC_API_KEY in the environment (kg never reads keys from files). "
            "Export it, or use --extractor heuristic (offline; `kg query --offline`) or --extractor openai."
        )
    base_url = config.base_url or env.get("ANTHROPIC_BASE_URL") or None
    return anthropic.Anthropic(api_key=key, base_url=base_url, timeout=config.timeout_seconds,
                               max_retries=config.max_retries,
                               http_client=anthropic.DefaultHttpxClient(event_hooks=dict(hooks)))


class AnthropicClient(LlmClient):
    name = "anthropic"
    default_model = DEFAULT_MODEL
    endpoint = "/v1/messages"

    def __init__(self, config: LlmConfig, ledger: Ledger | None = None, env: Mapping[str, str] | None = None) -> None:
        super().__init__(config, ledger)
        self.raw_client = sdk_client(config, self.http_hooks(), env)

    def conversation(self, prompt: RenderedPrompt, response_model: type[BaseModel]) -> list[dict[str, Any]]:
        """The system blocks first (`send` sends them as `system`), then the question."""
        return [{"role": "system", "content": system_blocks(prompt)}, {"role": "user", "content": prompt.user}]

    def send(self, messages: list[dict[str, Any]], response_model: type[BaseModel]) -> Completion:
        system, *turns = messages
        params = {"model": self.model, "max_tokens": self.config.max_tokens, "system": system["content"],
                  "messages": turns}
        message = self.raw_client.messages.create(**with_tool(params, response_model))
        self.ledger.held_by(self.model, "tools")
        used = next((b for b in message.content if getattr(b, "type", "") == "tool_use"), None)
        text = json.dumps(used.input) if used is not None else "".join(
            getattr(b, "text", "") for b in message.content if getattr(b, "type", "") == "text")
        return Completion(text, message.stop_reason == "max_tokens", Usage.from_response(message.usage, requests=0),
                          message)

    def reask(self, completion: Completion, problem: str) -> list[dict[str, Any]]:
        """Anthropic wants a tool_result for every tool_use of the turn before."""
        blocks = [b.model_dump(exclude_none=True) for b in completion.raw.content]
        used = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        text = f"That reply does not match the schema: {problem}. Call the tool again with the whole object, corrected."
        answer: Any = [{"type": "tool_result", "tool_use_id": i, "content": text, "is_error": True} for i in used] or text
        return [{"role": "assistant", "content": blocks or "(an empty reply)"}, {"role": "user", "content": answer}]

"""Claude through instructor (Mode.TOOLS: forced use of one tool whose schema is the reply model).

`AnthropicClient` is the `LlmClient` (kg/llm/client.py) for Anthropic. Its SDK client is the
real `anthropic.Anthropic` with `max_retries=0`, so kg's retry policy (`LlmClient.call`) is the
only one. `base_url` comes from kg.toml, else the SDK reads `ANTHROPIC_BASE_URL`; the key comes
from `ANTHROPIC_API_KEY` only. The system prompt is sent as a text block marked
`cache_control: ephemeral`, so requests after the first read it from Anthropic's prompt cache.
The batch path (kg/llm/batch.py) sends the same `message_params` through the same SDK client.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from kg.config import LlmConfig
from kg.errors import ConfigError
from kg.llm.client import LlmClient, M, usage_after
from kg.llm.ledger import Ledger, Usage
from kg.llm.prompts import RenderedPrompt
from kg.models import ExtractionResult

DEFAULT_MODEL = "claude-sonnet-4-6"  # claude-sonnet-4-5 reaches end-of-life on 2026-11-30


def system_blocks(prompt: RenderedPrompt) -> list[dict[str, Any]]:
    return [{"type": "text", "text": prompt.system, "cache_control": {"type": "ephemeral"}}]


def tool_schema(model: type[BaseModel] = ExtractionResult) -> dict[str, Any]:
    """The tool instructor sends for `model` (used as is by the batch path)."""
    from instructor.v2.providers.anthropic.schema import generate_anthropic_schema

    return dict(generate_anthropic_schema(model))


def message_params(prompt: RenderedPrompt, model: str, max_tokens: int, with_tool: bool) -> dict[str, Any]:
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "system": system_blocks(prompt),
        "messages": [{"role": "user", "content": prompt.user}],
    }
    if with_tool:
        tool = tool_schema()
        params["tools"] = [tool]
        params["tool_choice"] = {"type": "tool", "name": tool["name"], "disable_parallel_tool_use": True}
    return params


def sdk_client(config: LlmConfig, env: Mapping[str, str] | None = None) -> Any:
    """The `anthropic.Anthropic` client (no SDK retries: kg's policy is the only one)."""
    import anthropic

    env = os.environ if env is None else env
    key = env.get("ANTHROPIC_API_KEY")
    if not key:
        raise ConfigError(
            "The anthropic provider needs ANTHROPIC_API_KEY in the environment (kg never reads keys from files). "
            "Export it, or use --extractor heuristic (offline; `kg query --offline`) or --extractor openai."
        )
    base_url = config.base_url or env.get("ANTHROPIC_BASE_URL") or None
    return anthropic.Anthropic(api_key=key, base_url=base_url, timeout=config.timeout_seconds, max_retries=0)


class AnthropicClient(LlmClient):
    name = "anthropic"
    default_model = DEFAULT_MODEL

    def __init__(self, config: LlmConfig, ledger: Ledger | None = None, sleep: Callable[[float], None] | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(config, ledger, sleep)
        import instructor

        self.raw_client = sdk_client(config, env)
        self.instructor = self.watch(instructor.from_anthropic(self.raw_client, mode=instructor.Mode.TOOLS))
        self.instructor.on("completion:response", self._replied)
        self.instructor.on("parse:error", lambda *args, **kwargs: self.ledger.unparsed())

    def _replied(self, *args: Any, **kwargs: Any) -> None:
        """instructor hook: a reply came, held to the schema by a forced tool call."""
        self.ledger.reply(valid=True)
        self.ledger.held_by(self.model, "tools")

    def ask(self, prompt: RenderedPrompt, response_model: type[M], context: dict[str, Any] | None = None) -> tuple[M, Usage]:
        params = message_params(prompt, self.model, self.config.max_tokens, with_tool=False)
        if context is not None:
            params["context"] = context
        result = self.instructor.messages.create(
            response_model=response_model,
            max_retries=self.config.validation_retries,
            **params,
        )
        return result, usage_after(result)
